"""The interface every climbing-game combination family implements.

A *family* knows which card groups form combinations and how they compare: the pagat rules,
the "winner" rules and the Owen rules of Zheng Shangyou are three families, Zheng Fen a fourth.
Everything else (turns, passes, tricks, finishing order, exchange, scoring) lives in the engine
and is shared.

Contract (the generic random-playout test checks it for every preset):

* ``leads(hand)`` lists every distinct play a player holding ``hand`` may lead, each once.
  Cards interchangeable under the family's rules (identical cards of several packs; suits where
  the family ignores them) are bound canonically, so such plays appear once.
* ``follows(hand, prev)`` lists exactly the plays of ``leads(hand)`` that beat ``prev`` (up to the
  same canonical binding), usually generated directly for speed.
* ``combos(cards)`` lists every reading of exactly these cards, highest first; each reading's
  ``label`` is unique among them. The first one is the default reading.
* Every combo's ``cards`` are sorted.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol

from ...cards import CARD_TEXT
from ...engine.memo import make_room
from ...engine.moves import PLAY, Move
from . import core
from .combo import Combo


class Family:
    """Base class with generic (correct, unoptimised) defaults."""

    name = "family"

    def leads(self, hand: Sequence[int]) -> list[Combo]:  # pragma: no cover - abstract
        raise NotImplementedError

    def follows(self, hand: Sequence[int], prev: Combo) -> list[Combo]:
        return [c for c in self.leads(hand) if c.beats(prev)]

    def play_moves(self, hand: Sequence[int], last: Combo | None, token, limit: int = 0):
        """The game's legal moves in one step (``ClimbingGame._play_moves``), where a family
        can make them faster than from its combos (a sequence of the same moves, in the same
        order); None: the game makes them. ``limit`` > 0: False where there are more plays
        than that (nothing listed)."""
        return

    def combos(self, cards: Sequence[int]) -> list[Combo]:
        """All readings of exactly ``cards``: the leads of that hand that use every card.

        A pure function of the family's options and the cards, so it is memoised (shared by
        every family object with the same options)."""
        cards = tuple(sorted(cards))
        key = (self.options_key(), cards)
        found = _READINGS.get(key)
        if found is None:
            found = self._readings(cards)
            found.sort(key=reading_order, reverse=True)
            make_room(_READINGS, _READINGS_MAX)
            _READINGS[key] = found = tuple(found)
        return list(found)

    def _readings(self, cards: tuple) -> list[Combo]:
        """The readings of exactly ``cards`` (sorted), in any order: the leads of that hand
        that use every card."""
        n = len(cards)
        return [c for c in self.leads(cards) if len(c.cards) == n and c.cards == cards]

    def default_label(self, cards: tuple):
        """The label of the default (first) reading of these sorted cards, or None if they
        form no combination; memoised like :meth:`combos`."""
        key = (self.options_key(), cards)
        label = _DEFAULT_LABEL.get(key, _MISSING)
        if label is _MISSING:
            readings = self.combos(cards)
            label = readings[0].label if readings else None
            make_room(_DEFAULT_LABEL, _READINGS_MAX)
            _DEFAULT_LABEL[key] = label
        return label

    def options_key(self) -> tuple:
        """The family's class and public options: families with equal keys play alike."""
        key = self.__dict__.get("_options_key")
        if key is None:
            key = (type(self).__qualname__,) + tuple(
                sorted((k, v) for k, v in vars(self).items() if not k.startswith("_")))
            self._options_key = key
        return key

    def sort_key(self, card: int):
        """Order for displaying a hand (low to high)."""
        return card

    def may_be_ambiguous(self, combo: Combo) -> bool:
        """False when ``combo``'s cards surely have one reading (saves re-reading them)."""
        return True

    def play_text(self, move: Move) -> str:
        """The text of a play read as ``move.combo`` (the engine's Move asks, once per move):
        its cards, then ``as <label>`` when the cards have several readings and this is not
        the default (first) one, e.g. ``5H 6D BJ as 4-6``."""
        text = " ".join([CARD_TEXT[c] for c in move.cards])
        combo = move.combo
        if self.may_be_ambiguous(combo):
            default = self.default_label(tuple(move.cards))
            if default is not None and default != combo.label:
                text += " as " + combo.label
        return text

    def precious(self, card: int) -> bool:
        """Cards a simple player keeps for later: wild cards, or the top singles."""
        return card >= 48  # 2s and jokers

    def beat_levels(self, hands: Sequence[Sequence[int]], prev: Combo, per: int = 1) -> bytes:
        """For each group of ``per`` hands (one sampled deal of the opponents' hands), the
        best its hands do against ``prev``: 2 when one can beat it without its precious
        cards, 1 when one can only with them, 0 when none can (a hand of fewer cards cannot).
        What the heuristic asks of its samples (``climbing_heuristic.combo_cost``). The
        reference; a compiled family answers in one call."""
        groups = len(hands) // per if per > 0 else 0
        out = bytearray(groups)
        need = len(prev.cards)
        precious = self.precious
        for i in range(groups):
            for h in hands[i * per:(i + 1) * per]:
                if len(h) < need:
                    continue
                plain = [c for c in h if not precious(c)]
                if self.follows(plain, prev):
                    out[i] = 2
                    break
                if not out[i] and len(plain) < len(h) and self.follows(h, prev):
                    out[i] = 1
        return bytes(out)

    def card_strength(self, card: int):
        """How high a single card is, for "give your highest card" (equal values: any of them)."""
        return card

    # ------------------------------------------------ explanations of a refusal (explain.py)
    #: the kinds of play of the family, in English and Chinese, for "matches none of them"
    KINDS_TEXT = ("single, set, sequence", "单张、同点牌、顺子")

    def why_not_combo(self, cards: tuple):
        """The rule these sorted cards break (a :class:`~shangyou.games.why.Why`), when they
        form no combination; None: :func:`.explain.not_combination` lists the kinds."""
        return None

    def beaters(self, last: Combo) -> tuple[str, str]:
        """What may beat ``last``, a play of a higher tier (a bomb), in English and Chinese."""
        return f"a higher {last.kind}", f"更大的{last.kind}"

    def why_tie(self, mine: Combo, last: Combo) -> str | None:
        """The code of the rule by which ``mine``, of ``last``'s class but not higher, loses
        to it where their main rank is equal (purity, suits, length), or None."""
        return None



def play_move(combo: Combo, family: Family | None = None, token: object | None = None) -> Move:
    """The engine's Move of a play read as ``combo``; with ``family``, its text says the reading
    when that is not the default one (:meth:`Family.play_text`)."""
    return Move(PLAY, combo.cards, combo, None, family, token)


_READINGS: dict = {}
_DEFAULT_LABEL: dict = {}
_MISSING = object()
_READINGS_MAX = 200_000
#: from this many cards on, a compiled family finds the readings of a set of cards by counting
#: its leads in the core rather than listing them (CompiledFamily._readings)
READINGS_COUNTED = 8


class CompiledFamily(Family):
    """A family whose plays the compiled core lists when it is built (``games/climbing/core.py``).
    ``leads_py``/``follows_py`` are the Python reference and the fallback: for ``SHANGYOU_NO_C=1``,
    without the module, and for a hand the core refuses (``ValueError``: more copies of a card
    than its packs allow) or a follow it leaves to Python (``None``).

    The game's legal moves come from the core in one call (``play_moves``, with the family's
    ``core_spec``): a ``Plays`` sequence, whose Move objects are made only when an item is
    asked for; where it answers None (a play to beat it does not describe) or refuses the
    hand, the game makes them from ``leads`` / ``follows``."""

    def core_leads(self, hand: Sequence[int]) -> list[Combo]:  # pragma: no cover - abstract
        raise NotImplementedError

    def core_follows(self, hand: Sequence[int], prev: Combo) -> list[Combo] | None:
        raise NotImplementedError  # pragma: no cover - abstract

    def core_spec(self) -> tuple:  # pragma: no cover - abstract
        """What the core's ``family_moves`` needs to list this family's plays (core.py)."""
        raise NotImplementedError

    def leads_py(self, hand: Sequence[int]) -> list[Combo]:  # pragma: no cover - abstract
        raise NotImplementedError

    def play_moves(self, hand: Sequence[int], last: Combo | None,
                   token, limit: int = 0) -> Sequence[Move] | None | bool:
        if core.ACTIVE:
            spec = self.__dict__.get("_core_spec")
            if spec is None:
                spec = self._core_spec = self.core_spec()
            try:
                if limit:
                    return core.family_moves(spec, self, hand, last, token, limit)
                return core.family_moves(spec, self, hand, last, token)
            except ValueError:
                pass
        return None

    def _readings(self, cards: tuple) -> list[Combo]:
        """As :meth:`Family._readings`; for many cards the core counts the leads of ``cards``
        by code (``core.steps_list``, which makes one play per code and no other) rather than
        listing them: a 36-card two-pack hand has millions of leads, and every reading of
        all its cards is the only play of its code that uses them all."""
        n = len(cards)
        if n >= READINGS_COUNTED and core.ACTIVE and core.steps_list is not None:
            try:
                got = core.steps_list(0, self, list(cards), None, None)
            except ValueError:                  # a hand the core refuses: Python lists it
                got = None
            if got is not None:
                firsts = got[0] if type(got) is tuple else got
                out = []
                for f in firsts:
                    c = getattr(f, "combo", f)
                    if c is not None and len(c.cards) == n and tuple(c.cards) == cards:
                        out.append(c)
                return out
        return Family._readings(self, cards)

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state.pop("_core_spec", None)      # made again when needed (it holds memo tables)
        return state

    def follows_py(self, hand: Sequence[int], prev: Combo) -> list[Combo]:
        return Family.follows(self, hand, prev)

    def leads(self, hand: Sequence[int]) -> list[Combo]:
        if core.ACTIVE:
            try:
                return self.core_leads(hand)
            except ValueError:
                pass
        return self.leads_py(hand)

    def core_planner(self, hands: Sequence[Sequence[int]], samples: int, params: tuple):
        """The heuristic's plan of this family's hands in the core (``hands``: ``samples``
        sampled deals of the opponents' hands, sample after sample; ``plan(hand)`` answers
        as ``Heuristic.plan``), or None: the heuristic plans in Python. For hands of one
        pack, while the core is on."""
        return None

    def core_beat_levels(self, hands: Sequence[Sequence[int]], prev: Combo,
                         per: int) -> bytes | None:
        """:meth:`beat_levels` in the core, or None: the reference answers."""
        return None

    def beat_levels(self, hands: Sequence[Sequence[int]], prev: Combo, per: int = 1) -> bytes:
        if core.ACTIVE and per > 0:
            try:
                got = self.core_beat_levels(hands, prev, per)
            except ValueError:          # a hand the core refuses: the reference reads it
                got = None
            if got is not None:
                return got
        return Family.beat_levels(self, hands, prev, per)

    def follows(self, hand: Sequence[int], prev: Combo) -> list[Combo]:
        if core.ACTIVE:
            try:
                got = self.core_follows(hand, prev)
            except ValueError:
                got = None
            if got is not None:
                return got
        return self.follows_py(hand, prev)


class PointFamily(Protocol):
    """A family of a game that counts card points (``scoring="trick-points"``: Zheng Fen)."""

    def points(self, cards: Iterable[int]) -> int: ...


def reading_order(combo: Combo):
    """Highest reading first: tier, then class name, then key (deterministic across classes)."""
    return (combo.tier, combo.cls, combo.key)
