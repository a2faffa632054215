"""The pagat combinations of Zheng Shangyou (seed ``000_d95270a3ce94a823.txt``; RULES.md).

Four kinds of play, suits ignored except to make a single-suited sequence:

* **single**: any card; order 3 < ... < A < 2 < BJ < RJ.
* **set** of two or more cards of one rank. Wild cards stand for a *lower* rank: 2s and both
  jokers for 3..A, jokers for 2s, the red joker for the black joker. A set needs at least one
  natural card of its rank (decision: an all-wild group is read as the wilds' own rank).
  Only sets of the same size compare: higher rank wins, at equal rank pure beats impure.
* **sequence** of 3+ consecutive ranks 3..A (with ``twos_in_sequences``: 3..2). Jokers are wild,
  2s never are. Naturals all of one suit (jokers taking that suit) make it *single-suited*,
  which beats any mixed one of the same length; then higher top, then pure beats impure.
  Decision: a sequence needs at least one natural card.
* **multiple sequence**: k >= 2 cards of each of m >= 3 consecutive ranks 3..A. Jokers and 2s
  are wild, but every rank needs a natural card or a joker. Only the same (m, k) compare.

Plays are listed at rank level: the natural cards of a rank are taken lowest suit first, except
that a mixed sequence is bound so that it really is mixed. A wild used in place of a natural the
player holds is a different play (it keeps the natural), and so is BJ versus RJ as the wild.

``leads`` and ``follows`` ask the compiled core (``games/climbing/core.py``) when it is built and
on; ``leads_py`` and ``follows_py`` are the Python reference it is tested against.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence

from ...cards import BJ_CODE, RANK_NAMES, RANK_OF, RANK_WORDS, RJ_CODE, SUIT_NAMES
from ..climbing import core
from ..climbing.combo import Combo
from ..climbing.family import CompiledFamily
from . import explain

SINGLE = ("single",)
ACE, TWO, BJ, RJ = 11, 12, 13, 14


def _by_rank(hand: Sequence[int]) -> list[list[int]]:
    """Held cards per rank index, lowest suit first (hands are sorted: rank, then suit)."""
    nat: list[list[int]] = [[], [], [], [], [], [], [], [], [], [], [], [], [], [], []]
    for c in hand:
        nat[RANK_OF[c]].append(c)
    return nat


def _joker_splits(u: int, nb: int, nr: int):
    """Ways to use ``u`` jokers from ``nb`` black and ``nr`` red: (black, red) pairs."""
    for b in range(max(0, u - nr), min(u, nb) + 1):
        yield b, u - b


_SEQ_LABEL = {(lo, hi, suit): f"{RANK_NAMES[lo]}-{RANK_NAMES[hi]}"
              + ("" if suit is None else " " + SUIT_NAMES[suit])
              for lo in range(13) for hi in range(lo, 13) for suit in (None, 0, 1, 2, 3)}
_MSEQ_LABEL = {(lo, hi, k): f"{RANK_NAMES[lo]}-{RANK_NAMES[hi]}x{k}"
               for lo in range(12) for hi in range(lo, 12) for k in range(2, 25)}
_JOKER_SPLITS = {(u, nb, nr): tuple(_joker_splits(u, nb, nr))
                 for u in range(9) for nb in range(5) for nr in range(5)}


class PagatFamily(CompiledFamily):
    name = "pagat"

    def __init__(self, twos_in_sequences: bool = False):
        self.twos_in_sequences = bool(twos_in_sequences)
        self.seq_top = TWO if self.twos_in_sequences else ACE

    KINDS_TEXT = ("single, set, sequence of 3+, multiple sequence", "单张、同点牌、3张以上的顺子、连对")

    def why_not_combo(self, cards: tuple):
        return explain.pagat(self, cards)

    def why_tie(self, mine: Combo, last: Combo):
        return explain.pagat_tie(mine, last)

    def may_be_ambiguous(self, combo: Combo) -> bool:
        # Only jokers make a second reading possible. A single card is a single. Without
        # jokers, 2s are wild only in sets (one natural rank) and multiple sequences (three or
        # more natural ranks, every rank of the window holding a natural), so the naturals
        # fix the reading (tests/test_speed_paths.py checks this on random hands).
        return combo.cards[-1] >= BJ_CODE and len(combo.cards) > 1

    def card_strength(self, card: int) -> int:
        return 13 if card == BJ_CODE else 14 if card == RJ_CODE else card >> 2

    # ----------------------------------------------------------------- listing plays
    def core_leads(self, hand: Sequence[int]) -> list[Combo]:
        return core.pagat_leads(hand, self.seq_top, _SINGLE_COMBOS)

    def core_follows(self, hand: Sequence[int], prev: Combo) -> list[Combo] | None:
        return core.pagat_follows(hand, self.seq_top, prev, _SINGLE_COMBOS)

    def core_spec(self) -> tuple:
        return core.pagat_spec(self.seq_top, _SINGLE_COMBOS)

    def core_planner(self, hands, samples: int, params: tuple):
        return core.PagatPlanner(hands, samples, self.seq_top, params) if core.ACTIVE \
            else None

    def core_beat_levels(self, hands, prev: Combo, per: int) -> bytes | None:
        # the core's precious cards are codes 48 and up: Family.precious, which pagat keeps
        return core.pagat_beat_levels(hands, self.seq_top, prev, per)

    def leads_py(self, hand: Sequence[int]) -> list[Combo]:
        nat = _by_rank(hand)
        out: list[Combo] = []
        self._singles(nat, out, -1)
        size = len(hand)
        if size >= 2:
            self._sets(nat, out, None, None)
        if size >= 3:
            held = self._sequences(nat, out, None, None)
            if size >= 6:       # a multiple sequence has at least 3 ranks of 2 cards
                self._multi(nat, out, None, None, held)
        return out

    def follows_py(self, hand: Sequence[int], prev: Combo) -> list[Combo]:
        out: list[Combo] = []
        kind = prev.cls[0]
        if kind == "single":
            self._singles_from_hand(hand, out, prev.key[0])
            return out
        nat = _by_rank(hand)
        if kind == "set":
            self._sets(nat, out, prev.cls[1], prev.key)
        elif kind == "seq":
            self._sequences(nat, out, prev.cls[1], prev.key)
        elif kind == "mseq":
            self._multi(nat, out, prev.cls[1:], prev.key)
        return out

    # singles ---------------------------------------------------------------------
    @staticmethod
    def _singles(nat, out, above: int) -> None:
        singles = _SINGLE_COMBOS
        for r in range(above + 1, 15):
            if nat[r]:
                out.append(singles[nat[r][0]])

    @staticmethod
    def _singles_from_hand(hand, out, above: int) -> None:
        """As ``_singles`` (the first held card of each rank above ``above``), straight from
        the sorted hand: skip to its first card above that rank, then take each new rank."""
        rank_of = RANK_OF
        singles = _SINGLE_COMBOS
        prev = above
        for i in range(bisect_left(hand, _LOWEST_ABOVE[above]), len(hand)):
            c = hand[i]
            if rank_of[c] != prev:
                prev = rank_of[c]
                out.append(singles[c])

    # sets ------------------------------------------------------------------------
    @staticmethod
    def _sets(nat, out, size: int | None, beat: tuple | None) -> None:
        twos, bjs, rjs = nat[TWO], nat[BJ], nat[RJ]
        nt0, nb0, nr0 = len(twos), len(bjs), len(rjs)
        need = 2 if size is None else size
        lo = 0 if beat is None else beat[0]
        wilds: dict = {}            # (2s, BJs, RJs) -> those wild cards, made once per call
        for r in range(lo, 15):
            naturals = nat[r]
            if not naturals:
                continue
            if r < TWO:
                nt, nb, nr = nt0, nb0, nr0
            elif r == TWO:
                nt, nb, nr = 0, nb0, nr0
            elif r == BJ:
                nt, nb, nr = 0, 0, nr0
            else:
                nt = nb = nr = 0
            if len(naturals) + nt + nb + nr < need:
                continue            # too few cards for a set (of this size)
            label = RANK_WORDS[r]
            key = (len(naturals), nt, nb, nr, size)
            shapes = _SET_SHAPES.get(key)
            if shapes is None:
                shapes = _SET_SHAPES[key] = _set_shapes(*key)
            nat_t = tuple(naturals)
            for n, t, b, j, cls, pure in shapes:
                if beat is not None and (r, pure) <= beat:
                    continue
                # naturals, then 2s, BJs, RJs: already in card order
                if pure:
                    cards = nat_t[:n]
                else:
                    w = wilds.get((t, b, j))
                    if w is None:
                        w = wilds[t, b, j] = tuple(twos[:t] + bjs[:b] + rjs[:j])
                    cards = nat_t[:n] + w
                out.append(Combo("set", cls, (r, pure), cards, 0, label))

    # single sequences ------------------------------------------------------------
    def _sequences(self, nat, out, length: int | None, beat: tuple | None) -> int:
        """List the single sequences; returns the ranks 3..A held, as bits (for ``_multi``)."""
        bjs, rjs = nat[BJ], nat[RJ]
        nb, nr = len(bjs), len(rjs)
        jokers = nb + nr
        top = self.seq_top
        # bit r set when a natural of rank r is held: all suits (mixed) and per suit
        any_mask = 0
        per_suit = [0, 0, 0, 0]
        for r in range(top + 1):
            cs = nat[r]
            if cs:
                bit = 1 << r
                any_mask |= bit
                for c in cs:
                    per_suit[c & 3] |= bit
        held = any_mask & 0xFFF             # ranks 3..A
        if not jokers and not any_mask & (any_mask >> 1) & (any_mask >> 2):
            return held                     # no three ranks in a row and nothing wild
        windows = _WINDOWS
        # one int key per (mask, jokers, naturals needed, top rank, length)
        tail = ((jokers * 4 + 2) * 16 + top) * 16 + (length or 0)
        if beat is None or beat[0] == 0:    # mixed sequences (a mixed one needs two naturals)
            key = (any_mask << 16) + tail
            wins = windows.get(key)
            if wins is None:
                wins = windows[key] = _windows(any_mask, jokers, 2, top, length)
            for lo, hi in wins:
                self._one_window(nat, out, lo, hi, None, nb, nr, jokers, beat, any_mask)
        tail -= 256                         # need one natural: single-suited
        for sb in range(4):                 # single-suited sequences
            mask = per_suit[sb]
            # a window's first three ranks hold 3 naturals without a joker, 2 with one joker
            if not mask or (jokers == 0 and not mask & (mask >> 1) & (mask >> 2)) or \
                    (jokers == 1 and not mask & ((mask >> 1) | (mask >> 2))):
                continue
            key = (mask << 16) + tail
            wins = windows.get(key)
            if wins is None:
                wins = windows[key] = _windows(mask, jokers, 1, top, length)
            if not wins:
                continue
            cards_of: list = [None] * 15    # the card of rank r in this suit
            for r in range(top + 1):
                if mask >> r & 1:
                    for c in nat[r]:
                        if c & 3 == sb:
                            cards_of[r] = c
                            break
            for lo, hi in wins:
                self._one_window(cards_of, out, lo, hi, sb, nb, nr, jokers, beat, mask)
        return held

    @staticmethod
    def _one_window(cards_of, out, lo, hi, suit, nb, nr, jokers, beat, mask) -> None:
        """Every play of the window lo..hi: mixed (suit None) or single-suited in ``suit``.

        ``cards_of[r]`` is the list of naturals of rank r (mixed) or the one card of rank r in
        the suit (single-suited), or empty/None; ``mask`` has bit r set when it is not empty.
        Which ranks use their natural and which jokers fill in depends only on the window's
        bits, the jokers and ``beat``: that plan is memoised (see ``_seq_plan``).
        """
        bits = (mask >> lo) & ((1 << (hi - lo + 1)) - 1)
        key = (bits, lo, hi, suit is None, nb, nr, beat)
        plan = _SEQ_PLANS.get(key)
        if plan is None:
            plan = _SEQ_PLANS[key] = _seq_plan(*key)
        if not plan:
            return
        cls, label = ("seq", hi - lo + 1), _SEQ_LABEL[lo, hi, suit]
        for used, tails in plan:
            if suit is None:
                naturals = _make_mixed([cards_of[r][0] for r in used], used, cards_of)
                if naturals is None:
                    continue
                naturals = tuple(naturals)
            else:
                naturals = tuple([cards_of[r] for r in used])
            for ckey, jokers_used in tails:
                out.append(Combo("sequence", cls, ckey, naturals + jokers_used, 0, label))

    # multiple sequences ----------------------------------------------------------
    def _multi(self, nat, out, shape: tuple | None, beat: tuple | None,
               held: int | None = None) -> None:
        """List the multiple sequences; ``held``: the ranks 3..A held, as bits, if known."""
        twos, bjs, rjs = nat[TWO], nat[BJ], nat[RJ]
        nt, nb, nr = len(twos), len(bjs), len(rjs)
        wild = nt + nb + nr
        jokers = nb + nr
        # every rank of the window needs a natural or a joker, so (as for sequences) its first
        # three ranks hold 3 naturals without a joker, 2 with one joker
        if held is not None and ((jokers == 0 and not held & (held >> 1) & (held >> 2)) or
                                 (jokers == 1 and not held & ((held >> 1) | (held >> 2)))):
            return
        have = tuple([len(nat[r]) for r in range(12)])
        key = (have, wild, jokers, shape)
        wins = _MULTI_WINDOWS.get(key)
        if wins is None:
            wins = _MULTI_WINDOWS[key] = _multi_windows(have, wild, jokers, shape)
        if not wins:
            return
        wild_sets = _wild_sets(twos, nb, nr)
        for lo, hi, k in wins:
            if beat is not None and (hi, 1) <= beat:
                continue
            self._multi_window(nat, out, lo, hi, k, twos, nb, nr, wild, beat,
                               _MSEQ_LABEL[lo, hi, k], wild_sets)

    @staticmethod
    def _multi_window(nat, out, lo, hi, k, twos, nb, nr, wild, beat, label, wild_sets) -> None:
        ranks = list(range(lo, hi + 1))
        m = len(ranks)
        jokers = nb + nr
        cls = ("mseq", m, k)
        caps = [min(k, len(nat[r])) for r in ranks]
        # the least deficit and the fewest empty ranks still to come, for pruning
        rest_def = [0] * (m + 1)
        rest_zero = [0] * (m + 1)
        for i in range(m - 1, -1, -1):
            rest_def[i] = rest_def[i + 1] + k - caps[i]
            rest_zero[i] = rest_zero[i + 1] + (caps[i] == 0)
        if rest_def[0] > wild or rest_zero[0] > jokers:
            return
        counts = [0] * m

        def emit(deficit: int, zero: int) -> None:
            pure = 1 if deficit == 0 else 0
            if beat is not None and (hi, pure) <= beat:
                return
            naturals: list[int] = []
            for idx in range(m):
                if counts[idx]:
                    naturals.extend(nat[ranks[idx]][:counts[idx]])
            if deficit == 0:
                out.append(Combo("multiple sequence", cls, (hi, 1), tuple(naturals), 0, label))
                return
            # naturals (ranks 3..A) sort below every wild card, so no sorting is needed
            base = tuple(naturals)
            for wc in wild_sets(deficit, zero):
                out.append(Combo("multiple sequence", cls, (hi, 0), base + wc, 0, label))

        def rec(i: int, deficit: int, zero: int) -> None:
            if i == m:
                emit(deficit, zero)
                return
            nxt_def = rest_def[i + 1]
            nxt_zero = rest_zero[i + 1]
            for n in range(caps[i], -1, -1):
                d = deficit + k - n
                z = zero + (n == 0)
                if d + nxt_def > wild or z + nxt_zero > jokers:
                    break      # fewer naturals here only makes it worse
                counts[i] = n
                rec(i + 1, d, z)
            counts[i] = 0

        rec(0, 0, 0)


_SET_SHAPES: dict = {}
# the lowest card of a rank above rank r (r = -1 .. 14; cards sort by rank, then suit)
_LOWEST_ABOVE = {r: min([c for c in range(54) if RANK_OF[c] > r], default=54)
                 for r in range(-1, 15)}
# one shared (immutable) single combo per card
_SINGLE_COMBOS = [Combo("single", SINGLE, (RANK_OF[c],), (c,), 0, RANK_NAMES[RANK_OF[c]])
                  for c in range(54)]


def _set_shapes(nn: int, nt: int, nb: int, nr: int, size: int | None) -> tuple:
    """How a set can be made from ``nn`` naturals (at least one), ``nt`` 2s, ``nb`` black and
    ``nr`` red jokers: (naturals, 2s, BJs, RJs, class, pure) in listing order (by naturals,
    then 2s, BJs, RJs), of ``size`` cards when given, else of two cards or more."""
    out = []
    for n in range(1, nn + 1):
        for t in range(nt + 1):
            for b in range(nb + 1):
                for j in range(nr + 1):
                    total = n + t + b + j
                    if total < 2 or (size is not None and total != size):
                        continue
                    out.append((n, t, b, j, ("set", total), 1 if t + b + j == 0 else 0))
    return tuple(out)

_WINDOWS: dict = {}
_MULTI_WINDOWS: dict = {}


def _multi_windows(have: tuple, wild: int, jokers: int, shape: tuple | None) -> tuple:
    """The (lo, hi, k) windows worth trying for multiple sequences, in listing order: every
    rank needs a natural or a joker, and the wilds must fill each rank up to k cards.
    ``have`` counts the naturals of ranks 3..A; ``shape`` is (m, k) when following."""
    out = []
    if shape is None:
        ks: Sequence[int] = range(2, max(have) + wild + 1)
        ms = None
    else:
        ms, k0 = shape
        ks = (k0,)
    zpre = [0]                      # prefix counts of ranks without a natural
    for h in have:
        zpre.append(zpre[-1] + (h == 0))
    for k in ks:
        dpre = [0]                  # prefix sums of the wilds each rank would need
        for h in have:
            dpre.append(dpre[-1] + (k - h if h < k else 0))
        feasible = False
        for lo in range(0, 10):
            for m in (range(3, 12 - lo + 1) if ms is None else (ms,)):
                hi = lo + m - 1
                if hi > ACE:
                    break
                if zpre[hi + 1] - zpre[lo] > jokers:
                    break           # longer windows only add missing ranks
                if dpre[hi + 1] - dpre[lo] > wild:
                    if ms is None:
                        break       # and only need more wilds
                    continue
                feasible = True
                out.append((lo, hi, k))
        if not feasible and ms is None:
            break                   # a larger k needs even more wilds
    return tuple(out)


_SEQ_PLANS: dict = {}


def _seq_plan(bits: int, lo: int, hi: int, mixed: bool, nb: int, nr: int, beat) -> tuple:
    """How to make the sequences of the window lo..hi, in listing order: ``(used, tails)`` per
    choice of the ranks that keep their natural (bit ``r - lo`` of ``bits``: a natural is
    held), fewest jokers first; ``tails``: ``(key, jokers)`` per way to fill the other ranks
    with ``nb`` black and ``nr`` red jokers. Only plays beating ``beat`` (when given) count."""
    suited = 0 if mixed else 1
    if beat is not None and (suited, hi, 1) <= beat:
        return ()       # even the pure version of this window does not beat
    present = [r for r in range(lo, hi + 1) if bits >> (r - lo) & 1]
    missing = hi - lo + 1 - len(present)
    spare = nb + nr - missing
    plan = []
    # choose which present ranks get a joker instead of their natural
    for extra in range(0, min(spare, len(present) - 1) + 1):
        u = missing + extra
        pure = 1 if u == 0 else 0
        if beat is not None and (suited, hi, pure) <= beat:
            continue
        for jokered in _subsets(present, extra):
            used = tuple(r for r in present if r not in jokered)
            tails = tuple(((suited, hi, pure), (BJ_CODE,) * b + (RJ_CODE,) * j)  # card order
                          for b, j in _JOKER_SPLITS[u, nb, nr])
            plan.append((used, tails))
    return tuple(plan)


def _windows(mask: int, jokers: int, need: int, top: int, length: int | None) -> tuple:
    """The rank windows lo..hi (lowest lo first, then shortest) that can hold a sequence:
    at most ``jokers`` ranks without a natural (bit of ``mask``), at least ``need`` naturals,
    3 ranks or more, exactly ``length`` when given. Memoised by ``_sequences``."""
    out = []
    for lo in range(0, top - 1):
        if length is None:
            his: Sequence[int] = range(lo + 2, top + 1)
        else:
            his = (lo + length - 1,) if lo + length - 1 <= top else ()
        for hi in his:
            L = hi - lo + 1
            have = (mask & ((1 << (hi + 1)) - (1 << lo))).bit_count()
            if L - have > jokers:
                break      # a longer window only misses more
            if have < need:
                continue
            out.append((lo, hi))
    return tuple(out)


def _wild_sets(twos: list[int], nb: int, nr: int):
    """``f(d, z)``: every way to supply ``d`` wild cards using at least ``z`` jokers, as sorted
    tuples (2s of the lowest suits, then BJs, then RJs); memoised per hand."""
    memo: dict[tuple[int, int], list[tuple]] = {}
    nt = len(twos)

    def f(d: int, z: int) -> list[tuple]:
        got = memo.get((d, z))
        if got is None:
            got = []
            for u in range(z, min(nb + nr, d) + 1):
                t = d - u
                if t > nt:
                    continue
                for b, j in _JOKER_SPLITS[u, nb, nr]:
                    got.append(tuple(twos[:t]) + (BJ_CODE,) * b + (RJ_CODE,) * j)
            memo[(d, z)] = got
        return got
    return f


def _subsets(items: list[int], size: int):
    if size == 0:
        yield ()
        return
    if size == 1:
        for x in items:
            yield (x,)
        return
    from itertools import combinations
    yield from combinations(items, size)


def _make_mixed(naturals: list[int], used: list[int], choice: dict[int, list[int]]):
    """Rebind a sequence's naturals so that they are not all of one suit, if possible.

    A sequence with a single natural card is always single-suited (the jokers take its suit).
    """
    if len(naturals) < 2:
        return None
    suits = {c & 3 for c in naturals}
    if len(suits) > 1:
        return naturals
    s = naturals[0] & 3
    for idx in range(len(used) - 1, -1, -1):
        for c in choice[used[idx]]:
            if c & 3 != s:
                out = list(naturals)
                out[idx] = c
                return out
    return None
