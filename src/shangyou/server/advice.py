"""Hints: a bot's advice to a seated person on their own turn (docs/protocol.md, "Hints").

The advice is computed from the asker's own view only (what they could know), by the
heuristic bot inside the server process (a few milliseconds) or by the search bot in the bot
worker pool (up to a second, outside the table's lock: the table goes on meanwhile). The
room option ``hints`` says which, or ``off``; left unset it resolves when asked:
``heuristic`` while at most one seat is held by a person, ``off`` once two or more are, so
hints never decide a game between people unless the host allowed them.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from typing import cast

from shangyou.bots.base import Bot, make_bot

from . import views
from .model import ActionError, Table

log = logging.getLogger("shangyou.server")

HINT_LEVELS = ("heuristic", "search")


def hint_mode(table: Table) -> str:
    """``"off"``, ``"heuristic"`` or ``"search"``: the room option, or its default now."""
    mode = table.room.get("hints")
    if mode is None:
        return "heuristic" if table.humans() <= 1 else "off"
    return mode


def advise_in_worker(level: str, seed: int, view: dict) -> dict:
    """A bot's advice as a plain dict (computed in a worker process for the search)."""
    bot = cast(Bot, make_bot(level, seed=seed))     # the hint levels are Bots, which advise
    return bot.advise(view).as_dict()


async def answer_hint(manager, table: Table, conn) -> None:
    """Answer ``{"type": "hint"}`` to ``conn`` alone, or raise :class:`ActionError`."""
    g = table.game
    if table.status != "playing" or g is None or g.over:
        raise ActionError("not_playing", "no match is being played at this table")
    seat = conn.seat
    if seat is None:
        raise ActionError("not_seated", "you hold no seat at this table (spectator)")
    mode = hint_mode(table)
    if mode == "off":
        why = "the host turned hints off" if table.room.get("hints") == "off" else \
            "hints are off while two or more people play (the host may allow them)"
        raise ActionError("hints_off", why)
    if g.to_act != seat:
        raise ActionError("not_your_turn", f"it is seat {g.to_act}'s turn, not yours "
                          f"(seat {seat})")
    if getattr(conn, "hinting", False):
        raise ActionError("rate_limited", "a hint is being worked out for you already")
    version = table.version
    view = g.view(seat)
    seed = secrets.randbits(32)
    if mode == "heuristic":
        _send(conn, advise_in_worker("heuristic", seed, view), version)
        return
    # the search thinks in a worker while this socket's other messages (a move) go on
    conn.hinting = True
    task = asyncio.create_task(_search_hint(manager, table, conn, view, seed, version),
                               name=f"hint-{table.id}-{seat}")
    _TASKS.add(task)
    task.add_done_callback(_TASKS.discard)


_TASKS: set = set()        # search hints being worked out (kept referenced until done)


async def _search_hint(manager, table: Table, conn, view: dict, seed: int, version: int):
    try:
        advice = await manager._bot_pool().run(advise_in_worker, "search", seed, view)
    except asyncio.CancelledError:
        raise
    except Exception:
        log.exception("table %s: the search hint for seat %s failed", table.id, conn.seat)
        advice = advise_in_worker("heuristic", seed, view)
    finally:
        conn.hinting = False
    _send(conn, advice, version)


def _send(conn, advice: dict, version: int) -> None:
    if not conn.closed:
        conn.send_text(views.dumps({"type": "hint", **advice, "version": version}))
