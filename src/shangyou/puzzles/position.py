"""A puzzle's position rebuilt from its record, the seat's view of it, and an answer judged.

A record holds what rebuilds the position and nothing that must be trusted: the preset, its
options, the deal's seed and the moves before the seat's decision (``prefix``). The position
is the game after those moves, the seat's view is ``game.view(seat)`` (climbing: every whole
play listed, as the review lists them: ``games/climbing/steps.every_play``), so a puzzle shows
the seat exactly what the player at that seat saw, and nothing else.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import shangyou

from ..review import _as_listed

DATA = Path(__file__).parent / "data"

# family -> the (preset, players) its puzzles are mined from, in turn by seed
FAMILIES: dict[str, tuple[tuple[str, int], ...]] = {
    "climbing": (("zheng-shangyou/pagat", 4), ("zheng-shangyou/pagat", 5),
                 ("zheng-shangyou/pagat-teams", 4), ("zheng-shangyou/owen", 4),
                 ("zheng-shangyou/winner", 4)),
    "zheng-fen": (("zheng-fen", 4),),
    "sheng-ji": (("sheng-ji", 4), ("sheng-ji/zhao-pengyou", 5)),
}


def data_path(family: str, directory: Path | None = None) -> Path:
    return (directory or DATA) / f"{family}.jsonl"


@lru_cache(maxsize=8)
def _load(path: str, mtime: float) -> tuple[dict, ...]:
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.endswith("\n"):
                break           # a line the miner is writing now: read at the next change
            if line.strip():
                out.append(json.loads(line))
    return tuple(out)


def load(family: str, directory: Path | None = None) -> tuple[dict, ...]:
    """The shipped puzzles of ``family`` (read once per file version)."""
    if family not in FAMILIES:
        raise ValueError(f"unknown puzzle family {family!r}; known: {', '.join(FAMILIES)}")
    path = data_path(family, directory)
    if not path.exists():
        return ()
    return _load(str(path), path.stat().st_mtime)


def puzzle_by_id(puzzle_id: str, directory: Path | None = None) -> dict | None:
    """A record by its key (``family:seed:index``; the key is not for outside eyes: the
    seed deals every hidden hand)."""
    family = str(puzzle_id).split(":", 1)[0]
    if family not in FAMILIES:
        return None
    return next((p for p in load(family, directory) if p["id"] == puzzle_id), None)


def new_game_of(record: dict):
    """A new game (a match, for a match's log) of the record's preset, options and seed (as
    ``review_log`` rebuilds one)."""
    options: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v
                               for k, v in (record.get("options") or {}).items()}
    options["players"] = record["players"]
    make = shangyou.new_match if record.get("match") else shangyou.new_game
    return make(record["preset"], seed=record["seed"], **options)


def rebuild(record: dict):
    """The game at the puzzle's position: the record's prefix replayed."""
    g = new_game_of(record)
    for seat, text in record["prefix"]:
        if g.to_act != seat:
            raise ValueError(f"puzzle {record.get('id')}: move {text!r} is by seat {seat}, "
                             f"but seat {g.to_act} is to act")
        g.apply(text)
    if g.to_act != record["seat"]:
        raise ValueError(f"puzzle {record.get('id')}: seat {record['seat']} is not to act")
    return g


def listed(view: dict) -> dict:
    """The view with every whole play listed (climbing: each play of several steps as one;
    Sheng ji: the first steps of throws left out, a throw is made card by card and the
    page takes whole plays; docs/puzzles.md says how the miner judges throws)."""
    if view["game"].startswith("sheng-ji"):
        if any(m.startswith("throw ") for m in view["legal_moves"]):
            return dict(view, legal_moves=[m for m in view["legal_moves"]
                                           if not m.startswith("throw ")])
        return view
    from ..bots.climbing_heuristic import rules_for_view
    from ..games.climbing.steps import every_play
    return every_play(view, rules_for_view(view).family)


def seat_view(record: dict) -> dict:
    """The seat's view of the puzzle's position, every whole play listed."""
    g = rebuild(record)
    return listed(g.view(record["seat"]))


@dataclass(frozen=True)
class Answer:
    """An answer judged: the move as listed, whether it is the solution, and the values."""

    move: str
    correct: bool
    solution: str
    value: float | None           # the move's mean over the verification's worlds
    best_value: float
    loss: float | None            # the solution's value less the move's

    def as_dict(self) -> dict:
        return {"move": self.move, "correct": self.correct, "solution": self.solution,
                "value": self.value, "best_value": self.best_value, "loss": self.loss}


def answer_of(record: dict, move: str, view: dict | None = None) -> Answer:
    """Judge ``move`` (a legal play of the seat's view; ValueError if it is not one)."""
    view = view if view is not None else seat_view(record)
    text = _as_listed(view, " ".join(str(move).split()))
    if text not in view["legal_moves"]:
        raise ValueError(f"{move!r} is not a legal play here")
    values = record["values"]
    best = values[record["solution"]][0]
    mine = values.get(text)
    value = mine[0] if mine else None
    return Answer(text, text == record["solution"], record["solution"], value, best,
                  None if value is None else round(best - value, 4))
