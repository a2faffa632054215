"""The deal of a Sheng ji hand in the compiled core (``_core_draw.c``: ``draw``, the deal's
last round's ``sj_hand_has_bid``) against the Python reference (``ShengJiGame._draw``,
``_bids_for``, ``_advance_deal``).

Two games of the same seed are played side by side, one with the core and one without, the
same choice made in both, and after every move of the deal (bids and passes, the draws they
lead to, the last round, the kitty given) their deal state is compared: the hands (as lists,
in order), the stock, the seat to act and to draw, the bid and its log, the last round, the
events, the trump, the phase, the generator. Presets: Sheng ji 4p and 6p, Zhao Pengyou 5/6/7p,
with bids, with hands where nobody bids (every ``no_bid`` rule, a redeal included) and with
kitty theft. Also: hands of plain ints (not ``cards.Card``), a subclass of the game, and
hands that go on growing and shrinking as lists after the deal, clones and pickles made
in the middle of a deal.
"""

from __future__ import annotations

import random

import pytest

import shangyou
from shangyou.games.sheng_ji import core
from shangyou.games.sheng_ji.game import ShengJiGame
from shangyou.games.sheng_ji.presets import build

pytestmark = pytest.mark.skipif(not core.AVAILABLE, reason="the compiled core is not built")

CASES = [
    ("sheng-ji", {"players": 4}, 0.5), ("sheng-ji", {"players": 6}, 0.5),
    ("sheng-ji/zhao-pengyou", {"players": 5}, 0.5),
    ("sheng-ji/zhao-pengyou", {"players": 6}, 0.5),
    ("sheng-ji/zhao-pengyou", {"players": 7}, 0.5),
    # nobody bids in most hands: the deal's last round to its end, each no_bid rule
    ("sheng-ji/zhao-pengyou", {"players": 6}, 0.97),
    ("sheng-ji", {"players": 4, "decks": 1, "no_bid": "no-trump"}, 0.95),
    ("sheng-ji/zhao-pengyou", {"players": 5, "no_bid": "redeal"}, 0.9),
    ("sheng-ji", {"players": 4, "kitty_theft": True}, 0.6),
]


def _deal_state(g) -> dict:
    return {"hands": [list(h) for h in g.hands], "stock": list(g.stock),
            "to_act": g.to_act, "next_draw": g.next_draw,
            "drawn_by": getattr(g, "_drawn_by", None), "bid": g.bid,
            "bid_log": list(g.bid_log), "final_round": g.final_round, "phase": g.phase,
            "events": list(g.events), "trump": str(g.trump), "kitty": list(g.kitty),
            "declarer": g.declarer, "hand_number": g.hand_number, "deals": g.deals,
            "rng": g._rng.getstate(), "over": g.over}


def _pick(moves, rng: random.Random, pass_p: float):
    """A pass with probability ``pass_p`` where one is listed, else a random move."""
    passes = [m for m in moves if str(m) == "pass"]
    if passes and rng.random() < pass_p:
        return passes[0]
    return rng.choice(list(moves))


def _lockstep(make, seed: int, pass_p: float, moves_after_deal: int = 0,
              seen: set | None = None) -> int:
    """Plays one hand's deal (and ``moves_after_deal`` moves more) with the core and without;
    the number of deal moves compared (``seen`` gets the kinds of event met)."""
    prev = core.use(True)
    try:
        on = make(seed)
        core.use(False)
        off = make(seed)
        pick = random.Random(seed * 31 + 7)
        assert _deal_state(on) == _deal_state(off)
        compared, after = 0, 0
        while not on.over and after <= moves_after_deal:
            in_deal = on.phase == "deal" or on.theft_round is not None
            core.use(True)
            legal_on = on.legal_moves()
            core.use(False)
            legal_off = off.legal_moves()
            assert [str(m) for m in legal_on] == [str(m) for m in legal_off]
            i = list(legal_off).index(_pick(legal_off, pick, pass_p))
            core.use(True)
            on.apply(legal_on[i])
            core.use(False)
            off.apply(legal_off[i])
            assert _deal_state(on) == _deal_state(off), (seed, compared)
            compared += in_deal
            after += not in_deal
        if seen is not None:
            seen.update(e["event"] for e in on.events)
        return compared
    finally:
        core.use(prev)


@pytest.mark.parametrize("name,options,pass_p", CASES,
                         ids=[f"{n}-{o}-{p}" for n, o, p in CASES])
def test_deal_as_python(name, options, pass_p):
    total, seen = 0, set()
    for seed in range(12):
        total += _lockstep(lambda s: shangyou.new_game(name, seed=s, **options), seed, pass_p,
                           moves_after_deal=8 if options.get("kitty_theft") else 0, seen=seen)
    assert total > 12          # (the deals had decisions to compare)
    assert "trump" in seen
    if pass_p > 0.9:           # the hands nobody bid in were met
        assert ("redeal" if options.get("no_bid") == "redeal" else "no bid") in seen


def test_plain_int_hands_and_a_subclass():
    """Hands of plain ints (the core reads them as cards) and a subclass of the game (its
    slots found by the subclass): the same deal as the Python code's."""
    class Sub(ShengJiGame):
        pass

    rules = build("sheng-ji/zhao-pengyou", {"players": 6})

    def make(seed):
        g = Sub(rules, seed=seed, match=False)
        g.hands = [[int(c) for c in h] for h in g.hands]
        g.stock = [int(c) for c in g.stock]
        return g

    for seed in range(6):
        assert _lockstep(make, seed, 0.6) > 0


def test_hands_stay_lists():
    """The hands the draws grew (once, for the cards still to come) are ordinary lists after:
    the kitty given, cards buried and played, a hand changed by hand, copies and pickles."""
    import pickle
    for seed in range(5):
        g = shangyou.new_game("sheng-ji/zhao-pengyou", players=6, seed=seed)
        rng = random.Random(seed)
        while g.phase == "deal":
            g.apply(rng.choice(g.legal_moves()))
        sizes = sorted(len(h) for h in g.hands)
        assert sizes == [26] * 5 + [32]          # 162 cards: 26 each, the kitty's 6 to one
        h = g.hands[0]
        before = sorted(h)
        h.append(h[0])
        h.remove(h[0])
        assert sorted(h) == before
        assert pickle.loads(pickle.dumps(g)).hands == g.hands
        for _ in range(40):
            g.apply(rng.choice(g.legal_moves()))
        # every card still somewhere: in a hand, buried, in a trick or won
        held = sum(map(len, g.hands)) + len(g.kitty) + len(g.buried) * (not g.kitty) + \
            sum(len(p) for _, p in g.trick) + sum(map(len, g.won))
        assert held == 162


def test_clones_and_pickles_mid_deal():
    """A game cloned or pickled in the middle of its deal draws on as the Python code does."""
    import pickle

    def run(on: bool, seed: int) -> list:
        prev = core.use(on)
        try:
            g = shangyou.new_game("sheng-ji/zhao-pengyou", players=6, seed=seed)
            rng = random.Random(seed)
            for _ in range(2):
                if g.phase == "deal":
                    g.apply(rng.choice(g.legal_moves()))
            out = []
            for x in (g, g.clone(), pickle.loads(pickle.dumps(g))):
                r = random.Random(seed + 1)
                while x.phase == "deal":
                    x.apply(r.choice(x.legal_moves()))
                out.append((x.hands, x.events, x.bid_log, x.kitty_taken, x.to_act))
            return out
        finally:
            core.use(prev)

    for seed in range(20):
        assert run(True, seed) == run(False, seed), seed


def test_seeded_shuffle_as_python():
    """``seeded_shuffle`` (``games/_shuffle.h``: the generator seeded and drawn in C) draws the
    first seat, shuffles and leaves the generator's state as ``random.Random(seed)``,
    ``randrange(n)`` and ``shuffle`` do, over seeds from 0 to 2**64 - 1 and deck sizes 0 to
    216; the generator made from its state goes on drawing the same numbers."""
    from shangyou.engine.deal import mt_random
    pick = random.Random(20261128)
    seeds = [0, 1, 2**32 - 1, 2**32, 2**63, 2**64 - 1] + \
        [pick.randrange(2**64) for _ in range(150)] + [pick.randrange(10**6) for _ in range(150)]
    for seed in seeds:
        n = pick.randint(1, 8)
        size = pick.choice([0, 1, 2, 54, 108, 162, 216, pick.randrange(217)])
        r = random.Random(seed)
        a, b = list(range(size)), list(range(size))
        drawn = r.randrange(n)
        r.shuffle(a)
        got, state = core.seeded_shuffle(seed, n, b)
        assert (got, b) == (drawn, a), (seed, n, size)
        m = mt_random(state)
        assert m.getstate() == r.getstate(), (seed, n, size)
        assert [m.getrandbits(32) for _ in range(700)] == [r.getrandbits(32) for _ in range(700)]
    for bad in (-1, 2**64):
        with pytest.raises(OverflowError):
            core.seeded_shuffle(bad, 4, [1, 2, 3])
    with pytest.raises(ValueError):
        core.seeded_shuffle(3, 0, [1, 2, 3])


@pytest.mark.parametrize("seed", [0, 12345, 2**64 - 1, -7, 2**64, 2**80, "ab" * 32])
def test_a_new_game_deals_with_the_core_as_without(seed):
    """A game of an int seed 0 <= seed < 2**64 is dealt from the core's generator (kept as its
    state until the game draws again); any other seed by the Python one. Either way the game
    deals, and its generator stands, as with the core off; a clone made before the generator
    is read gets a generator of its own, in the same state."""
    name, opts = "sheng-ji/zhao-pengyou", {"players": 6}
    on = shangyou.new_match(name, seed=seed, **opts)
    prev = core.use(False)
    try:
        off = shangyou.new_match(name, seed=seed, **opts)
    finally:
        core.use(prev)
    assert (type(on._rng_obj) is bytes) == (type(seed) is int and 0 <= seed < 2**64)
    clone = on.clone()
    assert (on.starter, on.hands, on.kitty, on.stock) == (off.starter, off.hands, off.kitty, off.stock)
    assert on._rng.getstate() == off._rng.getstate()
    assert clone._rng is not on._rng and clone._rng.getstate() == on._rng.getstate()
    clone._rng.random()
    assert on._rng.getstate() == off._rng.getstate()
