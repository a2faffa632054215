"""``shangyou review LOG --seat N``: the search bot's review of one seat's decisions.

Each decision of the seat is evaluated from that seat's view at that moment
(:mod:`shangyou.review`); the terminal shows the marked ones (inaccuracy, mistake, blunder)
with the better move and why, then a summary: the share of good decisions and the biggest
losses.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from ..review import (DEFAULT_JUDGE_WORLDS, DEFAULT_SECONDS, DEFAULT_WORLDS, MARKS, THRESHOLDS,
                      review_log)
from .common import fail
from .replay import load_log

SYMBOLS = {"good": "", "inaccuracy": "?!", "mistake": "?", "blunder": "??"}
PLURALS = {"inaccuracy": "inaccuracies", "mistake": "mistakes", "blunder": "blunders"}


def review_lines(review) -> list[str]:
    """The review as lines of text (what the command prints)."""
    unit = review.unit
    inacc, mistake, blunder = THRESHOLDS[review.family]
    lines = [(f"Review of seat {review.seat} in {review.game} by the search bot "
              f"(values: expected {unit} for the seat)"),
             (f"Marks: inaccuracy ?! from {inacc:g}, mistake ? from {mistake:g}, "
              f"blunder ?? from {blunder:g} {unit} lost")]
    for d in review.decisions:
        if d.mark == "good":
            continue
        why = f": {d.reason.text('en')}" if d.reason is not None else ""
        lines.append(f"  move {d.index + 1:3d}: {d.played}{SYMBOLS[d.mark]} ({d.mark}, "
                     f"-{d.loss:.2f}) better: {d.best}{why}")
    counts = review.counts()
    share = review.good_share()
    n = len(review.decisions)
    lines.append(f"{n} decisions reviewed ({review.skipped} forced or left to the heuristic): "
                 + (f"{share:.0%} good, " if share is not None else "")
                 + ", ".join(f"{counts[m]} {m if counts[m] == 1 else PLURALS[m]}"
                             for m in MARKS[1:]))
    big = review.biggest()
    if big:
        lines.append("Biggest losses: " + "; ".join(
            f"move {d.index + 1} {d.played} (-{d.loss:.2f}, better {d.best})" for d in big))
    return lines


def review(
    logfile: Annotated[Path, typer.Argument(help="A game log saved by `play --save`.")],
    seat: Annotated[int, typer.Option("--seat", help="The seat whose decisions to review.")],
    seconds: Annotated[float, typer.Option(help="CPU seconds per decision for the review's "
                                           "own worlds (the search has its own cap).")
                       ] = DEFAULT_SECONDS,
    worlds: Annotated[int, typer.Option(help="With --first candidates: at most this many "
                                        "sampled worlds to find the best move of a "
                                        "decision.")] = DEFAULT_WORLDS,
    first: Annotated[str, typer.Option(help="How the best move is found: search (the "
                                       "hint's search) or candidates (the best mean of "
                                       "the search's candidates).")] = "search",
    judge_worlds: Annotated[int, typer.Option(help="At most this many fresh worlds to judge "
                                              "the move made against it.")
                            ] = DEFAULT_JUDGE_WORLDS,
    seed: Annotated[int, typer.Option(help="Seed of the sampled worlds.")] = 0,
    as_json: Annotated[bool, typer.Option("--json", help="The review as JSON.")] = False,
) -> None:
    """Review one seat's decisions of a saved game with the search bot."""
    try:
        log = load_log(logfile)
    except ValueError as e:
        fail(str(e), 1)
    if worlds < 1 or judge_worlds < 2 or seconds <= 0:
        fail("--worlds and --seconds must be above 0, --judge-worlds above 1", 2)
    if first not in ("search", "candidates"):
        fail("--first is search or candidates", 2)
    try:
        r = review_log(log, seat, seconds=seconds, max_worlds=worlds, seed=seed,
                       judge_worlds=judge_worlds, best_by=first)
    except ValueError as e:
        fail(str(e), 1 if "seat" not in str(e) else 2)
    if as_json:
        typer.echo(json.dumps(r.as_dict(), ensure_ascii=False))
        return
    for line in review_lines(r):
        typer.echo(line)
