"""Types of the C helpers of the climbing observation (``_fastobs.c``, ``_fastobs_obs.c``).
Their Python references: ``_sort_moves_py`` and ``_rows_py`` in :mod:`shangyou.env.encoding`,
``ClimbingEncoder._head_py`` and ``ClimbingEncoder._observe_py`` in
:mod:`shangyou.env.climbing_encoding`."""

from collections.abc import Sequence

from _typeshed import WriteableBuffer

from ..engine.moves import Move

def sort_moves(moves: list[Move], kind_index: dict[str, int], /) -> list[tuple[int, int]]:
    """Sort ``moves`` in place by kind, number of cards and cards; the runs ``(start, stop)``
    of two or more plays of the same cards."""

def head(buf: WriteableBuffer, at: int, seat: int, hand: Sequence[int], played: bytes,
         last: Sequence[int] | None, last_seat: int | None, passed: Sequence[int],
         finished: Sequence[int], counts: list[int], partners: bytes, tail: bytes,
         page: bytes, /) -> int:
    """Write an observation's head at ``buf[at:]``; its size in bytes."""

def rows(obs: WriteableBuffer, base: int, moves: list[Move], width: int,
         kind_at: dict[str, int], extra_at: int, /) -> None:
    """Add the candidate rows of ``moves`` (rows of ``width``) at ``obs[base:]``."""

def observe(buf: WriteableBuffer, at: int, cv: tuple, moves: list[Move] | None, start: int,
            stop: int, page: int, pages: int, consts: tuple, /) -> bool:
    """Write a whole observation at ``buf[at:]`` from a compact view and the page
    ``moves[start:stop]``; False, writing nothing, for points or an exchange."""

def observe_game(buf: WriteableBuffer, at: int, game: object, seat: int,
                 moves: list[Move] | None, start: int, stop: int, page: int, pages: int,
                 consts: tuple, cache: list, /) -> bool:
    """:func:`observe` reading the game's attributes as ``compact_view`` does."""
