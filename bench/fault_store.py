"""PostgreSQL restarted under load: moves a second before, during and after, and how long
until every table moves again.

    python bench/fault_store.py [--tables 40] [--levels greedy,heuristic] [--bot-delay 0.05]
                                [--restarts 3] [--gap 15] [--down 2] [--store-retry-seconds 10]
                                [--src DIR]

Starts a PostgreSQL server of its own (the tests' tests/pg_server.py: ``initdb`` in a temporary
folder) and ``python -m shangyou.server --db`` on it, with ``--tables`` tables of four bots
each (the ``--levels`` in turn; heuristic bots think in worker processes), each watched by one
spectator socket of this script. After ``--gap`` seconds of play, PostgreSQL is restarted as
``pg_ctl -m fast restart`` does (``pg_ctl -m fast stop``, then the same server started again
on its port and data; ``--down`` seconds between the two, as a slower restart or a failover
takes), ``--restarts`` times, ``--gap`` seconds apart. ``--src`` runs the server of another
checkout's ``src`` folder (the figures before a change). For each restart:

- **down**: seconds from the stop to PostgreSQL accepting connections again;
- **moves/s** over the ``--gap`` seconds before the stop, while it was down, and over the
  ``--gap`` seconds after it was back (each table's moves as its spectator was sent them);
- **recovery**: seconds from PostgreSQL back until every table has been sent a new move
  (tables whose match ended do not count); **frozen**: tables without a new move ``--gap``
  seconds after it was back;
- **/readyz**: whether it answered 503 during the outage (asked every 50 ms), and seconds from
  PostgreSQL back to its first 200.

At the end every move a spectator was sent is looked up in the database: **lost** counts those
missing. Not a test: figures go to docs/benchmarks-cluster.md ("Store faults").
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import websockets

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))          # the tests' PostgreSQL server (no pytest)
import pg_server  # noqa: E402


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http(base: str, path: str, body: dict | None = None) -> tuple[int, dict]:
    req = urllib.request.Request(base + path, data=None if body is None else
                                 json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


class Watch:
    """One table's spectator: the time of each move count it was sent."""

    def __init__(self, table_id: str):
        self.table_id = table_id
        self.moves = 0
        self.over = False
        self.times: list[tuple[float, int]] = []      # (monotonic, move_count)

    async def run(self, url: str, stop: asyncio.Event) -> None:
        while not stop.is_set():
            try:
                async with websockets.connect(url, max_size=2 ** 22, max_queue=None,
                                              ping_interval=None) as ws:
                    await ws.send(json.dumps({"type": "hello", "name": "watch"}))
                    while not stop.is_set():
                        try:
                            m = json.loads(await asyncio.wait_for(ws.recv(), 0.5))
                        except asyncio.TimeoutError:
                            continue
                        if m["type"] == "state" and m["view"] is not None \
                                and m["move_count"] > self.moves:
                            self.moves = m["move_count"]
                            self.over = m["view"]["phase"] == "over"
                            self.times.append((time.monotonic(), self.moves))
            except (OSError, websockets.ConnectionClosed):
                await asyncio.sleep(0.2)

    def count(self, t0: float, t1: float) -> int:
        """Moves sent in [t0, t1)."""
        before = max((n for t, n in self.times if t < t0), default=0)
        upto = max((n for t, n in self.times if t < t1), default=0)
        return upto - before

    def first_after(self, t0: float) -> float | None:
        return next((t for t, _ in self.times if t >= t0), None)


async def make_table(base: str, ws_base: str, level: str, game: dict) -> str:
    status, created = await asyncio.to_thread(http, base, "/api/tables",
                                              {**game, "bots": level, "room": {"hints": "off"}})
    assert status == 200, created
    table_id = created["table_id"]
    async with websockets.connect(f"{ws_base}/ws/{table_id}") as ws:
        await ws.send(json.dumps({"type": "hello", "name": "host",
                                  "token": created["host_token"]}))
        await ws.send(json.dumps({"type": "bots"}))
        await ws.send(json.dumps({"type": "start"}))
        while True:
            m = json.loads(await asyncio.wait_for(ws.recv(), 60))
            assert m["type"] != "error", m
            if m["type"] == "state" and m["view"] is not None:
                return table_id


class Probe(threading.Thread):
    """``/readyz`` every 50 ms: (monotonic, status) each."""

    def __init__(self, base: str):
        super().__init__(daemon=True)
        self.base = base
        self.answers: list[tuple[float, int]] = []
        self.done = threading.Event()

    def run(self):
        while not self.done.wait(0.05):
            try:
                code = http(self.base, "/readyz")[0]
            except OSError:
                code = 0
            self.answers.append((time.monotonic(), code))


async def main(a) -> dict:
    bindir = pg_server.find_bindir()
    if bindir is None:
        sys.exit("PostgreSQL's programs (initdb, postgres) were not found")
    pg = pg_server.PostgresServer(bindir)
    pg.start()
    db = pg.new_database("fault_store")
    port = free_port()
    base, ws_base = f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}"
    data = tempfile.mkdtemp(prefix="shangyou-fault-")
    log_path = Path(data) / "server.log"
    env = {**os.environ, "PYTHONPATH": str(Path(a.src).resolve())}
    with open(log_path, "w") as out:
        server = subprocess.Popen(
            [sys.executable, "-m", "shangyou.server", "--port", str(port), "--data", data,
             "--db", db, "--bot-delay", str(a.bot_delay), "--allow-address", "127.0.0.1/32",
             *(["--store-retry-seconds", str(a.store_retry_seconds)]
               if a.store_retry_seconds != 10.0 else [])],
            stdout=out, stderr=subprocess.STDOUT, env=env)
    stop = asyncio.Event()
    probe = Probe(base)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if (await asyncio.to_thread(http, base, "/healthz"))[0] == 200:
                    break
            except OSError:
                pass
            if time.monotonic() > deadline or server.poll() is not None:
                sys.exit(f"the server did not start:\n{log_path.read_text()}")
            await asyncio.sleep(0.1)
        levels = a.levels.split(",")
        game = {"game": a.game, "players": 4, "options": json.loads(a.options)}
        ids = [await make_table(base, ws_base, levels[i % len(levels)], game)
               for i in range(a.tables)]
        watches = [Watch(t) for t in ids]
        tasks = [asyncio.create_task(w.run(f"{ws_base}/ws/{w.table_id}", stop))
                 for w in watches]
        probe.start()
        runs = []
        for _ in range(a.restarts):
            await asyncio.sleep(a.gap)
            before_end = time.monotonic()
            await asyncio.to_thread(pg.stop_fast)
            await asyncio.sleep(a.down)
            await asyncio.to_thread(pg.start_again)
            back = time.monotonic()
            counts = {w.table_id: w.moves for w in watches}
            recovered = None
            while time.monotonic() < back + a.gap:
                if recovered is None and all(w.over or w.moves > counts[w.table_id]
                                             for w in watches):
                    recovered = time.monotonic() - back
                await asyncio.sleep(0.02)
            after_end = time.monotonic()

            def rate(t0, t1):
                return sum(w.count(t0, t1) for w in watches) / max(t1 - t0, 1e-9)
            ready_200 = next((t for t, c in probe.answers if t >= back and c == 200), None)
            runs.append({
                "down_s": round(back - before_end, 2),
                "moves_per_s_before": round(rate(before_end - a.gap, before_end), 1),
                "moves_per_s_during": round(rate(before_end, back), 1),
                "moves_per_s_after": round(rate(back, after_end), 1),
                "recovery_s": None if recovered is None else round(recovered, 2),
                "frozen": sum(1 for w in watches
                              if not w.over and w.moves <= counts[w.table_id]),
                "readyz_503_seen": any(before_end <= t < back and c == 503
                                       for t, c in probe.answers),
                "readyz_200_after_s": None if ready_200 is None else round(ready_200 - back, 2),
            })
            print(json.dumps(runs[-1]), flush=True)
        stop.set()
        await asyncio.gather(*tasks, return_exceptions=True)
        # every move a spectator was sent is in the database
        from shangyou.server.store import Store
        store = Store(db)
        lost = 0
        for w in watches:
            row = store.load_table(w.table_id)
            lost += max(0, w.moves - len(row["match"]["moves"]))
        store.close()
        log_text = log_path.read_text()
        return {"tables": a.tables, "levels": a.levels, "bot_delay": a.bot_delay,
                "down": a.down, "src": a.src,
                "game": a.game, "options": a.options, "restarts": runs, "lost": lost,
                "moves_seen": sum(w.moves for w in watches),
                "tracebacks": log_text.count("Traceback (most recent call last)"),
                "given_up": log_text.count("giving up"),
                "retry_lines": log_text.count("trying again in"),
                "watchdog_resumed": log_text.count("nothing was scheduled"),
                "cpus": os.cpu_count(), "load_before": os.getloadavg()}
    finally:
        probe.done.set()
        server.terminate()
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:
            server.kill()
        pg.stop()
        shutil.rmtree(data, ignore_errors=True)


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tables", type=int, default=40)
    p.add_argument("--levels", default="greedy,heuristic")
    p.add_argument("--game", default="zheng-shangyou/winner")
    p.add_argument("--options", default='{"hands": 400}', help="the game's options (JSON)")
    p.add_argument("--bot-delay", type=float, default=0.05)
    p.add_argument("--restarts", type=int, default=3)
    p.add_argument("--gap", type=float, default=15.0)
    p.add_argument("--down", type=float, default=2.0,
                   help="seconds PostgreSQL stays stopped (default 2)")
    p.add_argument("--store-retry-seconds", type=float, default=10.0)
    p.add_argument("--src", default=str(ROOT / "src"),
                   help="the src folder whose server runs (default this checkout's)")
    out = asyncio.run(main(p.parse_args()))
    print(json.dumps(out, indent=1))
