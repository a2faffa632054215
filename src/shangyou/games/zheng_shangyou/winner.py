"""The "winner" rules of Zheng Shangyou (seed ``001_d7666c5d40e26a75.txt``).

Summary of the combinations, in our own words (see ``RULES.md``, ``zheng-shangyou/winner``):

* Order of single cards: rank 3 .. A, 2 (then BJ, RJ when jokers are used); equal ranks are
  split by suit, diamonds < clubs < hearts < spades. That is exactly the card integer, so a
  single's key is its card. Two identical cards (two packs) are equal.
* Pair and triple: cards of one rank, ranked by their highest card. Two identical jokers form a
  pair (above the 2s); jokers take part in nothing else except as a bomb's extra card.
* Consecutive pairs / consecutive triples: two or more pairs (triples) of adjacent ranks within
  3 .. A; they compare only with the same number of pairs (triples), by the highest card of the
  top pair (triple).
* Full house: a triple and a pair of another rank, ranked by the triple's highest card.
* Straight: ``min_straight`` or more cards in consecutive positions of the order
  A(low) 2 3 4 .. K A(high); a 2 is only ever low and nothing wraps round, so ``A 2 3 4 5`` is
  the lowest 5-card straight and ``K A 2 3 4`` is none. Straights compare only with straights of
  the same length: by the position of the lowest card, then by the suit of the top card (the
  suit step is dropped with ``straight_needs_higher_rank``). A one-suit straight is a straight
  flush instead.
* Bomb (tier 1): four cards of one rank (3 .. 2) with any one other card (``bomb="kicker"``), or
  the four alone (``bomb="quad"``). Beats every ordinary play; between bombs the quad's highest
  card decides, the extra card never matters.
* Straight flush (tier 2): a straight of one suit. Beats everything of lower tiers; between
  straight flushes only equal lengths compare, like straights.

Plays are distinct multisets of cards: since suits break ties, ``7D 7C`` and ``7H 7S`` are two
different pairs, while identical cards of two packs are interchangeable.

Hands are processed from per-rank tuples of held cards; the sub-multisets of one rank are cached,
so listing the plays of a 13-card hand is a few hundred microseconds.

``leads`` and ``follows`` ask the compiled core (``games/climbing/core.py``) when it is built and
on; ``leads_py`` and ``follows_py`` are the Python reference it is tested against.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from itertools import combinations

from ...cards import RANK_OF
from ..climbing import core
from ..climbing.combo import Combo
from ..climbing.family import CompiledFamily
from . import explain

SINGLE = "single"
PAIR = "pair"
TRIPLE = "triple"
PAIRS = "consecutive pairs"
TRIPLES = "consecutive triples"
FULL_HOUSE = "full house"
STRAIGHT = "straight"
BOMB = "bomb"
STRAIGHT_FLUSH = "straight flush"

KINDS = (SINGLE, PAIR, TRIPLE, PAIRS, TRIPLES, FULL_HOUSE, STRAIGHT, BOMB, STRAIGHT_FLUSH)
BOMB_MODES = ("kicker", "quad")

_SINGLE_CLS = ("single",)
_PAIR_CLS = ("pair",)
_TRIPLE_CLS = ("triple",)
_FULL_HOUSE_CLS = ("full house",)
_BOMB_CLS = ("bomb",)

ACE, TWO = 11, 12
#: rank index at each straight position: A(low)=0, 2=1, 3=2, ..., K=12, A(high)=13
POSITION_RANK = (ACE, TWO) + tuple(range(0, 11)) + (ACE,)
_TOP_POSITION = 13


@lru_cache(maxsize=None)
def _choices(cards: tuple, k: int) -> tuple:
    """The distinct k-card sub-multisets (sorted tuples) of one rank's sorted cards."""
    return tuple(dict.fromkeys(combinations(cards, k)))


@lru_cache(maxsize=None)
def _distinct(cards: tuple) -> tuple:
    """The distinct card values among sorted ``cards``."""
    return tuple(dict.fromkeys(cards))


def _by_rank(hand: Sequence[int]) -> list[tuple]:
    """Sorted tuple of held cards for each rank index 0..14."""
    by: list[list[int]] = [[] for _ in range(15)]
    for c in sorted(hand):
        by[RANK_OF[c]].append(c)
    return [tuple(x) for x in by]


def _not_one_suit(body: list, top: int, opts: list, s: int, p: int, top_free: bool):
    """``body + [top]`` rebound (lowest position first) so its cards are not all one suit."""
    suit = top & 3
    if any(c & 3 != suit for c in body):
        return body + [top]
    for q in range(s, p):
        for c in opts[q]:
            if c & 3 != suit:
                out = list(body)
                out[q - s] = c
                return out + [top]
    if top_free:  # the top card's suit does not matter either
        for c in opts[p]:
            if c & 3 != suit:
                return body + [c]
    return None


class WinnerFamily(CompiledFamily):
    """Combinations of the "winner" rules of Zheng Shangyou (seed 001).

    ``jokers`` only records whether the deck has jokers (jokers found in a hand are always
    handled as described above); ``min_straight`` is the shortest straight (3 to 13);
    ``straight_needs_higher_rank`` drops the suit tie-break between straights (and straight
    flushes) of equal rank; ``bomb`` is ``"kicker"`` (four of a kind plus one card) or ``"quad"``
    (four of a kind alone).
    """

    name = "winner"

    def __init__(self, jokers: bool = False, min_straight: int = 5,
                 straight_needs_higher_rank: bool = False, bomb: str = "kicker"):
        if bomb not in BOMB_MODES:
            raise ValueError(f"bomb must be 'kicker' or 'quad', not {bomb!r}")
        if isinstance(min_straight, bool) or not isinstance(min_straight, int) \
                or not 3 <= min_straight <= 13:
            raise ValueError(f"min_straight must be an integer from 3 to 13, not {min_straight!r}")
        self.jokers = bool(jokers)
        self.min_straight = min_straight
        self.straight_needs_higher_rank = bool(straight_needs_higher_rank)
        self.bomb = bomb
        self._singles = [Combo(SINGLE, _SINGLE_CLS, (c,), (c,), 0, SINGLE) for c in range(54)]

    KINDS_TEXT = ("single, pair, triple, consecutive pairs or triples, full house, straight, "
                  "bomb, straight flush", "单张、对子、三张、连对或连三张、三带二、顺子、炸弹、同花顺")

    def why_not_combo(self, cards: tuple):
        return explain.winner(self, cards)

    def why_tie(self, mine: Combo, last: Combo):
        return explain.winner_tie(mine, last)

    def beaters(self, last: Combo) -> tuple[str, str]:
        return explain.winner_beaters(last)

    def __repr__(self) -> str:
        return (f"WinnerFamily(jokers={self.jokers}, min_straight={self.min_straight}, "
                f"straight_needs_higher_rank={self.straight_needs_higher_rank}, "
                f"bomb={self.bomb!r})")

    # ------------------------------------------------------------------ public interface

    def core_leads(self, hand: Sequence[int]) -> list[Combo]:
        return core.winner_leads(self, hand)

    def core_follows(self, hand: Sequence[int], prev: Combo) -> list[Combo] | None:
        return core.winner_follows(self, hand, prev)

    def core_spec(self) -> tuple:
        return core.winner_spec(self)

    def leads_py(self, hand: Sequence[int]) -> list[Combo]:
        by = _by_rank(hand)
        held = sorted(set(hand))
        out = [self._singles[c] for c in held]
        self._sets(by, 2, out)
        self._sets(by, 3, out)
        self._runs(by, 2, out)
        self._runs(by, 3, out)
        self._full_houses(by, out)
        self._straights(by, out)
        self._bombs(by, held, out)
        self._flushes(set(held), out)
        return out

    def follows_py(self, hand: Sequence[int], prev: Combo) -> list[Combo]:
        tier = prev.tier
        if tier < 0:
            return self.leads_py(hand)
        if tier > 2:
            return []
        by = _by_rank(hand)
        held = sorted(set(hand))
        out: list[Combo] = []
        cls = prev.cls
        if tier == 0:
            self._same_class(by, held, cls, prev.key, out)
            self._bombs(by, held, out)
            self._flushes(set(held), out)
        elif tier == 1:
            if cls == _BOMB_CLS:
                self._bombs(by, held, out, above=prev.key[0])
            self._flushes(set(held), out)
        elif len(cls) == 2 and cls[0] == STRAIGHT_FLUSH and isinstance(cls[1], int):
            self._flushes(set(held), out, length=cls[1], above=prev.key)
        return out

    def combos(self, cards: Sequence[int]) -> list[Combo]:
        """The reading of exactly ``cards`` (no card set has two readings in this family)."""
        found = self.classify(cards)
        return [found] if found is not None else []

    def may_be_ambiguous(self, combo: Combo) -> bool:
        return False  # no wild cards: every card set has at most one reading

    def sort_key(self, card: int):
        return card

    # ------------------------------------------------------------------ classification

    def classify(self, cards: Sequence[int]) -> Combo | None:
        """The combination formed by exactly ``cards``, or ``None``."""
        cards = tuple(sorted(cards))
        n = len(cards)
        if n == 0:
            return None
        if n == 1:
            return self._singles[cards[0]]
        counts: dict[int, int] = {}
        for c in cards:
            r = RANK_OF[c]
            counts[r] = counts.get(r, 0) + 1
        ranks = sorted(counts)
        top_rank = ranks[-1]
        if len(ranks) == 1:
            if n == 2:  # two cards of one rank; for jokers only two identical ones exist
                return Combo(PAIR, _PAIR_CLS, (cards[-1],), cards, 0, PAIR)
            if top_rank > TWO:
                return None
            if n == 3:
                return Combo(TRIPLE, _TRIPLE_CLS, (cards[-1],), cards, 0, TRIPLE)
            if n == 4 and self.bomb == "quad":
                return Combo(BOMB, _BOMB_CLS, (cards[-1],), cards, 1, BOMB)
            if n == 5 and self.bomb == "kicker":  # two packs: the extra card shares the rank
                return Combo(BOMB, _BOMB_CLS, (cards[-1],), cards, 1, BOMB)
            return None
        if top_rank > TWO:  # jokers only as singles, pairs or a bomb's extra card
            if n == 5 and self.bomb == "kicker" and len(ranks) == 2 and counts[ranks[0]] == 4 \
                    and ranks[0] <= TWO:
                return self._bomb_of(cards, ranks[0])
            return None
        if n == 5 and len(ranks) == 2:
            low, high = counts[ranks[0]], counts[ranks[1]]
            if self.bomb == "kicker" and 4 in (low, high):
                return self._bomb_of(cards, ranks[0] if low == 4 else ranks[1])
            if {low, high} == {2, 3}:
                trip_rank = ranks[0] if low == 3 else ranks[1]
                top = max(c for c in cards if RANK_OF[c] == trip_rank)
                return Combo(FULL_HOUSE, _FULL_HOUSE_CLS, (top,), cards, 0, FULL_HOUSE)
        if len(ranks) >= 2 and top_rank <= ACE and ranks[-1] - ranks[0] == len(ranks) - 1:
            width = counts[ranks[0]]
            if width in (2, 3) and all(counts[r] == width for r in ranks):
                kind, tag = (PAIRS, "pairs") if width == 2 else (TRIPLES, "triples")
                return Combo(kind, (tag, len(ranks)), (cards[-1],), cards, 0, kind)
        if len(ranks) == n and self.min_straight <= n <= 13:
            return self._straight_of(cards, ranks)
        return None

    def _bomb_of(self, cards: tuple, rank: int) -> Combo:
        top = max(c for c in cards if RANK_OF[c] == rank)
        return Combo(BOMB, _BOMB_CLS, (top,), cards, 1, BOMB)

    def _straight_of(self, cards: tuple, ranks: list[int]) -> Combo | None:
        n = len(cards)
        # try the ace high first: when both readings work (13 cards) the higher one is taken
        for ace_pos in (_TOP_POSITION, 0):
            pos_of = {r: (ace_pos if r == ACE else 1 if r == TWO else r + 2) for r in ranks}
            lo, hi = min(pos_of.values()), max(pos_of.values())
            if hi - lo == n - 1:
                top = next(c for c in cards if pos_of[RANK_OF[c]] == hi)
                suits = {c & 3 for c in cards}
                key = (lo,) if self.straight_needs_higher_rank else (lo, top & 3)
                if len(suits) == 1:
                    return Combo(STRAIGHT_FLUSH, (STRAIGHT_FLUSH, n), key, cards, 2,
                                 STRAIGHT_FLUSH)
                return Combo(STRAIGHT, (STRAIGHT, n), key, cards, 0, STRAIGHT)
        return None

    # ------------------------------------------------------------------ generators

    def _same_class(self, by: list[tuple], held: list[int], cls: tuple, key: tuple,
                    out: list[Combo]) -> None:
        """The tier-0 plays of class ``cls`` whose key is above ``key``."""
        if cls == _SINGLE_CLS:
            above = key[0]
            singles = self._singles
            out.extend(singles[c] for c in held if c > above)
        elif cls == _PAIR_CLS:
            self._sets(by, 2, out, above=key[0])
        elif cls == _TRIPLE_CLS:
            self._sets(by, 3, out, above=key[0])
        elif cls == _FULL_HOUSE_CLS:
            self._full_houses(by, out, above=key[0])
        elif len(cls) == 2 and isinstance(cls[1], int):
            tag, length = cls
            if tag == "pairs":
                self._runs(by, 2, out, length=length, above=key[0])
            elif tag == "triples":
                self._runs(by, 3, out, length=length, above=key[0])
            elif tag == STRAIGHT:
                self._straights(by, out, length=length, above=key)

    def _sets(self, by: list[tuple], width: int, out: list[Combo], above: int = -1) -> None:
        """Pairs (width 2, jokers included) or triples (width 3) above card ``above``."""
        if width == 2:
            kind, cls, last = PAIR, _PAIR_CLS, 15
        else:
            kind, cls, last = TRIPLE, _TRIPLE_CLS, 13
        for r in range(last):
            rc = by[r]
            if len(rc) < width or rc[-1] <= above:
                continue
            for cards in _choices(rc, width):
                if cards[-1] > above:
                    out.append(Combo(kind, cls, (cards[-1],), cards, 0, kind))

    def _runs(self, by: list[tuple], width: int, out: list[Combo], length: int = 0,
              above: int = -1) -> None:
        """Consecutive pairs (width 2) or triples (width 3) within 3..A.

        With ``length`` only runs of that many ranks whose top card is above ``above``.
        """
        kind, tag = (PAIRS, "pairs") if width == 2 else (TRIPLES, "triples")
        opts = [_choices(by[r], width) if len(by[r]) >= width else () for r in range(ACE + 1)]
        for a in range(ACE):
            if not opts[a] or not opts[a + 1]:
                continue
            if length:
                top = a + length - 1
                if top > ACE:
                    break
                if by[top] and by[top][-1] <= above:
                    continue
                if not all(opts[r] for r in range(a + 2, top + 1)):
                    continue
                partial: Sequence[tuple] = opts[a]
                for r in range(a + 1, top):
                    partial = [p + q for p in partial for q in opts[r]]
                cls = (tag, length)
                for q in opts[top]:
                    if q[-1] > above:
                        key = (q[-1],)
                        for p in partial:
                            out.append(Combo(kind, cls, key, p + q, 0, kind))
            else:
                partial = opts[a]
                r = a
                while r < ACE and opts[r + 1]:
                    r += 1
                    partial = [p + q for p in partial for q in opts[r]]
                    cls = (tag, r - a + 1)
                    for cards in partial:
                        out.append(Combo(kind, cls, (cards[-1],), cards, 0, kind))

    def _full_houses(self, by: list[tuple], out: list[Combo], above: int = -1) -> None:
        pairs = [(r, _choices(by[r], 2)) for r in range(TWO + 1) if len(by[r]) >= 2]
        if len(pairs) < 2:
            return
        for t in range(TWO + 1):
            rc = by[t]
            if len(rc) < 3 or rc[-1] <= above:
                continue
            trips = [x for x in _choices(rc, 3) if x[-1] > above]
            for pr, pcs in pairs:
                if pr == t:
                    continue
                for x in trips:
                    key = (x[-1],)
                    for pc in pcs:
                        cards = pc + x if pr < t else x + pc
                        out.append(Combo(FULL_HOUSE, _FULL_HOUSE_CLS, key, cards, 0,
                                         FULL_HOUSE))

    def _max_length(self, start: int) -> int:
        """Longest straight from position ``start``: never both aces; a 13-card straight from
        the low ace is the same cards as the one from the 2, read with the ace high."""
        return 12 if start == 0 else _TOP_POSITION + 1 - start

    def _straights(self, by: list[tuple], out: list[Combo], length: int = 0,
                   above: tuple | None = None) -> None:
        """Plain (not one-suit) straights; with ``length`` only that length, key > ``above``.

        Only the top card's suit matters in a plain straight, so each straight is listed once
        per (positions, top card): the other cards are the lowest suits held, rebound if needed
        so that the cards are not all one suit (that would be a straight flush).
        """
        mn = self.min_straight
        rank_only = self.straight_needs_higher_rank
        opts = [_distinct(by[POSITION_RANK[p]]) for p in range(_TOP_POSITION + 1)]
        need = length or mn
        first = above[0] if above is not None else 0
        for s in range(first, _TOP_POSITION + 2 - need):
            if not opts[s]:
                continue
            maxn = self._max_length(s)
            if length:
                if length > maxn:
                    continue
                maxn = length
            n = 1
            p = s
            while n < maxn and opts[p + 1]:
                p += 1
                n += 1
                if n < mn or (length and n != length):
                    continue
                cls = (STRAIGHT, n)
                body = [opts[q][0] for q in range(s, p)]
                for top in (opts[p][:1] if rank_only else opts[p]):
                    key = (s,) if rank_only else (s, top & 3)
                    if above is not None and key <= above:
                        continue
                    cards = _not_one_suit(body, top, opts, s, p, rank_only)
                    if cards is not None:
                        out.append(Combo(STRAIGHT, cls, key, tuple(sorted(cards)), 0, STRAIGHT))

    def _flushes(self, held: set, out: list[Combo], length: int = 0,
                 above: tuple | None = None) -> None:
        """Straight flushes; with ``length`` only that length and key above ``above``."""
        mn = self.min_straight
        need = length or mn
        rank_only = self.straight_needs_higher_rank
        for suit in range(4):
            has = [POSITION_RANK[p] * 4 + suit in held for p in range(_TOP_POSITION + 1)]
            for s in range(_TOP_POSITION + 2 - need):
                if not has[s]:
                    continue
                key = (s,) if rank_only else (s, suit)
                if above is not None and key <= above:
                    continue
                maxn = self._max_length(s)
                if length:
                    if length > maxn:
                        continue
                    maxn = length
                n = 1
                p = s
                while n < maxn and has[p + 1]:
                    p += 1
                    n += 1
                    if n >= mn and (not length or n == length):
                        cards = tuple(sorted(POSITION_RANK[q] * 4 + suit
                                             for q in range(s, p + 1)))
                        out.append(Combo(STRAIGHT_FLUSH, (STRAIGHT_FLUSH, n), key, cards, 2,
                                         STRAIGHT_FLUSH))

    def _bombs(self, by: list[tuple], held: list[int], out: list[Combo],
               above: int = -1) -> None:
        """Bombs whose quad's highest card is above ``above``.

        With a kicker, the extra card is any other card of the hand; with two packs it may share
        the quad's rank, and such a five-card set is read with its highest four as the quad.
        """
        for r in range(TWO + 1):
            rc = by[r]
            if len(rc) < 4 or rc[-1] <= above:
                continue
            quads = _choices(rc, 4)
            if self.bomb == "quad":
                for q in quads:
                    if q[-1] > above:
                        out.append(Combo(BOMB, _BOMB_CLS, (q[-1],), q, 1, BOMB))
                continue
            others = [c for c in held if RANK_OF[c] != r]
            if len(rc) == 4:
                q = rc
                key = (q[-1],)
                if q[-1] > above:
                    for k in others:
                        cards = q + (k,) if k > q[-1] else (k,) + q
                        out.append(Combo(BOMB, _BOMB_CLS, key, cards, 1, BOMB))
                continue
            seen = set()
            values = _distinct(rc)
            for q in quads:
                same = [v for v in values if rc.count(v) > q.count(v)]
                for k in others + same:
                    cards = tuple(sorted(q + (k,)))
                    top = max(q[-1], k) if RANK_OF[k] == r else q[-1]
                    if top <= above or cards in seen:
                        continue
                    seen.add(cards)
                    out.append(Combo(BOMB, _BOMB_CLS, (top,), cards, 1, BOMB))
