"""The environments' candidates read from the compiled core's listing (``Plays.env_sort``,
``Plays.env_rows``, :class:`~shangyou.env.plays_pager.PlaysPager`) against the Python
reference, the :class:`~shangyou.env.encoding.Pager` of ``Move`` objects sorted and written in
Python (``_sort_moves_py``, ``_rows_py``): the same moves in the same order, the same masks,
candidate rows and ids, on every decision of random games of every climbing preset, with one
page and with many (small ``k``); and bad input to the C methods."""

from __future__ import annotations

import random

import pytest

import shangyou
from shangyou.env import encoding
from shangyou.env.aec import ShangyouAEC
from shangyou.env.encoding import CAND_WIDTH, Pager
from shangyou.env.plays_pager import PLAYS, PlaysPager, plays_pager
from shangyou.games.climbing import core

CLIMBING = [(name, None) for name in shangyou.preset_names() if not name.startswith("sheng-ji")]
CONFIGS = CLIMBING + [("zheng-shangyou/pagat", 3), ("zheng-shangyou/pagat", 8),
                      ("zheng-shangyou/pagat-teams", 6), ("zheng-shangyou/owen", 2),
                      ("zheng-fen", 6)]


@pytest.fixture(autouse=True)
def compiled():
    assert core.AVAILABLE and PLAYS is not None, "the compiled core is not built"


def same_cards_twice(moves) -> bool:
    seen = set()
    for m in moves:
        if m.kind == "play":
            if m.cards in seen:
                return True
            seen.add(m.cards)
    return False


def compare(plays, k: int, monkeypatch) -> bool:
    """Compare the two pagers of ``plays`` page by page; False where ``env_sort`` declines."""
    with monkeypatch.context() as m:
        m.setattr(encoding, "_fastobs", None)          # the pure Python reference
        ref = Pager(list(plays), k)
        pp = plays_pager(plays, k)
        if pp is None:
            assert same_cards_twice(plays)
            return False
        assert not same_cards_twice(plays)
        assert type(pp) is PlaysPager and pp.n == ref.n == len(plays)
        assert (pp.pages, pp.per_page) == (ref.pages, ref.per_page)
        for _ in range(pp.pages + 1):                  # every page, and round to the first
            assert pp.page == ref.page
            assert pp.mask_bytes() == ref.mask_bytes()
            assert (pp.mask() == ref.mask()).all()
            a, b = bytearray(k * CAND_WIDTH + 5), bytearray(k * CAND_WIDTH + 5)
            pp.fill_rows(a, 3)
            ref.fill_rows(b, 3)
            assert a == b
            for i in [*range(-1, min(k, pp.n) + 2), k - 1, k]:
                try:
                    want = ref.move(i)
                except ValueError as e:
                    with pytest.raises(ValueError) as got:
                        pp.move(i)
                    assert str(got.value) == str(e)
                else:
                    assert pp.move(i) is want
            pp.turn()
            ref.turn()
        assert pp.moves == ref.moves and all(x is y for x, y in zip(pp.moves, ref.moves))
        assert pp.texts == ref.texts and pp.page_texts() == ref.page_texts()
    return True


@pytest.mark.parametrize("name, players", CONFIGS, ids=lambda v: str(v))
def test_plays_pager_matches_move_pager(name, players, monkeypatch):
    rng = random.Random(hash(name) % 1000 + (players or 0))
    read = declined = 0
    for _ in range(8):
        g = shangyou.new_game(name, players=players, seed=rng.randrange(2**31))
        while not g.over:
            moves = g.legal_moves()
            if type(moves) is PLAYS:
                for k in (128, 4, 2):
                    if compare(moves, k, monkeypatch):
                        read += 1
                    else:
                        declined += 1
            g.apply(rng.choice(moves))
    assert read > 300


def test_env_uses_plays_pager():
    env = ShangyouAEC("zheng-shangyou/pagat")
    env.reset(seed=1)
    assert type(env.pager()) is PlaysPager


def test_env_rows_bad_input():
    g = shangyou.new_game("zheng-shangyou/pagat", players=5, seed=2)
    plays = g.legal_moves()
    assert type(plays) is PLAYS
    order = plays.env_sort()
    n = len(order)
    buf = bytearray(n * CAND_WIDTH)
    with pytest.raises(TypeError):
        plays.env_rows(buf, 0, tuple(order), 0, n, CAND_WIDTH, 54, 55)
    with pytest.raises(TypeError):
        plays.env_rows(buf, 0, order, 0, n)
    with pytest.raises(ValueError):
        plays.env_rows(buf, 0, order, 0, n + 1, CAND_WIDTH, 54, 55)
    with pytest.raises(ValueError):
        plays.env_rows(buf, 1, order, 0, n, CAND_WIDTH, 54, 55)       # does not fit
    with pytest.raises(ValueError):
        plays.env_rows(buf, 0, [len(plays)], 0, 1, CAND_WIDTH, 54, 55)
    with pytest.raises(ValueError):
        plays.env_rows(buf, 0, order, 0, n, CAND_WIDTH, 54, CAND_WIDTH)
    with pytest.raises(BufferError):
        plays.env_rows(bytes(buf), 0, order, 0, n, CAND_WIDTH, 54, 55)
    assert buf == bytearray(n * CAND_WIDTH)            # nothing written by a refusal
    plays.env_rows(buf, 0, order, 0, n, CAND_WIDTH, 54, 55)
    assert buf != bytearray(n * CAND_WIDTH)


def test_plays_order_and_rows_over_many_games(monkeypatch):
    """``env_sort`` and ``env_rows`` against ``sort_moves`` and ``_rows_py`` (pure Python) at
    every decision of 1,000 random pagat hands (3 to 8 players), one page of 128."""
    rng = random.Random(7)
    read = 0
    with monkeypatch.context() as m:
        m.setattr(encoding, "_fastobs", None)
        for _ in range(1000):
            g = shangyou.new_game("zheng-shangyou/pagat", players=rng.randint(3, 8),
                                  seed=rng.randrange(2**31))
            while not g.over:
                moves = g.legal_moves()
                if type(moves) is PLAYS and len(moves) > 1:
                    order = moves.env_sort()
                    ref = encoding.sort_moves(list(moves))
                    if order is None:
                        assert same_cards_twice(moves)
                    else:
                        read += 1
                        assert [moves[i] for i in order] == ref
                        a, b = bytearray(len(ref) * CAND_WIDTH), bytearray(len(ref) * CAND_WIDTH)
                        moves.env_rows(a, 0, order, 0, len(order), CAND_WIDTH,
                                       encoding._KIND_AT["pass"], encoding._KIND_AT["play"])
                        encoding._rows_py(b, 0, ref)
                        assert a == b
                g.apply(rng.choice(moves))
    assert read > 10_000
