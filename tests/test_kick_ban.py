"""A person the host kicks stays out for the table's life (server/host.py; docs/protocol.md,
*Host*): their old seat token is refused in ``hello`` and ``sit`` (``banned``), nobody from
their address may sit there again (the host excepted; another address may), and all of it
holds after the server restarts, since the ban list is stored with the table.

Real server processes (``python -m shangyou.server`` on SQLite); the clients connect from
different loopback addresses (127.0.0.2, 127.0.0.3: Linux answers the whole 127/8 range). A
kick during a match is checked in process.
"""

from __future__ import annotations

import pytest
from websockets.sync.client import connect

from test_cluster import WAIT, Client
from test_server import Player, app, client, new_table  # noqa: F401  (fixtures)
from test_store_faults import Server

pytestmark = pytest.mark.timeout(120)

OWEN3 = {"game": "zheng-shangyou/owen", "players": 3, "options": {"target": 2}, "bots": "greedy"}


class From:
    """The server, reached from one loopback address (what ``Client`` needs of a node)."""

    def __init__(self, server: Server, ip: str):
        self.server, self.ip = server, ip

    def ws(self, table_id: str):
        return connect(f"ws://127.0.0.1:{self.server.port}/ws/{table_id}", open_timeout=WAIT,
                       max_queue=None, ping_interval=None, source_address=(self.ip, 0))


def _error(c: Client) -> dict:
    """The next error the client gets (states in between skipped)."""
    while True:
        m = c.recv()
        if m["type"] == "error":
            return m


def _seats(c: Client) -> list[str]:
    return [s["kind"] for s in c.states[-1]["table"]["seats"]]


def test_a_kicked_person_stays_out_after_a_restart(tmp_path):
    db = f"sqlite:///{tmp_path / 'bans.db'}"
    server = Server(tmp_path, db)
    try:
        made = server.post("/api/tables", OWEN3)
        tid = made["table_id"]
        host = Client(From(server, "127.0.0.1"), tid, made["host_token"], name="Hana")
        host.send({"type": "sit", "seat": 0})
        host.until(lambda s: s["table"]["seats"][0]["kind"] == "human")
        mallory = Client(From(server, "127.0.0.2"), tid, name="Mallory")
        mallory.send({"type": "sit", "seat": 1})
        mallory.until(lambda s: s["table"]["seats"][1]["kind"] == "human")
        old_token = mallory.token
        assert old_token
        host.send({"type": "kick", "seat": 1})
        assert _error(mallory)["code"] == "kicked"
        host.until(lambda s: s["table"]["seats"][1]["kind"] == "empty")
        host.send({"type": "kick", "seat": 0})              # never the host's own seat
        assert _error(host)["code"] == "bad_message"

        def refused(server: Server) -> None:
            # the old token: told so, and welcomed as a spectator
            back = Client(From(server, "127.0.0.2"), tid, old_token, name="Mallory")
            assert back.seat is None
            assert _error(back)["code"] == "banned"
            back.send({"type": "sit", "seat": 1})
            assert _error(back)["code"] == "banned"
            back.sockets.close()
            # a fresh socket with no token, from the same address: may watch, not sit
            fresh = Client(From(server, "127.0.0.2"), tid, name="M.")
            assert fresh.seat is None and fresh.errors == []
            fresh.send({"type": "sit", "seat": 2})
            assert _error(fresh)["code"] == "banned"
            fresh.sockets.close()
            # somebody else may sit (and leaves again)
            other = Client(From(server, "127.0.0.3"), tid, name="Olga")
            other.send({"type": "sit", "seat": 2})
            other.until(lambda s: s["table"]["seats"][2]["kind"] == "human")
            other.send({"type": "leave"})
            other.until(lambda s: s["table"]["seats"][2]["kind"] == "empty")
            other.sockets.close()

        refused(server)
        host.sockets.close()
        server.stop()
        server = Server(tmp_path, db)                        # a restart: the store remembers
        refused(server)
        host = Client(From(server, "127.0.0.2"), tid, made["host_token"], name="Hana")
        assert host.seat == 0 and host.errors == []          # the host, from anywhere
        host.send({"type": "leave"})
        host.until(lambda s: s["table"]["seats"][0]["kind"] == "empty")
        host.send({"type": "sit", "seat": 1})                # and sits again, even from there
        host.until(lambda s: s["table"]["seats"][1]["kind"] == "human")
        host.sockets.close()
    finally:
        server.stop()


def test_kicked_during_a_match_the_old_token_is_refused(client):  # noqa: F811
    """During a match the kicked seat goes to a bot; the person's token then brings back no
    seat, only ``banned`` (in-process server)."""
    tid = new_table(client)                       # Owen, 2 players
    ann = Player(client, tid, "Ann")
    ann.sit(0)
    bob = Player(client, tid, "Bob", host=False)
    bob.sit(1)
    ann.send({"type": "start"})
    ann.state_until(lambda s: s["table"]["status"] == "playing")
    ann.send({"type": "kick", "seat": 1})
    assert bob.error()["code"] == "kicked"
    ann.state_until(lambda s: s["table"]["seats"][1]["kind"] == "bot")
    token = bob.token
    bob.close()
    back = Player(client, tid, hello=False, host=False)
    back.send({"type": "hello", "token": token, "name": "Bob"})
    w = back.next("welcome")
    assert w["seat"] is None and w["token"] is None and w["host"] is False
    assert back.next("error")["code"] == "banned"
    assert back.next("state")["seat"] is None
    table = client.app.state.manager.tables[tid]
    assert len(table.bans["tokens"]) == 1 and len(table.bans["addresses"]) == 1
