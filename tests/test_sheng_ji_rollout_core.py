"""The Sheng ji search's playout in C (``_core_rollout.c``) against its Python reference
(``Sim.run`` with the rollout policy): the same value and the same random numbers drawn, for
thousands of playouts from sampled worlds of heuristic self-play, in every variant; and the
same search decisions with the core on and off. Without the module (``SHANGYOU_NO_C=1``) both
sides are the Python code."""

from __future__ import annotations

import copy
import random

import pytest

import shangyou
from shangyou.bots import sheng_ji_heuristic as heur
from shangyou.bots import sheng_ji_search as search
from shangyou.cards import parse
from shangyou.games.sheng_ji import core
from shangyou.games.sheng_ji.order import Trump
from shangyou.games.sheng_ji.worlds import WorldSampler

GAMES = [("sheng-ji", 4, {}), ("sheng-ji", 6, {}), ("sheng-ji/single-deck", 4, {}),
         ("sheng-ji/zhao-pengyou", 5, {}),
         ("sheng-ji", 4, {"kitty_multiplier": "linear", "red_five": True})]


def _views(name, players, seed, **opts):
    """The play-phase decisions (no throw or pick open) of one heuristic hand."""
    g = shangyou.new_game(name, players=players, seed=seed, **opts)
    rng = random.Random(seed)
    while not g.over:
        v = g.view(g.to_act)
        if v["phase"] == "play" and not v.get("pending") and len(v["legal_moves"]) > 1 \
                and not v["legal_moves"][0].startswith("pick "):
            yield v
        g.apply(heur.choose(v, rng))


def _sims(name, players, seeds, per_view, **opts):
    """(Sim, rng) as :func:`search.playout` hands them to ``Sim.run``, for the first
    ``per_view`` candidates of every decision in sampled worlds."""
    out = []
    for seed in seeds:
        for v in _views(name, players, seed, **opts):
            rng = random.Random(len(out))
            sampler = WorldSampler(v)
            base = heur.choose(v, random.Random(0))
            for _, play in search.candidates(v, v["legal_moves"], base)[:per_view]:
                parts = sampler.deal(rng)
                seed2 = rng.randrange(2**31)
                prng = random.Random(seed2 + 1)
                sim = search.Sim.from_world(sampler, parts)
                cards = tuple(sorted(parse(play))) if not play.startswith(("throw ", "play")) \
                    else ()
                lead = sim.trick[0][1] if sim.trick else cards
                if cards and len(set(lead)) == 1 and len(lead) <= 2:
                    if sim.play(cards):
                        continue
                else:
                    g = sampler.build(parts, random.Random(seed2))
                    g.apply(play)
                    while not g.over and (g.trick or g.pending):
                        search.step(g, prng)
                    if g.over:
                        continue
                    sim = search.Sim.from_game(g)
                out.append((sim, prng))
    return out


@pytest.mark.parametrize("name,players,opts", GAMES,
                         ids=["4p", "6p", "single-deck", "zhao-pengyou-5p", "options"])
def test_the_c_playout_equals_the_python_one(name, players, opts):
    """Value, random numbers drawn and the final state of the Sim: C == Python, from copies."""
    sims = _sims(name, players, range(2), 4, **opts)
    assert len(sims) > 200
    prev = core.use(True)
    try:
        for sim, prng in sims:
            for seat in (0, 1):
                a, b = copy.deepcopy(sim), copy.deepcopy(sim)
                ra, rb = copy.deepcopy(prng), copy.deepcopy(prng)
                if core.AVAILABLE:
                    assert a._run_core(ra)         # the C covers every Sim of a playout
                    va = a.worth(seat)
                else:
                    va = a.run(ra, seat)
                core.use(False)
                vb = b.run(rb, seat)
                core.use(True)
                assert va == vb
                assert ra.getstate() == rb.getstate()
                for k in search.Sim.__slots__:
                    assert getattr(a, k) == getattr(b, k), k
    finally:
        core.use(prev)
    if name.endswith("zhao-pengyou"):
        assert sum(bool(sim.calls) for sim, _ in sims) > 30     # friends still to show


def test_ties_in_a_set_follow_pythons_own_order():
    """Distinct cards of equal rank (the level cards of the plain suits) make the policy's
    choice depend on a set's order: the C asks Python for it, and so agrees."""
    rules = shangyou.new_game("sheng-ji", players=4, seed=0).rules
    rng = random.Random(5)
    for k in range(400):
        t = Trump.parse(rng.choice(["2S", "2H", "5", "KD", "10"]))
        deck = list(range(54)) * 2
        rng.shuffle(deck)
        sim = search.Sim._new(rules, t, declarer=rng.randrange(4))
        sim.hands = [sorted(deck[i * 25:(i + 1) * 25]) if k % 2 else deck[i * 25:(i + 1) * 25]
                     for i in range(4)]
        sim.kitty = deck[100:108]
        sim.trick = []
        sim.to_act = rng.randrange(4)
        sim.penalty = 0
        a, b = copy.deepcopy(sim), copy.deepcopy(sim)
        ra, rb = random.Random(k), random.Random(k)
        core.use(True)
        va = a.run(ra, 0)
        core.use(False)
        vb = b.run(rb, 0)
        core.use(True)
        assert (va, ra.getstate(), a.won) == (vb, rb.getstate(), b.won)


def test_a_state_the_c_does_not_cover_is_left_to_python():
    """A lead the rollout never makes (two different cards): the C plays nothing of it."""
    rules = shangyou.new_game("sheng-ji", players=4, seed=0).rules
    sim = search.Sim._new(rules, Trump.parse("2S"), declarer=0)
    sim.hands = [[1, 5], [9, 13], [17, 21], [25, 29]]
    sim.kitty, sim.penalty, sim.to_act = [], 0, 1
    sim.trick = [(0, (3, 7))]                  # a lead of two different cards
    if core.AVAILABLE:
        assert not sim._run_core(random.Random(0))
    assert sim.hands == [[1, 5], [9, 13], [17, 21], [25, 29]]
    assert sim.trick == [(0, (3, 7))] and sim.to_act == 1


@pytest.mark.parametrize("name,players", [("sheng-ji", 4), ("sheng-ji/zhao-pengyou", 5)])
def test_search_decisions_are_the_same_with_the_core_on_and_off(name, players):
    views = [v for i, v in enumerate(_views(name, players, 7)) if i % 5 == 0]
    assert len(views) >= 5
    prev = core.use(True)
    try:
        for i, v in enumerate(views):
            got = {}
            for on in (True, False):
                core.use(on)
                info: dict = {}
                got[on] = (search.choose(v, random.Random(i), iterations=60, strict=True,
                                         info=info), info.get("values"))
            assert got[True] == got[False]
    finally:
        core.use(prev)
