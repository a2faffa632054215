"""``legal_moves`` and ``apply`` as C methods (``games/_methods.h``) against the Python methods
they replace (``_legal_moves_py``, ``_apply_py``), the compiled cores on in both.

Two copies of each random match are played in lockstep, one through the C methods and one
through the Python methods: the moves offered (texts, in order) and the whole state after
every move must be the same. The C methods' other paths are checked too: a move given as
text, ``seat`` by position and by keyword, a wrong seat, a list of moves that the caller
changes, and the core switched off (the C methods then call the Python ones)."""

from __future__ import annotations

import random

import pytest

import shangyou
from shangyou.errors import IllegalMove
from shangyou.games.climbing import core as climbing_core
from shangyou.games.sheng_ji import core as sheng_ji_core

pytestmark = pytest.mark.skipif(not (climbing_core.AVAILABLE and sheng_ji_core.AVAILABLE),
                                reason="the compiled cores are not built")

# every preset at its default table, and the smallest table where it differs
CONFIGS = sorted({(name, p) for name in shangyou.preset_names()
                  for p in (shangyou.preset_info(name)["defaults"]["players"],
                            min(shangyou.preset_info(name)["players"]))})


def _py(g):
    cls = type(g)
    return (lambda: cls._legal_moves_py(g)), (lambda m, s=None: cls._apply_py(g, m, s))


@pytest.mark.parametrize("name,players", CONFIGS)
def test_c_methods_play_as_the_python_methods(name, players):
    assert type(shangyou.new_game(name, players=players, seed=0)).legal_moves.__class__ \
        .__name__ == "method_descriptor"
    for seed in range(3):
        a = shangyou.new_match(name, players=players, seed=seed)     # past the first hand:
        b = shangyou.new_match(name, players=players, seed=seed)     # the exchange, the deal
        legal_b, apply_b = _py(b)
        rng = random.Random(seed)
        for step in range(400):
            if a.over:
                break
            la, lb = a.legal_moves(), legal_b()
            assert [str(m) for m in la] == [str(m) for m in lb]
            assert [str(m) for m in a.legal_moves()] == [str(m) for m in la]   # kept
            i = rng.randrange(len(la))
            how = step % 5
            if how == 3:              # the move's text: resolved by the Python path
                a.apply(str(la[i]))
                apply_b(str(lb[i]))
            elif how == 4:            # the seat given, by keyword and by position
                a.apply(la[i], seat=a.to_act)
                apply_b(lb[i], b.to_act)
            else:
                a.apply(la[i])
                apply_b(lb[i])
            assert a.snapshot() == b.snapshot()
        assert a.over == b.over and a.result == b.result


def test_wrong_seat_and_changed_lists():
    for name, players in (("zheng-shangyou/pagat", 5), ("sheng-ji", 4)):
        g = shangyou.new_game(name, players=players, seed=5)
        while True:                   # a state whose moves are a plain list (the deal's bids,
            moves = g.legal_moves()   # the exchange) or the core's sequence: both are safe
            wrong = (g.to_act + 1) % players
            with pytest.raises(IllegalMove):
                g.apply(moves[0], wrong)
            with pytest.raises(IllegalMove):
                g.apply(moves[0], seat=wrong)
            if isinstance(moves, list):
                moves.clear()         # the caller's copy: the game's listing is unchanged
                assert len(g.legal_moves()) > 0
            g.apply(g.legal_moves()[0])
            if g.over or len(g.moves) > 30:
                break
        with pytest.raises(TypeError):
            g.legal_moves(1)          # type: ignore[call-arg]
        with pytest.raises(TypeError):
            g.apply()                 # type: ignore[call-arg]


@pytest.mark.parametrize("core,name,players", [(climbing_core, "zheng-fen", 4),
                                               (sheng_ji_core, "sheng-ji/zhao-pengyou", 6)])
def test_core_off_calls_the_python_methods(core, name, players):
    logs = []
    for on in (True, False):
        prev = core.use(on)
        try:
            g = shangyou.new_game(name, players=players, seed=11)
            rng = random.Random(2)
            while not g.over:
                moves = g.legal_moves()
                if not on:            # the Python listing, never the core's sequence
                    assert not type(moves).__module__.endswith("._core"), type(moves)
                g.apply(rng.choice(moves))
            logs.append(g.log)
        finally:
            core.use(prev)
    assert logs[0] == logs[1]
