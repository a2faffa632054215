"""The ``search`` level: determinized Monte Carlo search over worlds sampled from the view.

``search`` uses each game's default budget (climbing games: 600 playouts under a 0.8 s CPU cap;
Sheng ji: a budget of simulated card plays under a 0.9 s CPU cap); ``search:400`` runs 400
iterations per decision and ``search:0.5s`` thinks for half a second. Climbing games: :mod:`shangyou.bots.climbing_search`;
Sheng ji: :mod:`shangyou.bots.sheng_ji_search`.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Protocol

from .base import BOTS, Bot
from .heuristic import HeuristicModule, is_sheng_ji

if TYPE_CHECKING:
    from .reasons import Advice


class SearchModule(Protocol):
    """What each family's search module provides (climbing_search, sheng_ji_search)."""

    def choose(self, view: dict, rng: random.Random | None = None,
               iterations: int | None = None, seconds: float | None = None,
               strict: bool = False, info: dict | None = None) -> str: ...

DEFAULT_BUDGET = "200"


def search_move(view: dict, rng: random.Random, info: dict | None = None,
                iterations: int | None = None, seconds: float | None = None) -> str:
    """The search's move for ``view`` (neither budget given: the game's default budget, the
    ``search`` level's, which hints and reviews use too)."""
    impl: SearchModule
    if is_sheng_ji(view):
        from . import sheng_ji_search as impl
    else:
        from . import climbing_search as impl
    return impl.choose(view, rng, iterations=iterations, seconds=seconds, info=info)


def parse_budget(text: str) -> tuple[int | None, float | None]:
    """``"400"`` -> (400 iterations, no time limit); ``"0.5s"`` -> (no limit, 0.5 seconds)."""
    t = str(text).strip().lower()
    try:
        if t.endswith("s"):
            seconds = float(t[:-1])
            if seconds > 0:
                return None, seconds
        else:
            iterations = int(t)
            if iterations > 0:
                return iterations, None
    except ValueError:
        pass
    raise ValueError(f"bad search budget {text!r}: give iterations (400) or seconds (0.5s)")


class SearchBot(Bot):
    name = "search"
    takes_budget = True

    def __init__(self, seed: int | None = None, budget: str | None = None):
        super().__init__(seed)
        # no budget given: each game's search applies its own default (climbing: a playout
        # count capped below one second; Sheng ji: a count of simulated card plays under a CPU cap)
        self.default = budget is None
        self.budget = DEFAULT_BUDGET if budget is None else str(budget)
        self.iterations, self.seconds = parse_budget(self.budget)

    def choose(self, view: dict) -> str:
        moves = view["legal_moves"]
        if len(moves) == 1:
            return moves[0]
        return search_move(view, self.rng, iterations=self.iterations if not self.default
                           else None, seconds=self.seconds if not self.default else None)

    def advise(self, view: dict, info: dict | None = None) -> Advice:
        """The search's move. When the heuristic plays it too, the heuristic's reason; else a
        reason naming what the search's sampled deals found it worth over the heuristic's
        move (the mean paired difference, in points for climbing games, in levels-and-points
        worth for Sheng ji: see :mod:`shangyou.bots.sheng_ji_search`). ``info`` receives
        what the search's ``choose`` notes (``stop``, ``worlds``, ``values``)."""
        from .reasons import Advice, Reason, paired_gain
        moves = view["legal_moves"]
        if len(moves) == 1:
            return Advice(moves[0], Reason("only_move"), self.name)
        heur: HeuristicModule
        impl: SearchModule
        if is_sheng_ji(view):
            from . import sheng_ji_heuristic as heur
            from . import sheng_ji_search as impl
            unit = ("levels", "级")
        else:
            from . import climbing_heuristic as heur
            from . import climbing_search as impl
            unit = ("points", "分")
        info = {} if info is None else info
        if self.default:
            move = impl.choose(view, self.rng, info=info)
        else:
            move = impl.choose(view, self.rng, iterations=self.iterations,
                               seconds=self.seconds, info=info)
        base = heur.advise(view, self.rng)
        if move == base.move:
            return Advice(move, base.reason, self.name)
        values = info.get("values") or {}
        gain, worlds = paired_gain(values.get(move, []), values.get(base.move, []))
        if gain is None:
            return Advice(move, Reason("search_prefers", {"cards": move, "other": base.move}),
                          self.name)
        if gain <= 0:
            return Advice(move, Reason("search_close", {
                "cards": move, "other": base.move, "worlds": worlds}), self.name)
        return Advice(move, Reason("search_better", {
            "cards": move, "other": base.move, "gain": f"{gain:.2f}", "worlds": worlds,
            "unit": unit[0], "unit_zh": unit[1]}), self.name)


BOTS["search"] = SearchBot
