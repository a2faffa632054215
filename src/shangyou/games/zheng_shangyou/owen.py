"""The Owen rules of Zheng Shangyou: combinations and how they compare.

Source: seed ``002_13a92ec9c89ba2d9.txt`` (John Owen's catalogue) and the ``zheng-shangyou/owen``
section of RULES.md. In short, in our own words:

* One 54-card pack; suits never matter. Ranks climb 3..A (0..11), then 2 (12), BJ (13), RJ (14).
* Every 2, BJ and RJ is *wild*: inside sets, full houses, stairs, plates and quads it may stand
  for any rank 3..A. A wild standing for a rank is a *substitute*; a play without one is
  *natural*. At equal rank a natural play beats a substituted one; two substituted plays of the
  same rank cannot beat each other. Nothing stands for a 2 or a joker.
* Single: any one card, by its own rank (a lone 2 or joker is itself).
* Pair / trip: two / three cards of one rank, at least one of them natural (so ``2 BJ`` is no
  pair). Pairs and trips of 2s are made of 2s only.
* Full house: a trip and a pair of two different ranks (each group following the set rule,
  groups of 2s allowed), ranked by the trip; ``natural`` refers to the whole play.
* Straight: five or more natural cards of consecutive ranks within 3..A, no wilds at all; only
  equal lengths compare, by the top rank.
* Stair / plate: two or more pairs / trips of consecutive ranks within 3..A; wilds may fill,
  but every rank needs at least one natural card; only equal lengths compare.
* Quad (bomb, tier 1): four of a rank 3..A (wilds allowed, one natural needed) or four 2s; it
  beats every ordinary play; higher rank wins, equal rank: natural beats substituted.
* Rocket (tier 2): exactly BJ + RJ; beats everything (so those two cards are never a pair).

Plays are listed once per rank-level composition: the natural cards of a rank and the 2s are
bound canonically (lowest suits first); using a wild in place of a natural card one holds is a
different play, and BJ and RJ are different cards, so they give different plays.

``leads`` and ``follows`` ask the compiled core (``games/climbing/core.py``) when it is built and
on; ``leads_py`` and ``follows_py`` are the Python reference it is tested against.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...cards import RANK_NAMES, RANK_WORDS
from ..climbing import core
from ..climbing.combo import Combo
from ..climbing.family import CompiledFamily
from . import explain

__all__ = ["OwenFamily"]

TWO = 12
BJ_CARD = 52

CLS_SINGLE = ("single",)
CLS_PAIR = ("pair",)
CLS_TRIP = ("trip",)
CLS_FULL_HOUSE = ("full house",)
CLS_BOMB = ("bomb",)
CLS_ROCKET = ("rocket",)

# size -> (kind, cls, tier) for plays of one rank
_SET_INFO = {2: ("pair", CLS_PAIR, 0), 3: ("trip", CLS_TRIP, 0), 4: ("quad", CLS_BOMB, 1)}
_CHAIN_KIND = {2: "stair", 3: "plate"}
_CHAIN_K = {"stair": 2, "plate": 3}
_CHAIN_CLS = {(k, m): (_CHAIN_KIND[k], m) for k in (2, 3) for m in range(2, 13)}
_STRAIGHT_CLS = {m: ("straight", m) for m in range(5, 13)}

_SET_LABEL = RANK_WORDS[:13]
_FH_LABEL = {(a, b): f"{_SET_LABEL[a]} over {_SET_LABEL[b]}"
             for a in range(13) for b in range(13) if a != b}
_RUN_LABEL = {(s, e): f"{RANK_NAMES[s]}-{RANK_NAMES[e]}" for s in range(12) for e in range(s, 12)}
_SINGLE_LABEL = RANK_NAMES


class _Hand:
    """A hand split by rank: natural cards of 3..A, the 2s, the jokers, and the wild options.

    ``wild[w]`` lists every distinct way to supply ``w`` substitutes (a sorted tuple of cards:
    the lowest 2s first, then BJ and/or RJ); ``wild_after[u][w]`` does the same when the ``u``
    lowest 2s are already used as natural 2s, and its tuples include those ``u`` 2s.
    ``parts(k)[r]`` lists the ways to make a group of ``k`` cards of rank ``r`` (3..A) from the
    natural cards: ``(naturals used, substitutes still needed)``, only where enough wilds exist.
    """

    __slots__ = ("nat", "twos", "bj", "rj", "wild", "nwild", "_after", "_parts")

    def __init__(self, hand: Sequence[int]):
        nat: list[list[int]] = [[], [], [], [], [], [], [], [], [], [], [], []]
        twos: list[int] = []
        bj = rj = None
        for c in sorted(hand):
            if c < 48:
                nat[c >> 2].append(c)
            elif c < 52:
                twos.append(c)
            elif c == BJ_CARD:
                bj = c
            else:
                rj = c
        self.nat = nat
        self.twos = twos
        self.bj = bj
        self.rj = rj
        self.nwild = len(twos) + (bj is not None) + (rj is not None)
        self.wild = self._options(0)
        self._after: dict[int, list[list[tuple]]] = {}
        self._parts: dict[int, list[list[tuple[tuple, int]]]] = {}

    def parts(self, k: int) -> list[list[tuple[tuple, int]]]:
        got = self._parts.get(k)
        if got is None:
            nw = self.nwild
            got = []
            for cs in self.nat:
                c = len(cs)
                lo = k - nw if k - nw > 1 else 1
                hi = c if c < k else k
                got.append([(tuple(cs[:n]), k - n) for n in range(hi, lo - 1, -1)])
            self._parts[k] = got
        return got

    def _jokers(self) -> list[tuple]:
        js: list[tuple] = [()]
        if self.bj is not None:
            js.append((self.bj,))
        if self.rj is not None:
            js.append((self.rj,))
            if self.bj is not None:
                js.append((self.bj, self.rj))
        return js

    def _options(self, used: int) -> list[list[tuple]]:
        twos = self.twos
        out: list[list[tuple]] = [[] for _ in range(7)]
        js = self._jokers()
        for k2 in range(len(twos) - used + 1):
            tw = tuple(twos[:used + k2])
            for j in js:
                out[k2 + len(j)].append(tw + j)
        return out

    def wild_after(self, used: int) -> list[list[tuple]]:
        if used == 0:
            return self.wild
        got = self._after.get(used)
        if got is None:
            got = self._after[used] = self._options(used)
        return got


class OwenFamily(CompiledFamily):
    """Combination family of ``zheng-shangyou/owen`` (seed ``002_13a92ec9c89ba2d9.txt``)."""

    name = "owen"

    def __init__(self) -> None:
        pass

    KINDS_TEXT = ("single, pair, trip, full house, straight of 5+, stair, plate, quad, rocket",
                  "单张、对子、三张、三带二、5张以上的顺子、连对、连三张、炸弹、火箭")

    def why_not_combo(self, cards: tuple):
        return explain.owen(self, cards)

    def why_tie(self, mine: Combo, last: Combo):
        return explain._purity(mine, last)

    def beaters(self, last: Combo) -> tuple[str, str]:
        return explain.owen_beaters(last)

    # ------------------------------------------------------------------ listing plays
    def core_leads(self, hand: Sequence[int]) -> list[Combo]:
        return core.owen_leads(hand)

    def core_follows(self, hand: Sequence[int], prev: Combo) -> list[Combo] | None:
        return core.owen_follows(hand, prev)

    def core_spec(self) -> tuple:
        return core.OWEN_SPEC

    def leads_py(self, hand: Sequence[int]) -> list[Combo]:
        h = _Hand(hand)
        out: list[Combo] = []
        _singles(h, out, -1)
        _sets(h, out, 2, 0)
        _sets(h, out, 3, 0)
        _full_houses(h, out, 0)
        _straights(h, out, 0, 0)
        _chains(h, out, 2, 0, 0)
        _chains(h, out, 3, 0, 0)
        _sets(h, out, 4, 0)
        _rocket(h, out)
        return out

    def follows_py(self, hand: Sequence[int], prev: Combo) -> list[Combo]:
        tier = prev.tier
        if tier >= 2:
            return []
        h = _Hand(hand)
        out: list[Combo] = []
        pkey = prev.key
        if tier == 1:
            if prev.cls == CLS_BOMB:
                _sets(h, out, 4, pkey[0])
                out = [c for c in out if c.key > pkey]
            _rocket(h, out)
            return out
        cls = prev.cls
        if cls == CLS_SINGLE:
            _singles(h, out, pkey[0])
        else:
            if cls == CLS_PAIR:
                _sets(h, out, 2, pkey[0])
            elif cls == CLS_TRIP:
                _sets(h, out, 3, pkey[0])
            elif cls == CLS_FULL_HOUSE:
                _full_houses(h, out, pkey[0])
            elif len(cls) == 2 and _STRAIGHT_CLS.get(cls[1]) == cls:
                _straights(h, out, cls[1], pkey[0])
            elif len(cls) == 2 and (k := _CHAIN_K.get(cls[0])) is not None and \
                    _CHAIN_CLS.get((k, cls[1])) == cls:
                _chains(h, out, k, cls[1], pkey[0])
            out = [c for c in out if c.key > pkey]
        _sets(h, out, 4, 0)
        _rocket(h, out)
        return out

    def may_be_ambiguous(self, combo: Combo) -> bool:
        # only 2s and jokers allow a second reading; a single card is a single
        return combo.cards[-1] >= 48 and len(combo.cards) > 1

    def card_strength(self, card: int) -> int:
        return 13 if card == 52 else 14 if card == 53 else card >> 2

    def sort_key(self, card: int):
        return card


# ---------------------------------------------------------------------- generators
# Each generator appends to ``out`` the plays of one class whose (top) rank is at least ``lo``
# (``leads`` passes the lowest value; ``follows`` passes the rank to beat and then filters by key).

def _singles(h: _Hand, out: list, above: int) -> None:
    """Single cards of rank strictly above ``above``, one per rank."""
    nat = h.nat
    for r in range(above + 1, 12):
        cs = nat[r]
        if cs:
            out.append(Combo("single", CLS_SINGLE, (r,), (cs[0],), 0, _SINGLE_LABEL[r]))
    if above < TWO and h.twos:
        out.append(Combo("single", CLS_SINGLE, (TWO,), (h.twos[0],), 0, _SINGLE_LABEL[TWO]))
    if above < 13 and h.bj is not None:
        out.append(Combo("single", CLS_SINGLE, (13,), (h.bj,), 0, _SINGLE_LABEL[13]))
    if above < 14 and h.rj is not None:
        out.append(Combo("single", CLS_SINGLE, (14,), (h.rj,), 0, _SINGLE_LABEL[14]))


def _sets(h: _Hand, out: list, size: int, lo: int) -> None:
    """Pairs, trips or quads (``size`` 2, 3, 4) of rank >= ``lo``."""
    kind, cls, tier = _SET_INFO[size]
    parts = h.parts(size)
    wild = h.wild
    labels = _SET_LABEL
    for r in range(lo if lo > 0 else 0, 12):
        label = labels[r]
        for base, w in parts[r]:
            if w == 0:
                out.append(Combo(kind, cls, (r, 1), base, tier, label))
            else:
                key = (r, 0)
                for wc in wild[w]:
                    out.append(Combo(kind, cls, key, base + wc, tier, label))
    if lo <= TWO and len(h.twos) >= size:
        out.append(Combo(kind, cls, (TWO, 1), tuple(h.twos[:size]), tier, labels[TWO]))


def _full_houses(h: _Hand, out: list, lo: int) -> None:
    """Full houses whose trip has rank >= ``lo``."""
    nt = len(h.twos)
    p3 = h.parts(3)
    p2 = h.parts(2)
    # flat lists of (rank, natural cards, substitutes needed); groups of 2s need no substitute
    trips = [(r, cs, w) for r in range(lo if lo > 0 else 0, 12) for cs, w in p3[r]]
    pairs = [(r, cs, w) for r in range(12) for cs, w in p2[r]]
    if nt >= 2:
        pairs.append((TWO, (), 0))
        if nt >= 3 and lo <= TWO:
            trips.append((TWO, (), 0))
    if not trips or not pairs:
        return
    wild = h.wild
    w2 = h.wild_after(2) if nt >= 2 else []   # read only for a pair of 2s (listed if nt >= 2)
    labels = _FH_LABEL
    for a, ta, wa in trips:
        if a == TWO:
            w3 = h.wild_after(3)
            for b, pb, wb in pairs:
                if b == TWO:
                    continue
                opts = w3[wb]
                if opts:
                    key = (a, 1 if wb == 0 else 0)
                    label = labels[a, b]
                    for wc in opts:
                        out.append(Combo("full house", CLS_FULL_HOUSE, key, pb + wc, 0, label))
            continue
        for b, pb, wb in pairs:
            if b == a:
                continue
            w = wa + wb
            opts = (w2 if b == TWO else wild)[w]
            if not opts:
                continue
            first = ta + pb if a < b else pb + ta
            key = (a, 1 if w == 0 else 0)
            label = labels[a, b]
            for wc in opts:
                out.append(Combo("full house", CLS_FULL_HOUSE, key, first + wc, 0, label))


def _straights(h: _Hand, out: list, length: int, lo: int) -> None:
    """Straights (all lengths if ``length`` is 0) whose top rank is >= ``lo``."""
    nat = h.nat
    if length:
        start = max(0, lo - length + 1)
        for s in range(start, 12 - length + 1):
            e = s + length - 1
            if all(nat[r] for r in range(s, e + 1)):
                cards = tuple(nat[r][0] for r in range(s, e + 1))
                out.append(Combo("straight", _STRAIGHT_CLS[length], (e,), cards, 0,
                                 _RUN_LABEL[s, e]))
        return
    for s in range(0, 8):
        if not nat[s]:
            continue
        run = [nat[s][0]]
        e = s + 1
        while e < 12 and nat[e]:
            run.append(nat[e][0])
            m = e - s + 1
            if m >= 5 and e >= lo:
                out.append(Combo("straight", _STRAIGHT_CLS[m], (e,), tuple(run), 0,
                                 _RUN_LABEL[s, e]))
            e += 1


def _chains(h: _Hand, out: list, k: int, length: int, lo: int) -> None:
    """Stairs (``k`` = 2) or plates (``k`` = 3) of ``length`` ranks (any length >= 2 if 0)
    whose top rank is >= ``lo``."""
    nat = h.nat
    parts = h.parts(k)
    wild = h.wild
    budget = h.nwild
    kind = _CHAIN_KIND[k]
    start = max(0, lo - length + 1) if length else 0
    for s in range(start, 11):
        if not nat[s]:
            continue
        states: list[tuple[tuple, int]] = [((), 0)]
        e = s
        while e < 12:
            opts = parts[e]
            if not opts:
                break
            states = [(p + q, w + dw) for p, w in states for q, dw in opts if w + dw <= budget]
            if not states:
                break
            m = e - s + 1
            if m >= 2 and (not length or m == length) and e >= lo:
                cls = _CHAIN_CLS[k, m]
                label = _RUN_LABEL[s, e]
                kn, ks = (e, 1), (e, 0)
                for p, w in states:
                    if w == 0:
                        out.append(Combo(kind, cls, kn, p, 0, label))
                    else:
                        for wc in wild[w]:
                            out.append(Combo(kind, cls, ks, p + wc, 0, label))
            if length and m >= length:
                break
            e += 1


def _rocket(h: _Hand, out: list) -> None:
    if h.bj is not None and h.rj is not None:
        out.append(Combo("rocket", CLS_ROCKET, (), (h.bj, h.rj), 2, "BJ RJ"))
