"""Tricks of Sheng ji: lead suit, tractors, matching a lead's shape, the winner of a trick,
failed throws and the kitty multiplier (seed ``003_0367b52b0c4da365.txt``; RULES.md).

Pure functions over card ints (:mod:`shangyou.cards`) in a :class:`~.order.Trump` context.

* A *unit* (:class:`~.order.Unit`) is a single, a tuple of identical cards, or a tractor: two
  or more tuples of the same width (>= 2) at consecutive positions of one effective suit.
* A lead is decomposed into its canonical units (:func:`~.order.decompose`); a lead of two or
  more units is a throw (甩牌).
* A later play can take the trick only if it is all of the led effective suit or all trump and
  its cards can be arranged in the lead's shape (:func:`match_format`). Such plays are compared
  by their unit of the lead's first (largest) kind: trump beats plain, then the higher position;
  on equality the earlier play keeps the trick.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from .order import TRUMP, Trump, Unit, decompose

__all__ = [
    "lead_suit", "is_tractor", "is_throw", "match_format", "primary_top", "trick_winner",
    "throw_check", "kitty_multiplier", "unit_multiplier",
]


# ------------------------------------------------------------------------------ basic facts
def lead_suit(trump: Trump, cards: Iterable[int]) -> int | None:
    """The effective suit shared by all ``cards`` (0..3 or ``TRUMP``); None if mixed or empty."""
    suits = {trump.suit_of(c) for c in cards}
    return suits.pop() if len(suits) == 1 else None


def is_tractor(trump: Trump, cards: Iterable[int]) -> bool:
    """Are ``cards`` exactly one tractor (2+ equal-width tuples, width >= 2, adjacent)?"""
    cards = list(cards)
    if lead_suit(trump, cards) is None:
        return False
    units = decompose(trump, cards)
    return len(units) == 1 and units[0].width >= 2 and units[0].length >= 2


def is_throw(trump: Trump, cards: Iterable[int]) -> bool:
    """A lead of one effective suit that holds two or more units."""
    cards = list(cards)
    return lead_suit(trump, cards) is not None and len(decompose(trump, cards)) >= 2


# ------------------------------------------------------------------------------ matching
def _order_key(u: Unit) -> tuple[int, int, int]:
    # the order of decompose: size, then width (then top, which matching does not use)
    return (u.size, u.width, u.length)


def _candidates(trump: Trump, counts: Counter, width: int, length: int) -> list[tuple]:
    """Every way (from ``counts``) to form a unit of ``width`` x ``length``, highest first.

    Each candidate is ``(top, identities)``, ``identities`` listing one card per position,
    highest first; ``width`` copies of each are taken.
    """
    # (suit, position) -> identities holding >= width copies
    at: dict[tuple[int, int], list[int]] = {}
    for c, n in counts.items():
        if n >= width:
            at.setdefault((trump.suit_of(c), trump.position(c)), []).append(c)
    for ids in at.values():
        ids.sort(reverse=True)
    out: list[tuple] = []
    for (suit, top) in at:
        if length == 1:
            for c in at[(suit, top)]:
                out.append((suit, top, (c,)))
            continue
        choices: list[list[int]] = []
        for p in range(top, top - length, -1):
            if (suit, p) not in at:
                break
            choices.append(at[(suit, p)])
        else:
            combos: list[tuple] = [()]
            for ids in choices:
                combos = [cb + (c,) for cb in combos for c in ids]
            out.extend((suit, top, cb) for cb in combos)
    out.sort(key=lambda t: (t[1], t[0], t[2]), reverse=True)
    return [(top, ids) for (_, top, ids) in out]


def match_format(trump: Trump, lead_units: Sequence[Unit], cards: Iterable[int]
                 ) -> list[Unit] | None:
    """Arrange ``cards`` in the shape of ``lead_units``; the matched units, or None.

    A lead tuple of width w takes w identical cards; a lead tractor of w x l takes a run of l
    consecutive positions (one effective suit), each holding at least w identical cards (w of
    them are taken); singles take any remaining card. A pair may so serve as two singles and a
    tractor's pairs as pairs. Larger lead units are matched first, each to the highest structure
    that still lets the rest be matched. The result lists one unit per lead unit, in the order
    of ``lead_units``; ``cards`` must be as many as the lead's.
    """
    cards = list(cards)
    lead_units = list(lead_units)
    if sum(u.size for u in lead_units) != len(cards):
        return None
    order = sorted(range(len(lead_units)), key=lambda i: _order_key(lead_units[i]), reverse=True)
    multi = [i for i in order if lead_units[i].width >= 2]
    singles = [i for i in order if lead_units[i].width < 2]

    counts = Counter(cards)
    full = Counter(cards)                 # candidates come from all the cards, not what is left
    cand_cache: dict[tuple[int, int], list[tuple]] = {}
    chosen: dict[int, Unit] = {}
    failed: set = set()

    def cands(w: int, l: int) -> list[tuple]:
        if (w, l) not in cand_cache:
            cand_cache[(w, l)] = _candidates(trump, full, w, l)
        return cand_cache[(w, l)]

    def search(k: int, start: int) -> bool:
        if k == len(multi):
            return True
        state = (k, start, tuple(sorted((c, n) for c, n in counts.items() if n)))
        if state in failed:
            return False
        u = lead_units[multi[k]]
        w, l = u.width, u.length
        lst = cands(w, l)
        for j in range(start, len(lst)):
            top, ids = lst[j]
            if any(counts[c] < w for c in ids):
                continue
            for c in ids:
                counts[c] -= w
            # interchangeable units of the same kind take candidates in list order
            nxt_same = (k + 1 < len(multi)
                        and (lead_units[multi[k + 1]].width,
                             lead_units[multi[k + 1]].length) == (w, l))
            if search(k + 1, j if nxt_same else 0):
                chosen[multi[k]] = Unit(w, l, top, tuple(sorted(c for c in ids for _ in range(w))))
                return True
            for c in ids:
                counts[c] += w
        failed.add(state)
        return False

    if not search(0, 0):
        return None
    rest = sorted(counts.elements(), key=lambda c: (trump.position(c), trump.suit_of(c), c),
                  reverse=True)
    for i, c in zip(singles, rest):
        chosen[i] = Unit(1, 1, trump.position(c), (c,))
    return [chosen[i] for i in range(len(lead_units))]


# ------------------------------------------------------------------------------ the winner
def primary_top(lead_units: Sequence[Unit], matched: Sequence[Unit]) -> int:
    """The top of the highest matched unit of the lead's first (largest) kind."""
    first = lead_units[0]
    kind = (first.width, first.length)
    return max(m.top for u, m in zip(lead_units, matched) if (u.width, u.length) == kind)


def trick_winner(trump: Trump, plays: Sequence[Iterable[int]]) -> int:
    """Index (in ``plays``) of the play that takes the trick; ``plays[0]`` is the lead.

    Only a play all of the led suit or all trump, in the lead's shape, can win; qualifying
    plays are compared by :func:`primary_top`, trump over plain; a later play must be strictly
    higher to take the trick from an earlier one.
    """
    rows = [list(p) for p in plays]
    if not rows or not rows[0]:
        raise ValueError("a trick needs a lead")
    lead = rows[0]
    suit = lead_suit(trump, lead)
    if suit is None:
        raise ValueError("the lead must be of one effective suit")
    if all(c == lead[0] for c in lead):
        return _tuple_winner(trump, rows, suit)
    units = decompose(trump, lead)
    matched = match_format(trump, units, lead) or units
    best, best_key = 0, (suit == TRUMP, primary_top(units, matched))
    for i, play in enumerate(rows[1:], start=1):
        s = lead_suit(trump, play)
        if s is None or (s != suit and s != TRUMP):
            continue
        m = match_format(trump, units, play)
        if m is None:
            continue
        key = (s == TRUMP, primary_top(units, m))
        if key > best_key:
            best, best_key = i, key
    return best


def _tuple_winner(trump: Trump, plays: list[list[int]], suit: int) -> int:
    """:func:`trick_winner` for a lead of one single or one tuple of identical cards: only a
    play of as many identical cards of the led suit or trump can win (the fast common case)."""
    lead = plays[0]
    best, best_key = 0, (suit == TRUMP, trump.position(lead[0]))
    for i, play in enumerate(plays[1:], start=1):
        c = play[0]
        if len(play) != len(lead) or any(x != c for x in play):
            continue
        s = trump.suit_of(c)
        if s != suit and s != TRUMP:
            continue
        key = (s == TRUMP, trump.position(c))
        if key > best_key:
            best, best_key = i, key
    return best


# ------------------------------------------------------------------------------ throws
def _beats_unit(trump: Trump, unit: Unit, suit: int, counts: Counter) -> bool:
    """Does a hand (``counts``) hold, in ``suit``, something that beats ``unit``?"""
    hand = Counter({c: n for c, n in counts.items() if trump.suit_of(c) == suit})
    return any(top > unit.top for top, _ in _candidates(trump, hand, unit.width, unit.length))


def throw_check(trump: Trump, lead: Iterable[int], other_hands: Iterable[Iterable[int]]
                ) -> Unit | None:
    """For a throw (a lead of 2+ units), the unit the thrower must play instead, or None.

    The throw fails if any other player (partners too) holds in the led effective suit a unit
    beating one of its units: a higher single, w identical higher cards for a w-tuple, or a
    run of the tractor's length with at least its width of identical cards at each position and
    a higher top. The forced unit is the smallest beatable one (fewest cards, then lowest top).
    A lead of one unit is not a throw: None.
    """
    lead = list(lead)
    suit = lead_suit(trump, lead)
    if suit is None:
        raise ValueError("a throw must be of one effective suit")
    units = decompose(trump, lead)
    if len(units) < 2:
        return None
    hands = [Counter(h) for h in other_hands]
    beatable = [u for u in units if any(_beats_unit(trump, u, suit, h) for h in hands)]
    if not beatable:
        return None
    return min(beatable, key=lambda u: (u.size, u.top, u.width, u.cards))


# ------------------------------------------------------------------------------ kitty
def unit_multiplier(unit: Unit, mode: str = "power") -> int:
    """Kitty multiplier of one unit: single 2; n tuples of width >= 2: 2**(n+1) or 2*(n+1)."""
    if mode not in ("power", "linear"):
        raise ValueError(f"kitty multiplier mode {mode!r}: expected 'power' or 'linear'")
    if unit.width < 2:
        return 2
    n = unit.length
    return 2 ** (n + 1) if mode == "power" else 2 * (n + 1)


def kitty_multiplier(trump: Trump, last_winning_play_units: Sequence[Unit],
                     mode: str = "power") -> int:
    """Multiplier of the kitty's points when the declarers' opponents take the last trick.

    ``last_winning_play_units``: the units of the last trick's lead (its shape). The largest
    unit counts: a 3-pair tractor in a throw beside a 2-pair tractor gives the 3-pair multiplier.
    A single gives 2. In ``"linear"`` mode a throw of singles only gives 3 (seed's table).
    """
    units = list(last_winning_play_units)
    if not units:
        raise ValueError("the last trick has no units")
    best = max(unit_multiplier(u, mode) for u in units)
    if mode == "linear" and len(units) >= 2 and all(u.width < 2 for u in units):
        return 3
    return best
