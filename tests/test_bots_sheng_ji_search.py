"""The Sheng ji search bot's machinery: engine-free rollouts give the engine's results, the
no-pair constraints of the world sampler, racing of candidates and the default budget."""

from __future__ import annotations

import random
import time
from collections import Counter

import pytest

import shangyou
from shangyou.bots import make_bot
from shangyou.bots import sheng_ji_heuristic as heur
from shangyou.bots import sheng_ji_search as search
from shangyou.cards import parse
from shangyou.games.sheng_ji.order import Trump
from shangyou.games.sheng_ji.worlds import WorldSampler, no_pairs_of


def _play_views(name, seed, players=4, **opts):
    """(game, view) at every play-phase decision of a heuristic hand (no throw or pick open)."""
    g = shangyou.new_game(name, players=players, seed=seed, **opts)
    rng = random.Random(seed)
    while not g.over:
        v = g.view(g.to_act)
        if v["phase"] == "play" and not v.get("pending") and len(v["legal_moves"]) > 1 \
                and not v["legal_moves"][0].startswith("pick "):
            yield g, v
        g.apply(heur.choose(v, rng))


def _compare_with_engine(game, seeds, per_view, players=4, **opts):
    """playout() against the engine playing the same policy with the same random numbers, for
    the first ``per_view`` candidates at every decision of heuristic hands (asserts they are
    equal); answers the Sim of each world compared (None where Sim does not apply)."""
    sims = []
    for seed in seeds:
        for g, v in _play_views(game, seed, players=players, **opts):
            rng = random.Random(len(sims))
            sampler = WorldSampler(v)
            base = heur.choose(v, random.Random(0))
            for _, play in search.candidates(v, v["legal_moves"], base)[:per_view]:
                parts = sampler.deal(rng)
                sims.append(search.Sim.from_world(sampler, parts))
                seed2 = rng.randrange(2**31)
                w = sampler.build(parts, random.Random(seed2))
                w.apply(play)
                search.rollout(w, random.Random(seed2 + 1))
                expected = search.value(w, v["seat"])
                assert search.playout(sampler, parts, play, v["seat"], seed2) == \
                    pytest.approx(expected, abs=1e-12), (seed, play)
    return sims


@pytest.mark.parametrize("opts", [{}, {"throw_penalty": 10, "kitty_multiplier": "linear",
                                       "red_five": True}], ids=["plain", "options"])
def test_fast_playouts_end_like_the_engine(opts):
    """playout() (Sim from the first single/pair trick on) == the engine playing the same
    policy with the same random numbers, for every candidate in sampled worlds."""
    sims = _compare_with_engine("sheng-ji", range(3), 4, **opts)
    assert len(sims) > 300 and all(sim is not None for sim in sims)


@pytest.mark.parametrize("players", [5, 6])
def test_zhao_pengyou_fast_playouts_end_like_the_engine(players):
    """Zhao Pengyou on Sim: friends show as the called cards are played in the playout, and the
    value for every candidate equals the engine's with the same random numbers."""
    sims = _compare_with_engine("sheng-ji/zhao-pengyou", range(2), 3, players=players)
    assert len(sims) > 150 and all(sim is not None for sim in sims)
    # friends still to show in many of the worlds: the sides changed inside the playouts
    assert sum(bool(sim.calls) for sim in sims) > 30


def test_no_pairs_are_read_from_follows_to_pair_leads():
    t = Trump(0, 0)                            # level 2, trump suit index 0
    lead = tuple(parse("9S 9S"))
    if t.suit_of(lead[0]) != t.suit_of(parse("QS")[0]):
        pytest.skip("spades are trumps here")
    suit = t.suit_of(lead[0])
    tricks = [[(0, lead), (1, tuple(parse("3S 4S"))), (2, tuple(parse("JS JS"))),
               (3, tuple(parse("5S 4H")))]]
    out = no_pairs_of(t, 4, tricks, [])
    assert suit in out[1]                      # two spades, no pair: holds no spade pair
    assert suit not in out[2]                  # gave a pair
    assert suit in out[3]                      # short of spades (also void)
    assert out[0] == set()
    # a single lead asks for no pairs
    assert no_pairs_of(t, 4, [[(0, lead[:1]), (1, tuple(parse("3S")))]], []) == [set()] * 4


def test_real_hands_and_sampled_worlds_respect_the_no_pair_suits():
    checked = 0
    for seed in range(4):
        for g, v in _play_views("sheng-ji", 40 + seed):
            sampler = WorldSampler(v)
            for s in range(4):
                for suit in sampler.no_pairs[s]:
                    held = Counter(c for c in g.hands[s] if g.trump.suit_of(c) == suit)
                    assert max(held.values(), default=0) < 2, (seed, s, suit)
            rng = random.Random(checked)
            w = sampler.sample(rng)
            assert w.view(v["seat"]) == v
            if sampler.pair_checks:
                parts = sampler.deal(rng)
                assert sampler.pairs_ok(parts)
                checked += 1
    assert checked > 50


def test_racing_drops_a_clearly_worse_candidate_but_keeps_the_heuristics():
    rng = random.Random(3)
    rows = [[1.0 + rng.random() * 0.1, 2.0 + rng.random() * 0.1, -1.0 + rng.random() * 0.1,
             2.0 + rng.random() * 0.1] for _ in range(16)]
    assert search.race(rows, [0, 1, 2, 3]) == [0, 1, 3]
    # equal candidates differing by noise only: none dropped
    common = [rng.gauss(0, 1) for _ in range(8)]
    rows = [[c + rng.gauss(0, 0.3) for _ in range(4)] for c in common]
    assert search.race(rows, [0, 1, 2, 3]) == [0, 1, 2, 3]
    # already dropped candidates stay out
    assert search.race(rows, [0, 2]) == [0, 2]


def test_the_search_stops_once_racing_leaves_no_challenger(monkeypatch):
    """When every other candidate is clearly behind the heuristic's move after the first race
    (8 worlds), no more worlds are played (``RACE_STOP``); the choice is the same."""
    g, v = next(_play_views("sheng-ji", 8))
    moves = v["legal_moves"]
    noise = random.Random(5)
    monkeypatch.setattr(search, "candidates",
                        lambda view, ms, base: [(base, "base"), (moves[0], "a"), (moves[1], "b")])
    monkeypatch.setattr(search, "playout", lambda sampler, parts, play, seat, seed:
                        (1.0 if play == "base" else 0.0) + noise.random() * 0.1)
    calls = []
    real = search.playout
    monkeypatch.setattr(search, "playout", lambda *a: calls.append(a) or real(*a))
    picks = {}
    for stop in (True, False):
        monkeypatch.setattr(search, "RACE_STOP", stop)
        calls.clear()
        picks[stop] = search.choose(v, random.Random(1), iterations=600, strict=True)
        if stop:
            assert len(calls) == 3 * search.RACE_FIRST
        else:
            assert len(calls) > 100
    assert picks[True] == picks[False] == heur.choose(v, random.Random(1))


def test_the_default_search_level_uses_the_sheng_ji_budget_under_its_cap():
    bot = make_bot("search", seed=1)
    assert bot.default and bot.iterations == 200           # climbing games: 200 iterations
    assert not make_bot("search:50", seed=1).default
    worst = 0.0
    for i, (g, v) in enumerate(_play_views("sheng-ji", 8)):
        if i % 6:
            continue
        t0 = time.process_time()
        move = bot.choose(v)
        worst = max(worst, time.process_time() - t0)
        assert move in v["legal_moves"]
    # 0.9 s CPU cap from the decision's start; no world is begun that would end past it
    assert worst < search.DEFAULT_CAP_SECONDS + 0.1


# ------------------------------------------------------------------ the rollout policy (session 4)
def _sim(hands, trick=(), to_act=None, trump="2S", declarer=0):
    """A bare Sim of a 4-player Tractor hand: seats 0 and 2 declare (spades trump, level 2)."""
    rules = shangyou.new_game("sheng-ji", players=4, seed=0).rules
    sim = search.Sim._new(rules, Trump.parse(trump), declarer)
    sim.hands = [list(parse(h)) if h else [] for h in hands]
    sim.trick = [(s, tuple(sorted(parse(cs)))) for s, cs in trick]
    sim.to_act = to_act if to_act is not None else (trick[-1][0] + 1) % 4 if trick else 0
    sim.kitty, sim.penalty = [], 0
    return sim


def _plays(sim, tries=20):
    """Every play the rollout policy makes in ``sim`` over several random seeds (as card text)."""
    return {str(parse(sorted(search._fast_play(sim, random.Random(i))))) for i in range(tries)}


def test_a_follower_takes_a_point_trick_with_a_card_no_later_foe_can_beat():
    # 5H led by seat 0; seat 1 holds 7H (beats the 5 but not seat 2's QH) and AH
    sim = _sim(["", "7H AH 3C", "QH 4H", "6H 8C"], trick=[(0, "5H")])
    assert _plays(sim) == {"AH"}
    # a safe king adds its 10 points: preferred to the ace
    sim = _sim(["", "7H KH AH 3C", "QH 4H", "6H 8C"], trick=[(0, "5H")])
    assert _plays(sim) == {"KH"}


def test_a_ruff_is_made_with_the_lowest_trump_no_later_foe_can_overruff():
    # KH led; seat 1 is void in hearts; seat 2 (a foe of seat 1) is void too and holds 6S
    sim = _sim(["", "3S 9S 4C", "6S 5D", "7H 8D"], trick=[(0, "KH")])
    assert _plays(sim) == {"9S"}
    # no safe ruff (seat 2 holds the big joker): no trump is wasted, a plain card is shed
    sim = _sim(["", "3S 9S 4C", "BJ 5D", "7H 8D"], trick=[(0, "KH")])
    assert _plays(sim) == {"4C"}


def test_a_lead_avoids_a_boss_ace_a_foe_can_ruff_and_feeds_the_partners_ruff():
    # seat 1 (a foe of seat 0) is void in hearts and holds trumps: the ace is not safe
    sim = _sim(["AH 4C 9D", "3S 5C 6D", "4H 7C 8D", "6H 8C 10D"], to_act=0)
    assert "AH" not in _plays(sim)
    # seat 2 (the partner) is void in hearts with a trump, the foes are not: lead the heart
    sim = _sim(["4H 6C 9D", "5H 7C 10D", "3S 8C JD", "6H 9C QD"], to_act=0)
    assert _plays(sim) == {"4H"}


def test_the_worth_of_a_hand_rewards_winning_it():
    # the declarers keep the deal below 80 points (two decks) and lose it from 80 on
    for bonus in (0.0, 1.0):
        old = search.WIN_BONUS
        search.WIN_BONUS = bonus
        try:
            def w(total, declarer):
                return search.worth(total, search.level_change(total, 2), 2, declarer)
            assert w(79, True) - w(80, True) >= 2 + 2 * bonus
            assert w(80, False) - w(79, False) >= 2 + 2 * bonus
            assert all(w(t, True) == -w(t, False) for t in range(0, 200, 5))
            assert all(w(t, True) > w(t + 5, True) for t in range(0, 195, 5))
        finally:
            search.WIN_BONUS = old


def test_weigh_begins_no_world_past_its_cpu_cap():
    """``weigh`` with ``cpu_cap``: the first world is always played, and none is begun once
    the decision's CPU time (from ``cpu_start``) is past the cap; without a cap the playouts
    asked for are played."""
    checked = 0
    for _, view in _play_views("sheng-ji", 3):
        moves = view["legal_moves"]
        base = heur.choose(view, random.Random(0))
        cands = search.candidates(view, moves, base)[:2]
        if len(cands) < 2:
            continue
        capped: dict = {}
        search.weigh(view, cands, random.Random(1), iterations=400, info=capped,
                     cpu_start=time.process_time() - 10.0, cpu_cap=1.0)
        assert capped["worlds"] == 1
        free: dict = {}
        search.weigh(view, cands, random.Random(1), iterations=16, info=free)
        assert free["worlds"] >= 4          # racing may leave one candidate after 8 worlds
        checked += 1
        if checked == 5:
            break
    assert checked == 5
