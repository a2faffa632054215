"""Moves: every decision of every game is one of these small value objects.

``str(move)`` is the move's text; ``game.apply`` accepts the move or its text. Texts:

* ``pass``
* a play: the cards, e.g. ``7H 7S 2D``; when the same cards can be read in several ways and this is
  not the default (first) reading, the reading follows ``as``: ``5H 6D BJ as 4-6`` (written by
  the game: ``move.family.play_text(move)``).
* exchange steps: ``give 2S`` (show/give your highest card), ``take 2S`` (take one of the cards
  on offer), ``discard 3H`` (put an unwanted card up for the other side), ``offer 3H 4D``.
* steps of a choice among very many plays (climbing games, ``games/climbing/steps.py``):
  ``choose 6 multiple sequence 3-5x2`` (the kind and ranks of the play), ``pick 2H`` (a card).
"""

from __future__ import annotations

from typing import Any, Protocol

from ..cards import CARD_TEXT, Cards

PLAY, PASS, GIVE, TAKE, DISCARD, OFFER = "play", "pass", "give", "take", "discard", "offer"
CHOOSE, PICK = "choose", "pick"


class PlayReader(Protocol):
    """What writes a play's text when its cards alone may not say how the game reads them (the
    climbing families: ``games/climbing/family.py``)."""

    def play_text(self, move: Move) -> str: ...


class Move:
    """One decision: its ``kind``, its ``cards``, and what the game makes of them.

    The engine looks only at ``kind``, ``cards`` and the text. ``combo`` is the game's reading
    of the cards, opaque here (the climbing games put a ``Combo`` in it; other games leave it
    None); ``family`` (a :class:`PlayReader`) writes the text of a play that has it; ``token``
    marks the listing of legal moves the move came from. The compiled cores make and read Move
    objects by these six slots, in this order: keep them.
    """

    __slots__ = ("kind", "cards", "combo", "_text", "family", "token")
    kind: str
    cards: tuple
    combo: Any
    _text: str | None
    family: PlayReader | None
    token: object | None

    def __init__(self, kind: str, cards: tuple = (), combo: Any = None,
                 text: str | None = None, family: PlayReader | None = None,
                 token: object | None = None):
        self.kind = kind
        self.cards = cards
        self.combo = combo
        self._text = text
        self.family = family  # for plays: writes the text lazily (it may need "as <reading>")
        self.token = token    # set by the game that listed this move as legal in its state

    def __str__(self) -> str:
        if self._text is None:
            if self.kind == PASS:
                self._text = "pass"
            elif self.kind == PLAY:
                reader = self.family
                if reader is not None and self.combo is not None:
                    self._text = reader.play_text(self)
                else:
                    self._text = " ".join([CARD_TEXT[c] for c in self.cards])
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
