"""The ``heuristic`` level: rules of thumb of good players, one module per game family.

Climbing games (Zheng Shangyou presets, Zheng Fen): :mod:`shangyou.bots.climbing_heuristic`.
Sheng ji (Tractor, Zhao Pengyou): :mod:`shangyou.bots.sheng_ji_heuristic`.
"""

from __future__ import annotations

from .base import BOTS, Bot


def is_sheng_ji(view: dict) -> bool:
    return str(view.get("game", "")).startswith("sheng-ji")


class HeuristicBot(Bot):
    name = "heuristic"

    def choose(self, view: dict) -> str:
        moves = view["legal_moves"]
        if len(moves) == 1:
            return moves[0]
        if is_sheng_ji(view):
            from . import sheng_ji_heuristic as impl
        else:
            from . import climbing_heuristic as impl
        return impl.choose(view, self.rng)

    def advise(self, view: dict):
        """The move :meth:`choose` plays, with the reason noted by the rule that chose it."""
        from .reasons import Advice, Reason
        moves = view["legal_moves"]
        if len(moves) == 1:
            return Advice(moves[0], Reason("only_move"), self.name)
        if is_sheng_ji(view):
            from . import sheng_ji_heuristic as impl
        else:
            from . import climbing_heuristic as impl
        return impl.advise(view, self.rng)


BOTS["heuristic"] = HeuristicBot
