"""The greedy bot's play in Sheng ji (Tractor, Zhao Pengyou): simple rules, one per phase.

Like every bot it sees only a seat's view (a dict) and returns one of ``view["legal_moves"]``.

* **Deal** (and a kitty-theft round): bid with a level card of a suit holding at least about a
  quarter of the hand (three cards at least), or with a pair of jokers; reinforce its own bid;
  never overcall its partner; otherwise pass.
* **Bury**: the lowest plain (non-trump) cards, keeping point cards (5, 10, K), the top card of
  each suit and pairs, and emptying the shortest suits first.
* **Call** (Zhao Pengyou): the highest plain card it does not hold itself (``call 1 AS`` with no
  A♠, ``call 2 AS`` with one), a different card for each friend.
* **Lead**: a tractor or pair of a plain suit; else a plain single nobody can beat within its
  suit (an A, or a K once both... all As are gone); else its lowest card. It never throws.
* **Follow**: when its partner wins the trick (and will probably keep it), add points;
  when an opponent wins, take the trick with the cheapest winning play if there are points to
  take (or it costs no trump); otherwise the cheapest play (low cards, no points, no trumps).
* **Pick** (short of the led suit, choosing free cards one by one): the lowest plain non-point
  card; point cards for a partner; trumps to ruff a trick with points when that wins it.
"""

from __future__ import annotations

from collections import Counter

from ..cards import BJ_CODE, parse
from ..games.sheng_ji.order import LEVEL_RANK, TRUMP, Trump
from ..games.sheng_ji.tricks import trick_winner
from .guard import guarded

_POINTS = {2: 5, 7: 10, 10: 10}        # rank index -> points: 5, 10, K


def card_points(c: int) -> int:
    return _POINTS.get(c >> 2, 0) if c < BJ_CODE else 0


def points(cards) -> int:
    return sum(card_points(c) for c in cards)


def choose(view: dict, rng=None, strict: bool = False) -> str:
    """The greedy move for a Sheng ji view (always one of ``view["legal_moves"]``).

    A bot must never stop a game: should the rules above fail on an unforeseen view, it plays
    a random legal move instead (``strict``: raise, for tests).
    """
    return guarded("greedy", _choose, view, rng, strict)


def _choose(view: dict, moves: list[str]) -> str | None:
    kinds = {m.split()[0] for m in moves}
    if "bid" in kinds or "pass" in kinds:        # the deal, or a kitty-theft round
        return choose_bid(view, moves)
    first = moves[0].split()[0]
    if first == "bury":
        return choose_bury(view, moves)
    if first == "call":
        return choose_call(view, moves)
    if first == "pick":
        return choose_pick(view, moves)
    if "play" in moves:                     # a throw in progress (the bot never starts one)
        return "play"
    if view["trick"]:
        return choose_follow(view, moves)
    return choose_lead(view, moves)


# ------------------------------------------------------------------------------ helpers
def trump_of(view: dict) -> Trump:
    """The trump context; before the trump is named, the level with no trump suit."""
    if view.get("trump"):
        return Trump.parse(view["trump"])
    return Trump(LEVEL_RANK[view["level"]], None)


def hand_of(view: dict) -> list[int]:
    return list(parse(" ".join(view["hand"]))) if view["hand"] else []


def partners(view: dict) -> set[int]:
    """The seats known to be on this seat's side (itself excluded)."""
    me, n = view["seat"], view["players"]
    if view.get("teams"):
        for team in view["teams"]:
            if me in team:
                return set(team) - {me}
        return set()
    decl = view.get("declarer")
    if decl is None:
        return set()
    side = {decl} | set(view.get("friends") or [])
    if me in side:
        return side - {me}
    calls = view.get("calls") or []
    if calls and len(view.get("friends") or []) >= len(calls):
        return set(range(n)) - side - {me}   # every friend is known: the rest are with me
    return set()


def decks_of(view: dict) -> int:
    """Packs in play, from the cards the view can count."""
    total = sum(view["counts"]) + len(view.get("buried") or [])
    for tr in view.get("tricks") or []:
        for _, text in tr["plays"]:
            total += len(text.split())
    for _, text in view.get("trick") or []:
        total += len(text.split())
    if view["phase"] in ("call", "play"):
        total += view.get("kitty_size") or 0
    return max(1, round(total / 54))


def played_cards(view: dict) -> Counter:
    seen: Counter = Counter()
    for tr in view.get("tricks") or []:
        for _, text in tr["plays"]:
            seen.update(parse(text))
    for _, text in view.get("trick") or []:
        seen.update(parse(text))
    return seen


def _cost(t: Trump, cards) -> tuple:
    """How much a play gives away: trumps spent, points, then height."""
    return (sum(1 for c in cards if t.is_trump(c)), points(cards),
            sum(t.position(c) for c in cards), tuple(cards))


# ------------------------------------------------------------------------------ bidding
def choose_bid(view: dict, moves: list[str]) -> str:
    bids = [m for m in moves if m.startswith("bid ")]
    if not bids:
        return "pass"
    me = view["seat"]
    cur = view.get("bid")
    if cur is not None and cur["seat"] == me:       # reinforcing one's own bid is free
        return max(bids, key=lambda m: len(m.split()))
    if cur is not None and cur["seat"] in partners(view):
        return "pass"
    hand = hand_of(view)
    n = len(hand)
    best = None
    for m in bids:
        cards = parse(m[4:])
        c = cards[0]
        if c >= BJ_CODE:
            key = (0, len(cards), 0)               # a joker pair: no trump
        else:
            suit = c & 3
            k = sum(1 for x in hand if x < BJ_CODE and (x & 3) == suit)
            if k < 3 or 4 * k < n:
                continue
            key = (1, k, len(cards))
        if best is None or key > best[0]:
            best = (key, m)
    return best[1] if best else "pass"


# ------------------------------------------------------------------------------ burying
def bury_order(view: dict, cards) -> list[int]:
    """The hand's distinct cards, the best to bury first."""
    t = trump_of(view)
    hand = hand_of(view)
    counts = Counter(hand)
    suit_len = Counter(t.suit_of(c) for c in hand)
    tops: dict[int, int] = {}
    for c in hand:
        if not t.is_trump(c):
            s = t.suit_of(c)
            tops[s] = max(tops.get(s, -1), t.position(c))

    def key(c):
        if t.is_trump(c):
            return (1, t.position(c), 0, 0, 0, c)
        s = t.suit_of(c)
        top = t.position(c) == tops[s] and t.position(c) >= 10   # an A (or K at level A)
        return (0, card_points(c) > 0, top, counts[c] >= 2, suit_len[s], t.position(c), c)

    return sorted(set(cards), key=key)


def choose_bury(view: dict, moves: list[str]) -> str:
    cards = [parse(m.split(None, 1)[1])[0] for m in moves]
    best = bury_order(view, cards)[0]
    return next(m for m, c in zip(moves, cards) if c == best)


# ------------------------------------------------------------------------------ calling
def call_order(view: dict, moves: list[str]) -> list[str]:
    """Calls, the best first: the highest plain card not held (or held fewer times than packs),
    with the ordinal that skips one's own copies, a card not called yet."""
    t = trump_of(view)
    held = Counter(hand_of(view))
    called = {c.split()[1] for c in view.get("calls") or []}

    def key(m):
        _, o, text = m.split()
        c = parse(text)[0]
        right = int(o) == held[c] + 1
        return (not right, text in called, -t.position(c), held[c], int(o), c)

    return sorted(moves, key=key)


def choose_call(view: dict, moves: list[str]) -> str:
    return call_order(view, moves)[0]


# ------------------------------------------------------------------------------ leading
def _is_master(t: Trump, c: int, hand: Counter, seen: Counter, decks: int) -> bool:
    """No card of c's suit above it is left outside this hand."""
    s, p = t.suit_of(c), t.position(c)
    for x in range(52):
        if t.suit_of(x) == s and t.position(x) > p and seen[x] + hand[x] < decks:
            return False
    return True


def choose_lead(view: dict, moves: list[str]) -> str:
    t = trump_of(view)
    units = [(m, parse(m)) for m in moves if m.split()[0] not in ("throw", "play", "pick")]
    if not units:
        return moves[0]
    plain_multi = [(m, u) for m, u in units if len(u) >= 2 and not t.is_trump(u[0])]
    if plain_multi:
        return max(plain_multi, key=lambda mu: (len(mu[1]), max(t.position(c) for c in mu[1]),
                                                mu[1]))[0]
    hand = Counter(hand_of(view))
    seen = played_cards(view)
    decks = decks_of(view)
    singles = [(m, u[0]) for m, u in units if len(u) == 1]
    masters = [(m, c) for m, c in singles
               if not t.is_trump(c) and _is_master(t, c, hand, seen, decks)]
    if masters:
        return max(masters, key=lambda mc: (card_points(mc[1]), t.position(mc[1]), mc[1]))[0]
    if singles:
        return min(singles, key=lambda mc: (t.is_trump(mc[1]), card_points(mc[1]) > 0,
                                            t.position(mc[1]), mc[1]))[0]
    return min(units, key=lambda mu: _cost(t, mu[1]))[0]


# ---------------------------------------------------------------------------- following
def _trick(view: dict) -> list[tuple[int, tuple]]:
    return [(s, tuple(parse(text))) for s, text in view["trick"]]


def _safe(t: Trump, play, seen: Counter, hand: Counter, decks: int) -> bool:
    """Is a winning play likely to hold: a trump, or plain cards nobody can top in the suit."""
    if all(t.is_trump(c) for c in play):
        return True
    return all(_is_master(t, c, hand, seen, decks) for c in play if not t.is_trump(c))


def choose_follow(view: dict, moves: list[str]) -> str:
    t = trump_of(view)
    trick = _trick(view)
    plays_so_far = [cards for _, cards in trick]
    w = trick_winner(t, plays_so_far)
    winner = trick[w][0]
    mates = partners(view)
    last = len(trick) == view["players"] - 1
    table = points(c for cards in plays_so_far for c in cards)
    options = [(m, parse(m)) for m in moves]
    if winner in mates:
        hand = Counter(hand_of(view))
        if last or _safe(t, plays_so_far[w], played_cards(view), hand, decks_of(view)):
            # feed points, without spending trumps for it
            return min(options, key=lambda mu: (sum(1 for c in mu[1] if t.is_trump(c)),
                                                -points(mu[1]), _cost(t, mu[1])))[0]
        return min(options, key=lambda mu: _cost(t, mu[1]))[0]
    winning = [(m, u) for m, u in options if trick_winner(t, plays_so_far + [u]) == len(trick)]
    if winning:
        m, u = min(winning, key=lambda mu: (sum(1 for c in mu[1] if t.is_trump(c)),
                                            sum(t.position(c) for c in mu[1]),
                                            -points(mu[1]), mu[1]))
        spends_trump = any(t.is_trump(c) for c in u) and not t.is_trump(plays_so_far[0][0])
        if table > 0 or not spends_trump:      # ruff only for points already on the table
            return m
    return min(options, key=lambda mu: _cost(t, mu[1]))[0]


# -------------------------------------------------------------------------------- picks
def choose_pick(view: dict, moves: list[str]) -> str:
    t = trump_of(view)
    trick = _trick(view)
    plays_so_far = [cards for _, cards in trick]
    lead = plays_so_far[0]
    suit = t.suit_of(lead[0])
    hand = hand_of(view)
    pending = list(parse(" ".join(view.get("pending") or []))) if view.get("pending") else []
    options = {m: parse(m.split(None, 1)[1])[0] for m in moves}
    winner = trick[trick_winner(t, plays_so_far)][0]
    table = points(c for cards in plays_so_far for c in cards)
    mates = partners(view)
    mine = [c for c in hand if t.suit_of(c) == suit]
    if winner not in mates and table > 0 and not mine and suit != TRUMP:
        ruff = _ruff(t, hand, plays_so_far, len(lead))
        if ruff is not None:
            left = Counter(ruff)
            left.subtract(pending)
            if all(v >= 0 for v in left.values()):
                for m, c in sorted(options.items(), key=lambda mc: t.position(mc[1])):
                    if left[c] > 0:
                        return m
    if winner in mates:
        return min(options, key=lambda m: (t.is_trump(options[m]), -card_points(options[m]),
                                           t.position(options[m])))
    return min(options, key=lambda m: (t.is_trump(options[m]), card_points(options[m]) > 0,
                                       t.position(options[m]), options[m]))


def _ruff(t: Trump, hand, plays_so_far, n: int) -> tuple | None:
    """A cheap all-trump play of ``n`` cards that takes the trick, or None."""
    trumps = sorted((c for c in hand if t.is_trump(c)), key=t.position)
    if len(trumps) < n:
        return None
    counts = Counter(trumps)
    pairs = sorted((c for c, k in counts.items() if k >= 2), key=t.position)
    candidates = [tuple(trumps[:n]), tuple(trumps[-n:])]
    for i in range(len(pairs)):          # low pairs first, then the lowest singles
        chosen: list[int] = []
        for c in pairs[i:]:
            if len(chosen) + 2 <= n:
                chosen += [c, c]
        rest = Counter(trumps)
        rest.subtract(chosen)
        chosen += sorted(rest.elements(), key=t.position)[:n - len(chosen)]
        candidates.append(tuple(chosen))
    for cand in sorted(set(candidates), key=lambda cs: sum(t.position(c) for c in cs)):
        if len(cand) == n and trick_winner(t, plays_so_far + [cand]) == len(plays_so_far):
            return cand
    return None
