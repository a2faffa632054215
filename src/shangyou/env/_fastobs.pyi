"""Types of the C helpers of the climbing observation (``_fastobs.c``). Their Python
references in :mod:`shangyou.env.encoding`: ``_sort_moves_py``, ``_rows_py`` and
``ClimbingEncoder._head_py``."""

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
