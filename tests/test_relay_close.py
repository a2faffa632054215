"""A socket relayed to another node's table that is told to move gets its close frame (1012)
even while its client keeps sending: the node's gateway reads on until the client is gone
instead of returning (and dropping the connection) once the socket was told to close.

Two real nodes, PostgreSQL and Redis (tests/test_cluster.py); the clients sit on one node, the
table runs on the other; the clients' node drains (SIGTERM) while every client sends a ping
every few milliseconds."""

from __future__ import annotations

import json
import signal
import threading

import pytest
from test_cluster import WAIT, new_table, nodes  # noqa: F401 - the fixture
from websockets.exceptions import ConnectionClosed

pytestmark = pytest.mark.timeout(300)

CLIENTS = 8


class Pinger(threading.Thread):
    """A spectator that says hello, then pings without pause until its socket closes."""

    def __init__(self, node, table_id: str):
        super().__init__(daemon=True)
        self.ws = node.ws(table_id)
        self.ws.send(json.dumps({"type": "hello", "name": "p"}))
        while json.loads(self.ws.recv(timeout=WAIT))["type"] != "welcome":
            pass
        self.heard: list[dict] = []
        self.code: int | None | str = "open"
        self.go = threading.Event()

    def run(self) -> None:
        self.go.wait(WAIT)
        n = 0
        try:
            while True:
                n += 1
                self.ws.send(json.dumps({"type": "ping", "id": n}))
                try:
                    while True:         # what came meanwhile, without waiting
                        self.heard.append(json.loads(self.ws.recv(timeout=0.002)))
                except TimeoutError:
                    pass
        except ConnectionClosed as e:
            self.code = e.rcvd.code if e.rcvd else None
        try:
            while True:                 # what came before the close and was not read yet
                self.heard.append(json.loads(self.ws.recv(timeout=WAIT)))
        except ConnectionClosed:
            pass


def test_relayed_sockets_told_to_move_while_their_clients_send_get_a_close_frame(nodes):
    a, b = nodes("a"), nodes("b")
    table_id, _ = new_table(b)                  # b runs the table
    clients = [Pinger(a, table_id) for _ in range(CLIENTS)]     # relayed by a
    for c in clients:
        c.start()
    for c in clients:
        c.go.set()
    while sum(1 for c in clients for m in c.heard if m["type"] == "pong") < CLIENTS:
        assert all(c.code == "open" for c in clients), [c.code for c in clients]
    a.signal(signal.SIGTERM)                    # a drains: its relayed sockets move
    assert a.proc.wait(WAIT) is not None
    for c in clients:
        c.join(WAIT)
        assert not c.is_alive()
    assert "drained in" in a.output.read_text()
    assert [c.code for c in clients] == [1012] * CLIENTS
    assert all(any(m.get("code") == "moved" for m in c.heard) for c in clients)
