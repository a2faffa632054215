"""``scripts/cluster.sh`` keeps the site up when a node dies: supervisord starts the node again,
and nginx answers meanwhile; ``--restart`` restarts every node (each drains first); ``--stop``
stops everything it started. Real PostgreSQL, Redis, nginx and supervisord, as the script runs
them (on free ports, in a temporary data folder). Every wait is on a condition, with a generous
overall bound."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest
from test_cluster import free_port

pytestmark = pytest.mark.timeout(600)

ROOT = Path(__file__).resolve().parent.parent
WAIT = 120.0


def healthy(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as r:
            return r.status == 200
    except OSError:
        return False


def wait_until(what: str, pred) -> None:
    deadline = time.monotonic() + WAIT
    while not pred():
        assert time.monotonic() < deadline, what
        time.sleep(0.1)


def free_pair() -> int:
    """A free port whose next one is free too."""
    while True:
        port = free_port()
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port + 1))
                return port
            except OSError:
                continue


def pids(data: Path) -> dict[str, int]:
    out = {}
    for line in (data / "run/pids").read_text().splitlines():
        name, _, pid = line.partition(" ")
        if pid.isdigit():
            out[name] = int(pid)
    return out


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return not Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"


def test_the_script_restarts_a_killed_node_and_stops_everything(tmp_path):
    # a folder PostgreSQL's own user can reach (as root the script runs it as 'postgres')
    data = Path(tempfile.mkdtemp(prefix="shangyou-cluster-test-"))
    data.chmod(0o755)
    ports = {"port": free_port(), "node-port": free_pair(), "pg-port": free_port(),
             "redis-port": free_port()}
    node2 = ports["node-port"] + 1                 # the script gives node2 the next port
    args = [w for k, v in ports.items() for w in (f"--{k}", str(v))]
    out = open(tmp_path / "cluster.out", "w")
    proc = subprocess.Popen(["bash", str(ROOT / "scripts/cluster.sh"), *args, "--data",
                             str(data), "--python", sys.executable, "--", "--bot-delay", "0"],
                            stdout=out, stderr=subprocess.STDOUT)
    try:
        wait_until("the cluster starts", lambda: "shangyou on 2 nodes" in
                   (tmp_path / "cluster.out").read_text() or proc.poll() is not None)
        assert proc.poll() is None, (tmp_path / "cluster.out").read_text()
        started = pids(data)
        assert {"postgres", "redis", "node1", "node2", "nginx"} <= set(started), started
        site, first = ports["port"], ports["node-port"]
        assert healthy(site) and healthy(first) and healthy(node2)

        os.kill(started["node1"], signal.SIGKILL)
        wait_until("node1 is gone", lambda: not healthy(first))
        for _ in range(4):                        # nginx sends everything to node2 meanwhile
            assert healthy(site)
        wait_until("supervisord starts node1 again", lambda: healthy(first))
        assert healthy(node2) and alive(started["node2"]) and alive(started["nginx"])
        assert proc.poll() is None                # nothing else stopped with it

        restart = subprocess.run(["bash", str(ROOT / "scripts/cluster.sh"), "--restart",
                                  "--data", str(data)], capture_output=True, text=True,
                                 timeout=WAIT)
        assert restart.returncode == 0, restart.stderr
        assert restart.stdout.split() == ["restarted", "node1", "restarted", "node2"]
        assert healthy(site) and healthy(first) and healthy(node2)
        logs = (data / "node2.log").read_text()
        assert "drained in" in logs                # it stopped by draining

        stop = subprocess.run(["bash", str(ROOT / "scripts/cluster.sh"), "--stop", "--data",
                               str(data)], capture_output=True, text=True, timeout=WAIT)
        assert stop.returncode == 0, stop.stderr
        assert proc.wait(WAIT) is not None
        for port in (site, first, node2):
            assert not healthy(port)
    finally:
        if proc.poll() is None:
            proc.terminate()
            proc.wait(WAIT)
        out.close()
        shutil.rmtree(data, ignore_errors=True)
