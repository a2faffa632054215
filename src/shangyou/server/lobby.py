"""The lobby of several nodes: ``GET /api/tables`` from the database, off the write path.

Alone on its store the server lists the tables in its memory (:meth:`TableManager.page
<shangyou.server.tables.TableManager.page>`). Nodes of several list the database's, and that
read must not cost the moves anything:

- **its own thread and connection**: :class:`Lobby` reads in a thread of its own, with a
  connection of its own from the store's pool, never in the store's single thread that
  writes the moves (:class:`~shangyou.server.store.AsyncStore`): a lobby read never waits
  behind a move, and no move waits behind a lobby read;
- **an index in the page's order**: ``ix_tables_lobby`` (status, created_at, id) over the
  listed tables (:mod:`shangyou.server.rows`). A page is the listed waiting tables newest
  first, then the listed running ones newest first: one range of the index each, read from
  the page's offset for its length (the waiting ones where nobody sits and nothing changed for
  ``empty_listed_seconds`` are left out as they are met: a person's seat is looked up by the
  seats' key), so a page costs its length, not the number of tables;
- **counting bounded by a cache**: the page says how many tables are listed (``total``); the
  lobby counts them (the waiting ones and the running ones, which may be 100,000: a scan of
  the index's range) at most once every ``lobby_count_ms`` (default 10 s), and a page that
  shows where the waiting ones end corrects the count of those;
- **a cache of pages**: a page read is kept ``lobby_cache_ms`` (default 1 s) and every
  request for the same page meanwhile gets it; requests for a page being read wait for that
  read. At most ``lobby_reads_waiting`` different pages wait for the lobby's thread; more get
  503 ``busy`` (a flood of different offsets queues on the lobby alone, and is cut off);
- **kept as the answer's bytes**: the page is checked against the answer's schema
  (:class:`~shangyou.server.schemas.TablePage`) and encoded as JSON once, in the lobby's
  thread, when it is read; ``GET /api/tables`` answers those bytes as they are
  (:meth:`Lobby.page_json`). A flood of requests for a kept page costs the event loop the
  requests alone, not a validation and an encoding of 50 tables each (which took the event
  loop, where the moves are handled, about a millisecond a request).

So the lobby's pages are at most ``lobby_cache_ms`` old, its ``total`` at most
``lobby_count_ms``. It replaces one count and one sort of every
listed table in the store's writing thread for each request (1.7 to 1.9 s a page at 50,000 to
100,000 tables, during which no move was stored).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import time
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor

from sqlalchemy import and_, func, or_, select

from .limits import Limits
from .schemas import TablePage
from .rows import SeatRow, TableRow, utcnow
from .store import Store, StoreUnavailable, transient

PAGES_KEPT = 256           # pages kept in the cache (the least recently read go first)


class LobbyBusy(Exception):
    """Too many different pages wait for the lobby's thread (503 ``busy``)."""


def _visible(status: str, quiet_before: dt.datetime):
    """The tables of ``status`` the lobby shows: listed; a waiting one also needs a person in
    a seat or a change since ``quiet_before``."""
    cond = [TableRow.status == status, TableRow.listed.is_not(False)]
    if status == "waiting":
        # a person's seat looked up by the seats' key for each table met (a correlated
        # subquery with a limit: PostgreSQL cannot turn it into a scan of every seat)
        seated = (select(SeatRow.seat).where(SeatRow.table_id == TableRow.id,
                                             SeatRow.kind == "human")
                  .limit(1).scalar_subquery())
        cond.append(or_(func.coalesce(TableRow.touched_at, TableRow.created_at)
                        >= quiet_before, seated.is_not(None)))
    return and_(*cond)


def count(store: Store, status: str, quiet_before: dt.datetime) -> int:
    """How many tables of ``status`` the lobby shows."""
    with store.session() as s:
        return s.scalar(select(func.count()).select_from(TableRow)
                        .where(_visible(status, quiet_before))) or 0


def read_page(store: Store, offset: int, limit: int, quiet_before: dt.datetime,
              counted: tuple[int, int]) -> dict:
    """One page of the lobby, as ``GET /api/tables`` gives it: the listed waiting tables
    newest first, then the listed running ones. ``counted``: how many of each there were
    lately (:func:`count`), for ``total`` and for where the running ones start when this page
    has no waiting one. Whether a person is connected is not stored: a seated one counts as
    so."""
    waiting, running = counted
    order = (TableRow.created_at.desc(), TableRow.id.desc())
    with store.session() as s:
        rows = list(s.scalars(select(TableRow).where(_visible("waiting", quiet_before))
                              .order_by(*order).offset(offset).limit(limit)))
        if len(rows) == limit:                  # a page of waiting tables only
            total = max(waiting, offset + limit) + running
        else:
            # where the waiting tables end: here (exact), or before this page (as counted)
            waiting = offset + len(rows) if rows or offset == 0 else min(waiting, offset)
            first = offset + len(rows) - waiting            # the first running one here
            more = s.scalars(select(TableRow).where(_visible("playing", quiet_before))
                             .order_by(*order).offset(first)
                             .limit(limit - len(rows))).all()
            rows += more
            total = waiting + (max(running, first + len(more)) if more else running)
        seats: dict[str, list] = {}
        if rows:
            for x in s.scalars(select(SeatRow).where(SeatRow.table_id.in_(
                    [r.id for r in rows])).order_by(SeatRow.table_id, SeatRow.seat)):
                seats.setdefault(x.table_id, []).append(x)
        out = []
        for r in rows:
            mine = seats.get(r.id, [])
            host = next((x.seat for x in mine if x.kind == "human" and r.host_hash
                         and x.token_hash == r.host_hash), None)
            out.append({"table_id": r.id, "game": r.game, "players": r.players,
                        "status": r.status, "host": host, "listed": True,
                        "seats": [{"seat": x.seat, "name": x.name, "kind": x.kind,
                                   "connected": x.kind != "empty",
                                   "bot_level": x.bot_level if x.kind == "bot" else None,
                                   "autoplay": False} for x in mine]})
    return {"tables": out, "total": total, "offset": offset, "limit": limit}


class Lobby:
    """The lobby's reads, in a thread of their own, with their cache (see the module)."""

    def __init__(self, store: Store, limits: Limits):
        self.store = store
        self.ttl = max(0.0, limits.lobby_cache_ms / 1000.0)
        self.count_ttl = max(0.0, limits.lobby_count_ms / 1000.0)
        self.bound = max(1, limits.lobby_reads_waiting)
        self.empty_for = limits.empty_listed_seconds
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="shangyou-lobby")
        # (offset, limit) -> (when it was read, the page, its JSON)
        self._pages: OrderedDict[tuple[int, int], tuple[float, dict, bytes]] = OrderedDict()
        self._reading: dict[tuple[int, int], asyncio.Future] = {}
        # when the listed tables were last counted, and how many (waiting, running)
        self._counted: tuple[float, tuple[int, int]] | None = None
        self.reads = 0                  # pages read from the database
        self.counts = 0                 # times the listed tables were counted
        self.renders = 0                # pages checked and encoded as JSON

    async def page(self, offset: int, limit: int) -> dict:
        """One page of the lobby (a dict as ``GET /api/tables`` gives it)."""
        return (await self._entry(offset, limit))[0]

    async def page_json(self, offset: int, limit: int) -> bytes:
        """The same page as the JSON of ``GET /api/tables``'s answer, encoded once a read."""
        return (await self._entry(offset, limit))[1]

    async def _entry(self, offset: int, limit: int) -> tuple[dict, bytes]:
        key = (offset, limit)
        loop = asyncio.get_running_loop()
        now = time.monotonic()
        hit = self._pages.get(key)
        if hit is not None and now - hit[0] < self.ttl:
            self._pages.move_to_end(key)
            return hit[1], hit[2]
        fut = self._reading.get(key)
        if fut is None:
            if len(self._reading) >= self.bound:
                raise LobbyBusy(f"{len(self._reading)} lobby pages are being read; try again")
            fut = loop.run_in_executor(self._pool, self._read, offset, limit)
            self._reading[key] = fut

            def done(f: asyncio.Future, key=key, started=now) -> None:
                self._reading.pop(key, None)
                if not f.cancelled() and f.exception() is None:
                    self._pages[key] = (started, *f.result())
                    self._pages.move_to_end(key)
                    while len(self._pages) > PAGES_KEPT:
                        self._pages.popitem(last=False)
            fut.add_done_callback(done)
        return await asyncio.shield(fut)

    def _read(self, offset: int, limit: int) -> tuple[dict, bytes]:
        """In the lobby's thread: the page, and its JSON (checked against the schema)."""
        quiet = utcnow() - dt.timedelta(seconds=self.empty_for)
        try:
            now = time.monotonic()
            if self._counted is None or now - self._counted[0] >= self.count_ttl:
                self._counted = (now, (count(self.store, "waiting", quiet),
                                       count(self.store, "playing", quiet)))
                self.counts += 1
            self.reads += 1
            page = read_page(self.store, offset, limit, quiet, self._counted[1])
        except Exception as e:
            if transient(e):                # the client asks again (503 unavailable)
                raise StoreUnavailable(f"the lobby: {e.__class__.__name__}") from e
            raise
        self.renders += 1
        return page, TablePage.model_validate(page).model_dump_json().encode()

    def close(self) -> None:
        self._pool.shutdown(wait=True)
