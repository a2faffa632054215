"""A rated seat taken through a node that does not run the table: the node that holds the
socket (its gateway) sends the session cookie's hash with the socket, and the table's owner
looks the account up itself, so the seat is taken on the owner under the account's name; a
guest's socket relayed the same way is refused as on the owner. Real nodes, PostgreSQL and
Redis (the fixtures of tests/test_cluster.py), no affinity: the sockets are relayed."""

from __future__ import annotations

import json
import urllib.request

from websockets.sync.client import connect

from shangyou.server.accounts import COOKIE
from test_cluster import WAIT, Client, nodes  # noqa: F401 - the fixture

PW = "a long enough password"


class _CookieNode:
    """A node whose sockets carry a logged-in browser's session cookie."""

    def __init__(self, node, cookie: str):
        self.node, self.cookie = node, cookie

    def ws(self, table_id):
        return connect(f"ws://127.0.0.1:{self.node.port}/ws/{table_id}", open_timeout=WAIT,
                       max_queue=None, ping_interval=None,
                       additional_headers={"Cookie": f"{COOKIE}={self.cookie}"})


def _sign_up(node, username: str) -> str:
    req = urllib.request.Request(node.base + "/api/account/signup",
                                 data=json.dumps({"username": username,
                                                  "password": PW}).encode(),
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        cookies = [v for k, v in r.getheaders() if k.lower() == "set-cookie"]
    return next(c.split(";")[0].split("=", 1)[1] for c in cookies
                if c.startswith(COOKIE + "="))


def test_a_rated_seat_through_another_node_is_taken_on_the_owner(nodes):
    a, b = nodes("a"), nodes("b")
    ann = _sign_up(b, "ann")                        # logged in through node b
    created = a.post("/api/tables", {"game": "zheng-shangyou/owen", "players": 2,
                                     "options": {"target": 4},
                                     "room": {"hints": "off", "rated": True}})
    table_id = created["table_id"]                  # node a runs it
    guest = Client(b, table_id, name="someone")     # relayed to a, no account
    guest.recv()
    guest.send({"type": "sit", "seat": 0, "name": "ann"})
    m = guest.recv()
    while m["type"] != "error":
        m = guest.recv()
    assert m["code"] == "account_required", m
    player = Client(_CookieNode(b, ann), table_id, name="typed")     # relayed, logged in
    player.recv()
    player.send({"type": "sit", "seat": 1, "name": "typed"})
    w = player.recv()
    while w["type"] != "welcome":
        assert w["type"] != "error", w
        w = player.recv()
    assert w["seat"] == 1
    s = player.until(lambda s: s["table"]["seats"][1]["kind"] == "human")
    assert s["table"]["seats"][1]["name"] == "ann"  # the account's name, looked up on a
    # both sockets were relayed: node b their gateway, node a the owner that seated them
    for node, kind in ((b, "gateway"), (a, "remote")):
        with urllib.request.urlopen(node.base + "/metrics", timeout=10) as r:
            text = r.read().decode()
        assert f'shangyou_sockets{{kind="{kind}"}} 2.0' in text, text
