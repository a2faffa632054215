"""The ``search`` bot for the climbing games: determinized Monte Carlo search at the root.

Each round deals the hidden cards at random, consistently with the seat's view
(:class:`shangyou.games.climbing.worlds.WorldSampler`), and for every candidate move builds that
world, plays the move and plays the hand out with a fast policy for every seat: the
plan-aware :class:`shangyou.bots.climbing_playout.PlanPolicy` (pagat, Owen, "winner" and Zheng
Fen, each with its own combinations; :func:`fast_policy`, greedy rules of thumb on the engine's
own move objects, is its fallback). The playout's score is the hand's points for the searching seat (its team's, less the
other team's, in team presets, plus a bonus for a won hand), with a small bonus per place (a
later place is worse for the next hand's exchange). Candidate 0 stands unless another
candidate scores better on the same deals by a clear margin (:meth:`Search.pick`); an
iteration is one playout. Racing (:meth:`Search.race`): after 8, 16, 32, ... worlds a
challenger clearly behind candidate 0 gets no more playouts, and the search stops once none is
left.

Candidates: at most ``MAX_CANDIDATES`` moves: the playout policy's move in one sampled world
(candidate 0, ``PLAYOUT_CANDIDATE``), the heuristic bot's choice, ``pass`` and the plays a
greedy player would consider first (low cards, no wild cards). Exchange steps are left to the
heuristic bot (``climbing_heuristic``).

Budget: ``iterations`` playouts (at most: ``ceil(iterations / k)`` worlds for ``k``
candidates, fewer playouts when racing drops some) or ``seconds`` of thinking, whichever is
given (both: whichever runs out first). With neither, ``DEFAULT_ITERATIONS`` playouts capped at
``DEFAULT_CAP_SECONDS`` of CPU time from the start of the decision (hands with very many plays,
like Owen with 2 players, would otherwise take several seconds).
Like every bot it never stops a game: on an unforeseen error it answers the heuristic's move.
"""

from __future__ import annotations

import random
import time
from functools import cached_property

from ..games.climbing.game import score_hand
from ..games.climbing.steps import every_play, in_steps
from . import climbing_heuristic
from .base import pause_gc, resume_gc
from .climbing_fast import fast_policy
from .climbing_heuristic import rules_for_view
from .climbing_playout import core_playout

DEFAULT_ITERATIONS = 600
DEFAULT_CAP_SECONDS = 0.8         # CPU seconds from the decision's start (see Search.run)
MAX_CANDIDATES = 8
MARGIN_SE = 1.0
RACE_FIRST = 8              # worlds before challengers are first raced, then 16, 32, ...
RACE_Z = 2.0                # a challenger this many standard errors behind candidate 0 drops out
PLACE_BONUS = 0.25
WIN_BONUS = 1.0
PLAYOUT_POLICY = "plan"     # "plan": climbing_playout.PlanPolicy; "fast": fast_policy
PLAYOUT_CANDIDATE = "first" # "": no; "also": the policy's move is a candidate; "first": and
#                             it is candidate 0 (the move kept without clear evidence)


def choose(view: dict, rng=None, iterations: int | None = None, seconds: float | None = None,
           strict: bool = False, info: dict | None = None) -> str:
    """The search's move. ``info``, when given, receives ``values``: each candidate's playout
    scores, world by world (the same worlds for every candidate, fewer for one raced out)."""
    moves = view["legal_moves"]
    if len(moves) == 1:
        return moves[0]
    gc_on = pause_gc()          # a full collection can take 0.1-0.45 s (bots/base.py)
    started = time.process_time()       # the default cap counts the whole decision
    rng = rng or random.Random()
    try:
        if in_steps(moves):       # the play is chosen in steps: weigh every play instead
            view = every_play(view, rules_for_view(view).family)
        search = Search(view, rng)
        search.info = info
        search.started = started
        return search.run(iterations, seconds)
    except Exception:
        if strict:
            raise
        if info is not None:
            info["stop"] = "error"
        return climbing_heuristic.choose(view, rng)
    finally:
        resume_gc(gc_on)


class Search:
    info: dict | None = None
    # the heuristic's move as candidate 0 in pagat too (the playout policy's move still a
    # candidate, after it): the distillation's labels are gains over the heuristic's move,
    # and its re-ranker plays the heuristic's move unless another candidate clearly beats it
    heuristic_first: bool = False
    _moves: list | None = None      # the seat's moves, listed in the first world (value)
    started: float | None = None    # the decision's start (time.process_time), set by choose

    def __init__(self, view: dict, rng: random.Random):
        self.view = view
        self.rng = rng
        self.rules = rules_for_view(view)
        self.seat = view["seat"]
        self.n = view["players"]
        self.teams = self.rules.teams
        self.team_of = {s: i for i, t in enumerate(self.teams) for s in t} if self.teams else {}
        self.policy = _policy(PLAYOUT_POLICY)

    @cached_property
    def sampler(self):
        """The worlds this view allows (made when first needed)."""
        from ..games.climbing.worlds import WorldSampler
        return WorldSampler(self.view, self.rules)

    # ----------------------------------------------------------------- candidates
    def candidates(self, first_move: str | None = None, ordered: bool = True,
                   sampled: bool = True) -> list[str]:
        """The moves the search weighs, candidate 0 first (see :meth:`pick`). ``first_move``:
        the heuristic's move when the caller has it already (the learned level's re-ranker),
        so that the heuristic is not asked twice about one view. ``ordered=False``: only
        candidate 0 and the set of the others matter (the re-ranker values each on its own),
        so where every legal move is a candidate no world is sampled to order them.
        ``sampled=False``: not the playout policy's move in a sampled world either (where
        there are more moves than candidates, a world costs more than the rest of the list;
        the re-ranker, which weighs the list without it, chose otherwise in 3 of 2,232
        labelled positions of 4 and 5 players)."""
        view = self.view
        moves = view["legal_moves"]
        hand_size = len(view["hand"])
        for m in moves:
            if m != "pass" and len(climbing_heuristic.cards_of(m)) == hand_size:
                return [m]                       # out in one play
        first = [first_move if first_move is not None
                 else climbing_heuristic.choose(view, self.rng)]   # candidate 0, see pick()
        if not ordered and len(moves) <= MAX_CANDIDATES:
            return first + [m for m in moves if m not in first]
        if PLAYOUT_CANDIDATE and sampled and self.rules.family.name == "pagat":
            # the playout policy's own move in one sampled world (it reads the hidden hands
            # little: only to ask whether a play will hold); elsewhere the heuristic's move
            # stays first: in Owen, "winner" and Zheng Fen the plan policy's lead over the
            # heuristic is not measured in search
            pm: str | None
            try:
                pm = str(self.policy(self.sampler.sample(self.rng), self.rng, self.team_of))
            except Exception:
                pm = None
            if pm is not None and pm in moves and pm != first[0]:
                if PLAYOUT_CANDIDATE == "first" and not self.heuristic_first:
                    first.insert(0, pm)
                else:
                    first.append(pm)
        if len(moves) <= MAX_CANDIDATES:
            return first + [m for m in moves if m not in first]
        fam = self.rules.family
        if "pass" in moves:
            first.append("pass")
        # each card of the hand: (precious, strength), asked of the family once
        card: dict = {}
        cards_of = climbing_heuristic.cards_of

        def of(c):
            got = card.get(c)
            if got is None:
                got = card[c] = (1 if fam.precious(c) else 0, fam.card_strength(c))
            return got

        def cheap(m):
            if m == "pass":
                return (9, 0, 0)
            cards = [of(c) for c in cards_of(m)]
            return (sum(p for p, _ in cards), min(s for _, s in cards), -len(cards))
        ranked = sorted((m for m in moves if m not in first), key=cheap)
        out = first + ranked
        seen, uniq = set(), []
        for m in out:
            if m not in seen:
                seen.add(m)
                uniq.append(m)
        return uniq[:MAX_CANDIDATES]

    # ------------------------------------------------------------------- search
    def run(self, iterations: int | None, seconds: float | None,
            cands: list[str] | None = None, cpu_cap: float | None = None) -> str:
        """The move, after at most ``iterations`` playouts or ``seconds`` of thinking (the
        default: :data:`DEFAULT_ITERATIONS` under :data:`DEFAULT_CAP_SECONDS` of CPU time
        from :attr:`started`, the decision's start by ``time.process_time``, or else from
        this call). ``cands``: weigh these moves (candidate 0 first) instead of
        :meth:`candidates` (the learned level's guided search); ``cpu_cap``: no world begun
        past that many CPU seconds from :attr:`started`. ``info``, when
        set, also receives ``worlds`` (worlds played out in full) and ``stop``, why the
        search stopped: ``"iterations"``, ``"seconds"``, ``"cap"`` (the CPU cap, also
        when a world was abandoned half played: its playouts are not counted), ``"race"``
        (no challenger left), ``"one"`` (a single candidate) or ``"exchange"``."""
        # the candidates' own choice counts against the budget
        start = time.perf_counter()
        cpu_deadline = None
        if iterations is None and seconds is None:
            # the default level: 600 playouts, but never more than DEFAULT_CAP_SECONDS of CPU
            # time (as Sheng ji: a cap on CPU rather than wall-clock time makes the level's
            # play depend on the machine's speed only, not on its load)
            iterations = DEFAULT_ITERATIONS
            started = self.started
            cpu_deadline = (time.process_time() if started is None else started) + \
                DEFAULT_CAP_SECONDS
        if cpu_cap is not None:
            cpu_deadline = (time.process_time() if self.started is None else self.started) + \
                cpu_cap
        info = self.info if self.info is not None else {}
        moves = self.view["legal_moves"]
        kind = moves[0].split()[0]
        if kind in ("give", "take", "discard", "offer"):
            info["stop"], info["worlds"] = "exchange", 0
            return climbing_heuristic.choose(self.view, self.rng)
        if cands is None:
            cands = self.candidates()
        if len(cands) == 1:
            info["stop"], info["worlds"] = "one", 0
            return cands[0]
        index = {m: i for i, m in enumerate(moves)}
        k = len(cands)
        scores: list[list[float]] = [[] for _ in range(k)]
        # N playouts = ceil(N / k) worlds, each played out once per candidate still racing
        max_worlds = -(-iterations // k) if iterations is not None else None
        deadline = start + seconds if seconds is not None else None
        alive = list(range(k))          # candidate 0 never drops out
        worlds = 0
        check = RACE_FIRST
        w0 = 0.0                        # when the last world began (read once one has)
        # every candidate is played out on the same deals (common random numbers: the
        # comparison between candidates is much less noisy than their values)
        stop = "race"
        while len(alive) > 1:
            if max_worlds is not None and worlds >= max_worlds:
                stop = "iterations"
                break
            if deadline is not None and worlds and time.perf_counter() >= deadline:
                stop = "seconds"
                break
            if cpu_deadline is not None:
                # no world is begun that would end past the cap, were it to cost what the last
                # one did (nor the first one past the cap)
                now = time.process_time()
                if now + (now - w0 if worlds else 0.0) >= cpu_deadline:
                    stop = "cap"
                    break
            w0 = time.process_time()
            deal = self.sampler.deal(self.rng)
            for i in alive:
                if cpu_deadline is not None and time.process_time() >= cpu_deadline:
                    break           # a world dearer than the last: abandoned, see below
                scores[i].append(self.value(deal, index[cands[i]]))
            else:
                worlds += 1
                if worlds == check:
                    alive = self.race(scores, alive)
                    check *= 2
                continue
            for i in alive:         # the abandoned world's playouts do not count
                del scores[i][worlds:]
            stop = "cap"
            break
        info["stop"], info["worlds"] = stop, worlds
        if self.info is not None:
            self.info["values"] = {cands[i]: scores[i] for i in range(k)}
        if len(alive) == 1 or not worlds:
            return cands[0]
        return cands[alive[self.pick([scores[i] for i in alive])]]

    @classmethod
    def race(cls, scores: list[list[float]], alive: list[int], z: float | None = None) -> list[int]:
        """The candidates still racing: candidate 0, and every other one that is not clearly
        (``RACE_Z`` standard errors of the paired difference) behind candidate 0 on the worlds
        so far. Only beating candidate 0 can change the move, so a challenger clearly behind it
        gets no more playouts, and once none is left the search stops."""
        z = RACE_Z if z is None else z
        out = [0]
        for j in alive:
            if j:
                mean, se = cls.gain(scores, j)
                if mean + z * se >= 0:
                    out.append(j)
        return out

    @staticmethod
    def gain(scores: list[list[float]], j: int) -> tuple[float, float]:
        """(mean, standard error) of candidate j's score less candidate 0's on the same deals."""
        xs = scores[j]
        n = len(xs)
        diffs = [a - b for a, b in zip(xs, scores[0])]
        mean = sum(diffs) / n
        if n > 1:
            var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
            return mean, (var / n) ** 0.5
        return mean, float("inf")

    @classmethod
    def pick(cls, scores: list[list[float]]) -> int:
        """Candidate 0 (the heuristic's move) unless another does better on the same deals by
        more than ``MARGIN_SE`` standard errors of the paired difference: the playouts use a
        weaker policy than the heuristic, so only clear evidence overrules it."""
        best, best_mean = 0, 0.0
        for j in range(1, len(scores)):
            mean, se = cls.gain(scores, j)
            if mean > MARGIN_SE * se and mean > best_mean:
                best, best_mean = j, mean
        return best

    def utility(self, world) -> float:
        summary = world.history[-1]
        return self.score(summary["order"], summary["points"], summary.get("team_points"))

    def score(self, order, points, team_points) -> float:
        """A playout's value for the searching seat, from the hand's finishing order and
        points (per seat, and per team in team presets)."""
        place = order.index(self.seat)
        bonus = PLACE_BONUS * (self.n - 1 - place) / (self.n - 1)
        if self.teams:
            tp = team_points
            mine = self.team_of[self.seat]
            diff = tp[mine] - sum(tp[j] for j in range(len(tp)) if j != mine)
            if diff:
                bonus += WIN_BONUS if diff > 0 else -WIN_BONUS
            return diff + bonus
        return points[self.seat] + bonus

    def value(self, deal, move_index: int | str) -> float:
        """One playout of the move ``all_moves()[move_index]`` in the world of ``deal``. The
        seat's moves are listed in the first world only (the seat's hand and the play to beat
        are the same in every world); later worlds are given the same ``Move``, which the game
        checks by its cards without listing anything."""
        world = self.sampler.build(*deal)
        if isinstance(move_index, str):     # a move past the listing (a review's move made)
            world.apply(move_index)
            return self.playout(world)
        moves = self._moves
        if moves is None:
            moves = self._moves = world.all_moves()
        world.apply(moves[move_index])
        return self.playout(world)

    def playout(self, g) -> float:
        policy = self.policy
        rng = self.rng
        team_of = self.team_of
        if not g.over:
            order = core_playout(g, policy, team_of)       # the same hand, in C
            if order is not None:
                return self.score(order, *score_hand(self.rules, order, None, None))
        while not g.over:
            g.apply(policy(g, rng, team_of))
        return self.utility(g)


_POLICIES: dict = {}


def _policy(name: str):
    pol = _POLICIES.get(name)
    if pol is None:
        if name == "fast":
            pol = fast_policy
        elif name == "plan":
            from .climbing_playout import PlanPolicy
            pol = PlanPolicy()
        else:
            raise ValueError(f"no playout policy {name!r}")
        _POLICIES[name] = pol
    return pol
