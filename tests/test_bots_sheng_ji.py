"""The bots in Sheng ji (Tractor, forty points, Zhao Pengyou): legal moves in every phase, the
greedy bot's simple rules phase by phase, and greedy against random."""

from __future__ import annotations

import pytest

import shangyou
from shangyou.bots import make_bot, play_out
from shangyou.bots import sheng_ji as sj

PRESETS = [("sheng-ji", 4), ("sheng-ji/single-deck", 4), ("sheng-ji/zhao-pengyou", 5)]


class Checked:
    """Wraps a bot: it gets a view (never the game) and must answer one of its legal moves;
    the greedy rules run strictly (an exception is a failure, not a random fallback)."""

    def __init__(self, bot):
        self.bot = bot
        self.calls = 0
        self.phases: set[str] = set()

    def choose(self, view):
        assert isinstance(view, dict) and view["legal_moves"], view
        self.calls += 1
        self.phases.add(view["phase"])
        if self.bot.name == "greedy":
            move = sj.choose(view, strict=True)
            assert move == self.bot.choose(view)
        else:
            move = self.bot.choose(view)
        assert move in view["legal_moves"], (move, view["legal_moves"][:10])
        return move


def _bots(kinds, n):
    return [Checked(make_bot(kinds[s % len(kinds)], seed=s)) for s in range(n)]


@pytest.mark.parametrize("kind", ["random", "greedy"])
@pytest.mark.parametrize("name, players", PRESETS + [("sheng-ji/zhao-pengyou", 7)],
                         ids=lambda x: str(x).split("/")[-1])
def test_bots_play_single_hands(name, players, kind):
    for seed in range(3):
        g = shangyou.new_game(name, players=players, seed=seed)
        bots = _bots([kind], players)
        play_out(g, bots)
        assert g.over and g.history and sum(b.calls for b in bots) == len(g.moves)
        phases = set().union(*(b.phases for b in bots))
        assert {"deal", "bury", "play"} <= phases
        if name.endswith("zhao-pengyou"):
            assert "call" in phases


@pytest.mark.parametrize("kinds", [("random",), ("greedy",), ("greedy", "random")],
                         ids="-".join)
@pytest.mark.parametrize("name, players", PRESETS, ids=lambda x: str(x).split("/")[-1])
def test_bots_play_short_matches(name, players, kinds):
    for seed, start in ((1, "A"), (2, "K")):
        g = shangyou.new_match(name, players=players, seed=seed, start_level=start)
        bots = _bots(kinds, players)
        play_out(g, bots)
        assert g.over and g.result.get("match_winners"), g.result
        assert sum(b.calls for b in bots) == len(g.moves)
        assert shangyou.replay(g.log) == g


def _went_up(summary: dict, team) -> bool:
    change = summary["change"]
    side = summary["declarers"] if change["side"] == "declarers" else summary["opponents"]
    return change["levels"] > 0 and set(side) <= set(team)


def test_greedy_team_beats_random_team():
    greedy_up = random_up = 0
    for seed in range(40):
        g = shangyou.new_game("sheng-ji", seed=1000 + seed)
        play_out(g, [make_bot("greedy" if s % 2 == 0 else "random", seed=seed * 10 + s)
                     for s in range(4)])
        summary = g.history[-1]
        greedy_up += _went_up(summary, (0, 2))
        random_up += _went_up(summary, (1, 3))
    assert greedy_up >= 2 * random_up + 10, (greedy_up, random_up)


# ------------------------------------------------------------------ the greedy rules
def _view(**changes) -> dict:
    """A Tractor view (seat 0, partners 0+2) as the engine makes them, with changes."""
    v = {"game": "sheng-ji", "players": 4, "seat": 0, "phase": "play", "options": {},
         "hand_number": 1, "to_act": 0, "hand": [], "counts": [25, 25, 25, 25], "level": "2",
         "levels": ["2"] * 4, "trump": "2S", "bid": None, "declarer": 0, "kitty_size": 8,
         "trick": [], "tricks": [], "points_won": [0] * 4, "opponents_points": 0,
         "calls": [], "friends": [], "teams": [[0, 2], [1, 3]], "history": [],
         "pending": [], "legal_moves": []}
    v.update(changes)
    return v


def greedy(view) -> str:
    move = make_bot("greedy").choose(view)
    assert move in view["legal_moves"]
    assert move == sj.choose(view, strict=True)
    return move


def test_greedy_bids_with_a_long_suit_or_a_joker_pair():
    long_hearts = "3H 5H 8H 9H JH 2H 4C 6D".split()
    assert greedy(_view(phase="deal", trump=None, declarer=None, hand=long_hearts,
                        legal_moves=["pass", "bid 2H"])) == "bid 2H"
    short_hearts = "3S 5S 8S 9D JC 2H 4C 6D".split()
    assert greedy(_view(phase="deal", trump=None, declarer=None, hand=short_hearts,
                        legal_moves=["pass", "bid 2H"])) == "pass"
    jokers = "3S 5S 8S 9D JC 4C 6D BJ BJ".split()
    assert greedy(_view(phase="deal", trump=None, declarer=None, hand=jokers,
                        legal_moves=["pass", "bid BJ BJ"])) == "bid BJ BJ"
    # never overcall the partner; always reinforce one's own bid
    partner_bid = {"seat": 2, "cards": "2S"}
    assert greedy(_view(phase="deal", trump=None, declarer=None, hand=long_hearts + ["2H"],
                        bid=partner_bid, legal_moves=["pass", "bid 2H 2H"])) == "pass"
    own = {"seat": 0, "cards": "2H"}
    assert greedy(_view(phase="deal", trump=None, declarer=None, hand=long_hearts + ["2H"],
                        bid=own, legal_moves=["pass", "bid 2H 2H"])) == "bid 2H 2H"


def test_greedy_buries_low_plain_cards_of_a_short_suit():
    hand = "3D 4D 9D QD 5C KC 6H 7H 8H 8H 10H JH AH 3S 4S 2H BJ".split()
    moves = [f"bury {c}" for c in dict.fromkeys(hand)]
    view = _view(phase="bury", trump="2S", hand=hand, legal_moves=moves)
    order = sj.bury_order(view, [shangyou.parse(m[5:])[0] for m in moves])
    first = [str(c) for c in order[:4]]
    # diamonds (4 cards) before hearts (8 cards); never points, A, pairs or trumps early
    assert first == ["3D", "4D", "9D", "QD"], first
    assert greedy(view) == "bury 3D"
    late = [str(c) for c in order[-4:]]
    assert set(late) == {"3S", "4S", "2H", "BJ"}, late      # trumps last


def test_greedy_calls_the_highest_card_it_lacks():
    moves = [f"call {o} {r}{s}" for r in ("K", "A") for s in "DCHS" for o in (1, 2)]
    view = _view(game="sheng-ji/zhao-pengyou", players=5, teams=None, phase="call",
                 hand="AD AC AH 3S 4S".split(), legal_moves=moves)
    assert greedy(view) == "call 1 AS"
    view["hand"] = "AD AC AH AS AD 3S".split()
    assert greedy(view) in ("call 2 AC", "call 2 AH", "call 2 AS")
    view["calls"] = ["2 AC"]
    assert greedy(view) in ("call 2 AH", "call 2 AS")


def test_greedy_leads_pairs_then_aces_then_its_lowest_card():
    moves = ["4D", "9C", "AH", "3S", "9C 9C", "throw 4D", "throw AH"]
    assert greedy(_view(hand="4D 9C 9C AH 3S".split(), legal_moves=moves)) == "9C 9C"
    moves = ["4D", "9C", "AH", "5C", "throw 4D", "throw AH"]
    assert greedy(_view(hand="4D 5C 9C AH".split(), legal_moves=moves)) == "AH"
    moves = ["5D", "4D", "9C", "3S", "throw 4D"]
    assert greedy(_view(hand="4D 5D 9C 3S".split(), legal_moves=moves)) == "4D"


def test_greedy_feeds_points_to_its_partner_and_takes_points_from_opponents():
    trick = [[1, "3H"], [2, "AH"], [3, "4H"]]          # the partner (seat 2) wins with A
    feed = _view(hand="5H 6H KH 3C".split(), trick=trick, legal_moves=["5H", "6H", "KH"])
    assert greedy(feed) == "KH"
    trick = [[1, "QH"], [2, "4H"], [3, "KH"]]          # an opponent wins with 10 points
    take = _view(hand="5H 6H AH 3C".split(), trick=trick, legal_moves=["5H", "6H", "AH"])
    assert greedy(take) == "AH"
    cheap = _view(hand="5H 6H 9H 3C".split(), trick=trick, legal_moves=["5H", "6H", "9H"])
    assert greedy(cheap) == "6H"                       # cannot win: no points given away
    ruff = _view(hand="5C 3S".split(), trick=trick, legal_moves=["5C", "3S"])
    assert greedy(ruff) == "3S"                        # void: a trump takes the points


def test_greedy_picks_free_cards():
    trick = [[1, "9H 9H 8H 8H"]]                       # an opponent leads a tractor
    hand = "3H 4C 5C 9C QD KD 3S 4S".split()
    picks = ["pick 4C", "pick 5C", "pick 9C", "pick QD", "pick KD", "pick 3S", "pick 4S"]
    view = _view(hand=hand, trick=trick, legal_moves=picks, to_act=2, seat=2)
    assert greedy(view) == "pick 4C"                   # lowest plain card without points
    trick = [[2, "9H 9H 8H 8H"], [3, "3H 4H 5H 6H"]]   # the partner (seat 2) leads it
    view = _view(hand=hand, trick=trick, legal_moves=picks)
    assert greedy(view) in ("pick KD", "pick 5C")      # points for the partner


def test_greedy_is_reproducible_and_plays_whole_matches_quickly():
    def run():
        g = shangyou.new_match("tractor", seed=9, start_level="Q")
        play_out(g, [make_bot("greedy", seed=s) for s in range(4)])
        return g.log
    assert run() == run()
