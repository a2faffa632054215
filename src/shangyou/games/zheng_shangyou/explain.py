"""Why cards are no combination, or lose a tie, in the three Zheng Shangyou families
(pagat, winner, Owen): the rule each one names (``games/climbing/explain.py``, ``games/why.py``).

Only asked when ``apply`` refuses a play. Each function reads the cards' shape (the natural
cards of each rank, the wild cards) and names the first rule of the family's kinds they break;
None where no single rule says it better than the list of the family's kinds.
"""

from __future__ import annotations

from collections import Counter

from ...cards import BJ_CODE, RANK_NAMES, RANK_OF
from ..climbing.combo import Combo
from ..climbing.explain import (
    doubled,
    missing,
    one_rank,
    run_problem,
    sequence_problem,
    shape,
    why,
)
from ..why import Why, a_kind, kind_zh

ACE, TWO = 11, 12


def wild_run(cards: tuple, nat, wilds: int, fill: int, run: str, min_ranks: int,
             or_joker: str, or_joker_zh: str) -> Why | None:
    """Cards with two or more naturals of some rank, read as a run of equal groups where
    ``wilds`` wild cards may make up a group and ``fill`` of them (jokers) may stand for a
    whole rank: the first rule they break."""
    if not wilds:
        return run_problem(cards, nat, run, min_ranks, ACE, range(2, 25))
    k = max(nat.values())
    lo, hi = min(nat), max(nat)
    short = sum(k - nat.get(r, 0) for r in range(lo, hi + 1))
    words = {"a_run": a_kind(run), "run_zh": kind_zh(run)}
    if short > wilds:                    # the wild cards cannot even the groups up
        return why("run_uneven", cards, **words)
    gaps = [r for r in range(lo, hi + 1) if r not in nat]
    if len(gaps) > fill:
        return why("rank_natural", cards, **words, rank=RANK_NAMES[gaps[0]],
                   or_joker=or_joker, or_joker_zh=or_joker_zh)
    if hi - lo + 1 < min_ranks and wilds - short < k:
        return why("run_short", cards, **words, min=min_ranks, count=hi - lo + 1)
    return None


# -------------------------------------------------------------------------------- pagat
def pagat(fam, cards: tuple) -> Why | None:
    n = len(cards)
    jokers = sum(c >= BJ_CODE for c in cards)
    twos = sum(RANK_OF[c] == TWO for c in cards)
    nat, _ = shape(cards, lambda c: c >= BJ_CODE or RANK_OF[c] == TWO)
    if len(nat) <= 1:
        return None                      # one rank and wild cards: always a set
    if n == 2:
        return one_rank(cards, nat, "pair")
    if max(nat.values()) == 1:           # read as a single sequence
        seq = Counter(nat)
        if twos:
            if not fam.twos_in_sequences:
                return why("seq_twos", cards, seq="sequence", seq_zh=kind_zh("sequence"))
            if twos > 1:
                return why("seq_one_each", cards, seq="sequence", seq_zh=kind_zh("sequence"),
                           count=twos, rank="2")
            seq[TWO] = 1
        return sequence_problem(cards, seq, jokers, "sequence", 3, fam.seq_top)
    # two or more naturals of a rank: a multiple sequence (or a sequence with a card too many)
    if not twos and not jokers:
        found = doubled(cards, nat, "sequence")
        if found is not None:
            return found
    return wild_run(cards, nat, twos + jokers, jokers, "multiple sequence", 3, " or a joker",
                    "或王")


def pagat_tie(mine: Combo, last: Combo) -> str | None:
    if mine.kind == "sequence":
        if mine.key[0] < last.key[0]:
            return "mixed_sequence"
        if mine.key[:2] != last.key[:2]:
            return None
        return "impure" if mine.key[2] < last.key[2] else \
            ("impure_equal" if mine.key[2] == 0 else None)
    if mine.kind in ("set", "multiple sequence"):
        return _purity(mine, last)
    return None


def _purity(mine: Combo, last: Combo) -> str | None:
    """Keys (rank, pure): pure 1 without wild cards."""
    if len(mine.key) < 2 or mine.key[0] != last.key[0]:
        return None
    if mine.key[1] == 0:
        return "impure" if last.key[1] == 1 else "impure_equal"
    return None


# ------------------------------------------------------------------------------- winner
def winner(fam, cards: tuple) -> Why | None:
    n = len(cards)
    if any(c >= BJ_CODE for c in cards):
        return why("jokers_limited", cards)
    nat, _ = shape(cards, lambda c: False)
    counts = sorted(nat.values())
    if len(nat) == 1:
        if n == 4 and fam.bomb == "kicker":
            return why("bomb_kicker", cards)
        return why("set_size", cards, count=n, max=5 if fam.bomb == "kicker" else 4)
    if n == 5 and counts == [1, 4] and fam.bomb == "quad":
        return why("bomb_quad", cards)
    if n == 2:
        return one_rank(cards, nat, "pair")
    if len(set(counts)) == 1:
        width = counts[0]
        if width == 1:
            return _straight(fam, cards, nat)
        run = "consecutive pairs" if width == 2 else "consecutive triples"
        return run_problem(cards, nat, run, 2, ACE, (2, 3))
    if n == 5:
        return why("full_house_pair", cards)
    found = doubled(cards, nat, "straight")
    if found is not None:
        return found
    run = "consecutive pairs" if counts[-1] == 2 else "consecutive triples"
    return why("run_uneven", cards, a_run=a_kind(run), run_zh=kind_zh(run))


def _straight(fam, cards: tuple, nat) -> Why | None:
    n = len(cards)
    seq, zh = "straight", kind_zh("straight")
    if n < fam.min_straight:
        return why("seq_short", cards, seq=seq, seq_zh=zh, min=fam.min_straight)
    ranks = set(nat)
    if TWO in ranks and 10 in ranks and ACE in ranks:   # K A 2: round the corner
        return why("seq_wrap", cards)

    def position(ace: int):
        return lambda r: ace if r == ACE else 1 if r == TWO else r + 2
    # the ace read high or low, whichever leaves fewer ranks missing
    pos = min((position(13), position(0)), key=lambda p: missing(list(ranks), p))
    return sequence_problem(cards, nat, 0, seq, fam.min_straight, TWO, pos=pos)


def winner_tie(mine: Combo, last: Combo) -> str | None:
    if mine.kind in ("straight", "straight flush"):
        if len(mine.key) == 2 and mine.key[0] == last.key[0] and mine.key[1] < last.key[1]:
            return "suit_tie"
        return None
    a, b = mine.key[0], last.key[0]
    if a < b and RANK_OF[a] == RANK_OF[b]:
        return "suit_tie"
    return None


def winner_beaters(last: Combo) -> tuple[str, str]:
    if last.kind == "bomb":
        return "a higher bomb or a straight flush", kind_zh("a higher bomb or a straight flush")
    return ("a higher straight flush of the same length",
            kind_zh("a higher straight flush of the same length"))


# --------------------------------------------------------------------------------- Owen
def owen(fam, cards: tuple) -> Why | None:
    n = len(cards)
    nat, wilds = shape(cards, lambda c: c >= BJ_CODE or RANK_OF[c] == TWO)
    jokers = sum(c >= BJ_CODE for c in cards)
    if not nat:                                   # 2s and jokers only
        if jokers == 2 and n > 2:
            return why("rocket_only", cards)
        if jokers:
            return why("wild_top", cards)
        return why("set_size", cards, count=n, max=4)
    if len(nat) == 1:
        if n == 5:
            return why("full_house_pair", cards)
        if n > 5:
            return why("set_size", cards, count=n, max=4)
        return None
    if n == 2:
        return one_rank(cards, nat, "pair")
    if max(nat.values()) == 1:
        return sequence_problem(cards, nat, len(wilds), "straight", 5, ACE,
                                wilds_allowed=False, wild_names="2s and jokers")
    counts = sorted(nat.values())
    if n == 5 and len(set(counts)) > 1:
        return why("full_house_pair", cards)
    if not wilds:
        found = doubled(cards, nat, "straight")
        if found is not None:
            return found
    run = "stair" if counts[-1] == 2 else "plate"
    if counts[-1] > 3:
        return why("run_width", cards, a_run=a_kind(run), run_zh=kind_zh(run), width=counts[-1])
    return wild_run(cards, nat, len(wilds), 0, run, 2, "", "")


def owen_beaters(last: Combo) -> tuple[str, str]:
    if last.kind == "quad":
        return "a higher quad or the rocket", "更大的炸弹或火箭"
    return "nothing: it beats everything", "没有：它最大"
