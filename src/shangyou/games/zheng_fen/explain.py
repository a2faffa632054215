"""Why cards are no Zheng Fen combination, or lose a tie (``games/climbing/explain.py``).

Only asked when ``apply`` refuses a play: the first rule of categories A-J the cards break.
"""

from __future__ import annotations

from ...cards import BJ_CODE
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
from ..why import Why, kind_zh

TWO, THREE = 12, 0
SEQ_KIND = {2: "sequence of pairs", 3: "sequence of triples", 4: "sequence of quartets"}


def zheng_fen(fam, cards: tuple) -> Why | None:
    n = len(cards)
    nat, wilds = shape(cards, lambda c: c >= BJ_CODE)
    jokers = len(wilds)
    if not nat:
        return why("needs_natural", cards, set="pair", set_zh=kind_zh("pair"))
    if len(nat) == 1:
        return None
    if n == 2:
        return one_rank(cards, nat, "pair")
    if TWO in nat and THREE in nat and \
            missing(list(nat), pos=lambda r: r + 13 if r < 6 else r) <= jokers:
        return why("run_past_two", cards)      # ranks in a row only if 3 followed the 2
    counts = sorted(nat.values())
    if counts[-1] == 1:                  # single cards: only a suit sequence (or 5-10-K)
        seq = "suit sequence"
        if n < 5:
            return why("seq_short", cards, seq=seq, seq_zh=kind_zh(seq), min=5)
        if len({c & 3 for c in cards if c < BJ_CODE}) > 1:
            return why("seq_suit", cards)
        return sequence_problem(cards, nat, jokers, seq, 5, TWO)
    if n == 5 and counts[-1] + jokers >= 3:
        return why("full_house_extra", cards)
    if not jokers:
        found = doubled(cards, nat, "suit sequence")
        if found is not None:
            return found
    if not jokers:
        return run_problem(cards, nat, SEQ_KIND.get(counts[-1], "sequence of pairs"), 3, TWO,
                           (2, 3, 4))
    if missing(list(nat)) > jokers:
        run = SEQ_KIND.get(counts[-1], "sequence of pairs")
        return run_problem(cards, nat, run, 3, TWO, (2, 3, 4))
    return None


def zheng_fen_tie(mine: Combo, last: Combo) -> str | None:
    """Sequences (E-G, I) have keys (top rank, length): the same top and not longer loses."""
    if len(mine.key) == 2 and mine.key[0] == last.key[0] and mine.key[1] <= last.key[1]:
        return "shorter_sequence" if mine.key[1] < last.key[1] else None
    return None
