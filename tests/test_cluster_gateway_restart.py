"""A node started again under its name numbers its sockets from 1 again. When the node that
runs a table still holds a socket of the node's earlier run under the same number (the earlier
run was killed, and its lease has not run out), a socket of the new run must be served, not
taken for the old one: the new run's first message (a new stream) ends the old run's sockets,
and their numbers are free at once. Before that, the new socket's ``open`` was dropped as a
repeat and its client waited for a welcome that never came, while the gateway answered its
pings (the chaos test's table that was never played again after nginx came back).

Real PostgreSQL and Redis, two real nodes; the leases are long (30 s) so that nothing but the
new stream can end the old run's sockets while the test runs."""

from __future__ import annotations

import json
import signal

from test_cluster import WAIT, Client, Node, new_table

LONG_LEASE = ("--lease-seconds", "30")


def test_a_restarted_gateways_socket_is_served_under_a_number_its_old_run_used(
        tmp_path, pg_url, redis_url):
    b = Node(tmp_path, "b", pg_url, redis_url, *LONG_LEASE)
    a = Node(tmp_path, "a", pg_url, redis_url, *LONG_LEASE)
    started = [b, a]
    try:
        table_id, token = new_table(b, grace=3600)          # b runs the table
        first = Client(a, table_id, token, "Ann")            # a's first socket: relayed to b
        assert first.recv()["type"] == "state"
        a.signal(signal.SIGKILL)
        a.proc.wait(60)
        a.out.close()
        a.output.rename(tmp_path / "node-a.0.log")
        # the same name and port; its first socket has the first number again
        a = Node(tmp_path, "a", pg_url, redis_url, *LONG_LEASE, port=a.port)
        started.append(a)
        again = Client(a, table_id, token, "Ann")           # welcomed (Client asserts it)
        assert again.seat is None or again.seat == first.seat
        state = again.recv()
        assert state["type"] == "state", state
        # and it is served from then on: a ping through the relay is answered
        again.send({"type": "ping", "id": 7})
        while True:
            m = json.loads(again.ws.recv(timeout=WAIT))
            if m["type"] == "pong":
                assert m["id"] == 7
                break
    finally:
        for n in started:
            n.stop()
