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
    ``limit // 64`` (at least one).

    Games in several threads share these tables, so another thread may drop or add entries
    meanwhile: a key it dropped first is skipped, and a listing of the oldest keys that its
    change cut short ("dictionary changed size during iteration") is made again, a few times
    at most (the table is then left a little over its limit until the next call)."""
    for _ in range(8):
        if len(table) < limit:
            return
        try:
            oldest = list(islice(table, max(1, limit // 64)))
        except RuntimeError:
            continue
        for key in oldest:
            table.pop(key, None)
        return
