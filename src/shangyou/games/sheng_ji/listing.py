"""The legal-move helpers of a Sheng ji hand: the kinds of moves, the calls of the call phase
as a lazy sequence, the units a hand can lead (the Python reference of the compiled core's
listing, ``_core_units.c``)."""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Sequence

from ...cards import CARD_TEXT
from ...engine.moves import Move
from .order import Trump

BID, PASS, BURY_K, CALL_K, PLAY_K, THROW, COMMIT, PICK = ("bid", "pass", "bury", "call", "play",
                                                         "throw", "commit", "pick")
FOLLOW_LIMIT = 400     # more legal follows than this: the cards are picked one at a time


@functools.lru_cache(maxsize=256)
def call_items(t: Trump, decks: int) -> tuple[tuple[int, int, str], ...]:
    """(card, ordinal, text) of every call the declarer may make under trump ``t``: each
    card that is not a trump, the first to the ``decks``-th copy played. The same for every
    hand with this trump, so made once."""
    return tuple((c, o, f"call {o} {CARD_TEXT[c]}") for c in range(52) if not t.is_trump(c)
                 for o in range(1, decks + 1))


class CallMoves(Sequence):
    """The legal calls of the call phase, a read-only sequence whose Move is made when it is
    asked for (a hand of three packs offers some 150 calls, and a random or searching player
    looks at one or two of them)."""

    __slots__ = ("_items", "_token")

    def __init__(self, items: tuple[tuple[int, int, str], ...], token: object):
        self._items = items
        self._token = token

    def __len__(self) -> int:
        return len(self._items)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self._items)))]
        c, _, text = self._items[i]
        return Move(CALL_K, (c,), None, text, token=self._token)

    def __repr__(self) -> str:
        return f"CallMoves({len(self._items)} calls)"


def lead_units(trump: Trump, hand, decks: int) -> set[tuple]:
    """Every single, tuple and tractor the hand can lead (each multiset once)."""
    counts = Counter(hand)
    out: set[tuple] = set()
    for c, k in counts.items():
        for w in range(1, k + 1):
            out.add((c,) * w)
    # tractors: runs of consecutive positions with identical cards of width >= 2
    by_suit: dict[int, dict[int, list[int]]] = {}
    for c, k in counts.items():
        if k >= 2:
            by_suit.setdefault(trump.suit_of(c), {}).setdefault(trump.position(c), []).append(c)
    for positions in by_suit.values():
        for start in positions:
            for w in range(2, decks + 1):
                _extend_tractors(positions, counts, start, w, [], out)
    return out


def _extend_tractors(positions, counts, pos, w, chain, out) -> None:
    for c in positions.get(pos, []):
        if counts[c] < w:
            continue
        nxt = chain + [c]
        if len(nxt) >= 2:
            out.add(tuple(sorted(x for x in nxt for _ in range(w))))
        _extend_tractors(positions, counts, pos + 1, w, nxt, out)
