"""The heuristic bot of Sheng ji (Tractor, forty points, Zhao Pengyou): how good players play.

It sees only a seat's view and answers one of ``view["legal_moves"]``. What it knows comes from
counting the cards (:class:`Knowledge`): every card played so far, which suits each seat has
shown void in (a seat that did not follow a led effective suit holds none of it), and so which
cards are *boss* (nothing left outside this hand can beat them) and which suits an opponent can
ruff.

* **Bidding**: bid the suit whose trump holding (suit cards, level cards, jokers, weighted by
  height) is the largest share of the hand so far; a joker pair (no trump) with many level
  cards and jokers; reinforce its own bid; never overcall its partner.
* **Burying**: empty the short plain suits (with no A or pairs worth keeping), keep point cards
  out of the kitty when it can, never bury trumps unless forced.
* **Calling** (Zhao Pengyou): an ace it does not hold (or the copy after its own), in a suit
  where it holds low cards to lead towards the friend.
* **Leading**: boss tractors, pairs and singles of plain suits (points first when safe), a
  throw only when no card left outside can beat any of its units, drawing trumps with boss
  trumps when its side holds trump control, otherwise a low card from a short suit (to make a
  void), never a suit an opponent can ruff while it has points there.
* **Following**: when its side's play will hold the trick, feed points (5, 10, K); when an
  opponent wins, take the trick as cheaply as is safe if it is worth it (points on the table, or
  chasing points as a defender), ruffing when void; otherwise throw the cheapest cards: no
  points, no trumps, no broken pairs, from short suits.

A bot must never stop a game: an unforeseen error falls back to the greedy move, then to a
random legal move (``strict=True`` raises instead, for tests).
"""

from __future__ import annotations

from collections import Counter

from ..cards import BJ_CODE, parse
from ..games.sheng_ji.order import LEVEL_RANK, TRUMP, Trump, decompose
from ..games.sheng_ji.tricks import match_format, throw_check, trick_winner
from ..games.sheng_ji.worlds import rules_of
from . import sheng_ji as greedy
from .guard import guarded
from .reasons import Advice, Reason, Why

card_points, points = greedy.card_points, greedy.points     # 5, 10, K count


def choose(view: dict, rng=None, strict: bool = False, why: Why | None = None) -> str:
    """The heuristic move for a Sheng ji view (always one of ``view["legal_moves"]``);
    ``why``, when given, receives the reason noted at the rule that decided it."""
    if why is None:
        return guarded("heuristic", _choose, view, rng, strict, fallback=greedy.choose)
    move = guarded("heuristic", lambda v, m: _choose(v, m, why), view, rng, strict,
                   fallback=greedy.choose)
    if len(view["legal_moves"]) == 1:
        why.note("only_move")
    elif why.reason is None or why.move != move:
        why.note("fallback")
    return move


def advise(view: dict, rng=None) -> Advice:
    """The heuristic's move for ``view`` and the reason its rules gave for it."""
    why = Why()
    move = choose(view, rng, why=why)
    return Advice(move, why.reason or Reason("fallback"), "heuristic")


def _note(why: Why | None, move: str, code: str, **params) -> str:
    """``move``, with the reason noted when advice was asked for."""
    if why is not None:
        why.note(code, **params)
        why.move = move
    return move


def _choose(view: dict, moves: list[str], why: Why | None = None) -> str | None:
    kinds = {m.split()[0] for m in moves}
    if "bid" in kinds or "pass" in kinds:
        return choose_bid(view, moves, why)
    first = moves[0].split()[0]
    if first == "bury":
        return choose_bury(view, moves, why)
    if first == "call":
        return choose_call(view, moves, why)
    k = Knowledge(view)
    k.why = why
    if first == "pick":
        return choose_pick(k, moves)
    if view["trick"]:
        return choose_follow(k, moves)
    return choose_lead(k, moves)


# ------------------------------------------------------------------------------ knowledge
def decks_of(view: dict) -> int:
    """Packs in play: from the preset's rules (the view's game and options)."""
    try:
        return rules_of(view).decks
    except Exception:
        return greedy.decks_of(view)


class Knowledge:
    """What the seat can count from its view in the play phase."""

    def __init__(self, view: dict):
        self.view = view
        self.why: Why | None = None
        self.t: Trump = greedy.trump_of(view)
        self.me: int = view["seat"]
        self.n: int = view["players"]
        self.hand = greedy.hand_of(view)
        self.held = Counter(self.hand)
        self.decks = decks_of(view)
        self.pending = list(parse(" ".join(view.get("pending") or []))) \
            if view.get("pending") else []
        t = self.t
        self.played: Counter = Counter()
        self.voids: list[set[int]] = [set() for _ in range(self.n)]
        self.trump_pairs_gone: list[bool] = [False] * self.n
        tricks = [tr["plays"] for tr in view.get("tricks") or []]
        if view.get("trick"):
            tricks.append(view["trick"])
        for plays in tricks:
            lead_cards = None
            for seat, text in plays:
                cards = tuple(parse(text))
                self.played.update(cards)
                if lead_cards is None:
                    lead_cards = cards
                    continue
                suit = t.suit_of(lead_cards[0])
                followed = sum(1 for c in cards if t.suit_of(c) == suit)
                if followed < len(lead_cards):
                    self.voids[seat].add(suit)
        full = Counter({c: self.decks for c in range(54)})
        full.subtract(self.played)
        full.subtract(self.held)
        self.outside = Counter({c: k for c, k in full.items() if k > 0})
        self.out_suit = Counter(t.suit_of(c) for c in self.outside.elements())
        self.mates = greedy.partners(view)
        decl = view.get("declarer")
        self.declarer = decl
        if view.get("teams"):
            team = next(tm for tm in view["teams"] if decl in tm) if decl is not None else []
            self.on_declarer_side = self.me in team
            self.opponents = set(range(self.n)) - set(self.mates) - {self.me}
        else:
            side = {decl} | set(view.get("friends") or []) if decl is not None else set()
            self.on_declarer_side = self.me in side
            if self.on_declarer_side:
                calls = view.get("calls") or []
                if calls and len(view.get("friends") or []) >= len(calls):
                    self.opponents = set(range(self.n)) - side
                else:
                    self.opponents = set(range(self.n)) - side   # unknown seats count as foes
            else:
                self.opponents = side
        # seats that might hold the called friend cards are unknown: treated as not partners

    # -------------------------------------------------------------- counting facts
    def is_boss(self, cards) -> bool:
        """No unit left outside this hand beats ``cards`` (one unit) in its own suit."""
        t = self.t
        units = decompose(t, cards)
        suit = t.suit_of(cards[0])
        out = [c for c in self.outside.elements() if t.suit_of(c) == suit]
        if not out:
            return True
        if len(units) == 1 and units[0].width == 1:
            top = units[0].top
            return not any(t.position(c) > top for c in out)
        if len(units) == 1:
            return _unit_safe(t, units[0], out)
        return throw_check(t, list(cards), [out]) is None

    def ruff_danger(self, suit: int) -> bool:
        """Might an opponent trump a lead of this plain suit?"""
        if suit == TRUMP:
            return False
        if self.out_suit[TRUMP] == 0:
            return False
        for s in self.opponents:
            if suit in self.voids[s] and TRUMP not in self.voids[s]:
                return True
        return False

    def suit_len(self, suit: int) -> int:
        return sum(1 for c in self.hand if self.t.suit_of(c) == suit)


def _unit_safe(t: Trump, unit, out) -> bool:
    """Can no combination of the outside cards ``out`` (one suit) beat this one unit?"""
    counts = Counter(out)
    w, length = unit.width, unit.length
    ok = {t.position(c) for c, k in counts.items() if k >= w}
    if length == 1:
        return not any(p > unit.top for p in ok)
    for p in ok:
        if p > unit.top and all((p - i) in ok for i in range(length)):
            return False
    return True


# ------------------------------------------------------------------------------ bidding
def _trump_strength(hand, t: Trump) -> float:
    s = 0.0
    for c in hand:
        if not t.is_trump(c):
            continue
        if c >= BJ_CODE:
            s += 2.0
        elif (c >> 2) == t.level:
            s += 1.6
        else:
            s += 1.0 + 0.05 * t.position(c)
    return s


def choose_bid(view: dict, moves: list[str], why: Why | None = None) -> str:
    bids = [m for m in moves if m.startswith("bid ")]
    if not bids:
        return _note(why, "pass", "only_move")
    me = view["seat"]
    cur = view.get("bid")
    if cur is not None and cur["seat"] == me:
        return _note(why, max(bids, key=lambda m: len(m.split())), "bid_reinforce")
    if cur is not None and cur["seat"] in greedy.partners(view):
        return _note(why, "pass", "pass_partner_bid")
    hand = greedy.hand_of(view)
    n = len(hand)
    if n < 4:
        return _note(why, "pass", "pass_weak")
    level = LEVEL_RANK[view["level"]]
    final = sum(view["counts"]) + view.get("kitty_size", 0) >= 54 * decks_of(view) \
        or view["phase"] == "bury"
    # the strength of the current trump (if somebody else bid) for comparison
    best = None
    for m in bids:
        cards = parse(m[4:])
        c = cards[0]
        t = Trump(level, None if c >= BJ_CODE else c & 3)
        strength = _trump_strength(hand, t) / n
        need = 0.42 if not final else 0.34
        if c >= BJ_CODE:
            need += 0.05
        if cur is not None:
            need -= 0.04           # stopping an opponent's trump is worth something
        if strength < need:
            continue
        key = (strength, len(cards))
        if best is None or key > best[0]:
            best = (key, m)
    if best is None:
        return _note(why, "pass", "pass_weak")
    return _note(why, best[1], "bid_strong", cards=best[1][4:], share=round(100 * best[0][0]))


# ------------------------------------------------------------------------------ burying
def choose_bury(view: dict, moves: list[str], why: Why | None = None) -> str | None:
    """The next card of the bury plan, as its move; None should no card of the plan be among
    the moves (the guard then falls back)."""
    t = greedy.trump_of(view)
    hand = greedy.hand_of(view)
    left = view.get("kitty_size", 0) - len(view.get("buried") or [])
    left = max(1, left)
    plan = bury_plan(t, hand, left)
    cards = {parse(m.split(None, 1)[1])[0]: m for m in moves}
    for c in plan:
        if c in cards:
            if why is None:
                return cards[c]
            s = t.suit_of(c)
            rest = [x for x in hand if t.suit_of(x) == s and x not in plan]
            code = "bury_void" if not t.is_trump(c) and not rest else "bury_cheap"
            return _note(why, cards[c], code, cards=cards[c].split(None, 1)[1])
    return None


def _keep_value(t: Trump, c: int, counts: Counter, tops: dict) -> float:
    """How much a plain card is worth keeping (higher: keep)."""
    v = t.position(c) * 1.0
    v += 8 * card_points(c) / 5        # points in the kitty are at risk (x2 or more)
    if counts[c] >= 2:
        v += 12
    if t.position(c) == tops.get(t.suit_of(c)) and t.position(c) >= 10:
        v += 15                        # the suit's ace (king at level A)
    return v


def bury_plan(t: Trump, hand, k: int) -> list[int]:
    """The ``k`` cards to bury: void the short suits that are cheap to void, then the cheapest."""
    counts = Counter(hand)
    plain = [c for c in hand if not t.is_trump(c)]
    tops: dict[int, int] = {}
    for c in plain:
        s = t.suit_of(c)
        tops[s] = max(tops.get(s, -1), t.position(c))
    by_suit: dict[int, list[int]] = {}
    for c in plain:
        by_suit.setdefault(t.suit_of(c), []).append(c)
    suits = sorted(by_suit)
    value = {c: _keep_value(t, c, counts, tops) for c in set(plain)}
    best = None
    for mask in range(1 << len(suits)):
        chosen = [s for i, s in enumerate(suits) if mask >> i & 1]
        cards = [c for s in chosen for c in by_suit[s]]
        if len(cards) > k:
            continue
        rest = sorted((c for c in plain if t.suit_of(c) not in chosen),
                      key=lambda c: (value[c], c))
        fill = rest[:k - len(cards)]
        total = cards + fill
        cost = sum(value[c] for c in total) - 14 * len(chosen)
        if len(total) < k:         # trumps too: the lowest
            trumps = sorted((c for c in hand if t.is_trump(c)), key=lambda c: (t.position(c), c))
            total += trumps[:k - len(total)]
            cost += 1000
        if best is None or cost < best[0]:
            best = (cost, total)
    assert best is not None        # mask 0 (no suit voided) always fits
    plan = best[1]
    # the cheapest first, so that an interrupted plan keeps its intent
    return sorted(plan, key=lambda c: (t.is_trump(c), value.get(c, 99), c))


# ------------------------------------------------------------------------------ calling
def choose_call(view: dict, moves: list[str], why: Why | None = None) -> str:
    t = greedy.trump_of(view)
    hand = greedy.hand_of(view)
    held = Counter(hand)
    called = {c.split()[1] for c in view.get("calls") or []}
    suit_len = Counter(t.suit_of(c) for c in hand)

    def key(m):
        _, o, text = m.split()
        c = parse(text)[0]
        right = int(o) == held[c] + 1
        s = t.suit_of(c)
        return (not right, text in called, -t.position(c), suit_len[s] == 0, -suit_len[s],
                int(o), c)

    m = min(moves, key=key)
    return _note(why, m, "call_ace", cards=m.split()[2]) if why is not None else m


# ------------------------------------------------------------------------------ leading
def _cost(t: Trump, cards) -> tuple:
    return (sum(1 for c in cards if t.is_trump(c)), points(cards),
            sum(t.position(c) for c in cards))


def _breaks(k: Knowledge, cards) -> int:
    """How many pairs a play breaks (a single or odd card of a held pair)."""
    used = Counter(cards)
    return sum(1 for c, u in used.items() if k.held[c] >= 2 and u % 2 == 1)


def throw_plan(k: Knowledge) -> list[int] | None:
    """A safe throw: every boss unit of one plain suit (two units at least), or None."""
    t = k.t
    best = None
    outside = list(k.outside.elements())
    by_suit: dict[int, list[int]] = {}
    for c in k.hand:
        by_suit.setdefault(t.suit_of(c), []).append(c)
    for suit, cards in by_suit.items():
        if suit == TRUMP or k.ruff_danger(suit):
            continue
        out = [c for c in outside if t.suit_of(c) == suit]
        units = decompose(t, cards)
        good = [u for u in units if _unit_safe(t, u, out)]
        if len(good) < 2:
            continue
        throw = sorted(c for u in good for c in u.cards)
        if throw_check(t, throw, [out]) is not None:
            continue
        val = len(throw) * 3 + points(throw)
        if best is None or val > best[0]:
            best = (val, throw)
    return best[1] if best else None


def choose_lead(k: Knowledge, moves: list[str]) -> str:
    t = k.t
    if "play" in moves:                   # a throw in progress: finish the plan
        plan = throw_plan(k)
        if plan is None:
            return _note(k.why, "play", "throw_on")
        want = Counter(plan)
        want.subtract(k.pending)
        for m in moves:
            if m.startswith("throw "):
                c = parse(m[6:])[0]
                if want[c] > 0:
                    return _note(k.why, m, "throw_on")
        return _note(k.why, "play", "throw_on")
    units = [(m, tuple(parse(m))) for m in moves if m.split()[0] not in ("throw", "play")]
    plan = throw_plan(k)
    if plan is not None:
        single = [m for m, u in units if sorted(u) == plan]
        if single:
            return _note(k.why, single[0], "throw_boss", cards=single[0])
        return _note(k.why, "throw " + str(parse([plan[0]])), "throw_boss",
                     cards=str(parse(plan)))
    my_trumps = k.suit_len(TRUMP)
    out_trumps = k.out_suit[TRUMP]
    trump_control = my_trumps >= max(4, out_trumps * 0.6)
    best = None
    for m, u in units:
        code = None
        suit = t.suit_of(u[0])
        boss = k.is_boss(u)
        size = len(u)
        pts = points(u)
        if suit != TRUMP:
            danger = k.ruff_danger(suit)
            if boss and not danger:
                score = 100 + 12 * size + 2 * pts + t.position(u[-1]) * 0.1
                code = "lead_boss"
            else:
                code = "lead_short"
                # a low lead: short suits (to make a void), no points, no high cards
                score = 20 - 1.5 * k.suit_len(suit) - 2 * pts - 0.8 * max(t.position(c) for c in u)
                if size >= 2:
                    score += 4      # a pair keeps the opponents' pairs busy
                    code = "lead_pair"
                if danger:
                    score -= 15 + pts
                elif size == 1 and k.out_suit[TRUMP] and any(
                        suit in k.voids[m] and TRUMP not in k.voids[m] for m in k.mates):
                    score += 25 + 3 * pts   # the partner ruffs it (and keeps the points)
                    code = "lead_for_ruff"
                if k.out_suit[suit] == 0:
                    score -= 10     # nobody else can follow: a wasted card
        else:
            if boss and trump_control and out_trumps > 0:
                score = 60 + 10 * size - pts
                code = "draw_trumps"
            elif boss and out_trumps == 0:
                score = 5 - pts
                code = "cash_trumps"
            else:
                code = "lead_low_trump"
                score = -10 - 3 * pts - 0.5 * max(t.position(c) for c in u) - 2 * size
                if k.on_declarer_side and my_trumps > len(k.hand) / 2:
                    score += 8
        score -= 6 * _breaks(k, u)
        if best is None or score > best[0]:
            best = (score, m, code)
    if best is None:
        return moves[0]
    return _note(k.why, best[1], best[2], cards=best[1]) if k.why is not None else best[1]


# ---------------------------------------------------------------------------- following
def _trick(view: dict) -> list[tuple[int, tuple]]:
    return [(s, tuple(parse(text))) for s, text in view["trick"]]


def _holds(k: Knowledge, trick, w: int) -> bool:
    """Will play ``w`` of the trick probably keep it against the seats still to play?"""
    t = k.t
    n = k.n
    played = {s for s, _ in trick}
    rest = [s for s in range(n) if s not in played and s != k.me]
    foes = [s for s in rest if s not in k.mates]
    if not foes:
        return True
    win_cards = trick[w][1]
    lead = trick[0][1]
    suit = t.suit_of(lead[0])
    win_suit = t.suit_of(win_cards[0])
    outside = [c for c in k.outside.elements()]
    units = decompose(t, lead)
    if win_suit == suit:
        same = [c for c in outside if t.suit_of(c) == suit]
        # somebody beating within the suit
        if _could_beat(t, units, win_cards, same):
            return False
        if suit != TRUMP:
            for s in foes:
                if suit in k.voids[s] and TRUMP not in k.voids[s] and k.out_suit[TRUMP]:
                    return False
            if k.out_suit[suit] < len(foes) * len(lead) and k.out_suit[TRUMP] > 0:
                return False          # somebody probably runs out and may ruff
        return True
    # a ruff: can a foe over-ruff?
    trumps = [c for c in outside if t.suit_of(c) == TRUMP]
    if not trumps:
        return True
    if not any(suit in k.voids[s] for s in foes) and k.out_suit[suit] >= len(foes) * len(lead):
        return True
    return not _could_beat(t, units, win_cards, trumps)


def _could_beat(t: Trump, lead_units, win_cards, pool) -> bool:
    """Can a play formed from ``pool`` beat ``win_cards`` in the lead's shape?"""
    if not pool:
        return False
    m = match_format(t, lead_units, win_cards)
    if m is None:
        return True
    first = lead_units[0]
    unit = max((mu for lu, mu in zip(lead_units, m)
                if (lu.width, lu.length) == (first.width, first.length)), key=lambda u: u.top)
    if t.suit_of(pool[0]) != t.suit_of(win_cards[0]):
        return len(pool) >= first.size and _shape_exists(t, first, pool)
    return not _unit_safe(t, unit, pool)


def _shape_exists(t: Trump, unit, pool) -> bool:
    counts = Counter(pool)
    if unit.width == 1:
        return True
    pos = {t.position(c) for c, n in counts.items() if n >= unit.width}
    if unit.length == 1:
        return bool(pos)
    return any(all(p - i in pos for i in range(unit.length)) for p in pos)


def choose_follow(k: Knowledge, moves: list[str]) -> str:
    t = k.t
    view = k.view
    trick = _trick(view)
    plays = [c for _, c in trick]
    w = trick_winner(t, plays)
    winner = trick[w][0]
    lead = plays[0]
    suit = t.suit_of(lead[0])
    last = len(trick) == k.n - 1
    table = points(c for cs in plays for c in cs)
    options = [(m, tuple(parse(m))) for m in moves]
    if winner in k.mates and (last or _holds(k, trick, w)):
        # feed points, cheaply
        def feed(mu):
            u = mu[1]
            trumps = sum(1 for c in u if t.is_trump(c))
            return (trumps if suit != TRUMP else 0, -points(u), _breaks(k, u),
                    _boss_waste(k, u), sum(t.position(c) for c in u))
        m, u = min(options, key=feed)
        if k.why is not None:
            pts = points(u)
            if pts:
                return _note(k.why, m, "feed_partner", points=pts, cards=m)
            return _note(k.why, m, "feed_low", cards=m)
        return m
    me_idx = len(trick)
    winning = []
    for m, u in options:
        if trick_winner(t, plays + [u]) == me_idx:
            winning.append((m, u))
    if winning:
        scored = []
        for m, u in winning:
            trick2 = trick + [(k.me, u)]
            safe = last or _holds(k, trick2, me_idx)
            trumps = sum(1 for c in u if t.is_trump(c)) if suit != TRUMP else 0
            scored.append((m, u, safe, trumps))
        safe_ones = [x for x in scored if x[2]]
        pool = safe_ones or scored
        # among the winners: safe, fewest trumps, points added (when safe), low height
        m, u, safe, trumps = min(pool, key=lambda x: (x[3], -points(x[1]) if x[2] else points(x[1]),
                                                      _breaks(k, x[1]),
                                                      sum(t.position(c) for c in x[1])))
        worth = table + (points(u) if safe else 0)
        chase = not k.on_declarer_side          # defenders chase points
        if safe and (trumps == 0 or worth >= 10 or (worth >= 5 and chase)
                     or (k.on_declarer_side and worth > 0)):
            if k.why is not None and worth > 0:
                return _note(k.why, m, "win_points", points=worth, cards=m)
            return _note(k.why, m, "win_cheap", cards=m)
        if not safe and trumps == 0 and worth >= 10 and not last:
            return _note(k.why, m, "win_try", points=worth, cards=m)
    # lose cheaply
    def dump(mu):
        u = mu[1]
        trumps = sum(1 for c in u if t.is_trump(c)) if suit != TRUMP else 0
        short = sum(k.suit_len(t.suit_of(c)) for c in u if t.suit_of(c) != suit)
        return (trumps, points(u), _breaks(k, u), _boss_waste(k, u),
                sum(t.position(c) for c in u), short)
    m = min(options, key=dump)[0]
    return _note(k.why, m, "dump_cheap", cards=m)


def _boss_waste(k: Knowledge, cards) -> int:
    """Boss cards (plain aces and the like) spent: keep them to win tricks later."""
    t = k.t
    out = 0
    for c in set(cards):
        s = t.suit_of(c)
        if not any(t.suit_of(x) == s and t.position(x) > t.position(c) for x in k.outside):
            out += 1
    return out


# -------------------------------------------------------------------------------- picks
def choose_pick(k: Knowledge, moves: list[str]) -> str:
    t = k.t
    view = k.view
    trick = _trick(view)
    plays = [c for _, c in trick]
    lead = plays[0]
    suit = t.suit_of(lead[0])
    options = {m: parse(m.split(None, 1)[1])[0] for m in moves}
    w = trick_winner(t, plays)
    winner = trick[w][0]
    table = points(c for cs in plays for c in cs)
    mine = [c for c in k.hand if t.suit_of(c) == suit]
    last = len(trick) == k.n - 1
    if winner not in k.mates and suit != TRUMP and not mine and (table > 0 or last is False):
        ruff = greedy._ruff(t, k.hand, plays, len(lead))
        if ruff is not None and (table >= 5 or not k.on_declarer_side):
            left = Counter(ruff)
            left.subtract(k.pending)
            if all(v >= 0 for v in left.values()):
                for m, c in sorted(options.items(), key=lambda mc: t.position(mc[1])):
                    if left[c] > 0:
                        return _note(k.why, m, "ruff_points")
    feeding = winner in k.mates and (last or _holds(k, trick, w))

    def key(m):
        c = options[m]
        s = t.suit_of(c)
        return (t.is_trump(c), -card_points(c) if feeding else card_points(c),
                k.held[c] >= 2, _boss_waste(k, [c]), k.suit_len(s), t.position(c), c)
    m = min(options, key=key)
    if k.why is not None:
        code = "pick_points" if feeding and card_points(options[m]) else "pick_cheap"
        return _note(k.why, m, code, cards=m.split(None, 1)[1])
    return m
