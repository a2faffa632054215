"""The lobby and the restart at scale: many waiting tables in the store.

    python bench/lobby_scale.py [--tables 5000] [--listings 30]

Writes ``--tables`` waiting tables straight into a fresh SQLite store, starts the real server
(``python -m shangyou.server``) on it and measures: the time until it answers ``/healthz``;
the answer of ``GET /api/tables`` (bytes, time) once it has reloaded what it reloads; and
``--listings`` concurrent listings while one table's socket sends ``chat`` lines, timing each
line's echo (a stalled event loop shows there). Not a test: figures go to docs/benchmarks.md.
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


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--tables", type=int, default=5000)
    p.add_argument("--listings", type=int, default=30)
    a = p.parse_args(argv)
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
