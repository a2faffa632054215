"""Load benchmark of the web server: many tables over real WebSockets on loopback.

    python bench/load_server.py [--tables 200] [--spectators 3] [--game zheng-shangyou/pagat]
                                [--players 4] [--seconds 60] [--bot-delay 0.3] [--think 1.0]
                                [--ws auto]

Starts ``python -m shangyou.server`` on a free port with a fresh data folder, its bots moving
after ``--bot-delay`` seconds (0.3 is the server's default, the pace people watch; 0 floods the
server as fast as it can go). Each table has one human seat played by this script (it waits
``--think`` seconds, then sends the first legal move), bots in the other seats, and
``--spectators`` watching connections: so 200 tables with 3 spectators are 800 connections. For
every move the script sends it measures the latency until **every** connection of that table has
received a state with a newer version (median, p99). It also counts moves served (the versions
all tables advanced), error messages and moves lost (a sent move that never produced a newer
state while the player's socket stayed open; a socket the server closes is counted by its close
code, its table's later moves wait no more for it, and moves left unanswered when the player's
own socket closed are counted apart), and reads the server's CPU time (so: CPU milliseconds per move served, and how busy the
server's core was). On Linux the server is pinned to the first CPU and this script to the
others, so that the two do not take turns on one core. Finished matches start again until the
time is up. The server is started with ``--allow-address 127.0.0.1/32``: all of this script's
clients come from one address, which the per-address limits (docs/security.md) would refuse past
10 tables a minute and 32 sockets; the allowance multiplies those limits for loopback only, and
every other check stays on. Not a test: figures go to docs/benchmarks.md.

``--url http://127.0.0.1:8080`` drives a server that already runs instead (no server is started,
nothing is pinned): for example the nginx proxy of ``scripts/cluster.sh``, whose nodes then need
``--allow-address 127.0.0.1/32`` and set the bots' pace themselves (``--bot-delay`` after the
script's ``--``; this script's ``--bot-delay`` is then only written into the figures).
``--pids FILE`` (the cluster's ``run/pids``: a name and a process id a line) adds the CPU time
of each of those processes and their children (PostgreSQL's backends, a node's bot workers)
during the measurement. The figures say the machine's load average before and after.
docs/benchmarks-cluster.md has the figures of the cluster.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

import orjson
import websockets


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def post(url: str, body: dict) -> dict:
    req = urllib.request.Request(url, data=json.dumps(body).encode(),
                                 headers={"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as r:
        return json.loads(r.read())


class Table:
    def __init__(self, base: str, ws_base: str, game: str, players: int, spectators: int,
                 think: float = 0.0):
        self.base, self.ws_base = base, ws_base
        self.think = think
        self.game, self.players, self.spectators = game, players, spectators
        self.latencies: list[float] = []
        self.errors = 0
        self.error_codes: dict[str, int] = {}
        self.close_codes: dict[int, int] = {}     # sockets the server closed: code -> count
        self.sent = 0
        self.lost = 0
        self.cut_off = 0
        self.open: set[int] = set()         # the sockets not closed (their indices)
        self.versions = 0
        self.pending: dict[int, tuple[float, set]] = {}   # version sent at -> (t, clients seen)
        self.conns: list = []
        self.tasks: list = []
        self.failed: str | None = None      # why the setup failed (the table is left out)

    async def setup(self) -> None:
        """Create the table, connect its clients, sit, fill with bots, start (not measured)."""
        body = {"game": self.game, "players": self.players, "options": {}, "bots": "greedy"}
        made = await asyncio.to_thread(post, self.base + "/api/tables", body)
        tid = made["table_id"]
        url = f"{self.ws_base}/ws/{tid}"
        self.n_clients = 1 + self.spectators
        self.open = set(range(self.n_clients))
        self.conns = []
        for _ in range(self.n_clients):
            self.conns.append(await websockets.connect(url, max_size=2**22, compression=None,
                                                       open_timeout=60))
        player = self.conns[0]
        for i, c in enumerate(self.conns):      # the player is the table's host
            await c.send(json.dumps({"type": "hello", "token": made["host_token"] if i == 0
                                     else None, "name": f"c{i}"}))
        await player.send(json.dumps({"type": "sit", "seat": 0, "name": "load"}))
        await player.send(json.dumps({"type": "bots", "level": "greedy"}))
        await player.send(json.dumps({"type": "start"}))
        self.tasks = [asyncio.create_task(self.listen(i, c)) for i, c in enumerate(self.conns)]

    async def finish(self) -> None:
        await asyncio.gather(*self.tasks, return_exceptions=True)
        for c in self.conns:
            await c.close()
        # a move still unanswered 2 s before the end is lost (or, when the server closed the
        # player's socket, unanswered on a closed socket); later ones were cut off by the end
        late = sum(1 for t, _ in self.pending.values() if t < self.until - 2.0)
        if 0 in self.open:
            self.lost += late
        else:
            self.cut_off += late

    until = float("inf")          # set once every table is running
    measure_from = float("inf")

    async def listen(self, idx: int, conn) -> None:
        last_seen = -1
        while time.perf_counter() < self.until:
            try:
                raw = await asyncio.wait_for(conn.recv(), timeout=max(0.05, min(
                    5.0, self.until - time.perf_counter())))
            except asyncio.TimeoutError:
                continue
            except websockets.ConnectionClosed as e:
                code = e.rcvd.code if e.rcvd else 1006
                self.close_codes[code] = self.close_codes.get(code, 0) + 1
                self.open.discard(idx)      # its table's moves no longer wait for it
                for sent_v in [k for k, (_, seen) in self.pending.items()
                               if self.open and self.open <= seen]:
                    del self.pending[sent_v]
                return
            msg = orjson.loads(raw)
            if msg.get("type") == "error":
                code = msg.get("code")
                if code not in ("stale",):
                    self.errors += 1
                    self.error_codes[code] = self.error_codes.get(code, 0) + 1
                continue
            if msg.get("type") != "state":
                continue
            v = msg["version"]
            now = time.perf_counter()
            for sent_v in [k for k in self.pending if k < v]:
                t, seen = self.pending[sent_v]
                seen.add(idx)
                if self.open <= seen:
                    if t >= self.measure_from:
                        self.latencies.append(now - t)
                    del self.pending[sent_v]
            if idx == 0 and v > last_seen:
                if last_seen >= 0 and now >= self.measure_from:
                    self.versions += v - last_seen
                last_seen = v
                view = msg.get("view") or {}
                status = msg["table"]["status"]
                if status == "over":
                    await conn.send(json.dumps({"type": "start"}))
                elif view.get("to_act") == view.get("seat") and view.get("legal_moves") and \
                        v not in self.pending:
                    self.pending[v] = (time.perf_counter(), set())   # replaced when sent
                    asyncio.create_task(self.move(conn, v, view["legal_moves"][0]))

    async def move(self, conn, v: int, text: str) -> None:
        if self.think:     # people think for varying times (±25%)
            await asyncio.sleep(self.think * random.uniform(0.75, 1.25))
        self.pending[v] = (time.perf_counter(), set())
        self.sent += self.pending[v][0] >= self.measure_from
        try:
            await conn.send(json.dumps({"type": "move", "move": text, "version": v}))
        except websockets.ConnectionClosed:
            pass


async def main_async(a) -> dict:
    load_before = os.getloadavg()
    proc = None
    if a.url:
        base = a.url.rstrip("/")
        ws_base = "ws" + base[len("http"):]          # http -> ws, https -> wss
        pinned = False
        watched = read_pids(a.pids) if a.pids else {}
    else:
        port = free_port()
        data = tempfile.mkdtemp(prefix="shangyou-load-")
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        allowance = [] if a.no_allowance else ["--allow-address", "127.0.0.1/32"]
        proc = subprocess.Popen([sys.executable, "-m", "shangyou.server", "--port", str(port),
                                 "--data", data, "--bot-delay", str(a.bot_delay), "--ws", a.ws,
                                 *allowance],
                                env=env, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        pinned = pin(proc.pid)
        base, ws_base = f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}"
        watched = {"server": proc.pid}
    for _ in range(100):
        try:
            urllib.request.urlopen(base + "/healthz").read()
            break
        except OSError:
            time.sleep(0.1)
    tables = [Table(base, ws_base, a.game, a.players, a.spectators, a.think)
              for _ in range(a.tables)]
    sem = asyncio.Semaphore(20)

    async def setup(t):
        async with sem:
            try:
                await t.setup()
            except (OSError, TimeoutError, websockets.WebSocketException, ValueError) as e:
                t.failed = f"{type(e).__name__}: {e}"
                for c in t.conns:
                    await c.close()
                t.tasks = []

    t0 = time.perf_counter()
    await asyncio.gather(*(setup(t) for t in tables))
    setup_s = time.perf_counter() - t0
    await asyncio.sleep(a.warmup)
    start = time.perf_counter()
    cpu0 = {name: tree_cpu_seconds(pid) for name, pid in watched.items()}
    own0 = time.process_time()
    until = start + a.seconds
    for t in tables:
        t.measure_from, t.until = start, until
    await asyncio.sleep(a.seconds)
    elapsed = time.perf_counter() - start
    cpus = {name: tree_cpu_seconds(pid) - cpu0[name] for name, pid in watched.items()}
    cpu = sum(cpus.values())
    own = time.process_time() - own0
    load_after = os.getloadavg()
    await asyncio.gather(*(t.finish() for t in tables))
    if proc is not None:
        proc.terminate()
        proc.wait(timeout=10)
    lat = sorted(x for t in tables for x in t.latencies)
    codes: dict = {}
    closes: dict = {}
    for t in tables:
        for k, n in t.error_codes.items():
            codes[k] = codes.get(k, 0) + n
        for k, n in t.close_codes.items():
            closes[k] = closes.get(k, 0) + n
    out = {"server": a.url or "python -m shangyou.server (started here)",
           "tables": a.tables, "connections": a.tables * (1 + a.spectators), "game": a.game,
           "players": a.players, "seconds": round(elapsed, 1),
           "moves_served": sum(t.versions for t in tables),
           "moves_per_s": round(sum(t.versions for t in tables) / elapsed, 1),
           "actions_measured": len(lat),
           "latency_ms_median": round(statistics.median(lat) * 1000, 1) if lat else None,
           "latency_ms_p99": round(lat[int(0.99 * (len(lat) - 1))] * 1000, 1) if lat else None,
           "errors": sum(t.errors for t in tables), "lost_moves": sum(t.lost for t in tables),
           "unanswered_on_closed_sockets": sum(t.cut_off for t in tables),
           "error_codes": codes, "sockets_closed_by_server": closes,
           "setup_s": round(setup_s, 1),
           "tables_failed_setup": sum(t.failed is not None for t in tables),
           "setup_failures": sorted({t.failed for t in tables if t.failed})[:5],
           "bot_delay": a.bot_delay, "think": a.think, "ws": a.ws, "pinned": pinned,
           "load_average_before": [round(x, 2) for x in load_before],
           "load_average_after": [round(x, 2) for x in load_after],
           "cpu_s_by_process": {k: round(v, 1) for k, v in cpus.items()},
           "server_cpu_s": round(cpu, 1), "server_busy": round(cpu / elapsed, 2),
           "client_busy": round(own / elapsed, 2),
           "server_cpu_ms_per_move": round(1000 * cpu / max(1, sum(t.versions for t in tables)),
                                           3)}
    return out


def pin(server_pid: int) -> bool:
    """Server on the first CPU, this script on the others (Linux with two CPUs or more)."""
    try:
        cpus = sorted(os.sched_getaffinity(0))
        if len(cpus) < 2:
            return False
        os.sched_setaffinity(server_pid, {cpus[0]})
        os.sched_setaffinity(0, set(cpus[1:]))
        return True
    except (AttributeError, OSError):
        return False


def _stat(pid: int) -> list[str] | None:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process (Linux /proc; 0 elsewhere)."""
    fields = _stat(pid)
    try:
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (TypeError, ValueError, IndexError):
        return 0.0


def tree_cpu_seconds(pid: int) -> float:
    """CPU time of a process and of its descendants alive now (Linux /proc; 0 elsewhere)."""
    try:
        pids = [int(p) for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        return cpu_seconds(pid)
    children: dict[int, list[int]] = {}
    for p in pids:
        fields = _stat(p)
        if fields:
            children.setdefault(int(fields[1]), []).append(p)
    total, todo = 0.0, [pid]
    while todo:
        p = todo.pop()
        total += cpu_seconds(p)
        todo.extend(children.get(p, ()))
    return total


def read_pids(path: str) -> dict[str, int]:
    """``name pid`` lines (scripts/cluster.sh writes them to its data folder's run/pids)."""
    out = {}
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 2 and parts[1].isdigit():
                out[parts[0]] = int(parts[1])
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--tables", type=int, default=200)
    p.add_argument("--spectators", type=int, default=3)
    p.add_argument("--game", default="zheng-shangyou/pagat")
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--seconds", type=float, default=60)
    p.add_argument("--bot-delay", type=float, default=0.3,
                   help="seconds the server's bots wait (0.3: the server's default; 0: flood)")
    p.add_argument("--think", type=float, default=1.0,
                   help="seconds the scripted player waits before each move")
    p.add_argument("--ws", default="auto", help="uvicorn's WebSocket implementation")
    p.add_argument("--url", default=None,
                   help="drive the server (or proxy) at this URL instead of starting one, e.g. "
                   "http://127.0.0.1:8080 for scripts/cluster.sh")
    p.add_argument("--pids", default=None, metavar="FILE",
                   help="with --url: 'name pid' lines of the processes whose CPU to measure "
                   "(scripts/cluster.sh's DATA/run/pids)")
    p.add_argument("--no-allowance", action="store_true",
                   help="run without the loopback allowance (the per-address limits then refuse "
                   "this script's tables and sockets past the defaults: 10 tables a minute, "
                   "32 sockets)")
    p.add_argument("--warmup", type=float, default=3.0,
                   help="seconds between the last table starting and the measurement")
    a = p.parse_args(argv)
    res = asyncio.run(main_async(a))
    print(json.dumps(res, indent=1))
    return 0 if res["errors"] == 0 and res["lost_moves"] == 0 and \
        res["tables_failed_setup"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
