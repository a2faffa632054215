"""Room options of the web server (issue 8, docs/protocol.md "Room options"): the turn timer and
the grace period after which a bot plays for an absent person, who gets the seat back by
connecting again with their token."""

from __future__ import annotations

import time
import warnings

import pytest

from test_server import OPEN, Player, new_table, server_table

from shangyou.server import create_app

with warnings.catch_warnings():
    warnings.simplefilter("ignore")      # starlette prefers httpx2 to httpx
    from fastapi.testclient import TestClient

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def client(tmp_path):
    with TestClient(create_app(data_dir=tmp_path / "data", bot_delay=0)) as c:
        try:
            yield c
        finally:
            while OPEN:
                OPEN.pop().close()


def two_people(client, room):
    tid = new_table(client, options={"target": 50}, room=room)
    a = Player(client, tid, "Ada")
    a.sit(0)
    b = Player(client, tid, "Bo")
    b.sit(1)
    a.started_at = time.monotonic()          # the server arms its timer after this
    a.send({"type": "start"})
    sa = a.state_until(lambda s: s["view"] is not None)
    b.state_until(lambda s: s["version"] == sa["version"])
    return tid, a, b, sa


def assisted(client, tid) -> dict:
    """The stored moves of the table's match made for a person: {index: "bot" | "timer"}."""
    manager = client.app.state.manager
    m = client.portal.call(manager.store.call, "match", server_table(client, tid).match_id)
    return m["assisted"]


def test_room_options_are_checked_kept_and_shown(client):
    for bad in ({"turn_timer": -1}, {"turn_timer": 601}, {"grace": "x"}, {"grace": 3601},
                {"colour": 1}, {"turn_timer": 1.5}):
        r = client.post("/api/tables", json={"game": "owen", "players": 2, "room": bad})
        assert r.status_code == 422, bad
    plain = new_table(client)
    t = server_table(client, plain)
    assert t.room == {"turn_timer": 0, "grace": 60, "listed": True}
    assert "_room" not in t.options
    tid = new_table(client, room={"turn_timer": 30, "grace": 5})
    p = Player(client, tid, "Ada")
    assert p.state["table"]["room"] == {"turn_timer": 30, "grace": 5, "listed": True}
    assert p.state["turn"] is None                      # no match yet
    assert "_room" not in p.state["table"]["options"]
    row = client.app.state.manager.store.store.load_table(tid)    # kept for a restart
    assert row["options"]["_room"] == {"turn_timer": 30, "grace": 5, "listed": True}


def test_the_turn_timer_moves_for_a_person_at_zero(client):
    # The server runs in this process, on the same monotonic clock as the test, so every bound
    # below follows from the order of events alone and holds however slow the machine is:
    # the timer is armed after "start" was sent (t0) and before its state arrived (t1).
    T = 2
    tid, a, b, s = two_people(client, {"turn_timer": T})
    t0, t1 = a.started_at, time.monotonic()
    turn = s["turn"]
    assert turn["seat"] == s["view"]["to_act"]
    assert T - (t1 - t0) - 0.01 <= turn["left"] <= T
    mover = a if turn["seat"] == 0 else b
    s2 = mover.state_until(lambda x: x["move_count"] == s["move_count"] + 1)
    t2 = time.monotonic()
    assert t2 - t0 >= T, "the timer did not move before its time"
    assert t2 - t1 < T + 10, "the timer moved"
    made_for = server_table(client, tid).game.moves[s["move_count"]][0]
    assert made_for == turn["seat"]
    assert assisted(client, tid) == {str(s["move_count"]): "timer"}   # the replay says so
    assert s2["turn"]["seat"] != turn["seat"] or s2["view"]["to_act"] == turn["seat"]
    # the timer restarted: armed at the move, no sooner than t0 + T, for T seconds more
    assert s2["turn"]["left"] is not None
    assert T - (t2 - (t0 + T)) - 0.01 <= s2["turn"]["left"] <= T


def test_an_absent_person_is_played_by_a_bot_until_they_come_back(client):
    tid, a, b, s = two_people(client, {"grace": 0})
    token = b.token
    b.close()
    # Bo is away at once (grace 0): the seat says so and a bot plays it when it is its turn
    s = a.state_until(lambda x: x["table"]["seats"][1]["autoplay"])
    assert s["table"]["seats"][1]["kind"] == "human"
    assert s["table"]["seats"][1]["connected"] is False
    for _ in range(20):                        # Ada moves when it is her turn; Bo's seat moves
        s = a.state
        if s["view"]["to_act"] == 0:
            move = s["view"]["legal_moves"][0]
            a.send({"type": "move", "move": move, "version": s["version"]})
        s = a.state_until(lambda x: x["version"] > s["version"])
        if any(seat == 1 for seat, _ in server_table(client, tid).game.moves[-2:]):
            break
    moves = server_table(client, tid).game.moves
    assert any(seat == 1 for seat, _ in moves), "the bot moved"
    # the store marks the moves a bot made for Bo (and only those), so the replay can say so
    marked = assisted(client, tid)
    assert marked and set(marked.values()) == {"bot"}
    assert {moves[int(i)][0] for i in marked} == {1}
    # Bo comes back with his token: the seat is his again and nobody moves for him
    b2 = Player(client, tid, "Bo", token=token)
    assert b2.seat == 1
    assert not b2.state["table"]["seats"][1]["autoplay"]
    assert b2.state["table"]["seats"][1]["connected"]
    if b2.state["view"]["to_act"] == 0:
        s = a.state_until(lambda x: not x["table"]["seats"][1]["autoplay"])
        a.send({"type": "move", "move": s["view"]["legal_moves"][0], "version": s["version"]})
        b2.state_until(lambda x: x["view"]["to_act"] == 1)
    n = len(server_table(client, tid).game.moves)
    time.sleep(0.6)
    assert len(server_table(client, tid).game.moves) == n
    assert server_table(client, tid).game.to_act == 1


def test_a_reconnecting_client_gets_the_events_its_log_lacks(client):
    tid, a, b, s = two_people(client, {})
    match = s["table"]["match_id"]
    for _ in range(4):                           # four moves, whoever is to act
        st = a.state
        p = a if st["view"]["to_act"] == 0 else b
        ps = p.at_version(st["version"])
        # a whole play or a pass (past 400 plays a lead is offered in steps, which are moves
        # of the game without an event of their own)
        whole = [m for m in ps["view"]["legal_moves"] if m.split()[0] not in ("choose", "pick")]
        p.send({"type": "move", "move": whole[-1], "version": st["version"]})
        for q in (a, b):
            q.state_until(lambda x: x["version"] > st["version"])
    moves = server_table(client, tid).game.moves
    plays = lambda st: [(e["seat"], e.get("move", "pass")) for e in st["last_events"]  # noqa: E731
                        if e["event"] in ("play", "pass")]
    # a spectator knowing nothing gets every event of the match, one play or pass per move
    w = Player(client, tid, "Eve", hello=False)
    w.send({"type": "hello", "token": None, "name": "Eve", "since": 0})
    w.next("welcome")
    st = w.next("state")
    assert [seat for seat, _ in plays(st)] == [seat for seat, _ in moves]
    # Bo, whose log holds the first two moves of this match, gets the other two
    token = b.token
    b.close()
    b2 = Player(client, tid, "Bo", hello=False)
    b2.send({"type": "hello", "token": token, "name": "Bo", "since": 2, "match": match})
    b2.next("welcome")
    st = b2.next("state")
    assert len(plays(st)) == 2 and [x for x, _ in plays(st)] == [x for x, _ in moves[2:]]
    # without `since`, nothing is sent again (older clients)
    b2.close()
    b3 = Player(client, tid, "Bo", token=token)
    assert b3.state["last_events"] == []
