"""A Sheng ji game's clone (``ShengJiGame.clone``): the slots, and what a move changes most
packed until it is asked for."""

from __future__ import annotations

from collections import Counter
from itertools import chain
from typing import Any, Self

from ...cards import CARDS
from ...engine.base import GameBase
from . import core

_LAZY = frozenset({"hands", "won", "moves", "events", "tricks", "seen_counts", "stock"})
# what the hand held in C (``_core_hand.c``) takes out of the dict while it plays: made again
# when asked for (``core.flush``)
_HELD = frozenset({"hands", "won", "trick", "pending", "lead_units", "events", "moves",
                   "tricks", "_legal", "_token", "seen_counts"})
# of those, the records: held on through the scoring (``_event``) until asked for; asking for
# another makes the hand's attributes only
_RECORDS = frozenset({"events", "moves", "tricks"})
# the slots' lists each phase changes in place (a clone copies them); every other list in a
# slot is replaced when it changes (``kitty``, ``kitty_taken``), and ``bid`` is a new dict
_LEVELS = frozenset({"levels"})
_CHANGING = {"deal": _LEVELS | {"bid_log", "final_round"},
             "bury": _LEVELS | {"buried", "bid_log", "theft_round"}}


class ShengJiClone(GameBase):
    """The clone of :class:`~.game.ShengJiGame` (its base class)."""

    def clone(self) -> Self:
        """GameBase.clone, and the slots: the lists a phase changes in place are copied (the
        bids and the last round of bids while dealing; the burial, the bids and the round of
        thieves while burying; the levels at every hand's end), the others shared: they are
        replaced, never changed (``_start_hand`` makes new ones).

        The hands, the cards won, the stock, the log, the events, the tricks and the cards
        seen are what a move changes most: the clone holds them packed (``_lazy``: the cards
        as bytes, the log, the events and the tricks as the original's lists and their
        lengths, which only ever grow)
        and makes them when one is first asked for (``_Packed``), so a clone kept but not
        played costs a few hundred bytes. The core, which reads the game's dict, has a packed
        clone unpacked first (``sj_unpacked``)."""
        if core.AVAILABLE:
            core.flush(self)             # (a hand held in C: its attributes made)
        d = self.__dict__
        if "_lazy" in d and not _LAZY.isdisjoint(d):
            self._unpack()               # (some were set since it was cloned)
        new = super().clone()            # a clone not yet asked: its _lazy is shared
        if "_lazy" not in d:
            hands, won, seen = d["hands"], d["won"], d["seen_counts"]
            moves, events, tricks, stock = d["moves"], d["events"], d["tricks"], d["stock"]
            # one bytes: each hand's length, each seat's cards won's, the stock's, the hands'
            # cards, the cards won, the stock, then (card, count) of the cards seen (a seat
            # holds or wins at most the 216 cards of four packs: each length fits a byte);
            # set as an attribute: CPython then keeps the dict in the class's key-sharing
            # layout
            packed = core.pack_clone(hands, won, stock, seen) if core.ACTIVE else None
            if packed is None:
                packed = bytes(chain(map(len, hands), map(len, won), (len(stock),),
                                     chain.from_iterable(hands), chain.from_iterable(won), stock,
                                     chain.from_iterable(seen.items())))
            object.__setattr__(new, "_lazy", (packed, moves, len(moves), events, len(events),
                                              tricks, len(tricks)))
        changing = _CHANGING.get(d["phase"], _LEVELS)
        for name, slot in _slots(type(self)):
            if name in ("_tricks_cache", "_st"):
                continue
            try:
                v = slot.__get__(self)
            except AttributeError:           # not set yet (e.g. ``leader`` before the play)
                continue
            if name in changing and type(v) is list:
                v = v[:]
            slot.__set__(new, v)
        return new

    def __getstate__(self) -> Any:
        """The state pickle and ``copy`` keep: a hand held in C is made attributes first, and
        the object holding it (``_st``) is left out."""
        if core.AVAILABLE:
            core.flush(self)
        state = super().__getstate__()
        if isinstance(state, tuple) and state[1] and "_st" in state[1]:
            state = (state[0], {k: v for k, v in state[1].items() if k != "_st"})
        return state

    def _unpack(self) -> None:
        """A clone's packed attributes made (those set since are kept)."""
        d = self.__dict__
        packed, moves, nm, events, ne, tricks, nt = d["_lazy"]
        object.__delattr__(self, "_lazy")
        n = self.n
        nh, nw = packed[:n], packed[n:2 * n]
        at = 2 * n + 1 + sum(nh)
        end = at + sum(nw)
        stock_end = end + packed[2 * n]
        seen = packed[stock_end:]
        seen_counts: Counter = Counter()
        if seen:
            seen_counts.update(dict(zip([CARDS[c] for c in seen[::2]], seen[1::2])))
        if core.ACTIVE:                      # the lists made in C
            hands, won, (stock,) = (core.card_lists(packed, 2 * n + 1, nh),
                                    core.card_lists(packed, at, nw),
                                    core.card_lists(packed, end, packed[2 * n:2 * n + 1]))
        else:
            hands, won, stock = (_lists(packed[2 * n + 1:at], nh), _lists(packed[at:end], nw),
                                 [CARDS[c] for c in packed[end:stock_end]])
        for name, value in (("hands", hands), ("won", won), ("stock", stock),
                            ("moves", moves[:nm]), ("events", events[:ne]),
                            ("tricks", tricks[:nt]),
                            ("seen_counts", seen_counts)):
            if name not in d:
                object.__setattr__(self, name, value)


class _Packed:
    """A class attribute for each packed or held name: the instance's own value (in its dict)
    comes first, as for any method; only where it has none (a clone not yet asked, a hand held
    in C) is this asked, and it unpacks the clone or has the core make the attributes. (A
    non-data descriptor: unlike ``__getattr__`` on the class, it leaves every other
    attribute's lookup as fast as before.)"""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __get__(self, obj: Any, cls: type | None = None) -> Any:
        if obj is None:
            return self
        d = obj.__dict__
        if "_lazy" in d:
            obj._unpack()
        elif not (core.AVAILABLE and core.flush(obj, self.name in _RECORDS)):
            raise AttributeError(f"{type(obj).__name__!r} object has no attribute {self.name!r}")
        return d[self.name]


for _name in _LAZY | _HELD:         # (set here, out of the type checker's sight: the games assign lists)
    setattr(ShengJiClone, _name, _Packed(_name))


def _slots(cls: type) -> tuple:
    """(name, member descriptor) of each slot of ``cls``, found once."""
    got = cls.__dict__.get("_slot_descriptors")
    if got is None:
        got = tuple((name, cls.__dict__[name]) for name in cls.__dict__["__slots__"])
        setattr(cls, "_slot_descriptors", got)
    return got


def _lists(cards: bytes, lengths: bytes) -> list[list[int]]:
    """The lists of cards (``cards.CARDS`` items) packed as ``cards`` with these lengths."""
    flat: list[int] = [CARDS[c] for c in cards]
    out, i = [], 0
    for n in lengths:
        out.append(flat[i:i + n])
        i += n
    return out
