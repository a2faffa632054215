"""The server's picture of a table: its seats, its match, its room options; and the error
an action is refused with."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import secrets
import time
from dataclasses import dataclass, field
from typing import Any

from ..fairness import MovesChain
from . import schemas, views

ROOM_KEY = "_room"         # where the room options live in the stored table options
ROOM_DEFAULTS = {"turn_timer": 0, "grace": schemas.GRACE_DEFAULT, "listed": True}


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_id(nbytes: int = 6) -> str:
    return secrets.token_urlsafe(nbytes)


class ActionError(Exception):
    """An action refused: ``code`` and ``message`` go to the sender only; nothing changed."""

    def __init__(self, code: str, message: str, why=None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.why = why            # an illegal play: the rule it breaks (games/why.py), or None


class StoreDown(ActionError):
    """An action not stored because the database did not answer in time (it was tried again
    for ``--store-retry-seconds``): it was undone, and may be tried again (``unavailable``)."""

    def __init__(self, message: str):
        super().__init__("unavailable", message)


class Refused(Exception):
    """An HTTP request refused: ``status``, ``code`` and ``message`` go to the client."""

    def __init__(self, status: int, code: str, message: str):
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


def same_hash(a: str | None, b: str | None) -> bool:
    """Two token hashes are equal (in constant time); None equals nothing."""
    return a is not None and b is not None and hmac.compare_digest(a, b)


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
    grace_task: asyncio.Task | None = None     # playing: the bot takes over; waiting: freed
    address: str | None = None        # the address its person last sat or came back from

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
    status: str = "waiting"           # waiting | playing | over | closed
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
    host_hash: str | None = None                   # the host's token hash
    created: float = field(default_factory=time.monotonic)
    creator: str | None = None                     # the address that created it (this process)
    idle_since: float = field(default_factory=time.monotonic)  # when its last socket closed
    secret: str | None = None                      # the current match's deal secret
    commitment: str | None = None                  # ... and its hash, public from the start
    ready_check: Any = None                        # the host's running ready check (ready.py)
    rematch: Any = None                            # the asks for a rematch (rematch.py)
    lost: bool = False                             # another node runs it now (lease lost)
    chain: MovesChain = field(default_factory=MovesChain)   # the moves' running hash
    bans: dict = field(default_factory=dict)       # whom the host removed: host.py

    def summary(self) -> dict:
        info = views.table_info(self)
        return {"table_id": self.id, "game": self.game_name, "players": self.players,
                "seats": info["seats"], "status": self.status, "host": info["host"],
                "listed": bool(self.room.get("listed", True))}

    def humans(self) -> int:
        return sum(1 for s in self.seats if s.kind == "human")

    def host_seat(self) -> int | None:
        """The seat the host sits in, if they sit."""
        for s in self.seats:
            if s.kind == "human" and same_hash(s.token_hash, self.host_hash):
                return s.index
        return None

