"""The per-hand parts of the compiled Sheng ji core against the Python reference.

* the deal's shuffle (``games/_shuffle.h``, both cores), which draws the generator's words in batches: the same
  order as ``random.Random.shuffle`` and the generator left in the same state, for many seeds
  and lengths; every preset's deals, with the core on and off, the same for many seeds;
* the end of a hand (``_core_ends.c``, ``core.end_hand``) against ``ends.end_hand``: at every
  hand's end of random games and matches (every preset, teams and Zhao Pengyou's friends,
  ``must_play_ranks``, both kitty multipliers, start levels, penalties), both are made on
  copies of the same state and the states compared (levels, summary, history, events, result,
  the next hand's deal); with ``jack_hook`` the C leaves it to Python, changing nothing.
"""

from __future__ import annotations

import pickle
import random

import pytest

import shangyou
from shangyou.games.sheng_ji import core, ends
from shangyou.games.sheng_ji.game import ShengJiGame

pytestmark = pytest.mark.skipif(not core.AVAILABLE, reason="the compiled core is not built")

PRESETS = [("sheng-ji", 4), ("sheng-ji", 6), ("sheng-ji/single-deck", 4),
           ("sheng-ji/zhao-pengyou", 5), ("sheng-ji/zhao-pengyou", 6),
           ("sheng-ji/zhao-pengyou", 7)]


def test_shuffle_as_random_shuffle():
    from shangyou.games.sheng_ji import _core
    for seed in range(120):
        for n in list(range(0, 34)) + [54, 108, 162, 216, 300, 700]:
            a, b = list(range(n)), list(range(n))
            ra, rb = random.Random(seed), random.Random(seed)
            ra.shuffle(a)
            _core.shuffle(rb.getrandbits, b)
            assert a == b, (seed, n)
            assert ra.getstate() == rb.getstate(), (seed, n)
    with pytest.raises(TypeError):
        _core.shuffle(None, [1, 2])


@pytest.mark.parametrize("name,players", PRESETS)
def test_deals_as_python(name, players):
    prev = core.use(True)
    try:
        for seed in range(60):
            on = shangyou.new_game(name, players=players, seed=seed)
            core.use(False)
            off = shangyou.new_game(name, players=players, seed=seed)
            core.use(True)
            assert on.deals == off.deals, seed
            assert on._rng.getstate() == off._rng.getstate()
            assert on.snapshot() == off.snapshot()
    finally:
        core.use(prev)


def _state(g) -> dict:
    return {"snapshot": g.snapshot(), "history": g.history, "result": g.result,
            "levels": list(g.levels), "declarer": g.declarer, "phase": g.phase,
            "over": g.over, "to_act": g.to_act, "events": g.events, "deals": g.deals,
            "level_rank": g.level_rank, "hand_number": g.hand_number,
            "rng": g._rng.getstate()}


CONFIGS = [
    ("sheng-ji", {}, True, 6), ("sheng-ji", {"players": 6}, True, 3),
    ("sheng-ji/single-deck", {"must_play_ranks": "5 10"}, True, 4),
    ("sheng-ji", {"kitty_multiplier": "linear", "throw_penalty": 10}, True, 4),
    ("sheng-ji", {"start_level": "A"}, True, 6),
    ("sheng-ji", {"start_level": "K", "must_play_ranks": "A"}, True, 4),
    ("sheng-ji/zhao-pengyou", {}, True, 3), ("sheng-ji/zhao-pengyou", {"players": 7}, False, 20),
    ("sheng-ji/zhao-pengyou", {"players": 6, "decks": 2, "throw_penalty": 10}, True, 3),
    ("sheng-ji", {"decks": 1, "kitty_theft": True}, False, 30),
]


@pytest.mark.parametrize("name,options,match,games", CONFIGS,
                         ids=[f"{n}-{o}-{m}" for n, o, m, _ in CONFIGS])
def test_end_hand_c_as_python(name, options, match, games, monkeypatch):
    """Each hand's end made by the C: where the game's ``_end_hand`` is called (the hand's
    attributes in the dict), on pickled copies against ``ends.end_hand``; where the hand is
    held in C (``_core_hand_play.c`` scores it with ``core.end_hand`` directly, given the
    points won), against the same game played with the core off, move for move. The Python
    reference never runs on the core's side."""
    checked = []
    real = ShengJiGame._end_hand

    def both(self, last_winner, last_units, winning_play):
        if not core.ACTIVE:
            return real(self, last_winner, last_units, winning_play)
        blob = pickle.dumps(self)
        c, py = pickle.loads(blob), pickle.loads(blob)
        nxt = core.end_hand(c, last_winner, list(last_units), winning_play)
        assert nxt is not None, "the C makes every hand's end without jack_hook"
        if nxt:
            c._start_hand()
        ends.end_hand(py, last_winner, list(last_units), winning_play)
        assert _state(c) == _state(py)
        checked.append(1)
        real(self, last_winner, last_units, winning_play)

    from shangyou.games.sheng_ji import game as game_module
    python_ends = []

    def reference(g, *args):
        python_ends.append(core.ACTIVE)
        return ends.end_hand(g, *args)

    monkeypatch.setattr(ShengJiGame, "_end_hand", both)
    monkeypatch.setattr(game_module, "end_hand", reference)
    prev = core.use(True)
    held = 0
    try:
        rng = random.Random(11)
        for seed in range(games):
            make = shangyou.new_match if match else shangyou.new_game
            core.use(True)
            on = make(name, seed=seed, **options)
            core.use(False)
            off = make(name, seed=seed, **options)
            while not off.over and off.hand_number < 40:
                core.use(False)
                moves = off.legal_moves()
                i = rng.randrange(len(moves))
                hand = off.hand_number
                off.apply(moves[i])
                core.use(True)
                kept = "hands" not in on.__dict__
                on.apply(on.legal_moves()[i])
                if off.over or off.hand_number != hand:
                    held += kept
                    assert _state(on) == _state(off), (seed, hand)
    finally:
        core.use(prev)
    assert not any(python_ends), "the Python reference scored a hand on the core's side"
    assert held >= games and len(checked) + held >= games


def test_jack_hook_left_to_python():
    rng = random.Random(3)
    for seed in range(4):
        g = shangyou.new_match("sheng-ji", seed=seed, jack_hook=True)
        while g.phase != "play" or len(g.tricks) < 3:
            g.apply(rng.choice(g.legal_moves()))
        before = pickle.dumps(_state(g))
        assert core.end_hand(g, 0, [object()], (0,)) is None
        assert pickle.dumps(_state(g)) == before
    with pytest.raises(TypeError):
        core.end_hand(g, 0)
