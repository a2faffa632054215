"""Faults and a rolling restart under load, on the cluster of scripts/cluster.sh:

    python bench/cluster_faults.py [--tables 60] [--bot-delay 0.3] [--think 0.5] [--nodes 2]
                                   [--settle 20] [--pause 15] [--faults kill,stop,redis,nginx,restart]

Starts ``scripts/cluster.sh`` on a fresh data folder (ports 19080, 19101..., 19432, 19379), its
nodes with ``--bot-delay``, the loopback allowance of docs/security.md, and supervisord running
Redis, the nodes and nginx. Each table has one person, played by this script through nginx
(the first legal move ``--think`` seconds ±25% after each state that gives it the turn; a new
match when one is over), and a bot. The clients reconnect as the table page does: on a close,
or when nothing was heard for 9 s although they ping after 5 s of silence (6 s for a socket
that got no welcome); at once after ``moved``, within 0.5 s after a silent socket, else with a
jittered exponential backoff (0.25 s × 2^tries, at most 8 s); ``hello`` carries ``since`` and
``match``.

After ``--settle`` seconds of play, the faults run one after the other, each followed by
``--settle`` seconds of play:

- ``kill``: ``kill -9`` of node1 (supervisord starts it again);
- ``stop``: node2 paused (SIGSTOP) for ``--pause`` seconds, then SIGCONT;
- ``redis``: Redis stopped for ``--pause`` seconds (``supervisorctl stop``), then started;
- ``nginx``: nginx's process group killed (supervisord starts it again);
- ``restart``: ``scripts/cluster.sh --restart``: every node drains, restarts and answers, one
  after the other.

For each: the moves per second served and the p99 latency of the script's moves (sent until
the state that answers it) from the fault to the end of its settle time; how long each table
went without a new move across the fault (its *pause*: the largest gap between two states that
showed a new version, from the last one before the fault to the first after the settle began);
the time until every table had made a new move after the fault (*recovered*); and the sockets
closed and reconnections. At the end every move the script saw answered is checked against the
database (bench/load_check.py): none may be lost. Prints JSON; docs/benchmarks-cluster.md has
the figures. Not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import websockets

sys.path.insert(0, str(Path(__file__).resolve().parent))

from load_check import Seen, check

ROOT = Path(__file__).resolve().parent.parent
PING, SILENT, OPEN = 5.0, 9.0, 6.0


def post(url: str, body: dict) -> dict:
    req = urllib.request.Request(url, data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as r:
        return json.loads(r.read())


@dataclass
class Sent:
    match: str
    idx: int
    text: str
    version: int
    at: float
    answered: float | None = None


@dataclass
class Player:
    base: str
    ws_base: str
    think: float
    rng: random.Random
    table_id: str = ""
    token: str = ""
    sent: list = field(default_factory=list)
    progress: list = field(default_factory=list)    # times a newer version was seen
    matches: dict = field(default_factory=dict)
    match: str | None = None
    version: int = -1
    started: set = field(default_factory=set)
    closes: dict = field(default_factory=dict)
    sessions: int = 0
    stop: bool = False

    async def setup(self) -> None:
        made = await asyncio.to_thread(post, self.base + "/api/tables", {
            "game": "zheng-shangyou/owen", "players": 2, "options": {}, "bots": "greedy",
            "room": {"hints": "off", "grace": 3600}})
        self.table_id, self.token = made["table_id"], made["host_token"]
        async with websockets.connect(f"{self.ws_base}/ws/{self.table_id}", open_timeout=60,
                                      ping_interval=None) as ws:
            async def until(ok):
                while True:
                    m = json.loads(await asyncio.wait_for(ws.recv(), 60))
                    if ok(m):
                        return m
            await ws.send(json.dumps({"type": "hello", "token": self.token, "name": "p"}))
            await until(lambda m: m["type"] == "welcome")
            await ws.send(json.dumps({"type": "sit", "seat": 0}))
            await until(lambda m: m["type"] == "welcome" and m["seat"] == 0)
            await ws.send(json.dumps({"type": "bots"}))
            await until(lambda m: m["type"] == "state"
                        and all(s["kind"] != "empty" for s in m["table"]["seats"]))

    async def run(self) -> None:
        retry = 0
        while not self.stop:
            welcomed, code = await self.session()
            if self.stop:
                return
            self.closes[str(code)] = self.closes.get(str(code), 0) + 1
            if welcomed:
                retry = 0
                if code == 1012:
                    continue
            if code in ("silent", "open timeout"):
                await asyncio.sleep(self.rng.random() * 0.5)
                continue
            ceiling = min(8.0, 0.25 * 2 ** retry)
            retry += 1
            await asyncio.sleep(ceiling / 2 + self.rng.random() * ceiling / 2)

    async def session(self):
        try:
            ws = await websockets.connect(f"{self.ws_base}/ws/{self.table_id}",
                                          open_timeout=OPEN, ping_interval=None,
                                          close_timeout=1, max_size=2 ** 22)
        except TimeoutError:
            return False, "open timeout"
        except (OSError, websockets.WebSocketException):
            return False, "refused"
        self.sessions += 1
        welcomed = False
        pending: list[Sent] = []
        try:
            hello = {"type": "hello", "token": self.token, "name": "p"}
            if self.match:
                hello.update(since=self.matches.get(self.match, 0), match=self.match)
            await ws.send(json.dumps(hello))
            heard = pinged = time.monotonic()
            while not self.stop:
                try:
                    raw = await asyncio.wait_for(ws.recv(), 1.0)
                except TimeoutError:
                    now = time.monotonic()
                    if now - heard > (SILENT if welcomed else OPEN):
                        return welcomed, "silent"
                    if now - max(heard, pinged) >= PING:
                        await ws.send(json.dumps({"type": "ping", "id": 1}))
                        pinged = now
                    continue
                heard = time.monotonic()
                m = json.loads(raw)
                if m["type"] == "welcome":
                    welcomed = True
                    self.started.clear()        # a start sent on a lost socket: again
                elif m["type"] == "error":
                    pending.clear()
                elif m["type"] == "state":
                    await self.state(ws, m, pending)
        except websockets.ConnectionClosed as e:
            return welcomed, e.rcvd.code if e.rcvd else "dropped"
        finally:
            await ws.close()
        return welcomed, "stopped"

    async def state(self, ws, m: dict, pending: list) -> None:
        now = time.monotonic()
        v, info, n = m["version"], m["table"], m["move_count"]
        for s in pending:
            if v > s.version:
                s.answered = now
        pending[:] = [s for s in pending if s.answered is None]
        if v > self.version:
            self.version = v
            self.progress.append(now)
        match = info.get("match_id")
        if match:
            self.match = match
            self.matches[match] = max(self.matches.get(match, 0), n)
        view = m["view"]
        key = (info["status"], match)
        if info["status"] in ("waiting", "over") and key not in self.started:
            self.started.add(key)
            await ws.send(json.dumps({"type": "start"}))
        elif info["status"] == "playing" and view and not pending and \
                view.get("to_act") == view.get("seat") == 0 and view.get("legal_moves"):
            asyncio.get_running_loop().call_later(
                self.think * self.rng.uniform(0.75, 1.25), self._move, ws, m, pending)

    def _move(self, ws, m: dict, pending: list) -> None:
        if self.stop or pending or m["version"] != self.version:
            return
        s = Sent(m["table"]["match_id"], m["move_count"], m["view"]["legal_moves"][0],
                 m["version"], time.monotonic())
        self.sent.append(s)
        pending.append(s)
        asyncio.ensure_future(self._send(ws, {"type": "move", "move": s.text,
                                              "version": s.version}))

    @staticmethod
    async def _send(ws, msg) -> None:
        try:
            await ws.send(json.dumps(msg))
        except websockets.ConnectionClosed:
            pass


class Cluster:
    def __init__(self, nodes: int, bot_delay: float, python: str):
        self.data = Path(tempfile.mkdtemp(prefix="shangyou-faults-"))
        self.data.chmod(0o755)
        self.out = open(self.data / "cluster.out", "w")
        self.proc = subprocess.Popen(
            ["bash", str(ROOT / "scripts/cluster.sh"), "--nodes", str(nodes), "--port", "19080",
             "--node-port", "19101", "--pg-port", "19432", "--redis-port", "19379", "--data",
             str(self.data), "--python", python, "--", "--bot-delay", str(bot_delay),
             "--allow-address", "127.0.0.1/32", "--limit", "tables_per_minute=20",
             "--limit", "waiting_total=100000"], stdout=self.out, stderr=subprocess.STDOUT)
        for _ in range(1200):
            if "shangyou on" in (self.data / "cluster.out").read_text():
                break
            time.sleep(0.1)
        self.base, self.ws_base = "http://127.0.0.1:19080", "ws://127.0.0.1:19080"
        self.db = "postgresql+psycopg://shangyou@127.0.0.1:19432/shangyou"

    def ctl(self, *args: str) -> str:
        words = (self.data / "run/supervisorctl").read_text().split()
        return subprocess.run([*words, "-c", str(self.data / "supervisord.conf"), *args],
                              capture_output=True, text=True).stdout.strip()

    def pid(self, name: str) -> int:
        return int(self.ctl("pid", name))

    def stop(self) -> None:
        self.proc.terminate()          # the script stops what it started (nodes drain first)
        self.proc.wait(180)
        self.out.close()


def quant(xs: list[float]) -> dict:
    if not xs:
        return {"median": None, "p99": None, "max": None}
    xs = sorted(xs)
    return {"median": round(statistics.median(xs), 3),
            "p99": round(xs[int(0.99 * (len(xs) - 1))], 3), "max": round(xs[-1], 3)}


def window(players: list[Player], t0: float, t1: float, label: str, command: str) -> dict:
    """The figures of one fault: from ``t0`` (injected) to ``t1`` (the end of its settle)."""
    pauses, recovered = [], []
    for p in players:
        before = [t for t in p.progress if t < t0]
        inside = [t for t in p.progress if t0 <= t < t1]
        if not inside:
            pauses.append(t1 - (before[-1] if before else t0))
            recovered.append(float("inf"))
            continue
        marks = ([before[-1]] if before else []) + inside
        pauses.append(max(b - a for a, b in zip(marks, marks[1:])) if len(marks) > 1
                      else inside[0] - t0)
        recovered.append(inside[0] - t0)
    moves = [s for p in players for s in p.sent if t0 <= s.at < t1]
    lat = [s.answered - s.at for s in moves if s.answered is not None]
    served = sum(sum(1 for t in p.progress if t0 <= t < t1) for p in players)
    return {"fault": label, "command": command, "seconds": round(t1 - t0, 1),
            "versions_per_s": round(served / (t1 - t0), 1),
            "moves_sent": len(moves), "moves_answered": len(lat),
            "latency_s": quant(lat), "pause_s": quant(pauses),
            "tables_paused_over_2s": sum(x > 2.0 for x in pauses),
            "all_tables_moved_again_after_s": round(max(recovered), 2)}


async def main_async(a) -> dict:
    cl = Cluster(a.nodes, a.bot_delay, a.python)
    rng = random.Random(1)
    players = [Player(cl.base, cl.ws_base, a.think, random.Random(rng.random()))
               for _ in range(a.tables)]
    results: list[dict] = []
    try:
        sem = asyncio.Semaphore(10)

        async def setup(p):
            async with sem:
                await p.setup()
        await asyncio.gather(*(setup(p) for p in players))
        tasks = [asyncio.create_task(p.run()) for p in players]
        await asyncio.sleep(a.settle)
        t = time.monotonic()
        results.append(window(players, t - a.settle, t, "none (baseline)", ""))
        for fault in a.faults.split(","):
            closes0 = {id(p): dict(p.closes) for p in players}
            t0 = time.monotonic()
            if fault == "kill":
                os.kill(cl.pid("node1"), signal.SIGKILL)
                cmd = "kill -9 node1 (supervisord starts it again)"
            elif fault == "stop":
                pid = cl.pid(f"node{a.nodes}")
                os.kill(pid, signal.SIGSTOP)
                await asyncio.sleep(a.pause)
                os.kill(pid, signal.SIGCONT)
                cmd = f"kill -STOP node{a.nodes}; {a.pause:g} s; kill -CONT"
            elif fault == "redis":
                await asyncio.to_thread(cl.ctl, "stop", "redis")
                await asyncio.sleep(a.pause)
                await asyncio.to_thread(cl.ctl, "start", "redis")
                cmd = f"supervisorctl stop redis; {a.pause:g} s; supervisorctl start redis"
            elif fault == "nginx":
                os.killpg(os.getpgid(cl.pid("nginx")), signal.SIGKILL)
                cmd = "kill -9 of nginx's process group (supervisord starts it again)"
            elif fault == "restart":
                await asyncio.to_thread(subprocess.run, ["bash", str(ROOT / "scripts/cluster.sh"),
                                                         "--restart", "--data", str(cl.data)],
                                        capture_output=True)
                cmd = "bash scripts/cluster.sh --restart (every node drains and restarts)"
            else:
                raise SystemExit(f"unknown fault {fault}")
            took = time.monotonic() - t0
            await asyncio.sleep(a.settle)
            r = window(players, t0, time.monotonic(), fault, cmd)
            r["fault_seconds"] = round(took, 1)
            closes: dict = {}
            for p in players:
                for k, n in p.closes.items():
                    closes[k] = closes.get(k, 0) + n - closes0[id(p)].get(k, 0)
            r["sockets_ended"] = {k: n for k, n in closes.items() if n}
            results.append(r)
            print(json.dumps(r), file=sys.stderr, flush=True)
        for p in players:
            p.stop = True
        await asyncio.sleep(2)
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        seen = [Seen(p.table_id, dict(p.matches), p.version,
                     tuple((s.match, s.idx, s.text, s.answered is not None) for s in p.sent))
                for p in players]
        checked = await asyncio.to_thread(check, cl.db, seen)
    finally:
        await asyncio.to_thread(cl.stop)
    return {"tables": a.tables, "nodes": a.nodes, "bot_delay": a.bot_delay, "think": a.think,
            "settle": a.settle, "faults": results,
            "database_check": {k: v for k, v in checked.items() if k != "examples"},
            "lost_moves": checked["lost"], "examples": checked["examples"][:3],
            "load_average": os.getloadavg()}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--tables", type=int, default=60)
    p.add_argument("--nodes", type=int, default=2)
    p.add_argument("--bot-delay", type=float, default=0.3)
    p.add_argument("--think", type=float, default=0.5)
    p.add_argument("--settle", type=float, default=20.0,
                   help="seconds of play before the first fault and after each")
    p.add_argument("--pause", type=float, default=15.0,
                   help="seconds a node stays paused, and Redis stopped")
    p.add_argument("--faults", default="kill,stop,redis,nginx,restart")
    p.add_argument("--python", default=sys.executable,
                   help="the Python that runs the nodes (default: this one)")
    a = p.parse_args(argv)
    res = asyncio.run(main_async(a))
    print(json.dumps(res, indent=1))
    return 0 if not res["lost_moves"] else 1


if __name__ == "__main__":
    sys.exit(main())
