"""A hint: the advice of the strongest level that answers within the hint's budget.

The hint is the ``search`` level's advice at its default budget (the same search the review
judges with: :mod:`shangyou.review`), bounded like every decision (docs/bots.md, *Bounded
decisions*: the climbing search's 0.8 s CPU cap from the decision's start, listing
included, Sheng ji's 0.9 s). Where the search cannot answer, the heuristic does, and the
answer says so: ``fallback`` is ``"time"`` when the CPU cap came before the search had
played out a single world (its move would be a guess), ``"failed"`` when the search failed
(it then plays the heuristic's move anyway). ``level`` names the level whose advice it is.

>>> import shangyou
>>> g = shangyou.new_game("zheng-shangyou/pagat", players=4, seed=2)
>>> h = hint(g.view(g.to_act), "heuristic", seed=1)
>>> h["level"], h["fallback"], h["move"] in g.view(g.to_act)["legal_moves"]
('heuristic', None, True)
"""

from __future__ import annotations

from .base import make_bot

HINT_LEVELS = ("heuristic", "search")
FALLBACKS = ("time", "failed")


def hint(view: dict, level: str = "search", seed: int = 0) -> dict:
    """``{"move", "reason", "by", "level", "fallback"}`` for ``view``, by ``level`` (one of
    :data:`HINT_LEVELS`), or by the heuristic where the search could not answer."""
    if level not in HINT_LEVELS:
        raise ValueError(f"no hint level {level!r}; known: {', '.join(HINT_LEVELS)}")
    fallback = None
    if level == "search":
        from .search import SearchBot
        info: dict = {}
        advice = SearchBot(seed).advise(view, info=info)
        stop = info.get("stop")
        if stop == "error":
            fallback = "failed"
        elif stop == "cap" and not info.get("worlds"):
            fallback = "time"
        if fallback is None:
            return dict(advice.as_dict(), level="search", fallback=None)
    advice = make_bot("heuristic", seed=seed).advise(view)     # type: ignore[attr-defined]
    return dict(advice.as_dict(), level="heuristic", fallback=fallback)
