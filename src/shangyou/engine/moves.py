"""Moves: every decision of every game is one of these small value objects.

``str(move)`` is the move's text; ``game.apply`` accepts the move or its text. Texts:

* ``pass``
* a play: the cards, e.g. ``7H 7S 2D``; when the same cards can be read in several ways and this is
  not the default (first) reading, the reading follows ``as``: ``5H 6D BJ as 4-6``.
* exchange steps: ``give 2S`` (show/give your highest card), ``take 2S`` (take one of the cards
  on offer), ``discard 3H`` (put an unwanted card up for the other side), ``offer 3H 4D``.
* steps of a choice among very many plays (climbing games, ``games/climbing/steps.py``):
  ``choose 6 multiple sequence 3-5x2`` (the kind and ranks of the play), ``pick 2H`` (a card).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..cards import CARD_TEXT, Cards
from ..games.climbing.combo import Combo

if TYPE_CHECKING:
    from ..games.climbing.family import Family

PLAY, PASS, GIVE, TAKE, DISCARD, OFFER = "play", "pass", "give", "take", "discard", "offer"
CHOOSE, PICK = "choose", "pick"


class Move:
    __slots__ = ("kind", "cards", "combo", "_text", "family", "token")
    kind: str
    cards: tuple
    combo: Combo | None
    _text: str | None
    family: Family | None
    token: object | None

    def __init__(self, kind: str, cards: tuple = (), combo: Combo | None = None,
                 text: str | None = None, family: Family | None = None,
                 token: object | None = None):
        self.kind = kind
        self.cards = cards
        self.combo = combo
        self._text = text
        self.family = family  # for plays: decides lazily whether the text needs "as <reading>"
        self.token = token    # set by the game that listed this move as legal in its state

    @classmethod
    def play(cls, combo: Combo, family: Family | None = None) -> Move:
        return cls(PLAY, combo.cards, combo, None, family)

    def __str__(self) -> str:
        if self._text is None:
            if self.kind == PASS:
                self._text = "pass"
            elif self.kind == PLAY:
                text = " ".join([CARD_TEXT[c] for c in self.cards])
                # a family is given with the combo it reads the cards as (climbing plays)
                fam, combo = self.family, self.combo
                if fam is not None and combo is not None and fam.may_be_ambiguous(combo):
                    default = fam.default_label(tuple(self.cards))
                    if default is not None and default != combo.label:
                        text += " as " + combo.label
                self._text = text
            else:
                self._text = self.kind + " " + " ".join(CARD_TEXT[c] for c in self.cards)
        return self._text

    def __repr__(self) -> str:
        return f"Move({str(self)!r})"

    def __eq__(self, other) -> bool:
        if isinstance(other, str):
            return str(self) == other
        return isinstance(other, Move) and str(self) == str(other)

    def __hash__(self) -> int:
        return hash(str(self))

    @property
    def is_pass(self) -> bool:
        return self.kind == PASS

    def as_cards(self) -> Cards:
        return Cards(self.cards)


PASS_MOVE = Move(PASS, (), None, "pass")
