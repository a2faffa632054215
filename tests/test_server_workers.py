"""The bots' worker processes end with the server: on SIGTERM, on Ctrl-C (SIGINT to the whole
process group) and when the server is killed (SIGKILL), no worker and no multiprocessing
resource tracker is left behind. Also :class:`~shangyou.server.workers.BotPool` on its own.

Processes are found and watched through ``/proc`` (Linux)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

import shangyou
from shangyou.server.workers import BotPool

pytestmark = [pytest.mark.timeout(180),
              pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")]

WAIT = 60.0       # seconds to wait for an event (a worker to start, processes to end)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def child_env() -> dict:
    """The environment of a child Python: it imports the same ``shangyou`` as this one."""
    src = str(Path(shangyou.__file__).resolve().parent.parent)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (src, env.get("PYTHONPATH")) if p)
    return env


def _stat(pid: int) -> list[str] | None:
    """Fields 3.. of ``/proc/<pid>/stat`` (state, ppid, ...), or None if there is no such
    process."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text[text.rindex(")") + 2:].split()


def children(pid: int) -> dict[int, tuple[str, str]]:
    """The processes whose parent is ``pid``: {pid: (command line, start time)}."""
    out = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        st = _stat(int(entry.name))
        if st is None or st[1] != str(pid):
            continue
        try:
            cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        out[int(entry.name)] = (cmd, st[19])
    return out


def alive(pid: int, start: str) -> bool:
    """The same process (pid and start time) still runs; a zombie counts as ended."""
    st = _stat(pid)
    return st is not None and st[19] == start and st[0] not in ("Z", "X")


def wait_gone(procs: dict[int, tuple[str, str]]) -> list[int]:
    """Poll until every process of ``procs`` has ended; answer those still there after WAIT."""
    deadline = time.monotonic() + WAIT
    while True:
        left = [pid for pid, (_, start) in procs.items() if alive(pid, start)]
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.1)


def kill_left(pids) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


# ------------------------------------------------------------------------ the real server
class Server:
    def __init__(self, tmp_path: Path):
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log = tmp_path / "server.log"
        # a session of its own: a signal to its process group reaches nothing of the tests'
        with open(self.log, "w") as out:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "shangyou.server", "--port", str(self.port),
                 "--data", str(tmp_path / "data"), "--bot-delay", "0", "--log-level", "info"],
                stdout=out, stderr=subprocess.STDOUT, env=child_env(), start_new_session=True)
        deadline = time.monotonic() + WAIT
        while True:
            try:
                with urllib.request.urlopen(self.base + "/healthz", timeout=5) as r:
                    if json.loads(r.read()) == {"ok": True}:
                        break
            except OSError:
                pass
            assert self.proc.poll() is None, self.log.read_text()
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.05)

    def post(self, path: str, body: dict) -> dict:
        req = urllib.request.Request(self.base + path, data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=10) as r:
            return json.loads(r.read())

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(WAIT)


def start_bots(server: Server, ws) -> None:
    """Three heuristic bots play at a new table: the worker pool starts."""
    created = server.post("/api/tables", {"game": "zheng-shangyou/pagat", "players": 3,
                                          "bots": "heuristic"})
    ws.connect(created["table_id"])
    ws.send({"type": "hello", "token": created.get("host_token"), "name": "x"})
    ws.send({"type": "bots", "level": "heuristic"})
    ws.send({"type": "start"})


class Client:
    """A WebSocket client that reads (and drops) what the server sends."""

    def __init__(self, server: Server):
        self.server = server
        self.ws = None
        self._stack = contextlib.ExitStack()

    def connect(self, table_id: str) -> None:
        self.ws = self._stack.enter_context(
            connect(f"ws://127.0.0.1:{self.server.port}/ws/{table_id}", open_timeout=10))

    def send(self, msg: dict) -> None:
        self.ws.send(json.dumps(msg))

    def drain(self) -> None:
        try:
            while True:
                self.ws.recv(timeout=0.05)
        except (TimeoutError, ConnectionClosed):
            pass

    def close(self) -> None:
        self._stack.close()


def workers_and_tracker(server: Server, client: Client) -> dict[int, tuple[str, str]]:
    """The server's worker processes and resource tracker, once a worker has started."""
    deadline = time.monotonic() + WAIT
    while True:
        client.drain()
        kids = children(server.proc.pid)
        workers = [p for p, (cmd, _) in kids.items() if "spawn_main" in cmd]
        trackers = [p for p, (cmd, _) in kids.items() if "resource_tracker" in cmd]
        if workers and trackers:
            return kids
        assert server.proc.poll() is None, server.log.read_text()
        assert time.monotonic() < deadline, f"no worker started: {kids}"
        time.sleep(0.1)


@pytest.mark.parametrize("sig,group", [
    ("SIGTERM", False),       # kill <pid>
    ("SIGTERM", True),        # a service manager's stop: every process of the unit
    ("SIGINT", True),         # Ctrl-C in a terminal: the whole foreground process group
    ("SIGKILL", False),       # kill -9: no shutdown at all
], ids=["sigterm", "sigterm-group", "ctrl-c", "sigkill"])
def test_workers_end_with_the_server(tmp_path, sig, group):
    server = Server(tmp_path)
    client = Client(server)
    procs = {}
    try:
        start_bots(server, client)
        procs = workers_and_tracker(server, client)
        assert any("spawn_main" in cmd for cmd, _ in procs.values())
        if group:
            os.killpg(server.proc.pid, getattr(signal, sig))
        else:
            server.proc.send_signal(getattr(signal, sig))
        server.proc.wait(WAIT)
        left = wait_gone(procs)
        assert not left, {p: procs[p][0] for p in left}
        log = server.log.read_text()
        if sig != "SIGKILL":          # a normal stop: the app's shutdown ended the workers
            assert "Application shutdown complete" in log, log
            assert "Traceback" not in log and "ERROR" not in log, log
    finally:
        client.close()
        server.close()
        kill_left(wait_gone(procs) if procs else [])


# ---------------------------------------------------------------------- the pool on its own
def test_pool_runs_work_and_shutdown_ends_its_workers():
    pool = BotPool(max_workers=2)
    try:
        pids = {asyncio.run(pool.run(os.getpid)) for _ in range(4)}
        assert pids and os.getpid() not in pids
        assert pids <= set(pool.pids())
        assert pool.submit(abs, -3).result(WAIT) == 3
        procs = {p: v for p, v in children(os.getpid()).items() if p in pool.pids()}
        assert procs
    finally:
        pool.shutdown()
    assert not wait_gone(procs)
    assert pool.pids() == []
    with pytest.raises(RuntimeError, match="shut down"):
        pool.submit(abs, -3)


def test_a_dead_worker_is_replaced_at_the_next_call():
    pool = BotPool(max_workers=1)
    try:
        first = asyncio.run(pool.run(os.getpid))
        with pytest.raises(Exception, match="terminated abruptly"):
            asyncio.run(pool.run(os._exit, 3))          # the worker dies
        second = asyncio.run(pool.run(os.getpid))
        assert second != first
    finally:
        pool.shutdown()


_ORPHAN = """
import os, sys, time
from shangyou.server.workers import BotPool
pool = BotPool(max_workers=1, death_signal=sys.argv[1] == "1")
print(pool.submit(os.getpid).result(60), flush=True)
time.sleep(600)
"""


@pytest.mark.parametrize("death_signal", [True, False], ids=["prctl", "polling"])
def test_workers_of_a_killed_parent_exit(death_signal):
    """The kernel's parent-death signal, and without it the polling thread alone."""
    parent = subprocess.Popen([sys.executable, "-c", _ORPHAN, str(int(death_signal))],
                              stdout=subprocess.PIPE, text=True, env=child_env(),
                              start_new_session=True)
    procs = {}
    try:
        worker = int(parent.stdout.readline())
        procs = children(parent.pid)
        assert worker in procs
        assert any("resource_tracker" in cmd for cmd, _ in procs.values()), procs
        parent.kill()
        parent.wait(WAIT)
        left = wait_gone(procs)
        assert not left, {p: procs[p][0] for p in left}
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait(WAIT)
        parent.stdout.close()
        kill_left(p for p, (_, start) in procs.items() if alive(p, start))
