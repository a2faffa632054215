"""``shangyou verify LOG``: check a finished game's published log against its commitment.

It prints a line for the commitment, one for the moves (and their running hash) and one per
hand, then ``verified`` or
``NOT verified`` with the reason. Exit code 0 when everything matches, 1 otherwise (a file that
cannot be read or is not a log also exits 1). See :mod:`shangyou.fairness`.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from ..fairness import verify as verify_log
from .replay import load_log


def verify(
    logfile: Annotated[Path, typer.Argument(help="A finished game's published log (JSON): "
                                                 "its seed is the revealed secret.")],
    commitment: Annotated[str | None, typer.Option(
        help="The commitment published before the deal (default: the log's own "
             "'commitment').")] = None,
    moves_hash: Annotated[list[str] | None, typer.Option(
        "--moves-hash",
        help="A moves hash you saw during the match (the table page keeps the last one): "
             "HEX, or K:HEX for the hash after K moves. The log's moves must pass through it. "
             "May be given more than once.")] = None,
) -> None:
    """Check a finished game: the secret, its commitment, every move, every deal, and the
    running hash of the moves."""
    try:
        log = load_log(logfile)
    except ValueError as e:
        print(f"Error: {e}", file=sys.stderr)
        raise typer.Exit(1) from None
    report = verify_log(log, commitment, moves_hash or None)
    for line in report.lines():
        print(line)
    raise typer.Exit(0 if report.ok else 1)
