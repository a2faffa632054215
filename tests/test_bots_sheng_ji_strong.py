"""The strong Sheng ji bots: the heuristic and the search bot play legal moves in every preset,
sampled worlds agree with the searching seat's view, concrete positions get the moves good
players make, and the heuristic beats the greedy bot."""

from __future__ import annotations

import random
import time

import pytest

import shangyou
from shangyou.bots import make_bot, play_out
from shangyou.bots import sheng_ji_heuristic as heur
from shangyou.bots import sheng_ji_search as search
from shangyou.cards import parse
from shangyou.games.sheng_ji.game import lead_units
from shangyou.games.sheng_ji.follow import legal_follows
from shangyou.games.sheng_ji.order import Trump, decompose
from shangyou.games.sheng_ji.tricks import throw_check
from shangyou.games.sheng_ji.worlds import WorldSampler, sample_world, voids_of

PRESETS = [("sheng-ji", 4, {}), ("sheng-ji/single-deck", 4, {}),
           ("sheng-ji/zhao-pengyou", 5, {}), ("sheng-ji/zhao-pengyou", 6, {"kitty_theft": True}),
           ("sheng-ji", 4, {"kitty_theft": True, "throw_penalty": 10, "red_five": True})]
IDS = ["tractor", "single-deck", "zp5", "zp6-theft", "tractor-options"]


class Strict:
    """A bot level run strictly: an exception or an illegal answer fails the test."""

    def __init__(self, kind: str, seed: int):
        self.kind = kind
        self.rng = random.Random(seed)
        self.phases: set[str] = set()

    def choose(self, view):
        self.phases.add(view["phase"])
        if self.kind == "heuristic":
            move = heur.choose(view, self.rng, strict=True)
        else:
            move = search.choose(view, self.rng, iterations=8, strict=True)
        assert move in view["legal_moves"], (move, view["legal_moves"][:10])
        return move


@pytest.mark.parametrize("name, players, opts", PRESETS, ids=IDS)
def test_heuristic_plays_legal_moves_in_every_preset(name, players, opts):
    for seed in range(4):
        g = shangyou.new_game(name, players=players, seed=seed, **opts)
        bots = [Strict("heuristic", seed * 10 + s) for s in range(players)]
        play_out(g, bots)
        assert g.over and g.history
        phases = set().union(*(b.phases for b in bots))
        assert {"deal", "bury", "play"} <= phases


@pytest.mark.parametrize("name, players, opts", PRESETS, ids=IDS)
def test_search_plays_legal_moves_in_every_preset(name, players, opts):
    g = shangyou.new_game(name, players=players, seed=5, **opts)
    bots = [Strict("search" if s % 2 == 0 else "heuristic", s) for s in range(players)]
    play_out(g, bots)
    assert g.over and g.history


def test_a_short_match_with_the_strong_levels_replays():
    g = shangyou.new_match("sheng-ji", seed=3, start_level="K")
    bots = [make_bot("heuristic", seed=s) if s % 2 else make_bot("search:6", seed=s)
            for s in range(4)]
    play_out(g, bots)
    assert g.over and g.result.get("match_winners")
    assert shangyou.replay(g.log) == g


# ------------------------------------------------------------------ sampled worlds
def _positions(name, players, opts, seed, every=0.12, limit=700):
    """Random positions of a short match (all phases), one game state at a time."""
    g = shangyou.new_match(name, players=players, seed=seed, start_level="Q", **opts)
    rng = random.Random(seed)
    steps = 0
    while not g.over and steps < limit:
        steps += 1
        if rng.random() < every:
            yield g
        g.apply(rng.choice(g.legal_moves()))


@pytest.mark.parametrize("name, players, opts",
                         PRESETS + [("sheng-ji/zhao-pengyou", 7, {}), ("sheng-ji", 6, {})],
                         ids=IDS + ["zp7", "tractor6"])
def test_sampled_worlds_give_the_searching_seat_the_same_view(name, players, opts):
    phases = set()
    checked = 0
    for seed in range(3):
        for g in _positions(name, players, opts, seed):
            seat = g.to_act
            view = g.view(seat)
            sampler = WorldSampler(view)
            # the real state satisfies every constraint the sampler uses
            if g.trump is not None and g.phase == "play":
                for s in range(players):
                    for c in g.hands[s]:
                        assert g.trump.suit_of(c) not in sampler.voids[s], (s, c)
            rng = random.Random(checked)
            for _ in range(3):
                w = sample_world(view, rng)
                assert w.view(seat) == view, (g.phase, seat)
                for s in range(players):
                    assert len(w.hands[s]) == len(g.hands[s])
                    if s != seat and w.trump is not None:
                        assert not {w.trump.suit_of(c) for c in w.hands[s]} & sampler.voids[s]
                everything = sorted([c for h in w.hands for c in h] + w.stock
                                    + (w.buried if g.phase == "bury" and not w.kitty else w.kitty)
                                    + [c for tr in w.tricks for _, cs in tr["plays"] for c in cs]
                                    + [c for _, cs in w.trick for c in cs])
                assert everything == sorted(list(range(54)) * g.rules.decks)
                checked += 1
            phases.add(g.phase)
            # a world plays on legally to the end of the hand
            r = random.Random(checked)
            while not w.over:
                w.apply(r.choice(w.legal_moves()))
    assert {"deal", "bury", "play"} <= phases
    if name.endswith("zhao-pengyou"):
        assert "call" in phases
    assert checked > 100


def test_the_bidder_keeps_the_shown_cards_in_every_world():
    seen = 0
    for seed in range(60):
        g = shangyou.new_game("sheng-ji", seed=seed)
        rng = random.Random(seed)
        while g.phase == "deal":
            if g.bid is not None and g.to_act != g.bid["seat"]:
                view = g.view(g.to_act)
                for _ in range(5):
                    w = sample_world(view, rng)
                    assert w.hands[g.bid["seat"]].count(g.bid["card"]) >= g.bid["count"]
                seen += 1
            g.apply(rng.choice(g.legal_moves()))
        if seen >= 5:
            break
    assert seen >= 5


def test_voids_are_read_in_the_trump_aware_sense():
    t = Trump.parse("2S")                       # spades and all 2s are trumps
    lead = tuple(parse("3S"))
    tricks = [[(0, lead), (1, tuple(parse("2H"))), (2, tuple(parse("4H"))),
               (3, tuple(parse("AS")))]]
    voids = voids_of(t, 4, tricks, [])
    assert voids[1] == set() and voids[2] == {4} and voids[3] == set()


# ------------------------------------------------------------------ concrete positions
def _view(hand, trick=(), trump="2S", seat=0, legal=None, **changes) -> dict:
    """A Tractor play-phase view (seat 0, partners 0 and 2) with real legal moves."""
    t = Trump.parse(trump or "2")
    cards = list(parse(" ".join(hand)))
    trick = [[s, text] for s, text in trick]
    if legal is None:
        if trick:
            lead = tuple(parse(trick[0][1]))
            legal = [" ".join(str(parse([c])) for c in p)
                     for p in legal_follows(t, cards, lead, decompose(t, lead))]
        else:
            units = sorted(lead_units(t, cards, 2), key=len)
            legal = [str(parse(u)) for u in units]
            legal += ["throw " + str(parse([c])) for c in sorted(set(cards))]
    n_played = len(trick)
    counts = [len(cards)] * 4
    for i in range(n_played):
        counts[(seat - n_played + i) % 4] -= len(parse(trick[i][1]))
    v = {"game": "sheng-ji", "players": 4, "seat": seat, "phase": "play", "options": {},
         "hand_number": 1, "to_act": seat, "hand": hand, "counts": counts, "level": "2",
         "levels": ["2"] * 4, "trump": trump, "bid": None, "declarer": 0, "kitty_size": 8,
         "trick": trick, "tricks": [], "points_won": [0] * 4, "opponents_points": 0,
         "calls": [], "call_results": [], "friends": [], "teams": [[0, 2], [1, 3]],
         "history": [], "pending": [], "legal_moves": legal, "penalty_points": 0}
    v.update(changes)
    return v


def test_feeds_points_to_a_partner_who_wins_the_trick():
    # partner (seat 2) led the A of hearts, seat 3 followed low; seat 0 plays last
    v = _view(["KH", "3H", "4D", "8C"], trick=[(2, "AH"), (3, "6H")], seat=0)
    v["counts"] = [4, 4, 3, 3]
    assert heur.choose(v, strict=True) == "KH"


def test_does_not_feed_points_when_an_opponent_wins():
    v = _view(["KH", "3H", "4D", "8C"], trick=[(1, "AH"), (2, "6H"), (3, "7H")], seat=0)
    assert heur.choose(v, strict=True) == "3H"


def test_ruffs_a_point_trick_when_void():
    # an opponent leads the K of diamonds; seat 0 has no diamonds and plays last
    v = _view(["3S", "9S", "4C", "6C"], trick=[(1, "KD"), (2, "5D"), (3, "10D")], seat=0)
    assert heur.choose(v, strict=True) == "3S"


def test_does_not_ruff_an_empty_trick_as_declarer():
    v = _view(["3S", "9S", "4C", "6C"], trick=[(1, "8D"), (2, "6D"), (3, "7D")], seat=0)
    assert heur.choose(v, strict=True) == "4C"


def test_throws_only_when_no_card_outside_can_beat_it():
    # both As and both Ks of hearts held: the tractor and the Q stand; a throw is safe
    hand = ["AH", "AH", "KH", "KH", "QH", "3D", "4C"]
    v = _view(hand)
    move = heur.choose(v, strict=True)
    assert move.startswith("throw ")
    k = heur.Knowledge(v)
    plan = heur.throw_plan(k)
    assert plan and sorted(plan) == sorted(parse("AH AH KH KH QH"))
    assert throw_check(k.t, plan, [list(k.outside.elements())]) is None
    # one A of hearts outside: the K and the Q could be beaten, so no throw
    hand2 = ["AH", "KH", "QH", "3D", "4C"]
    move2 = heur.choose(_view(hand2), strict=True)
    assert not move2.startswith("throw ")
    assert heur.throw_plan(heur.Knowledge(_view(hand2))) is None


def test_finishes_a_throw_it_started_then_commits():
    hand = ["AH", "AH", "KH", "KH", "QH", "3D", "4C"]
    v = _view(hand, pending=["AH", "AH", "KH", "KH", "QH"],
              legal=["play", "throw 3D", "throw 4C"])
    assert heur.choose(v, strict=True) == "play"


def test_leads_a_boss_pair_before_a_losing_single():
    v = _view(["AD", "AD", "6C", "9H", "JH", "3S"])
    assert heur.choose(v, strict=True) == "AD AD"


def test_buries_a_short_suit_and_keeps_points_and_trumps():
    hand = ("3D 4D 6D 5C 8C 10C KC QC JC 9C 6H 7H 8H 9H JH AH AH 3S 4S 5S 2H BJ "
            "3C 4H 9D 8D 7S 6S QS").split()
    plan = heur.bury_plan(Trump.parse("2S"), list(parse(" ".join(hand))), 6)
    text = {str(parse([c])) for c in plan}
    assert {"3D", "4D", "6D", "9D", "8D"} <= text            # diamonds emptied
    assert not text & {"10C", "KC", "5C", "AH", "BJ", "2H", "3S", "5S"}


def test_bids_a_long_strong_suit_and_passes_a_weak_one():
    strong = "2H 3H 5H 8H 9H JH KH AH 4C 6D".split()
    v = _view(strong, phase="deal", trump=None, declarer=None, legal=["pass", "bid 2H"])
    assert heur.choose(v, strict=True) == "bid 2H"
    weak = "2H 3S 5S 8C 9C JD KD AC 4C 6D".split()
    v = _view(weak, phase="deal", trump=None, declarer=None, legal=["pass", "bid 2H"])
    assert heur.choose(v, strict=True) == "pass"


def test_search_respects_a_time_budget_and_answers_legally():
    g = shangyou.new_game("sheng-ji", seed=21)
    bots = [make_bot("heuristic", seed=s) for s in range(4)]
    while g.phase != "play":
        g.apply(bots[g.to_act].choose(g.view(g.to_act)))
    while len(g.legal_moves()) < 3:
        g.apply(bots[g.to_act].choose(g.view(g.to_act)))
    view = g.view(g.to_act)
    t0 = time.perf_counter()
    move = search.choose(view, random.Random(1), seconds=0.3, strict=True)
    assert time.perf_counter() - t0 < 3.0
    assert move in view["legal_moves"]


# ------------------------------------------------------------------ strength
def _hand_winners(game_name, seed, levels):
    g = shangyou.new_game(game_name, seed=seed)
    play_out(g, [make_bot(levels[s % 2], seed=seed * 10 + s) for s in range(4)])
    last = g.history[-1]
    side = last["declarers"] if last["change"]["side"] == "declarers" else last["opponents"]
    return set(side)


def test_heuristic_team_beats_greedy_team_on_duplicate_deals():
    """Each deal twice, sides swapped; a side wins a hand when it holds or takes the deal."""
    wins = hands = 0
    for d in range(40):
        seed = 7000 + d
        wins += _hand_winners("sheng-ji", seed, ("heuristic", "greedy")) == {0, 2}
        wins += _hand_winners("sheng-ji", seed, ("greedy", "heuristic")) == {1, 3}
        hands += 2
    # measured about 64% over 300 hands (docs/bots-sheng-ji.md); 55% here keeps a wide margin
    assert wins >= 0.55 * hands, (wins, hands)
