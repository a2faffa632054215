"""Several nodes, when nobody (or not everybody) is connected: real server processes on one
real PostgreSQL database and one real Redis server, as in tests/test_cluster.py.

- A seated person's socket dies while the table's owner lives: on the owner itself (what one
  node does), on another node (the socket's gateway: its TCP connection drops with no closing
  handshake), or with that whole gateway node killed. In each case the owner notices, the seat
  shows as away, after the room's grace period a bot plays it, and when the person opens the
  table again (on any node) the seat is theirs and the bot stops.
- A running match of bots alone, with nobody connected, whose owner is killed: another node
  takes it over when the lease runs out and its bots play it to the end, every stored move kept.

Every wait is on a condition, with a generous overall timeout."""

from __future__ import annotations

import signal
import socket
import time

import pytest
from test_cluster import (  # noqa: F401
    WAIT,
    Client,
    check_views,
    finished_log,
    new_table,
    nodes,
    over,
    play_turns,
    seat_two,
)

from shangyou.bots.base import make_bot
from shangyou.server.store import Store

pytestmark = pytest.mark.timeout(240)


def seat1(s) -> dict:
    return s["table"]["seats"][1]


@pytest.mark.parametrize("how", ["owner", "gateway_socket", "gateway_node"])
def test_a_dropped_seat_is_played_by_a_bot_after_the_grace_wherever_its_socket_was(nodes, how):
    a, b = nodes("a"), nodes("b")
    table_id, token = new_table(a, grace=1)             # a runs the table
    guest_node = a if how == "owner" else b
    host, guest = seat_two(a, guest_node, table_id, token)
    host.send({"type": "start"})
    bots = {0: make_bot("greedy", 1), 1: make_bot("greedy", 2)}
    s = play_turns({0: host, 1: guest}, bots,
                   lambda s: s["move_count"] >= 2 and s["view"]["to_act"] == 1)
    assert not over(s) and s["view"]["to_act"] == 1 and seat1(s)["connected"]
    match_id = s["table"]["match_id"]
    if how == "gateway_node":
        b.signal(signal.SIGKILL)                        # the gateway dies with the socket
        b.proc.wait(WAIT)
    else:                                               # the connection drops: no close frame
        guest.ws.socket.shutdown(socket.SHUT_RDWR)
        guest.ws.socket.close()
    # the owner notices: the seat is away, then (the grace period) a bot plays it
    away = host.until(lambda x: not seat1(x)["connected"])
    assert not seat1(away)["autoplay"] and away["move_count"] == s["move_count"]
    host.until(lambda x: seat1(x)["autoplay"])
    played = host.until(lambda x: x["move_count"] > s["move_count"])
    assert seat1(played)["autoplay"] and not seat1(played)["connected"]
    # the person comes back, to any node: the seat is theirs again and the bot stops
    back_to = a if how == "gateway_node" else guest_node
    welcome = guest.open(back_to, since=played["move_count"], match=match_id)
    assert welcome["seat"] == 1
    host.until(lambda x: seat1(x)["connected"] and not seat1(x)["autoplay"])
    guest.until(lambda x: x["view"] is not None and x["move_count"] >= played["move_count"])
    end = play_turns({0: host, 1: guest}, bots, lambda x: False)
    assert over(end)
    log = finished_log(a, match_id)
    assert len(log["moves"]) == end["move_count"]
    # the move made while the person was away is the bot's, on the record
    assert log["assisted"].get(str(s["move_count"])) == "bot"
    assert not host.errors
    check_views(host, log)
    check_views(guest, log)


def test_a_match_of_bots_alone_goes_on_when_its_node_dies(nodes, pg_url):
    a = nodes("a", "--bot-delay", "0.5")                # its bots move at a pace to watch
    b = nodes("b")
    table_id, token = new_table(a)
    host = Client(a, table_id, token, "Ann")            # the host fills every seat with bots
    host.recv()
    host.send({"type": "bots", "level": "greedy"})
    host.until(lambda x: all(t["kind"] == "bot" for t in x["table"]["seats"]))
    host.send({"type": "start"})
    match_id = host.until(lambda x: x["table"]["status"] == "playing")["table"]["match_id"]
    host.ws.close()                                     # nobody is connected any more
    store = Store(pg_url)
    deadline = time.monotonic() + WAIT
    while len(store.match(match_id)["moves"]) < 2:      # a's bots play on, unwatched
        assert time.monotonic() < deadline, "a's bots did not move"
        time.sleep(0.05)
    a.signal(signal.SIGSTOP)                            # frozen mid-match, then killed
    before = store.match(match_id)
    assert before["finished_at"] is None
    a.signal(signal.SIGKILL)
    a.proc.wait(WAIT)
    # b takes the match over once a's lease ran out, and its bots play it to the end
    deadline = time.monotonic() + WAIT * 2
    while store.match(match_id)["finished_at"] is None:
        assert time.monotonic() < deadline, b.output.read_text()
        time.sleep(0.1)
    assert f"table {table_id}: taken over from a node whose lease ran out" in \
        b.output.read_text()
    log = finished_log(b, match_id)
    assert log["moves"][:len(before["moves"])] == before["moves"]      # nothing stored lost
    assert len(log["moves"]) > len(before["moves"])
    store.engine.dispose()
