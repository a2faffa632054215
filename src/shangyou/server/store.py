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
while that node owns the table; otherwise it raises :class:`Stale` and writes nothing. The
leases that say which node owns a table live in the same row (``owner``, ``lease_until`` in
milliseconds of the database's clock), so no two clocks are ever compared; beside them, each
node's heartbeat (``nodes``: alive until when) says which nodes run
(:mod:`shangyou.server.ownership`; ``docs/deploy.md``).
"""

from __future__ import annotations

import asyncio
import contextvars
import datetime as dt
import logging
import random
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, cast

from sqlalchemy import (ColumnClause, CursorResult, bindparam, case, create_engine, event,
                        func, insert, inspect, literal_column, or_, select, text, update)
from sqlalchemy import Table as SqlTable
from sqlalchemy.exc import DBAPIError, DisconnectionError, IntegrityError
from sqlalchemy.exc import InterfaceError as SaInterfaceError
from sqlalchemy.exc import OperationalError as SaOperationalError
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.pool import StaticPool

from .logs import table_context
from .rows import Base, MatchRow, MoveRow, NodeRow, ReviewRow, SeatRow, TableRow, utcnow


# the key of the PostgreSQL advisory lock held while the tables are created or migrated
SCHEMA_LOCK = 0x5348_414E_4759_4F55        # "SHANGYOU"

RETRY_SECONDS = 10.0       # how long a write is tried again before its caller hears it failed
CONNECT_SECONDS = 5        # a PostgreSQL connection attempt gives up after this

log = logging.getLogger("shangyou.server")


# a node's transaction idle this long (its process paused between two statements) is ended
# by PostgreSQL, with its locks (several nodes; no transaction of a running node waits so long)
IDLE_IN_TRANSACTION_MS = 8000
HINT_ACTORS = {"hint:s": "search", "hint:h": "heuristic"}   # a move that followed a hint


class Stale(Exception):
    """A write refused: the table's version moved on, or another node owns the table now."""


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
        kwargs: dict[str, Any] = {}
        sqlite = url.startswith("sqlite")
        if sqlite:
            kwargs["connect_args"] = {"check_same_thread": False}
            if url in ("sqlite://", "sqlite:///:memory:"):
                kwargs["poolclass"] = StaticPool
        else:
            # a database server may restart or drop idle connections: test each before use
            kwargs["pool_pre_ping"] = True
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
        if sqlite:
            @event.listens_for(self.engine, "connect")
            def _pragmas(conn, _record):   # durable against a killed process, and fast
                cur = conn.cursor()
                cur.execute("PRAGMA journal_mode=WAL")
                cur.execute("PRAGMA synchronous=NORMAL")
                cur.execute("PRAGMA foreign_keys=ON")
                cur.close()
        with self.engine.begin() as conn:
            if conn.dialect.name == "postgresql":
                # servers starting together on one database create its tables once: the lock
                # holds until this transaction (PostgreSQL's DDL is transactional) commits
                conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": SCHEMA_LOCK})
            Base.metadata.create_all(conn)
            self._add_missing_columns(conn)
            for index in cast(SqlTable, TableRow.__table__).indexes:   # new ones of a store
                index.create(conn, checkfirst=True)                    # made before them
        self.session = sessionmaker(self.engine, expire_on_commit=False)
        # the database's clock in milliseconds (leases never compare two machines' clocks)
        self.clock: ColumnClause[int] = literal_column(
            "CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT)"
            if self.engine.dialect.name == "postgresql"
            else "CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)")

    # columns added to tables of earlier stores: (table, column, SQL type)
    _ADDED = (("tables", "host_hash", "VARCHAR(64)"), ("tables", "listed", "BOOLEAN"),
              ("tables", "touched_at", "TIMESTAMP"), ("matches", "secret", "VARCHAR(64)"),
              ("matches", "commitment", "VARCHAR(64)"), ("moves", "actor", "VARCHAR(8)"),
              ("tables", "owner", "VARCHAR(64)"), ("tables", "lease_until", "BIGINT"),
              ("tables", "bans", "JSON"))

    def _add_missing_columns(self, conn) -> None:
        """A store written by an earlier version lacks some columns: add them (empty)."""
        have: dict[str, set[str]] = {}
        insp = inspect(conn)
        for table, column, sql_type in self._ADDED:
            if table not in have:
                have[table] = {c["name"] for c in insp.get_columns(table)}
            if column not in have[table]:
                conn.execute(text(f"ALTER TABLE {table} ADD COLUMN {column} {sql_type}"))

    def close(self) -> None:
        self.engine.dispose()

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
        cond = [TableRow.id == table_id, TableRow.version == expected]
        if self.node is not None:
            cond.append(TableRow.owner == self.node)
        # an UPDATE's result is a CursorResult (Session.execute is typed for any statement)
        done = cast(CursorResult, s.execute(update(TableRow).where(*cond)
                                            .values(version=version, touched_at=utcnow(),
                                                    **values)))
        if done.rowcount != 1:
            raise Stale(f"table {table_id}: not at version {expected}"
                        + (f" or not owned by {self.node}" if self.node else ""))

    def _fence_many(self, s: Session, versions: dict[str, tuple[int, int]]) -> None:
        """:meth:`_fenced` for many tables at once (``id -> (first, version)``), as one
        statement run for each table in a single round trip (the rows locked in id order):
        Stale, writing nothing, unless every one of them was at its expected version (and
        owned by this node)."""
        t = cast(SqlTable, TableRow.__table__)
        cond = [t.c.id == bindparam("f_id"), t.c.version == bindparam("f_expected")]
        if self.node is not None:
            cond.append(t.c.owner == self.node)
        now = utcnow()
        done = s.connection().execute(
            update(t).where(*cond).values(version=bindparam("f_version"), touched_at=now),
            [{"f_id": tid, "f_expected": lo - 1, "f_version": hi}
             for tid, (lo, hi) in sorted(versions.items())])
        if done.rowcount != len(versions):
            raise Stale(f"{len(versions) - done.rowcount} of {len(versions)} tables: not at "
                        "their expected version" + (f" or not owned by {self.node}"
                                                    if self.node else ""))

    def create_table(self, table_id: str, game: str, players: int, options: dict,
                     bot_level: str, host_hash: str | None = None, listed: bool = True,
                     lease_ms: int = 0) -> None:
        """A new waiting table at version 0; a node's store makes it the node's own for
        ``lease_ms``."""
        with self.session.begin() as s:
            s.add(TableRow(id=table_id, game=game, players=players, options=options,
                           bot_level=bot_level, status="waiting", version=0,
                           host_hash=host_hash, listed=listed, touched_at=utcnow()))
            s.flush()
            if self.node is not None:
                s.execute(update(TableRow).where(TableRow.id == table_id)
                          .values(owner=self.node, lease_until=self.clock + lease_ms))
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
        with self.session.begin() as s:
            versions: dict[str, tuple[int, int]] = {}
            for tid, _, _, _, _, version, *_ in batch:
                lo, hi = versions.get(tid, (version, version))
                versions[tid] = (min(lo, version), max(hi, version))
            if len(versions) == 1:
                (tid, (lo, hi)), = versions.items()
                self._fenced(s, tid, hi, first=lo)
            else:
                self._fence_many(s, versions)
            s.execute(insert(cast(SqlTable, MoveRow.__table__)),
                      [{"match_id": row[1], "idx": row[2], "seat": row[3], "text": row[4],
                        "actor": row[7] if len(row) > 7 else None} for row in batch])
            now = utcnow()
            for tid, m, _, _, _, _, result, *_ in batch:
                if result is not None:
                    s.execute(update(MatchRow).where(MatchRow.id == m)
                              .values(result=result, finished_at=now))
                    s.execute(update(TableRow).where(TableRow.id == tid)
                              .values(status="over"))

    # ------------------------------------------------------------------------------ leases
    _CHUNK = 2000          # ids in one statement

    def _free_or_mine(self):
        return or_(TableRow.owner.is_(None), TableRow.owner == self.node,
                   TableRow.lease_until < self.clock)

    def acquire(self, table_id: str, lease_ms: int) -> bool:
        """This node takes the table for ``lease_ms`` if it is free, its own, or its owner's
        lease ran out. Taking a table that had an owner raises its version: the fence that
        refuses every later write of that owner."""
        with self.session.begin() as s:
            done = cast(CursorResult, s.execute(
                update(TableRow).where(TableRow.id == table_id, self._free_or_mine())
                .values(owner=self.node, lease_until=self.clock + lease_ms,
                        version=TableRow.version + case((TableRow.owner.is_(None), 0),
                                                        else_=1))))
            return done.rowcount == 1

    def renew(self, held: list[str], lease_ms: int) -> list[str]:
        """Extend this node's lease on the tables it holds; those still its own."""
        out: list[str] = []
        for i in range(0, len(held), self._CHUNK):
            with self.session.begin() as s:
                rows = s.execute(update(TableRow)
                                 .where(TableRow.owner == self.node,
                                        TableRow.id.in_(held[i:i + self._CHUNK]))
                                 .values(lease_until=self.clock + lease_ms)
                                 .returning(TableRow.id))
                out += [r[0] for r in rows]
        return out

    def beat(self, lease_ms: int) -> tuple[list[str], list[str]]:
        """This node's heartbeat, in one transaction: it is alive for ``lease_ms`` more, and
        so are its leases on every table it owns. The ids of those tables, and the nodes whose
        heartbeat ran out."""
        with self.session.begin() as s:
            until = self.clock + lease_ms
            done = cast(CursorResult, s.execute(update(NodeRow).where(NodeRow.id == self.node)
                                                .values(alive_until=until)))
            if done.rowcount == 0:
                s.execute(insert(cast(SqlTable, NodeRow.__table__))
                          .values(id=self.node, alive_until=until))
            # its rows locked in id order, as a group commit locks them: no deadlock
            mine = (select(TableRow.id).where(TableRow.owner == self.node)
                    .order_by(TableRow.id).with_for_update())
            kept = [r[0] for r in s.execute(update(TableRow)
                                            .where(TableRow.id.in_(mine),
                                                   TableRow.owner == self.node)
                                            .values(lease_until=until)
                                            .returning(TableRow.id))]
            dead = list(s.scalars(select(NodeRow.id).where(NodeRow.alive_until < self.clock)))
        return kept, dead

    def release(self, ids: list[str]) -> None:
        """This node no longer runs these tables: any node may take them at once."""
        for i in range(0, len(ids), self._CHUNK):
            with self.session.begin() as s:
                rows = (select(TableRow.id).where(TableRow.owner == self.node,
                                                  TableRow.id.in_(ids[i:i + self._CHUNK]))
                        .order_by(TableRow.id).with_for_update())   # as beat locks them
                s.execute(update(TableRow).where(TableRow.id.in_(rows),
                                                 TableRow.owner == self.node)
                          .values(owner=None, lease_until=None))

    def owners(self, ids: list[str]) -> dict[str, str | None]:
        """Each existing table's owner while its lease runs (None: free, or ran out)."""
        out: dict[str, str | None] = {}
        for i in range(0, len(ids), self._CHUNK):
            with self.session() as s:
                for tid, owner, live in s.execute(
                        select(TableRow.id, TableRow.owner, TableRow.lease_until >= self.clock)
                        .where(TableRow.id.in_(ids[i:i + self._CHUNK]))):
                    out[tid] = owner if owner and live else None
        return out

    def orphans(self, limit: int) -> list[str]:
        """Matches being played whose node's lease ran out (that node is gone)."""
        with self.session() as s:
            return list(s.scalars(select(TableRow.id).where(
                TableRow.status == "playing", TableRow.owner.is_not(None),
                TableRow.lease_until < self.clock).limit(limit)))

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


class AsyncStore:
    """The store's methods as coroutines, run one at a time in a single worker thread.

    Moves go through :meth:`add_move`, a **group commit**: every move handed in while the
    previous write is on the disk is written in the next single transaction, and each caller
    resumes only once its own move is stored. Under load one transaction carries the moves of
    many tables; a lone move is written at once. If a batch is refused (not a failure of the
    connection), its moves are written one by one, so a bad move fails alone.

    **Retries.** A call or a batch that fails because of the connection (:func:`transient`: the
    database restarting, failing over, a dropped connection) is tried again after 0.1 s, 0.2 s,
    0.4 s ... (at most 2 s apart, with jitter), one warning line each time, until
    ``retry_seconds`` have passed since the first try (for a move: since it was handed in, so a
    move that waited behind another batch's tries is not kept twice as long); then its caller
    gets :class:`StoreUnavailable` and the store logs the last error, with its traceback the first
    time of an outage (one line each time after that, until a call goes through again). A
    batch whose commit was cut off may have been stored all the same: when trying it again is
    refused (the table's version moved on, the move is there), the moves are looked up, and
    counted as stored if they are there as they were sent. Other errors are not tried again.
    """

    def __init__(self, store: Store, retry_seconds: float = RETRY_SECONDS):
        self.store = store
        self.retry_seconds = float(retry_seconds)
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="shangyou-store")
        # (the move's row, its caller's future, when it was handed in: loop time)
        self._pending: list[tuple[tuple, asyncio.Future, float]] = []
        self._writer: asyncio.Task | None = None
        self._gave_up = False         # a call was given up since the last one that went through

    async def _run(self, fn, *args):
        return await asyncio.get_running_loop().run_in_executor(self._pool, fn, *args)

    async def _retrying(self, what: str, attempt_fn, since: float | None = None):
        """``await attempt_fn(tries so far)`` until it succeeds, fails for good, or connection
        failures went on until ``retry_seconds`` after ``since`` (loop time; default now):
        :class:`StoreUnavailable`, logged once."""
        loop = asyncio.get_running_loop()
        deadline = (loop.time() if since is None else since) + self.retry_seconds
        delay, tries = 0.1, 0
        while True:
            try:
                out = await attempt_fn(tries)
            except Exception as e:
                if not transient(e):
                    raise
                tries += 1
                wait = delay * random.uniform(0.8, 1.2)
                if loop.time() + wait > deadline:
                    # the traceback once an outage: later give-ups of the same outage are
                    # one line each
                    log.error("%s: the database did not answer for %g s (%d tries); giving "
                              "up%s", what, self.retry_seconds, tries,
                              f" ({_short(e)}; as before)" if self._gave_up else "",
                              exc_info=None if self._gave_up else e)
                    self._gave_up = True
                    raise StoreUnavailable(f"{what}: the database did not answer for "
                                           f"{self.retry_seconds:g} s") from e
                log.warning("%s failed (try %d: %s); trying again in %.1f s", what, tries,
                            _short(e), wait)
                await asyncio.sleep(wait)
                delay = min(2.0, delay * 2)
                continue
            if self._gave_up:
                log.warning("%s: the database answers again", what)
            self._gave_up = False
            return out

    async def call(self, fn_name: str, *args, **kwargs):
        fn = getattr(self.store, fn_name)

        async def attempt(_tries):
            return await self._run(lambda: fn(*args, **kwargs))
        return await self._retrying(f"the store's {fn_name}", attempt)

    async def call_with(self, fn, *args):
        """``fn(store, *args)`` as :meth:`call` runs a method (in the store's thread, tried
        again on a lost connection): queries that live in other modules (accountdb.py)."""
        async def attempt(_tries):
            return await self._run(lambda: fn(self.store, *args))
        return await self._retrying(f"the store's {fn.__name__}", attempt)

    async def ping(self, timeout: float) -> None:
        """One ``SELECT 1``, in a thread of its own (not behind the writes), at most
        ``timeout`` seconds: TimeoutError, or the database's error."""
        await asyncio.wait_for(asyncio.to_thread(self.store.ping), timeout)

    async def add_move(self, table_id: str, match_id: str, idx: int, seat: int, text: str,
                       version: int, result: dict | None = None,
                       actor: str | None = None) -> None:
        loop = asyncio.get_running_loop()
        fut = loop.create_future()
        self._pending.append(((table_id, match_id, idx, seat, text, version, result, actor),
                              fut, loop.time()))
        if self._writer is None or self._writer.done():
            # a context of its own: the writer serves every table, its lines name none
            self._writer = asyncio.create_task(self._write_moves(), name="store-group-commit",
                                               context=contextvars.Context())
        await fut

    async def _write_moves(self) -> None:
        while self._pending:
            await asyncio.sleep(0)        # let the moves made in this turn of the loop join
            batch, self._pending = self._pending, []
            rows = [row for row, _, _ in batch]
            # a move that waited behind an earlier batch's tries has used some of its time
            since = min(t for _, _, t in batch)
            tables = sorted({row[0] for row in rows})
            what = (f"storing {len(rows)} moves of table"
                    + (f" {tables[0]}" if len(tables) == 1 else
                       f"s {', '.join(tables[:3])}{' ...' if len(tables) > 3 else ''}"))

            async def attempt(tries, rows=rows):
                try:
                    await self._run(self.store.add_moves, rows)
                except (Stale, IntegrityError):
                    # tried before, and the commit was cut off: it may have been made
                    if tries and await self._run(self.store.has_moves, rows):
                        return
                    raise
            try:
                # the lines of one table's moves name it
                with table_context(tables[0] if len(tables) == 1 else None):
                    await self._retrying(what, attempt, since)
                outcome: list[BaseException | None] = [None] * len(batch)
            except StoreUnavailable as e:
                outcome = [e] * len(batch)
            except Exception:
                try:
                    outcome = list(await self._run(self._one_by_one, rows))
                except Exception as e:  # noqa: BLE001 - handed to every caller of the batch
                    outcome = [e] * len(batch)
            for (_, fut, _), exc in zip(batch, outcome):
                if fut.done():
                    continue
                if exc is None:
                    fut.set_result(None)
                else:
                    fut.set_exception(exc)

    def _one_by_one(self, rows: list[tuple]) -> list[Exception | None]:
        out: list[Exception | None] = []
        for row in rows:
            try:
                self.store.add_moves([row])
                out.append(None)
            except Exception as e:     # noqa: BLE001 - handed to the move's own caller
                out.append(e)
        return out

    def close(self) -> None:
        self._pool.shutdown(wait=True)
        self.store.close()


def _short(exc: BaseException) -> str:
    """An error on one line: its class and the first line of its message."""
    first = (str(getattr(exc, "orig", None) or exc).strip().splitlines() or [""])[0]
    return f"{exc.__class__.__name__}: {first[:200]}"
