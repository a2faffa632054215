"""The C observation of the climbing games (``_fastobs.observe`` and ``observe_game``) against
its Python reference (``ClimbingEncoder._observe_py`` from ``compact_view``), byte for byte,
over thousands of random steps of every climbing preset; and bad input to both.

``tests/test_env.py`` compares the environments' observations (C and Python paths) with the
view path; this file compares the C functions with the Python reference directly, for every
seat at every step, with one page and with many (small ``k``), through whole matches."""

from __future__ import annotations

import random
import zlib

import numpy as np
import pytest

import shangyou
from shangyou.env import encoding
from shangyou.env.aec import ShangyouAEC
from shangyou.env.climbing_encoding import ClimbingEncoder
from shangyou.env.encoding import CAND_WIDTH, Pager

CLIMBING = [(name, None) for name in shangyou.preset_names() if not name.startswith("sheng-ji")]
CONFIGS = CLIMBING + [("zheng-shangyou/pagat", 3), ("zheng-shangyou/pagat", 8),
                      ("zheng-shangyou/pagat-teams", 6), ("zheng-shangyou/owen", 2),
                      ("zheng-fen", 6)]


def fast():
    f = encoding._fastobs
    assert f is not None, "the C helpers are not built (pip install -e .)"
    return f


def page_args(pager):
    if pager is None:
        return (None, 0, 0, 0, 0)
    start = pager.page * pager.per_page if pager.pages > 1 else 0
    stop = min(start + pager.per_page, len(pager.moves))
    return (pager.moves, start, stop, pager.page, pager.pages)


def both_ways(enc: ClimbingEncoder, game, seat: int, pager, cache: list) -> tuple:
    """(Python reference, C from the compact view, C from the game): bytes, or None where C
    declines (points or an exchange)."""
    f = fast()
    cv = game.compact_view(seat)
    ref = bytearray(enc.size)
    enc._observe_py(ref, 0, cv, seat, pager)
    a, b = bytearray(enc.size), bytearray(enc.size)
    by_cv = f.observe(a, 0, cv, *page_args(pager), enc._consts)
    by_game = f.observe_game(b, 0, game, seat, *page_args(pager), enc._consts, cache)
    declines = cv[10] is not None or cv[12] is not None
    assert by_cv is not declines and by_game is not declines
    assert a == (bytes(enc.size) if declines else b)
    return ref, None if declines else a


@pytest.mark.parametrize("k", [128, 4])
@pytest.mark.parametrize("name, players", CONFIGS,
                         ids=[f"{n}-{p}" for n, p in CONFIGS])
def test_c_observation_equals_python(name, players, k):
    """Every seat's observation at every step of random matches (exchanges, card points and
    several hands included, MORE pages with ``k=4``): C equals Python wherever C writes, and
    declines exactly where there are points or an exchange."""
    env = ShangyouAEC(name, players, max_candidates=k, match=True, max_steps=None)
    enc = env.encoder
    assert isinstance(enc, ClimbingEncoder)
    rng = random.Random(zlib.crc32(f"{name} {players} {k}".encode()))
    cache: list = [None, 0, bytes(54)]
    steps = compared = declined = hands = 0
    env.reset(seed=rng.randrange(10_000))
    while steps < (1500 if k == 128 else 400):
        g = env.game
        if g.over:
            env.reset()
            hands += 1
            continue
        pager = env.pager()
        for seat in range(g.n):
            ref, got = both_ways(enc, g, seat, pager if seat == g.to_act else None, cache)
            if got is None:
                declined += 1
            else:
                assert got == ref, (name, g.log["moves"][-3:], seat)
                compared += 1
        mask = env.observe(env.agent_selection)["action_mask"]
        ids = np.flatnonzero(mask)
        env.step(int(ids[rng.randrange(len(ids))]))
        steps += 1
    if name == "zheng-fen":          # card points in every position: the Python path
        assert compared == 0 and declined >= steps
    else:
        assert compared >= steps and compared > declined


def test_played_cards_cache_follows_games_and_hands():
    """One cache over two games stepped in turn and across a hand's end: the cards played
    are those of the game asked about (the cache is keyed by the game's list of tricks)."""
    envs = [ShangyouAEC("zheng-shangyou/pagat", 4, match=True) for _ in range(2)]
    for i, e in enumerate(envs):
        e.reset(seed=i)
    enc = envs[0].encoder
    cache: list = [None, 0, bytes(54)]
    rng = random.Random(3)
    for step in range(600):
        e = envs[step % 2]
        g = e.game
        if g.over:
            e.reset()
            continue
        for seat in range(g.n):
            ref, got = both_ways(enc, g, seat, None, cache)
            assert got is None or got == ref
        ids = np.flatnonzero(e.observe(e.agent_selection)["action_mask"])
        e.step(int(ids[rng.randrange(len(ids))]))


def test_c_observation_refuses_bad_input():
    f = fast()
    enc = ClimbingEncoder(5, 8)
    g = shangyou.new_game("zheng-shangyou/pagat", players=5, seed=1)
    moves = Pager(g.all_moves(), 8).moves
    cv = g.compact_view(0)
    c = enc._consts
    size = enc.size

    def game_call(buf=None, game=g, seat=0, pg=(moves, 0, min(8, len(moves)), 0, 1),
                  consts=c, cache=None):
        return f.observe_game(bytearray(size) if buf is None else buf, 0, game, seat, *pg,
                              consts, [None, 0, bytes(54)] if cache is None else cache)

    assert game_call() is True
    with pytest.raises(ValueError, match="seat"):
        game_call(seat=5)
    with pytest.raises(AttributeError):
        game_call(game=object())
    with pytest.raises(ValueError, match="does not fit"):
        game_call(buf=bytearray(size - 1))
    with pytest.raises(BufferError):
        game_call(buf=bytes(size))
    with pytest.raises(ValueError, match="page"):
        game_call(pg=(moves, 0, len(moves) + 1, 0, 1))
    with pytest.raises(TypeError, match="moves"):
        game_call(pg=(tuple(moves), 0, 1, 0, 1))
    with pytest.raises(TypeError, match="consts"):
        game_call(consts=c[:-1])
    with pytest.raises(ValueError, match="offsets"):
        game_call(consts=c[:6] + (size,) + c[7:])
    with pytest.raises(TypeError, match="cache"):
        game_call(cache=[None, 0])
    with pytest.raises(ValueError, match="cache"):
        game_call(cache=[g.tricks, 0, b"x"])
    with pytest.raises(TypeError, match="arguments"):
        f.observe_game(bytearray(size), 0, g, 0)
    with pytest.raises(TypeError, match="compact view"):
        f.observe(bytearray(size), 0, cv[:-1], None, 0, 0, 0, 0, c)
    with pytest.raises(ValueError, match="card code"):
        f.observe(bytearray(size), 0, cv[:2] + ((60,),) + cv[3:], None, 0, 0, 0, 0, c)
    with pytest.raises(ValueError, match="phase"):
        f.observe(bytearray(size), 0, (0, "dance") + cv[2:], None, 0, 0, 0, 0, c)
    with pytest.raises(ValueError, match="counts"):
        f.observe(bytearray(size), 0, cv[:3] + ([1, 2],) + cv[4:], None, 0, 0, 0, 0, c)
    with pytest.raises(ValueError, match="unknown kind"):
        from shangyou.engine.moves import Move
        f.observe(bytearray(size), 0, cv, [Move("dance", (1,))], 0, 1, 0, 1, c)
    # a row of every candidate, and the MORE row on a page of many
    buf = bytearray(size)
    assert f.observe(buf, 0, cv, moves, 0, 7, 0, 3, c) is True
    rows = np.frombuffer(bytes(buf[enc.offsets["candidates"]:]), np.int8).reshape(8, CAND_WIDTH)
    assert rows[:7].any(axis=1).all() and rows[7, encoding._KIND_AT["more"]] == 1

def test_the_env_offers_every_legal_move_where_the_game_offers_steps():
    """Past 400 legal plays the game offers the steps of a choice (a list, or the core's lazy
    sequences of the compiled core, which the C helpers come with); the env's candidates are
    still every legal move, sorted, with their rows."""
    from shangyou.games.climbing.steps import STEP_LIMIT
    fast()
    env = ShangyouAEC("zheng-shangyou/pagat", 3, decks=2, max_steps=None)
    rng = random.Random(5)
    big = 0
    for seed in range(40):
        env.reset(seed=seed)
        while not env.game.over and big < 3:
            g = env.game
            every = g.all_moves()
            if len(every) > STEP_LIMIT:
                big += 1
                assert len(g.legal_moves()) < len(every)       # the game offers steps
                pager = env.pager()
                assert sorted(map(str, pager.moves)) == sorted(map(str, every))
                ref = bytearray(env.encoder.size)
                env.encoder._observe_py(ref, 0, g.compact_view(g.to_act), g.to_act, pager)
                got = env.observe(env.agent_selection)["observation"]
                assert got.tobytes() == bytes(ref)
            ids = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
            env.step(int(ids[rng.randrange(len(ids))]))
        if big >= 3:
            break
    assert big >= 3, "no position past the step limit was reached"
