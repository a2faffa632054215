"""The table manager: tables in memory, their sockets, and the action pipeline.

Each table has one :class:`asyncio.Lock`; every change to a table (seats, start, moves, bot
moves) happens under it, is stored first, then broadcast (one ``state`` per client, built by
:mod:`shangyou.server.views`). :meth:`TableManager.handle` is the whole pipeline of
``docs/protocol.md``: size, rate, JSON, schema; table and live match; seat; turn; version;
legality; store; version + 1; bots; broadcast.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import secrets
from typing import Any

import shangyou
from shangyou.registry import resolve

from . import schemas, views
from .autoplay import Autoplay, _bot_name, _make_bot
from .conn import FLOOD_CLOSE, Conn
from .model import ROOM_DEFAULTS, ROOM_KEY, ActionError, Seat, Table, hash_token, new_id
from .store import AsyncStore

log = logging.getLogger("shangyou.server")


class TableManager(Autoplay):
    def __init__(self, store: AsyncStore, bot_delay: float = 0.3,
                 rate: float = schemas.RATE_PER_SECOND):
        self.store = store
        self.bot_delay = float(bot_delay)
        self.rate = rate
        self.tables: dict[str, Table] = {}
        self._loading: asyncio.Lock | None = None

    # ----------------------------------------------------------------------- life cycle
    async def startup(self) -> None:
        """Reload every waiting or running table from the store (replaying stored moves)."""
        self._loading = asyncio.Lock()
        for table_id in await self.store.call("table_ids", ("waiting", "playing")):
            await self._load(table_id)
        resumed = sum(1 for t in self.tables.values() if t.status == "playing")
        if self.tables:
            log.info("reloaded %d tables (%d playing)", len(self.tables), resumed)

    async def shutdown(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
        for t in list(self.tables.values()):
            if t.bot_task is not None:
                t.bot_task.cancel()
            if t.timer_task is not None:
                t.timer_task.cancel()
            for s in t.seats:
                self._cancel_grace(s)
            for c in list(t.conns):
                c.close(1001)

    async def _load(self, table_id: str) -> Table | None:
        row = await self.store.call("load_table", table_id)
        if row is None:
            return None
        options = dict(row["options"] or {})
        room = {**ROOM_DEFAULTS, **(options.pop(ROOM_KEY, None) or {})}
        t = Table(id=row["id"], game_name=row["game"], players=row["players"],
                  options=options, bot_level=row["bot_level"], status=row["status"],
                  version=row["version"], room=room)
        for d in row["seats"]:
            s = Seat(index=d["seat"], name=d["name"], kind=d["kind"],
                     token_hash=d["token_hash"], bot_level=d["bot_level"])
            if s.kind == "bot":
                s.bot = _make_bot(s.bot_level or t.bot_level)
            t.seats.append(s)
        m = row["match"]
        if m is not None:
            t.match_id = m["id"]
            try:
                t.game = shangyou.replay({"game": m["game"], "players": m["players"],
                                          "seed": m["seed"], "match": True,
                                          "options": m["options"], "moves": m["moves"]})
            except Exception:
                log.exception("table %s: match %s does not replay", t.id, m["id"])
                t.game = None
                t.status = "over" if t.status == "playing" else t.status
            if t.game is not None:
                t.event_cursor = len(t.game.events)
                if t.status == "playing" and t.game.over:
                    t.status = "over"
        self.tables[t.id] = t
        if t.status == "playing":
            for s in t.seats:               # nobody is connected yet after a restart
                if s.kind == "human":
                    self._start_grace(t, s)
            self._arm_timer(t)
        self._kick_bots(t)
        return t

    async def get(self, table_id: str) -> Table | None:
        t = self.tables.get(table_id)
        if t is not None:
            return t
        if not table_id or len(table_id) > 32 or self._loading is None:
            return None
        async with self._loading:
            t = self.tables.get(table_id)
            return t if t is not None else await self._load(table_id)

    def open_tables(self) -> list[dict]:
        return [t.summary() for t in self.tables.values() if t.status in ("waiting", "playing")]

    # --------------------------------------------------------------------------- creating
    async def create_table(self, game: str, players: int | None, options: dict,
                           bot_level: str, room: dict | None = None) -> Table:
        """A new waiting table; ValueError (with the engine's message) for a bad preset or
        option."""
        try:
            name, _ = resolve(game)
            trial = shangyou.new_match(name, players=players, seed=0, **options)
        except (ValueError, TypeError, KeyError) as e:
            raise ValueError(str(e) or e.__class__.__name__) from None
        if bot_level not in schemas.BOT_LEVELS:
            raise ValueError(f"unknown bot level {bot_level!r}")
        n = trial.n
        table_id = new_id()
        while table_id in self.tables:
            table_id = new_id()
        opts = {k: v for k, v in options.items() if k != "players"}
        room = {**ROOM_DEFAULTS, **(room or {})}
        stored = {**opts, ROOM_KEY: room} if room != ROOM_DEFAULTS else opts
        await self.store.call("create_table", table_id, name, n, stored, bot_level)
        t = Table(id=table_id, game_name=name, players=n, options=opts, bot_level=bot_level,
                  seats=[Seat(index=i) for i in range(n)], room=room)
        self.tables[table_id] = t
        return t

    # ------------------------------------------------------------------------------ sockets
    def new_conn(self, table: Table, ws) -> Conn:
        table.sockets += 1
        c = Conn(ws, rate=self.rate)
        c.start()
        return c

    async def disconnect(self, table: Table, conn: Conn) -> None:
        table.sockets -= 1
        if conn in table.conns:
            async with table.lock:
                table.conns.discard(conn)
                if conn.seat is not None:
                    seat = table.seats[conn.seat]
                    seat.connections -= 1
                    conn.seat = None
                    if seat.connections <= 0 and table.status == "playing":
                        self._start_grace(table, seat)
                    self._broadcast(table, [])
        await conn.finish()
        if table.status == "over" and table.sockets == 0 and table.bot_task is None \
                and self.tables.get(table.id) is table:
            del self.tables[table.id]      # finished and unwatched: reloaded on demand

    # ----------------------------------------------------------------------------- pipeline
    async def handle(self, table: Table, conn: Conn, raw: str | bytes | None) -> None:
        """One client message, through the whole pipeline; any refusal is an ``error`` to
        this client only, and changes nothing."""
        if conn.closed:
            return
        try:
            # 1. rate, size, JSON, schema
            if not conn.allow():
                conn.refused_in_a_row += 1
                if conn.refused_in_a_row > FLOOD_CLOSE:
                    conn.error("rate_limited", "too many messages; closing")
                    conn.close(1008)
                    return
                raise ActionError("rate_limited", f"more than {self.rate:g} messages per second;"
                                  " this one was ignored")
            if raw is None:
                raise ActionError("bad_json", "empty message")
            size = len(raw) if isinstance(raw, bytes) else \
                (len(raw) if len(raw) > schemas.MAX_MESSAGE_BYTES else len(raw.encode("utf-8")))
            if size > schemas.MAX_MESSAGE_BYTES:
                raise ActionError("too_big", f"a message may be at most "
                                  f"{schemas.MAX_MESSAGE_BYTES} bytes")
            try:
                data = json.loads(raw)
            except (ValueError, UnicodeDecodeError):
                raise ActionError("bad_json", "the message is not valid JSON") from None
            try:
                msg = schemas.parse_client(data)
            except ValueError as e:
                raise ActionError("bad_message", str(e)) from None
            if not conn.said_hello and msg.type != "hello":
                raise ActionError("bad_message", "the first message must be 'hello'")
            if conn.said_hello and msg.type == "hello":
                raise ActionError("bad_message", "already joined: 'hello' is the first message "
                                  "only")
            if msg.type == "chat":
                self._chat(table, conn, msg.text)
            else:
                async with table.lock:
                    if conn.closed:
                        return
                    if msg.type == "move":
                        await self._move(table, conn, msg)
                    else:
                        await getattr(self, "_" + msg.type)(table, conn, msg)
            conn.refused_in_a_row = 0
        except ActionError as e:
            if e.code != "rate_limited":
                conn.refused_in_a_row += 1
                if conn.refused_in_a_row > FLOOD_CLOSE:
                    conn.close(1008)
                    return
            conn.error(e.code, e.message)
        except Exception:
            log.exception("table %s: message from socket %s failed", table.id, conn.id)
            conn.error("server_error", "the server failed on this message")

    async def _move(self, table: Table, conn: Conn, msg: schemas.MoveMsg) -> None:
        # 2. the table exists (the socket is bound to it) and the match is live
        g = table.game
        if table.status != "playing" or g is None or g.over:
            raise ActionError("not_playing", "no match is being played at this table"
                              if table.status == "waiting" else "the match is over")
        # 3. the sender holds a seat (proved by its token at hello, or by sitting)
        seat = conn.seat
        if seat is None:
            raise ActionError("not_seated", "you hold no seat at this table (spectator)")
        # 4. it is that seat's turn
        if g.to_act != seat:
            raise ActionError("not_your_turn", f"it is seat {g.to_act}'s turn, not yours "
                              f"(seat {seat})")
        # 5. the state version is the current one (stale or repeated actions)
        if msg.version != table.version:
            raise ActionError("stale", f"the move was chosen in version {msg.version}; the "
                              f"current version is {table.version}")
        # 6. the move is legal
        try:
            g.apply(msg.move, seat=seat)
        except ValueError as e:          # IllegalMove, NotationError: the game is unchanged
            raise ActionError("illegal", str(e)) from None
        except Exception:                # an engine bug: rebuild the state from the log
            log.exception("table %s: the engine failed on %r", table.id, msg.move)
            table.game = shangyou.replay(g.log)
            table.event_cursor = len(table.game.events)
            raise ActionError("illegal", "the server could not make this move") from None
        # 7. store, version + 1, broadcast each client its own view; then the bots
        await self._commit(table)
        self._kick_bots(table)

    async def _commit(self, table: Table) -> None:
        """Store the move just applied, raise the version, send every client its state."""
        g = table.game
        idx = len(g.moves) - 1
        seat, mv = g.moves[idx]
        version = table.version + 1
        result = g.result if g.over else None
        try:
            await self.store.add_move(table.id, table.match_id, idx, seat, str(mv),
                                  version, _jsonable(result) if result is not None else None)
        except Exception:
            log.exception("table %s: storing move %d failed; undoing it", table.id, idx)
            log_ = g.log
            log_["moves"] = log_["moves"][:-1]
            table.game = shangyou.replay(log_)
            table.event_cursor = len(table.game.events)
            raise ActionError("server_error", "the move could not be stored; it was undone")
        table.version = version
        if g.over:
            table.status = "over"
        self._arm_timer(table)
        events = self._new_events(table, seat, mv)
        table.events_by_move.append((len(g.moves), events))
        self._broadcast(table, events)

    def _new_events(self, table: Table, seat: int, mv) -> list[dict]:
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

    def _broadcast(self, table: Table, events: list[dict]) -> None:
        if not table.conns:
            return
        texts = views.states_by_seat(table, {c.seat for c in table.conns}, events)
        for c in table.conns:
            c.send_text(texts[c.seat])

    def _send_state(self, table: Table, conn: Conn, events: list | None = None) -> None:
        conn.send_text(views.states_by_seat(table, [conn.seat], events or [])[conn.seat])

    @staticmethod
    def _catch_up(table: Table, msg: schemas.Hello) -> list[dict]:
        """The events a (re)connecting client's log lacks: those after move ``since`` of its
        match (every event of this match when it knows another one); none if it did not ask.
        Each client gets them through its own view filter (views.state_for)."""
        if msg.since is None or table.match_id is None:
            return []
        since = msg.since if msg.match == table.match_id else -1
        return [ev for n, evs in table.events_by_move if n > since for ev in evs]

    def _welcome(self, table: Table, conn: Conn, token: str | None) -> None:
        conn.send({"type": "welcome", "seat": conn.seat, "token": token,
                   "table": views.table_info(table)})

    # ------------------------------------------------------------------------- messages
    async def _hello(self, table: Table, conn: Conn, msg: schemas.Hello) -> None:
        conn.said_hello = True
        conn.name = msg.name or "guest"
        seat = None
        if msg.token:
            h = hash_token(msg.token)
            for s in table.seats:
                if s.kind == "human" and s.token_hash and hmac.compare_digest(s.token_hash, h):
                    seat = s.index
                    break
        table.conns.add(conn)
        catch_up = self._catch_up(table, msg)
        if seat is None:
            self._welcome(table, conn, None)
            self._send_state(table, conn, catch_up)
            return
        for other in list(table.conns):
            if other is not conn and other.seat == seat:
                other.seat = None
                table.conns.discard(other)
                table.seats[seat].connections -= 1
                other.error("replaced", "this seat was opened in another window or device")
                other.close(4001)
        conn.seat = seat
        conn.name = table.seats[seat].name or conn.name
        s = table.seats[seat]
        s.connections += 1
        self._cancel_grace(s)
        if s.autoplay:
            s.autoplay = False            # the person is back: the bot stops playing for them
            self._arm_timer(table)
        self._welcome(table, conn, msg.token)
        if catch_up:
            self._send_state(table, conn, catch_up)
        self._broadcast(table, [])

    def _may_set_up(self, table: Table, conn: Conn) -> None:
        """Filling seats and starting: a seated player, or anyone at a table with no human."""
        if conn.seat is None and table.humans() > 0:
            raise ActionError("not_seated", "only a seated player may do this")

    async def _save_seats(self, table: Table, changes: dict[int, dict]) -> None:
        rows = [{"seat": i, **d} for i, d in changes.items()]
        try:
            await self.store.call("save_seats", table.id, rows, table.version + 1)
        except Exception:
            log.exception("table %s: storing seats failed", table.id)
            raise ActionError("server_error", "the seats could not be stored") from None
        table.version += 1
        for i, d in changes.items():
            s = table.seats[i]
            s.name, s.kind, s.token_hash, s.bot_level = (d["name"], d["kind"], d["token_hash"],
                                                         d["bot_level"])
            s.bot = _make_bot(s.bot_level) if s.kind == "bot" else None

    async def _sit(self, table: Table, conn: Conn, msg: schemas.Sit) -> None:
        if table.status != "waiting":
            raise ActionError("not_waiting", "seats cannot change after the start")
        if not 0 <= msg.seat < table.players:
            raise ActionError("bad_message", f"sit: seat: no seat {msg.seat} at a table of "
                              f"{table.players}")
        if table.seats[msg.seat].kind != "empty":
            raise ActionError("seat_taken", f"seat {msg.seat} is taken")
        name = msg.name or conn.name
        if not name or name == "guest":
            name = f"Player {msg.seat + 1}"
        token = secrets.token_urlsafe(24)
        empty = {"name": None, "kind": "empty", "token_hash": None, "bot_level": None}
        changes = {msg.seat: {"name": name, "kind": "human", "token_hash": hash_token(token),
                              "bot_level": None}}
        old = conn.seat
        if old is not None:
            changes[old] = empty
        await self._save_seats(table, changes)
        if old is not None:
            table.seats[old].connections -= 1
        conn.seat = msg.seat
        conn.name = name
        table.seats[msg.seat].connections += 1
        self._welcome(table, conn, token)
        self._broadcast(table, [])

    async def _leave(self, table: Table, conn: Conn, msg: schemas.Leave) -> None:
        if table.status != "waiting":
            raise ActionError("not_waiting", "seats cannot change after the start")
        if conn.seat is None:
            raise ActionError("not_seated", "you hold no seat")
        seat = conn.seat
        await self._save_seats(table, {seat: {"name": None, "kind": "empty", "token_hash": None,
                                              "bot_level": None}})
        table.seats[seat].connections -= 1
        conn.seat = None
        self._welcome(table, conn, None)
        self._broadcast(table, [])

    async def _bots(self, table: Table, conn: Conn, msg: schemas.Bots) -> None:
        if table.status != "waiting":
            raise ActionError("not_waiting", "seats cannot change after the start")
        self._may_set_up(table, conn)
        level = msg.level or table.bot_level
        changes = {s.index: {"name": _bot_name(level, s.index), "kind": "bot",
                             "token_hash": None, "bot_level": level}
                   for s in table.seats if s.kind == "empty"}
        if not changes:
            self._send_state(table, conn)
            return
        await self._save_seats(table, changes)
        self._broadcast(table, [])

    async def _start(self, table: Table, conn: Conn, msg: schemas.Start) -> None:
        if table.status == "playing":
            raise ActionError("not_waiting", "the match has already started")
        self._may_set_up(table, conn)
        empty = [s.index for s in table.seats if s.kind == "empty"]
        if empty:
            raise ActionError("not_ready", f"empty seats: {', '.join(map(str, empty))} "
                              "(sit, or fill them with bots)")
        seed = secrets.randbits(31)
        g = shangyou.new_match(table.game_name, players=table.players, seed=seed,
                               **table.options)
        match_id = new_id(8)
        names = [s.name for s in table.seats]
        try:
            await self.store.call("start_match", table.id, match_id, table.game_name,
                                  table.players, table.options, seed, names, table.version + 1)
        except Exception:
            log.exception("table %s: storing the match start failed", table.id)
            raise ActionError("server_error", "the match could not be stored") from None
        table.version += 1
        table.game = g
        table.match_id = match_id
        table.status = "playing"
        table.event_cursor = len(g.events)
        for s in table.seats:
            s.autoplay = False
            if s.kind == "human" and s.connections <= 0:
                self._start_grace(table, s)
        self._arm_timer(table)
        table.events_by_move = [(0, list(g.events))]
        self._broadcast(table, list(g.events))
        self._kick_bots(table)

    def _chat(self, table: Table, conn: Conn, text: str) -> None:
        msg = views.dumps({"type": "chat", "from": conn.name or "guest", "text": text,
                           "seat": conn.seat})
        for c in table.conns:
            c.send_text(msg)


def _jsonable(value):
    return json.loads(json.dumps(value, default=list))
