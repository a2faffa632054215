"""Trumps, card order, adjacency and units of Sheng ji (seed ``003_0367b52b0c4da365.txt``;
RULES.md; docs/rules/sheng-ji.md).

A :class:`Trump` context is the level rank plus the trump suit (or none: no-trump). Given it,
every card has an *effective suit* (its own suit, or ``T`` for all trumps) and a *position* in
that suit: positions are consecutive exactly where cards are adjacent for tractors.

* Plain suit: 2 3 4 ... K A with the level rank removed (so with level 7, 6 and 8 are adjacent).
* Trumps (suit trump): the trump suit's plain cards (positions 0..11), then every off-suit level
  card (12: all equal, so two different off-suit level pairs are not adjacent), then the
  trump-suit level card (13), BJ (14), RJ (15).
* Trumps (no trump): the level cards (12, all equal), BJ (13), RJ (14); so a level pair and a
  BJ pair make a tractor.

Cards are the ints of :mod:`shangyou.cards` (rank index 0..11 = 3..A, 12 = 2; suits D C H S).
In Sheng ji 2 is the lowest rank of a suit; ``LEVELS`` lists the level ranks 2..A in order.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from ...cards import BJ_CODE, RJ_CODE, SUIT_NAMES, parse_card
from ...errors import NotationError

TRUMP = 4                      # the effective suit of all trumps (plain suits are 0..3)
RED_FIVE = 2 * 4 + 2           # the 5 of hearts (rank index 2, suit H)
FIVE, HEARTS = 2, 2            # the rank index of the 5, the suit index of hearts
# Sheng ji rank order within a suit: 2 < 3 < ... < A; our rank indices put 2 at 12
SJ_RANK = [(r + 1) % 13 for r in range(13)]          # rank index -> 0 (for 2) .. 12 (for A)
SJ_FIVE = SJ_RANK[FIVE]
LEVELS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
LEVEL_RANK = {name: (i - 1) % 13 for i, name in enumerate(LEVELS)}   # level name -> rank index


def red_five_code(red_five: bool, gap: str = "closed") -> int:
    """:attr:`Trump.red_five` for the options ``red_five`` and ``red_five_gap``."""
    return 0 if not red_five else 1 if gap == "closed" else 2


@dataclass(frozen=True)
class Trump:
    """The trump context: ``level`` a rank index (0..12, 12 = 2), ``suit`` 0..3 or None (NT)."""

    level: int
    suit: int | None
    red_five: int = 0          # option red_five: the 5 of hearts is the highest trump
    #                            (1; 2 with red_five_gap="open": its place stays a gap)

    @classmethod
    def parse(cls, text: str) -> Trump:
        """``"7C"``: level 7, clubs trump; ``"7"``: level 7, no trump; also ``"10H"``, ``"AS"``."""
        t = str(text).strip().upper()
        if t in LEVEL_RANK or t == "T":
            return cls(LEVEL_RANK["10" if t == "T" else t], None)
        try:
            c = parse_card(t)
        except NotationError:
            raise NotationError(f"bad trump {text!r}: expected a level rank (2..A) and "
                                "optionally a suit, e.g. '7C' or '7'") from None
        if c >= BJ_CODE:
            raise NotationError(f"bad trump {text!r}: a joker is not a level")
        return cls(c >> 2, c & 3)

    def __str__(self) -> str:
        level = LEVELS[SJ_RANK[self.level]]
        return level + ("" if self.suit is None else SUIT_NAMES[self.suit])

    # -------------------------------------------------------------- per-card facts
    def is_trump(self, c: int) -> bool:
        return c >= BJ_CODE or (c >> 2) == self.level or (c & 3) == self.suit or \
            (self.red_five > 0 and c == RED_FIVE)

    def suit_of(self, c: int) -> int:
        """Effective suit: 0..3 for plain suits, ``TRUMP`` for trumps."""
        return TRUMP if self.is_trump(c) else c & 3

    def position(self, c: int) -> int:
        """Order within the effective suit; adjacent cards have consecutive positions.

        With the red five (``red_five`` 1) the 5♥ leaves its place as the level cards leave
        theirs, and the gap closes: 4♥ and 6♥ are neighbours and, at level 5 with hearts
        trump, so are the off-suit 5s and the black joker (docs/rules/sheng-ji.md, *The red
        five*). ``red_five`` 2 (``red_five_gap="open"``) leaves the gap open."""
        closed = self.red_five == 1
        if self.red_five and c == RED_FIVE:
            return self.position(RJ_CODE) + 1
        top = 15 if self.suit is not None else 14          # RJ; BJ one below
        if closed and self.level == FIVE and self.suit == HEARTS:
            top -= 1                      # the trump-suit level card (5♥) is above the RJ
        if c == RJ_CODE:
            return top
        if c == BJ_CODE:
            return top - 1
        r = c >> 2
        if r == self.level:
            if self.suit is not None and (c & 3) == self.suit:
                return 13
            return 12
        sj = SJ_RANK[r]
        lv = SJ_RANK[self.level]
        p = sj - 1 if sj > lv else sj
        if closed and (c & 3) == HEARTS and self.level != FIVE and sj > SJ_FIVE:
            p -= 1                        # the 5♥'s place in hearts is closed
        return p

    def key(self, c: int) -> tuple[int, int]:
        """(effective suit, position): a sort key that groups a hand by suit, trumps last."""
        return (self.suit_of(c), self.position(c))

    def beats_card(self, c: int, over: int) -> bool:
        """Does card ``c`` beat card ``over`` (``over`` leading its suit)? Trump beats plain."""
        sc, so = self.suit_of(c), self.suit_of(over)
        if sc == so:
            return self.position(c) > self.position(over)
        return sc == TRUMP


@dataclass(frozen=True)
class Unit:
    """A single (width 1), an n-tuple of identical cards, or a tractor (length >= 2)."""

    width: int            # copies of each card (1 single, 2 pair, 3 triple ...)
    length: int           # number of consecutive tuples (1 unless a tractor)
    top: int              # position of the highest tuple
    cards: tuple          # sorted

    @property
    def size(self) -> int:
        return self.width * self.length

    @property
    def is_tractor(self) -> bool:
        return self.length >= 2

    def kind(self) -> str:
        if self.length >= 2:
            return "tractor"
        return {1: "single", 2: "pair", 3: "triple"}.get(self.width, f"{self.width}-tuple")


def groups(trump: Trump, cards) -> list[tuple[int, int, list[int]]]:
    """Identical cards grouped: [(position, count, [cards])], highest position first.

    Cards of equal position but different identity (off-suit level cards) stay apart.
    """
    by_card: Counter = Counter(cards)
    out = [(trump.position(c), n, [c] * n) for c, n in by_card.items()]
    out.sort(key=lambda g: (g[0], g[2][0]), reverse=True)
    return out


def decompose(trump: Trump, cards) -> list[Unit]:
    """The canonical units of cards of one effective suit: tractors as long as possible.

    Identical cards form a tuple of their full count; runs of tuples of the same width >= 2
    at consecutive positions form tractors (the longest runs). Largest units first.
    """
    gs = groups(trump, cards)
    units: list[Unit] = []
    used = [False] * len(gs)
    # tractors: consecutive positions, same width >= 2, one card identity per position
    by_pos: dict[tuple[int, int], list[int]] = {}
    for i, (pos, n, _) in enumerate(gs):
        if n >= 2:
            by_pos.setdefault((pos, n), []).append(i)
    for i, (pos, n, cs) in enumerate(gs):
        if used[i] or n < 2:
            continue
        # extend downwards from the highest unused tuple of this width
        run = [i]
        p = pos - 1
        while (p, n) in by_pos:
            nxt = [j for j in by_pos[(p, n)] if not used[j] and j not in run]
            if not nxt:
                break
            run.append(nxt[0])
            p -= 1
        if len(run) >= 2:
            for j in run:
                used[j] = True
            cards_ = sorted(c for j in run for c in gs[j][2])
            units.append(Unit(n, len(run), pos, tuple(cards_)))
    for i, (pos, n, cs) in enumerate(gs):
        if not used[i]:
            units.append(Unit(n, 1, pos, tuple(cs)))
    units.sort(key=lambda u: (u.size, u.width, u.top), reverse=True)
    return units


def tractors_in(trump: Trump, cards, width: int = 2) -> list[list[int]]:
    """Every maximal run (>= 2) of consecutive positions holding ``width`` identical cards:
    returned as lists of positions, for follow obligations."""
    pos_ok: dict[int, int] = {}
    for c, n in Counter(cards).items():
        if n >= width:
            pos_ok[trump.position(c)] = pos_ok.get(trump.position(c), 0) + 1
    runs: list[list[int]] = []
    for p in sorted(pos_ok):
        if runs and runs[-1][-1] == p - 1:
            runs[-1].append(p)
        else:
            runs.append([p])
    return [r for r in runs if len(r) >= 2]
