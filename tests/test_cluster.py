"""Several nodes: real server processes on one real PostgreSQL database (tests/pg_server.py)
and one real Redis server (tests/redis_server.py). Two players on different nodes play one
table to the end with a spectator watching; the owner is killed (SIGKILL) mid-hand and another
node takes over with no move lost; the owner is paused (SIGSTOP) past its lease and, woken up,
cannot write. Every wait is on a condition, with a generous overall timeout."""

from __future__ import annotations

import contextlib
import json
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request

import pytest
from websockets.sync.client import connect

import shangyou
from shangyou.bots.base import make_bot
from shangyou.fairness import moves_chain
from shangyou.server.rows import NodeRow
from shangyou.server.store import Store

pytestmark = pytest.mark.timeout(240)

LEASE = 4.0           # the nodes' lease in these tests (seconds): the default
WAIT = 60.0           # the overall bound of any one wait


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Node:
    """One server process, a node of several."""

    def __init__(self, tmp_path, name: str, db: str, redis: str, *args: str,
                 port: int | None = None):
        self.name = name
        self.port = port or free_port()        # a node started again keeps its port
        self.base = f"http://127.0.0.1:{self.port}"
        self.output = tmp_path / f"node-{name}.log"
        self.out = open(self.output, "w")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "shangyou.server", "--port", str(self.port),
             "--data", str(tmp_path / f"data-{name}"), "--db", db, "--redis", redis,
             "--node-id", name, "--lease-seconds", str(LEASE), "--bot-delay", "0", *args],
            stdout=self.out, stderr=subprocess.STDOUT, text=True)
        self.wait_up("the node")
        lines = self.output.read_text().splitlines()
        assert lines[1].startswith(f"node {name} of several"), lines

    def wait_up(self, what: str) -> None:
        """Wait until the process answers ``/healthz`` (it must not exit meanwhile)."""
        deadline = time.monotonic() + WAIT
        while True:
            try:
                if self.get("/healthz") == {"ok": True}:
                    return
            except OSError:
                pass
            assert self.proc.poll() is None, self.output.read_text()
            assert time.monotonic() < deadline, f"{what} did not start"
            time.sleep(0.05)

    def get(self, path):
        with urllib.request.urlopen(self.base + path, timeout=10) as r:
            return json.loads(r.read())

    def post(self, path, body):
        req = urllib.request.Request(self.base + path, data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=10) as r:
            return json.loads(r.read())

    def ws(self, table_id):
        return connect(f"ws://127.0.0.1:{self.port}/ws/{table_id}", open_timeout=WAIT,
                       max_queue=None, ping_interval=None)

    def signal(self, sig):
        self.proc.send_signal(sig)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGCONT)
            self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.out.close()


@pytest.fixture
def nodes(tmp_path, pg_url, redis_url):
    started: list[Node] = []

    def start(name, *args):
        """A node named ``name``; ``args``: more options of its command line."""
        started.append(Node(tmp_path, name, pg_url, redis_url, *args))
        return started[-1]

    yield start
    for n in started:
        n.stop()


class Client:
    """One socket with everything it received; ``seat`` None: a spectator."""

    def __init__(self, node: Node, table_id: str, token: str | None = None, name="guest"):
        self.table_id = table_id
        self.token = token
        self.name = name
        self.seat = None
        self.states: list[dict] = []
        self.errors: list[dict] = []
        self.close_code = None
        self.sockets = contextlib.ExitStack()
        self.open(node)

    def open(self, node: Node, since: int | None = None, match: str | None = None):
        self.ws = self.sockets.enter_context(node.ws(self.table_id))
        hello = {"type": "hello", "name": self.name}
        if self.token:
            hello["token"] = self.token
        if since is not None:
            hello.update(since=since, match=match)
        self.ws.send(json.dumps(hello))
        welcome = self.recv()
        assert welcome["type"] == "welcome", welcome
        self.seat = welcome["seat"]
        self.token = welcome["token"] or self.token
        return welcome

    def recv(self, timeout=WAIT) -> dict:
        m = json.loads(self.ws.recv(timeout=timeout))
        if m["type"] == "state":
            self.states.append(m)
        elif m["type"] == "welcome":
            self.seat = m["seat"]
            self.token = m["token"] or self.token
        elif m["type"] == "error":
            self.errors.append(m)
        return m

    def send(self, msg: dict):
        self.ws.send(json.dumps(msg))

    def until(self, pred, timeout=WAIT) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            try:
                m = self.recv(max(0.1, deadline - time.monotonic()))
            except TimeoutError:
                last = [(x["version"], x["move_count"], x["view"] and x["view"]["to_act"])
                        for x in self.states[-5:]]
                raise AssertionError(f"seat {self.seat}: no such state within {timeout} s; "
                                     f"errors {self.errors[-3:]}; last states (version, "
                                     f"moves, to act) {last}") from None
            if m["type"] == "state" and pred(m):
                return m

    def closed_code(self, timeout=WAIT) -> int:
        """Read until the server closes this socket; its close code."""
        from websockets.exceptions import ConnectionClosed
        deadline = time.monotonic() + timeout
        try:
            while True:
                self.recv(max(0.1, deadline - time.monotonic()))
        except ConnectionClosed as e:
            self.close_code = e.rcvd.code if e.rcvd else None
            return self.close_code

    def play(self, bot, state: dict) -> dict:
        """This seat's move at ``state`` (sent again after a pause when the server says the
        client sends too fast: bots move faster than the 20 messages a second of a person);
        the state that follows it."""
        while True:
            self.send({"type": "move", "move": bot.choose(state["view"]),
                       "version": state["version"]})
            while True:
                m = self.recv()
                if m["type"] == "state" and m["version"] > state["version"] \
                        and m["view"] is not None:
                    return m
                if m["type"] == "error":
                    assert m["code"] == "rate_limited", m
                    self.errors.pop()
                    time.sleep(0.06)
                    break

    @property
    def last(self) -> dict:
        return self.states[-1]


def over(s) -> bool:
    return s["view"] is not None and s["view"]["phase"] == "over"


def turn_of(seat):
    return lambda s: s["view"] is not None and (over(s) or s["view"]["to_act"] == seat)


def new_table(node: Node, **room) -> tuple[str, str]:
    created = node.post("/api/tables", {"game": "zheng-shangyou/owen", "players": 2,
                                        "options": {"target": 4}, "bots": "greedy",
                                        "room": {"hints": "off", **room}})
    return created["table_id"], created["host_token"]


def seat_two(host_node: Node, other_node: Node, table_id: str, host_token: str):
    """The host sits in seat 0 on one node, a second person in seat 1 on the other."""
    host = Client(host_node, table_id, host_token, "Ann")
    host.recv()
    host.send({"type": "sit", "seat": 0})
    assert host.recv()["type"] == "welcome"
    guest = Client(other_node, table_id, name="Bo")
    guest.recv()
    guest.send({"type": "sit", "seat": 1, "name": "Bo"})
    w = guest.recv()
    assert w["type"] == "welcome" and w["seat"] == 1, w
    return host, guest


def move(client: Client, bot, state: dict):
    client.send({"type": "move", "move": bot.choose(state["view"]),
                 "version": state["version"]})


def at_least(c: Client, version: int) -> dict:
    """The client's state of at least ``version`` (read until it comes)."""
    if c.states and c.last["version"] >= version and c.last["view"] is not None:
        return c.last
    return c.until(lambda s: s["version"] >= version and s["view"] is not None)


def play_turns(players: dict, bots: dict, stop) -> dict:
    """The seated clients make their moves in turn (each acts on its own latest state) until
    the match is over or ``stop`` (of the latest state) holds; the latest state."""
    state = at_least(players[0], 0)
    while not (over(state) or stop(state)):
        seat = state["view"]["to_act"]
        c = players[seat]
        state = c.play(bots[seat], at_least(c, state["version"]))
    return state


def check_views(client: Client, log: dict):
    """Every state the client got shows the view the one-node server gives of that moment:
    the engine's view of the seat (a spectator's: the public view) after that many moves, and
    the running hash of those moves (docs/fairness.md)."""
    assert client.states
    chain = moves_chain(log["seed"], log["moves"])
    for s in client.states:
        if s["view"] is None:
            continue
        assert s["moves_hash"] == chain[s["move_count"]], (client.seat, s["move_count"])
        g = shangyou.replay({**log, "moves": log["moves"][:s["move_count"]]})
        want = g.public_view() if client.seat is None else g.view(client.seat)
        assert s["view"] == json.loads(json.dumps(want)), (client.seat, s["move_count"])


def finished_log(node: Node, match_id: str) -> dict:
    m = node.get(f"/api/matches/{match_id}")
    g = shangyou.replay(m["log"])               # the final log replays
    assert g.over and json.loads(json.dumps(g.result, default=list)) == m["result"]
    assert node.get(f"/api/matches/{match_id}/verify")["ok"] is True
    return m["log"]


def test_two_nodes_play_one_table_with_a_spectator(nodes):
    a, b = nodes("a"), nodes("b")
    table_id, token = new_table(a)
    host, guest = seat_two(a, b, table_id, token)
    spectator = Client(b, table_id, name="Cy")
    assert spectator.seat is None
    lobby = a.get("/api/tables")                       # either node's lobby is the database's
    assert lobby == b.get("/api/tables")
    assert [(t["table_id"], t["status"], [x["name"] for x in t["seats"]])
            for t in lobby["tables"]] == [(table_id, "waiting", ["Ann", "Bo"])]
    host.send({"type": "start"})
    bots = {0: make_bot("greedy", 1), 1: make_bot("greedy", 2)}

    failures: list[BaseException] = []

    def player(seat, c):
        try:
            s = c.until(lambda s: s["view"] is not None)
            while not over(s):
                if s["view"]["to_act"] == seat:
                    s = c.play(bots[seat], s)
                else:
                    s = c.until(lambda x, v=s["version"]: x["version"] > v)
        except BaseException as e:      # noqa: BLE001 - the test fails with it below
            failures.append(e)

    threads = [threading.Thread(target=player, args=(0, host)),
               threading.Thread(target=player, args=(1, guest))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(WAIT * 3)
        assert not t.is_alive()
    assert not failures, failures
    final = spectator.until(over)
    assert not host.errors and not guest.errors and not spectator.errors
    n = final["move_count"]
    # every client saw every move: one state a move, in order, on either node
    for c in (host, guest, spectator):
        counts = [s["move_count"] for s in c.states if s["view"] is not None]
        assert counts == sorted(counts) and set(range(1, n + 1)) <= set(counts)
    assert a.get("/api/matches") == b.get("/api/matches")       # both read the database
    log = finished_log(b, final["table"]["match_id"])
    assert len(log["moves"]) == n
    for c in (host, guest, spectator):
        check_views(c, log)


def test_killed_owner_another_node_takes_over_and_no_move_is_lost(nodes):
    a, b = nodes("a"), nodes("b")
    table_id, token = new_table(a)                      # a runs the table
    host, guest = seat_two(a, b, table_id, token)
    spectator = Client(b, table_id, name="Cy")
    host.send({"type": "start"})
    bots = {0: make_bot("greedy", 1), 1: make_bot("greedy", 2)}
    s = play_turns({0: host, 1: guest}, bots, lambda s: s["move_count"] >= 8)
    assert not over(s)
    acknowledged = s["move_count"]                     # moves every client was told of
    match_id = s["table"]["match_id"]
    killed = time.monotonic()
    a.signal(signal.SIGKILL)
    a.proc.wait(WAIT)
    # the clients on b are told to reconnect; the host's socket to a is simply gone
    assert guest.closed_code() == 1012 and spectator.closed_code() == 1012
    assert guest.errors[-1]["code"] == "moved"
    welcome = host.open(b, since=acknowledged, match=match_id)   # to any node: b
    took_over = time.monotonic() - killed
    assert welcome["seat"] == 0
    guest.open(b, since=acknowledged, match=match_id)
    spectator.open(b, since=acknowledged, match=match_id)
    back = host.until(lambda s: s["view"] is not None)
    assert back["move_count"] == acknowledged           # no move lost
    s = play_turns({0: host, 1: guest}, bots, lambda s: False)
    assert over(s)
    log = finished_log(b, match_id)
    spectator.until(over)
    # the views every client had before the kill are those of the final log's first moves
    for c in (host, guest, spectator):
        assert any(m["view"] is not None and m["move_count"] == acknowledged
                   for m in c.states)
        check_views(c, log)
    print(f"takeover after SIGKILL: {took_over:.2f} s (lease {LEASE} s)")


def epoch_of(url: str, node: str) -> int | None:
    """``node``'s current epoch, from its row in ``nodes``."""
    st = Store(url)
    try:
        with st.session() as s:
            return s.get(NodeRow, node).epoch
    finally:
        st.close()


def test_paused_owner_cannot_write_when_it_wakes(nodes, pg_url):
    a, b = nodes("a"), nodes("b")
    table_id, token = new_table(a)
    host, guest = seat_two(a, b, table_id, token)
    host.send({"type": "start"})
    bots = {0: make_bot("greedy", 1), 1: make_bot("greedy", 2)}
    s = play_turns({0: host, 1: guest}, bots,
                   lambda s: s["move_count"] >= 4 and s["view"]["to_act"] == 0)
    assert not over(s) and s["view"]["to_act"] == 0
    stored = s["move_count"]
    match_id = s["table"]["match_id"]
    epoch = epoch_of(pg_url, "a")
    a.signal(signal.SIGSTOP)
    move(host, bots[0], at_least(host, s["version"]))   # to the paused owner: it waits
    # the lease runs out; b's client is told to reconnect; b takes the table over
    assert guest.closed_code() == 1012 and guest.errors[-1]["code"] == "moved"
    guest.open(b, since=stored, match=match_id)
    back = guest.until(lambda s: s["view"] is not None)
    assert back["move_count"] == stored and back["version"] > s["version"]   # the fence
    a.signal(signal.SIGCONT)
    # woken up, a runs the move it was sent: its write is refused, its client told to go
    assert host.closed_code() == 1012
    assert host.errors and host.errors[-1]["code"] == "moved"
    assert not any(m["move_count"] > stored for m in host.states if m["view"] is not None)
    deadline = time.monotonic() + WAIT
    while "no longer run here" not in a.output.read_text() \
            or f"this node's lease ran out (epoch {epoch})" not in a.output.read_text():
        assert time.monotonic() < deadline, a.output.read_text()
        time.sleep(0.05)
    assert a.proc.poll() is None                       # it lives on, without the table,
    assert epoch_of(pg_url, "a") == epoch + 1          # in a new epoch (the old one is over)
    host.open(b, since=stored, match=match_id)
    assert host.until(lambda s: s["view"] is not None)["move_count"] == stored
    s = play_turns({0: host, 1: guest}, bots, lambda s: False)
    log = finished_log(b, match_id)
    assert len(log["moves"]) == s["move_count"]
    for c in (host, guest):
        check_views(c, log)
