"""The ``heuristic`` level: rules of thumb of good players, one module per game family.

Climbing games (Zheng Shangyou presets, Zheng Fen): :mod:`shangyou.bots.climbing_heuristic`.
Sheng ji (Tractor, Zhao Pengyou): :mod:`shangyou.bots.sheng_ji_heuristic`.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Protocol

from .base import BOTS, Bot

if TYPE_CHECKING:
    from .reasons import Advice, Why


class HeuristicModule(Protocol):
    """What each family's heuristic module provides (climbing_heuristic, sheng_ji_heuristic)."""

    def choose(self, view: dict, rng: random.Random | None = None, strict: bool = False,
               why: Why | None = None) -> str: ...

    def advise(self, view: dict, rng: random.Random | None = None) -> Advice: ...


def is_sheng_ji(view: dict) -> bool:
    return str(view.get("game", "")).startswith("sheng-ji")


class HeuristicBot(Bot):
    name = "heuristic"

    def choose(self, view: dict) -> str:
        moves = view["legal_moves"]
        if len(moves) == 1:
            return moves[0]
        impl: HeuristicModule
        if is_sheng_ji(view):
            from . import sheng_ji_heuristic as impl
        else:
            from . import climbing_heuristic as impl
        return impl.choose(view, self.rng)

    def advise(self, view: dict) -> Advice:
        """The move :meth:`choose` plays, with the reason noted by the rule that chose it."""
        from .reasons import Advice, Reason
        moves = view["legal_moves"]
        if len(moves) == 1:
            return Advice(moves[0], Reason("only_move"), self.name)
        impl: HeuristicModule
        if is_sheng_ji(view):
            from . import sheng_ji_heuristic as impl
        else:
            from . import climbing_heuristic as impl
        return impl.advise(view, self.rng)


BOTS["heuristic"] = HeuristicBot
