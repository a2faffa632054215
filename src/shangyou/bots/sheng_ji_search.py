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

The rollout policy plays inside a sampled world with that world's perfect information (building
a view per rollout move would cost more than the move). Leading: a plain pair or single no foe
can beat or ruff (points with it), then a low card of a suit the partner can ruff and no foe
can, or in which the partner holds a card above the foes'; boss trumps when the side holds
more than twice the trumps of any foe; otherwise a low single from a short suit, away from the
foes' ruffs. Following: feed points to a partner whose play nobody still to play can beat;
otherwise take the trick with the cheapest card or pair no later foe can beat (adding points
when that is safe; ruffing a trick with points when void, with the lowest trump no foe can
overruff), try an unsafe plain card only for 10 points or more, or shed the cheapest cards.
Common plays are built straight from the hand and applied as card text (the game checks
them); other follows choose among ``legal_moves()``. The playout leaves the game engine as
soon as the trick on the table is led by a single or a pair (at once, or after the current
trick): from then on the policy only leads singles and pairs, and :class:`Sim` plays them on
bare hands with the same random numbers and the same end result as the engine (a test compares
them), about three times faster. In Zhao Pengyou Sim also keeps the open calls, so the sides
change as friends show, as in the game.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from ..cards import BJ_CODE, CARD_TEXT, parse
from ..games.sheng_ji.order import TRUMP, Trump, decompose
from ..games.sheng_ji.scoring import level_change
from ..games.sheng_ji.tricks import kitty_multiplier, trick_winner
from ..games.sheng_ji.worlds import WorldSampler
from . import sheng_ji_heuristic as heur

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
_PTS = [({2: 5, 7: 10, 10: 10}.get(c >> 2, 0) if c < BJ_CODE else 0) for c in range(54)]


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
    if move in moves:
        return move
    if strict:
        raise AssertionError(f"search chose {move!r}, not a legal move")
    return heur.choose(view, rng)


def _choose(view, rng, iterations, seconds, strict, info=None):
    cpu_start = time.process_time()     # the default cap counts the whole decision
    moves = view["legal_moves"]
    base = heur.choose(view, rng, strict=strict)
    if view["phase"] != "play" or view.get("pending") or moves[0].startswith("pick "):
        return base
    cands = candidates(view, moves, base)
    if len(cands) < 2:
        return base
    sampler = WorldSampler(view)
    seat = view["seat"]
    # the budget: playouts, seconds, or by default simulated card plays (a playout costs
    # about as many plays as cards are left in the hands) under a CPU-time cap
    work = None
    cpu_deadline = None
    if iterations is None and seconds is None:
        work = DEFAULT_WORK
        cpu_deadline = cpu_start + DEFAULT_CAP_SECONDS
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
    best = pick_best([[r[i] for i in alive] for r in rows], PICK_Z)
    if info is not None:
        info["values"] = {m: [r[i] for r in rows] for i, (m, _) in enumerate(cands)}
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
                or sampler.declarer is None:
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
        """Play the hand to its end with the rollout policy; its worth to ``seat``'s side."""
        while not self.play(tuple(sorted(_fast_play(self, rng)))):
            pass
        return self.worth(seat)

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


def _simple_winner(plays, suit_of, pos) -> int:
    """:func:`trick_winner` for a lead of one single or one pair (sorted plays)."""
    lead = plays[0]
    suit = suit_of[lead[0]]
    pair = len(lead) == 2
    best, key = 0, (suit == TRUMP, pos[lead[0]])
    for i in range(1, len(plays)):
        cs = plays[i]
        c = cs[0]
        if pair and cs[1] != c:
            continue
        sc = suit_of[c]
        if sc != suit and sc != TRUMP:
            continue
        k = (sc == TRUMP, pos[c])
        if k > key:
            best, key = i, k
    return best


def _fast_play(g, rng):
    t = g.trump
    suit_of, pos, is_trump = _tables(t)
    seat = g.to_act
    hand = g.hands[seat]
    if not g.trick:
        return _fast_lead(g, hand, suit_of, pos, rng)
    plays = [cs for _, cs in g.trick]
    lead = plays[0]
    n = len(lead)
    if n > 2 or (n == 2 and lead[0] != lead[1]):
        return None
    suit = suit_of[lead[0]]
    mine = [c for c in hand if suit_of[c] == suit]
    w = _simple_winner(plays, suit_of, pos)
    b = plays[w][0]
    best_key = (suit_of[b] == TRUMP, pos[b]) if all(x == b for x in plays[w]) else (True, 99)
    last = len(plays) == g.n - 1
    mate_wins = _team(g, g.trick[w][0], seat) and (
        last or not _can_beat(g, seat, len(plays), suit, n, best_key, suit_of, pos))
    table = sum(_PTS[c] for cs in plays for c in cs)

    def beats(c):
        return (suit_of[c] == suit or suit_of[c] == TRUMP) and \
            (suit_of[c] == TRUMP, pos[c]) > best_key

    def cheap(c):
        return (is_trump[c] and suit != TRUMP, _PTS[c], pos[c])

    if len(mine) > n:                       # must follow in the suit
        if n == 1:
            opts = sorted(set(mine), key=cheap)
            if mate_wins:
                return (max(opts, key=lambda c: (_PTS[c], -pos[c])),)
            c = _take(g, seat, plays, suit, 1, opts, beats, last, table, suit_of, pos)
            if c is not None:
                return (c,)
            return (opts[0],)
        cnt = Counter(mine)
        pairs = sorted((c for c, k in cnt.items() if k >= 2), key=cheap)
        if pairs:
            if mate_wins:
                return (max(pairs, key=lambda c: (_PTS[c], -pos[c])),) * 2
            c = _take(g, seat, plays, suit, 2, pairs, beats, last, table, suit_of, pos)
            if c is not None:
                return (c, c)
            return (pairs[0], pairs[0])
        opts = sorted(mine, key=cheap)
        if mate_wins:
            opts = sorted(mine, key=lambda c: (-_PTS[c], pos[c]))
        return (opts[0], opts[1])
    # short of the suit: all of it, and free cards
    need = n - len(mine)
    rest = [c for c in hand if suit_of[c] != suit]
    if not need:
        return tuple(mine)
    if not mine and suit != TRUMP and not mate_wins and table >= 5:
        trumps = [c for c in rest if is_trump[c]]
        if n == 1:
            opts = sorted(set(trumps), key=lambda c: pos[c])
        else:
            cnt = Counter(trumps)
            opts = sorted((c for c, k in cnt.items() if k >= 2), key=lambda c: pos[c])
        c = _take(g, seat, plays, suit, n, opts, beats, last, table, suit_of, pos, ruff=True)
        if c is not None:
            return (c,) * n
    if mate_wins:
        rest.sort(key=lambda c: (is_trump[c], -_PTS[c], pos[c]))
    else:
        rest.sort(key=lambda c: (is_trump[c], _PTS[c], pos[c]))
    return tuple(mine) + tuple(rest[:need])


def _can_beat(g, seat, played, suit, n, best_key, suit_of, pos) -> bool:
    """Can a foe still to play after ``seat`` beat the trick's best single or pair?
    (A rollout plays with the world's perfect information.)"""
    for i in range(1, g.n - played):
        s = (seat + i) % g.n
        if _team(g, s, seat):
            continue
        hand = g.hands[s]
        mine = [c for c in hand if suit_of[c] == suit]
        if len(mine) >= n:
            pool = mine
        elif not mine:
            pool = [c for c in hand if suit_of[c] == TRUMP]
        else:
            continue
        if n == 1:
            if any((suit_of[c] == TRUMP, pos[c]) > best_key for c in pool):
                return True
        else:
            cnt = Counter(pool)
            if any(k >= 2 and (suit_of[c] == TRUMP, pos[c]) > best_key for c, k in cnt.items()):
                return True
    return False


def _take(g, seat, plays, suit, n, opts, beats, last, table, suit_of, pos, ruff=False):
    """The card (of a single, or of a pair) with which to take the trick, or None: among the
    units ``opts`` (cheapest first) that beat the trick, the cheapest no foe still to play
    can beat (adding points when it is safe); failing that, when the trick is rich, the
    cheapest beater (a plain card only: no trump is spent on a trick that will be lost)."""
    win = [c for c in opts if beats(c)]
    if not win:
        return None
    if last:
        safe = win
    else:
        played = len(plays)
        safe = [c for c in win if not _can_beat(g, seat, played, suit, n,
                                                (suit_of[c] == TRUMP, pos[c]), suit_of, pos)]
    if safe:
        if ruff:
            return safe[0]
        return min(safe, key=lambda c: (suit_of[c] == TRUMP and suit != TRUMP, -_PTS[c], pos[c]))
    if not ruff and table >= 10 and not (suit_of[win[0]] == TRUMP and suit != TRUMP):
        return win[0]
    return None


def _fast_lead(g, hand, suit_of, pos, rng):
    """The rollout's lead, with the world's perfect information: boss pairs and singles (no
    foe can beat them, none can ruff them) first, points with them; a low card of a suit the
    partner can ruff and no foe can, or in which the partner holds a card above the foes';
    boss trumps to draw the foes' trumps when the side holds more than twice as many;
    otherwise a low single (no points) from a short suit, away from the foes' ruffs."""
    seat = g.to_act
    n = g.n
    # per effective suit: the foes' highest single and pair, the partners' highest card
    ftop1 = [-1] * 5
    ftop2 = [-1] * 5
    mtop1 = [-1] * 5
    ruff1 = [False] * 5            # a foe void in the suit holds a trump
    ruff2 = [False] * 5            # ... a trump pair
    mruff = [False] * 5            # a partner void in the suit holds a trump
    foe_trumps = side_trumps = 0
    for s in range(n):
        if s == seat:
            continue
        lens = [0, 0, 0, 0, 0]
        foe = not _team(g, s, seat)
        seen = set()
        tpair = False
        for c in g.hands[s]:
            su = suit_of[c]
            lens[su] += 1
            p = pos[c]
            if foe:
                if p > ftop1[su]:
                    ftop1[su] = p
                if c in seen:
                    if p > ftop2[su]:
                        ftop2[su] = p
                    if su == TRUMP:
                        tpair = True
                else:
                    seen.add(c)
            elif p > mtop1[su]:
                mtop1[su] = p
        if lens[TRUMP]:
            for su in range(4):
                if not lens[su]:
                    if foe:
                        ruff1[su] = True
                        ruff2[su] = ruff2[su] or tpair
                    else:
                        mruff[su] = True
        if foe:
            foe_trumps = max(foe_trumps, lens[TRUMP])
        else:
            side_trumps += lens[TRUMP]
    cnt = Counter(hand)
    mine = [0, 0, 0, 0, 0]
    for c in hand:
        mine[suit_of[c]] += 1
    side_trumps += mine[TRUMP]
    draw = foe_trumps and side_trumps > 2 * foe_trumps
    best = None
    for c, k in cnt.items():
        suit = suit_of[c]
        p = pos[c]
        pts = _PTS[c]
        if suit != TRUMP:
            if k >= 2 and p >= ftop2[suit] and not ruff2[suit]:
                score, play = 70 + p + 2 * pts, (c, c)
            elif p >= ftop1[suit] and not ruff1[suit]:
                score, play = 60 + p + pts, (c,)
            elif not ruff1[suit] and mruff[suit]:
                score, play = 45 + 2 * pts - p, (c,)
            elif not ruff1[suit] and mtop1[suit] > ftop1[suit]:
                score, play = 40 - p - 2 * pts, (c,)
            elif k >= 2 and not ruff2[suit]:
                score, play = 30 + p - 2 * pts, (c, c)
            else:
                score, play = 20 - p - 2 * pts - 1.5 * mine[suit], (c,)
                if ruff1[suit]:
                    score -= 15 + pts
        else:
            if k >= 2 and p >= ftop2[TRUMP]:
                score, play = 45 + p, (c, c)
            elif p >= ftop1[TRUMP]:
                score, play = (55 if draw else 35) - pts, (c,)
            else:
                score, play = (10 + p, (c, c)) if k >= 2 else (-p - 2 * pts, (c,))
        score += rng.random() * 3
        if best is None or score > best[0]:
            best = (score, play)
    return best[1]


_TABLES: dict = {}


def _tables(t):
    """Per-card lookup tables for a trump: (effective suit, position, is trump)."""
    tab = _TABLES.get(t)
    if tab is None:
        tab = _TABLES[t] = ([t.suit_of(c) for c in range(54)], [t.position(c) for c in range(54)],
                            [t.is_trump(c) for c in range(54)])
    return tab


def _policy(g, moves, rng):
    kind = moves[0].kind
    if kind == "pick":
        return _pick(g, moves)
    if kind == "commit":
        return moves[0]
    if not g.trick:
        return _lead(g, moves, rng)
    return _follow(g, moves)


def _lead(g, moves, rng):
    suit_of, pos, _ = _tables(g.trump)
    best = None
    for m in moves:
        if m.kind != "play":
            continue
        u = m.cards
        c0 = u[-1]
        suit = suit_of[c0]
        top = max(pos[c] for c in u)
        if suit != TRUMP:
            if len(u) >= 2:
                score = 50 + 10 * len(u) + top
            elif top >= 10:                      # an ace (or a king at level A)
                score = 40 + top + _PTS[c0]
            else:
                score = 20 - top - 2 * _PTS[c0]
        else:
            score = (10 + top) if len(u) >= 2 else -top - 2 * _PTS[c0]
        score += rng.random() * 3
        if best is None or score > best[0]:
            best = (score, m)
    return best[1]


def _team(g, a: int, b: int) -> bool:
    return g.team_of(a) == g.team_of(b)


def _follow(g, moves):
    t = g.trump
    suit_of, pos, is_trump = _tables(t)
    plays = [cs for _, cs in g.trick]
    lead = plays[0]
    seat = g.to_act
    suit = suit_of[lead[0]]
    simple = all(c == lead[0] for c in lead)
    w = trick_winner(t, plays)
    winner = g.trick[w][0]
    last = len(plays) == g.n - 1
    table = sum(_PTS[c] for cs in plays for c in cs)
    plain_lead = suit != TRUMP

    def cost(m):
        u = m.cards
        tr = sum(1 for c in u if is_trump[c]) if plain_lead else 0
        return (tr, sum(_PTS[c] for c in u), sum(pos[c] for c in u))

    costs = [(cost(m), m) for m in moves]
    if _team(g, winner, seat) and (last or w == 0 or len(plays) >= g.n - 2):
        return min(costs, key=lambda cm: (cm[0][0], -cm[0][1], cm[0][2]))[1]
    if table > 0 or last:
        costs.sort(key=lambda cm: cm[0])
        me = len(plays)
        if simple:
            b = plays[w][0]
            best_key = (suit_of[b] == TRUMP, pos[b])
        for c, m in costs[:12]:
            u = m.cards
            if simple:
                x = u[0]
                sx = suit_of[x]
                wins = all(y == x for y in u) and (sx == suit or sx == TRUMP) and \
                    (sx == TRUMP, pos[x]) > best_key
            else:
                wins = trick_winner(t, plays + [u]) == me
            if wins:
                if c[0] == 0 or table >= 10:
                    return m
                break
        return costs[0][1]
    return min(costs, key=lambda cm: cm[0])[1]


def _pick(g, moves):
    _, pos, is_trump = _tables(g.trump)
    return min(moves, key=lambda m: (is_trump[m.cards[0]], _PTS[m.cards[0]], pos[m.cards[0]]))
