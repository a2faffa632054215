"""The combinations of Zheng Fen, categories A-J (seed ``004_226fd5f9fee0f853.txt``; RULES.md).

Order 3 < 4 < ... < A < 2 < BJ < RJ; the same order says which ranks are *adjacent*, so
``K K A A 2 2`` is a sequence of pairs and ``2 2 3 3 4 4`` is not. Rank indices 0..12 are the
natural ranks 3..2 (as in :mod:`shangyou.cards`); jokers are 13 and 14.

Where this differs from Zheng Shangyou (and so has its own code, sharing only
:class:`~shangyou.games.climbing.combo.Combo` and the engine):

* **Jokers are wild in B-I** (pairs to suit sequences), standing for any natural card (3..2),
  **themselves in A** (the two highest singles) and **never in J**. A substitute has exactly the
  rank of the card it stands for: there is no "pure beats impure" here, so ``8 8 8`` and
  ``8 BJ RJ`` are equal and neither beats the other.
* **Sequences compete across lengths**: sequences of pairs (E), triples (F), quartets (G) and
  suit sequences (I) compare by their top rank, then by length (longer wins at the same top).
* **Full houses (H)** are a triple and two more cards of one of four kinds: a pair, two adjacent
  cards of one suit, a three and any card, or two counting cards (5, 10, K). Only the triple's
  rank counts.
* **The special category (J)** beats everything in A-I: 5-10-K of mixed suits < 5-10-K of one
  suit < four 2s.

Decisions (docs/rules/zheng-fen.md): every pair, triple and quartet needs at least one natural
card (two jokers alone are two singles); in sequences a joker may fill a rank, but each sequence
still holds natural cards; the two extra cards of a full house may be any cards, even of the
triple's rank.

Plays are listed at rank level where suits do not matter (sets, sequences of sets, full houses
whose extra cards qualify by rank); suits are bound where they matter (suit sequences, 5-10-K,
two adjacent cards of one suit).

``leads`` and ``follows`` ask the compiled core (``games/climbing/core.py``) when it is built and
on; ``leads_py`` and ``follows_py`` are the Python reference it is tested against.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

from ...cards import BJ_CODE, RANK_NAMES, RANK_OF, RANK_WORDS
from ..climbing import core
from ..climbing.combo import Combo
from ..climbing.family import CompiledFamily
from . import explain

TWO = 12
FIVE, TEN, KING = 2, 7, 10
COUNTING = (FIVE, TEN, KING)
POINTS = {FIVE: 5, TEN: 10, KING: 10}
CARD_POINTS = [POINTS.get(RANK_OF[c], 0) if c < BJ_CODE else 0 for c in range(54)]

SINGLE, PAIR, TRIPLE, QUARTET = ("single",), ("pair",), ("triple",), ("quartet",)
SEQ_CLS = {2: ("pairs",), 3: ("triples",), 4: ("quartets",)}
SET_CLS = {2: PAIR, 3: TRIPLE, 4: QUARTET}
SET_KIND = {2: "pair", 3: "triple", 4: "quartet"}
SEQ_KIND = {2: "sequence of pairs", 3: "sequence of triples", 4: "sequence of quartets"}
SEQ_WORD = {2: "pairs", 3: "triples", 4: "quartets"}
FULL_HOUSE, SUIT_SEQ, SPECIAL = ("full house",), ("suit sequence",), ("special",)
SUIT_WORD = ("diamonds", "clubs", "hearts", "spades")
SPECIAL_LABEL = ("5-10-K", "5-10-K in one suit", "four twos")

# joker choices: the jokers held -> ways to use u of them, as tuples of cards
_JOKER_USES: dict[tuple, list[list[tuple]]] = {}


def _joker_uses(jokers: tuple) -> list[list[tuple]]:
    got = _JOKER_USES.get(jokers)
    if got is None:
        got = [sorted(set(combinations(jokers, u))) for u in range(len(jokers) + 1)]
        _JOKER_USES[jokers] = got
    return got


def points_of(cards) -> int:
    """Card points: each 5 scores 5, each 10 and K 10; all else (jokers too) nothing."""
    return sum(map(_POINTS_OF_CARD, cards))     # (a generator cost twice as much a card)


_POINTS_OF_CARD = CARD_POINTS.__getitem__


class _Hand:
    __slots__ = ("nat", "jokers", "have", "suit_card")

    def __init__(self, hand: Sequence[int]):
        nat: list[list[int]] = [[] for _ in range(13)]
        jokers = []
        for c in hand:           # hands are sorted: rank, then suit
            if c >= BJ_CODE:
                jokers.append(c)
            else:
                nat[c >> 2].append(c)
        self.nat = nat
        self.jokers = tuple(jokers)
        self.have = [len(x) for x in nat]
        self.suit_card: list[list[int | None]] | None = None

    def suited(self) -> list[list[int | None]]:
        """``suited()[s][r]``: the card of rank r in suit s, or None."""
        if self.suit_card is None:
            sc: list[list[int | None]] = [[None] * 13 for _ in range(4)]
            for r in range(13):
                for c in self.nat[r]:
                    sc[c & 3][r] = c
            self.suit_card = sc
        return self.suit_card


class ZhengFenFamily(CompiledFamily):
    name = "zheng-fen"

    # ---------------------------------------------------------------- public helpers
    def points(self, cards) -> int:
        return points_of(cards)

    def card_strength(self, card: int) -> int:
        return RANK_OF[card]

    def may_be_ambiguous(self, combo: Combo) -> bool:
        # jokers allow other readings; four 2s are also a quartet of 2s
        # (a single card is a single)
        return len(combo.cards) > 1 and (combo.cards[-1] >= BJ_CODE or combo.cls == SPECIAL
                                         or combo.cls == QUARTET)

    def precious(self, card: int) -> bool:
        return card >= 48  # 2s and jokers

    # ------------------------------------------------ explanations of a refusal (explain.py)
    KINDS_TEXT = ("single; pair, triple, quartet; sequences of 3+ pairs, triples or quartets; "
                  "full house; suit sequence of 5+; the specials 5-10-K and four 2s",
                  "单张；对子、三张、四张；3组以上的连对、连三张、连四张；三带二；5张以上的同花顺子；"
                  "特殊牌型5-10-K和四个2")

    def why_not_combo(self, cards: tuple):
        return explain.zheng_fen(self, cards)

    def why_tie(self, mine: Combo, last: Combo):
        return explain.zheng_fen_tie(mine, last)

    def beaters(self, last: Combo) -> tuple[str, str]:
        return "a higher special", "更大的特殊牌型"

    # ------------------------------------------------------------------ listing plays
    def core_leads(self, hand: Sequence[int]) -> list[Combo]:
        return core.zf_leads(hand)

    def core_follows(self, hand: Sequence[int], prev: Combo) -> list[Combo] | None:
        return core.zf_follows(hand, prev)

    def core_spec(self) -> tuple:
        return core.ZF_SPEC

    def leads_py(self, hand: Sequence[int]) -> list[Combo]:
        h = _Hand(hand)
        out: list[Combo] = []
        _singles(h, out, -1)
        for k in (2, 3, 4):
            _sets(h, out, k, None)
        for k in (2, 3, 4):
            _set_sequences(h, out, k, None)
        _full_houses(h, out, None)
        _suit_sequences(h, out, None)
        _specials(h, out, -1)
        return out

    def follows_py(self, hand: Sequence[int], prev: Combo) -> list[Combo]:
        h = _Hand(hand)
        out: list[Combo] = []
        cls = prev.cls
        if cls == SPECIAL:
            _specials(h, out, prev.key[0])
            return out
        if cls == SINGLE:
            _singles(h, out, prev.key[0])
        elif cls in (PAIR, TRIPLE, QUARTET):
            _sets(h, out, {PAIR: 2, TRIPLE: 3, QUARTET: 4}[cls], prev.key)
        elif cls in (SEQ_CLS[2], SEQ_CLS[3], SEQ_CLS[4]):
            _set_sequences(h, out, {SEQ_CLS[2]: 2, SEQ_CLS[3]: 3, SEQ_CLS[4]: 4}[cls], prev.key)
        elif cls == FULL_HOUSE:
            _full_houses(h, out, prev.key)
        elif cls == SUIT_SEQ:
            _suit_sequences(h, out, prev.key)
        _specials(h, out, -1)
        return out


# ------------------------------------------------------------------------ generators
def _singles(h: _Hand, out: list, above: int) -> None:
    for r in range(above + 1, 13):
        if h.nat[r]:
            out.append(Combo("single", SINGLE, (r,), (h.nat[r][0],), 0, RANK_NAMES[r]))
    for c in h.jokers:
        r = RANK_OF[c]
        if r > above:
            out.append(Combo("single", SINGLE, (r,), (c,), 0, RANK_NAMES[r]))


def _sets(h: _Hand, out: list, k: int, beat: tuple | None) -> None:
    """Pairs, triples, quartets (B, C, D): natural cards of one rank plus jokers."""
    uses = _joker_uses(h.jokers)
    cls, kind = SET_CLS[k], SET_KIND[k]
    lo = 0 if beat is None else beat[0] + 1
    nu = len(uses)
    for r in range(lo, 13):
        nat = h.nat[r]
        if not nat or len(nat) + nu - 1 < k:
            continue
        for n in range(min(k, len(nat)), 0, -1):
            j = k - n
            if j >= nu:
                break
            base = tuple(nat[:n])
            for js in uses[j]:
                out.append(Combo(kind, cls, (r,), base + js, 0, RANK_WORDS[r]))


def _set_sequences(h: _Hand, out: list, k: int, beat: tuple | None) -> None:
    """Sequences of 3+ pairs / triples / quartets (E, F, G); key (top rank, length)."""
    have = h.have
    nj = len(h.jokers)
    uses = _joker_uses(h.jokers)
    cls, kind, word = SEQ_CLS[k], SEQ_KIND[k], SEQ_WORD[k]
    for lo in range(0, 11):
        deficit = 0
        for hi in range(lo, 13):
            deficit += k - have[hi] if have[hi] < k else 0
            if deficit > nj:
                break
            m = hi - lo + 1
            if m < 3:
                continue
            if beat is not None and (hi, m) <= beat:
                continue
            label = f"{RANK_NAMES[lo]}-{RANK_NAMES[hi]} {word}"
            caps = [min(k, have[r]) for r in range(lo, hi + 1)]
            # spare jokers may replace natural cards held: choose which ranks give them up
            for extra in range(0, nj - deficit + 1):
                for drop in _drops(caps, extra):
                    naturals: list[int] = []
                    for i, r in enumerate(range(lo, hi + 1)):
                        naturals.extend(h.nat[r][:caps[i] - drop[i]])
                    if not naturals:
                        continue
                    base = tuple(naturals)
                    for js in uses[deficit + extra]:
                        out.append(Combo(kind, cls, (hi, m), base + js, 0, label))


def _drops(caps: list[int], extra: int):
    """Ways to take ``extra`` natural cards back (at most caps[i] from rank i)."""
    if extra == 0:
        yield [0] * len(caps)
        return
    if extra == 1:
        for i, c in enumerate(caps):
            if c:
                d = [0] * len(caps)
                d[i] = 1
                yield d
        return
    for i, c in enumerate(caps):       # extra == 2 (one pack has two jokers)
        if c >= 2:
            d = [0] * len(caps)
            d[i] = 2
            yield d
        for i2 in range(i + 1, len(caps)):
            if c and caps[i2]:
                d = [0] * len(caps)
                d[i] = d[i2] = 1
                yield d


def _suit_sequences(h: _Hand, out: list, beat: tuple | None) -> None:
    """Five or more cards of one suit in a row (I); jokers take the missing places."""
    sc = h.suited()
    nj = len(h.jokers)
    uses = _joker_uses(h.jokers)
    for s in range(4):
        row = sc[s]
        for lo in range(0, 9):
            missing = 0
            present: list[int] = []
            for hi in range(lo, 13):
                if row[hi] is None:
                    missing += 1
                    if missing > nj:
                        break
                else:
                    present.append(hi)
                L = hi - lo + 1
                if L < 5 or not present:
                    continue
                if beat is not None and (hi, L) <= beat:
                    continue
                label = f"{RANK_NAMES[lo]}-{RANK_NAMES[hi]} in {SUIT_WORD[s]}"
                for extra in range(0, nj - missing + 1):
                    if extra >= len(present):
                        break
                    for dropped in combinations(present, extra):
                        base = tuple(row[r] for r in present if r not in dropped)
                        for js in uses[missing + extra]:
                            out.append(Combo("suit sequence", SUIT_SEQ, (hi, L), base + js, 0,
                                             label))


def _kicker_ok(a: int, b: int) -> bool:
    """May two natural cards complete a full house? pair, suited neighbours, a three, counters."""
    ra, rb = a >> 2, b >> 2
    if ra == rb or ra == 0 or rb == 0:
        return True
    if ra in COUNTING and rb in COUNTING:
        return True
    return abs(ra - rb) == 1 and (a & 3) == (b & 3)


def _kickers(rest: list[list[int]], jokers: tuple) -> list[tuple]:
    """Every distinct pair of extra cards for a full house from the cards left (per rank)."""
    found: set[tuple] = set()
    ranks = [r for r in range(13) if rest[r]]
    for i, ra in enumerate(ranks):
        ca = rest[ra]
        if len(ca) >= 2:
            found.add((ca[0], ca[1]))                   # a pair
        for rb in ranks[i + 1:]:
            cb = rest[rb]
            if ra == 0 or (ra in COUNTING and rb in COUNTING):
                found.add((ca[0], cb[0]))               # by rank alone: suits do not matter
            elif rb == ra + 1:
                for x in ca:                            # neighbours: one per common suit
                    for y in cb:
                        if x & 3 == y & 3:
                            found.add((x, y))
    for j in jokers:                                    # a joker and any card
        for r in ranks:
            found.add((rest[r][0], j))
    if len(jokers) == 2:
        found.add(jokers)
    return sorted(found)


def _full_houses(h: _Hand, out: list, beat: tuple | None) -> None:
    """A triple (jokers allowed) and two more cards of an allowed kind (H); key: triple rank."""
    uses = _joker_uses(h.jokers)
    lo = 0 if beat is None else beat[0] + 1
    seen: set[tuple] = set()
    for t in range(lo, 13):
        nat = h.nat[t]
        if not nat or len(nat) + len(uses) - 1 < 3:
            continue
        for n in range(min(3, len(nat)), 0, -1):
            j = 3 - n
            if j >= len(uses):
                break
            rest = list(h.nat)          # the other cards: only rank t loses cards
            rest[t] = nat[n:]
            label = RANK_WORDS[t] + " full"
            for js in uses[j]:
                left = tuple(x for x in h.jokers if x not in js)
                triple = tuple(nat[:n]) + js
                for kick in _kickers(rest, left):
                    cards = tuple(sorted(triple + kick))
                    sig = (cards, t)
                    if sig in seen:
                        continue
                    seen.add(sig)
                    out.append(Combo("full house", FULL_HOUSE, (t,), cards, 0, label))


def _specials(h: _Hand, out: list, above: int) -> None:
    """5-10-K mixed (0) < 5-10-K in one suit (1) < four 2s (2); never with jokers (J)."""
    nat = h.nat
    if above < 1 and nat[FIVE] and nat[TEN] and nat[KING]:
        if above < 0:
            mixed = _mixed_5_10_k(nat)
            if mixed is not None:
                out.append(Combo("special", SPECIAL, (0,), mixed, 1, SPECIAL_LABEL[0]))
        sc = h.suited()
        for s in range(4):
            if sc[s][FIVE] is not None and sc[s][TEN] is not None and sc[s][KING] is not None:
                out.append(Combo("special", SPECIAL, (1,), (sc[s][FIVE], sc[s][TEN],
                                                             sc[s][KING]), 1, SPECIAL_LABEL[1]))
    if above < 2 and len(nat[TWO]) == 4:
        out.append(Combo("special", SPECIAL, (2,), tuple(nat[TWO]), 1, SPECIAL_LABEL[2]))


def _mixed_5_10_k(nat) -> tuple | None:
    """A 5, 10 and K not all of one suit (lowest suits first), or None if impossible."""
    for a in nat[FIVE]:
        for b in nat[TEN]:
            for c in nat[KING]:
                if not (a & 3 == b & 3 == c & 3):
                    return (a, b, c)
    return None
