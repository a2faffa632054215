"""The search bot's review of one seat's decisions in a finished game log.

At each decision of the seat, the position is taken from that seat's view at that moment
(nothing the player could not know). Worlds are sampled from the view as the search bot samples
them; the move made and the search's candidates (the heuristic's move, the playout policy's,
the cheap plays) are each played out in every world, the same worlds and the same random
numbers for all (common random numbers). Their values are the expected result for the seat:
hand points (its team's less the other team's in team presets) in the climbing games, the
search's worth of the hand (levels, the winning side's bonus and the points) in Sheng ji.

The review takes two steps on separate worlds. The first finds the best move: by default
(``best_by="search"``) the move the hint would give, the search bot's at the hint's budget
(:func:`shangyou.bots.search.search_move`; with no CPU budget, ``seconds=None``, the same
search with about ``max_worlds`` worlds, so that a run is reproducible), so the review and the
hint speak with one voice; ``best_by="candidates"`` is the former first step (the best mean of
the search's candidates over up to ``max_worlds`` worlds). A move that followed the seat's
hint (``hint``: the hint's level, as the server recorded it) is marked so; one that followed
the search's hint *is* that search's move in that state, so it is the best and good by
construction; one that followed the heuristic's hint (a fallback, or a room that asked for it)
is judged as any move but marked ``inaccuracy`` at most. The second step plays out the best
move and the move made on up to ``judge_worlds`` fresh worlds (the best of several noisy
means is above its own true value), and the *loss* is the mean of their paired difference
there, less one standard error of it (floored at 0), so that a decision is not marked on noise
alone (docs/review.md measures that noise). :data:`THRESHOLDS` turn the loss
into a mark (``good``, ``inaccuracy``, ``mistake``, ``blunder``). Decisions with one legal move, card
exchanges, and in Sheng ji bids, burying, calling and the steps of a throw are not reviewed
(the search leaves them to the heuristic). A climbing play chosen in steps is reviewed as one
decision, the play it ends in, among every legal play.

>>> import shangyou
>>> from shangyou.bots import make_bot, play_out
>>> g = shangyou.new_game("zheng-shangyou/pagat", players=4, seed=2)
>>> play_out(g, [make_bot("greedy", s) for s in range(4)])
>>> r = review_log(g.log, seat=0, max_worlds=8, seconds=None)
>>> r.seat, len(r.decisions) > 0
(0, True)
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import Any

import shangyou

from .bots.reasons import Reason

MARKS = ("good", "inaccuracy", "mistake", "blunder")

THRESHOLDS: dict[str, tuple[float, float, float]] = {
    # the loss (in the family's unit) from which a decision is an inaccuracy, a mistake, a
    # blunder
    "climbing": (0.1, 0.25, 0.5),      # hand points (pagat, Owen, winner: a place is 1 point)
    "zheng-fen": (3.0, 7.5, 15.0),     # card points (5, 10, K) of a hand worth 100 per deck
    "sheng-ji": (0.1, 0.25, 0.5),      # levels (with the win bonus and the points' share)
}
UNITS = {"climbing": "points", "zheng-fen": "points", "sheng-ji": "levels"}

DEFAULT_SECONDS = 1.0          # CPU seconds per decision
DEFAULT_WORLDS = 48            # at most this many worlds to find the best candidate
DEFAULT_JUDGE_WORLDS = 256     # ... and this many fresh ones to judge the move made against it
MIN_WORLDS = 8                 # each step at least this many, whatever the CPU budget
LOSS_Z = 1.0                   # the loss: the paired mean less this many standard errors
SEARCH_CANDIDATES = 8          # with no clock, the search's playouts: this many a world
HINT_MARK_AT_MOST = "inaccuracy"    # the worst mark of a move that followed the hint


def family_of(game_name: str, rules=None) -> str:
    """``"sheng-ji"``, ``"zheng-fen"`` or ``"climbing"``: which thresholds apply."""
    if game_name.startswith("sheng-ji"):
        return "sheng-ji"
    if rules is not None and getattr(rules, "scoring", "") == "trick-points":
        return "zheng-fen"
    return "zheng-fen" if game_name.startswith("zheng-fen") else "climbing"


def mark_of(loss: float, family: str) -> str:
    """The mark of a decision that lost ``loss`` (its family's unit)."""
    inacc, mistake, blunder = THRESHOLDS[family]
    if loss >= blunder:
        return "blunder"
    if loss >= mistake:
        return "mistake"
    if loss >= inacc:
        return "inaccuracy"
    return "good"


@dataclass(frozen=True)
class Decision:
    """One reviewed decision: move ``index`` of the log, by ``seat``."""

    index: int
    seat: int
    played: str
    best: str
    played_value: float        # mean over the worlds, in the family's unit
    best_value: float
    loss: float                # best less played, less one standard error, floored at 0
    worlds: int
    mark: str
    reason: Reason | None = None     # why the best move (when it is not the move made)
    hint: str | None = None          # the move followed the seat's hint, of this level

    def as_dict(self) -> dict:
        return {"index": self.index, "seat": self.seat, "played": self.played,
                "best": self.best, "played_value": round(self.played_value, 4),
                "best_value": round(self.best_value, 4), "loss": round(self.loss, 4),
                "worlds": self.worlds, "mark": self.mark,
                "reason": self.reason.as_dict() if self.reason else None,
                "hint": self.hint}


@dataclass(frozen=True)
class Review:
    """Every reviewed decision of one seat in one log."""

    game: str
    seat: int
    family: str
    decisions: tuple[Decision, ...]
    skipped: int = 0               # the seat's moves that were not decisions to review
    thresholds: tuple = field(default=())

    @property
    def unit(self) -> str:
        return UNITS[self.family]

    def counts(self) -> dict[str, int]:
        out = {m: 0 for m in MARKS}
        for d in self.decisions:
            out[d.mark] += 1
        return out

    def good_share(self) -> float | None:
        if not self.decisions:
            return None
        return self.counts()["good"] / len(self.decisions)

    def biggest(self, k: int = 3) -> list[Decision]:
        marked = [d for d in self.decisions if d.mark != "good"]
        return sorted(marked, key=lambda d: (-d.loss, d.index))[:k]

    def mean_loss(self) -> float | None:
        if not self.decisions:
            return None
        return sum(d.loss for d in self.decisions) / len(self.decisions)

    def as_dict(self) -> dict:
        return {"game": self.game, "seat": self.seat, "family": self.family, "unit": self.unit,
                "thresholds": dict(zip(MARKS[1:], THRESHOLDS[self.family])),
                "counts": self.counts(), "good_share": self.good_share(),
                "skipped": self.skipped, "biggest": [d.index for d in self.biggest()],
                "hinted": sum(1 for d in self.decisions if d.hint),
                "decisions": [d.as_dict() for d in self.decisions]}


# ----------------------------------------------------------------------------- evaluation
def _paired(a: list[float], b: list[float]) -> tuple[float, float]:
    """(mean, standard error) of ``a[w] - b[w]``."""
    diffs = [x - y for x, y in zip(a, b)]
    n = len(diffs)
    mean = sum(diffs) / n
    if n < 2:
        return mean, float("inf")
    var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
    return mean, (var / n) ** 0.5


class _Budget:
    """Worlds while ``more(worlds)``: at least ``least``, at most ``most``, and past ``least``
    only while a world that costs what the last one did would end within ``seconds`` of CPU
    time from the decision's start (None: no limit)."""

    def __init__(self, start: float, seconds: float | None, least: int, most: int):
        self.start, self.seconds, self.least, self.most = start, seconds, least, most
        self._prev: float | None = None     # when more() was last asked

    def more(self, worlds: int) -> bool:
        if worlds >= self.most:
            return False
        now = time.process_time()
        cost = 0.0 if self._prev is None else now - self._prev
        self._prev = now
        if worlds < self.least or self.seconds is None:
            return True
        return now + cost - self.start < self.seconds


class _Judge:
    """One decision's candidates, its worlds and a candidate's value in a world (Sheng ji:
    ``play_of``, what each move plays in a world)."""

    def __init__(self, cands: list[str], world, value, play_of: dict | None = None):
        self.cands, self.world, self.value, self.play_of = cands, world, value, play_of


def _climbing_judge(view: dict, played: str, rng, listed: int | None = None) -> _Judge | None:
    from .bots.climbing_search import Search
    moves = view["legal_moves"]
    if moves[0].split()[0] in ("give", "take", "discard", "offer"):
        return None
    search = Search(view, rng)
    cands = search.candidates()
    if played not in cands:
        cands.append(played)
    # a move past the listing (the move made, see review_decision) is played by its text
    index = {m: i for i, m in enumerate(moves[:listed])}
    return _Judge(cands, lambda: search.sampler.deal(rng),
                  lambda deal, m: search.value(deal, index[m] if m in index else m))


def _sheng_ji_judge(view: dict, played: str, rng,
                    plays: dict | None = None) -> _Judge | None:
    from .bots import sheng_ji_heuristic as heur
    from .bots import sheng_ji_search as sj
    from .games.sheng_ji.worlds import WorldSampler
    if view["phase"] != "play" or view.get("pending"):
        return None
    if played.startswith(("throw ", "pick ")) or played == "play":
        return None
    moves = view["legal_moves"]
    base = heur.choose(view, rng)
    cands = [c for c in sj.candidates(view, moves, base) if not c[0].startswith("throw ")]
    if all(m != played for m, _ in cands):
        cands.append((played, played))
    sampler = WorldSampler(view)
    seat = view["seat"]
    play_of = dict(plays or {})     # the search's own (a throw: the cards it throws)
    play_of.update(cands)

    def world():
        return sampler.deal(rng), rng.randrange(2**31)

    def value(w, m):
        return sj.playout(sampler, w[0], play_of[m], seat, w[1])
    return _Judge([m for m, _ in cands], world, value, play_of)


def review_decision(view: dict, played: str, index: int = 0, rng=None,
                    seconds: float | None = DEFAULT_SECONDS,
                    max_worlds: int = DEFAULT_WORLDS,
                    judge_worlds: int = DEFAULT_JUDGE_WORLDS, hint: str | None = None,
                    best_by: str = "search") -> Decision | None:
    """The review of ``played`` in ``view`` (None: not a decision the search reviews).

    Two steps on separate worlds. 1: the best move, by default (``best_by="search"``) the
    hint's: the search bot's move at its default budget (with ``seconds=None``, at about
    ``max_worlds`` worlds instead, no clock); ``best_by="candidates"``: every candidate is
    played out on up to ``max_worlds`` worlds and the one with the best mean is taken. 2:
    that move and the move made are played out on up to ``judge_worlds`` fresh worlds, and
    the loss is measured on those alone (the best of several noisy means is above its true
    value; fresh worlds are not). ``seconds`` of CPU for the review's own worlds: half for
    each step (by default the first step is the search, under its own cap), each at least
    :data:`MIN_WORLDS` worlds.

    ``hint``: the level of the hint the move made followed (None: no hint was followed). The
    search's hint is the first step's answer in this state, worked out already: the move is
    the best, good. The heuristic's is judged as any move, marked ``inaccuracy`` at most.

    A climbing play chosen in steps (``choose``, ``pick``: games/climbing/steps.py) is judged
    once, at the play it ends in, against every legal play; the steps are not decisions."""
    if best_by not in ("search", "candidates"):
        raise ValueError(f"best_by is 'search' or 'candidates', not {best_by!r}")
    game = view["game"]
    asked = view                    # the view as the hint's search sees it
    if not game.startswith("sheng-ji"):
        if played.startswith(("choose ", "pick ")):
            return None
        from .bots.climbing_heuristic import rules_for_view
        from .games.climbing.steps import every_play
        view = every_play(view, rules_for_view(view).family)
    moves = view["legal_moves"]
    listed = len(moves)
    if len(moves) < 2:
        return None
    played = _as_listed(view, played)
    if played not in moves:
        if not view.get("by_reading"):
            raise ValueError(f"{played!r} is not a legal move of this view")
        # past LISTING_LIMIT plays the listing has one play per reading (steps.bounded_plays):
        # a play made among the others of its reading is judged as made (a move that is not
        # legal raises IllegalMove, a ValueError, when it is played out)
        view = dict(view, legal_moves=list(moves) + [played])
        moves = view["legal_moves"]
    rng = rng if rng is not None else random.Random(0)
    start = time.process_time()
    if game.startswith("sheng-ji"):
        judge = _sheng_ji_judge(view, played, rng)
        family = "sheng-ji"
    else:
        from .bots.climbing_heuristic import rules_for_view
        judge = _climbing_judge(view, played, rng, listed)
        family = family_of(game, rules_for_view(view))
    if judge is None:
        return None
    seat = view["seat"]
    if hint == "search":
        # the move made is what the search answered as the hint for this very state
        return Decision(index, seat, played, played, 0.0, 0.0, 0.0, 0, "good", None, hint)
    # 1. which move is best
    if best_by == "search":
        found = _search_best(asked, view, judge, rng, seconds, max_worlds)
        if found is None:
            return None
        best, value, searched = found
        if best == played:
            return Decision(index, seat, played, played, value, value, 0.0, searched, "good",
                            None, hint)
        # the judging step's own half of ``seconds``, from now (the search had its cap)
        step, share = time.process_time(), None if seconds is None else seconds / 2
    else:
        values: dict[str, list] = {m: [] for m in judge.cands}
        budget = _Budget(start, None if seconds is None else seconds / 2, MIN_WORLDS,
                         max_worlds)
        while budget.more(len(values[played])):
            w = judge.world()
            for m in judge.cands:
                values[m].append(judge.value(w, m))
        means = {m: sum(v) / len(v) for m, v in values.items()}
        best = max(values, key=lambda m: (means[m], m == played))
        if best == played:
            return Decision(index, seat, played, played, means[played], means[played],
                            0.0, len(values[played]), "good", None, hint)
        step, share = start, seconds        # the rest of ``seconds`` from the start
    # 2. how much the move made loses to it, on fresh worlds
    a: list[float] = []
    b: list[float] = []
    budget = _Budget(step, share, MIN_WORLDS, judge_worlds)
    while budget.more(len(a)):
        w = judge.world()
        a.append(judge.value(w, best))
        b.append(judge.value(w, played))
    mean, se = _paired(a, b)
    best_value, played_value = sum(a) / len(a), sum(b) / len(b)
    if mean <= 0:           # on fresh worlds the move made is as good: nothing better found
        return Decision(index, seat, played, played, played_value, played_value,
                        0.0, len(a), "good", None, hint)
    loss = max(0.0, mean - LOSS_Z * se)
    reason = None
    if loss > 0:
        reason = _best_reason(view, best, played, mean, len(a), family)
    mark = mark_of(loss, family)
    if hint is not None and MARKS.index(mark) > MARKS.index(HINT_MARK_AT_MOST):
        mark = HINT_MARK_AT_MOST    # the player did what the page advised
    return Decision(index, seat, played, best, played_value, best_value, loss,
                    len(a), mark, reason, hint)


def _search_best(asked: dict, view: dict, judge: _Judge, rng, seconds: float | None,
                 max_worlds: int) -> tuple[str, float, int] | None:
    """The hint's search's move for ``asked`` (the view as the hint sees it), as ``view``
    lists it, with its mean value over the search's worlds (0 where it played none) and
    how many worlds it played it out in; a Sheng ji throw is judged by the cards the search
    would throw (None: no such plan, not judged)."""
    from .bots.search import search_move
    info: dict = {}
    own = random.Random(rng.randrange(2**32))
    iterations = None if seconds is not None else max_worlds * SEARCH_CANDIDATES
    best = _as_listed(view, search_move(asked, own, info, iterations=iterations))
    if judge.play_of is not None and best not in judge.play_of:
        play = (info.get("plays") or {}).get(best)
        if play is None and best.startswith("throw "):
            from .bots import sheng_ji_search as sj
            pairs = sj.candidates(view, view["legal_moves"], best)
            play = pairs[0][1] if pairs else None
            if play is None:
                return None
        judge.play_of[best] = play or best
    scores = [v for v in (info.get("values") or {}).get(best, []) if v is not None]
    return best, (sum(scores) / len(scores) if scores else 0.0), len(scores)


def _best_reason(view: dict, best: str, played: str, gain: float, worlds: int,
                 family: str) -> Reason:
    """The heuristic's reason when its rules choose the better move, else the search's gain."""
    from .bots.heuristic import HeuristicBot
    advice = HeuristicBot(0).advise(view)
    if advice.move == best:
        return advice.reason
    unit = UNITS[family]
    return Reason("search_better", {"cards": best, "other": played, "gain": f"{gain:.2f}",
                                    "worlds": worlds, "unit": unit,
                                    "unit_zh": "级" if unit == "levels" else "分"})


def review_log(log: dict, seat: int, seconds: float | None = DEFAULT_SECONDS,
               max_worlds: int = DEFAULT_WORLDS, seed: int = 0, progress=None,
               judge_worlds: int = DEFAULT_JUDGE_WORLDS, best_by: str = "search") -> Review:
    """Review every decision of ``seat`` in a game log (``game.log``). ``progress(done,
    total)`` is called after each of the seat's moves. The log's ``hints`` (``{"index":
    level}``, the moves that followed the seat's hint, as the server stores them) mark
    those decisions (:func:`review_decision`'s ``hint``)."""
    if isinstance(log, str):
        import json
        log = json.loads(log)
    # JSON turns tuples (Sheng ji's must_play_ranks) into lists; the rules are cached by them
    options: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v
                               for k, v in (log.get("options") or {}).items()}
    options["players"] = log.get("players", options.get("players"))
    make = shangyou.new_match if log.get("match", False) else shangyou.new_game
    g = make(log["game"], seed=log["seed"], **options)
    if not 0 <= seat < g.n:
        raise ValueError(f"seat {seat} is not at this table (seats 0-{g.n - 1})")
    mine = [i for i, (s, _) in enumerate(log["moves"]) if s == seat]
    hinted = log.get("hints") or {}
    rng = random.Random(seed)
    decisions: list[Decision] = []
    skipped = 0
    done = 0
    for i, (s, text) in enumerate(log["moves"]):
        if g.to_act != s:
            raise ValueError(f"log move {i} ({text!r}) is by seat {s}, "
                             f"but seat {g.to_act} is to act")
        if s == seat:
            view = g.view(seat)
            played = _as_listed(view, text)
            d = review_decision(view, played, i, rng, seconds, max_worlds, judge_worlds,
                                hinted.get(str(i)), best_by)
            if d is None:
                skipped += 1
            else:
                decisions.append(d)
            done += 1
            if progress is not None:
                progress(done, len(mine))
        g.apply(text)
    family = family_of(log["game"], getattr(g, "rules", None))
    return Review(log["game"], seat, family, tuple(decisions), skipped, THRESHOLDS[family])


def _as_listed(view: dict, text: str) -> str:
    """The log's move text as ``legal_moves`` spells it (the same move)."""
    moves = view["legal_moves"]
    if text in moves:
        return text
    key = " ".join(sorted(text.split()))
    for m in moves:
        if " ".join(sorted(m.split())) == key:
            return m
    return text
