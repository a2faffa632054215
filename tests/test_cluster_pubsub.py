"""Redis drops the nodes' subscriptions (``CLIENT KILL TYPE pubsub``, what Redis does to a
subscriber that outgrows its output buffer) on the real Redis server of tests/redis_server.py,
with real server processes as in tests/test_cluster.py. Each node subscribes again and gets
from the other what was published to it meanwhile: play goes on, no client is told ``moved``,
every client sees every move, and no move is lost.

- The gateway (the node of a player and a spectator) is paused while its subscription is
  killed and the owner publishes a move's state to it: nobody gets that message. Woken up, the
  gateway subscribes again, asks, and the owner sends it again.
- The owner is paused while its subscription is killed and a player's move is published to it
  through the gateway: the same, the other way.
- Both subscriptions are killed again and again, between every two moves, while the match
  plays to its end.

The nodes' lease is 10 s here, so a pause of the node never costs it its tables. Every wait is
on a condition, with a generous overall timeout."""

from __future__ import annotations

import signal
import time

import pytest
import redis
from test_cluster import (  # noqa: F401
    WAIT,
    Client,
    at_least,
    check_views,
    finished_log,
    move,
    new_table,
    nodes,
    over,
    play_turns,
    seat_two,
)

from shangyou.bots.base import make_bot

pytestmark = pytest.mark.timeout(300)

UNHEARD = "node {}: nobody listens on its channel"
RESENT = "node {} missed messages: sending"


def wait_log(node, text: str, count: int = 1) -> None:
    deadline = time.monotonic() + WAIT
    while node.output.read_text().count(text) < count:
        assert time.monotonic() < deadline, node.output.read_text()
        time.sleep(0.02)


def kill_subscriptions(r: redis.Redis) -> int:
    return int(r.client_kill_filter(_type="pubsub"))


def kill_when_subscribed(r: redis.Redis) -> int:
    """Kill the pubsub clients as soon as there is one (a node subscribes again on its own)."""
    deadline = time.monotonic() + WAIT
    while not (killed := kill_subscriptions(r)):
        assert time.monotonic() < deadline
        time.sleep(0.02)
    return killed


def test_dropped_subscriptions_are_made_again_and_nothing_is_lost(nodes, redis_url):
    a = nodes("a", "--lease-seconds", "10")
    b = nodes("b", "--lease-seconds", "10")
    r = redis.Redis.from_url(redis_url)
    table_id, token = new_table(a)                      # a runs the table
    host, guest = seat_two(a, b, table_id, token)       # the host on a, the guest on b
    spectator = Client(b, table_id, name="Cy")
    host.send({"type": "start"})
    bots = {0: make_bot("greedy", 1), 1: make_bot("greedy", 2)}
    players = {0: host, 1: guest}
    s = play_turns(players, bots, lambda s: s["move_count"] >= 2 and s["view"]["to_act"] == 0)

    # the gateway misses a state: paused, its subscription killed, while the host moves
    b.signal(signal.SIGSTOP)
    assert kill_subscriptions(r) == 2
    s = host.play(bots[0], at_least(host, s["version"]))
    wait_log(a, UNHEARD.format("b"))                    # the state found nobody on b's channel
    b.signal(signal.SIGCONT)
    for c in (guest, spectator):                        # b got it all the same
        assert at_least(c, s["version"])["move_count"] == s["move_count"]
    wait_log(a, RESENT.format("b"))
    wait_log(b, "Redis subscription was made again")

    # the owner misses a move: paused, its subscription killed, while the guest moves
    s = play_turns(players, bots, lambda x: x["view"]["to_act"] == 1)
    assert not over(s)
    a.signal(signal.SIGSTOP)
    assert kill_subscriptions(r) == 2
    move(guest, bots[1], at_least(guest, s["version"]))
    wait_log(b, UNHEARD.format("a"))                    # the move found nobody on a's channel
    a.signal(signal.SIGCONT)
    for c in (host, guest, spectator):                  # a got the move and played it
        assert at_least(c, s["version"] + 1)["move_count"] == s["move_count"] + 1
    wait_log(b, RESENT.format("a"))
    wait_log(a, "Redis subscription was made again")

    # the subscriptions are killed again and again while the match plays to its end
    kills = [kill_when_subscribed(r)]               # the nodes are back: kill them at once

    def kill_between_moves(x: dict) -> bool:
        kills.append(kill_subscriptions(r))
        return False

    s = play_turns(players, bots, kill_between_moves)
    assert over(s) and kills[0] > 0 and len(kills) > 1
    final = spectator.until(over)
    n = final["move_count"]
    for c in (host, guest, spectator):                  # nobody was told to reconnect
        at_least(c, final["version"])
        assert not c.errors, c.errors
        counts = [x["move_count"] for x in c.states if x["view"] is not None]
        assert counts == sorted(counts) and set(range(1, n + 1)) <= set(counts)
    for node in (a, b):
        text = node.output.read_text()
        assert "no longer run here" not in text and "resetting the link" not in text
    log = finished_log(a, final["table"]["match_id"])
    assert len(log["moves"]) == n                       # every move is stored
    for c in (host, guest, spectator):
        check_views(c, log)
    r.close()
