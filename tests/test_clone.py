"""A climbing game's clone: small (bytes counted by tracemalloc, not timed) and independent.

``ClimbingGame.clone`` shares what a move replaces rather than changes (hands and cards won as
tuples, the record of rare attributes, the log's chunks: see ``games/climbing/rare.py`` and
``game.py``); these tests check that it stays within 1.5 KB a clone at every climbing preset,
and that a clone and its original, both played on, never see each other's moves.
"""

from __future__ import annotations

import copy
import random
import tracemalloc

import pytest

import shangyou
from shangyou.errors import UnknownOption
from shangyou.games.climbing import core
from shangyou.games.climbing.game import INSTANCE_KEYS, ClimbingGame

CLIMBING = [n for n in shangyou.preset_names() if n.startswith(("zheng-shangyou/", "zheng-fen"))]
BOUND = 1536          # bytes a clone (docs/benchmarks-single.md, "Clone")


def tables(name: str) -> list[int]:
    """The preset's default table and the largest one its default options allow."""
    info = shangyou.preset_info(name)
    largest = max(p for p in info["players"] if _plays(name, p))
    return sorted({info["defaults"]["players"], largest})


def _plays(name: str, players: int) -> bool:
    try:
        shangyou.new_game(name, players=players, seed=0)
    except UnknownOption:
        return False
    return True


def played(name: str, players: int, seed: int, moves: int, match: bool) -> ClimbingGame:
    """A game of ``name`` after up to ``moves`` random moves (listed, and viewed, as a server
    or a search leaves it)."""
    rng = random.Random(seed)
    g = (shangyou.new_match if match else shangyou.new_game)(name, players=players, seed=seed)
    for _ in range(moves):
        if g.over:
            break
        g.apply(rng.choice(g.legal_moves()))
    g.view(0)
    if not g.over:
        g.legal_moves()
    return g


def clone_bytes(g: ClimbingGame, count: int = 50) -> float:
    """Bytes allocated per clone, over ``count`` clones kept alive."""
    g.clone()                 # the first clone shares the log so far (a chunk the original keeps)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        clones = [g.clone() for _ in range(count)]
        after = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert len(clones) == count
    return (after - before) / count


@pytest.mark.parametrize("name", CLIMBING)
def test_a_clone_takes_at_most_1_5_kb(name):
    """At the start, in the middle and late in single hands and in matches (a long log, the
    exchange of a later hand), at the default table and the largest one."""
    for players in tables(name):
        for seed, moves, match in ((1, 0, False), (2, 25, False), (3, 60, False),
                                   (4, 150, True), (5, 400, True)):
            g = played(name, players, seed, moves, match)
            size = clone_bytes(g)
            assert size <= BOUND, (name, players, seed, moves, match, size)
        g = played(name, players, 6, 0, True)    # the exchange of the second hand, if any
        rng = random.Random(6)
        while not g.over and g.hand_number < 3 and g.phase != "exchange":
            g.apply(rng.choice(g.legal_moves()))
        g.legal_moves()
        size = clone_bytes(g)
        assert size <= BOUND, (name, players, g.phase, size)


def test_every_attribute_is_in_the_shared_key_table():
    """Every name a game's dict holds is one of INSTANCE_KEYS, at most 29 of them: the
    instances then share one key table (over 29 names in CPython 3.11, each clone's dict is a
    full table of its own, 1.6 KB; see game.py)."""
    assert len(INSTANCE_KEYS) <= 29 and len(set(INSTANCE_KEYS)) == len(INSTANCE_KEYS)
    seen: set[str] = set()
    for name in CLIMBING:
        for players in tables(name):
            g = played(name, players, 7, 300, True)
            seen |= set(g.__dict__) | set(g.clone().__dict__)
            w = played(name, players, 8, 30, False)
            seen |= set(w.__dict__)
    assert seen <= set(INSTANCE_KEYS), seen - set(INSTANCE_KEYS)


@pytest.mark.parametrize("compiled", [True, False])
@pytest.mark.parametrize("name", CLIMBING)
def test_clone_and_original_played_on_stay_independent(name, compiled):
    """The original and its clone, then a clone of the clone, each played on with its own
    random moves (with the compiled core and with the Python reference): each stays equal to
    a deep copy played with the same moves (state, log, views), so none sees another's."""
    prev = core.use(compiled)
    try:
        players = shangyou.preset_info(name)["defaults"]["players"]
        rng = random.Random(name)
        for seed in range(2):
            g = played(name, players, seed, rng.randrange(0, 200), True)
            c = g.clone()
            games = [g, c]
            twins = [copy.deepcopy(g), copy.deepcopy(c)]
            for step in range(120):
                if step == 20:                   # a clone of a clone that has moved
                    games.append(games[1].clone())
                    twins.append(copy.deepcopy(twins[1]))
                for x, twin in zip(games, twins):
                    if x.over:
                        continue
                    moves = x.legal_moves()
                    i = rng.randrange(len(moves))
                    x.apply(moves[i])
                    twin.apply(twin.legal_moves()[i])
                for x, twin in zip(games, twins):
                    assert x == twin and x.moves == twin.moves, (name, seed, step)
            seat = rng.randrange(players)
            for x, twin in zip(games, twins):
                assert x.log == twin.log and x.view(seat) == twin.view(seat)
                assert x.result == twin.result
    finally:
        core.use(prev)
