"""Failures contained: one site (real PostgreSQL, Redis, nginx and two nodes) whose tables are
played without pause by clients that reconnect by themselves with the table page's rule, and
one fault after another:

1. a node killed (SIGKILL), then started again;
2. the other node paused (SIGSTOP) past its lease, then woken up;
3. Redis killed (SIGKILL), then started again (empty);
4. nginx killed (its whole process group), then started again;
5. a node stopped with SIGTERM: it drains (hands its tables on), exits, and is started again.

After each, every table is played again by itself (each client makes new moves, answered), with
no help from the test: while a node is down, paused or draining, and while Redis is down, the
other node serves every table. At the end no move any client saw answered is missing from the
database, and no match's stored log is shorter than what a client was shown.

The clients reconnect as the page does (web/static/table-connection.js): on a close, or when
nothing was heard for a while although they ping (``{"type": "ping"}``), through nginx, with a
jittered exponential backoff (at once after ``moved``; soon, without growing the backoff, after
a silent server, naming the attempt ``?via=N`` so that the proxy's hash of the table may send it
to another node), and say ``hello`` with ``since`` and ``match``.
Every wait is on a condition, with a generous overall bound; nothing is timed."""

from __future__ import annotations

import json
import os
import random
import signal
import sys
import threading
import time
import traceback
import urllib.request

import pytest
from nginx_server import NginxServer, find_nginx
from redis_server import RedisServer, find_redis_server
from sqlalchemy import create_engine, text
from test_cluster import Node
from websockets.exceptions import ConnectionClosed, WebSocketException
from websockets.sync.client import connect

from shangyou.bots.base import make_bot

pytestmark = pytest.mark.timeout(900)

TABLES = 6
PING = 1.0            # a client pings when it heard nothing for this long
SILENT = 5.0          # nothing heard for this long (pings unanswered), or no welcome this long
                      # after the socket opened (pongs or not): the socket is given up
THINK = 0.05          # seconds a client waits before its move
RECOVER = 180.0       # the overall bound of one recovery (a loaded machine: generous)
NEW_MOVES = 3         # answered moves every client makes to count as playing again


def post(url: str, body: dict) -> dict:
    req = urllib.request.Request(url, data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as r:
        return json.loads(r.read())


class Player(threading.Thread):
    """The person in seat 0 of one table (seat 1 is the server's bot): plays each turn, starts
    the next match, and reconnects by itself. ``sent``: ``[match, idx, move, answered,
    version]`` of each of its moves; answered: a newer state came on the same socket with no
    error before it (the server stores a move before it sends the state that shows it)."""

    def __init__(self, ws_base: str, table_id: str, token: str, seed: int):
        super().__init__(daemon=True, name=f"player-{table_id}")
        self.url = f"{ws_base}/ws/{table_id}"
        self.table_id = table_id
        self.token = token
        self.bot = make_bot("greedy", seed)
        self.rng = random.Random(seed)
        self.lock = threading.Lock()
        self.sent: list[list] = []
        self.seen: dict[str, int] = {}      # match -> the most moves a state showed
        self.match: str | None = None
        self.started: set = set()           # the (status, match) it asked to start
        # (phase, close code; None: dropped; "silent": given up)
        self.closes: list[tuple[str, int | str | None]] = []
        self.errors: list[tuple[str, str]] = []
        self.phase = "setup"
        self.stopping = threading.Event()
        self.failure: BaseException | None = None
        self.via = 0                        # silent servers given up since the last welcome
        self.last: dict = {}                # the last state heard: status, version, to_act, ...
        self.sessions = 0                   # sockets opened

    @property
    def answered(self) -> int:
        with self.lock:
            return sum(1 for s in self.sent if s[3])

    def run(self) -> None:
        try:
            retry = 0
            while not self.stopping.is_set():
                welcomed, code = self._session()
                if self.stopping.is_set():
                    return
                if code not in ("refused", "refused silent"):
                    self.closes.append((self.phase, code))
                if welcomed:
                    retry = 0
                    self.via = 0                  # the table's own node first
                    if code == 1012:          # moved: back at once, to any node
                        continue
                if code in ("silent", "refused silent"):   # the attempt waited long already
                    self.via += 1                 # named: the proxy may send it elsewhere
                    self.stopping.wait(self.rng.random() * 0.5)
                    continue
                ceiling = min(4.0, 0.25 * 2 ** retry)
                retry += 1
                self.stopping.wait(ceiling / 2 + self.rng.random() * ceiling / 2)
        except BaseException as e:            # noqa: BLE001 - the test fails with it
            self.failure = e

    def _session(self):
        try:
            ws = connect(self.url + (f"?via={self.via}" if self.via else ""),
                         open_timeout=SILENT, close_timeout=1, ping_interval=None,
                         max_queue=None)
        except TimeoutError:                  # a silent server (paused?): no answer
            return False, "refused silent"
        except (OSError, WebSocketException):
            return False, "refused"
        welcomed = False
        self.sessions += 1
        with ws:
            try:
                hello = {"type": "hello", "token": self.token, "name": "p"}
                if self.match:
                    hello.update(since=self.seen.get(self.match, 0), match=self.match)
                ws.send(json.dumps(hello))
                opened = heard = pinged = time.monotonic()
                pending = None
                while not self.stopping.is_set():
                    try:
                        raw = ws.recv(timeout=0.25)
                    except TimeoutError:
                        now = time.monotonic()
                        if now - (heard if welcomed else opened) > SILENT:
                            return welcomed, "silent"     # a silent server: given up
                        if now - max(heard, pinged) >= PING:
                            ws.send(json.dumps({"type": "ping", "id": 1}))
                            pinged = now
                        continue
                    heard = time.monotonic()
                    m = json.loads(raw)
                    if m["type"] == "welcome":
                        welcomed = True
                        self.started.clear()    # a start sent on a lost socket: again
                    elif m["type"] == "error":
                        self.errors.append((self.phase, m["code"]))
                        pending = None                    # its answer is unknown
                    elif m["type"] == "state":
                        pending = self._state(ws, m, pending)
            except ConnectionClosed as e:
                return welcomed, e.rcvd.code if e.rcvd else None
        return welcomed, 1000

    def _state(self, ws, m: dict, pending):
        v, info, n = m["version"], m["table"], m["move_count"]
        with self.lock:
            if pending is not None and v > self.sent[pending][4]:
                self.sent[pending][3] = True
                pending = None
        match = info.get("match_id")
        if match:
            self.match = match
            self.seen[match] = max(self.seen.get(match, 0), n)
        view = m["view"]
        self.last = {"status": info["status"], "version": v, "moves": n, "pending": pending,
                     "to_act": view and view.get("to_act"), "seat": view and view.get("seat"),
                     "phase": view and view.get("phase"), "at": round(time.monotonic(), 1)}
        key = (info["status"], match)
        if info["status"] in ("waiting", "over") and key not in self.started and \
                all(s["kind"] != "empty" for s in info["seats"]):
            self.started.add(key)
            ws.send(json.dumps({"type": "start"}))
        elif info["status"] == "playing" and view is not None and pending is None and \
                view.get("to_act") == view.get("seat") == 0 and view["phase"] != "over":
            time.sleep(THINK)
            move = self.bot.choose(view)
            with self.lock:
                self.sent.append([match, n, move, False, v])
                pending = len(self.sent) - 1
            ws.send(json.dumps({"type": "move", "move": move, "version": v}))
        return pending


def make_table(base: str, ws_base: str) -> tuple[str, str]:
    """A table through nginx: its host sits in seat 0, a bot in seat 1."""
    made = post(base + "/api/tables", {"game": "zheng-shangyou/owen", "players": 2,
                                       "options": {"target": 4}, "bots": "greedy",
                                       "room": {"hints": "off", "grace": 3600}})
    table_id, token = made["table_id"], made["host_token"]
    with connect(f"{ws_base}/ws/{table_id}", open_timeout=60, ping_interval=None) as ws:
        def until(ok):
            while True:
                m = json.loads(ws.recv(timeout=60))
                assert m["type"] != "error", m
                if ok(m):
                    return m
        ws.send(json.dumps({"type": "hello", "token": token, "name": "p"}))
        until(lambda m: m["type"] == "welcome")
        ws.send(json.dumps({"type": "sit", "seat": 0}))
        until(lambda m: m["type"] == "welcome" and m["seat"] == 0)
        ws.send(json.dumps({"type": "bots"}))
        until(lambda m: m["type"] == "state"
              and all(s["kind"] != "empty" for s in m["table"]["seats"]))
    return table_id, token


class Site:
    """PostgreSQL (the session's server, a database of this test), Redis, two nodes and nginx."""

    def __init__(self, tmp_path, postgres):
        binary, nginx = find_redis_server(), find_nginx()
        if binary is None or nginx is None:
            pytest.fail("redis-server and nginx are needed (Debian: apt-get install "
                        "redis-server nginx; scripts/test.sh does)", pytrace=False)
        self.tmp_path = tmp_path
        self.db = postgres.new_database(os.environ.get("PYTEST_XDIST_WORKER", "main"))
        self.redis = RedisServer(binary)
        self.nodes: dict[str, Node] = {}
        self.nginx: NginxServer | None = None
        self.redis.start()
        for name in ("a", "b"):
            self.nodes[name] = self._node(name)
        self.nginx = NginxServer(nginx, [n.port for n in self.nodes.values()])
        self.nginx.start()
        self.base = self.nginx.base
        self.ws_base = "ws" + self.base[len("http"):]

    def _node(self, name: str, port: int | None = None) -> Node:
        return Node(self.tmp_path, name, self.db, self.redis.url, "--bot-delay", "0.05",
                    port=port)

    def restart(self, name: str) -> Node:
        """The node started again on its port (its earlier log kept beside)."""
        old = self.nodes[name]
        old.out.close()
        n = sum(1 for _ in self.tmp_path.glob(f"node-{name}.*.log"))
        old.output.rename(self.tmp_path / f"node-{name}.{n}.log")
        self.nodes[name] = self._node(name, old.port)
        return self.nodes[name]

    def logs(self, name: str) -> str:
        return "".join(p.read_text() for p in sorted(self.tmp_path.glob(f"node-{name}*.log")))

    def close(self) -> None:
        for n in self.nodes.values():
            n.stop()
        if self.nginx is not None:
            self.nginx.stop()
        self.redis.stop()


@pytest.fixture
def site(tmp_path, postgres):
    s = Site(tmp_path, postgres)
    yield s
    s.close()


def playing_again(players: list[Player], phase: str) -> float:
    """Wait until every client has made NEW_MOVES more answered moves; the seconds it took."""
    for p in players:
        p.phase = phase
    marks = {p: p.answered for p in players}
    t0 = time.monotonic()
    while True:
        failed = [p.failure for p in players if p.failure is not None]
        assert not failed, failed
        behind = [p.table_id for p in players if p.answered < marks[p] + NEW_MOVES]
        if not behind:
            return time.monotonic() - t0
        assert time.monotonic() - t0 < RECOVER, \
            f"{phase}: tables not played again within {RECOVER:g} s: {behind}; " \
            f"now {round(time.monotonic(), 1)}; " + "; ".join(
                f"{p.table_id}: errors {p.errors[-3:]}, closes {p.closes[-4:]}, "
                f"{p.sessions} sockets, via {p.via}, answered {p.answered - marks[p]}, "
                f"last state {p.last}; where its thread is:\n{_where(p)}"
                for p in players if p.table_id in behind)
        time.sleep(0.1)


def _where(t: threading.Thread) -> str:
    """The stack of a running thread, its innermost frames last."""
    frame = sys._current_frames().get(t.ident or -1)
    return "".join(traceback.format_stack(frame)[-6:]) if frame is not None else "(not running)"


def check_store(db: str, players: list[Player]) -> dict:
    """Every answered move is stored at its place (seat 0, its text, made by the person);
    every match's stored log is as long as any client saw."""
    engine = create_engine(db)
    try:
        with engine.connect() as c:
            rows = c.execute(text("SELECT match_id, idx, seat, text, actor FROM moves")).all()
    finally:
        engine.dispose()
    stored = {(r[0], r[1]): (r[2], r[3], r[4]) for r in rows}
    counts: dict[str, int] = {}
    for m, _ in stored:
        counts[m] = counts.get(m, 0) + 1
    out = {"answered": 0, "lost": [], "shorter": []}
    for p in players:
        for match, idx, move, answered, _ in p.sent:
            if answered:
                out["answered"] += 1
                if stored.get((match, idx)) != (0, move, None):
                    out["lost"].append((p.table_id, match, idx, move, stored.get((match, idx))))
        for match, n in p.seen.items():
            if counts.get(match, 0) < n:
                out["shorter"].append((p.table_id, match, n, counts.get(match, 0)))
    return out


def test_every_table_plays_on_through_each_fault(site):
    players = []
    for i in range(TABLES):
        table_id, token = make_table(site.base, site.ws_base)
        players.append(Player(site.ws_base, table_id, token, seed=i))
    for p in players:
        p.start()
    took: dict[str, float] = {}
    try:
        took["start"] = playing_again(players, "start")
        a, b = site.nodes["a"], site.nodes["b"]

        # 1. a node dies: the other serves every table meanwhile; the node comes back
        a.signal(signal.SIGKILL)
        a.proc.wait(60)
        took["a killed"] = playing_again(players, "a killed")
        a = site.restart("a")
        took["a back"] = playing_again(players, "a back")

        # 2. the other node paused past its lease: its clients hear nothing (they give their
        # sockets up), its tables go to a; woken up, it tells its clients to move
        b.signal(signal.SIGSTOP)
        took["b paused"] = playing_again(players, "b paused")
        b.signal(signal.SIGCONT)
        took["b woken"] = playing_again(players, "b woken")
        deadline = time.monotonic() + RECOVER
        while "no longer run here" not in site.logs("b"):
            assert time.monotonic() < deadline, site.logs("b")[-3000:]
            time.sleep(0.1)

        # 3. Redis dies: the sockets that span nodes move, to the node that runs their table
        site.redis.kill()
        took["Redis down"] = playing_again(players, "Redis down")
        site.redis.restart()
        took["Redis back"] = playing_again(players, "Redis back")
        for name in ("a", "b"):
            assert "Redis is out of reach" in site.logs(name), name

        # 4. nginx dies (nobody reaches the site), and is started again
        site.nginx.kill()
        for p in players:
            p.phase = "nginx down"
        site.nginx.start()
        took["nginx back"] = playing_again(players, "nginx back")

        # 5. a node drains on SIGTERM: its tables handed on, its clients told to move; it exits
        for p in players:
            p.phase = "drain"
        a.signal(signal.SIGTERM)
        assert a.proc.wait(120) is not None
        log = site.logs("a")
        assert "tables handed on" in log and "drained in" in log, log[-3000:]
        took["a drained"] = playing_again(players, "a drained")
        drained = [(p.table_id, code) for p in players for phase, code in p.closes
                   if phase == "drain"]
        # every socket of the draining node was closed by it, telling its client to move
        assert all(code == 1012 for _, code in drained), (drained, log[-3000:],
                                                          site.logs("b")[-3000:])
        site.restart("a")
        took["a back after drain"] = playing_again(players, "a back after drain")
    except AssertionError as e:             # what the nodes said of the tables left behind
        said = [f"{name}: {line}" for name in site.nodes for line in site.logs(name).splitlines()
                if any(p.table_id in line and p.table_id in str(e) for p in players)]
        raise AssertionError(f"{e}\nthe nodes' log lines on them:\n" + "\n".join(said[-40:])) \
            from None
    finally:
        for p in players:
            p.stopping.set()
        for p in players:
            p.join(30)
    assert all(p.failure is None for p in players), [p.failure for p in players]
    checked = check_store(site.db, players)
    assert checked["answered"] > TABLES * NEW_MOVES * len(took)
    assert not checked["lost"], checked["lost"][:5]
    assert not checked["shorter"], checked["shorter"][:5]
    print("seconds until every table was played again:",
          {k: round(v, 1) for k, v in took.items()}, f"; {checked['answered']} moves answered")
