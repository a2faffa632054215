"""Table affinity: the real nginx of ``scripts/cluster.sh`` (tests/nginx_server.py) hashes each
table's sockets to one node, and the table's ownership follows them (server/cluster.py,
``--affinity``). Three real nodes on one PostgreSQL database and one Redis server: tables made
on one node move, with their first socket, to the node the proxy sends their sockets to, and
no socket of theirs is relayed; when that node is killed, the table's sockets go to the next
node of the hash ring, which takes the table over, and new sockets land there, not relayed.
Every wait is on a condition, with a generous overall timeout."""

from __future__ import annotations

import re
import signal
import time

import pytest
from nginx_server import NginxServer, find_nginx
from sqlalchemy import create_engine, text
from test_cluster import nodes  # noqa: F401 - the fixture
from test_cluster import (WAIT, Client, Node, at_least, check_views, finished_log, new_table,
                          over, play_turns)
from websockets.exceptions import ConnectionClosed

from shangyou.bots.base import make_bot

pytestmark = pytest.mark.timeout(300)


class Proxy:
    """nginx in front of the nodes, as a :class:`Client` opens a node."""

    get, post, ws = Node.get, Node.post, Node.ws

    def __init__(self, nginx: NginxServer):
        self.port = nginx.port
        self.base = nginx.base


def relayed(node: Node, table_id: str) -> int:
    """How many of ``table_id``'s sockets ``node`` relayed to another node (its log)."""
    return len(re.findall(rf"table {table_id}: a socket relayed", node.output.read_text()))


def reopen(c: Client, proxy: Proxy, since: int, match: str) -> dict:
    """Reconnect through the proxy until a node serves the table (a node may tell the client
    to move, or close, while the table's owner changes)."""
    deadline = time.monotonic() + 2 * WAIT
    while True:
        try:
            return c.open(proxy, since=since, match=match)
        except (AssertionError, ConnectionClosed, OSError, TimeoutError):
            assert time.monotonic() < deadline, c.errors[-3:]
            time.sleep(0.2)


def test_a_tables_sockets_land_on_its_owner_and_on_the_next_when_it_dies(nodes, pg_url):
    binary = find_nginx()
    if binary is None:
        pytest.fail("nginx is needed (Debian: apt-get install nginx; scripts/test.sh does)",
                    pytrace=False)
    ns = {name: nodes(name, "--affinity", "--log-level", "info") for name in ("a", "b", "c")}
    nginx = NginxServer(binary, [n.port for n in ns.values()])
    nginx.start()
    db = create_engine(pg_url)
    try:
        proxy = Proxy(nginx)

        def owner(table_id: str) -> str | None:
            with db.connect() as conn:
                return conn.execute(text("SELECT owner FROM tables WHERE id = :id"),
                                    {"id": table_id}).scalar()

        # tables made on node a: each one's host opens it through the proxy; those whose
        # sockets hash to another node are handed over to it with that first socket (ten
        # tables, a minute's allowance of one address: all ten hash to a once in 59,000)
        for _ in range(10):
            table_id, token = new_table(ns["a"])
            host = Client(proxy, table_id, token, "Ann")
            host.recv()
            if owner(table_id) != "a":
                break
            host.ws.close()
        home = owner(table_id)
        assert home in ("b", "c"), home
        assert f"table {table_id}: handed over to node {home}" in ns["a"].output.read_text()
        host.send({"type": "sit", "seat": 0})
        assert host.recv()["type"] == "welcome"
        guest = Client(proxy, table_id, name="Bo")
        guest.recv()
        guest.send({"type": "sit", "seat": 1, "name": "Bo"})
        assert guest.recv()["seat"] == 1
        spectator = Client(proxy, table_id, name="Cy")
        host.send({"type": "start"})
        bots = {0: make_bot("greedy", 1), 1: make_bot("greedy", 2)}
        s = play_turns({0: host, 1: guest}, bots, lambda s: s["move_count"] >= 6)
        assert not over(s)
        # every socket of the table landed on its owner: none was relayed
        assert owner(table_id) == home
        assert sum(relayed(n, table_id) for n in ns.values()) == 0

        # its node dies: the proxy sends the sockets to the next node of the ring, which
        # takes the table over (no move lost)
        acknowledged, match_id = s["move_count"], s["table"]["match_id"]
        ns[home].signal(signal.SIGKILL)
        ns[home].proc.wait(WAIT)
        for c in (host, guest, spectator):
            reopen(c, proxy, acknowledged, match_id)
        back = host.until(lambda s: s["view"] is not None)
        assert back["move_count"] == acknowledged
        heir = owner(table_id)
        assert heir in set(ns) - {home}, heir
        before = {name: relayed(n, table_id) for name, n in ns.items() if name != home}
        s = play_turns({0: host, 1: guest}, bots,
                       lambda s: s["move_count"] >= acknowledged + 4)
        late = Client(proxy, table_id, name="Di")       # a new socket, after the takeover
        late.until(lambda s: s["view"] is not None)
        assert owner(table_id) == heir
        assert {name: relayed(n, table_id) for name, n in ns.items() if name != home} == before
        for c in (host, guest):             # both read up to the last move before playing on
            at_least(c, s["version"])
        s = play_turns({0: host, 1: guest}, bots, lambda s: False)
        assert over(s)
        spectator.until(over)
        log = finished_log(ns[heir], match_id)
        for c in (host, guest, spectator):
            check_views(c, log)
        print(f"table {table_id}: on node {home}, then on {heir}; sockets relayed after the "
              f"takeover: {before}")
    finally:
        nginx.stop()
        db.dispose()
