"""Persistence: tables, seats, matches and their moves, as they happen (SQLAlchemy 2; the rows
are in :mod:`shangyou.server.rows`).

SQLite in a file by default (``<data>/shangyou.db``), or any SQLAlchemy URL; PostgreSQL's
driver is installed with the server: ``postgresql+psycopg://user:pass@host:5432/db`` (the tests
run the whole store suite on both; docs/deploy.md). Every method here is synchronous; the
server calls them one at a time in a single worker thread (:class:`AsyncStore`), so the event
loop never waits on the disk and writes keep their order.

A move is stored (with the table's new state version) in one transaction before any client
hears of it, so a server killed at any moment restarts with every table where it was.

**Fencing.** Every write to a table is a compare-and-set on its state version: it goes from
version ``v - 1`` to ``v`` only, and, in a store of a node of several (``node`` given), only
while that node owns the table in its live epoch; otherwise it raises :class:`Stale` and writes
nothing. A table's row says which node took it, in which of that node's epochs (``owner``,
``owner_epoch``); the node's one row in ``nodes`` says its current epoch and until when its
lease runs (``alive_until``, in milliseconds of the database's clock, so no two clocks are ever
compared). A heartbeat renews that one row, whatever the number of tables the node runs
(:mod:`shangyou.server.ownership`; ``docs/deploy.md``).
"""

from __future__ import annotations

import datetime as dt
import logging
import threading
import time
from pathlib import Path
from typing import Any, cast

from sqlalchemy import (ColumnClause, CursorResult, and_, bindparam, case, create_engine, event,
                        exists, func, insert, literal_column, or_, select, text, update)
from sqlalchemy import Connection
from sqlalchemy import Table as SqlTable
from sqlalchemy.exc import DBAPIError, DisconnectionError, IntegrityError
from sqlalchemy.exc import InterfaceError as SaInterfaceError
from sqlalchemy.exc import OperationalError as SaOperationalError
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.pool import StaticPool

from . import migrations
from .rows import MatchRow, MoveRow, NodeRow, ReviewRow, SeatRow, TableRow, utcnow


RETRY_SECONDS = 10.0       # how long a write is tried again before its caller hears it failed
CONNECT_SECONDS = 5        # a PostgreSQL connection attempt gives up after this

log = logging.getLogger("shangyou.server")


# a node's transaction idle this long (its process paused between two statements) is ended
# by PostgreSQL, with its locks (several nodes; no transaction of a running node waits so long)
IDLE_IN_TRANSACTION_MS = 8000
HINT_ACTORS = {"hint:s": "search", "hint:h": "heuristic"}   # a move that followed a hint


PING_IDLE_SECONDS = 1.0    # a pooled connection unused this long is tested before use
_retried = threading.local()   # .on: a call of AsyncStore's runs (it is tried again if cut off)


def _ping_idle_connections(engine) -> None:
    """SQLAlchemy's ``pool_pre_ping`` (a ``SELECT 1`` before a pooled connection is handed
    out; a dead one is replaced), except for a call :class:`AsyncStore` runs on a connection
    used less than :data:`PING_IDLE_SECONDS` ago. The pre-ping of every checkout cost each
    group commit a round trip and a statement more (with several nodes, each writing its own
    smaller transactions, a larger part of every move). Such a call, on a connection the
    database dropped meanwhile, fails its first statement as one cut off in a transaction
    would: the pool is invalidated and AsyncStore tries the call again. A direct call (the
    lobby's thread, the command line) has no such retry, so its connection is always tested."""
    @event.listens_for(engine, "checkin")
    def _checkin(_dbapi_conn, record) -> None:
        record.info["shangyou_idle_since"] = time.monotonic()

    @event.listens_for(engine, "checkout")
    def _checkout(dbapi_conn, record, _proxy) -> None:
        since = record.info.pop("shangyou_idle_since", None)
        if since is None:
            return                        # just made
        if getattr(_retried, "unpinged", False) or (
                getattr(_retried, "on", False) and time.monotonic() - since < PING_IDLE_SECONDS):
            return                        # just used, by a call that is tried again (or a
                                          # heartbeat, which tries again on a new connection)
        try:
            cur = dbapi_conn.cursor()
            try:
                cur.execute("SELECT 1")
            finally:
                cur.close()
            dbapi_conn.rollback()
        except Exception as e:            # noqa: BLE001 - the pool makes a new connection
            raise DisconnectionError(f"a pooled connection is gone ({_short(e)})") from e


def _short(exc: BaseException) -> str:
    """An error on one line: its class and the first line of its message."""
    first = (str(getattr(exc, "orig", None) or exc).strip().splitlines() or [""])[0]
    return f"{exc.__class__.__name__}: {first[:200]}"


class Stale(Exception):
    """A write refused: the table's version moved on, or another node owns the table now."""


class EpochOver(Stale):
    """This node's epoch is over (its lease ran out): it takes nothing until its heartbeat
    has taken a new one."""


class StoreUnavailable(Exception):
    """The database could not be reached for ``RETRY_SECONDS``: the call was tried again and
    again, then given up (its last error is the cause; the store has logged it, once)."""


def transient(exc: BaseException) -> bool:
    """Whether ``exc`` is the connection's fault, so that the same call may succeed once the
    database is back: a lost or refused connection, a server shutting down or in recovery, a
    failover. Never a refusal of the data (:class:`Stale`, an integrity error): trying those
    again gives the same answer."""
    if isinstance(exc, (Stale, IntegrityError)):
        return False
    orig = getattr(exc, "orig", None)
    if orig is not None and type(orig).__module__ == "sqlite3":
        # SQLite's OperationalError is also a missing table or a syntax error: only a busy or
        # unreachable file is worth another try
        return any(w in str(orig) for w in ("locked", "busy", "disk I/O", "unable to open"))
    if isinstance(exc, DBAPIError):
        return bool(exc.connection_invalidated) or isinstance(
            exc, (SaOperationalError, SaInterfaceError))
    if isinstance(exc, (DisconnectionError, ConnectionError, TimeoutError)):
        return True
    try:
        import psycopg
    except ModuleNotFoundError:          # pragma: no cover - SQLite only
        return False
    return isinstance(exc, (psycopg.OperationalError, psycopg.InterfaceError))


def database_url(db_url: str | None, data_dir: str | Path) -> str:
    """The store's SQLAlchemy URL: ``db_url``, where a PostgreSQL URL without a driver
    (``postgresql://``, ``postgres://``) gets the installed one (``postgresql+psycopg://``);
    without ``db_url``, SQLite in ``data_dir/shangyou.db``."""
    if db_url:
        for plain in ("postgresql://", "postgres://"):
            if db_url.startswith(plain):
                return "postgresql+psycopg://" + db_url[len(plain):]
        return db_url
    path = Path(data_dir)
    path.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{(path / 'shangyou.db').resolve()}"


class Store:
    """Synchronous store; see :class:`AsyncStore` for the server's use."""

    def __init__(self, url: str, node: str | None = None):
        self.url = url
        self.node = node          # this node's id when several share the database
        self.epoch: int | None = None   # its current epoch (:meth:`join`)
        # every node's (epoch, alive) at the last heartbeat (:meth:`beat`)
        self.nodes_seen: dict[str, tuple[int, bool]] = {}
        kwargs: dict[str, Any] = {}
        sqlite = url.startswith("sqlite")
        if sqlite:
            kwargs["connect_args"] = {"check_same_thread": False}
            if url in ("sqlite://", "sqlite:///:memory:"):
                kwargs["poolclass"] = StaticPool
        else:
            # a database server may restart or drop idle connections: a connection idle for
            # a while is tested before use (_ping_idle_connections); the most recently used
            # one is handed out first, so a busy store keeps using one that works
            kwargs["pool_use_lifo"] = True
            if url.startswith("postgresql"):
                args: dict = {}
                if "connect_timeout" not in url:
                    args["connect_timeout"] = CONNECT_SECONDS
                if node is not None:
                    # a node paused (or hung) inside a transaction holds its rows' locks, and
                    # the other nodes could take none of its tables over: PostgreSQL ends its
                    # session
                    args["options"] = ("-c idle_in_transaction_session_timeout="
                                       f"{IDLE_IN_TRANSACTION_MS}")
                if args:
                    kwargs["connect_args"] = args
        self.engine = create_engine(url, **kwargs)
        if not sqlite:
            _ping_idle_connections(self.engine)
        if sqlite:
            @event.listens_for(self.engine, "connect")
            def _pragmas(conn, _record):   # durable against a killed process, and fast
                cur = conn.cursor()
                cur.execute("PRAGMA journal_mode=WAL")
                cur.execute("PRAGMA synchronous=NORMAL")
                cur.execute("PRAGMA foreign_keys=ON")
                cur.close()
        # the schema: brought to this version's newest revision, by one node at a time
        # (server/migrations; docs/deploy.md, "Schema migrations")
        migrations.upgrade_engine(self.engine)
        self.session = sessionmaker(self.engine, expire_on_commit=False)
        # the database's clock in milliseconds (leases never compare two machines' clocks)
        self.clock: ColumnClause[int] = literal_column(
            "CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT)"
            if self.engine.dialect.name == "postgresql"
            else "CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)")

        # the statements of a group commit and of the heartbeat, built once: each commit or
        # beat runs them with its values (SQLAlchemy keeps their compiled form), on a
        # connection of its own rather than a session (docs/benchmarks-cluster-pace.md)
        t = cast(SqlTable, TableRow.__table__)
        fence = [t.c.id == bindparam("f_id"), t.c.version == bindparam("f_expected")]
        if node is not None:
            fence += [t.c.owner == node, t.c.owner_epoch == bindparam("f_epoch"),
                      self._live(node, bindparam("f_epoch"))]
        self._fence_stmt = (update(t).where(*fence)
                            .values(version=bindparam("f_version"),
                                    touched_at=bindparam("f_now")))
        m = cast(SqlTable, MoveRow.__table__)
        self._insert_moves = insert(m)
        # PostgreSQL: a commit of one move (the usual one at a player's pace, a node's moves
        # coming slower than its commits) is one statement in one round trip, the fence a
        # common table expression of the INSERT, which adds the move only where the fence
        # updated its table: atomic as any statement, so run in autocommit (no BEGIN, no
        # COMMIT round trip); the fence refused, nothing is written (Stale)
        self._one_move: Any = None
        if self.engine.dialect.name == "postgresql":
            fenced = self._fence_stmt.returning(t.c.id).cte("fence")
            cols = ("match_id", "idx", "seat", "text", "actor")
            self._one_move = insert(m).from_select(
                cols, select(*(bindparam("m_" + c, type_=m.c[c].type) for c in cols))
                .where(exists(select(fenced.c.id)))).execution_options(preserve_rowcount=True)
            self._autocommit = create_engine(url, isolation_level="AUTOCOMMIT", **kwargs)
            _ping_idle_connections(self._autocommit)
        n = cast(SqlTable, NodeRow.__table__)
        self._renew_stmt = (update(n).where(n.c.id == node, n.c.epoch == bindparam("b_epoch"),
                                            n.c.alive_until >= self.clock)
                            .values(alive_until=self.clock + bindparam("b_lease")))
        self._nodes_stmt = select(n.c.id, n.c.epoch, (n.c.alive_until >= self.clock)
                                  .label("alive"))

    def close(self) -> None:
        self.engine.dispose()
        if self._one_move is not None:
            self._autocommit.dispose()

    def ping(self) -> None:
        """One round trip to the database (``SELECT 1``): it raises unless it is reachable."""
        with self.engine.connect() as conn:
            conn.execute(text("SELECT 1"))

    def has_moves(self, batch: list[tuple]) -> bool:
        """Whether every move of ``batch`` (rows of :meth:`add_moves`) is stored as it is
        there: after a write whose commit was cut off, it may have been made."""
        with self.session() as s:
            for _, match_id, idx, seat, text_, *_ in batch:
                row = s.get(MoveRow, (match_id, idx))
                if row is None or row.seat != seat or row.text != text_:
                    return False
        return True

    # ------------------------------------------------------------------------------ writes
    def _fenced(self, s: Session, table_id: str, version: int, first: int | None = None,
                **values) -> None:
        """The table goes to ``version`` from ``first - 1`` (default ``version - 1``), with
        ``values``, only if it is at that version (and, for a node, owned by it); else Stale."""
        expected = (version if first is None else first) - 1
        t = cast(SqlTable, TableRow.__table__)
        cond = [t.c.id == table_id, t.c.version == expected]
        if self.node is not None:
            cond += self._fence()
        # a Core UPDATE on the session's connection, as _fence_many: the ORM's bulk-update
        # path (its compile state, its session synchronisation) cost a node about a sixth of
        # its group commits' CPU (docs/benchmarks-cluster-profile.md)
        done = s.connection().execute(update(t).where(*cond)
                                      .values(version=version, touched_at=utcnow(), **values))
        if done.rowcount != 1:
            raise Stale(f"table {table_id}: not at version {expected}"
                        + (f" or not owned by {self.node} in its live epoch {self.epoch}"
                           if self.node else ""))

    def _fence(self) -> list:
        """SQL: this node may write the table: it took it in its current epoch, and that
        epoch's lease runs (checked in the same statement, by the database's clock)."""
        return [TableRow.owner == self.node, TableRow.owner_epoch == self.epoch,
                self._live(self.node, self.epoch)]

    def _fence_many(self, conn: Connection, versions: dict[str, tuple[int, int]]) -> None:
        """:meth:`_fenced` for many tables at once (``id -> (first, version)``), as one
        statement run for each table in a single round trip (the rows locked in id order):
        Stale, writing nothing, unless every one of them was at its expected version (and
        owned by this node)."""
        now, epoch = utcnow(), self.epoch
        params = [{"f_id": tid, "f_expected": lo - 1, "f_version": hi, "f_now": now,
                   "f_epoch": epoch} for tid, (lo, hi) in sorted(versions.items())]
        # one table (a commit at a slow pace): a plain execute, not an executemany
        done = conn.execute(self._fence_stmt, params[0] if len(params) == 1 else params)
        if done.rowcount != len(versions):
            raise Stale(f"{len(versions) - done.rowcount} of {len(versions)} tables: not at "
                        "their expected version" + (f" or not owned by {self.node} in its "
                                                    f"live epoch {self.epoch}"
                                                    if self.node else ""))

    def create_table(self, table_id: str, game: str, players: int, options: dict,
                     bot_level: str, host_hash: str | None = None,
                     listed: bool = True) -> None:
        """A new waiting table at version 0; a node's store makes it the node's own, in its
        current epoch."""
        with self.session.begin() as s:
            s.add(TableRow(id=table_id, game=game, players=players, options=options,
                           bot_level=bot_level, status="waiting", version=0,
                           host_hash=host_hash, listed=listed, touched_at=utcnow()))
            s.flush()
            if self.node is not None:
                if self.epoch is None:
                    raise RuntimeError("this node has no epoch yet: join first")
                s.execute(update(TableRow).where(TableRow.id == table_id)
                          .values(owner=self.node, owner_epoch=self.epoch)
                          .execution_options(synchronize_session=False))
            for i in range(players):
                s.add(SeatRow(table_id=table_id, seat=i, kind="empty"))

    def save_seats(self, table_id: str, seats: list[dict], version: int,
                   bans: dict | None = None) -> None:
        """Seats as dicts (seat, name, kind, token_hash, bot_level) and the new version (and,
        in the same transaction, the table's ``bans`` when given)."""
        with self.session.begin() as s:
            if bans is None:
                self._fenced(s, table_id, version)
            else:
                self._fenced(s, table_id, version, bans=bans)
            for d in seats:
                s.execute(update(SeatRow).where(SeatRow.table_id == table_id,
                                                SeatRow.seat == d["seat"])
                          .values(name=d["name"], kind=d["kind"], token_hash=d["token_hash"],
                                  bot_level=d["bot_level"]))

    def save_table(self, table_id: str, version: int, **values) -> None:
        """Table fields (``options``, ``host_hash``, ``listed``, ``status``, ``bans``) and the
        version."""
        allowed = {"options", "host_hash", "listed", "status", "bans"}
        bad = set(values) - allowed
        if bad:
            raise ValueError(f"not a table field: {sorted(bad)}")
        with self.session.begin() as s:
            self._fenced(s, table_id, version, **values)

    def expire_waiting(self, before: dt.datetime, keep: list[str]) -> list[str]:
        """Waiting tables untouched since ``before`` (except ``keep``) become ``expired``;
        their ids."""
        with self.session.begin() as s:
            q = select(TableRow.id).where(TableRow.status == "waiting",
                                          func.coalesce(TableRow.touched_at,
                                                        TableRow.created_at) < before)
            if self.node is not None:       # not the tables another node runs
                q = q.where(self._free_or_mine())
            ids = [i for i in s.scalars(q) if i not in set(keep)]
            if ids:
                s.execute(update(TableRow).where(TableRow.id.in_(ids))
                          .values(status="expired"))
            return ids

    def table_status(self, table_id: str) -> str | None:
        with self.session() as s:
            return s.scalar(select(TableRow.status).where(TableRow.id == table_id))

    def statuses(self, ids: list[str]) -> dict[str, str]:
        """Each existing table's status."""
        out: dict[str, str] = {}
        for i in range(0, len(ids), self._CHUNK):
            with self.session() as s:
                out.update(s.execute(select(TableRow.id, TableRow.status)
                                     .where(TableRow.id.in_(ids[i:i + self._CHUNK]))).all())
        return out

    def count_waiting(self) -> int:
        with self.session() as s:
            return s.scalar(select(func.count()).select_from(TableRow)
                            .where(TableRow.status == "waiting")) or 0

    def recent_table_ids(self, statuses: tuple[str, ...], limit: int) -> list[str]:
        """The ``limit`` most recently touched tables of these statuses."""
        with self.session() as s:
            return list(s.scalars(select(TableRow.id).where(TableRow.status.in_(statuses))
                                  .order_by(TableRow.touched_at.desc().nulls_last(),
                                            TableRow.created_at.desc())
                                  .limit(limit)))

    def start_match(self, table_id: str, match_id: str, game: str, players: int, options: dict,
                    seed: int, names: list, version: int, secret: str | None = None,
                    commitment: str | None = None) -> None:
        with self.session.begin() as s:
            self._fenced(s, table_id, version, status="playing", match_id=match_id)
            s.add(MatchRow(id=match_id, table_id=table_id, game=game, players=players,
                           options=options, seed=seed, names=names, secret=secret,
                           commitment=commitment))

    def add_move(self, table_id: str, match_id: str, idx: int, seat: int, text: str,
                 version: int, result: dict | None = None, actor: str | None = None) -> None:
        """One move and the table's new version; with ``result``, the match is over."""
        self.add_moves([(table_id, match_id, idx, seat, text, version, result, actor)])

    def add_moves(self, batch: list[tuple]) -> None:
        """Moves of any tables, ``(table_id, match_id, idx, seat, text, version, result[,
        actor])`` each, in one transaction (the server's group commit): all are stored or
        none. Each table's version is fenced (:class:`Stale` for the whole batch)."""
        if not batch:
            return
        if len(batch) == 1 and self._one_move is not None and batch[0][6] is None:
            self._add_one_move(batch[0])
            return
        versions: dict[str, tuple[int, int]] = {}
        for tid, _, _, _, _, version, *_ in batch:
            lo, hi = versions.get(tid, (version, version))
            versions[tid] = (min(lo, version), max(hi, version))
        moves = [{"match_id": row[1], "idx": row[2], "seat": row[3], "text": row[4],
                  "actor": row[7] if len(row) > 7 else None} for row in batch]
        # Core statements built once, on a connection (no session: a commit writes no object)
        with self.engine.begin() as conn:
            self._fence_many(conn, versions)
            conn.execute(self._insert_moves, moves[0] if len(moves) == 1 else moves)
            now = utcnow()
            for tid, m, _, _, _, _, result, *_ in batch:
                if result is not None:
                    conn.execute(update(MatchRow).where(MatchRow.id == m)
                                 .values(result=result, finished_at=now))
                    conn.execute(update(TableRow).where(TableRow.id == tid)
                                 .values(status="over"))

    def _add_one_move(self, row: tuple) -> None:
        """:meth:`add_moves` of one move that ends no match, on PostgreSQL: one statement."""
        tid, match_id, idx, seat, text_, version = row[:6]
        with self._autocommit.connect() as conn:
            done = conn.execute(self._one_move, {
                "f_id": tid, "f_expected": version - 1, "f_version": version,
                "f_now": utcnow(), "f_epoch": self.epoch, "m_match_id": match_id,
                "m_idx": idx, "m_seat": seat, "m_text": text_,
                "m_actor": row[7] if len(row) > 7 else None})
            written = done.rowcount
        if written != 1:
            raise Stale(f"table {tid}: not at version {version - 1}"
                        + (f" or not owned by {self.node} in its live epoch {self.epoch}"
                           if self.node else ""))

    # ------------------------------------------------------------------------------ leases
    _CHUNK = 2000          # ids in one statement

    def _live(self, node, epoch):
        """SQL: ``node``'s lease at ``epoch`` runs: its row in ``nodes`` is at that epoch and
        alive at the database's clock (``node``, ``epoch``: values, or a table's columns)."""
        return (select(NodeRow.id).where(NodeRow.id == node, NodeRow.epoch == epoch,
                                         NodeRow.alive_until >= self.clock).exists())

    def _mine(self):
        """SQL: the table is this node's, taken in its current epoch (which may have ended:
        writes check that too)."""
        return and_(TableRow.owner == self.node, TableRow.owner_epoch == self.epoch)

    def _free_or_mine(self):
        """SQL: a node may take the table: free, its own, or its owner's epoch is over."""
        return or_(TableRow.owner.is_(None), self._mine(),
                   ~self._live(TableRow.owner, TableRow.owner_epoch))

    def join(self, lease_ms: int) -> int:
        """This node starts a new epoch, alive for ``lease_ms``: the tables it took in an
        earlier one are no longer its own (any node may take them, this one too). The new
        epoch (one more than the node's last)."""
        with self.session.begin() as s:
            until = self.clock + lease_ms
            epoch = s.scalar(update(NodeRow).where(NodeRow.id == self.node)
                             .values(epoch=func.coalesce(NodeRow.epoch, 0) + 1,
                                     alive_until=until)
                             .returning(NodeRow.epoch)
                             .execution_options(synchronize_session=False))
            if epoch is None:
                epoch = 1
                s.execute(insert(cast(SqlTable, NodeRow.__table__))
                          .values(id=self.node, epoch=epoch, alive_until=until))
        self.epoch = int(epoch)
        return self.epoch

    def beat(self, lease_ms: int) -> tuple[bool, list[str]]:
        """This node's heartbeat: its epoch lives ``lease_ms`` more, by one ``UPDATE`` of its
        own row in ``nodes`` whatever the number of tables it runs, but only while that epoch
        is alive: one whose lease ran out never comes back. Then the node takes a new epoch
        (:meth:`join`), and the tables of the old one are no longer its own. Whether the epoch
        lived on, and the nodes whose leases ran out."""
        kept = False
        if self.epoch is not None:
            # one transaction on one connection, not tested first (the renewal comes every
            # quarter of a lease, so the pool's connection always sat unused for a while): a
            # connection the database dropped meanwhile fails the UPDATE, which is then tried
            # once more on a new one (the pool replaced every connection of before)
            try:
                _retried.unpinged = True
                try:
                    kept, rows = self._renew(lease_ms)
                finally:
                    _retried.unpinged = False
            except DBAPIError as e:
                if not e.connection_invalidated:
                    raise
                kept, rows = self._renew(lease_ms)
        if not kept:
            self.join(lease_ms)
            with self.engine.connect() as conn:
                rows = list(conn.execute(self._nodes_stmt))
        # every node's epoch and whether it is alive: the orphan scan looks only at a node
        # whose state changed since it found none of its matches (:meth:`orphans`)
        self.nodes_seen = {n: (e, bool(a)) for n, e, a in rows}
        return kept, [n for n, _, a in rows if not a]

    def _renew(self, lease_ms: int) -> tuple[bool, list]:
        """The heartbeat's one transaction: this node's row renewed while its epoch lives
        (one ``UPDATE``), then every node's state read."""
        with self.engine.begin() as conn:
            done = conn.execute(self._renew_stmt, {"b_epoch": self.epoch, "b_lease": lease_ms})
            kept = done.rowcount == 1
            return kept, list(conn.execute(self._nodes_stmt)) if kept else []

    def leave(self) -> None:
        """This node stops: its epoch ends now (what it still owned may be taken at once)."""
        if self.epoch is None:
            return
        with self.session.begin() as s:
            s.execute(update(NodeRow).where(NodeRow.id == self.node, NodeRow.epoch == self.epoch)
                      .values(alive_until=self.clock - 1)
                      .execution_options(synchronize_session=False))

    def acquire(self, table_id: str) -> int | None:
        """This node takes the table if it is free, its own, or its owner's epoch is over (its
        lease ran out, or that node started a new one): one compare-and-set ``UPDATE``. Taking
        a table that had an owner raises its version: the fence that refuses every later write
        of that owner. Only while this node's own epoch is alive (:class:`EpochOver`
        otherwise). The epoch it was taken in, or None (another node runs it, or there is no
        such table)."""
        epoch = self.epoch
        if epoch is None:
            raise RuntimeError("this node has no epoch yet: join first")
        with self.session.begin() as s:
            done = cast(CursorResult, s.execute(
                update(TableRow).where(TableRow.id == table_id, self._free_or_mine(),
                                       self._live(self.node, epoch))
                .values(owner=self.node, owner_epoch=epoch,
                        version=TableRow.version + case((TableRow.owner.is_(None), 0),
                                                        else_=1))
                .execution_options(synchronize_session=False)))
            if done.rowcount == 1:
                return epoch
            if not s.scalar(select(self._live(self.node, epoch))):
                raise EpochOver(f"node {self.node}: epoch {epoch} is over")
            return None

    def release(self, ids: list[str]) -> None:
        """This node no longer runs these tables: any node may take them at once."""
        for i in range(0, len(ids), self._CHUNK):
            with self.session.begin() as s:
                rows = (select(TableRow.id).where(self._mine(),
                                                  TableRow.id.in_(ids[i:i + self._CHUNK]))
                        .order_by(TableRow.id).with_for_update())   # as a group commit does
                s.execute(update(TableRow).where(TableRow.id.in_(rows), self._mine())
                          .values(owner=None, owner_epoch=None)
                          .execution_options(synchronize_session=False))

    def owners(self, ids: list[str]) -> dict[str, str | None]:
        """Each existing table's owner while its epoch runs (None: free, or over)."""
        out: dict[str, str | None] = {}
        live = self._live(TableRow.owner, TableRow.owner_epoch)
        for i in range(0, len(ids), self._CHUNK):
            with self.session() as s:
                for row in s.execute(select(TableRow.id, TableRow.owner, live.label("alive"))
                                     .where(TableRow.id.in_(ids[i:i + self._CHUNK]))):
                    out[row.id] = row.owner if row.owner and row.alive else None
        return out

    def orphans(self, limit: int, clean: dict | None = None) -> list[str]:
        """Matches being played whose owner's epoch is over (the node is gone, or started
        again). The few rows of ``nodes`` first, then, node by node, the index on ``(owner,
        owner_epoch)``: only the rows of a gone node, or of an earlier epoch, are read (one
        statement for all would let the planner scan the whole index). (A table whose owner
        has no row in ``nodes`` at all is taken when it is opened.)

        ``clean`` (node -> ``(epoch, alive)``, kept by the caller from one scan to the next):
        a node whose scan found nothing is written there with its state, and not scanned again
        while its state stays so. No orphan of such a node can appear meanwhile: a table
        becomes ``playing`` only by a write fenced by its owner's live epoch, so the rows of
        an ended epoch (or of a gone node) only ever leave. A node that dies or starts again
        changes state, and is scanned."""
        out: list[str] = []
        with self.session() as s:
            nodes = s.execute(select(NodeRow.id, NodeRow.epoch,
                                     (NodeRow.alive_until >= self.clock).label("alive"))).all()
            for node, epoch, alive in nodes:
                state = (epoch, bool(alive))
                if clean is not None and clean.get(node) == state:
                    continue
                cond = TableRow.owner == node
                if alive:
                    cond = and_(cond, or_(TableRow.owner_epoch < epoch,
                                          TableRow.owner_epoch.is_(None)))
                found = list(s.scalars(select(TableRow.id)
                                       .where(cond, TableRow.status == "playing")
                                       .limit(limit - len(out))))
                if clean is not None:
                    if found:
                        clean.pop(node, None)
                    else:
                        clean[node] = state
                out += found
                if len(out) >= limit:
                    break
        return out

    # ------------------------------------------------------------------------------- reads
    def table_ids(self, statuses: tuple[str, ...]) -> list[str]:
        with self.session() as s:
            return list(s.scalars(select(TableRow.id).where(TableRow.status.in_(statuses))
                                  .order_by(TableRow.created_at)))

    def load_table(self, table_id: str) -> dict | None:
        """A table with its seats and its current match (with the moves so far), or None."""
        with self.session() as s:
            t = s.get(TableRow, table_id)
            if t is None:
                return None
            seats = s.scalars(select(SeatRow).where(SeatRow.table_id == table_id)
                              .order_by(SeatRow.seat)).all()
            out = {"id": t.id, "game": t.game, "players": t.players, "options": t.options or {},
                   "bot_level": t.bot_level, "status": t.status, "version": t.version,
                   "match": None, "host_hash": t.host_hash, "bans": t.bans or {},
                   "listed": True if t.listed is None else bool(t.listed),
                   "seats": [{"seat": x.seat, "name": x.name, "kind": x.kind,
                              "token_hash": x.token_hash, "bot_level": x.bot_level}
                             for x in seats]}
            if t.match_id:
                out["match"] = self._match(s, t.match_id)
            return out

    def _match(self, s: Session, match_id: str) -> dict | None:
        m = s.get(MatchRow, match_id)
        if m is None:
            return None
        moves = s.execute(select(MoveRow.seat, MoveRow.text, MoveRow.actor)
                          .where(MoveRow.match_id == match_id).order_by(MoveRow.idx)).all()
        return {"id": m.id, "table_id": m.table_id, "game": m.game, "players": m.players,
                "options": m.options or {}, "names": m.names or [],
                "seed": m.secret if m.secret else m.seed, "commitment": m.commitment,
                "result": m.result, "finished_at": _iso(m.finished_at),
                "moves": [[seat, text] for seat, text, _ in moves],
                "assisted": {str(i): actor for i, (_, _, actor) in enumerate(moves)
                             if actor and not actor.startswith("hint:")},
                # moves that followed the seat's hint: {"index": "search" | "heuristic"}
                "hints": {str(i): HINT_ACTORS[actor] for i, (_, _, actor) in enumerate(moves)
                          if actor in HINT_ACTORS}}

    def match(self, match_id: str) -> dict | None:
        with self.session() as s:
            return self._match(s, match_id)

    def review(self, match_id: str, seat: int) -> dict | None:
        with self.session() as s:
            row = s.get(ReviewRow, (match_id, seat))
            return row.data if row is not None else None

    def save_review(self, match_id: str, seat: int, data: dict) -> None:
        with self.session() as s, s.begin():
            if s.get(ReviewRow, (match_id, seat)) is None:
                s.add(ReviewRow(match_id=match_id, seat=seat, data=data))

    def finished_matches(self, limit: int = 100, offset: int = 0) -> list[dict]:
        with self.session() as s:
            rows = s.scalars(select(MatchRow).where(MatchRow.finished_at.is_not(None))
                             .order_by(MatchRow.finished_at.desc(), MatchRow.id)
                             .limit(limit).offset(offset)).all()
            return [{"match_id": m.id, "table_id": m.table_id, "game": m.game,
                     "players": m.players, "finished_at": _iso(m.finished_at),
                     "result": m.result, "names": m.names or []} for m in rows]


def _iso(t: dt.datetime | None) -> str | None:
    return None if t is None else t.replace(tzinfo=dt.timezone.utc).isoformat()


from .store_async import AsyncStore  # noqa: E402 - re-exported (it uses this module's Store)

__all__ = ["AsyncStore", "EpochOver", "RETRY_SECONDS", "Stale", "Store", "StoreUnavailable",
           "database_url", "transient", "utcnow"]
