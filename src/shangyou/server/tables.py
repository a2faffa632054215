"""The table manager: the tables this process runs, their sockets, and their actions.

Each table has one :class:`asyncio.Lock`; every change to a table (seats, start, moves, bot
moves) happens under it, is stored first, then broadcast (one ``state`` per client, built by
:mod:`shangyou.server.views`). :meth:`TableManager.handle` runs the pipeline of
``docs/protocol.md`` (:mod:`shangyou.server.pipeline`: size, rate, JSON, schema; table and
live match; seat; turn; version; legality; store; version + 1; bots; broadcast) through three
seams: the **store**, where every write is a compare-and-set on the table's version; the
**lease** that says this process runs the table (:mod:`shangyou.server.ownership`); and the
**fan-out** that hands each client its message wherever its socket is
(:mod:`shangyou.server.fanout`). Alone on its store the server owns every table and every
socket is its own; as one node of several (:mod:`shangyou.server.cluster`) it runs the tables
it holds a lease on, for sockets on any node.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import secrets
import time

import shangyou
from shangyou.engine import deal
from shangyou.registry import resolve

from . import metrics, pipeline, schemas, views
from .accounts import Accounts
from .advice import Hints, answer_hint
from .autoplay import Autoplay, _make_bot
from .budget import Work
from .conn import FLOOD_CLOSE, Conn
from .fanout import Fanout
from .host import BANNED, HostActions
from .limits import Clients, Limits, Sweep
from .logs import bind_table, table_context
from .model import (ROOM_DEFAULTS, ROOM_KEY, ActionError, Refused, Seat, StoreDown, Table,
                    hash_token, new_id, same_hash)
from .ownership import LocalLease
from .ready import ReadyChecks
from .rematch import Rematches
from .store import AsyncStore, Stale, StoreUnavailable, utcnow
from .watchdog import Watchdog

log = logging.getLogger("shangyou.server")

MOVED_CODE = 1012          # the socket close code of a table another node runs now: reconnect


class TableManager(Autoplay, HostActions, ReadyChecks, Rematches):
    """Every table this process holds: created here, or loaded from the store when a client
    opens it (and, at start, the most recently touched ones, in the background)."""

    RELOAD_AT_START = 200       # tables reloaded at start (the rest load when opened)

    def __init__(self, store: AsyncStore, bot_delay: float = 0.3,
                 rate: float = schemas.RATE_PER_SECOND, limits: Limits | None = None,
                 lease=None, fanout: Fanout | None = None):
        self.store = store
        self.lease = lease or LocalLease()
        self.fanout = fanout or Fanout()
        self.bot_delay = float(bot_delay)
        self.rate = rate
        self.limits = limits or Limits()
        self.clients = Clients(self.limits)
        self.work = Work(self.limits)           # worker processes: bots, then hints, reviews
        self.hints = Hints(self.limits, self.clients, self.work.advice)
        self.accounts = Accounts(store, self.limits, self.clients)    # accounts.py
        self.tables: dict[str, Table] = {}
        self._loading: asyncio.Lock | None = None
        # waiting table id -> the key its creator's address counts under in clients.waiting
        self._waiting_by: dict[str, str] = {}
        self._tasks: list[asyncio.Task] = []
        self.watchdog = Watchdog(self)
        # stopping: no new socket, no table taken; each table handed on (:meth:`drain`).
        # /readyz may read it
        self.draining = False

    # ----------------------------------------------------------------------- life cycle
    async def startup(self) -> None:
        """Start the sweeper and the watchdog, and reload the most recently touched waiting
        or running tables in the background (the server answers at once; any other table
        loads when opened)."""
        self._loading = asyncio.Lock()
        await self.lease.start(self)
        self._tasks = [asyncio.create_task(self._reload_recent(), name="reload-tables"),
                       asyncio.create_task(self._sweep_loop(), name="sweep-tables"),
                       asyncio.create_task(self.accounts.rate_pending(), name="rate-pending")]
        self.watchdog.start()

    async def _reload_recent(self) -> None:
        try:
            ids = await self.store.call("recent_table_ids", ("waiting", "playing"),
                                        self.RELOAD_AT_START)
            for table_id in ids:
                await self.get(table_id)
                await asyncio.sleep(0)
            if ids:
                log.info("reloaded %d tables", len(ids))
        except asyncio.CancelledError:
            raise
        except StoreUnavailable:
            pass                      # logged by the store; tables load when opened
        except Exception:
            log.exception("reloading tables failed")

    async def shutdown(self) -> None:
        self.watchdog.stop()
        for task in self._tasks:
            task.cancel()
        self._shutdown_pool()
        for t in list(self.tables.values()):
            self._stop_tasks(t)
            for c in list(t.conns):
                c.close(1001)
        await self.lease.stop()          # a node of several hands its tables on at once

    def _stop_tasks(self, t: Table) -> None:
        if t.bot_task is not None:
            t.bot_task.cancel()
            t.bot_task = None
        if t.timer_task is not None:
            t.timer_task.cancel()
            t.timer_task = None
        for s in t.seats:
            self._cancel_grace(s)
        self._end_ready_check(t)

    def _drop(self, t: Table) -> None:
        """The table leaves memory (it stays in the store)."""
        self._stop_tasks(t)
        if self.tables.get(t.id) is t:
            del self.tables[t.id]
            self.lease.forget(t.id)

    def lose(self, t: Table, why: str) -> None:
        """Another node runs this table now (``why``): it leaves memory without a write, and
        its clients are told and reconnect (to any node; they reach the new owner)."""
        with table_context(t.id):
            log.warning("table %s: no longer run here: %s", t.id, why)
        t.lost = True
        self._stop_tasks(t)
        if self.tables.get(t.id) is t:
            del self.tables[t.id]
        for c in list(t.conns):
            c.error("moved", "this table is run by another server now; reconnecting")
            c.close(MOVED_CODE)
        if self.lease.node is None:
            # alone on the store, a refused write means memory and store differ (a write
            # whose commit was cut off was made after all): the table loads again from the
            # store, where it is as stored, and plays on
            self.watchdog.reload(t.id)

    async def hand_over(self, t: Table,
                        why: str = "this server is stopping; reconnecting to another") -> None:
        """Draining (or another node asks for it: cluster.py's affinity): the table leaves
        this node at once, for another. Under its lock (a move being stored is stored first),
        its bots and timers stop and its lease is released; then its clients are told
        ``moved`` (``why``) and reconnect, to another node, which takes it from the store."""
        async with t.lock:
            if self.tables.get(t.id) is not t:
                return
            t.lost = True
            self._stop_tasks(t)
            del self.tables[t.id]
            try:
                await self.lease.release([t.id])
            except Exception:           # noqa: BLE001 - its lease runs out instead
                log.exception("table %s: releasing its lease failed", t.id)
        for c in list(t.conns):
            c.error("moved", why)
            c.close(MOVED_CODE)

    async def drain(self) -> int:
        """Stop taking sockets and tables, and hand every table on, one at a time (those with
        clients first); how many were handed on."""
        self.draining = True
        n = 0
        while True:
            if self._loading is not None:
                async with self._loading:   # a table that was loading when the drain began
                    pass
            rest = sorted(self.tables.values(), key=lambda t: t.sockets <= 0)
            if not rest:                    # (one loaded or created meanwhile: handed on too)
                return n
            for t in rest:
                await self.hand_over(t)
                n += 1

    async def _stored(self, table: Table, what: str, fn: str, *args, **kwargs) -> None:
        """A write of ``table`` through the fenced store; :class:`ActionError` if refused."""
        try:
            await self.store.call(fn, *args, **kwargs)
        except Stale as e:
            self.lose(table, f"storing {what} was refused ({e})")
            raise ActionError("moved", "this table is run by another server now; "
                              "reconnecting") from None
        except StoreUnavailable:           # logged by the store, once
            raise StoreDown(f"{what} could not be stored: the database did not answer for "
                            f"{self.store.retry_seconds:g} s; try again") from None
        except Exception:
            log.exception("table %s: storing %s failed", table.id, what)
            raise ActionError("server_error", f"{what} could not be stored") from None

    def _no_longer_waiting(self, table_id: str) -> None:
        key = self._waiting_by.pop(table_id, None)
        if key is not None:
            self.clients.waiting[key] -= 1
            if self.clients.waiting[key] <= 0:
                del self.clients.waiting[key]

    # ------------------------------------------------------------------------------ sweeping
    async def _sweep_loop(self) -> None:
        while True:
            await asyncio.sleep(self.limits.sweep_seconds)
            try:
                await self.sweep()
            except asyncio.CancelledError:
                raise
            except StoreUnavailable:
                pass                      # logged by the store; the next sweep tries again
            except Exception:
                log.exception("sweeping tables failed")

    async def sweep(self) -> Sweep:
        """Waiting tables nobody touched for ``waiting_ttl`` and nobody has open expire (in
        the store too); tables without a socket for ``idle_seconds`` leave memory (a finished
        or abandoned match included: its bots stop, and it goes on when somebody opens it)."""
        out = Sweep()
        keep = [t.id for t in self.tables.values() if t.sockets > 0]
        before = utcnow() - dt.timedelta(seconds=self.limits.waiting_ttl)
        for table_id in await self.store.call("expire_waiting", before, keep):
            self._no_longer_waiting(table_id)
            t = self.tables.get(table_id)
            if t is not None:
                t.status = "expired"
                self._drop(t)
            out.expired += 1
            out.ids.append(table_id)
        # the waiting tables created here that another node runs now (cluster.py's affinity
        # hands a fresh table to the node its sockets reach): counted against their creator's
        # address until they start, close or expire there
        away = [i for i in self._waiting_by if i not in self.tables]
        if away:
            status = await self.store.call("statuses", away)
            for table_id in away:
                if status.get(table_id) != "waiting":
                    self._no_longer_waiting(table_id)
        now = time.monotonic()
        for t in list(self.tables.values()):
            if t.sockets <= 0 and now - t.idle_since >= self.limits.idle_seconds:
                self._drop(t)
                out.evicted += 1
        return out

    async def _load(self, table_id: str) -> Table | None:
        with table_context(table_id):
            return await self._load_row(table_id)

    async def _load_row(self, table_id: str) -> Table | None:
        row = await self.store.call("load_table", table_id)
        if row is None:
            return None
        options = dict(row["options"] or {})
        room = {**ROOM_DEFAULTS, **(options.pop(ROOM_KEY, None) or {})}
        if row["status"] not in ("waiting", "playing", "over"):
            return None                     # closed by its host, or expired
        room["listed"] = row["listed"]
        t = Table(id=row["id"], game_name=row["game"], players=row["players"],
                  options=options, bot_level=row["bot_level"], status=row["status"],
                  version=row["version"], room=room, host_hash=row["host_hash"],
                  bans=dict(row.get("bans") or {}))
        for d in row["seats"]:
            s = Seat(index=d["seat"], name=d["name"], kind=d["kind"],
                     token_hash=d["token_hash"], bot_level=d["bot_level"])
            if s.kind == "bot":
                s.bot = _make_bot(s.bot_level or t.bot_level)
            t.seats.append(s)
        m = row["match"]
        if m is not None:
            t.match_id = m["id"]
            if isinstance(m["seed"], str):
                t.secret, t.commitment = m["seed"], m["commitment"]
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
        if t.status in ("playing", "waiting"):
            for s in t.seats:               # nobody is connected yet after a restart
                if s.kind == "human":
                    self._start_grace(t, s)
        if t.status == "playing":
            self._arm_timer(t)
        self._kick_bots(t)
        return t

    def loading(self) -> bool:
        """Whether a table is being loaded (taken over) at the moment."""
        return self._loading is not None and self._loading.locked()

    async def loaded(self) -> None:
        """Once the table being loaded, if any, is in ``tables`` (or was given up)."""
        if self._loading is not None:
            async with self._loading:
                pass

    async def get(self, table_id: str) -> Table | None:
        t = self.tables.get(table_id)
        if t is not None:
            return t
        if not table_id or len(table_id) > 32 or self._loading is None or self.draining:
            return None
        async with self._loading:
            t = self.tables.get(table_id)
            if t is not None or self.draining:
                return t
            for _ in range(2):
                if not await self.lease.acquire(table_id):
                    return None             # another node runs it
                t = await self._load(table_id)
                if t is None:
                    self.lease.forget(table_id)
                    return None
                if self.lease.holds(table_id):
                    return t
                # this node's epoch ended while it loaded (its lease ran out): taken again
                self.lose(t, "this node's epoch ended while it loaded")
            return None

    def page(self, offset: int = 0, limit: int = 50) -> dict:
        """One page of the listed open tables this process holds: waiting ones first, then
        running ones, newest first. A waiting table where nobody sits and nobody has looked for
        ``empty_listed_seconds`` (its creator left) is not offered any more. Costs one pass over the tables in memory and the
        summaries of one page: it never waits on the store."""
        limit = max(1, min(limit, self.limits.page_max))
        offset = max(0, offset)
        now = time.monotonic()
        empty_for = self.limits.empty_listed_seconds
        rows = [t for t in self.tables.values()
                if t.status in ("waiting", "playing") and t.room.get("listed", True)
                and not (t.status == "waiting" and t.sockets <= 0 and t.humans() == 0
                         and now - t.idle_since >= empty_for)]
        rows.sort(key=lambda t: (t.status != "waiting", -t.created))
        return {"tables": [t.summary() for t in rows[offset:offset + limit]],
                "total": len(rows), "offset": offset, "limit": limit}

    # --------------------------------------------------------------------------- creating
    @staticmethod
    def check_game(game: str, players: int | None, options: dict) -> tuple[str, int, dict]:
        """The preset's name, its player count and the options as the table keeps them;
        ValueError with the engine's message for a bad preset or option."""
        if "players" in options:
            raise ValueError("players: give the number of players as 'players', "
                             "not as an option")
        try:
            name, _ = resolve(game)
            trial = shangyou.new_match(name, players=players, seed=0, **options)
        except (ValueError, TypeError, KeyError) as e:
            raise ValueError(str(e) or e.__class__.__name__) from None
        return name, trial.n, dict(options)

    async def create_table(self, game: str, players: int | None, options: dict,
                           bot_level: str, room: dict | None = None,
                           address: str | None = None) -> tuple[Table, str]:
        """A new waiting table and its host's token. :class:`Refused` when ``address`` has
        created too many tables lately or the waiting tables are at their cap; ValueError
        (with the engine's message) for a bad preset or option."""
        if not self.clients.may_create(address):
            raise Refused(429, "rate_limited", "too many tables created from your address; "
                          f"at most {self.limits.tables_per_minute} a minute")
        if self.clients.waiting_full(address):
            raise Refused(429, "too_many_tables", "your address has "
                          f"{self.limits.waiting_per_address} tables waiting to start already")
        name, n, opts = self.check_game(game, players, options)
        if bot_level not in schemas.BOT_LEVELS:
            raise ValueError(f"unknown bot level {bot_level!r}")
        if await self.store.call("count_waiting") >= self.limits.waiting_total:
            raise Refused(429, "too_many_tables", "the server has too many tables waiting to "
                          "start; join one of them or try again later")
        table_id = new_id()
        while table_id in self.tables:
            table_id = new_id()
        room = {**ROOM_DEFAULTS, **(room or {})}
        token = secrets.token_urlsafe(24)
        host_hash = hash_token(token)
        await self.store.call("create_table", table_id, name, n, self._stored_options(opts, room),
                              bot_level, host_hash, bool(room.get("listed", True)))
        t = Table(id=table_id, game_name=name, players=n, options=opts, bot_level=bot_level,
                  seats=[Seat(index=i) for i in range(n)], room=room, host_hash=host_hash,
                  creator=address)
        self.tables[table_id] = t
        self._waiting_by[table_id] = address or "?"
        self.clients.waiting[address or "?"] += 1
        return t, token

    @staticmethod
    def _stored_options(options: dict, room: dict) -> dict:
        """The options as stored: the room's under ``_room`` when they are not the defaults."""
        return {**options, ROOM_KEY: room} if room != ROOM_DEFAULTS else dict(options)

    # ------------------------------------------------------------------------------ sockets
    def new_conn(self, table: Table, ws, address: str | None = None) -> Conn | None:
        """A socket on ``table``, or None when the table or the address holds too many."""
        if table.sockets >= self.limits.sockets_per_table:
            return None
        if not self.clients.socket_opened(address):
            return None
        c = Conn(ws, rate=self.rate, address=address)
        c.start()
        self.attach(table, c)
        return c

    def attach(self, table: Table, conn) -> bool:
        """Count a socket on ``table`` (of this process, or of another node: a RemoteConn,
        whose address that node counts) and start its hello timer; False when the table
        holds too many."""
        if table.sockets >= self.limits.sockets_per_table:
            return False
        table.sockets += 1
        conn.hello_timer = asyncio.get_running_loop().call_later(
            self.limits.hello_seconds, self._hello_late, conn)
        return True

    def _hello_late(self, conn: Conn) -> None:
        if not conn.said_hello and not conn.closed:
            conn.error("hello_timeout", f"no hello within {self.limits.hello_seconds:g} s")
            conn.close(4408)

    async def disconnect(self, table: Table, conn: Conn) -> None:
        table.sockets -= 1
        if not conn.remote:
            self.clients.socket_closed(conn.address)
        if conn.hello_timer is not None:
            conn.hello_timer.cancel()
        if table.sockets <= 0:
            table.idle_since = time.monotonic()
        if conn in table.conns and not table.lost:      # a lost table starts nothing more
            async with table.lock:
                table.conns.discard(conn)
                if conn.seat is not None:
                    seat = table.seats[conn.seat]
                    seat.connections -= 1
                    conn.seat = None
                    if seat.connections <= 0 and table.status in ("playing", "waiting"):
                        self._start_grace(table, seat)
                    self._broadcast(table, [])
        await conn.finish()
        if table.status == "over" and table.sockets == 0 and table.bot_task is None \
                and self.tables.get(table.id) is table:
            self._drop(table)              # finished and unwatched: reloaded on demand

    # ----------------------------------------------------------------------------- pipeline
    async def handle(self, table: Table, conn: Conn, raw: str | bytes | None) -> None:
        """One client message, through the whole pipeline; any refusal is an ``error`` to
        this client only, and changes nothing."""
        if conn.closed:
            return
        bind_table(table.id)          # this socket's task: its lines name the table
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
            if table.lost:
                conn.error("moved", "this table is run by another server now; reconnecting")
                conn.close(MOVED_CODE)
                return
            msg = pipeline.parse(raw, conn.said_hello)
            if msg.type == "ping":          # a ping the socket's loop did not answer itself
                conn.send(pipeline.pong(msg.id))
            elif msg.type == "chat":
                self._chat(table, conn, msg.text)
            elif msg.type == "hint":        # outside the lock: a search hint takes a while
                await answer_hint(self, table, conn, msg.bury)
            else:
                async with table.lock:
                    if conn.closed:
                        return
                    if table.lost:          # handed on while this message waited
                        conn.error("moved", "this table is run by another server now; "
                                   "reconnecting")
                        conn.close(MOVED_CODE)
                        return
                    if msg.type == "move":
                        await self._move(table, conn, msg)
                    else:
                        if msg.type in schemas.HOST_TYPES:
                            self._require_host(table, conn)
                        await getattr(self, "_" + msg.type)(table, conn, msg)
            conn.refused_in_a_row = 0
        except ActionError as e:
            if e.code != "rate_limited":
                conn.refused_in_a_row += 1
                if conn.refused_in_a_row > FLOOD_CLOSE:
                    conn.close(1008)
                    return
            conn.error(e.code, e.message, e.why)
        except Exception:
            log.exception("table %s: message from socket %s failed", table.id, conn.id)
            conn.refused_in_a_row += 1
            if conn.refused_in_a_row > FLOOD_CLOSE:
                conn.close(1008)
                return
            conn.error("server_error", "the server failed on this message")

    async def _move(self, table: Table, conn: Conn, msg: schemas.MoveMsg) -> None:
        # 2 to 6: live match, seat, turn, version, legality; then 7: store, broadcast, bots
        pipeline.apply_move(table, conn.seat, msg.version, msg.move)
        # a move that is what the seat's hint for this state said is stored as such
        await self._commit(table, self.hints.followed(table.id, conn.seat, msg.version,
                                                      msg.move))
        self._kick_bots(table)

    async def _commit(self, table: Table, actor: str | None = None) -> None:
        """Store the move just applied, raise the version, send every client its state.
        ``actor``: who moved for a person ("bot" while they are away, "timer")."""
        rec = pipeline.record(table, actor)
        try:
            await self.store.add_move(*rec.row())
        except Stale as e:
            self.lose(table, f"storing move {rec.idx} was refused ({e})")
            raise ActionError("moved", "this table is run by another server now; "
                              "reconnecting") from None
        except StoreUnavailable:           # logged by the store, once
            pipeline.undo_last(table)
            raise StoreDown(f"the move could not be stored (the database did not answer for "
                            f"{self.store.retry_seconds:g} s); it was undone: try again")
        except Exception:
            log.exception("table %s: storing move %d failed; undoing it", table.id, rec.idx)
            pipeline.undo_last(table)
            raise ActionError("server_error", "the move could not be stored; it was undone")
        events = pipeline.advance(table, rec)
        metrics.moved("timer" if actor == "timer" else "bot" if actor == "bot"
                      or table.seats[rec.seat].kind == "bot" else "person")
        self._arm_timer(table)
        self._broadcast(table, events)
        if table.status == "over":
            self.accounts.match_over(table)

    def _broadcast(self, table: Table, events: list[dict]) -> None:
        self.fanout.broadcast(table, events)

    def _send_state(self, table: Table, conn: Conn, events: list | None = None) -> None:
        self.fanout.send_state(table, conn, events)

    @staticmethod
    def _catch_up(table: Table, msg: schemas.Hello) -> list[dict]:
        """The events a (re)connecting client's log lacks (each client gets them through its
        own view filter, views.state_for)."""
        return pipeline.catch_up(table, msg.since, msg.match)

    def _welcome(self, table: Table, conn: Conn, token: str | None) -> None:
        conn.send({"type": "welcome", "seat": conn.seat, "token": token,
                   "table": views.table_info(table), "host": self._is_host(table, conn)})

    @staticmethod
    def _is_host(table: Table, conn: Conn) -> bool:
        return same_hash(conn.token_hash, table.host_hash)

    def _require_host(self, table: Table, conn: Conn) -> None:
        """The host's actions: the holder of the host token (a table of an earlier version
        without one: any seated player, or anyone while no person sits)."""
        if table.host_hash is None:
            if conn.seat is None and table.humans() > 0:
                raise ActionError("not_host", "only a seated player may do this")
            return
        if not self._is_host(table, conn):
            raise ActionError("not_host", "only the table's host may do this")

    # ------------------------------------------------------------------------- messages
    async def _hello(self, table: Table, conn: Conn, msg: schemas.Hello) -> None:
        conn.said_hello = True
        if conn.hello_timer is not None:
            conn.hello_timer.cancel()
            conn.hello_timer = None
        conn.name = msg.name or "guest"
        seat = None
        # a banned token is worth nothing here: welcomed as a spectator, then told why
        banned = msg.token is not None and self._banned_token(table, hash_token(msg.token))
        if msg.token and not banned:
            h = hash_token(msg.token)
            for s in table.seats:
                if s.kind == "human" and same_hash(s.token_hash, h):
                    seat = s.index
                    break
            if seat is not None or same_hash(h, table.host_hash):
                conn.token_hash, conn.token = h, msg.token
        table.conns.add(conn)
        catch_up = self._catch_up(table, msg)
        if seat is None:
            self._welcome(table, conn, conn.token)
            if banned:
                conn.error("banned", BANNED)
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
        s.address = conn.address
        s.connections += 1
        self._cancel_grace(s)
        if s.autoplay:
            s.autoplay = False            # the person is back: the bot stops playing for them
            self._arm_timer(table)
        self._welcome(table, conn, msg.token)
        if catch_up:
            self._send_state(table, conn, catch_up)
        self._broadcast(table, [])

    async def _save_seats(self, table: Table, changes: dict[int, dict],
                          bans: dict | None = None) -> None:
        """Seats (and, in the same write, the table's ``bans``) with the next version."""
        rows = [{"seat": i, **d} for i, d in changes.items()]
        await self._stored(table, "the seats", "save_seats", table.id, rows, table.version + 1,
                           bans)
        table.version += 1
        if bans is not None:
            table.bans = bans
        self._end_ready_check(table)         # who sits changed: a ready check asks again
        for i, d in changes.items():
            s = table.seats[i]
            s.name, s.kind, s.token_hash, s.bot_level = (d["name"], d["kind"], d["token_hash"],
                                                         d["bot_level"])
            s.bot = _make_bot(s.bot_level) if s.kind == "bot" else None

    async def _save_table(self, table: Table, **values) -> None:
        """Store table fields with the next version (then the caller changes the table)."""
        await self._stored(table, "the table", "save_table", table.id, table.version + 1,
                           **values)
        table.version += 1

    async def _sit(self, table: Table, conn: Conn, msg: schemas.Sit) -> None:
        if table.status != "waiting":
            raise ActionError("not_waiting", "seats cannot change after the start")
        if conn.kicked:
            raise ActionError("kicked", "the host took your seat; you may watch")
        if self._banned(table, conn):
            raise ActionError("banned", BANNED)
        if not 0 <= msg.seat < table.players:
            raise ActionError("bad_message", f"sit: seat: no seat {msg.seat} at a table of "
                              f"{table.players}")
        if table.seats[msg.seat].kind != "empty":
            raise ActionError("seat_taken", f"seat {msg.seat} is taken")
        name = msg.name or conn.name
        if not name or name == "guest":
            name = f"Player {msg.seat + 1}"
        # a logged-in person sits under their username; rated tables seat nobody else
        name, account = await self.accounts.seat_name(table, conn, name)
        if self._is_host(table, conn):
            token, token_hash = conn.token, table.host_hash     # the host sits with their token
        else:
            token = secrets.token_urlsafe(24)
            token_hash = hash_token(token)
        await self.accounts.link(table, token_hash, account)
        empty = {"name": None, "kind": "empty", "token_hash": None, "bot_level": None}
        changes = {msg.seat: {"name": name, "kind": "human", "token_hash": token_hash,
                              "bot_level": None}}
        old = conn.seat
        if old is not None:
            changes[old] = empty
        await self._save_seats(table, changes)
        if table.host_hash is None:          # a table of an earlier version: its first sitter
            await self._save_table(table, host_hash=token_hash)
            table.host_hash = token_hash
        if old is not None:
            table.seats[old].connections -= 1
        conn.seat = msg.seat
        conn.name = name
        table.seats[msg.seat].address = conn.address
        conn.token, conn.token_hash = token, token_hash
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
        if not self._is_host(table, conn):
            conn.token = conn.token_hash = None
        self._welcome(table, conn, conn.token)
        self._broadcast(table, [])

    async def _start(self, table: Table, conn: Conn, msg: schemas.Start) -> None:
        if table.status == "playing":
            raise ActionError("not_waiting", "the match has already started")
        empty = [s.index for s in table.seats if s.kind == "empty"]
        if empty:
            raise ActionError("not_ready", f"empty seats: {', '.join(map(str, empty))} "
                              "(sit, or fill them with bots)")
        # the deal comes from a fresh 256-bit secret; only its hash is public until the end
        secret = deal.new_secret()
        commitment = deal.commitment(secret)
        g = shangyou.new_match(table.game_name, players=table.players, seed=secret,
                               **table.options)
        match_id = new_id(8)
        names = [s.name for s in table.seats]
        await self.accounts.match_players(table, match_id)      # accounts.py
        await self._stored(table, "the match", "start_match", table.id, match_id,
                           table.game_name, table.players, table.options, 0, names,
                           table.version + 1, secret=secret, commitment=commitment)
        self._no_longer_waiting(table.id)
        self._end_ready_check(table)
        table.version += 1
        table.game = g
        table.match_id = match_id
        table.secret, table.commitment = secret, commitment
        table.status = "playing"
        table.event_cursor = len(g.events)
        for s in table.seats:
            s.autoplay = False
            self._cancel_grace(s)
            if s.kind == "human" and s.connections <= 0:
                self._start_grace(table, s)
        self._arm_timer(table)
        table.events_by_move = [(0, list(g.events))]
        self._broadcast(table, list(g.events))
        self._kick_bots(table)

    def _chat(self, table: Table, conn: Conn, text: str) -> None:
        """A chat line to everyone, with the speaker's role: a spectator's line says so, so
        nobody watching can pass for a seated player (a seated speaker's name is the seat's)."""
        role = ("host" if self._is_host(table, conn)
                else "player" if conn.seat is not None else "spectator")
        self.fanout.send_all(table.conns, {"type": "chat", "from": conn.name or "guest",
                                           "text": text, "seat": conn.seat, "role": role})
