"""The server's picture of a table: its seats, its match, its room options; and the error
an action is refused with."""

from __future__ import annotations

import asyncio
import hashlib
import secrets
from dataclasses import dataclass, field
from typing import Any

from . import schemas, views

ROOM_KEY = "_room"         # where the room options live in the stored table options
ROOM_DEFAULTS = {"turn_timer": 0, "grace": schemas.GRACE_DEFAULT}


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_id(nbytes: int = 6) -> str:
    return secrets.token_urlsafe(nbytes)


class ActionError(Exception):
    """An action refused: ``code`` and ``message`` go to the sender only; nothing changed."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message



@dataclass
class Seat:
    index: int
    name: str | None = None
    kind: str = "empty"               # human | bot | empty
    token_hash: str | None = None
    bot_level: str | None = None
    bot: Any = None
    connections: int = 0              # sockets attached to this seat (0 or 1)
    autoplay: bool = False            # a person away past the grace period: a bot plays
    grace_task: asyncio.Task | None = None

    def row(self) -> dict:
        return {"seat": self.index, "name": self.name, "kind": self.kind,
                "token_hash": self.token_hash, "bot_level": self.bot_level}


@dataclass
class Table:
    id: str
    game_name: str
    players: int
    options: dict
    bot_level: str = "greedy"
    status: str = "waiting"           # waiting | playing | over
    version: int = 0
    seats: list[Seat] = field(default_factory=list)
    game: Any = None
    match_id: str | None = None
    event_cursor: int = 0
    conns: set = field(default_factory=set)       # sockets that said hello
    sockets: int = 0                                # sockets open on this table
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    bot_task: asyncio.Task | None = None
    room: dict = field(default_factory=lambda: dict(ROOM_DEFAULTS))
    turn_deadline: float | None = None             # time.monotonic() when the timer runs out
    events_by_move: list = field(default_factory=list)   # [(move count, events)] this match
    timer_task: asyncio.Task | None = None

    def summary(self) -> dict:
        info = views.table_info(self)
        return {"table_id": self.id, "game": self.game_name, "players": self.players,
                "seats": info["seats"], "status": self.status}

    def humans(self) -> int:
        return sum(1 for s in self.seats if s.kind == "human")

