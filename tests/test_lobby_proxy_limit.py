"""A lobby flood stops at the proxy: the real nginx of ``scripts/cluster.sh``
(tests/nginx_server.py, its ``limit_req`` of the lobby's reads per client address) in front of
a real node. One address floods ``GET /api/tables`` and ``/api/matches``: past the burst nginx
itself answers 429 with the server's JSON error (``rate_limited``), and lets through no more
than its rate allows, while a table played through the same proxy from the same address goes
on and the address's other requests are served; a lobby polling from another address at ten
times the lobby page's pace is never refused. The node's own lobby limit is raised out of the
way, so every refusal counted here is nginx's (the server never limits ``/api/matches``).
Counts only: every wait is on a condition, with a generous overall timeout."""

from __future__ import annotations

import http.client
import json
import re
import threading
import time

import pytest
from nginx_server import CONF, NginxServer, find_nginx
from test_cluster import nodes  # noqa: F401 - the fixture
from test_cluster import WAIT, at_least, new_table, over, play_turns, seat_two
from test_cluster_affinity import Proxy

from shangyou.bots.base import make_bot

pytestmark = pytest.mark.timeout(300)

RATE = int(re.search(r"zone=shangyou_lobby:\w+ rate=(\d+)r/s;", CONF).group(1))
BURST = int(re.search(r"limit_req zone=shangyou_lobby burst=(\d+) nodelay;", CONF).group(1))
LOBBY = ("/api/tables?offset=0&limit=50", "/api/matches")


class Http:
    """GETs on one kept-alive connection to the proxy from ``source`` (an address of the
    loopback network: each its own client to nginx), opened again when nginx closes it."""

    def __init__(self, port: int, source: str = "127.0.0.1"):
        self.port, self.source = port, source
        self.conn = self._open()

    def _open(self) -> http.client.HTTPConnection:
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=WAIT,
                                          source_address=(self.source, 0))

    def get(self, path: str) -> tuple[int, str, bytes]:
        for attempt in range(3):
            try:
                self.conn.request("GET", path)
                r = self.conn.getresponse()
                return r.status, r.getheader("Content-Type", ""), r.read()
            except (http.client.HTTPException, ConnectionError):
                self.conn.close()               # (nginx's keepalive_requests reached)
                self.conn = self._open()
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")


class Flood(threading.Thread):
    """The lobby's two reads from one address, again 5 ms after each pair's answers (up to
    400 a second, as the flood of docs/benchmarks-cluster.md), until :meth:`finish`; every
    answer's route, status, type and body."""

    def __init__(self, port: int):
        super().__init__(daemon=True)
        self.port = port
        self.answers: list[tuple[str, int, str, bytes]] = []
        self.refused = threading.Event()
        self.done = threading.Event()
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            http_ = Http(self.port)
            self.started = time.monotonic()
            while not self.done.is_set():
                for path in LOBBY:
                    status, kind, body = http_.get(path)
                    self.answers.append((path, status, kind, body))
                    if status == 429:
                        self.refused.set()
                time.sleep(0.005)
            self.ended = time.monotonic()
        except BaseException as e:              # noqa: BLE001 - reported by the test
            self.error = e
            self.refused.set()

    def finish(self) -> None:
        self.done.set()
        self.join(WAIT)
        assert not self.is_alive() and self.error is None, self.error


def test_a_lobby_flood_is_refused_by_the_proxy_while_moves_and_a_lobby_go_on(nodes):
    binary = find_nginx()
    if binary is None:
        pytest.fail("nginx is needed (Debian: apt-get install nginx; scripts/test.sh does)",
                    pytrace=False)
    node = nodes("a", "--limit", "lobby_reads_per_minute_address=1000000")
    nginx = NginxServer(binary, [node.port])
    nginx.start()
    flood = Flood(nginx.port)
    players = []
    try:
        proxy = Proxy(nginx)
        table_id, token = new_table(proxy)      # a POST of /api/tables: not a lobby read
        host, guest = players = seat_two(proxy, proxy, table_id, token)
        host.send({"type": "start"})
        bots = {0: make_bot("greedy", 1), 1: make_bot("greedy", 2)}
        at_least(host, 0)
        flood.start()
        assert flood.refused.wait(2 * WAIT) and flood.error is None, flood.error

        # while the flood goes on: a lobby polling from another address, two reads each
        # round as the lobby page asks them, rounds at least 0.5 s apart (the page: 5 s), so
        # never faster than nginx's rate; more reads than the burst in all
        polled: list[int] = []

        def poll() -> None:
            lobby = Http(nginx.port, "127.0.0.2")
            for _ in range(BURST // 2 + 2):
                polled.extend(lobby.get(path)[0] for path in LOBBY)
                time.sleep(2 / RATE)

        poller = threading.Thread(target=poll, daemon=True)
        poller.start()
        # ... the table's moves through the same proxy, from the flooding address
        s = play_turns({0: host, 1: guest}, bots, lambda s: s["move_count"] >= 8)
        assert over(s) or s["move_count"] >= 8
        # ... and that address's other requests
        presets = Http(nginx.port).get("/api/presets")
        assert presets[0] == 200 and json.loads(presets[2]), presets
        poller.join(3 * WAIT)
        assert not poller.is_alive()
        assert flood.is_alive()                 # the flood lasted through all of it
        flood.finish()
    finally:
        flood.done.set()
        for c in players:                       # (nginx's graceful stop waits for sockets)
            c.sockets.close()
        nginx.stop()

    assert polled == [200] * (2 * (BURST // 2 + 2))
    refused = [a for a in flood.answers if a[1] == 429]
    served = [a for a in flood.answers if a[1] != 429]
    assert {a[1] for a in served} == {200}
    for path, _, kind, body in refused:         # the server's error, in its JSON
        assert kind == "application/json"
        error = json.loads(body)
        assert error["code"] == "rate_limited" and error["message"] == error["detail"]
    # both reads refused, /api/matches too, which the node never limits: nginx refused them
    assert {a[0] for a in refused} == set(LOBBY)
    # and nginx let through no more than its burst and its rate over the flood's time (+1:
    # the first request; +1: nginx's clock, read once an event loop turn)
    elapsed = flood.ended - flood.started
    assert len(served) <= BURST + 2 + RATE * elapsed, (len(served), len(refused), elapsed)
