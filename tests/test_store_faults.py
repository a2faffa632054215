"""PostgreSQL restarted under running tables: every table resumes by itself, no acknowledged
move is lost, ``/readyz`` says 503 while the database is down and ``/healthz`` stays 200.

Real components only: a PostgreSQL server of the test's own (tests/pg_server.py), stopped with
``pg_ctl -m fast`` and started again on the same port and data; the one-process server, and two
nodes with Redis (``Node`` of tests/test_cluster.py), as subprocesses; tables of bots only
(``--bot-delay 0``; random, greedy and heuristic bots, the last in worker processes) watched by
a spectator socket each. Every wait is on a condition with a generous overall bound."""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

import pg_server
import shangyou
from shangyou.bots.base import make_bot
from shangyou.server.store import Store
from test_cluster import WAIT, Client, Node, free_port

pytestmark = pytest.mark.timeout(300)

LEVELS = ("random", "greedy", "heuristic", "greedy", "heuristic")
# a long match: no table ends before the test does (a table whose match ended is not frozen)
GAME = {"game": "zheng-shangyou/winner", "players": 4, "options": {"hands": 400}}


@pytest.fixture
def own_pg():
    """A PostgreSQL server of this test alone: it is stopped and started again."""
    bindir = pg_server.find_bindir()
    assert bindir is not None, "PostgreSQL's programs were not found (scripts/test.sh)"
    server = pg_server.PostgresServer(bindir)
    try:
        server.start()
        yield server
    finally:
        server.stop()


class Server:
    """``python -m shangyou.server`` alone on its store (the HTTP and socket helpers of
    ``Node``)."""

    get, post, ws, wait_up, stop = Node.get, Node.post, Node.ws, Node.wait_up, Node.stop

    def __init__(self, tmp_path, db: str, *args: str):
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.output = tmp_path / "server.log"
        self.out = open(self.output, "w")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "shangyou.server", "--port", str(self.port), "--data",
             str(tmp_path / "data"), "--db", db, "--bot-delay", "0", *args],
            stdout=self.out, stderr=subprocess.STDOUT, text=True)
        self.wait_up("the server")


def status(node, path: str) -> tuple[int, dict]:
    """The HTTP status and JSON body of ``GET path`` (a 503 included)."""
    try:
        with urllib.request.urlopen(node.base + path, timeout=10) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def wait_for(pred, what: str, timeout: float = WAIT, every=None):
    """Until ``pred()`` holds (``every()`` called each time round), at most ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while True:
        if every is not None:
            every()
        if pred():
            return
        assert time.monotonic() < deadline, f"not within {timeout} s: {what}"
        time.sleep(0.05)


class Watcher(threading.Thread):
    """A spectator of one table of bots: the latest state it was sent, kept as it came; its
    socket opened again (on the next node) whenever the server closes it."""

    def __init__(self, nodes: list, table_id: str):
        super().__init__(daemon=True)
        self.nodes, self.table_id = nodes, table_id
        self.latest: dict | None = None      # the latest state with a view
        self.match: str | None = None
        self.reconnects = 0
        self.done = threading.Event()
        self.lock = threading.Lock()
        self.ws = self._open(0)

    def _open(self, i: int):
        ws = self.nodes[i % len(self.nodes)].ws(self.table_id).__enter__()
        hello: dict = {"type": "hello", "name": "watcher"}
        if self.latest is not None:
            hello.update(since=self.latest["move_count"], match=self.match)
        ws.send(json.dumps(hello))
        return ws

    @property
    def moves(self) -> int:
        with self.lock:
            return self.latest["move_count"] if self.latest else 0

    @property
    def over(self) -> bool:
        with self.lock:
            return bool(self.latest) and self.latest["view"]["phase"] == "over"

    def run(self):
        i = 0
        while not self.done.is_set():
            try:
                m = json.loads(self.ws.recv(timeout=0.5))
            except TimeoutError:
                continue
            except ConnectionClosed:
                if self.done.is_set():
                    return
                i += 1
                self.reconnects += 1
                while not self.done.is_set():
                    try:
                        self.ws = self._open(i)
                        break
                    except OSError:
                        i += 1
                        time.sleep(0.2)
                continue
            if m["type"] == "state" and m["view"] is not None:
                with self.lock:
                    if self.latest is None or m["move_count"] >= self.latest["move_count"]:
                        self.latest = m
                        self.match = m["table"]["match_id"]

    def snapshot(self) -> dict | None:
        with self.lock:
            return self.latest

    def stop(self):
        self.done.set()
        self.join(30)
        self.ws.close()


def bot_table(node, level: str) -> str:
    """A table of four bots of ``level``, started; its id."""
    created = node.post("/api/tables", {**GAME, "bots": level, "room": {"hints": "off"}})
    table_id = created["table_id"]
    with node.ws(table_id) as ws:
        ws.send(json.dumps({"type": "hello", "name": "Host", "token": created["host_token"]}))
        ws.send(json.dumps({"type": "bots"}))
        ws.send(json.dumps({"type": "start"}))
        while True:
            m = json.loads(ws.recv(timeout=WAIT))
            assert m["type"] != "error", m
            if m["type"] == "state" and m["view"] is not None:
                return table_id


def check_acknowledged(db_url: str, watchers: list[Watcher], seen: dict[str, dict]) -> None:
    """No move a client was sent is missing from the store: for each table, the store holds at
    least as many moves as any state said, and the views those states showed are the public
    views of the store's moves (the checkpoint before the fault, and the latest)."""
    store = Store(db_url)
    try:
        for w in watchers:
            row = store.load_table(w.table_id)
            m = row["match"]
            for state in (seen[w.table_id], w.snapshot()):
                n = state["move_count"]
                assert len(m["moves"]) >= n, (w.table_id, len(m["moves"]), n)
                g = shangyou.replay({"game": m["game"], "players": m["players"],
                                     "seed": m["seed"], "match": True, "options": m["options"],
                                     "moves": m["moves"][:n]})
                assert json.loads(json.dumps(g.public_view())) == state["view"], (w.table_id, n)
    finally:
        store.close()


def restart_under_play(own_pg, db_url: str, nodes: list, tables: list[str]) -> list[Watcher]:
    """Bots play ``tables``; PostgreSQL stops (``pg_ctl -m fast``) and starts again; every
    table moves on by itself; no acknowledged move is lost. The watchers (stopped)."""
    watchers = [Watcher(nodes, t) for t in tables]
    for w in watchers:
        w.start()
    try:
        wait_for(lambda: all(w.moves >= 20 for w in watchers), "every table plays")
        for n in nodes:
            assert status(n, "/readyz")[0] == 200, status(n, "/readyz")
        seen = {w.table_id: w.snapshot() for w in watchers}

        own_pg.stop_fast()
        healthy = []
        for n in nodes:     # not ready while the database is down; alive all the while
            wait_for(lambda: status(n, "/readyz")[0] == 503, "/readyz says 503",
                     every=lambda: healthy.append(status(n, "/healthz")))
            code, body = status(n, "/readyz")
            assert code == 503 and "store" in body["failed"] and body["ready"] is False, body
            assert body["checks"]["watchdog"] == "ok", body
        # the moves made meanwhile wait, tried again and again, while the database is down
        wait_for(lambda: any("failed (try 3:" in n.output.read_text() for n in nodes),
                 "a write is tried a third time")
        own_pg.start_again()
        back = {w.table_id: w.moves for w in watchers}
        for n in nodes:
            wait_for(lambda: status(n, "/readyz")[0] == 200, "/readyz says 200 again",
                     every=lambda: healthy.append(status(n, "/healthz")))
        assert healthy and all(h == (200, {"ok": True}) for h in healthy), healthy[-3:]
        # every table moves on by itself: nobody sends a move, reloads or reconnects for it
        wait_for(lambda: all(w.over or w.moves > back[w.table_id] + 5 for w in watchers),
                 "every table moves on after PostgreSQL is back")
    finally:
        for w in watchers:
            w.stop()
    check_acknowledged(db_url, watchers, seen)
    return watchers


def test_one_server_resumes_every_table_after_a_postgresql_restart(tmp_path, own_pg):
    db = own_pg.new_database("faults")
    server = Server(tmp_path, db, "--log-level", "info")
    try:
        tables = [bot_table(server, level) for level in LEVELS]
        watchers = restart_under_play(own_pg, db, [server], tables)
        assert all(w.reconnects == 0 for w in watchers)     # nothing was handed on
        log = server.output.read_text()
        assert "bots stopped" not in log
        assert "failed (try 1:" in log                       # the store tried again
    finally:
        server.stop()


def test_two_nodes_resume_every_table_after_a_postgresql_restart(tmp_path, own_pg, redis_url):
    db = own_pg.new_database("faults")
    a = Node(tmp_path, "a", db, redis_url)
    b = Node(tmp_path, "b", db, redis_url)
    try:
        tables = [bot_table(node, level) for node, level in zip((a, b, a, b, a), LEVELS)]
        restart_under_play(own_pg, db, [a, b], tables)
        for n in (a, b):
            assert "bots stopped" not in n.output.read_text()
    finally:
        a.stop()
        b.stop()


def test_a_persons_move_gets_a_clear_error_while_the_database_stays_down(tmp_path, own_pg):
    """``--store-retry-seconds 1``: a person's move the database does not take within it is
    undone and answered ``unavailable``; sent again once the database is back, it is stored.
    ``--log-format json``: every line a JSON object naming the time, the node and the table;
    the failure one record with one traceback, each try before it one warning line."""
    db = own_pg.new_database("person")
    server = Server(tmp_path, db, "--store-retry-seconds", "1", "--log-format", "json",
                    "--limit", "sweep_seconds=3600")      # no sweep fails before the move
    try:
        created = server.post("/api/tables", {"game": "zheng-shangyou/owen", "players": 2,
                                              "options": {"target": 4}, "bots": "greedy",
                                              "room": {"hints": "off"}})
        table_id = created["table_id"]
        c = Client(server, table_id, created["host_token"], "Ann")
        c.send({"type": "sit", "seat": 0})
        c.until(lambda s: s["seat"] == 0)
        c.send({"type": "bots"})
        c.send({"type": "start"})
        bot = make_bot("greedy", 1)
        s = c.until(lambda s: s["view"] is not None and s["view"]["to_act"] == 0)
        own_pg.stop_fast()
        c.send({"type": "move", "move": bot.choose(s["view"]), "version": s["version"]})
        while (m := c.recv())["type"] != "error":
            assert m["type"] != "state" or m["move_count"] == s["move_count"], m
        assert m["code"] == "unavailable" and "undone" in m["message"], m
        own_pg.start_again()
        after = c.play(bot, s)                    # the same move again: stored now
        assert after["move_count"] == s["move_count"] + 1
    finally:
        server.stop()
    lines = server.output.read_text().splitlines()
    assert lines[0].startswith("shangyou server: ")
    records = [json.loads(line) for line in lines[1:]]       # every log line is JSON
    assert records and all(r["node"] == f"{socket.gethostname()}:{server.port}" and
                           re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", r["time"])
                           for r in records)
    mine = [r for r in records if r["table"] == table_id]
    traced = [r for r in mine if "exc" in r]
    assert len(traced) == 1, traced                           # one traceback, one failure
    assert traced[0]["level"] == "ERROR" and "giving up" in traced[0]["message"]
    assert "OperationalError" in traced[0]["exc"]
    assert traced[0]["exc"].count("Traceback (most recent call last)") == 1   # not a chain
    tries = [r for r in mine if "trying again in" in r["message"]]
    assert tries and all(r["level"] == "WARNING" and "exc" not in r for r in tries)
    # anything else that failed meanwhile (a sweep of the tables) failed once, the same way
    assert all("giving up" in r["message"] for r in records if "exc" in r)


def test_readyz_of_a_node_names_redis_when_it_is_gone(tmp_path, pg_url):
    """A node of several checks Redis and its leases too: with Redis gone, ``/readyz`` says 503
    and names ``redis`` (the rest still ok); ``/healthz`` stays 200."""
    import redis_server
    binary = redis_server.find_redis_server()
    assert binary is not None, "redis-server was not found (scripts/test.sh installs it)"
    redis = redis_server.RedisServer(binary)
    redis.start()
    node = None
    try:
        node = Node(tmp_path, "a", pg_url, redis.url)
        code, body = status(node, "/readyz")
        assert code == 200 and body == {"ready": True, "checks": {
            "store": "ok", "redis": "ok", "leases": "ok", "watchdog": "ok",
            "draining": "ok"}}, body
        redis.stop_process()
        wait_for(lambda: status(node, "/readyz")[0] == 503, "/readyz says 503")
        code, body = status(node, "/readyz")
        assert body["failed"] == ["redis"] and body["checks"]["store"] == "ok", body
        assert "127.0.0.1" not in json.dumps(body)        # no address in the answer
        assert status(node, "/healthz") == (200, {"ok": True})
    finally:
        if node is not None:
            node.stop()
        redis.stop()
