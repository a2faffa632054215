"""A fast plan-aware playout policy for the climbing games (``climbing_search``).

The search plays thousands of hands out per decision, so its policy must cost little more than
listing the legal moves; it reads the game object directly (perfect information, like the
search's worlds). It plans like the heuristic bot (``climbing_heuristic``), on rank counts
instead of cards:

* **Plan.** :func:`plan` splits a hand into sets (all the cards of a rank), single sequences
  and pair/triple sequences, by an exact memoised search over rank counts (2s and jokers are
  kept as their own sets: top cards, not wild cards). A group costs 1, less when its top rank
  is high (a king 0.85, an ace 0.7, a 2 0.45, a joker 0.3): high groups win the lead back.
  Plans are memoised by rank counts, so the many playouts of one decision share them.
* **Leading**: go out if one play empties the hand; a low single when the partner holds one
  card; with at most one plain group left, cash the top groups first; else the lowest plain
  group of the plan (as played, without wild cards), avoiding the sizes an opponent close to
  going out (two cards or fewer) could follow with.
* **Following**: never beat a partner; when an opponent is close to going out (or the play to
  beat is an opponent's with three cards or fewer left), the highest play; else the play that
  lowers the plan's cost most, counting half a turn when no seat still to act can beat it
  (read from the real hands), spending 2s and jokers only late; pass when no play saves at
  least ``FOLLOW_THRESHOLD`` of a turn.

Owen, "winner" and Zheng Fen plan with their own combinations (``SHAPES``: sequence lengths,
full houses) and settings (``FAMILY_PARAMS``); in Zheng Fen a follow also weighs the card points
it would take or give away (:meth:`PlanPolicy.follow_points`) and leads without point cards
first; "winner" leads its straights in mixed suits (one suit is a straight flush, kept). Any
family without a shape uses ``climbing_fast.fast_policy``.
"""

from __future__ import annotations

from ..cards import RANK_OF
from ..engine.memo import make_room
from ..engine.moves import PASS, PLAY, Move
from ..games.climbing import core

# cost of a group by its top rank (0..11 = 3..A, 12 = 2, 13 = BJ, 14 = RJ)
RANK_COST = (1.0,) * 10 + (0.85, 0.7, 0.45, 0.3, 0.25)
CONTROL = 0.5               # a group at most this dear counts as a top group
LEAD_VALUE = 0.5            # a play nobody left can beat wins the next lead
FOLLOW_THRESHOLD = 0.0      # the least gain (in turns) worth following for
PRECIOUS_COST = 0.6         # a 2 or joker spent while the plan still has more than 2 groups
CLOSE = 2                   # an opponent with this many cards or fewer is about to go out
POINT_VALUE = 0.08          # Zheng Fen: turns a card point is worth (10 points: 0.8 of a turn)
RANK_POINTS = (0, 0, 5, 0, 0, 0, 0, 10, 0, 0, 10, 0, 0, 0, 0)   # 5, 10, K (seed 004)

# Settings that differ by family, tuned with bench/climbing_policy_ab.py (docs/bots-climbing.md). Zheng
# Fen: follow only for a clear gain (0.7 of a turn, points included), keep 2s and jokers, and
# no "stop them" mode (going out first matters less than the points). Owen: no "stop them"
# mode either (one seat against the rest, an opponent about to go out is everyone's problem).
FAMILY_PARAMS = {
    "zheng-fen": {"point_value": 0.15, "close_n": 0, "threshold": 0.7, "precious_cost": 1.0},
    "owen": {"close_n": 0},
    "winner": {"suited": False},
}

_PLANS_MAX = 300_000


def counts_of(cards) -> list[int]:
    """How many cards of each of the 15 ranks (``cards.RANK_OF``) ``cards`` holds."""
    k = [0] * 15
    rank_of = RANK_OF
    for c in cards:
        k[rank_of[c]] += 1
    return k


# How each family's plans may group ranks: (fewest ranks of a single sequence, of a pair
# sequence, of a triple sequence, the highest rank a sequence may reach, full houses). pagat:
# 3, 3, 3, up to the ace, no full houses; Owen (seed 002): straights of 5, stairs and plates of
# 2, full houses; Zheng Fen (seed 004): pair and triple sequences of 3 up to the 2, full houses
# (a triple and a pair), and no single sequences (those must be of one suit, which rank counts
# do not show); "winner" (seed 001): straights of ``min_straight`` (5 by default), consecutive
# pairs and triples of 2 ranks up to the ace, full houses.
SHAPES = {
    "pagat": (3, 3, 3, 11, False),
    "owen": (5, 2, 2, 11, True),
    "zheng-fen": (99, 3, 3, 12, True),
    "winner": (5, 2, 2, 11, True),
}


def shape_of(fam):
    """The plan shape of a family (``SHAPES``; "winner" reads its ``min_straight`` option), or
    None for a family the policy does not plan."""
    shape = SHAPES.get(fam.name)
    if shape is not None and fam.name == "winner":
        shape = (fam.min_straight,) + shape[1:]
    return shape


def planner(shape: tuple):
    """A memoised ``plan(counts) -> (cost, groups)`` for one family's shape (``SHAPES``)."""
    got = _PLANNERS.get(shape)
    if got is not None:
        return got
    q_min, m2_min, m3_min, top, full_house = shape
    memo: dict = {}

    def plan_of(counts: tuple) -> tuple[float, tuple]:
        got = memo.get(counts)
        if got is not None:
            return got
        r = 0
        while r < 15 and not counts[r]:
            r += 1
        if r == 15:
            return 0.0, ()
        make_room(memo, _PLANS_MAX)
        c = list(counts)
        n = c[r]
        # a set of every card of rank r
        c[r] = 0
        sub_cost, sub = plan_of(tuple(c))
        best_cost, best = RANK_COST[r] + sub_cost, (("s", r, r, n),) + sub
        c[r] = n
        if full_house and n in (2, 3) and r < 12:
            # a full house: this triple and the lowest pair above it, or this pair and the
            # lowest triple above it (2s included, jokers not: they make no natural set)
            want = 5 - n
            q = r + 1
            while q <= 12 and c[q] != want:
                q += 1
            if q <= 12:
                d = list(c)
                d[r] = 0
                d[q] = 0
                trip = r if n == 3 else q
                sub_cost, sub = plan_of(tuple(d))
                cost = RANK_COST[trip] + sub_cost
                if cost < best_cost:
                    best_cost, best = cost, (("f", trip, q if n == 3 else r, 3),) + sub
        if r + q_min - 1 <= top:
            # single sequences r..hi
            hi = r
            while hi < top and c[hi + 1]:
                hi += 1
                if hi - r + 1 >= q_min:
                    d = list(c)
                    for x in range(r, hi + 1):
                        d[x] -= 1
                    sub_cost, sub = plan_of(tuple(d))
                    cost = (0.7 if hi >= 11 else 1.0) + sub_cost
                    if cost < best_cost:
                        best_cost, best = cost, (("q", r, hi, 1),) + sub
        # pair (triple) sequences
        for k, k_min in ((2, m2_min), (3, m3_min)):
            if n < k or r >= top:
                break
            hi = r
            while hi < top and c[hi + 1] >= k:
                hi += 1
                if hi - r + 1 >= k_min:
                    d = list(c)
                    for x in range(r, hi + 1):
                        d[x] -= k
                    sub_cost, sub = plan_of(tuple(d))
                    cost = 0.7 + sub_cost
                    if cost < best_cost:
                        best_cost, best = cost, (("m", r, hi, k),) + sub
        out = memo[counts] = (best_cost, best)
        return out

    _PLANNERS[shape] = plan_of
    return plan_of


_PLANNERS: dict = {}
plan = planner(SHAPES["pagat"])
plan.__doc__ = """(cost, groups) of the cheapest split of a hand given as 15 rank counts (pagat's
shape; :func:`planner` for the others). A group is ``(kind, lo, hi, k)``: ``"s"`` k cards of
rank lo (= hi), ``"q"`` a single sequence lo..hi, ``"m"`` a sequence of k cards of each rank
lo..hi, ``"f"`` a full house of three cards of rank lo and two of rank hi (Owen, Zheng Fen)."""


def group_cost(g) -> float:
    kind, lo, hi, k = g
    if kind == "s" or kind == "f":
        return RANK_COST[lo]
    if kind == "q":
        return 0.7 if hi >= 11 else 1.0
    return 0.7


def group_ranks(g) -> tuple:
    kind, lo, hi, k = g
    if kind == "s":
        return (lo,) * k
    if kind == "f":
        return tuple(sorted((lo,) * 3 + (hi,) * 2))
    return tuple(r for r in range(lo, hi + 1) for _ in range(k))


def group_cards(hand, group, suited=True) -> tuple:
    """The cards of ``hand`` (sorted) that make ``group``: the lowest suits, or for a single
    sequence one suit throughout when the hand has it and ``suited`` (pagat: single-suited
    beats mixed; "winner" passes False, where one suit makes a straight flush, a bomb kept)."""
    kind, lo, hi, k = group
    if kind == "s":
        return tuple(c for c in hand if RANK_OF[c] == lo)
    if kind == "f":
        return tuple(sorted(c for c in hand if RANK_OF[c] == lo or RANK_OF[c] == hi))
    if kind == "q" and suited:
        for suit in range(4):
            cards = [r * 4 + suit for r in range(lo, hi + 1)]
            if all(c in hand for c in cards):
                return tuple(cards)
    out = []
    for r in range(lo, hi + 1):
        out.extend([c for c in hand if c >> 2 == r][:k])
    if kind == "q" and len({c & 3 for c in out}) == 1:
        # one suit by chance: swap in another suit of some rank, if the hand has one
        for i, c in enumerate(out):
            other = [d for d in hand if d >> 2 == c >> 2 and d != c]
            if other:
                out[i] = other[0]
                return tuple(sorted(out))
    return tuple(out)


def _play(fam, cards):
    readings = fam.combos(cards)
    if not readings:
        return None
    return Move(PLAY, cards, readings[0], None, fam)


def _gain(m, counts, base, plan, precious_cost) -> tuple:
    """(turns the play ``m`` saves of the plan, less ``precious_cost`` for each 2 or joker it
    spends; the plan of what is left)."""
    d = list(counts)
    prec = 0
    for c in m.cards:
        r = RANK_OF[c]
        d[r] -= 1
        if r >= 12:
            prec += 1
    rest_cost, rest = plan(tuple(d))
    return base - rest_cost - precious_cost * prec, rest


def move_ranks(m) -> tuple:
    return tuple(sorted(RANK_OF[c] for c in m.cards))


def core_playout(g, policy, team_of):
    """The finishing order of the hand of ``g`` played out by ``policy``, from the compiled
    core (``games/climbing/_core_playout.c``: the same moves as this module's Python), or None
    where it does not apply: the core off or not built, a policy other than the default
    :class:`PlanPolicy`, a family other than pagat, a match, a game over. ``g`` is left as it
    was."""
    if not (core.ACTIVE and g.phase == "play" and not g.match and getattr(policy, "default", False)
            and type(policy) is PlanPolicy and g.rules.family.name == "pagat"
            and not g.rules.finish_trick):
        return None
    try:
        return core.pagat_playout(g, team_of)[0]
    except ValueError:          # a hand the core does not plan for (more than two packs)
        return None


class PlanPolicy:
    """``policy(g, rng, team_of) -> Move`` for :meth:`Search.playout` (see the module notes)."""

    lead_value = LEAD_VALUE
    threshold = FOLLOW_THRESHOLD
    precious_cost = PRECIOUS_COST
    close_n = CLOSE
    feed = 0                 # 1: lead what a partner holding one combination can go out on
    urgent_hold = 0          # 1: when urgent, the lowest play no opponent can beat first
    families = None          # the family names it plans for (None: every name in SHAPES)
    point_value = POINT_VALUE
    suited = True            # lead a single sequence in one suit when the hand has it

    def __init__(self, fallback=None, family_params=True, **params):
        # the default settings, which the compiled core also plays (see core_playout)
        self.default = fallback is None and family_params and not params
        for k, v in params.items():
            if not hasattr(self, k):
                raise AttributeError(k)
            setattr(self, k, v)
        if fallback is None:
            from .climbing_fast import fast_policy
            fallback = fast_policy
        self.fallback = fallback
        # a family's own settings (FAMILY_PARAMS), under the ones given here
        self.by_family = {name: PlanPolicy(fallback, False, **{**fp, **params})
                          for name, fp in FAMILY_PARAMS.items()} if family_params else {}

    def __call__(self, g, rng, team_of):
        fam = g.rules.family
        sub = self.by_family.get(fam.name)
        if sub is not None:
            return sub(g, rng, team_of)
        shape = shape_of(fam) if self.families is None or fam.name in self.families else None
        if shape is None:
            return self.fallback(g, rng, team_of)
        plan = planner(shape)
        leading = g.last is None and g.phase == "play"
        if not leading:
            moves = g.all_moves()
            if len(moves) == 1:
                return moves[0]                            # nothing but a pass: no plan
        seat = g.to_act
        hands = g.hands
        hand = hands[seat]
        n = g.n
        mine = team_of.get(seat, seat) if team_of else seat
        opps = [s for s in range(n) if s != seat and hands[s]
                and (team_of.get(s, s) if team_of else s) != mine]
        close = min((len(hands[s]) for s in opps), default=99)
        counts = counts_of(hand)
        base, groups = plan(tuple(counts))
        if leading:
            # a lead straight from the plan, without listing every legal lead (the costly
            # part of a playout), unless wild cards may make a short hand one play (a long
            # one is rarely one play: it is missed, the playout only plays a bit worse)
            if len(groups) == 1 or not (hand[-1] >= 48 and len(hand) <= 6 or self.feed):
                m = self.direct_lead(g, fam, hand, groups, opps, close, team_of, seat, mine)
                if m is not None:
                    return m
            moves = g.all_moves()
            if len(moves) == 1:
                return moves[0]
        size = len(hand)
        for m in moves:
            if m.kind != PASS and len(m.cards) == size:
                return m                                   # out in one play
        if moves[0].kind != PASS:
            return self.lead(g, moves, groups, opps, close, team_of, seat, mine, plan)
        return self.follow(g, moves, counts, base, groups, opps, close, team_of, seat, mine,
                           plan)

    def lead_order(self, groups, danger, points=False):
        """The plan's groups in the order they are worth leading (``points``: a point game,
        where a group holding point cards is led after those without)."""
        plain = [x for x in groups if group_cost(x) > CONTROL]
        if len(plain) <= 1 and len(groups) > 1:
            return [x for x in groups if group_cost(x) <= CONTROL] + plain
        # the lowest plain group first; a group an opponent could follow to go out last
        if points:
            return sorted(plain, key=lambda x: (len(group_ranks(x)) in danger,
                                                any(RANK_POINTS[r] for r in group_ranks(x)),
                                                x[1], -len(group_ranks(x)))) + \
                [x for x in groups if group_cost(x) <= CONTROL]
        return sorted(plain, key=lambda x: (len(group_ranks(x)) in danger, x[1],
                                            -len(group_ranks(x)))) + \
            [x for x in groups if group_cost(x) <= CONTROL]

    def partner_on_one(self, g, team_of, seat, mine, close) -> bool:
        """A partner holds one card (and no opponent is about to go out): lead a low single."""
        if team_of and close > self.close_n:
            hands = g.hands
            for s in range(g.n):
                if s != seat and team_of.get(s) == mine and len(hands[s]) == 1:
                    return True
        return False

    def danger_and_order(self, g, groups, opps) -> tuple:
        """(the hand sizes of opponents about to go out, the groups in leading order)."""
        hands = g.hands
        danger = {len(hands[s]) for s in opps if len(hands[s]) <= self.close_n}
        return danger, self.lead_order(groups, danger, g.rules.scoring == "trick-points")

    def direct_lead(self, g, fam, hand, groups, opps, close, team_of, seat, mine):
        """The lead of :meth:`lead` built from the plan's group (the engine checks it)."""
        if self.partner_on_one(g, team_of, seat, mine, close):
            return _play(fam, (hand[0],))   # the lowest single for the partner
        danger, order = self.danger_and_order(g, groups, opps)
        pick = order[0]
        if danger:
            for x in order:
                if len(group_ranks(x)) not in danger:
                    pick = x
                    break
        return _play(fam, group_cards(hand, pick, self.suited))

    # ------------------------------------------------------------------- leading
    def lead(self, g, moves, groups, opps, close, team_of, seat, mine, plan=plan):
        hands = g.hands
        if self.partner_on_one(g, team_of, seat, mine, close):
            return moves[0]     # the lowest single: the partner may go out on it
        if self.feed and team_of and close > self.close_n:
            fam = g.rules.family
            for s in range(g.n):
                h = hands[s]
                if s != seat and team_of.get(s) == mine and 1 < len(h) <= 5 and \
                        len(plan(tuple(counts_of(h)))[1]) == 1:
                    k = len(h)
                    for m in moves:          # singles first, low to high
                        if len(m.cards) == k and any(len(f.cards) == k
                                                     for f in fam.follows(h, m.combo)):
                            return m
        danger, order = self.danger_and_order(g, groups, opps)
        first = None
        for x in order:
            target = group_ranks(x)
            k = len(target)
            for m in moves:
                if len(m.cards) == k and move_ranks(m) == target:
                    if not danger or k not in danger:
                        return m
                    if first is None:
                        first = m      # an opponent could follow it: only if nothing else
                    break
        if first is not None:
            return first
        return self.fallback(g, None, team_of)

    # ----------------------------------------------------------------- following
    def follow(self, g, moves, counts, base, groups, opps, close, team_of, seat, mine,
               plan=plan):
        last = g.last_seat
        hands = g.hands
        CLOSE = self.close_n
        LEAD_VALUE, FOLLOW_THRESHOLD, PRECIOUS_COST = \
            self.lead_value, self.threshold, self.precious_cost
        if team_of and last is not None and team_of.get(last) == mine:
            return moves[0]                                 # never beat the partner
        plays = moves[1:]
        if not plays:
            return moves[0]
        last_threat = last is not None and last in opps and len(hands[last]) <= CLOSE + 1
        if close <= CLOSE or last_threat:
            # stop them: the lowest play nobody can beat, else the highest play
            if self.urgent_hold:
                fam = g.rules.family
                for m in plays:
                    combo = m.combo
                    if not any(len(hands[s]) >= len(combo.cards) and fam.follows(hands[s], combo)
                               for s in opps):
                        return m
            return max(plays, key=lambda m: (m.combo.tier, m.cards[-1], m.cards[0]))
        fam = g.rules.family
        if g.rules.scoring == "trick-points":
            return self.follow_points(g, moves, plays, counts, base, groups, plan)
        best, best_score = None, None
        long_plan = len(groups) > 2
        for m in plays:
            gain, _ = _gain(m, counts, base, plan, PRECIOUS_COST if long_plan else 0.0)
            score = (gain, -m.cards[-1])
            if best_score is None or score > best_score:
                best, best_score = m, score
        gain = best_score[0]
        if gain + LEAD_VALUE < FOLLOW_THRESHOLD:
            return moves[0]
        if gain < FOLLOW_THRESHOLD:
            # worth it only if it wins the lead: nobody else can beat it
            combo = best.combo
            for s in opps:
                if len(hands[s]) >= len(combo.cards) and fam.follows(hands[s], combo):
                    return moves[0]
        return best

    def follow_points(self, g, plays_and_pass, plays, counts, base, groups, plan):
        """Following in a point game (Zheng Fen): a play's worth in turns is what it saves of
        the plan, plus, when nobody still holding cards can beat it, the lead it wins and the
        points of the trick (``point_value`` a point), less, when it can be beaten, its own
        points given away; the best play above ``threshold``, else a pass."""
        fam = g.rules.family
        seat = g.to_act
        hands = g.hands
        others = [s for s in range(g.n) if s != seat and hands[s]]
        pv = self.point_value
        points = fam.points
        table = sum(points(combo.cards) for _, combo in g.trick if combo is not None)
        long_plan = len(groups) > 2
        scored = []
        precious_cost = self.precious_cost if long_plan else 0.0
        for m in plays:
            gain, rest = _gain(m, counts, base, plan, precious_cost)
            pts = points(m.cards)
            win = (self.lead_value if rest else 0.0) + pv * (table + pts)
            scored.append((gain + win, gain - pv * pts, m))
        # the best bound first; the hold check (the costly part) only while it can matter
        scored.sort(key=lambda x: -x[0])
        best, best_score = plays_and_pass[0], self.threshold
        for up, down, m in scored:
            if up <= best_score:
                break
            if down >= up:
                score = down
            else:
                combo = m.combo
                k = len(combo.cards)
                held = not any(len(hands[s]) >= k and fam.follows(hands[s], combo)
                               for s in others)
                score = up if held else down
            if score > best_score:
                best, best_score = m, score
        return best
