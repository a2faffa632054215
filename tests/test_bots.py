"""The bot interface and the two baseline bots."""

import pytest

import shangyou
from shangyou.bots import known_levels, make_bot, play_out
from shangyou.bots.base import rules_for
from shangyou.games.climbing.steps import every_play, in_steps
from helpers import CONFIGS, config_id


class ViewOnly:
    """Wraps a bot and checks it is only ever handed a view with its own legal moves."""

    def __init__(self, bot):
        self.bot = bot
        self.calls = 0

    def choose(self, view):
        assert isinstance(view, dict) and "legal_moves" in view and "hands" not in view
        self.calls += 1
        move = self.bot.choose(view)
        moves = view["legal_moves"]
        if in_steps(moves):     # a play chosen in steps: a bot may answer a whole play
            moves = moves + every_play(view, rules_for(view).family)["legal_moves"]
        assert move in moves, move
        return move


@pytest.mark.parametrize("cfg", CONFIGS, ids=config_id)
@pytest.mark.parametrize("kind", ["random", "greedy"])   # heuristic, search: their own files
def test_bots_play_every_preset_to_the_end(cfg, kind):
    name, n, opts = cfg
    g = shangyou.new_match(name, players=n, seed=5, **opts)
    bots = [ViewOnly(make_bot(kind, seed=s)) for s in range(n)]
    play_out(g, bots)
    assert g.over and g.result is not None and sum(b.calls for b in bots) == len(g.moves)


def test_unknown_bot():
    with pytest.raises(ValueError, match="unknown bot"):
        make_bot("clever")


def test_levels_by_name():
    assert known_levels() == ["random", "greedy", "heuristic", "search", "learned"]
    assert make_bot("search:0.5s").seconds == 0.5
    assert make_bot("search:400").iterations == 400
    with pytest.raises(ValueError, match="takes no parameter"):
        make_bot("greedy:3")
    with pytest.raises(ValueError, match="bad search budget"):
        make_bot("search:soon")


def test_bots_are_reproducible():
    def run():
        g = shangyou.new_match("zheng-shangyou/pagat", players=5, seed=3)
        play_out(g, [make_bot("random", seed=s) for s in range(5)])
        return g.log
    assert run() == run()


def test_greedy_leads_its_lowest_play_and_keeps_wilds():
    g = shangyou.new_game("zheng-shangyou/pagat", players=4, seed=3)
    seat = g.to_act
    g.hands[seat] = sorted(shangyou.parse("3H 3S 9D 2S BJ"))
    g._legal = None
    move = make_bot("greedy").choose(g.view(seat))
    assert move == "3H 3S"  # the lowest play, shedding two cards, no wild card


@pytest.mark.parametrize("name,players", [("zheng-shangyou/pagat", 5),
                                          ("zheng-shangyou/owen", 4),
                                          ("zheng-shangyou/winner", 4)])
def test_greedy_beats_random(name, players):
    """Seeded, so deterministic: greedy in seat 0 against random bots wins more than its share."""
    firsts = 0
    hands = 120
    for seed in range(hands):
        g = shangyou.new_game(name, players=players, seed=seed)
        bots = [make_bot("greedy" if s == seed % players else "random", seed=seed * 7 + s)
                for s in range(players)]
        play_out(g, bots)
        firsts += g.result["order"][0] == seed % players
    assert firsts / hands > 1.5 / players, firsts


def test_greedy_keeps_point_cards_in_zheng_fen():
    g = shangyou.new_game("zheng-fen", players=4, seed=3)
    seat = g.to_act
    g.hands[seat] = sorted(shangyou.parse("5H 6S 9D KC"))
    g._legal = None
    assert make_bot("greedy").choose(g.view(seat)) == "6S"     # not the 5: it scores 5
    g.apply("6S")
    nxt = g.to_act
    g.hands[nxt] = sorted(shangyou.parse("10D JS 3C"))
    g._legal = None
    assert make_bot("greedy").choose(g.view(nxt)) == "JS"      # beats without giving 10 points


def test_greedy_outscores_random_in_zheng_fen():
    """Seeded: one greedy bot against three random ones takes well over a quarter of the points."""
    total, hands = 0, 120
    for seed in range(hands):
        g = shangyou.new_game("zheng-fen", players=4, seed=seed)
        me = seed % 4
        play_out(g, [make_bot("greedy" if s == me else "random", seed=seed * 7 + s)
                     for s in range(4)])
        total += g.result["points"][me]
    assert total / hands > 35, total / hands      # an even share would be 25
