"""Kill the real server (SIGKILL) mid-match, start it again on the same data folder, reconnect
with the seat token and finish the match: nothing is lost."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import time
import urllib.request

import pytest
from websockets.sync.client import connect

import shangyou
from shangyou.bots.base import make_bot

pytestmark = pytest.mark.timeout(90)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, port: int, data, *args: str):
        self.port = port
        self.base = f"http://127.0.0.1:{port}"
        self.output = data.parent / f"server-{time.monotonic_ns()}.log"
        self.out = open(self.output, "w")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "shangyou.server", "--port", str(port), "--data", str(data),
             "--bot-delay", "0", *args],
            stdout=self.out, stderr=subprocess.STDOUT, text=True)
        deadline = time.monotonic() + 20
        while True:
            try:
                if self.get("/healthz") == {"ok": True}:
                    break
            except OSError:
                pass
            assert self.proc.poll() is None, self.output.read_text()
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.05)
        first = self.output.read_text().splitlines()[0]
        assert first == f"shangyou server: http://127.0.0.1:{port}/", first

    def get(self, path):
        with urllib.request.urlopen(self.base + path, timeout=5) as r:
            return json.loads(r.read())

    def post(self, path, body):
        req = urllib.request.Request(self.base + path, data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=5) as r:
            return json.loads(r.read())

    def ws(self, table_id):
        return connect(f"ws://127.0.0.1:{self.port}/ws/{table_id}", open_timeout=5)

    def kill(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)
        self.out.close()


def recv(ws) -> dict:
    return json.loads(ws.recv(timeout=10))


def until(ws, pred) -> dict:
    while True:
        m = recv(ws)
        assert m["type"] != "error", m
        if m["type"] == "state" and pred(m):
            return m


def my_turn_or_over(seat):
    return lambda s: s["view"] is not None and (
        s["view"]["phase"] == "over" or s["view"]["to_act"] == seat)


def play(ws, state, chooser) -> dict:
    """One move at ``state`` (this seat's turn); the next state where it acts or it is over."""
    while True:
        ws.send(json.dumps({"type": "move", "move": chooser.choose(state["view"]),
                            "version": state["version"]}))
        reply = recv(ws)
        if reply["type"] == "error" and reply["code"] == "rate_limited":
            time.sleep(0.06)
            continue
        assert reply["type"] == "state", reply
        break
    return reply if my_turn_or_over(0)(reply) else until(ws, my_turn_or_over(0))


@pytest.mark.parametrize("db", ["sqlite", "postgresql"])
def test_killed_server_resumes_every_table(request, tmp_path, db):
    """On SQLite in the data folder, and on a PostgreSQL database (``--db``)."""
    data = tmp_path / "data"
    args = ("--db", request.getfixturevalue("pg_url")) if db == "postgresql" else ()
    port = free_port()
    chooser = make_bot("greedy", 3)
    server = Server(port, data, *args)
    try:
        body = {"game": "zheng-shangyou/owen", "players": 2, "options": {"target": 4},
                "bots": "greedy"}
        created = server.post("/api/tables", body)
        table_id = created["table_id"]
        waiting_id = server.post("/api/tables", {**body, "players": 3})["table_id"]
        with server.ws(table_id) as ws:
            ws.send(json.dumps({"type": "hello", "token": created["host_token"], "name": "Ann"}))
            assert recv(ws)["type"] == "welcome"
            recv(ws)
            ws.send(json.dumps({"type": "sit", "seat": 0}))
            welcome = recv(ws)
            token = welcome["token"]
            assert welcome["seat"] == 0 and token
            recv(ws)
            ws.send(json.dumps({"type": "bots"}))
            recv(ws)
            ws.send(json.dumps({"type": "start"}))
            s = until(ws, my_turn_or_over(0))
            for _ in range(6):
                s = play(ws, s, chooser)
                assert s["view"]["phase"] != "over"
            before = s
        server.kill()                     # mid-match, no warning
        assert (data / "shangyou.db").exists() == (db == "sqlite")

        server = Server(port, data, *args)
        # the server answers at once and reloads recent tables in the background
        deadline = time.monotonic() + 60
        while True:
            tables = {t["table_id"]: t for t in server.get("/api/tables")["tables"]}
            if len(tables) == 2 or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        assert tables[table_id]["status"] == "playing"
        assert tables[waiting_id]["status"] == "waiting"
        with server.ws(table_id) as ws:
            ws.send(json.dumps({"type": "hello", "token": token, "name": "Ann"}))
            welcome = recv(ws)
            assert welcome["seat"] == 0
            s = recv(ws)
            assert s["type"] == "state"
            assert s["version"] == before["version"]
            assert s["move_count"] == before["move_count"]
            assert s["view"] == before["view"]          # same hand, same table, same turn
            while s["view"]["phase"] != "over":
                s = play(ws, s, chooser)
        result = s["view"]["result"]
        assert max(result["scores"]) >= 4
        match_id = s["table"]["match_id"]
        assert [m["match_id"] for m in server.get("/api/matches")] == [match_id]
        full = server.get(f"/api/matches/{match_id}")
        assert full["result"] == result
        assert shangyou.replay(full["log"]).result == result
    finally:
        server.kill()
