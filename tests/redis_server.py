"""A real Redis server for the tests, started from the machine's own ``redis-server``.

:class:`RedisServer` starts ``redis-server`` on a free port of 127.0.0.1 in a fresh temporary
folder, with nothing saved to disk (no snapshots, no append-only file), no config file, and
the pubsub output buffer limit of ``scripts/cluster.sh``. The
server is a child of the test process and is told by the kernel to stop should that process die
without stopping it. ``redis-server`` is found on the ``PATH`` or in ``/usr/bin`` (Debian's
``redis-server`` package); without it the tests that need Redis fail, saying so:
``scripts/test.sh`` installs Debian's ``redis-server`` where it is missing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

_PR_SET_PDEATHSIG = 1
# the pubsub output buffer a node may fill before Redis drops its subscription, as
# scripts/cluster.sh sets it (docs/deploy.md)
PUBSUB_LIMIT = "pubsub 512mb 128mb 60"


def find_redis_server() -> Path | None:
    found = shutil.which("redis-server")
    if found:
        return Path(found)
    for p in (Path("/usr/bin/redis-server"), Path("/usr/local/bin/redis-server")):
        if p.exists():
            return p
    return None


def _die_with_parent() -> None:
    libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _ping(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=2) as s:
            s.sendall(b"PING\r\n")
            return s.recv(64).startswith(b"+PONG")
    except OSError:
        return False


class RedisServer:
    """One Redis server in a temporary folder; :meth:`stop` removes both."""

    def __init__(self, binary: Path):
        self.binary = binary
        self.root = Path(tempfile.mkdtemp(prefix="shangyou-redis-"))
        self.log = self.root / "redis.log"
        self.port = 0
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def _spawn(self) -> None:
        """redis-server on ``self.port``, nothing saved, its output in the log."""
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(
                [str(self.binary), "--port", str(self.port), "--bind", "127.0.0.1",
                 "--dir", str(self.root), "--save", "", "--appendonly", "no",
                 "--client-output-buffer-limit", PUBSUB_LIMIT,
                 "--daemonize", "no", "--protected-mode", "yes"],
                cwd=self.root, stdin=subprocess.DEVNULL, stdout=log,
                stderr=subprocess.STDOUT, preexec_fn=_die_with_parent)

    def start(self) -> None:
        for _ in range(5):              # another process may take the free port first
            self.port = _free_port()
            self._spawn()
            deadline = time.monotonic() + 60     # a generous bound for a loaded machine
            while self.proc.poll() is None and time.monotonic() < deadline:
                if _ping(self.port):
                    return
                time.sleep(0.02)
            self.stop_process()
        raise RuntimeError(f"redis-server did not start:\n{self.log.read_text()}")

    def restart(self) -> None:
        """Start the server again on the same port (after :meth:`kill` or a stop), empty."""
        self._spawn()
        deadline = time.monotonic() + 60
        while not _ping(self.port):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"redis-server did not start again:\n{self.log.read_text()}")
            time.sleep(0.02)

    def kill(self) -> None:
        """SIGKILL: Redis is gone at once, with what it held."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def stop_process(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def stop(self) -> None:
        self.stop_process()
        shutil.rmtree(self.root, ignore_errors=True)
