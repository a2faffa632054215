"""Why a climbing play is refused, in words (``games/why.py`` holds the texts).

Two questions, asked only when ``apply`` refuses a play (never on the legal path):

* :func:`not_combination`: the cards form no combination of the family. Each family answers
  with the rule its cards break (``Family.why_not_combo``: a sequence with a gap, twos where
  this game allows none, a set of two ranks…); the helpers here read the cards' shape.
* :func:`not_beating`: the cards form a combination that does not beat the play on the table:
  another kind or number of cards, a lower one, an equal one, or lost on the game's tie-break
  (``Family.tie_rule``), or a bomb on the table.

Every answer is a :class:`~shangyou.games.why.Why` whose code names the rule.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from ...cards import RANK_NAMES, RANK_OF, Cards
from ..why import Why, a_kind, kind_zh
from .combo import Combo

#: kinds whose plays compare only at the same length (a different length: "wrong_length")
RUN_KINDS = frozenset({"sequence", "straight", "multiple sequence", "consecutive pairs",
                       "consecutive triples", "stair", "plate", "straight flush",
                       "suit sequence", "sequence of pairs", "sequence of triples",
                       "sequence of quartets"})


def text_of(cards: Sequence[int]) -> str:
    return str(Cards(tuple(sorted(cards))))


def describe(combo: Combo) -> str:
    return f"{Cards(combo.cards)} ({combo.describe()})"


# ------------------------------------------------------------------ not a combination
def not_combination(family, cards: Sequence[int]) -> Why:
    """The rule ``cards`` break: the family's own answer, else the list of its kinds."""
    cards = tuple(sorted(cards))
    why = family.why_not_combo(cards)
    if why is not None:
        return why
    return generic(family, cards)


def generic(family, cards: Sequence[int]) -> Why:
    en, zh = family.KINDS_TEXT
    return Why("generic", {"cards": text_of(cards), "kinds": en, "kinds_zh": zh})


def shape(cards: Sequence[int], wild) -> tuple[Counter, list[int]]:
    """(count of each natural rank, the wild cards): ``wild(card)`` says a card is wild."""
    nat: Counter = Counter()
    wilds = []
    for c in cards:
        if wild(c):
            wilds.append(c)
        else:
            nat[RANK_OF[c]] += 1
    return nat, wilds


def first_gap(ranks: Sequence[int], pos=lambda r: r) -> tuple[int, int] | None:
    """The first two ranks of ``ranks`` (sorted by ``pos``) that are not neighbours."""
    rs = sorted(ranks, key=pos)
    for a, b in zip(rs, rs[1:]):
        if pos(b) != pos(a) + 1:
            return a, b
    return None


def missing(ranks: Sequence[int], pos=lambda r: r) -> int:
    ps = sorted(pos(r) for r in ranks)
    return ps[-1] - ps[0] + 1 - len(ps)


def why(code: str, cards: Sequence[int], **params) -> Why:
    return Why(code, {"cards": text_of(cards), **params})


def sequence_problem(cards: tuple, nat: Counter | dict, wilds: int, seq: str, min_len: int,
                     top: int, wilds_allowed: bool = True, pos=lambda r: r,
                     wild_names: str = "jokers") -> Why | None:
    """Cards with at most one natural of each rank, read as a single sequence: its fault."""
    n = len(cards)
    zh = kind_zh(seq)
    twos = [r for r in nat if r > top]
    if twos:
        return why("seq_twos", cards, seq=seq, seq_zh=zh)
    if wilds and not wilds_allowed:
        return why("seq_wilds", cards, seq=seq, seq_zh=zh, wild=wild_names)
    if n < min_len:
        return why("seq_short", cards, seq=seq, seq_zh=zh, min=min_len)
    gap = first_gap(list(nat), pos)
    if gap is not None:
        a, b = RANK_NAMES[gap[0]], RANK_NAMES[gap[1]]
        if not wilds:
            return why("seq_gap", cards, seq=seq, seq_zh=zh, a=a, b=b)
        lo, hi = min(nat, key=pos), max(nat, key=pos)
        need = missing(list(nat), pos)
        if need > wilds:
            return why("seq_gap_wild", cards, seq=seq, seq_zh=zh, a=RANK_NAMES[lo],
                       b=RANK_NAMES[hi], missing=need, wilds=wilds)
    return None


def doubled(cards: tuple, nat: Counter, seq: str) -> Why | None:
    """Cards of three or more ranks, one card of each but one rank twice (``6 7 7 8``): read
    as a sequence with a card too many."""
    counts = sorted(nat.values())
    if len(counts) >= 3 and counts[-1] == 2 and counts[-2] == 1:
        rank = max(nat, key=lambda r: nat[r])
        return why("seq_one_each", cards, seq=seq, seq_zh=kind_zh(seq), count=2,
                   rank=RANK_NAMES[rank])
    return None


def run_problem(cards: tuple, nat: Counter, run: str, min_ranks: int, top: int,
                widths: Sequence[int], pos=lambda r: r) -> Why | None:
    """Cards with two or more naturals of some rank, read as a run of equal groups."""
    zh = kind_zh(run)
    run = a_kind(run)
    counts = set(nat.values())
    if len(counts) > 1:
        return why("run_uneven", cards, a_run=run, run_zh=zh)
    width = counts.pop()
    if width not in widths:
        return why("run_width", cards, a_run=run, run_zh=zh, width=width)
    if any(r > top for r in nat):
        return why("run_twos", cards, a_run=run, run_zh=zh)
    gap = first_gap(list(nat), pos)
    if gap is not None:
        return why("run_gap", cards, a_run=run, run_zh=zh, a=RANK_NAMES[gap[0]],
                   b=RANK_NAMES[gap[1]])
    if len(nat) < min_ranks:
        return why("run_short", cards, a_run=run, run_zh=zh, min=min_ranks, count=len(nat))
    return None


def one_rank(cards: tuple, nat: Counter, set_name: str = "pair") -> Why:
    ranks = sorted(nat)
    return why("one_rank", cards, set=set_name, set_zh=kind_zh(set_name), count=len(ranks),
               ranks=", ".join(RANK_NAMES[r] for r in ranks))


# ------------------------------------------------------------------ does not beat
def not_beating(family, readings: Sequence[Combo], last: Combo) -> Why:
    """Why no reading of the same cards beats ``last`` (the play on the table)."""
    cards = readings[0].cards
    base = {"cards": text_of(cards), "last": describe(last)}
    same = [r for r in readings if r.tier == last.tier and r.cls == last.cls]
    if same:
        return _lower(family, max(same, key=lambda r: r.key), last, base)
    mine = readings[0]
    if last.tier > mine.tier:
        en, zh = family.beaters(last)
        return Why("bomb_on_table", {**base, "last_kind": last.kind,
                                     "last_kind_zh": kind_zh(last.kind),
                                     "beaters": en, "beaters_zh": zh})
    same_kind = [r for r in readings if r.kind == last.kind and r.tier == last.tier]
    kind = last.kind
    if same_kind and kind in RUN_KINDS and len(cards) != len(last.cards):
        return Why("wrong_length", {**base, "kind": kind, "kind_zh": kind_zh(kind),
                                    "need": len(last.cards), "got": len(cards)})
    if len(cards) != len(last.cards):
        return Why("wrong_count", {**base, "kind": kind, "kind_zh": kind_zh(kind),
                                   "need": len(last.cards), "got": len(cards)})
    got = mine.kind if not same_kind else f"{mine.kind} of another shape"
    return Why("wrong_kind", {**base, "kind": kind, "kind_zh": kind_zh(kind),
                              "got_kind": got, "got_kind_zh": kind_zh(mine.kind)})


def _lower(family, mine: Combo, last: Combo, base: dict) -> Why:
    kind = {"kind": last.kind, "kind_zh": kind_zh(last.kind)}
    tie = family.why_tie(mine, last)
    if tie is not None:
        return Why(tie, base)
    if mine.key == last.key:
        return Why("equal", base)
    return Why("lower", {**base, **kind})


def purity_tie(mine: Combo, last: Combo, pure_index: int = -1) -> str | None:
    """Pagat and Owen: keys (rank…, pure) with pure 1 for no wild card. The rule that makes
    ``mine`` lose when the rest of the key is equal."""
    if mine.key[:pure_index] != last.key[:pure_index] or len(mine.key) < 2:
        return None
    if mine.key[pure_index] == 0:
        return "impure" if last.key[pure_index] == 1 else "impure_equal"
    return None

