"""Cards, ranks, suits, jokers, decks and the notation of RULES.md.

A card is a small integer (``Card`` is an ``int`` subclass so it sorts and hashes as fast as
one): ``rank * 4 + suit`` for the 52 suited cards, 52 for the black joker and 53 for the red.
Rank indices follow the climbing order used by every Zheng Shangyou preset::

    0..11 = 3 4 5 6 7 8 9 10 J Q K A,   12 = 2,   13 = BJ,   14 = RJ

Suit indices follow the tie-break order of ``zheng-shangyou/winner`` (seed 001):
``D=0 < C=1 < H=2 < S=3``, so sorting cards as integers sorts them by rank, then suit.

Identical cards from several packs are the same value; a hand is a multiset (a sorted tuple).

>>> parse("7h 10S bj")
Cards('7H 10S BJ')
>>> str(parse("t♠ 2d"))
'10S 2D'
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from functools import lru_cache

from .errors import NotationError

RANK_NAMES = ("3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2", "BJ", "RJ")
SUIT_NAMES = ("D", "C", "H", "S")
# plural rank words, used for the readings of sets ("sevens"): never mistaken for a card
RANK_WORDS = ("threes", "fours", "fives", "sixes", "sevens", "eights", "nines", "tens", "jacks",
              "queens", "kings", "aces", "twos", "black jokers", "red jokers")
SUIT_SYMBOLS = ("♦", "♣", "♥", "♠")
TWO, BLACK_JOKER, RED_JOKER = 12, 13, 14
ACE = 11
D, C, H, S = 0, 1, 2, 3
BJ_CODE, RJ_CODE = 52, 53

_RANK_TOKENS = {name: i for i, name in enumerate(RANK_NAMES[:13])}
_RANK_TOKENS["T"] = 7
_SUIT_TOKENS = {"D": D, "C": C, "H": H, "S": S, "♦": D, "♣": C, "♥": H, "♠": S,
                "♢": D, "♧": C, "♡": H, "♤": S}


class Card(int):
    """One card. ``Card.parse("10h")``; ``str(card)`` is canonical (``"10H"``, ``"BJ"``)."""

    __slots__ = ()

    @property
    def rank(self) -> int:
        return RANK_OF[self]

    @property
    def suit(self) -> int | None:
        """Suit index (D=0, C=1, H=2, S=3); ``None`` for jokers."""
        return None if self >= BJ_CODE else self & 3

    @property
    def is_joker(self) -> bool:
        return self >= BJ_CODE

    def __str__(self) -> str:
        return CARD_TEXT[self]

    def __repr__(self) -> str:
        return f"Card('{CARD_TEXT[self]}')"

    @staticmethod
    def parse(token: str) -> Card:
        return parse_card(token)


CARD_TEXT: list[str] = [RANK_NAMES[c >> 2] + SUIT_NAMES[c & 3] for c in range(52)] + ["BJ", "RJ"]
RANK_OF: list[int] = [c >> 2 for c in range(52)] + [BLACK_JOKER, RED_JOKER]
SUIT_OF: list[int] = [c & 3 for c in range(52)] + [-1, -1]
CARDS: tuple[Card, ...] = tuple(Card(c) for c in range(54))
_BY_TEXT = {text: CARDS[c] for c, text in enumerate(CARD_TEXT)}


def card(rank: int, suit: int | None = None) -> Card:
    """The card of a rank index and suit index (jokers: rank 13 or 14, no suit)."""
    if rank == BLACK_JOKER:
        return CARDS[BJ_CODE]
    if rank == RED_JOKER:
        return CARDS[RJ_CODE]
    if suit is None:
        raise ValueError("a suited card needs a suit")
    return CARDS[rank * 4 + suit]


def parse_card(token: str) -> Card:
    """Parse one card token (case-insensitive, suit symbols allowed)."""
    t = token.strip().upper()
    hit = _BY_TEXT.get(t)
    if hit is not None:
        return hit
    if t in ("BJ", "RJ"):  # pragma: no cover - covered by _BY_TEXT
        return _BY_TEXT[t]
    if len(t) >= 2:
        rank = _RANK_TOKENS.get(t[:-1])
        suit = _SUIT_TOKENS.get(t[-1])
        if rank is not None and suit is not None:
            return CARDS[rank * 4 + suit]
    raise NotationError(f"bad card {token!r}: expected a rank 3-10/T/J/Q/K/A/2 and a suit "
                        "S/H/D/C (or ♠♥♦♣), or BJ/RJ for a joker")


class Cards(tuple):
    """A sequence of cards whose ``str`` is the notation (``"7H 2S 2D"``)."""

    __slots__ = ()

    def __str__(self) -> str:
        return " ".join(CARD_TEXT[c] for c in self)

    def __repr__(self) -> str:
        return f"Cards('{self}')"

    def sorted(self) -> Cards:
        return Cards(sorted(self))


def parse(text: str | Iterable) -> Cards:
    """Parse space- or comma-separated card notation; cards (or ints) pass through.

    Raises :class:`NotationError` naming the first bad token.
    """
    if isinstance(text, Cards):
        return text
    if isinstance(text, str):
        tokens = text.replace(",", " ").split()
        return Cards(parse_card(tok) for tok in tokens)
    out = []
    for item in text:
        if isinstance(item, str):
            out.append(parse_card(item))
        elif isinstance(item, int) and 0 <= item < 54:
            out.append(CARDS[item])
        else:
            raise NotationError(f"bad card {item!r}")
    return Cards(out)


def deck(packs: int = 1, jokers: bool = True) -> list[Card]:
    """All cards of ``packs`` packs, 54 each with jokers, 52 without."""
    if not 1 <= packs <= 4:
        raise ValueError(f"a deck has 1 to 4 packs, not {packs}")
    one = list(CARDS) if jokers else list(CARDS[:52])
    return one * packs


@lru_cache(maxsize=16)
def deck_counts(packs: int = 1, jokers: bool = True) -> tuple[int, ...]:
    """How many copies of each card code :func:`deck` holds, indexed by code."""
    counts = [0] * len(CARDS)
    for c in deck(packs, jokers):
        counts[c] += 1
    return tuple(counts)


def from_counts(counts) -> list[int]:
    """The cards of per-code ``counts`` (as :func:`deck_counts` gives), sorted; a count of 0
    or less gives none."""
    return [CARDS[c] for c, k in enumerate(counts) if k > 0 for _ in range(k)]


def shuffled_deck(rng: random.Random, packs: int = 1, jokers: bool = True) -> list[Card]:
    cards = deck(packs, jokers)
    rng.shuffle(cards)
    return cards


def counts_of(cards: Iterable[int]) -> list[int]:
    """Count vector (54 entries) of a multiset of cards."""
    counts = [0] * 54
    for c in cards:
        counts[c] += 1
    return counts


def rank_text(rank: int) -> str:
    return RANK_NAMES[rank]


def pretty(cards: Iterable[int]) -> str:
    """Cards with suit symbols (for display only; not parsed back canonically)."""
    out = []
    for c in cards:
        out.append(CARD_TEXT[c] if c >= BJ_CODE else RANK_NAMES[c >> 2] + SUIT_SYMBOLS[c & 3])
    return " ".join(out)
