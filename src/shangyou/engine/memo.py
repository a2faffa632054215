"""Bounded memo tables that never stall a move.

The rules and the bots memoise pure functions in plain dicts with a size limit. A table that is
full drops its oldest sixty-fourth (dicts keep insertion order) instead of all of it at once:
freeing 300,000 entries in one go takes about 0.17 s of CPU, and it used to fall inside a single
decision (a tournament worker saw bot moves take up to 0.4 s more than usual).
"""

from __future__ import annotations

from itertools import islice


def make_room(table: dict, limit: int) -> None:
    """Before adding to ``table``: if it holds ``limit`` entries or more, drop its oldest
    ``limit // 64`` (at least one)."""
    if len(table) >= limit:
        for key in list(islice(table, max(1, limit // 64))):
            del table[key]
