"""Puzzles: positions cut from bot games where one play is clearly best.

A puzzle is a real position (a preset, its options, a seed and the moves that lead to it) and
a seat to act in it; its solution beats every other legal play of the seat by a clear margin
over worlds sampled from the seat's view, as the review judges a decision
(:mod:`shangyou.review`). The miner (:mod:`.mine`) finds them; :mod:`.position` rebuilds a
puzzle's position and judges an answer; :mod:`.themes` names what a puzzle is about;
:mod:`.rating` rates players and puzzles (a solve is a win against the puzzle). The shipped
puzzles are JSON lines per family in ``data/`` (docs/puzzles.md).
"""

from .position import (FAMILIES, Answer, answer_of, load, puzzle_by_id, rebuild, seat_view)
from .themes import THEMES

__all__ = ["FAMILIES", "THEMES", "Answer", "answer_of", "load", "puzzle_by_id", "rebuild",
           "seat_view"]
