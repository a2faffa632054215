"""Load benchmark of the web server: many tables over real WebSockets on loopback.

    python bench/load_server.py [--tables 200] [--spectators 3] [--game zheng-shangyou/pagat]
                                [--players 4] [--seconds 60] [--bot-delay 0.3] [--think 1.0]
                                [--ws auto] [--drain 120] [--pace SECONDS] [--idle SECONDS]

Starts ``python -m shangyou.server`` on a free port with a fresh data folder, its bots moving
after ``--bot-delay`` seconds (0.3 is the server's default, the pace people watch; 0 floods the
server as fast as it can go). Each table has one human seat played by this script (it waits
``--think`` seconds, then sends the first legal move), bots in the other seats, and
``--spectators`` watching connections: so 200 tables with 3 spectators are 800 connections.

The run has four phases (bench/load_table.py has one table's):

1. **Set up every table first**, ``--setup-concurrency`` at a time: create it, open its sockets,
   hello, sit, bots, each answer waited for (``--step-timeout``). A table whose setup fails is
   closed and made again, up to ``--setup-tries`` times; the failures are reported by reason.
   No table plays yet, so the setup time is the server's (and this script's) alone.
2. **Start** every table, spread over ``--ramp`` seconds, then ``--warmup`` seconds.
3. **Measure** for ``--seconds``: for every move the script sends, the latency until **every**
   open socket of that table has received a state with a newer version (median, p99); the
   moves served (the versions all tables advanced), error messages, sockets closed (by whom:
   a close frame from the server, this script's own library, or no close frame), and the CPU
   time of the server (so: CPU milliseconds per move, how busy its core was).
4. **Drain**: no new move and no new match; listen until every move sent has been answered on
   every open socket of its table, or ``--drain`` seconds passed. Then the moves are checked
   against the server's database (bench/load_check.py): a move the client saw answered and the
   database lacks is **lost**; a move still unanswered after the drain is reported as stored
   or not stored.

On Linux the server is pinned to the first CPU and this script to the others, so that the two
do not take turns on one core. The server is started with ``--allow-address 127.0.0.1/32``:
all of this script's clients come from one address, which the per-address limits
(docs/security.md) would refuse past 10 tables a minute and 32 sockets; the allowance
multiplies those limits for loopback only, and every other check stays on. This script's
sockets send no keepalive pings of their own (``--ping`` to send them): they answer the
server's. Its event loop's lateness is measured (a timer every 50 ms) and reported, so that a
slow client shows as such. Not a test: figures go to docs/benchmarks.md.

``--url http://127.0.0.1:8080`` drives a server that already runs instead (no server is started,
nothing is pinned): for example the nginx proxy of ``scripts/cluster.sh``, whose nodes then need
``--allow-address 127.0.0.1/32`` and set the bots' pace themselves (``--bot-delay`` after the
script's ``--``; this script's ``--bot-delay`` is then only written into the figures); ``--db``
names its database for the check. ``--pids FILE`` (the cluster's ``run/pids``: a name and a
process id a line) adds the CPU time of each of those processes and their children
(PostgreSQL's backends, a node's bot workers) during the measurement. ``--probe URL``
(repeatable) asks ``URL/healthz`` twice a second from a thread of its own during the
measurement, and reports how long the answers took (a node's event loop behind shows there).
``--lobby-flood N`` has N clients ask the lobby's first page (``GET /api/tables``) again 10 ms
after each answer during the measurement, from a process of their own, and reports how many
pages they got and the CPU seconds that process spent (what a lobby flood does to the moves'
latency); ``--flood-nice 19`` runs that process at the lowest priority.
The figures say the machine's load average before and after. docs/benchmarks-cluster.md has
the figures of the cluster.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from load_check import check, seen
from load_table import SetupFailed, Table


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def quantiles(xs: list[float], scale: float = 1000.0) -> dict:
    """Median, p99 and max of ``xs`` (seconds) in milliseconds."""
    if not xs:
        return {"median": None, "p90": None, "p99": None, "max": None}
    xs = sorted(xs)
    return {"median": round(statistics.median(xs) * scale, 1),
            "p90": round(xs[int(0.9 * (len(xs) - 1))] * scale, 1),
            "p99": round(xs[int(0.99 * (len(xs) - 1))] * scale, 1),
            "max": round(xs[-1] * scale, 1)}


class LoopLag:
    """How late a 50 ms timer of this script's event loop fires (its own busyness)."""

    def __init__(self):
        self.lags: list[float] = []
        self.on = False

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            t = loop.time()
            await asyncio.sleep(0.05)
            if self.on:
                self.lags.append(loop.time() - t - 0.05)


class GcPauses:
    """The pauses of Python's garbage collector in this script (its collections of the oldest
    generation scan every object: with thousands of sockets, tens of milliseconds each)."""

    def __init__(self):
        self.pauses: list[float] = []
        self.cpu = 0.0                  # the CPU time of those pauses
        self.by_generation = [0, 0, 0]
        self.on = False
        self._t = self._c = 0.0
        gc.callbacks.append(self._cb)

    def _cb(self, phase: str, info: dict) -> None:
        if phase == "start":
            self._t, self._c = time.perf_counter(), time.thread_time()
        elif self.on:
            self.pauses.append(time.perf_counter() - self._t)
            self.cpu += time.thread_time() - self._c
            self.by_generation[info["generation"]] += 1


class Probe(threading.Thread):
    """``GET URL/healthz`` twice a second from a thread of its own: the server's answer time."""

    def __init__(self, url: str):
        super().__init__(daemon=True)
        self.url = url.rstrip("/") + "/healthz"
        self.times: list[float] = []
        self.failures = 0
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.wait(0.5):
            t = time.perf_counter()
            try:
                urllib.request.urlopen(self.url, timeout=60).read()
                self.times.append(time.perf_counter() - t)
            except OSError:
                self.failures += 1


def _flood(url: str, clients: int, pause: float, stop, counts, nice, cpu) -> None:
    """In a process of its own (at niceness ``nice`` where not None): ``clients`` threads, each
    asking ``url`` on a keep-alive connection, ``pause`` seconds after each answer, until
    ``stop`` is set; each thread's answers (``counts[k]``: 2xx; ``counts[clients + k]``: other
    statuses or failures), and the CPU seconds the process spent asking (``cpu.value``)."""
    import http.client
    import urllib.parse
    if nice is not None:
        os.setpriority(os.PRIO_PROCESS, 0, nice)
    cpu0 = time.process_time()
    u = urllib.parse.urlsplit(url)

    def one(k: int) -> None:
        conn = None
        while not stop.is_set():
            try:
                if conn is None:
                    conn = http.client.HTTPConnection(u.hostname, u.port or 80, timeout=60)
                conn.request("GET", u.path + ("?" + u.query if u.query else ""))
                r = conn.getresponse()
                r.read()
                counts[k if 200 <= r.status < 300 else clients + k] += 1
            except (OSError, http.client.HTTPException):
                counts[clients + k] += 1
                conn = None
            time.sleep(pause)
    threads = [threading.Thread(target=one, args=(k,), daemon=True) for k in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    cpu.value = time.process_time() - cpu0


class LobbyFlood:
    """``--lobby-flood N``: N clients asking the lobby's first page (``GET /api/tables``)
    again 10 ms after each answer, during the measurement, from a process of their own (this
    script's event loop and its clock stay apart; the process's CPU is not the cluster's)."""

    def __init__(self, base: str, clients: int, nice: int | None = None):
        import multiprocessing
        ctx = multiprocessing.get_context("spawn")
        self.clients = clients
        self.stop = ctx.Event()
        self.counts = ctx.Array("l", 2 * clients, lock=False)
        self.cpu = ctx.Value("d", 0.0, lock=False)
        self.proc = ctx.Process(target=_flood, args=(base + "/api/tables", clients, 0.01,
                                                     self.stop, self.counts, nice, self.cpu),
                                daemon=True)

    def start(self) -> None:
        self.proc.start()

    def finish(self) -> tuple[int, int, float]:
        """Stop it: the pages answered, the requests that failed, and the CPU seconds its
        process spent asking."""
        self.stop.set()
        self.proc.join(120)
        return (sum(self.counts[:self.clients]), sum(self.counts[self.clients:]),
                self.cpu.value)


async def set_up_all(tables: list[Table], concurrency: int, tries: int) -> None:
    """Every table set up, ``concurrency`` at a time, each tried up to ``tries`` times."""
    sem = asyncio.Semaphore(concurrency)

    async def one(t: Table) -> None:
        async with sem:
            for _ in range(tries):
                try:
                    await t.setup()
                    return
                except SetupFailed as e:
                    t.failures.append(str(e))
            t.failed = t.failures[-1]

    await asyncio.gather(*(one(t) for t in tables))


def start_server(a) -> tuple[subprocess.Popen, str, str, str, bool]:
    port = free_port()
    data = tempfile.mkdtemp(prefix="shangyou-load-")
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    allowance = [] if a.no_allowance else ["--allow-address", "127.0.0.1/32"]
    proc = subprocess.Popen([sys.executable, "-m", "shangyou.server", "--port", str(port),
                             "--data", data, "--bot-delay", str(a.bot_delay), "--ws", a.ws,
                             *allowance],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    db = f"sqlite:///{Path(data).resolve() / 'shangyou.db'}"
    return proc, f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}", db, pin(proc.pid)


def wait_healthz(base: str) -> None:
    for _ in range(100):
        try:
            urllib.request.urlopen(base + "/healthz").read()
            return
        except OSError:
            time.sleep(0.1)


async def main_async(a) -> dict:
    load_before = os.getloadavg()
    proc = None
    if a.url:
        base = a.url.rstrip("/")
        ws_base = "ws" + base[len("http"):]          # http -> ws, https -> wss
        pinned, db = False, a.db
        watched = read_pids(a.pids) if a.pids else {}
    else:
        proc, base, ws_base, db, pinned = start_server(a)
        watched = {"server": proc.pid}
    try:
        return await run(a, base, ws_base, db, watched, pinned, load_before)
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(timeout=30)


async def run(a, base: str, ws_base: str, db: str | None, watched: dict, pinned: bool,
              load_before) -> dict:
    await asyncio.to_thread(wait_healthz, base)
    lag = LoopLag()
    lag_task = asyncio.create_task(lag.run())
    idle = None
    if a.idle:         # the cluster's CPU with no client at all, before any table
        cpu0 = {name: tree_cpu_seconds(pid) for name, pid in watched.items()}
        t0 = time.perf_counter()
        await asyncio.sleep(a.idle)
        el = time.perf_counter() - t0
        idle = {"seconds": round(el, 1), "cpu_s_by_process": {
            name: round(tree_cpu_seconds(pid) - cpu0[name], 2) for name, pid in watched.items()}}
        idle["cpu_ms_per_s"] = round(1000 * sum(idle["cpu_s_by_process"].values()) / el, 1)
        idle["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
    tables = [Table(base, ws_base, a.game, a.players, a.spectators, a.think, a.step_timeout,
                    a.ping, a.pace) for _ in range(a.tables)]
    # 1. set up every table; none plays yet
    t0 = time.perf_counter()
    await set_up_all(tables, a.setup_concurrency, a.setup_tries)
    setup_s = time.perf_counter() - t0
    load_setup = os.getloadavg()
    gc.collect()
    gc.freeze()        # the sockets and tables set up are never garbage: never scan them again
    gc.set_threshold(*a.gc)
    gcp = GcPauses()
    playing = [t for t in tables if t.failed is None]
    # 2. start them, spread over the ramp, then the warm-up
    for i, t in enumerate(playing):
        await t.begin()
        if a.ramp > 0 and len(playing) > 1:
            await asyncio.sleep(a.ramp / len(playing))
    await asyncio.sleep(a.warmup)
    # 3. measure
    probes = [Probe(u) for u in a.probe]
    for p in probes:
        p.start()
    flood = LobbyFlood(base, a.lobby_flood, a.flood_nice) if a.lobby_flood else None
    if flood is not None:
        flood.start()
    start = time.perf_counter()
    cpu0 = {name: tree_cpu_seconds(pid) for name, pid in watched.items()}
    own0 = time.process_time()
    until = start + a.seconds
    for t in playing:
        t.measure_from, t.until = start, until
    lag.on = gcp.on = True
    await asyncio.sleep(a.seconds)
    lag.on = gcp.on = False
    elapsed = time.perf_counter() - start
    cpus = {name: tree_cpu_seconds(pid) - cpu0[name] for name, pid in watched.items()}
    cpu = sum(cpus.values())
    own = time.process_time() - own0
    load_after = os.getloadavg()
    for p in probes:
        p.stop.set()
    lobby = await asyncio.to_thread(flood.finish) if flood is not None else None
    # 4. drain: no new move; wait until every move sent is answered
    for t in playing:
        t.draining = True
    d0 = time.perf_counter()
    while time.perf_counter() - d0 < a.drain and not all(t.settled() for t in playing):
        await asyncio.sleep(0.2)
    drain_s = time.perf_counter() - d0
    unanswered_open = sum(len(t.pending) for t in playing if t.open)
    unanswered_closed = sum(len(t.pending) for t in playing if not t.open)
    checked = await asyncio.to_thread(check, db, seen(playing)) if db else None
    lag_task.cancel()
    await asyncio.gather(*(t.close() for t in playing))
    return figures(a, tables, playing, elapsed, setup_s, drain_s, unanswered_open,
                   unanswered_closed, checked, cpus, cpu, own, lag, gcp, probes, pinned,
                   (load_before, load_setup, load_after), lobby, idle)


def figures(a, tables, playing, elapsed, setup_s, drain_s, unanswered_open, unanswered_closed,
            checked, cpus, cpu, own, lag, gcp, probes, pinned, loads, lobby=None,
            idle=None) -> dict:
    lat = [x for t in playing for x in t.latencies]
    q = quantiles(lat)
    codes: dict = {}
    closes: dict = {}
    why: dict = {}
    for t in tables:
        for k, n in t.error_codes.items():
            codes[k] = codes.get(k, 0) + n
        for k, n in t.closes.items():
            closes[k] = closes.get(k, 0) + n
        for f in t.failures:
            key = f.split(":")[0] + ": " + f.split(": ", 1)[-1][:80]
            why[key] = why.get(key, 0) + 1
    served = sum(t.versions for t in playing)
    sent = sum(1 for t in playing for s in t.sent if s.at >= t.measure_from and s.at < t.until)
    return {"server": a.url or "python -m shangyou.server (started here)",
            "tables": a.tables, "connections": a.tables * (1 + a.spectators), "game": a.game,
            "players": a.players, "seconds": round(elapsed, 1),
            "setup_s": round(setup_s, 1),
            "tables_failed_setup": sum(t.failed is not None for t in tables),
            "setup_retries": sum(t.tries - 1 for t in tables),
            "setup_failures_by_reason": why,
            "setup_step_ms": {k: quantiles([t.steps[k] for t in playing if k in t.steps])
                              for k in ("create", "connect", "hello", "sit", "bots")},
            "moves_served": served, "moves_per_s": round(served / elapsed, 1),
            "moves_sent": sent, "actions_measured": len(lat),
            "pace": a.pace, "moves_sent_on_pace": sum(t.on_pace for t in playing),
            "idle": idle,
            "latency_ms_median": q["median"], "latency_ms_p90": q["p90"],
            "latency_ms_p99": q["p99"],
            "latency_ms_max": q["max"],
            "errors": sum(t.errors for t in tables), "error_codes": codes,
            "sockets_closed": closes,
            "drain_s": round(drain_s, 1),
            "unanswered_after_drain": unanswered_open,
            "unanswered_on_closed_sockets": unanswered_closed,
            "database_check": checked,
            "lost_moves": checked["lost"] if checked else None,
            "bot_delay": a.bot_delay, "think": a.think, "ws": a.ws, "pinned": pinned,
            "load_average_before": [round(x, 2) for x in loads[0]],
            "load_average_after_setup": [round(x, 2) for x in loads[1]],
            "load_average_after": [round(x, 2) for x in loads[2]],
            "cpu_s_by_process": {k: round(v, 1) for k, v in cpus.items()},
            "server_cpu_s": round(cpu, 1), "server_busy": round(cpu / elapsed, 2),
            "client_busy": round(own / elapsed, 2),
            "client_loop_lag_ms": quantiles(lag.lags),
            "client_gc_pauses": {"by_generation": gcp.by_generation,
                                 "total_ms": round(1000 * sum(gcp.pauses)),
                                 "cpu_ms": round(1000 * gcp.cpu), **quantiles(gcp.pauses)},
            "probes_ms": {p.url: {**quantiles(p.times), "failed": p.failures} for p in probes},
            "server_cpu_ms_per_move": round(1000 * cpu / max(1, served), 3),
            "lobby_flood": None if lobby is None else {
                "clients": a.lobby_flood, "pages": lobby[0], "failed": lobby[1],
                "pages_per_s": round(lobby[0] / elapsed, 1), "nice": a.flood_nice,
                "cpu_s": round(lobby[2], 1)}}


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
    if fields is None:
        return 0.0
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
    p.add_argument("--pace", type=float, default=0.0, metavar="SECONDS",
                   help="each table's player moves no sooner than SECONDS after its previous "
                   "move (default 0: no pace): with a pace longer than the bots' turns, the "
                   "moves asked a second no longer depend on how fast the server answers, so "
                   "layouts that keep up serve the same load (moves_sent_on_pace says how many "
                   "moves went at their paced time)")
    p.add_argument("--idle", type=float, default=0.0, metavar="SECONDS",
                   help="first measure the CPU of the --pids processes for SECONDS with no "
                   "client (figures: idle)")
    p.add_argument("--ws", default="auto", help="uvicorn's WebSocket implementation")
    p.add_argument("--url", default=None,
                   help="drive the server (or proxy) at this URL instead of starting one, e.g. "
                   "http://127.0.0.1:8080 for scripts/cluster.sh")
    p.add_argument("--pids", default=None, metavar="FILE",
                   help="with --url: 'name pid' lines of the processes whose CPU to measure "
                   "(scripts/cluster.sh's DATA/run/pids)")
    p.add_argument("--db", default=None, metavar="URL",
                   help="with --url: the server's database (SQLAlchemy URL, e.g. "
                   "postgresql+psycopg://shangyou@127.0.0.1:55432/shangyou) to check the moves "
                   "against; without it (and without --url's own) no check")
    p.add_argument("--probe", action="append", default=[], metavar="URL",
                   help="ask URL/healthz twice a second during the measurement (repeatable; "
                   "e.g. each node of a cluster)")
    p.add_argument("--no-allowance", action="store_true",
                   help="run without the loopback allowance (the per-address limits then refuse "
                   "this script's tables and sockets past the defaults: 10 tables a minute, "
                   "32 sockets)")
    p.add_argument("--setup-concurrency", type=int, default=20,
                   help="tables set up at once (default 20)")
    p.add_argument("--setup-tries", type=int, default=3,
                   help="tries to set up each table before it is left out (default 3)")
    p.add_argument("--step-timeout", type=float, default=60.0,
                   help="seconds to wait for each answer of the setup (default 60)")
    p.add_argument("--ramp", type=float, default=None,
                   help="seconds over which the tables start (default: 1 s for every 100 "
                   "tables)")
    p.add_argument("--warmup", type=float, default=5.0,
                   help="seconds between the last table starting and the measurement")
    p.add_argument("--drain", type=float, default=120.0,
                   help="at most this many seconds after the measurement to wait for the "
                   "answers of the moves sent (default 120)")
    p.add_argument("--ping", type=float, default=None,
                   help="this script's sockets send keepalive pings this often and close a "
                   "socket whose pong is this late (default: none; they answer the server's)")
    p.add_argument("--lobby-flood", type=int, default=0, metavar="N",
                   help="N clients ask the lobby's first page again 10 ms after each answer "
                   "during the measurement, from a process of their own (default 0: none)")
    p.add_argument("--flood-nice", type=int, default=None, metavar="NICE",
                   help="the lobby flood's process runs at this niceness (e.g. 19: the lowest "
                   "priority; default: this script's)")
    p.add_argument("--gc", type=lambda x: tuple(int(v) for v in x.split(",")),
                   default=(50_000, 20, 20), help="the thresholds of Python's garbage collector "
                   "in this script once every table is set up (default 50000,20,20: a collection "
                   "costs this script tens of milliseconds with thousands of sockets)")
    a = p.parse_args(argv)
    if a.ramp is None:
        a.ramp = a.tables / 100
    res = asyncio.run(main_async(a))
    print(json.dumps(res, indent=1))
    return 0 if res["errors"] == 0 and not res["lost_moves"] and \
        res["tables_failed_setup"] == 0 and res["unanswered_after_drain"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
