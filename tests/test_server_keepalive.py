"""The server's keepalive pings close dead sockets, never live ones whose message waits.

A real server process on a real PostgreSQL database (tests/pg_server.py), pinging every
0.5 s and closing a socket whose pong is 3 s late. A player's ``sit`` waits for the store
(another connection holds the table's row locked, as a busy database would make it wait) while
the same socket sends a chat line behind it: the socket is read meanwhile, so its pongs are
read in time and it stays open; once the row is free the sit is stored and the chat line
follows. The server's uvicorn reads nothing more from a socket until the app has taken its
last message, so a socket handled one message at a time in its reading loop was closed (1011)
here."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.request

import psycopg
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

pytestmark = pytest.mark.timeout(120)

PING, PONG_LATE = 0.5, 3.0     # the server's keepalive: ping interval, pong timeout (s)
HELD = 3 * PONG_LATE           # how long the table's row stays locked
WAIT = 60.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def server(tmp_path, pg_url):
    port = free_port()
    with open(tmp_path / "server.log", "w") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "shangyou.server", "--port", str(port), "--db", pg_url,
             "--data", str(tmp_path / "data"), "--ws-ping-interval", str(PING),
             "--ws-ping-timeout", str(PONG_LATE)],
            stdout=out, stderr=subprocess.STDOUT, text=True)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + WAIT
    try:
        while True:
            try:
                with urllib.request.urlopen(base + "/healthz", timeout=10) as r:
                    if json.loads(r.read()) == {"ok": True}:
                        break
            except OSError:
                pass
            assert proc.poll() is None, (tmp_path / "server.log").read_text()
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.05)
        yield base, port
    finally:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _until(ws, ok) -> dict:
    """The first message on ``ws`` for which ``ok`` holds."""
    deadline = time.monotonic() + WAIT
    while True:
        msg = json.loads(ws.recv(timeout=max(0.1, deadline - time.monotonic())))
        if ok(msg):
            return msg


def test_a_socket_whose_message_waits_for_the_store_answers_pings_and_stays_open(server,
                                                                                 pg_url):
    base, port = server
    req = urllib.request.Request(base + "/api/tables", data=json.dumps(
        {"game": "zheng-shangyou/pagat", "players": 4}).encode(),
        headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        made = json.loads(r.read())
    try:
        with connect(f"ws://127.0.0.1:{port}/ws/{made['table_id']}", open_timeout=WAIT,
                     ping_interval=None) as ws:
            ws.send(json.dumps({"type": "hello", "token": made["host_token"], "name": "p"}))
            _until(ws, lambda m: m["type"] == "welcome")
            with psycopg.connect(pg_url.replace("postgresql+psycopg://", "postgresql://")) as db:
                db.execute("SELECT id FROM tables WHERE id = %s FOR UPDATE",
                           (made["table_id"],))
                ws.send(json.dumps({"type": "sit", "seat": 0, "name": "p"}))
                ws.send(json.dumps({"type": "chat", "text": "behind the sit"}))
                time.sleep(HELD)          # the sit waits for the row; the pings go on
            # the row is free (the transaction ended): the sit is stored, the chat follows
            seated = _until(ws, lambda m: m["type"] in ("welcome", "error"))
            chat = _until(ws, lambda m: m["type"] == "chat")
    except ConnectionClosed as e:
        pytest.fail(f"the server closed the socket: {e.rcvd}")
    assert seated == {**seated, "type": "welcome", "seat": 0}
    assert chat["text"] == "behind the sit"
