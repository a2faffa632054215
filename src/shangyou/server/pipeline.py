"""The pipeline of one table: a client's message in; the change to store, the events and the
new version out. Nothing here waits, stores, sends or reads a clock (it only logs an engine failure).

The table manager (:mod:`shangyou.server.tables`) runs each action through here under the
table's lock, stores the change through the fenced store (a compare-and-set on the table's
version: :class:`~shangyou.server.store.Stale` when another node owns the table now), and
only then hands the events to the fan-out (:mod:`shangyou.server.fanout`). The steps are those
of ``docs/protocol.md``: size, JSON, schema; table and live match; seat; turn; version;
legality; store; version + 1; broadcast.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Any

import shangyou

from . import schemas
from .model import ActionError, Table

log = logging.getLogger("shangyou.server")


def parse(raw: str | bytes | None, said_hello: bool):
    """Step 1: a client's raw message as a checked message (size, JSON, schema, ``hello``
    first and only first); :class:`ActionError` otherwise."""
    if raw is None:
        raise ActionError("bad_json", "empty message")
    size = len(raw) if isinstance(raw, bytes) else \
        (len(raw) if len(raw) > schemas.MAX_MESSAGE_BYTES
         else len(raw.encode("utf-8", "surrogatepass")))
    if size > schemas.MAX_MESSAGE_BYTES:
        raise ActionError("too_big", f"a message may be at most "
                          f"{schemas.MAX_MESSAGE_BYTES} bytes")
    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        raise ActionError("bad_json", "the message is not valid JSON") from None
    except RecursionError:
        raise ActionError("bad_message", "the message is nested too deeply") from None
    try:
        msg = schemas.parse_client(data)
    except ValueError as e:
        raise ActionError("bad_message", str(e)) from None
    except RecursionError:
        raise ActionError("bad_message", "the message is nested too deeply") from None
    if not said_hello and msg.type not in ("hello", "ping"):
        raise ActionError("bad_message", "the first message must be 'hello'")
    if said_hello and msg.type == "hello":
        raise ActionError("bad_message", "already joined: 'hello' is the first message only")
    return msg


_PING_MAX = 64          # bytes: '{"type": "ping", "id": N}' with room to spare


def ping_id(raw: str | bytes | None) -> int | None:
    """The ``id`` of ``raw`` when it is a well-formed ``ping`` (answered at once, before the
    table and its inbox: the page's check of a silent server), else None: any other message,
    a bad ping included, goes through :func:`parse` (which also accepts a ping). Cheap for
    every other message: a short message naming ``ping`` is the only one decoded."""
    if raw is None or len(raw) > _PING_MAX:
        return None
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
    if '"ping"' not in text:
        return None
    try:
        msg = schemas.parse_client(json.loads(text))
    except (ValueError, RecursionError):
        return None
    return msg.id if msg.type == "ping" else None


def pong(ping: int) -> dict:
    return {"type": "pong", "id": ping}


def apply_move(table: Table, seat: int | None, version: int, move: str) -> None:
    """Steps 2 to 6: the match is live, the sender holds a seat, it is that seat's turn, the
    move was chosen in the current version, and it is legal; then it is applied to the
    table's game (not yet stored). :class:`ActionError` leaves the game unchanged."""
    g = table.game
    if table.status != "playing" or g is None or g.over:
        raise ActionError("not_playing", "no match is being played at this table"
                          if table.status == "waiting" else "the match is over")
    if seat is None:
        raise ActionError("not_seated", "you hold no seat at this table (spectator)")
    if g.to_act != seat:
        raise ActionError("not_your_turn", f"it is seat {g.to_act}'s turn, not yours "
                          f"(seat {seat})")
    if version != table.version:
        raise ActionError("stale", f"the move was chosen in version {version}; the "
                          f"current version is {table.version}")
    try:
        g.apply(move, seat=seat)
    except ValueError as e:          # IllegalMove, NotationError: the game is unchanged
        raise ActionError("illegal", str(e), getattr(e, "why", None)) from None
    except Exception:                # an engine bug: rebuild the state from the log
        log.exception("table %s: the engine failed on %r", table.id, move)
        rebuild(table)
        raise ActionError("illegal", "the server could not make this move") from None


@dataclass(frozen=True)
class MoveRecord:
    """The change one move makes, as the store keeps it."""
    table_id: str
    match_id: str
    idx: int
    seat: int
    text: str
    version: int                  # the table's version once this move is stored
    result: dict | None           # the match's result when this move ended it
    actor: str | None             # who moved for a person: "bot", "timer" (None: they did);
    #                               "hint:s", "hint:h": they did, as their hint (search,
    #                               heuristic) for this state said (server/advice.py)

    def row(self) -> tuple:
        return (self.table_id, self.match_id, self.idx, self.seat, self.text, self.version,
                self.result, self.actor)


def record(table: Table, actor: str | None = None) -> MoveRecord:
    """The move just applied to the table's game, as it is to be stored."""
    g = table.game
    assert table.match_id is not None, "a move is made in a match, which has an id"
    idx = len(g.moves) - 1
    seat, mv = g.moves[idx]
    result = _jsonable(g.result) if g.over else None
    return MoveRecord(table.id, table.match_id, idx, seat, str(mv), table.version + 1,
                      result, actor)


def undo_last(table: Table) -> None:
    """Take back the move just applied (it could not be stored)."""
    log_ = table.game.log
    log_["moves"] = log_["moves"][:-1]
    table.game = shangyou.replay(log_)
    table.event_cursor = len(table.game.events)


def rebuild(table: Table) -> None:
    """The game as its log replays (after the engine failed on a move)."""
    table.game = shangyou.replay(table.game.log)
    table.event_cursor = len(table.game.events)


def advance(table: Table, rec: MoveRecord) -> list[dict]:
    """The stored move takes effect: the new version (and status), and its events, which are
    also kept for clients that reconnect (``since``)."""
    g = table.game
    table.version = rec.version
    if g.over:
        table.status = "over"
    seat, mv = g.moves[rec.idx]
    events = new_events(table, seat, mv)
    table.events_by_move.append((len(g.moves), events))
    return events


def new_events(table: Table, seat: int, mv) -> list[dict]:
    """The game's events since the last call, with the play or pass itself where the engine
    records it only in its state."""
    g = table.game
    new = list(g.events[table.event_cursor:])
    table.event_cursor = len(g.events)
    kind = getattr(mv, "kind", None)
    if kind in ("play", "pass") and not any(
            e.get("event") in ("play", "pass") and e.get("seat") == seat for e in new):
        # the climbing engine records plays only in its state: say what was played
        ev: dict[str, Any] = {"event": kind, "seat": seat}
        if kind == "play":
            text = str(mv)
            ev["cards"] = text.partition(" as ")[0]
            ev["move"] = text
        new.insert(0, ev)
    return new


def catch_up(table: Table, since: int | None, match: str | None) -> list[dict]:
    """The events a (re)connecting client's log lacks: those after move ``since`` of its
    match (every event of this match when it knows another one); none if it did not ask."""
    if since is None or table.match_id is None:
        return []
    after = since if match == table.match_id else -1
    return [ev for n, evs in table.events_by_move if n > after for ev in evs]


def _jsonable(value):
    return json.loads(json.dumps(value, default=list))
