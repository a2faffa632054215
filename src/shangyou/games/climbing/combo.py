"""Combinations ("combos") of climbing games and how they compare.

A *combo* is one reading of a set of cards: what the cards are played as. The same cards may
have several readings (``5H 6D BJ`` is 4-5-6 or 5-6-7 in the pagat game); each reading is its own
``Combo``. Comparison is data, not code:

* ``tier``: 0 for ordinary plays; bombs and their betters have higher tiers. A combo of a higher
  tier beats any combo of a lower tier.
* ``cls``: within a tier, combos compare only with combos of the same class (for example
  ``("set", 3)``: sets of three cards).
* ``key``: within a class, a strictly greater key beats; equal keys cannot beat each other.

Every game family builds its combos so that these three fields carry its rules. A family may
override who beats whom for special tiers by giving them a class of their own.
"""

from __future__ import annotations

from ...cards import CARD_TEXT, Cards


class Combo:
    """One reading of some cards. Immutable by convention; cheap to build."""

    __slots__ = ("kind", "cls", "key", "cards", "tier", "label")

    def __init__(self, kind: str, cls: tuple, key: tuple, cards: tuple, tier: int = 0,
                 label: str = ""):
        self.kind = kind      # display name of the combination type ("set", "sequence", ...)
        self.cls = cls        # comparison class
        self.key = key        # order within the class
        self.cards = cards    # the cards played, sorted
        self.tier = tier      # bombs and better
        self.label = label    # the reading, unique among the readings of the same cards

    def beats(self, other: Combo) -> bool:
        """May this combo be played on ``other``?"""
        if self.tier != other.tier:
            return self.tier > other.tier
        return self.cls == other.cls and self.key > other.key

    @property
    def text(self) -> str:
        return " ".join(CARD_TEXT[c] for c in self.cards)

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"Combo({self.kind} {self.label!r}: {self.text})"

    def __eq__(self, other) -> bool:
        return (isinstance(other, Combo) and self.cards == other.cards and self.cls == other.cls
                and self.key == other.key and self.tier == other.tier and self.label == other.label)

    def __hash__(self) -> int:
        return hash((self.cards, self.cls, self.key, self.label))

    def describe(self) -> str:
        """Human-readable reading, e.g. ``"sequence 4-6 (impure)"``."""
        if not self.label or self.label == self.kind:
            return self.kind
        return f"{self.kind} {self.label}"

    def as_cards(self) -> Cards:
        return Cards(self.cards)
