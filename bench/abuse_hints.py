"""What a hint and review flood costs the other tables: their bots' moves a second with and
without the attack.

    PYTHONPATH=src python bench/abuse_hints.py [--tables 4] [--seconds 20] [--bot-delay 0]
        [--attackers 1] [--hints search] [--runs control,reconnect,flood] [--src DIR]
        [--limit NAME=VALUE ...]

Each run starts ``python -m shangyou.server`` on a free port with a fresh data folder, in a
session of its own (where Linux groups processes by session for the scheduler, as desktop
kernels do, this script's clients then do not take their CPU from the server's share, as
clients on other machines would not), then:

- ``--tables`` tables of heuristic bots only (``zheng-shangyou/owen``, 2 players, a target of
  1,000 so that the match lasts), each watched by one socket of this script: every new
  ``version`` in a state is a move;
- **control**: nothing else, for ``--seconds``;
- **reconnect** (the no-hint control): the attackers below, their sockets coming and going
  as in the flood, but no hint and no review asked;
- **hints**, **reviews**: the flood's hints alone, its reviews alone;
- **flood**: meanwhile ``--attackers`` people, each alone with greedy bots at a table whose
  room option ``hints`` is ``--hints``, ask for a hint on their turn and never move: every
  50 ms each opens a new socket with its seat's token, says hello, asks, and drops the socket
  (the reconnect flood); and a review flood asks ``GET /api/matches/{id}/review`` for each seat
  of a finished match every 50 ms.

The bot tables come from 127.0.0.1, which the server's allowance (``--allow-address
127.0.0.1/32``) lets create them; the attackers come from 127.0.0.2 and meet every limit as it
is. Reported for each run: the bot tables' moves a second (all of them), the longest wait
between two moves of one table and the 99th percentile of those waits, and what the attack
got back (hints, errors by code, HTTP statuses), and the CPU the server, its worker
processes and this script (the attack's and the watchers' clients) used, as a share of one
core (Linux). A table's waits run from the start of the
measured window to its first move, between moves, and from its last move to the end. ``--src DIR`` runs the server of another
checkout (its ``src``), to measure the code before a change. Not a test: figures go to
docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
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
from collections import Counter
from pathlib import Path

from websockets.asyncio.client import connect

ATTACKER = "127.0.0.2"
EVERY = 0.05                # seconds between two of the attack's requests


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(a, data: str) -> tuple[subprocess.Popen, int]:
    port = free_port()
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    if a.src:
        env["PYTHONPATH"] = os.path.abspath(a.src)
    proc = subprocess.Popen([sys.executable, "-m", "shangyou.server", "--port", str(port),
                             "--data", data, "--bot-delay", str(a.bot_delay),
                             "--allow-address", "127.0.0.1/32", "--log-level", "warning",
                             *(x for lim in a.limit for x in ("--limit", lim))],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT,
                            start_new_session=True)
    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5):
                return proc, port
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("the server did not start") from None
            time.sleep(0.1)


def post(port: int, path: str, body: dict, source: str = "127.0.0.1") -> dict:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30, source_address=(source, 0))
    try:
        conn.request("POST", path, json.dumps(body), {"Content-Type": "application/json"})
        r = conn.getresponse()
        out = json.loads(r.read())
        if r.status != 200:
            raise SystemExit(f"POST {path}: {r.status} {out}")
        return out
    finally:
        conn.close()


async def recv(ws, *types: str) -> dict:
    while True:
        msg = json.loads(await ws.recv())
        if msg["type"] in types:
            return msg


async def open_table(port: int, source: str, bots: str, players: int, target: int,
                     seated: bool, room: dict | None = None):
    """A started table: ``(table id, the host's socket, the seat's token or None)``."""
    body = {"game": "zheng-shangyou/owen", "players": players, "options": {"target": target},
            "bots": bots, **({"room": room} if room else {})}
    created = await asyncio.to_thread(post, port, "/api/tables", body, source)
    ws = await connect(f"ws://127.0.0.1:{port}/ws/{created['table_id']}", max_queue=None,
                       local_addr=(source, 0))
    await ws.send(json.dumps({"type": "hello", "token": created["host_token"], "name": "x"}))
    await recv(ws, "welcome")
    token = None
    if seated:
        await ws.send(json.dumps({"type": "sit", "seat": 0}))
        token = (await recv(ws, "welcome"))["token"]
    await ws.send(json.dumps({"type": "bots"}))
    await ws.send(json.dumps({"type": "start"}))
    return created["table_id"], ws, token


async def watch(ws, stamps: list[tuple[float, int]], stop: asyncio.Event) -> None:
    """Every new version of a bot table, with the time it came."""
    last = -1
    while not stop.is_set():
        try:
            msg = json.loads(await asyncio.wait_for(ws.recv(), 0.5))
        except TimeoutError:
            continue
        if msg["type"] == "state" and msg["version"] > last:
            last = msg["version"]
            stamps.append((time.monotonic(), last))


async def until_turn(ws) -> None:
    while True:
        msg = await recv(ws, "state")
        v = msg.get("view") or {}
        if v.get("to_act") == 0 or v.get("phase") == "over":
            return


async def hint_flood(port: int, table_id: str, token: str, got: Counter,
                     stop: asyncio.Event, ask: bool = True) -> None:
    """A new socket every 50 ms, hello with the seat's token, one hint (if ``ask``), gone."""
    while not stop.is_set():
        t0 = time.monotonic()
        try:
            async with connect(f"ws://127.0.0.1:{port}/ws/{table_id}",
                               local_addr=(ATTACKER, 0)) as ws:
                await ws.send(json.dumps({"type": "hello", "token": token, "name": "x"}))
                await recv(ws, "welcome")
                if not ask:
                    got["reconnected"] += 1
                    await asyncio.sleep(EVERY)
                    continue
                await ws.send(json.dumps({"type": "hint"}))
                got["hint asked"] += 1
                try:
                    msg = await asyncio.wait_for(recv(ws, "hint", "error"), EVERY)
                    got["hint" if msg["type"] == "hint" else msg["code"]] += 1
                except TimeoutError:
                    got["no answer within 50 ms (socket dropped)"] += 1
        except Exception as e:        # refused sockets and the like count as answers too
            got[type(e).__name__] += 1
        await asyncio.sleep(max(0.0, EVERY - (time.monotonic() - t0)))


def review_flood(port: int, match_id: str, seats: int, got: Counter, stop) -> None:
    i = 0
    while not stop.is_set():
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30,
                                          source_address=(ATTACKER, 0))
        try:
            conn.request("GET", f"/api/matches/{match_id}/review?seat={i % seats}")
            r = conn.getresponse()
            body = json.loads(r.read())
            got[f"review {r.status} {body.get('code') or body.get('status')}"] += 1
        except OSError as e:
            got[type(e).__name__] += 1
        finally:
            conn.close()
        i += 1
        time.sleep(EVERY)


def cpu_by_role(server: int) -> Counter:
    """CPU seconds so far of the server process and of its children, by role: the bots'
    workers (nice 0) and the advice workers (niced) (Linux ``/proc``; empty elsewhere)."""
    out: Counter = Counter()
    tick = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            text = (entry / "stat").read_text()
        except OSError:
            continue
        f = text[text.rindex(")") + 2:].split()
        pid, ppid, nice = int(entry.name), int(f[1]), int(f[16])
        if pid == server:
            role = "server"
        elif ppid == server:
            role = "bot workers" if nice == 0 else "advice workers"
        else:
            continue
        out[role] += (int(f[11]) + int(f[12])) / tick
    out["this script"] = time.process_time()
    return out


def waits(stamps: list[tuple[float, int]], t0: float, t1: float) -> list[float]:
    """The times a table went without a move, in the window from ``t0`` to ``t1`` (from its
    start to the first move and from the last move to its end included)."""
    times = [t0] + [t for t, _ in stamps if t0 <= t <= t1] + [t1]
    return [b - a for a, b in zip(times, times[1:])]


async def run(a, kind: str) -> dict:
    with tempfile.TemporaryDirectory() as data:
        proc, port = start_server(a, data)
        try:
            return await measure(a, kind, port, proc.pid)
        finally:
            proc.terminate()
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()


async def measure(a, kind: str, port: int, server: int) -> dict:
    stop = asyncio.Event()
    sockets = []
    got: Counter = Counter()
    attack = []
    if kind in ("flood", "reconnect", "hints", "reviews"):
        # a finished match to review, then the attackers on their turn
        _, ws, _ = await open_table(port, ATTACKER, "greedy", 3, 1, seated=False)
        sockets.append(ws)
        while True:
            msg = await recv(ws, "state")
            if msg["table"]["status"] == "over":
                match_id = msg["table"]["match_id"]
                break
        for _ in range(a.attackers):
            tid, ws, token = await open_table(port, ATTACKER, "greedy", 2, 1000, seated=True,
                                              room={"hints": a.hints})
            await until_turn(ws)
            sockets.append(ws)
            attack.append((tid, token))
    bot_tables = []
    for _ in range(a.tables):
        _, ws, _ = await open_table(port, "127.0.0.1", "heuristic", 2, 1000, seated=False)
        sockets.append(ws)
        bot_tables.append(ws)
    await asyncio.sleep(a.warmup)
    stamps: list[list] = [[] for _ in bot_tables]
    tasks = [asyncio.create_task(watch(ws, s, stop)) for ws, s in zip(bot_tables, stamps)]
    thread_stop = threading.Event()
    threads = []
    if kind in ("flood", "reconnect", "hints"):
        tasks += [asyncio.create_task(hint_flood(port, tid, token, got, stop,
                                                 kind != "reconnect"))
                  for tid, token in attack]
    if kind in ("flood", "reviews"):
        threads.append(threading.Thread(target=review_flood,
                                        args=(port, match_id, 3, got, thread_stop)))
        threads[-1].start()
    t0 = time.monotonic()
    cpu0 = cpu_by_role(server)
    await asyncio.sleep(a.seconds)
    t1 = time.monotonic()
    cpu1 = cpu_by_role(server)
    elapsed = t1 - t0
    stop.set()
    thread_stop.set()
    await asyncio.gather(*tasks)
    for t in threads:
        t.join()
    for ws in sockets:
        await ws.close()
    moves = sum(max(0, s[-1][1] - s[0][1]) for s in stamps if s)
    gaps = sorted(g for s in stamps for g in waits(s, t0, t1))
    return {"run": kind, "moves_per_s": moves / elapsed,
            "longest_wait_s": gaps[-1] if gaps else None,
            "p99_wait_s": gaps[int(0.99 * (len(gaps) - 1))] if gaps else None,
            "median_wait_s": statistics.median(gaps) if gaps else None,
            "attack": dict(got),
            "cpu_share": {k: round((cpu1[k] - cpu0[k]) / elapsed, 2) for k in cpu1}}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tables", type=int, default=4, help="tables of heuristic bots (4)")
    p.add_argument("--seconds", type=float, default=20.0, help="measured seconds a run (20)")
    p.add_argument("--warmup", type=float, default=3.0, help="seconds before measuring (3)")
    p.add_argument("--bot-delay", type=float, default=0.0,
                   help="the server's pause before a bot's move (0: as fast as they go)")
    p.add_argument("--attackers", type=int, default=1, help="seats that flood hints (1)")
    p.add_argument("--hints", default="search", choices=("search", "heuristic"),
                   help="the attackers' tables' room option hints (search)")
    p.add_argument("--runs", default="control,reconnect,flood",
                   help="which runs, in turn (control,reconnect,hints,reviews,flood)")
    p.add_argument("--src", default=None, help="the src folder of the server to run")
    p.add_argument("--limit", action="append", default=[], metavar="NAME=VALUE",
                   help="a --limit for the server (repeatable)")
    a = p.parse_args()
    for kind in a.runs.split(","):
        r = asyncio.run(run(a, kind))
        print(json.dumps(r), flush=True)


if __name__ == "__main__":
    main()
