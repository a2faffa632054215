"""The analysis board's engine: every play of a position with its value over sampled worlds.

A position is one seat's view (``game.view(seat)``, or one built from a set-up:
:mod:`shangyou.position`). Worlds are sampled from it as the search bot samples them (nothing
the seat could not know), and every play listed is played out in each world by the search's
playout policy, the same worlds and the same random numbers for all plays (common random
numbers: their differences are much less noisy than their values). For each play:

* ``mean``: the expected result for the seat, in the family's unit (:data:`review.UNITS`: hand
  points in the climbing games, with the search's small bonuses for a place and a won hand;
  the search's worth of the hand in levels for Sheng ji);
* ``sd`` and ``low``/``high``: the standard deviation and the 5th and 95th percentiles of its
  results over the worlds (the spread of what may happen, not the error of the mean);
* ``behind`` and ``behind_se``: how much less than the best play it scores on the same worlds,
  and the standard error of that paired difference;
* ``reason``: the heuristic's :class:`~shangyou.bots.reasons.Reason` for the play it chooses;
  for the best play, when the heuristic chooses another, the search's gain over it; for any
  other play, what it loses to the best.

Which plays: every legal play when there are at most ``max_plays`` (``plays: "all"``); past
that, the search's candidates (the heuristic's, the playout policy's, ``pass``, the cheapest
plays) and then the other legal plays in the game's order up to ``max_plays`` (``plays:
"capped"``, with ``legal`` the number of legal plays). A climbing play chosen in steps is
weighed among every legal play (as the search and the review do). Sheng ji: the search's
candidates (``plays: "candidates"``: the plays its search weighs; a throw is not analysed),
except where the search weighs every play alike (one candidate of several plays, say
discards that win nothing and hold no points): then every play, as for climbing.

Budget: at least :data:`MIN_WORLDS` worlds, at most ``max_worlds``, and past the least only
while a world that costs what the last one did ends within ``seconds`` of CPU time from the
start. With ``seconds=None`` the worlds are exactly ``max_worlds`` and the answer depends on
``seed`` alone. docs/analysis.md has the measured cost.

>>> import shangyou
>>> g = shangyou.new_game("zheng-shangyou/pagat", players=4, seed=3)
>>> a = analyse(g.view(g.to_act), seed=1, seconds=None, max_worlds=4)
>>> a["plays"], a["worlds"], a["rows"][0]["mean"] >= a["rows"][-1]["mean"]
('capped', 4, True)
"""

from __future__ import annotations

import gc
import random
import time

from .bots.reasons import Reason
from .review import UNITS, _as_listed, _Budget, family_of

MAX_PLAYS = 16          # plays played out (more legal plays: candidates first, then capped)
MAX_WORLDS = 48         # worlds at most
MIN_WORLDS = 4          # worlds at least, whatever the CPU budget
DEFAULT_SECONDS = 1.5   # CPU seconds for the worlds


class NotAnalysable(ValueError):
    """The position is not a play the search weighs (an exchange, a bid, a kitty, a throw's
    steps, a seat not to act, one legal move)."""


def analyse(view: dict, seed: int = 0, seconds: float | None = DEFAULT_SECONDS,
            max_worlds: int = MAX_WORLDS, max_plays: int = MAX_PLAYS) -> dict:
    """The analysis of ``view`` (a dict, JSON-ready): see the module's docstring."""
    if view.get("phase") != "play" or not view.get("legal_moves"):
        raise NotAnalysable("the seat has no play to make here")
    rng = random.Random(seed)
    start = time.process_time()
    pause_gc = gc.isenabled()
    if pause_gc:            # as the search: no collection inside the playouts
        gc.disable()
    try:
        try:
            if view["game"].startswith("sheng-ji"):
                setup = _sheng_ji(view, rng, max_plays)
            else:
                setup = _climbing(view, rng, max_plays)
        except NotAnalysable:
            raise
        except ValueError as e:         # the world sampler finds no world for this view
            raise NotAnalysable(f"no world agrees with this view: {e}") from None
        plays, world, value, mode, legal, family, base, base_reason, play_view = setup
        if len(plays) < 2:
            raise NotAnalysable("the seat has one legal play")
        values: dict[str, list[float]] = {m: [] for m in plays}
        budget = _Budget(start, seconds, min(MIN_WORLDS, max_worlds), max_worlds)
        first = plays[0]
        while budget.more(len(values[first])):
            w = world()
            for m in plays:
                values[m].append(value(w, m))
    finally:
        if pause_gc:
            gc.enable()
    return _table(view, play_view, values, mode, legal, family, base, base_reason,
                  time.process_time() - start)


def _climbing(view: dict, rng, max_plays: int):
    from .bots import climbing_heuristic
    from .bots.climbing_search import Search
    from .games.climbing.steps import every_play
    rules = climbing_heuristic.rules_for_view(view)
    moves = view["legal_moves"]
    if moves[0].split()[0] in ("give", "take", "discard", "offer"):
        raise NotAnalysable("card exchanges are not analysed")
    full = every_play(view, rules.family)
    moves = full["legal_moves"]
    search = Search(full, rng)
    if len(moves) <= max_plays:
        plays, mode = list(moves), "all"
    else:
        cands = search.candidates()
        plays = cands + [m for m in moves if m not in cands]
        plays, mode = plays[:max_plays], "capped"
    index = {m: i for i, m in enumerate(moves)}
    advice = climbing_heuristic.advise(full, random.Random(rng.randrange(2**32)))
    base = _as_listed(full, advice.move)
    if base in index and base not in plays:
        plays[-1] = base                # the heuristic's play is always weighed
    return (plays, lambda: search.sampler.deal(rng),
            lambda deal, m: search.value(deal, index[m]), mode, len(moves),
            family_of(view["game"], rules), base, advice.reason, full)


def _sheng_ji(view: dict, rng, max_plays: int):
    from .bots import sheng_ji_heuristic as heur
    from .bots import sheng_ji_search as sj
    from .games.sheng_ji.worlds import WorldSampler
    if view.get("pending"):
        raise NotAnalysable("a throw in progress is not analysed")
    moves = view["legal_moves"]
    advice = heur.advise(view, random.Random(rng.randrange(2**32)))
    cands = [c for c in sj.candidates(view, moves, advice.move)
             if not c[0].startswith(("throw ", "pick "))][:max_plays]
    if not cands:
        raise NotAnalysable("the seat's plays here are steps of a throw")
    mode = "candidates"
    plays = [m for m in moves if not m.startswith(("throw ", "pick ")) and m != "play"]
    if len(cands) < 2 and len(plays) > 1:
        # the search weighs these plays alike (one group: the same points, none wins...), but
        # the board is asked to compare them: every one of them, up to max_plays
        cands += [(m, m) for m in plays if all(m != c for c, _ in cands)]
        mode = "all" if len(cands) <= max_plays else "capped"
        cands = cands[:max_plays]
    sampler = WorldSampler(view)
    seat = view["seat"]
    play_of = dict(cands)

    def world():
        return sampler.deal(rng), rng.randrange(2**31)

    def value(w, m):
        return sj.playout(sampler, w[0], play_of[m], seat, w[1])
    return ([m for m, _ in cands], world, value, mode, len(moves), "sheng-ji",
            advice.move, advice.reason, view)


def _stats(xs: list[float]) -> tuple[float, float, float, float]:
    """(mean, standard deviation, 5th and 95th percentile) of ``xs``."""
    n = len(xs)
    mean = sum(xs) / n
    sd = (sum((x - mean) ** 2 for x in xs) / (n - 1)) ** 0.5 if n > 1 else 0.0
    s = sorted(xs)
    return mean, sd, s[int(0.05 * (n - 1))], s[int(round(0.95 * (n - 1)))]


def _paired(a: list[float], b: list[float]) -> tuple[float, float]:
    d = [x - y for x, y in zip(a, b)]
    n = len(d)
    mean = sum(d) / n
    if n < 2:
        return mean, 0.0
    return mean, (sum((x - mean) ** 2 for x in d) / (n - 1) / n) ** 0.5


def _table(view, play_view, values, mode, legal, family, base, base_reason, cpu) -> dict:
    unit = UNITS[family]
    unit_zh = "级" if unit == "levels" else "分"
    stats = {m: _stats(v) for m, v in values.items()}
    order = sorted(values, key=lambda m: (-stats[m][0], m != base))
    best = order[0]
    worlds = len(values[best])
    rows = []
    for m in order:
        mean, sd, low, high = stats[m]
        behind, se = _paired(values[best], values[m])
        if m == base:
            reason = base_reason
        elif m == best:
            if base in values:
                gain, _ = _paired(values[m], values[base])
                reason = Reason("search_better", {
                    "cards": m, "other": base, "gain": f"{gain:.2f}", "worlds": worlds,
                    "unit": unit, "unit_zh": unit_zh}) if gain > 0 else \
                    Reason("search_close", {"cards": m, "other": base, "worlds": worlds})
            else:
                reason = Reason("search_prefers", {"cards": m, "other": base})
        else:
            reason = Reason("analysis_behind", {
                "cards": m, "other": best, "loss": f"{behind:.2f}", "worlds": worlds,
                "unit": unit, "unit_zh": unit_zh})
        rows.append({"play": m, "mean": round(mean, 4), "sd": round(sd, 4),
                     "low": round(low, 4), "high": round(high, 4),
                     "behind": round(behind, 4), "behind_se": round(se, 4),
                     "heuristic": m == base, "reason": reason.as_dict()})
    return {"game": view["game"], "seat": view["seat"], "family": family, "unit": unit,
            "worlds": worlds, "plays": mode, "legal": legal, "listed": len(rows),
            "cpu_seconds": round(cpu, 3), "rows": rows}
