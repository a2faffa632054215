"""What a node of several pays that does not depend on its load: counted, not timed.

    python bench/cluster_costs.py

On a private PostgreSQL (the tests' server, tests/pg_server.py): the statements a group
commit sends PostgreSQL for one transaction (moves of one table, of two), and those of one
round of a node's lease work when nothing happens (its heartbeat and its orphan scan, four
times a lease), with 1, 2 and 3 nodes in the database, counted at the driver (psycopg's
``execute``/``executemany``; the commit apart); then the CPU time of the app's own stack for
one ``GET /healthz`` (its middlewares and routing, called as ASGI in this process, without the
network). These costs are paid per transaction and per node: with several nodes each node
writes its own, smaller group commits, and each node runs its own heartbeat and scan, so they
are what a second or third node adds to the cluster's CPU beyond the moves'
(docs/benchmarks-cluster.md).
"""

from __future__ import annotations

import asyncio
import collections
import inspect
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))


def _count_calls() -> collections.Counter:
    import psycopg
    calls: collections.Counter = collections.Counter()
    for name in ("execute", "executemany"):
        orig = getattr(psycopg.Cursor, name)

        def wrap(self, *a, __orig=orig, __name=name, **k):
            calls[__name] += 1
            return __orig(self, *a, **k)
        setattr(psycopg.Cursor, name, wrap)
    return calls


def store_costs() -> dict:
    import pg_server

    from shangyou.server.store import Store
    calls = _count_calls()
    pg = pg_server.PostgresServer(pg_server.find_bindir())
    pg.start()
    out: dict = {}
    try:
        url = pg.new_database("costs")
        a = Store(url, node="a")
        a.join(600_000)
        version = {}
        for t in ("t0", "t1"):
            a.create_table(t, "zheng-shangyou/owen", 2, {}, "greedy")
            a.start_match(t, "m" + t, "zheng-shangyou/owen", 2, {}, 0, [], 1)
            version[t] = 1

        def commit(tables) -> None:
            rows = []
            for t in tables:
                version[t] += 1
                rows.append((t, "m" + t, version[t], 0, "x", version[t], None))
            a.add_moves(rows)
        for tables in (("t0",), ("t0", "t1")):
            commit(tables)
            calls.clear()
            for _ in range(100):
                commit(tables)
            out[f"group_commit_{len(tables)}_tables"] = sum(calls.values()) / 100
        # a node's lease work when nothing happens: DbLease's renewal thread and its tick
        scan_with_clean = "clean" in inspect.signature(a.orphans).parameters
        others = []
        for n in (1, 2, 3):
            while len(others) < n - 1:
                others.append(Store(url, node="bcd"[len(others)]))
                others[-1].join(600_000)
            clean: dict = {}
            a.beat(600_000)
            calls.clear()
            for _ in range(20):
                a.beat(600_000)
                if not scan_with_clean:
                    a.orphans(50)
                elif not (a.nodes_seen and a.nodes_seen == clean):
                    a.orphans(50, clean)
                time.sleep(0.05)          # past PING_IDLE_SECONDS at times: pings count
            out[f"idle_round_{n}_nodes"] = sum(calls.values()) / 20
        for st in (a, *others):
            st.close()
    finally:
        pg.stop()
    return out


def app_cost(requests: int = 3000) -> float:
    """CPU milliseconds of the app's stack for one ``GET /healthz``."""
    from shangyou.server.app import create_app
    app = create_app(data_dir=tempfile.mkdtemp(), bot_delay=0)

    async def call() -> None:
        scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
                 "method": "GET", "scheme": "http", "path": "/healthz",
                 "raw_path": b"/healthz", "query_string": b"", "root_path": "",
                 "headers": [(b"host", b"127.0.0.1")], "client": ("127.0.0.1", 5000),
                 "server": ("127.0.0.1", 80)}

        async def receive():
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(_m):
            pass
        await app(scope, receive, send)

    async def run() -> float:
        async with app.router.lifespan_context(app):
            for _ in range(300):
                await call()
            t = time.process_time()
            for _ in range(requests):
                await call()
            return 1000 * (time.process_time() - t) / requests
    return round(asyncio.run(run()), 3)


def main() -> int:
    out = {"statements": store_costs(), "healthz_app_cpu_ms": app_cost(),
           "load_average": [round(x, 2) for x in os.getloadavg()]}
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
