"""The game's rarely changed attributes, kept together in one immutable record.

A clone of a game (``GameBase.clone``) copies its ``__dict__``. CPython (3.11) keeps the
instances of a class in small *key-sharing* dicts (the keys once per class, 8 bytes per value
per instance) only while the class's instances use at most 29 attribute names in all; past
that, each instance's dict is a full table of its own: a clone of 33 attributes measured
1,600 bytes, of 28 about 370. :class:`~.game.ClimbingGame` therefore keeps the attributes that
change at most a few times a hand (the seed, the scores, the exchange, the result...) in one
tuple, ``_rare``, replaced whenever one of them changes: the names stay attributes of the
game (properties made by :func:`rare_attributes`), a clone shares the tuple, and the dict
keeps its few other names (what a move changes is in the game's slots, ``__slots__``, where
the compiled core reads it). The values in the record are never changed in place: lists are replaced, and so is
the exchange's dict (``exchange.make`` changes a copy).
"""

from __future__ import annotations

from typing import Any

#: the fields of the record and their values before they are first set
RARE: dict[str, Any] = {
    "seed": None, "match": True, "result": None, "scores": (), "history": (),
    "team_totals": (), "prev_order": None, "dealt_counts": (), "undealt": (),
    "counts_at_first_out": None, "exchange": None, "exchanged": (),
}
#: the position of each field in the record
INDEX = {name: i for i, name in enumerate(RARE)}
DEFAULTS = tuple(RARE.values())
# the positions, for the game's own code where a hand starts and ends (a property is a Python
# call; ``game._rare[SCORES]`` is not)
(SEED, MATCH, RESULT, SCORES, HISTORY, TEAM_TOTALS, PREV_ORDER, DEALT_COUNTS, UNDEALT,
 COUNTS_AT_FIRST_OUT, EXCHANGE, EXCHANGED) = range(len(RARE))
assert INDEX["exchanged"] == EXCHANGED and INDEX["scores"] == SCORES


def _field(i: int, name: str) -> property:
    def get(self) -> Any:
        return self._rare[i]

    def set(self, value: Any) -> None:
        r = self._rare
        self._rare = r[:i] + (value,) + r[i + 1:]

    return property(get, set, doc=f"``{name}``, kept in the game's ``_rare`` record")


def rare_attributes(cls: type) -> type:
    """Give ``cls`` a property for each field of the record (a class decorator)."""
    cls._rare = DEFAULTS          # type: ignore[attr-defined]
    for name, i in INDEX.items():
        setattr(cls, name, _field(i, name))
    return cls


def set_rare(game: Any, **fields: Any) -> None:
    """Set several fields of ``game``'s record at once (one new tuple)."""
    r = list(game._rare)
    for name, value in fields.items():
        r[INDEX[name]] = value
    game._rare = tuple(r)


def rare_record(**fields: Any) -> tuple:
    """A record with ``fields`` set and the rest at their defaults (a new game's)."""
    r = list(DEFAULTS)
    for name, value in fields.items():
        r[INDEX[name]] = value
    return tuple(r)
