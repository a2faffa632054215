"""The host's ready check before the start (docs/protocol.md, "The ready check"): only the
host asks, only seated people answer and each for their own seat, everyone sees the answers,
the check ends with its time, with any change of seats or options and at the start; a repeated
ask changes nothing; the host may start whatever the answers. Every refusal is checked to
change nothing."""

from __future__ import annotations

import pytest

from test_server import Player, new_table, server_table
from test_server_host import make_client, skip_to, stored

from shangyou.server.__main__ import parse_limits
from shangyou.server.limits import Limits

pytestmark = pytest.mark.timeout(90)

OWEN3 = {"game": "zheng-shangyou/owen", "players": 3, "options": {"target": 50}}


@pytest.fixture
def client(tmp_path):
    with make_client(tmp_path) as c:
        yield c


def check_of(state: dict) -> dict | None:
    return state["table"]["ready_check"]


def answers(state: dict) -> dict[int, bool | None]:
    return {a["seat"]: a["ready"] for a in check_of(state)["answers"]}


def full_table(client, players: int = 3):
    """A waiting table: the host Ann in seat 0, Bob in seat 1, bots in the rest, and a
    spectator; (table id, ann, bob, watcher)."""
    tid = new_table(client, **{**OWEN3, "players": players})
    ann = Player(client, tid, "Ann")
    ann.sit(0)
    bob = Player(client, tid, "Bob")
    bob.sit(1)
    if players > 2:
        ann.send({"type": "bots"})
        for p in (ann, bob):
            p.state_until(lambda s: all(x["kind"] != "empty" for x in s["table"]["seats"]))
    else:
        ann.next("state")                          # Bob sat down
    watcher = Player(client, tid, "Wen")
    return tid, ann, bob, watcher


def ask(ann: Player, *others: Player) -> dict:
    """The host asks; the first state with a check, as each of ``others`` gets it too."""
    ann.send({"type": "ready_check"})
    s = ann.state_until(lambda s: check_of(s) is not None)
    for p in others:
        p.state_until(lambda s: check_of(s) is not None)
    return s


def quiet_since(p: Player, *others: Player) -> None:
    """Nothing reached ``p`` (and ``others``) since the last message it read: the chat line
    sent now is the next message each gets."""
    p.send({"type": "chat", "text": "--"})
    for q in (p, *others):
        m = q.recv()
        assert m["type"] == "chat" and m["text"] == "--", m


def test_the_host_asks_and_each_person_answers_for_their_own_seat(client):
    tid, ann, bob, watcher = full_table(client)
    before = stored(client, tid)
    # refused, each with its code, and nothing changes
    bob.send({"type": "ready_check"})
    assert bob.error()["code"] == "not_host"
    watcher.send({"type": "ready_check"})
    assert watcher.error()["code"] == "not_host"
    bob.send({"type": "ready", "ready": True})
    assert bob.error()["code"] == "no_ready_check"
    for bad in ({"type": "ready"}, {"type": "ready", "ready": "yes"},
                {"type": "ready", "ready": 1}, {"type": "ready", "ready": None}):
        bob.send(bad)
        assert bob.error()["code"] == "bad_message", bad
    assert stored(client, tid) == before
    assert server_table(client, tid).ready_check is None
    quiet_since(ann, bob, watcher)

    # the host asks: the two people are asked (not the bot), the host's own seat is ready
    version = ann.state["version"]
    s = ask(ann, bob, watcher)
    rc = check_of(s)
    assert answers(s) == {0: True, 1: None} and rc["all_ready"] is False
    assert rc["seconds"] == Limits().ready_check_seconds == 60
    assert 0 < rc["left"] <= rc["seconds"]
    assert s["version"] == version, "a ready check is no stored change of the table"
    assert answers(watcher.state) == {0: True, 1: None}

    # asking again while it runs changes nothing: the host gets the state, nobody else anything
    running = server_table(client, tid).ready_check
    for _ in range(8):
        ann.send({"type": "ready_check"})
        assert answers(ann.next("state")) == {0: True, 1: None}
    assert server_table(client, tid).ready_check is running
    quiet_since(ann, bob, watcher)

    # the spectator may not answer; Bob answers for his seat, and may change his mind
    watcher.send({"type": "ready", "ready": True})
    assert watcher.error()["code"] == "not_seated"
    bob.send({"type": "ready", "ready": False})
    for p in (ann, bob, watcher):
        s = p.state_until(lambda s: answers(s)[1] is False)
        assert check_of(s)["all_ready"] is False
    bob.send({"type": "ready", "ready": False})        # the same answer: only Bob hears back
    assert answers(bob.next("state")) == {0: True, 1: False}
    quiet_since(bob, ann, watcher)
    ann.send({"type": "ready", "ready": False})         # the host answers for their own seat
    ann.state_until(lambda s: answers(s) == {0: False, 1: False})
    for p, who in ((bob, 1), (ann, 0)):
        p.send({"type": "ready", "ready": True})
        ann.state_until(lambda s, who=who: answers(s)[who] is True)
    s = watcher.state_until(lambda s: check_of(s)["all_ready"])
    assert answers(s) == {0: True, 1: True}
    assert stored(client, tid) == before

    # the start ends the check; an answer then is refused
    ann.send({"type": "start"})
    s = bob.state_until(lambda s: s["table"]["status"] == "playing")
    assert check_of(s) is None and server_table(client, tid).ready_check is None
    bob.send({"type": "ready", "ready": True})
    assert bob.error()["code"] == "not_waiting"
    ann.send({"type": "ready_check"})
    assert ann.error()["code"] == "not_waiting"


def test_the_host_may_start_when_not_everyone_is_ready(client):
    _, ann, bob, _ = full_table(client, players=2)
    ask(ann, bob)
    bob.send({"type": "ready", "ready": False})
    ann.state_until(lambda s: answers(s)[1] is False)
    ann.send({"type": "start"})                          # the host decides
    s = bob.state_until(lambda s: s["table"]["status"] == "playing")
    assert check_of(s) is None


def test_a_check_needs_a_full_table_with_somebody_to_ask(client):
    tid = new_table(client, **OWEN3)
    ann = Player(client, tid, "Ann")
    ann.sit(0)
    before = stored(client, tid)
    ann.send({"type": "ready_check"})
    err = ann.error()
    assert err["code"] == "not_ready" and "empty seats: 1, 2" in err["message"]
    assert stored(client, tid) == before and server_table(client, tid).ready_check is None
    ann.send({"type": "leave"})                          # the host watches; bots everywhere
    skip_to(ann, "welcome")
    ann.state_until(lambda s: s["table"]["seats"][0]["kind"] == "empty")
    ann.send({"type": "bots"})
    ann.state_until(lambda s: all(x["kind"] == "bot" for x in s["table"]["seats"]))
    before = stored(client, tid)
    ann.send({"type": "ready_check"})
    assert ann.error()["code"] == "not_ready"
    assert stored(client, tid) == before and server_table(client, tid).ready_check is None


def until(p: Player, pred) -> dict:
    """The first ``state`` that satisfies ``pred``; a ``welcome`` or chat line on the way is
    skipped (an error fails)."""
    while True:
        m = p.recv()
        assert m["type"] != "error", m
        if m["type"] == "state" and pred(m):
            return m


def test_any_change_of_seats_or_options_ends_the_check(client):
    tid, ann, bob, watcher = full_table(client, players=3)
    everyone = (ann, bob, watcher)

    def ends(action: dict, by: Player = ann, kicked: bool = False) -> dict:
        """A check runs and Bob said he is ready; ``action`` ends it, for everyone."""
        ann.send({"type": "ready_check"})
        for p in everyone:
            until(p, lambda s: check_of(s) is not None)
        bob.send({"type": "ready", "ready": True})
        for p in everyone:
            until(p, lambda s: check_of(s) is not None and answers(s).get(bob.seat) is True)
        by.send(action)
        if kicked:
            assert skip_to(bob, "error")["code"] == "kicked"
        for p in everyone:
            s = until(p, lambda s: check_of(s) is None)
        assert server_table(client, tid).ready_check is None
        return s

    s = ends({"type": "kick", "seat": 2})                 # a bot removed
    assert s["table"]["seats"][2]["kind"] == "empty"
    ann.send({"type": "bots", "seat": 2})                 # a bot added (no check runs)
    for p in everyone:
        until(p, lambda s: s["table"]["seats"][2]["kind"] == "bot")
    s = ends({"type": "swap", "seat": 1, "to": 2})        # Bob moved
    assert s["table"]["seats"][2]["name"] == "Bob"
    bob.seat = 2
    s = ends({"type": "options", "options": {"target": 20}})
    assert s["table"]["options"]["target"] == 20
    s = ends({"type": "leave"}, by=bob)                   # Bob gets up
    assert s["table"]["seats"][2]["kind"] == "empty"
    bob.sit(2)                                            # and sits down again
    for p in (ann, watcher):
        until(p, lambda s: s["table"]["seats"][2]["kind"] == "human")
    s = ends({"type": "kick", "seat": 2}, kicked=True)    # Bob removed by the host
    assert s["table"]["seats"][2]["kind"] == "empty"
    # Bob watches now: an answer from him is refused and changes nothing
    before = stored(client, tid)
    bob.send({"type": "ready", "ready": True})
    assert skip_to(bob, "error")["code"] == "not_seated"
    assert stored(client, tid) == before


def test_a_seat_freed_by_the_grace_period_ends_the_check(tmp_path):
    with make_client(tmp_path) as client:
        r = client.post("/api/tables", json={**OWEN3, "players": 2, "room": {"grace": 0}})
        tid, token = r.json()["table_id"], r.json()["host_token"]
        ann = Player(client, tid, "Ann", token=token)
        ann.sit(0)
        bob = Player(client, tid, "Bob")
        bob.sit(1)
        ask(ann)
        bob.close()                                       # gone: the seat is freed at once
        s = until(ann, lambda s: s["table"]["seats"][1]["kind"] == "empty")
        assert check_of(s) is None


def test_the_check_ends_with_its_time(tmp_path):
    with make_client(tmp_path, ready_check_seconds=0.3) as client:
        tid, ann, bob, watcher = full_table(client, players=2)
        s = ask(ann, bob, watcher)
        assert check_of(s)["seconds"] == 0.3
        for p in (ann, bob, watcher):                    # everyone is told when it ends
            s = p.state_until(lambda s: check_of(s) is None)
            assert s["table"]["status"] == "waiting"
        assert server_table(client, tid).ready_check is None
        before = stored(client, tid)
        bob.send({"type": "ready", "ready": True})
        assert bob.error()["code"] == "no_ready_check"
        assert stored(client, tid) == before
        ask(ann, bob)                                    # the host may ask again


def test_the_checks_time_is_a_limit():
    assert parse_limits(["ready_check_seconds=5"]) == {"ready_check_seconds": 5.0}
    with pytest.raises(ValueError):
        parse_limits(["ready_check_seconds=-1"])
