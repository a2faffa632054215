"""Points and level changes of Sheng ji (seed ``003_0367b52b0c4da365.txt``; RULES.md).

* Point cards: each 5 counts 5, each 10 and K counts 10 (100 per pack; jokers nothing).
* The declarers' opponents' points decide the level change in steps of ``20 * decks`` points
  (40 with two decks; the one-deck "forty points" game changes sides at 40).
* Levels run 2, 3, ..., A (``LEVEL_ORDER`` as rank indices); an optional set of must-play
  ranks stops an advance on the first of them reached.
"""

from __future__ import annotations

from collections.abc import Iterable

from ...cards import BJ_CODE
from .order import LEVEL_RANK, LEVELS

__all__ = ["POINTS", "LEVEL_ORDER", "points", "level_change", "level_step", "next_level",
           "level_name"]

# rank index (0..12 = 3..A, 2) -> points
POINTS = {2: 5, 7: 10, 10: 10}                  # 5, 10, K
# the level rank indices in playing order 2, 3, ..., A
LEVEL_ORDER: tuple[int, ...] = tuple(LEVEL_RANK[name] for name in LEVELS)
_LEVEL_INDEX = {r: i for i, r in enumerate(LEVEL_ORDER)}
ACE_LEVEL = LEVEL_ORDER[-1]


# the points of each card code (0..53), read without a Python frame a card
_POINT_OF: tuple[int, ...] = tuple(POINTS.get(c >> 2, 0) if c < BJ_CODE else 0
                                   for c in range(BJ_CODE + 2))


def points(cards: Iterable[int]) -> int:
    """Card points (of card codes 0..53): 5s count 5, 10s and Ks 10."""
    return sum(map(_POINT_OF.__getitem__, cards))


def level_step(decks: int = 2) -> int:
    """Points per band of the level table: 20 per deck (40 with two decks)."""
    if decks < 1:
        raise ValueError(f"decks must be at least 1, not {decks}")
    return 20 * decks


def level_change(opponents_points: int, decks: int = 2) -> dict:
    """The result of a hand from the opponents' points ``p`` with step ``u = 20 * decks``.

    p < 0: declarers +4, +1 per full u below 0; p == 0: +3; 0 < p < u: +2; u <= p < 2u: +1;
    2u <= p < 3u: the opponents become declarers without a level; 3u..4u: opponents +1;
    4u..5u: +2; p >= 5u: +3, +1 per full u above 5u.
    Returns ``{"side": "declarers" | "opponents", "levels": n, "swap": bool}``; ``swap`` is
    True whenever the opponents become the declarers (p >= 2u).
    """
    u = level_step(decks)
    p = int(opponents_points)
    if p < 0:
        return {"side": "declarers", "levels": 4 + (-p) // u, "swap": False}
    if p == 0:
        return {"side": "declarers", "levels": 3, "swap": False}
    if p < u:
        return {"side": "declarers", "levels": 2, "swap": False}
    if p < 2 * u:
        return {"side": "declarers", "levels": 1, "swap": False}
    if p < 3 * u:
        return {"side": "opponents", "levels": 0, "swap": True}
    if p < 4 * u:
        return {"side": "opponents", "levels": 1, "swap": True}
    if p < 5 * u:
        return {"side": "opponents", "levels": 2, "swap": True}
    return {"side": "opponents", "levels": 3 + (p - 5 * u) // u, "swap": True}


def next_level(level_rank_index: int, steps: int, must_play: Iterable[int] = ()) -> int:
    """Advance a level (a rank index of ``order.LEVEL_RANK``) by ``steps`` along 2..A.

    The advance stops on the first must-play rank (rank indices) it reaches after the start
    (the start itself does not hold it back); it never goes past A.
    """
    if level_rank_index not in _LEVEL_INDEX:
        raise ValueError(f"bad level rank index {level_rank_index!r}")
    if steps < 0:
        raise ValueError(f"steps must not be negative, not {steps}")
    stops = set(must_play)
    i = _LEVEL_INDEX[level_rank_index]
    for _ in range(steps):
        if i == len(LEVEL_ORDER) - 1:
            break
        i += 1
        if LEVEL_ORDER[i] in stops:
            break
    return LEVEL_ORDER[i]


def level_name(level_rank_index: int) -> str:
    """``"2"`` .. ``"A"`` for a level rank index."""
    return LEVELS[_LEVEL_INDEX[level_rank_index]]
