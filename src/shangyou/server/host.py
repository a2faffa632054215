"""The host's actions: bots, kick, swap, options, host, close (``start`` is in the manager).

A person the host kicks is **banned** for the table's life: their seat token and the address
they sat from (its hash: :func:`address_key`) go on the table's ban list, stored with the table
(so another node, or this one after a restart, knows it too). A banned token is worth nothing
in ``hello`` (an ``error`` ``banned``, then a spectator's ``welcome``) and ``sit`` is refused
(``banned``) to the token and to anyone from the address, the host excepted: they may still
watch, as anybody with the link may. The address is the blunt half: everyone behind the same
address (a household, an office, a mobile network's shared address) cannot sit here either.

The host is whoever holds the token that ``POST /api/tables`` gave the table's creator (when
they sit, it is their seat's token too); :meth:`TableManager._require_host` lets only them
through, before any of these runs, under the table's lock. Each action is stored with the next
version and broadcast, like any change of a table; a refusal changes nothing.

:class:`HostActions` is a part of :class:`~shangyou.server.tables.TableManager`.
"""

from __future__ import annotations

import hashlib
import logging

from . import schemas
from .autoplay import _bot_name
from .conn import Conn
from .model import ActionError, Table, same_hash
from .parts import ManagerParts

log = logging.getLogger("shangyou.server")

EMPTY = {"name": None, "kind": "empty", "token_hash": None, "bot_level": None}
CLOSED_CODE = 4410         # the socket close code of a closed table
BANNED = "the host removed you from this table: you may watch, but not sit here again"


def address_key(table_id: str, address: str) -> str:
    """How a banned address is kept: a SHA-256 with the table's id, so that the stored lists
    of two tables cannot be matched up. (An IPv4 address can still be found by trying them
    all: the list is personal data, kept only as long as the table.)"""
    return hashlib.sha256(f"shangyou/ban/v1:{table_id}:{address}".encode()).hexdigest()


class HostActions(ManagerParts):
    def _seat_index(self, table: Table, seat: int, what: str) -> int:
        if not 0 <= seat < table.players:
            raise ActionError("bad_message", f"{what}: no seat {seat} at a table of "
                              f"{table.players}")
        return seat

    @staticmethod
    def _waiting(table: Table, what: str) -> None:
        if table.status != "waiting":
            raise ActionError("not_waiting", f"{what} only before the match starts")

    async def _bots(self, table: Table, conn: Conn, msg: schemas.Bots) -> None:
        self._waiting(table, "seats change")
        if table.room.get("rated"):
            raise ActionError("rated_no_bots", "a rated table seats logged-in players only")
        level = msg.level or table.bot_level
        if msg.seat is not None:
            i = self._seat_index(table, msg.seat, "bots")
            if table.seats[i].kind != "empty":
                raise ActionError("seat_taken", f"seat {i} is taken")
            empties = [table.seats[i]]
        else:
            empties = [s for s in table.seats if s.kind == "empty"]
        changes = {s.index: {"name": _bot_name(level, s.index), "kind": "bot",
                             "token_hash": None, "bot_level": level} for s in empties}
        if not changes:
            self._send_state(table, conn)
            return
        await self._save_seats(table, changes)
        self._broadcast(table, [])

    # ------------------------------------------------------------------------------ bans
    @staticmethod
    def _banned_token(table: Table, token_hash: str | None) -> bool:
        return token_hash is not None and any(
            same_hash(token_hash, h) for h in table.bans.get("tokens", ()))

    def _banned(self, table: Table, conn: Conn) -> bool:
        """Whether ``conn`` may not sit: its token, or its address (the host never)."""
        if self._is_host(table, conn):
            return False
        if self._banned_token(table, conn.token_hash):
            return True
        return conn.address is not None and \
            address_key(table.id, conn.address) in table.bans.get("addresses", ())

    def _with_ban(self, table: Table, token_hash: str | None, addresses: set) -> dict:
        """The table's bans with one more person (each list keeps its newest entries)."""
        keep = self.limits.bans_per_table
        tokens = list(table.bans.get("tokens", ()))
        known = list(table.bans.get("addresses", ()))
        if token_hash is not None and token_hash not in tokens:
            tokens.append(token_hash)
        for a in sorted(addresses):
            key = address_key(table.id, a)
            if key not in known:
                known.append(key)
        return {"tokens": tokens[-keep:], "addresses": known[-keep:]}

    async def _kick(self, table: Table, conn: Conn, msg: schemas.Kick) -> None:
        """Before the start the seat becomes empty (a bot is removed; a person watches from
        now on). During a match a person's seat is played by a bot of the table's level to
        the end; bots stay. A person is banned from sitting here again (the module's
        docstring)."""
        i = self._seat_index(table, msg.seat, "kick")
        s = table.seats[i]
        if s.kind == "empty":
            raise ActionError("bad_message", f"kick: seat {i} is empty")
        if conn.seat == i:
            raise ActionError("bad_message", "kick: that is your own seat (use leave)")
        if s.kind == "human" and same_hash(s.token_hash, table.host_hash):
            raise ActionError("bad_message", "kick: that is the host's own seat")
        if table.status == "waiting":
            change = dict(EMPTY)
        elif s.kind == "bot":
            raise ActionError("not_waiting", "a bot stays in its seat until the match ends")
        else:
            change = {"name": s.name, "kind": "bot", "token_hash": None,
                      "bot_level": table.bot_level}
        was_person = s.kind == "human"
        bans = None
        if was_person:
            addresses = {c.address for c in table.conns if c.seat == i and c.address}
            if s.address:
                addresses.add(s.address)
            bans = self._with_ban(table, s.token_hash, addresses)
        self._cancel_grace(s)
        await self._save_seats(table, {i: change}, bans)
        s.autoplay = False
        if was_person:
            for c in list(table.conns):
                if c.seat == i:
                    c.seat = None
                    c.kicked = True
                    c.token = c.token_hash = None
                    s.connections -= 1
                    c.error("kicked", "the host took your seat; you may watch")
                    self._welcome(table, c, None)
            s.connections = 0
        self._arm_timer(table)
        self._broadcast(table, [])
        self._kick_bots(table)

    async def _swap(self, table: Table, conn: Conn, msg: schemas.Swap) -> None:
        """Exchange who sits in two seats (either may be empty) before the start."""
        self._waiting(table, "seats change")
        a = self._seat_index(table, msg.seat, "swap")
        b = self._seat_index(table, msg.to, "swap")
        if a == b:
            raise ActionError("bad_message", "swap: the two seats are the same")
        sa, sb = table.seats[a], table.seats[b]
        rows = {a: {"name": sb.name, "kind": sb.kind, "token_hash": sb.token_hash,
                    "bot_level": sb.bot_level},
                b: {"name": sa.name, "kind": sa.kind, "token_hash": sa.token_hash,
                    "bot_level": sa.bot_level}}
        ca, cb = sa.connections, sb.connections
        await self._save_seats(table, rows)
        sa.connections, sb.connections = cb, ca
        for s in (sa, sb):              # an absent person's countdown follows them
            self._cancel_grace(s)
            if s.kind == "human" and s.connections <= 0:
                self._start_grace(table, s)
        for c in table.conns:
            if c.seat == a:
                c.seat = b
            elif c.seat == b:
                c.seat = a
        for c in table.conns:
            if c.seat in (a, b):
                self._welcome(table, c, c.token)
        self._broadcast(table, [])

    async def _options(self, table: Table, conn: Conn, msg: schemas.Options) -> None:
        """New game options (merged over the table's; not the number of players) and room
        options, checked as at creation."""
        self._waiting(table, "options change")
        options = {**table.options, **(msg.options or {})}
        options = {k: v for k, v in options.items() if v is not None}
        try:
            _, n, options = self.check_game(table.game_name, table.players, options)
        except ValueError as e:
            raise ActionError("bad_option", str(e)) from None
        try:
            room = schemas.RoomOptions.model_validate({**table.room, **(msg.room or {})})
        except ValueError as e:
            err = e.errors()[0] if hasattr(e, "errors") else {}
            where = ".".join(str(x) for x in err.get("loc", ())) or "room"
            raise ActionError("bad_option", f"room.{where}: {err.get('msg', e)}") from None
        if bool(room.rated) != bool(table.room.get("rated")):
            raise ActionError("bad_option", "room.rated: fixed when the table is created")
        room_d = room.model_dump(exclude_none=True)
        await self._save_table(table, options=self._stored_options(options, room_d),
                               listed=room.listed)
        table.options, table.room = options, room_d
        self._end_ready_check(table)         # people said ready to other options
        self._broadcast(table, [])

    async def _host(self, table: Table, conn: Conn, msg: schemas.Host) -> None:
        """Hand the host role to the person in ``seat``."""
        i = self._seat_index(table, msg.seat, "host")
        s = table.seats[i]
        if s.kind != "human" or s.token_hash is None:
            raise ActionError("bad_message", f"host: seat {i} holds no person")
        await self._set_host(table, s.token_hash)
        self._broadcast(table, [])

    async def _set_host(self, table: Table, token_hash: str) -> None:
        """The holder of ``token_hash`` is the host now: stored, and every client that proved
        a token gets a new ``welcome`` (its ``host`` may have changed)."""
        await self._save_table(table, host_hash=token_hash)
        table.host_hash = token_hash
        for c in table.conns:
            if c.token_hash is not None:
                self._welcome(table, c, c.token)

    async def _close(self, table: Table, conn: Conn, msg: schemas.Close) -> None:
        """Close the table: a live match stops where it is (its moves stay stored, it gets no
        result), everyone gets a last ``state``, then the sockets close with 4410."""
        await self._save_table(table, status="closed")
        self._no_longer_waiting(table.id)
        table.status = "closed"
        self._stop_tasks(table)
        table.turn_deadline = None
        self._broadcast(table, [])
        for c in list(table.conns):
            c.error("closed", "the host closed this table")
            c.close(CLOSED_CODE)
        if self.tables.get(table.id) is table:
            del self.tables[table.id]
