"""What every game's state machine shares: seed and log, replay equality, clone, public view.

The seed is an int (Mersenne Twister: reproducible research deals) or a 64-hex secret
(:class:`~shangyou.engine.deal.DealRandom`: deals nobody can predict); see :mod:`.deal`.
Every shuffle leaves a :class:`~shangyou.engine.deal.Deal` in ``deals``.

A game subclasses :class:`GameBase`, calls ``super().__init__`` and implements ``view(seat)``,
``snapshot()``, ``legal_moves()`` and ``apply()``; ``PRIVATE_VIEW_KEYS`` names the view keys
that belong to one seat only (``public_view`` drops them).
"""

from __future__ import annotations

import copy
import random
import weakref
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Self, TypeGuard

from ..errors import IllegalMove
from .deal import Deal, DealRandom, check_seed, mt_random, random_source

if TYPE_CHECKING:
    from .moves import Move

LOG_FORMAT = "shangyou-log/1"


_ATOMIC = (int, float, str, bool, type(None))


# random sources shared by a game and its clones: never drawn from again (each game that
# draws first takes its own copy), so every game holding one deals as it would have alone
_SHARED_RNGS: weakref.WeakSet = weakref.WeakSet()


def _copy_rng(r: random.Random | DealRandom) -> random.Random | DealRandom:
    cls = type(r)
    new = cls.__new__(cls)
    new.setstate(r.getstate())
    return new


def new_seed() -> int:
    """A random int seed for a game given none (below 2**31, so predictable: live play passes
    a secret)."""
    return random.randrange(2**31)


class GameBase:
    PRIVATE_VIEW_KEYS: tuple[str, ...] = ("hand", "legal_moves")

    # How :meth:`clone` copies each attribute (a game names its own in these sets). Numbers,
    # strings and None are shared; an attribute named nowhere is deep-copied, so a new
    # attribute is safe before it is named here.
    #: immutable objects, or lists that are replaced and never changed in place: shared
    CLONE_SHARED: frozenset = frozenset({"rules", "_legal", "_token", "deals"})
    #: lists whose items are never changed in place: a new list of the same items
    CLONE_FLAT: frozenset = frozenset({"moves", "events", "history"})
    #: lists of such lists (hands, cards won per seat): new inner lists
    CLONE_NESTED: frozenset = frozenset()
    #: dicts (and Counters) of numbers or other immutable values: a shallow copy
    CLONE_DICTS: frozenset = frozenset()
    #: memo tables of derived facts: left out (rebuilt when needed)
    CLONE_DROP: frozenset = frozenset()

    #: every shuffle so far, in order (see :meth:`_dealt`); a tuple, replaced on each deal
    deals: tuple[Deal, ...] = ()

    #: the seat to act; None only once the game is over
    to_act: int | None
    #: the random source behind :attr:`_rng`; or, where a compiled core seeded a generator
    #: and dealt with it itself, that generator's state (bytes, made a ``random.Random`` by
    #: :func:`~shangyou.engine.deal.mt_random` when the game next draws)
    _rng_obj: random.Random | DealRandom | bytes

    if TYPE_CHECKING:
        # every game says whether it is over (a plain attribute or a property)
        @property
        def over(self) -> bool: ...

    def __init__(self, rules, seed: int | str | None, match: bool, rng: bool = True):
        """``rng=False``: the game sets ``_rng_obj`` itself (a compiled core's seeded deal)."""
        self.rules = rules
        self.n = rules.players
        # None: a random int seed (below 2**31, so predictable); live play passes a secret
        self.seed = new_seed() if seed is None else check_seed(seed)
        self.match = match
        if rng:
            self._rng = random_source(self.seed)
        self.deals = ()
        self.hand_number = 0
        self.history: list[dict] = []          # summaries of finished hands
        self.moves: list[tuple[int, Any]] = []  # the log: (seat, move)
        self.events: list[dict] = []           # what happened, for the UI and the log
        self.result: dict | None = None
        self._legal: Sequence | None = None    # moves listed for the current state
        self._token: object | None = None      # identifies them (see ``apply``'s fast path)

    @property
    def _rng(self) -> random.Random | DealRandom:
        """The game's random source (dealing). A clone shares it with its original until one
        of them draws: that one first takes a private copy, so both deal as they would have."""
        r = self._rng_obj
        if isinstance(r, bytes):             # (a core's generator: each game makes its own)
            self._rng_obj = m = mt_random(r)
            return m
        # (no clone made yet: no Python call)
        if _SHARED_RNGS.data and r in _SHARED_RNGS:  # type: ignore[attr-defined]
            self._rng_obj = r = _copy_rng(r)
        return r

    @_rng.setter
    def _rng(self, r: random.Random | DealRandom) -> None:
        self._rng_obj = r

    def _dealt(self, hands, undealt, hands_sorted: bool = False) -> None:
        """Record the shuffle just made: the cards each seat is dealt, and those none is
        (``hands_sorted``: each hand is sorted already)."""
        held = tuple(map(tuple, hands)) if hands_sorted else \
            tuple(tuple(sorted(h)) for h in hands)
        self.deals = self.deals + (Deal(self.hand_number, held, tuple(sorted(undealt))),)

    def _check_turn(self, seat: int | None) -> int:
        """The seat to act; IllegalMove if the game is over or ``seat`` is not that seat."""
        if self.over:
            raise IllegalMove("the game is over")
        to_act = self.to_act
        assert to_act is not None  # a game that is not over has a seat to act
        if seat is not None and seat != to_act:
            raise IllegalMove(f"it is seat {to_act}'s turn, not seat {seat}'s")
        return to_act

    def _listed(self, move: object) -> TypeGuard[Move]:
        """Is ``move`` one of the moves just listed for this state (so known legal)?"""
        return self._legal is not None and getattr(move, "token", None) is self._token

    def _moved(self, seat: int, move) -> None:
        """Record a move made and forget the moves listed for the previous state."""
        self.moves.append((seat, move))
        self._legal = None
        self._token = None

    @property
    def log(self) -> dict:
        """The JSON log: seed, options and moves rebuild the game (``shangyou.replay``)."""
        return {"format": LOG_FORMAT, "game": self.rules.name, "players": self.n,
                "seed": self.seed, "match": self.match, "options": dict(self.rules.options),
                "moves": [[s, str(m)] for s, m in self.moves]}

    def snapshot(self) -> dict:  # pragma: no cover - abstract
        raise NotImplementedError

    def view(self, seat: int) -> dict[str, Any]:  # pragma: no cover - abstract
        raise NotImplementedError

    def legal_moves(self) -> Sequence[Move]:  # pragma: no cover - abstract
        raise NotImplementedError

    def apply(self, move: Move | str, seat: int | None = None) -> None:  # pragma: no cover
        raise NotImplementedError

    def public_view(self) -> dict[str, Any]:
        """What a spectator may know: a seat's view without any seat's private cards."""
        v = self.view(0)
        for key in self.PRIVATE_VIEW_KEYS:
            v.pop(key, None)
        v["seat"] = None
        return v

    def __eq__(self, other) -> bool:
        return type(other) is type(self) and self.rules.name == other.rules.name and \
            self.snapshot() == other.snapshot()

    __hash__ = None  # type: ignore[assignment]  # mutable, so unhashable (as Python documents)

    def clone(self) -> Self:
        """An independent copy: moves applied to either never show in the other. Much cheaper
        than ``copy.deepcopy`` (which gives the same game: tests compare them), since it copies
        only the containers a move can change (see ``CLONE_*``)."""
        new = object.__new__(type(self))
        # set as attributes, not through ``new.__dict__``: CPython then keeps the values in the
        # class's key-sharing layout whatever their order (a dict item set out of the class's
        # key order makes a full dict of the instance's own, ~1.6 KB)
        put = object.__setattr__
        shared, flat, nested, dicts, drop = (self.CLONE_SHARED, self.CLONE_FLAT,
                                             self.CLONE_NESTED, self.CLONE_DICTS, self.CLONE_DROP)
        memo: dict = {}
        for k, v in self.__dict__.items():
            if isinstance(v, _ATOMIC) or k in shared:
                put(new, k, v)
            elif k in flat:
                put(new, k, v[:])
            elif k in nested:
                put(new, k, [x[:] for x in v])
            elif k in dicts:
                put(new, k, v.copy())
            elif k in drop:
                continue
            elif k == "_rng_obj":        # shared until either game draws from it (see _rng)
                put(new, k, v)
                if type(v) is not bytes:     # (a state as bytes never changes)
                    _SHARED_RNGS.add(v)
            else:
                put(new, k, copy.deepcopy(v, memo))
        return new
