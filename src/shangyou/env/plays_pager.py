"""The candidates of a climbing decision read straight from the compiled core's listing.

:class:`PlaysPager` is a :class:`~shangyou.env.encoding.Pager` over the core's ``Plays``
sequence (``games/climbing/_core_moves.c``) that makes no ``Move`` or ``Combo`` for the
candidates: ``Plays.env_sort`` gives the candidate order (the items' indices, in
:func:`~shangyou.env.encoding.sort_moves`' order) and ``Plays.env_rows`` writes the candidate
rows of a page; only the move chosen is made (:meth:`PlaysPager.move`). ``env_sort`` answers
None when two plays hold the same cards (readings of wild cards, ordered by reading from the
``Move``): the env then keeps the :class:`Pager` of ``Move`` objects, which is also the
reference (``tests/test_env_plays.py`` compares the two on every decision of random games).
"""

from __future__ import annotations

from typing import Any

from ..games.climbing import core
from .encoding import _KIND_AT, CAND_WIDTH, Pager

#: the core's ``Plays`` type (None without the compiled core)
PLAYS: Any = core._core.Plays if core.AVAILABLE else None
ONE_MOVE = [0]                          # the order of a single move (shared, never changed)
PASS_AT = _KIND_AT["pass"]
PLAY_AT = _KIND_AT["play"]
_MORE_AT = _KIND_AT["more"]


def plays_pager(plays, k: int) -> PlaysPager | None:
    """A :class:`PlaysPager` of the core's listing ``plays``, or None where ``Plays.env_sort``
    declines (two plays of the same cards)."""
    order = ONE_MOVE if len(plays) == 1 else plays.env_sort()
    return None if order is None else PlaysPager(plays, order, k)


class PlaysPager(Pager):
    """:class:`Pager` of the core's ``Plays`` in the order ``order`` (item indices); the
    ``Move`` objects are made only when asked for (:attr:`moves`, :meth:`move`)."""

    __slots__ = ("plays", "order", "_moves")
    plays: Any
    order: list[int]
    _moves: list | None

    def __init__(self, plays, order: list[int], k: int):   # noqa: super().__init__ not called
        self.plays = plays
        self.order = order
        self._moves = None
        self.by_text = False
        self._texts = None
        self._paginate(len(order), k)

    @property
    def moves(self) -> list:  # type: ignore[override]
        """Every candidate's ``Move``, in order (made when first asked for)."""
        moves = self._moves
        if moves is None:
            plays = self.plays
            moves = self._moves = [plays[i] for i in self.order]
        return moves

    def _span(self) -> tuple[int, int]:
        if self.pages == 1:
            return 0, self.n
        start = self.page * self.per_page
        return start, min(start + self.per_page, self.n)

    def move(self, action: int):
        """The ``Move`` of an id on the current page, or None for MORE; ValueError if the id
        is not legal now."""
        action = int(action)
        if self.pages > 1:
            if action == self.k - 1:
                return None
            start, stop = self._span()
        else:
            start, stop = 0, self.n
        if not 0 <= action < stop - start:
            raise ValueError(f"action {action} is not legal now (legal ids: 0.."
                             f"{stop - start - 1}"
                             f"{', MORE=' + str(self.k - 1) if self.pages > 1 else ''})")
        return self.plays[self.order[start + action]]

    def fill_rows(self, obs, base: int) -> None:
        """Write the candidate rows of the current page at ``base`` (zeros), from the core."""
        start, stop = self._span()
        self.plays.env_rows(obs, base, self.order, start, stop, CAND_WIDTH, PASS_AT, PLAY_AT)
        if self.pages > 1:
            obs[base + (self.k - 1) * CAND_WIDTH + _MORE_AT] = 1
