"""What each client receives: the one place where game state leaves the server.

:func:`state_for` builds the ``state`` message of one seat (or of a spectator, ``seat=None``):
the engine's ``view(seat)`` for a seated client, ``public_view()`` for a spectator, and the
events since the previous state with cards a seat may not see taken out. Every ``state`` any
client gets is built here; the other messages (``welcome``, ``chat``, ``error``) carry no game
state.
"""

from __future__ import annotations

import json
import time
from typing import Any

import orjson

# Events whose card(s) only the event's own seat may see. None today: the one candidate was the
# exchange between hands (``give``, ``receive``), and every exchange is played face up (seed
# 000's pits exchange; seed 001: the exchanged cards are shown to all; docs/rules/
# zheng-shangyou.md), so its events carry their cards to everyone, as the views'
# ``exchanged`` does. A game with a private event names it here and it is masked for the rest.
PRIVATE_CARD_EVENTS: frozenset[str] = frozenset()
CARD_FIELDS = ("card", "cards")


def dumps(msg: dict) -> str:
    """Compact JSON text (orjson: about ten times faster than the standard library here)."""
    try:
        return orjson.dumps(msg, option=orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:        # a type orjson does not know: the standard library decides
        return json.dumps(msg, separators=(",", ":"), ensure_ascii=False)


def seat_info(seat) -> dict[str, Any]:
    return {"seat": seat.index, "name": seat.name, "kind": seat.kind,
            "connected": seat.kind == "bot" or seat.connections > 0,
            "bot_level": seat.bot_level if seat.kind == "bot" else None,
            "autoplay": seat.kind == "human" and seat.autoplay}


def table_info(table) -> dict[str, Any]:
    """The public description of a table (no game state). ``commitment`` is the hash of the
    current match's deal secret, public from the start; ``secret`` itself only once that match
    is over (``docs/fairness.md``). ``ready_check``: the host's running ready check and its
    answers (``server/ready.py``), or None."""
    over = table.game is not None and table.game.over
    return {"table_id": table.id, "game": table.game_name, "players": table.players,
            "options": dict(table.options), "status": table.status,
            "seats": [seat_info(s) for s in table.seats], "bot_level": table.bot_level,
            "match_id": table.match_id, "room": dict(table.room), "host": table.host_seat(),
            "commitment": table.commitment,
            "secret": table.secret if over and table.commitment else None,
            "ready_check": table.ready_check.info() if table.ready_check is not None else None,
            "rematch": rematch_info(table)}


def rematch_asks(table):
    """The asks for a rematch after the match that ended (``server/rematch.py``); None when
    no match has ended or nobody asked after this one."""
    asks = table.rematch
    if table.status != "over" or asks is None or asks.match_id != table.match_id:
        return None
    return asks


def rematch_waiting(table, asks) -> list[int]:
    """The seats of present people (a socket open) who have not asked for the rematch yet."""
    return [s.index for s in table.seats
            if s.kind == "human" and s.connections > 0 and s.index not in asks.seats]


def rematch_info(table) -> dict[str, Any] | None:
    """What every client sees of the asks (``table.rematch``): the seats that asked and the
    present people still to ask."""
    asks = rematch_asks(table)
    if asks is None:
        return None
    return {"asked": sorted(asks.seats), "waiting": rematch_waiting(table, asks)}


def turn_info(table) -> dict[str, Any] | None:
    """Who acts now and, with the room's turn timer, the seconds left (the same for everyone;
    a client counts down from its own clock, so a reload shows the right time)."""
    g = table.game
    if table.status != "playing" or g is None or g.over or g.to_act is None:
        return None
    left = None
    if table.turn_deadline is not None:
        left = round(max(0.0, table.turn_deadline - time.monotonic()), 2)
    return {"seat": g.to_act, "left": left}


def event_for(ev: dict, seat: int | None) -> dict:
    if ev.get("event") in PRIVATE_CARD_EVENTS and ev.get("seat") != seat:
        ev = {k: v for k, v in ev.items() if k not in CARD_FIELDS}
        ev["card"] = None
        ev["hidden"] = True
    return ev


def state_for(table, seat: int | None, events: list[dict], info: dict | None = None) -> dict:
    """The ``state`` message for ``seat`` (None: a spectator) of ``table``."""
    g = table.game
    if g is None:
        view = None
    elif seat is None:
        view = g.public_view()
    else:
        view = g.view(seat)
    return {"type": "state", "version": table.version,
            "table": info if info is not None else table_info(table),
            "view": view, "last_events": [event_for(e, seat) for e in events],
            "move_count": len(g.moves) if g is not None else 0,
            "moves_hash": moves_hash(table), "seat": seat,
            "turn": turn_info(table)}


def moves_hash(table) -> str | None:
    """The running hash of the current match's moves so far (``fairness.moves_chain``, keyed
    with the deal secret, so it tells nothing about a hidden move; None before the first
    match): a player who keeps it can check, once the secret is published with the log, that
    the log holds exactly these moves (``docs/fairness.md``)."""
    g = table.game
    if g is None:
        return None
    return table.chain.update(table.secret, g.moves)


def states_by_seat(table, seats, events: list[dict]) -> dict[int | None, str]:
    """The serialized ``state`` for each of ``seats`` (each built once, whatever the number of
    sockets on that seat)."""
    info = table_info(table)
    return {s: dumps(state_for(table, s, events, info)) for s in seats}


def replay_step(game, k: int, n: int, seat: int | str | None) -> dict:
    """A step of a **finished** match for the replay page: one seat's view (``seat`` an int),
    a spectator's (None), or every seat's (``"all"``: ``views``, with the public view)."""
    out: dict[str, Any] = {"k": k, "n": n, "seat": seat}
    if seat == "all":
        out["view"] = game.public_view()
        out["views"] = [game.view(s) for s in range(game.n)]
    elif seat is None:
        out["view"] = game.public_view()
        out["views"] = None
    else:
        out["view"] = game.view(seat)
        out["views"] = None
    if k > 0:
        s, text = game.moves[k - 1]
        out["move"] = [s, str(text)]
    else:
        out["move"] = None
    return out
