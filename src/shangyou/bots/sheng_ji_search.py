"""The search bot of Sheng ji: determinized Monte Carlo search (perfect-information Monte Carlo).

For a decision in the play phase it samples worlds consistent with its view
(:mod:`shangyou.games.sheng_ji.worlds`: hand sizes, played cards, voids, the bid's cards, the
hidden kitty), and for each world tries every candidate move, playing the hand out to its end
with a cheap rollout policy, the same world and the same rollout seed for every candidate
(common random numbers: the comparison is fair even with few worlds). Each candidate's score is
the hand's result for the searching seat's side: the level change (positive when its side
rises, negative when the other side rises or takes the deal), plus ``WIN_BONUS`` for the side
that wins the hand (the declarers below 2u points, the opponents from 2u on), plus the
opponents' points as a fraction of the swap threshold 2u (u = 20 per pack). The heuristic's
own choice is always a candidate and is kept unless another candidate beats it, paired world
by world, by more than one standard error (:func:`pick_best`).

* Budget: ``iterations`` playouts (one candidate in one world each) and/or ``seconds`` of
  thinking (wall clock); whichever ends first stops the search (at least one world is tried).
  By default (``search`` with no budget): ``DEFAULT_WORK`` simulated card plays (a playout
  costs about as many plays as cards are left in the hands, a world ``WORLD_COST`` more), at
  most ``MAX_WORLDS`` worlds and never past ``DEFAULT_CAP_SECONDS`` of CPU time.
* Racing: after 8, 16, 32, ... worlds, a candidate whose mean falls more than two standard
  errors (paired) below the best one's gets no more worlds (:func:`race`); the heuristic's move
  always stays, so the final comparison has all the worlds. When no other candidate is left
  the search stops (``RACE_STOP``): the heuristic's move stands.
* Candidates: all legal plays when they are few; otherwise one representative per kind of play
  (for a lead: suit, size and height band; for a follow: wins the trick or not, points given,
  trumps spent, pairs broken), plus the heuristic's move, at most ``MAX_CANDIDATES``. A throw is
  a candidate when the heuristic has a safe one.
* Bidding, burying, calling, finishing a throw and picking free cards one by one follow the
  heuristic bot (:mod:`shangyou.bots.sheng_ji_heuristic`).

The rollout policy (:mod:`shangyou.bots.sheng_ji_rollout`) plays inside a sampled world with
that world's perfect information (building a view per rollout move would cost more than the
move). Leading: a plain pair or single no foe can beat or ruff (points with it), then a low card
of a suit the partner can ruff and no foe can, or in which the partner holds a card above the
foes'; boss trumps when the side holds more than twice the trumps of any foe; otherwise a low
single from a short suit, away from the foes' ruffs. Following: feed points to a partner whose
play nobody still to play can beat; otherwise take the trick with the cheapest card or pair no
later foe can beat (adding points when that is safe; ruffing a trick with points when void, with
the lowest trump no foe can overruff), try an unsafe plain card only for 10 points or more, or
shed the cheapest cards. Common plays are built straight from the hand and applied as card text
(the game checks them); other follows choose among ``legal_moves()``. The playout leaves the
game engine as soon as the trick on the table is led by a single or a pair (at once, or after
the current trick): from then on the policy only leads singles and pairs, and :class:`Sim` plays
them on bare hands with the same random numbers and the same end result as the engine (a test
compares them), about three times faster. In Zhao Pengyou Sim also keeps the open calls, so the
sides change as friends show, as in the game. With the Sheng ji core on, ``Sim.run`` plays in C
(``games/sheng_ji/_core_rollout.c``: the same moves and random numbers; docs/core-sheng-ji.md).
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from ..cards import CARD_TEXT, parse
from ..games.sheng_ji import core as _core
from ..games.sheng_ji.order import TRUMP, Trump, decompose
from ..games.sheng_ji.scoring import level_change
from ..games.sheng_ji.tricks import kitty_multiplier, trick_winner
from ..games.sheng_ji.worlds import WorldSampler
from . import sheng_ji_heuristic as heur
from .sheng_ji_rollout import PTS as _PTS
from .sheng_ji_rollout import fast_play as _fast_play
from .sheng_ji_rollout import policy as _policy
from .sheng_ji_rollout import simple_winner as _simple_winner
from .sheng_ji_rollout import tables as _tables

if TYPE_CHECKING:
    from ..games.sheng_ji.game import ShengJiRules

DEFAULT_WORK = 60000              # the default budget: simulated card plays per decision
WORLD_COST = 40                   # sampling a world costs about as much as 40 card plays
MAX_WORLDS = 400                  # enough to tell the candidates apart (default budget)
DEFAULT_CAP_SECONDS = 0.9         # ... and never more than this much CPU time
RACE_FIRST = 8                    # worlds before candidates are first raced, then 16, 32, ...
RACE_Z = 2.0
RACE_STOP = True                  # stop once racing has left no challenger to the heuristic's move
MAX_CANDIDATES = 10
WIN_BONUS = 1.0                   # added for the side that wins the hand (keeps or takes the deal)
PICK_Z = 1.0                      # standard errors by which a move must beat the heuristic's


def choose(view: dict, rng: random.Random | None = None, iterations: int | None = None,
           seconds: float | None = None, strict: bool = False, info: dict | None = None) -> str:
    """The search's move for a Sheng ji view (always one of ``view["legal_moves"]``).
    ``info``, when given, receives ``values``: each candidate's worth world by world (None
    where racing left it out)."""
    rng = rng if rng is not None else random.Random()
    moves = view["legal_moves"]
    if len(moves) == 1:
        return moves[0]
    try:
        move = _choose(view, rng, iterations, seconds, strict, info)
    except Exception:
        if strict:
            raise
        move = None
    if move is not None and move in moves:
        return move
    if info is not None:
        info["stop"] = "error"      # the heuristic answers instead
    if strict:
        raise AssertionError(f"search chose {move!r}, not a legal move")
    return heur.choose(view, rng)


def _choose(view: dict, rng: random.Random, iterations: int | None, seconds: float | None,
            strict: bool, info: dict | None = None) -> str:
    cpu_start = time.process_time()     # the default cap counts the whole decision
    moves = view["legal_moves"]
    base = heur.choose(view, rng, strict=strict)
    if view["phase"] != "play" or view.get("pending") or moves[0].startswith("pick "):
        return base
    cands = candidates(view, moves, base)
    if len(cands) < 2:
        return base
    return weigh(view, cands, rng, iterations, seconds, info, cpu_start)


def weigh(view: dict, cands: list[tuple[str, str]], rng: random.Random,
          iterations: int | None = None, seconds: float | None = None,
          info: dict | None = None, cpu_start: float | None = None,
          cpu_cap: float | None = None) -> str:
    """The search proper over ``cands`` ([(move, play in a world)], the heuristic's move
    first, at least two): sampled worlds, playouts, racing and :func:`pick_best` (the module's
    description; the learned level weighs its own few candidates with it). ``cpu_cap``: no
    world is begun that would end past that many CPU seconds from ``cpu_start`` (the default
    budget's cap is :data:`DEFAULT_CAP_SECONDS`)."""
    cpu_start = time.process_time() if cpu_start is None else cpu_start
    sampler = WorldSampler(view)
    seat = view["seat"]
    # the budget: playouts, seconds, or by default simulated card plays (a playout costs
    # about as many plays as cards are left in the hands) under a CPU-time cap
    work = None
    cpu_deadline = None
    if iterations is None and seconds is None:
        work = DEFAULT_WORK
        cpu_deadline = cpu_start + DEFAULT_CAP_SECONDS
    if cpu_cap is not None:
        cpu_deadline = cpu_start + cpu_cap
    deadline = time.perf_counter() + seconds if seconds is not None else None
    per_playout = sum(view["counts"]) + 4
    rows: list[list[float | None]] = []
    alive = list(range(len(cands)))
    done = spent = 0
    check = RACE_FIRST
    while True:
        w0 = time.process_time() if cpu_deadline is not None else 0.0
        parts = sampler.deal(rng)
        seed = rng.randrange(2**31)
        row: list[float | None] = [None] * len(cands)
        for i in alive:
            row[i] = playout(sampler, parts, cands[i][1], seat, seed)
        done += len(alive)
        spent += WORLD_COST + len(alive) * per_playout
        rows.append(row)
        if len(rows) >= check and len(alive) > 1:
            alive = race(rows, alive)
            check *= 2
            if RACE_STOP and len(alive) == 1:
                break       # no challenger left: the heuristic's move stands
        if iterations is not None and done + len(alive) > iterations:
            break
        if work is not None and (spent + WORLD_COST + len(alive) * per_playout > work
                                 or len(rows) >= MAX_WORLDS):
            break
        if deadline is not None and time.perf_counter() >= deadline:
            break
        if cpu_deadline is not None:
            # no world is begun that would end past the cap, were it to cost what the last did
            now = time.process_time()
            if now + (now - w0) >= cpu_deadline:
                break
    best = pick_best([[_played(r[i]) for i in alive] for r in rows], PICK_Z)
    if info is not None:
        info["values"] = {m: [r[i] for r in rows] for i, (m, _) in enumerate(cands)}
        info["plays"] = dict(cands)     # what each candidate plays in a world (a throw: all)
        info["worlds"] = len(rows)
    return cands[alive[best]][0]


def _played(value: float | None) -> float:
    """A live candidate's value in a world: it has one in every world so far (racing drops
    candidates, it never brings one back)."""
    assert value is not None
    return value


def race(rows: Sequence[Sequence[float | None]], alive: list[int],
         z: float = RACE_Z) -> list[int]:
    """The candidates still worth worlds: a candidate whose mean falls more than ``z``
    standard errors (of the paired difference, over the worlds every live candidate played)
    below the best candidate's is dropped; the heuristic's move (index 0) always stays."""
    n = len(rows)
    cols = {i: [_played(r[i]) for r in rows] for i in alive}
    means = {i: sum(cols[i]) / n for i in alive}
    top = max(alive, key=lambda i: means[i])
    keep = []
    for i in alive:
        if i == 0 or i == top:
            keep.append(i)
            continue
        diffs = [a - b for a, b in zip(cols[top], cols[i])]
        mean = sum(diffs) / n
        var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
        if mean <= z * (var / n) ** 0.5:
            keep.append(i)
    return keep


def pick_best(rows: list[list[float]], z: float = 1.0) -> int:
    """The candidate to play from per-world values (column 0: the heuristic's move).

    Another candidate replaces the heuristic's move only when its mean gain over it, paired
    world by world, exceeds ``z`` standard errors: with few worlds the search keeps the
    heuristic's judgement instead of following noise.
    """
    n = len(rows)
    best, best_gain = 0, 0.0
    for i in range(1, len(rows[0])):
        diffs = [r[i] - r[0] for r in rows]
        mean = sum(diffs) / n
        if n > 1:
            var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
            se = (var / n) ** 0.5
        else:
            se = float("inf")
        if mean > z * se and mean > best_gain:
            best, best_gain = i, mean
    return best


# ---------------------------------------------------------------------------- candidates
def candidates(view: dict, moves: list[str], base: str) -> list[tuple[str, str]]:
    """[(move to answer, play to apply in a world)], the heuristic's move first."""
    k = heur.Knowledge(view)
    t = k.t
    out: list[tuple[str, str]] = []
    if base.startswith("throw "):
        plan = heur.throw_plan(k)
        if plan is None:
            return []
        out.append((base, str(parse(plan))))
    else:
        out.append((base, base))
    plays = [m for m in moves if not m.startswith(("throw ", "pick ")) and m != "play"]
    if len(plays) + len(out) <= MAX_CANDIDATES:
        out += [(m, m) for m in plays if m != base]
        return out
    groups: dict[tuple, tuple] = {}
    key: tuple        # (wins, points, trumps, pairs broken) or (suit, size, height band)
    if view["trick"]:
        trick = [(s, tuple(parse(c))) for s, c in view["trick"]]
        prior = [cs for _, cs in trick]
        me = len(prior)
        lead_suit = t.suit_of(prior[0][0])
        for m in plays:
            u = tuple(parse(m))
            wins = trick_winner(t, prior + [u]) == me
            trumps = sum(1 for c in u if t.is_trump(c)) if lead_suit != TRUMP else 0
            key = (wins, heur.points(u), trumps, heur._breaks(k, u))
            height = sum(t.position(c) for c in u)
            if key not in groups or height < groups[key][0]:
                groups[key] = (height, m)
        ranked = sorted(groups.items(), key=lambda kv: (not kv[0][0], kv[0][2], -kv[0][1]))
    else:
        for m in plays:
            u = tuple(parse(m))
            suit = t.suit_of(u[0])
            top = max(t.position(c) for c in u)
            band = 2 if k.is_boss(u) else (1 if top >= 8 else 0)
            key = (suit, len(u), band)
            if key not in groups or (band == 0 and top < groups[key][0]) or \
                    (band > 0 and -top < groups[key][0]):
                groups[key] = (top if band == 0 else -top, m)
        ranked = sorted(groups.items(), key=lambda kv: (-kv[0][2], -kv[0][1]))
    for _, (_, m) in ranked:
        if m != base and all(m != c for c, _ in out):
            out.append((m, m))
        if len(out) >= MAX_CANDIDATES:
            break
    return out


# ------------------------------------------------------------------------------ scoring
def value(g, seat: int) -> float:
    """The finished hand's worth to ``seat``'s side (see the module docstring)."""
    last = g.history[-1]
    return worth(last["total"], last["change"], g.rules.decks, seat in last["declarers"])


def worth(total: int, change: dict, decks: int, declarer: bool) -> float:
    """A hand's worth to one side from the opponents' ``total`` and the level ``change``."""
    u = 20 * decks
    if change["side"] == "declarers":
        d = change["levels"] + WIN_BONUS
    else:
        d = -(1 + change["levels"]) - WIN_BONUS
    d += (2 * u - total) / (2 * u)
    return d if declarer else -d


# ------------------------------------------------------------------------------ rollouts
def rollout(g, rng: random.Random) -> None:
    """Play the world's hand to its end with the cheap policy.

    Common plays (any lead, a follow to a single or a pair) are built from the acting seat's
    hand and applied as card text (the game checks them); other follows choose among
    ``legal_moves()``.
    """
    while not g.over:
        step(g, rng)


def step(g, rng: random.Random) -> None:
    """One move of the rollout policy on a game."""
    play = _fast_play(g, rng) if g.phase == "play" and not g.pending else None
    if play is not None:
        g.apply(" ".join(CARD_TEXT[c] for c in play))
        return
    moves = g.legal_moves()
    if len(moves) == 1:
        g.apply(moves[0])
        return
    g.apply(_policy(g, moves, rng))


def playout(sampler: WorldSampler, parts: list, play: str, seat: int, seed: int) -> float:
    """One candidate's worth in one world: ``play`` applied, the hand played out by the rollout
    policy (random numbers from ``seed``). It runs on :class:`Sim` (no game engine) from the
    first trick boundary on, or at once when the current trick's lead is a single or a pair;
    outside the play phase the game engine plays it all."""
    rng = random.Random(seed + 1)
    sim = Sim.from_world(sampler, parts)
    if sim is not None:
        cards = tuple(sorted(parse(play))) if not play.startswith(("throw ", "play")) else ()
        lead = sim.trick[0][1] if sim.trick else cards
        if cards and len(set(lead)) == 1 and len(lead) <= 2:
            if sim.play(cards):
                return sim.worth(seat)
            return sim.run(rng, seat)
    g = sampler.build(parts, random.Random(seed))
    g.apply(play)
    if sim is None:
        rollout(g, rng)
        return value(g, seat)
    while not g.over and (g.trick or g.pending):
        step(g, rng)
    if g.over:
        return value(g, seat)
    return Sim.from_game(g).run(rng, seat)


class Sim:
    """A bare play-phase state for fast rollouts: the hands, the current trick, whose turn it is,
    the card points each seat has won and the sides. Only plays of one single or one pair are
    made on it (all the rollout policy leads), so a trick's winner is simple to find. In Zhao
    Pengyou the sides change as friends show: it keeps the calls still open and counts the
    cards played, as the game does. It answers what :func:`_fast_play` reads of a game (``n``,
    ``trump``, ``hands``, ``trick``, ``to_act``, ``team_of``) and ends with the same total and
    level change as the engine."""

    __slots__ = ("n", "trump", "hands", "trick", "to_act", "team", "won", "kitty", "penalty",
                 "decks", "mode", "last_lead", "last_winner", "declarer", "calls", "seen")
    n: int
    trump: Trump
    hands: list[list[int]]
    trick: list[tuple[int, tuple[int, ...]]]      # (seat, cards sorted)
    to_act: int
    team: list[str]                               # per seat: "declarers" or "opponents"
    won: list[int]                                # card points won per seat
    kitty: list[int]
    penalty: int
    decks: int
    mode: str                                     # the kitty multiplier: "power" or "linear"
    last_lead: tuple[int, ...] | None             # the last trick's lead, once the hand is over
    last_winner: int | None                       # ... and its winner
    declarer: int
    calls: list[tuple[int, int]]                  # (ordinal, card) of each call still open
    seen: Counter[int] | None                     # copies played of each card, with open calls

    def team_of(self, seat: int) -> str:
        return self.team[seat]

    @classmethod
    def _new(cls, rules: ShengJiRules, trump: Trump, declarer: int,
             friends: Iterable[int] = ()) -> Sim:
        sim = cls()
        sim.n = rules.players
        sim.trump = trump
        sim.declarer = declarer
        mine: Collection[int]
        if rules.teams:
            mine = [t for t in rules.teams if declarer in t][0]
        else:
            mine = {declarer, *friends}
        sim.team = ["declarers" if s in mine else "opponents" for s in range(sim.n)]
        sim.won = [0] * sim.n
        sim.decks = rules.decks
        sim.mode = rules.kitty_multiplier
        sim.last_lead = sim.last_winner = None
        sim.calls = []          # Zhao Pengyou: the calls no card has answered yet
        sim.seen = None         # ... and how many copies of each card have been played
        return sim

    def _open_calls(self, calls: list[tuple[int, int]], results: Mapping[int, int | None],
                    played: Iterable[int]) -> None:
        self.calls = [oc for i, oc in enumerate(calls) if results.get(i) is None]
        if self.calls:
            self.seen = Counter(played)

    @classmethod
    def from_world(cls, sampler: WorldSampler, parts: list) -> Sim | None:
        """The world of ``parts`` (:meth:`WorldSampler.deal`), or None where Sim does not apply
        (not the play phase, a throw or pick in progress)."""
        r = sampler.rules
        if not (r.teams or r.friends) or sampler.phase != "play" or sampler.pending \
                or sampler.declarer is None or sampler.trump is None:
            return None
        v = sampler.view
        sim = cls._new(r, sampler.trump, sampler.declarer, v.get("friends") or ())
        if r.friends:
            calls = []
            for text in v.get("calls") or []:
                o, card = text.split()
                calls.append((int(o), parse(card)[0]))
            results = dict(enumerate(v.get("call_results") or []))
            sim._open_calls(calls, results, sampler.played)
        hands: list[list[int]] = [[] for _ in range(sim.n)]
        hands[sampler.seat] = list(sampler.hand)
        kitty: list[int] = []
        for (kind, s, _), cards in zip(sampler.slots, parts):
            if kind == "hand":
                hands[s] = list(cards)
            elif kind == "kitty":
                kitty = list(cards)
        if not kitty and sampler.owner == sampler.seat:
            kitty = list(sampler.known_buried)
        sim.hands = hands
        sim.kitty = kitty
        sim.trick = [(s, tuple(sorted(cs))) for s, cs in sampler.trick]
        assert sampler.to_act is not None     # the play phase always has a seat to act
        sim.to_act = sampler.to_act
        sim.penalty = v.get("penalty_points", 0)
        won = sim.won
        for tr in sampler.tricks:
            won[tr["winner"]] += sum(_PTS[c] for _, cs in tr["plays"] for c in cs)
        return sim

    @classmethod
    def from_game(cls, g) -> Sim:
        """A game in its play phase at a trick boundary."""
        sim = cls._new(g.rules, g.trump, g.declarer, g.friends)
        if g.rules.friends:
            sim._open_calls(g.calls, g.call_results, g.seen_counts.elements())
        sim.hands = [list(h) for h in g.hands]
        sim.kitty = list(g.kitty)
        sim.trick = []
        sim.to_act = g.to_act
        sim.penalty = g.penalty_points
        sim.won = [sum(_PTS[c] for c in g.won[s]) for s in range(sim.n)]
        return sim

    def play(self, cards: tuple) -> bool:
        """The seat to act plays ``cards`` (sorted); True when that ended the hand."""
        seat = self.to_act
        hand = self.hands[seat]
        for c in cards:
            hand.remove(c)
        trick = self.trick
        trick.append((seat, cards))
        if self.calls:
            self._note_friends(seat, cards)
        n = self.n
        if len(trick) < n:
            self.to_act = (seat + 1) % n
            return False
        suit_of, pos, _ = _tables(self.trump)
        lead = trick[0][1]
        best = _simple_winner([cs for _, cs in trick], suit_of, pos)
        winner = trick[best][0]
        self.won[winner] += sum(_PTS[c] for _, cs in trick for c in cs)
        self.trick = []
        self.to_act = winner
        if self.hands[winner]:
            return False
        self.last_lead, self.last_winner = lead, winner
        return True

    def _note_friends(self, seat: int, cards: tuple) -> None:
        """As the game's: a card that answers an open call makes its player a friend."""
        seen = self.seen
        assert seen is not None       # kept with the open calls (see _open_calls)
        for c in cards:
            seen[c] += 1
            for oc in list(self.calls):
                if oc[1] == c and seen[c] == oc[0]:
                    self.calls.remove(oc)
                    if seat != self.declarer:
                        self.team[seat] = "declarers"

    def run(self, rng: random.Random, seat: int) -> float:
        """Play the hand to its end with the rollout policy; its worth to ``seat``'s side.
        With the compiled core on, ``_core_rollout.c`` plays it (the same moves, the same
        random numbers drawn from ``rng``); this loop is the reference and plays what the C
        does not cover."""
        if not (_core.ACTIVE and self._run_core(rng)):
            while not self.play(tuple(sorted(_fast_play(self, rng)))):
                pass
        return self.worth(seat)

    def _run_core(self, rng: random.Random) -> bool:
        """:meth:`run`'s plays in C; False (nothing played) where the C does not cover it."""
        res = _core.rollout(*_tables(self.trump), self.hands, self.trick, self.to_act,
                            [t == "declarers" for t in self.team], self.won, self.calls,
                            self.seen, self.declarer, rng.random)
        if res is None:
            return False
        self.hands, self.won, decl, still_open, self.last_lead, self.last_winner, \
            self.to_act, seen = res
        self.team = ["declarers" if d else "opponents" for d in decl]
        self.trick = []
        if self.calls:
            self.calls = [self.calls[i] for i in still_open]
            self.seen = Counter({c: k for c, k in enumerate(seen) if k})
        return True

    def total(self) -> int:
        """The opponents' points once the hand is over (:meth:`play` answered True)."""
        bonus = 0
        kp = sum(_PTS[c] for c in self.kitty)
        if kp:
            winner, lead = self.last_winner, self.last_lead
            assert winner is not None and lead is not None    # set as the last trick ends
            if self.team[winner] == "opponents":
                bonus = kp * kitty_multiplier(self.trump, decompose(self.trump, lead), self.mode)
        team = self.team
        won = sum(p for s, p in enumerate(self.won) if team[s] == "opponents")
        return won + bonus + self.penalty

    def worth(self, seat: int) -> float:
        total = self.total()
        return worth(total, level_change(total, self.decks), self.decks,
                     self.team[seat] == "declarers")
