"""The lobby and the restart at scale: many tables in the store.

    python bench/lobby_scale.py [--tables 5000] [--listings 30]
    python bench/lobby_scale.py --rows 1000 10000 100000 [--db URL] [--flood 4] [--seconds 5]

The first form writes ``--tables`` waiting tables straight into a fresh SQLite store, starts
the real server (``python -m shangyou.server``) on it and measures: the time until it answers
``/healthz``; the answer of ``GET /api/tables`` (bytes, time) once it has reloaded what it
reloads; and ``--listings`` concurrent listings while one table's socket sends ``chat`` lines,
timing each line's echo (a stalled event loop shows there).

The second form measures the lobby of several nodes (server/lobby.py) in a PostgreSQL database
(``--db``, or a private server started as the tests start theirs, tests/pg_server.py) filled
with each number of ``--rows`` live tables (a tenth waiting, half of those with a person
seated; the rest running; one in eight unlisted): the cost of the lobby's count, of a page at
the start and in the middle, of a page the cache keeps, and of the query it replaced (one count
and one sort of every listed table); then the store's moves (``add_move``, one after the other,
``--seconds``) alone, while ``--flood`` clients refresh the lobby's first page, while as many
ask a different page each time (no help from the cache), and while as many ask the replaced
query through the store's thread,
as before (each flood: ``--flood`` clients of the same event loop as the moves, as a node's
lobby requests are, each asking again 10 ms after its answer). Each cost is the median of
several, in milliseconds of the clock and of this process's CPU. Not a test: figures go to
docs/benchmarks.md and docs/benchmarks-cluster.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

import websockets

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from shangyou.server.model import hash_token, new_id  # noqa: E402
from shangyou.server.store import Store, database_url  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def fill(data: str, n: int) -> str:
    store = Store(database_url(None, data))
    one = None
    for _ in range(n):
        tid = new_id()
        store.create_table(tid, "zheng-shangyou/owen", 2, {}, "greedy", hash_token(tid))
        one = one or tid
    store.close()
    return one


def get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=60) as r:
        return r.read()


async def stall(base: str, ws_base: str, table: str, listings: int) -> dict:
    echoes: list[float] = []
    async with websockets.connect(f"{ws_base}/ws/{table}") as ws:
        await ws.send(json.dumps({"type": "hello", "token": None, "name": "probe"}))
        await ws.recv()
        await ws.recv()
        done = asyncio.Event()

        async def probe():
            while not done.is_set():
                t = time.perf_counter()
                await ws.send(json.dumps({"type": "chat", "text": "ping"}))
                while json.loads(await ws.recv())["type"] != "chat":
                    pass
                echoes.append(time.perf_counter() - t)
                await asyncio.sleep(0.05)

        task = asyncio.create_task(probe())
        t0 = time.perf_counter()
        sizes = await asyncio.gather(*(asyncio.to_thread(get, base + "/api/tables?limit=100")
                                       for _ in range(listings)))
        took = time.perf_counter() - t0
        await asyncio.sleep(0.3)
        done.set()
        await task
    return {"listings": listings, "all_listed_s": round(took, 3),
            "page_bytes": len(sizes[0]), "echo_ms_median": round(
                statistics.median(echoes) * 1000, 1), "echo_ms_max": round(
                max(echoes) * 1000, 1)}


def replaced_lobby(store: Store, offset: int, limit: int, quiet_before) -> dict:
    """The lobby's query before server/lobby.py (it ran in the store's writing thread): one
    count and one sort of every listed table."""
    from sqlalchemy import and_, case, func, or_, select

    from shangyou.server.rows import SeatRow, TableRow
    humans = (select(func.count()).select_from(SeatRow)
              .where(SeatRow.table_id == TableRow.id, SeatRow.kind == "human")
              .scalar_subquery())
    cond = and_(TableRow.status.in_(("waiting", "playing")),
                or_(TableRow.listed.is_(None), TableRow.listed.is_(True)),
                ~and_(TableRow.status == "waiting", humans == 0,
                      func.coalesce(TableRow.touched_at, TableRow.created_at) < quiet_before))
    with store.session() as s:
        total = s.scalar(select(func.count()).select_from(TableRow).where(cond)) or 0
        rows = s.scalars(select(TableRow).where(cond)
                         .order_by(case((TableRow.status == "waiting", 0), else_=1),
                                   TableRow.created_at.desc(), TableRow.id)
                         .offset(offset).limit(limit)).all()
        list(s.scalars(select(SeatRow).where(SeatRow.table_id.in_([r.id for r in rows]))))
    return {"total": total, "tables": [r.id for r in rows]}


def fill_live(store: Store, n: int) -> str:
    """``n`` live tables of two seats, written in bulk; the id of one running table."""
    import datetime as dt

    from sqlalchemy import insert

    from shangyou.server.rows import SeatRow, TableRow, utcnow
    now = utcnow()
    tables, seats = [], []
    for i in range(n):
        waiting = i % 10 == 0
        quiet = waiting and i % 20 == 10 and i % 40 != 10      # empty and long untouched
        tables.append({"id": f"b{i:07d}", "game": "zheng-shangyou/owen", "players": 2,
                       "options": {}, "bot_level": "greedy",
                       "status": "waiting" if waiting else "playing", "version": 1,
                       "listed": i % 8 != 3, "host_hash": hash_token(str(i)),
                       "created_at": now - dt.timedelta(seconds=n - i),
                       "touched_at": now - dt.timedelta(seconds=600 if quiet else 1)})
        seated = not waiting or i % 20 == 0
        seats.append({"table_id": f"b{i:07d}", "seat": 0, "kind": "human" if seated else "empty",
                      "name": "Ann" if seated else None, "bot_level": None,
                      "token_hash": hash_token(str(i)) if seated else None})
        seats.append({"table_id": f"b{i:07d}", "seat": 1, "kind": "empty" if waiting else "bot",
                      "name": None if waiting else "Bot", "token_hash": None,
                      "bot_level": None if waiting else "greedy"})
    with store.engine.begin() as conn:
        for k in range(0, n, 5000):
            conn.execute(insert(TableRow.__table__), tables[k:k + 5000])
            conn.execute(insert(SeatRow.__table__), seats[2 * k:2 * (k + 5000)])
    with store.engine.begin() as conn:             # as autovacuum would, in time
        conn.exec_driver_sql("ANALYZE")
    return tables[1]["id"]


def timed(fn, runs: int) -> tuple[float, float]:
    """The median of ``runs`` calls of ``fn``: milliseconds of the clock, and of this
    thread's CPU (this process's part; the database's is apart)."""
    took, cpu = [], []
    for _ in range(runs):
        t, c = time.perf_counter(), time.thread_time()
        fn()
        took.append((time.perf_counter() - t) * 1000)
        cpu.append((time.thread_time() - c) * 1000)
    return round(statistics.median(took), 2), round(statistics.median(cpu), 2)


async def moves_while(astore, table: str, seconds: float, flood=None, clients: int = 0) -> dict:
    """``add_move`` of ``table`` one after the other for ``seconds`` while ``clients`` tasks
    of the same event loop call ``flood(k)`` (as a node's lobby requests do), each waiting 10
    ms between two; the moves' latency (ms) and how many times the flood was served."""
    served = [0]
    stop = asyncio.Event()

    async def client(k):
        while not stop.is_set():
            await flood(k, served[0])
            served[0] += 1
            await asyncio.sleep(0.01)
    tasks = [asyncio.create_task(client(k)) for k in range(clients)] if flood else []
    took = []
    end = time.perf_counter() + seconds
    version = astore.version
    while time.perf_counter() < end:
        t = time.perf_counter()
        await astore.add_move(table, "m-" + table, version - 1, 0, "x", version)
        took.append((time.perf_counter() - t) * 1000)
        version += 1
    astore.version = version
    stop.set()
    await asyncio.gather(*tasks)
    took.sort()
    return {"moves": len(took), "median_ms": round(statistics.median(took), 2),
            "p99_ms": round(took[int(len(took) * 0.99)], 2), "max_ms": round(took[-1], 1),
            "lobby_requests": served[0]}


def scale(a) -> dict:
    """The second form (see the module)."""
    import datetime as dt

    from shangyou.server.limits import Limits
    from shangyou.server.lobby import Lobby, LobbyBusy, count, read_page
    from shangyou.server.rows import utcnow
    from shangyou.server.store import AsyncStore
    pg = None
    if a.db is None:
        sys.path.insert(0, os.path.join(ROOT, "tests"))
        import pg_server
        pg = pg_server.PostgresServer(pg_server.find_bindir())
        pg.start()
    out = {}
    try:
        for n in a.rows:
            url = a.db if a.db else pg.new_database(f"lobby_{n}")
            store = Store(url)
            t0 = time.perf_counter()
            table = fill_live(store, n)
            filled = time.perf_counter() - t0
            quiet = utcnow() - dt.timedelta(seconds=60)
            counted = (count(store, "waiting", quiet), count(store, "playing", quiet))
            listed = sum(counted)
            fig = {"filled_s": round(filled, 1), "listed": listed,
                   "replaced_query_ms": timed(lambda: replaced_lobby(store, 0, 50, quiet), 3),
                   "count_ms": timed(lambda: (count(store, "waiting", quiet),
                                              count(store, "playing", quiet)), 5),
                   "page_first_ms": timed(lambda: read_page(store, 0, 50, quiet, counted), 20),
                   "page_middle_ms": timed(lambda: read_page(store, listed // 2, 50, quiet,
                                                             counted), 5)}
            lobby = Lobby(store, Limits())

            async def cached():
                await lobby.page(0, 50)
                t = time.perf_counter()
                for _ in range(1000):
                    await lobby.page(0, 50)
                return round((time.perf_counter() - t) * 1000, 3)    # ms for 1,000: us each
            fig["page_cached_us"] = asyncio.run(cached())
            lobby.close()
            with store.session.begin() as s:        # a running match for the moves
                from shangyou.server.rows import MatchRow
                s.add(MatchRow(id="m-" + table, table_id=table, game="zheng-shangyou/owen",
                               players=2, options={}, seed=0, names=[]))
            astore = AsyncStore(store)
            astore.version = 2

            async def moves():
                lobby = Lobby(store, Limits())

                async def first_page(k, j):         # people refreshing the lobby
                    await lobby.page(0, 50)

                async def any_page(k, j):           # every request a page not kept
                    try:
                        await lobby.page((k * 7919 + j * 50) % max(1, listed), 50)
                    except LobbyBusy:
                        pass

                async def replaced(k, j):           # the replaced query, in the store's thread
                    await astore._run(replaced_lobby, store, 0, 50, quiet)
                try:
                    return {"alone": await moves_while(astore, table, a.seconds),
                            "first_page_flood": await moves_while(
                                astore, table, a.seconds, first_page, a.flood),
                            "any_page_flood": await moves_while(
                                astore, table, a.seconds, any_page, a.flood),
                            "replaced_flood": await moves_while(
                                astore, table, a.seconds, replaced, a.flood)}
                finally:
                    lobby.close()
            fig["moves"] = asyncio.run(moves())
            astore._pool.shutdown(wait=True)
            store.close()
            out[n] = fig
            print(json.dumps({n: fig}), flush=True)
    finally:
        if pg is not None:
            pg.stop()
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--tables", type=int, default=5000)
    p.add_argument("--listings", type=int, default=30)
    p.add_argument("--rows", type=int, nargs="+", default=None,
                   help="the second form: live tables in the database, one figure each")
    p.add_argument("--db", default=None, help="the second form's PostgreSQL (default: a "
                   "private server)")
    p.add_argument("--flood", type=int, default=4)
    p.add_argument("--seconds", type=float, default=5.0)
    a = p.parse_args(argv)
    if a.rows:
        print(json.dumps(scale(a), indent=1))
        return 0
    data = tempfile.mkdtemp(prefix="shangyou-lobby-")
    t = time.perf_counter()
    table = fill(data, a.tables)
    filled = time.perf_counter() - t
    port = 8700 + os.getpid() % 1000
    base, ws_base = f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}"
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "shangyou.server", "--port", str(port),
                             "--data", data], stdout=subprocess.DEVNULL,
                            stderr=subprocess.STDOUT)
    try:
        while True:
            try:
                get(base + "/healthz")
                break
            except OSError:
                time.sleep(0.02)
        up = time.perf_counter() - t0
        time.sleep(2.0)                       # the background reload of recent tables
        t1 = time.perf_counter()
        page = json.loads(get(base + "/api/tables?limit=100"))
        list_s = time.perf_counter() - t1
        out = {"tables_in_store": a.tables, "store_filled_s": round(filled, 1),
               "server_up_s": round(up, 2), "tables_listed": page["total"],
               "one_listing_ms": round(list_s * 1000, 1)}
        out.update(asyncio.run(stall(base, ws_base, table, a.listings)))
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
