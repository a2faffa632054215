"""A rematch any seated person asks for (docs/protocol.md, "Rematch"), and Play now
(``POST /api/play``): only seated people ask, only once a match has ended; the next match
starts when every present person has asked (a person away does not hold it up); the host's
start is unchanged. Play now seats its caller as the host, bots in every other seat, and starts
the match. Every refusal is checked to change nothing."""

from __future__ import annotations

import time

import pytest

from test_server import Player, new_table, play_to_end, server_table
from test_server_host import client, make_client, stored  # noqa: F401 (client: a fixture)

pytestmark = pytest.mark.timeout(120)

OWEN3 = {"game": "zheng-shangyou/owen", "players": 3, "options": {"target": 2}}


def rematch_of(state: dict) -> dict | None:
    return state["table"]["rematch"]


def until(p: Player, pred) -> dict:
    """The last state ``p`` read if it satisfies ``pred``, else the next one that does."""
    return p.state if p.state is not None and pred(p.state) else p.state_until(pred)


def reply(p: Player, msg: dict, *types: str) -> dict:
    """Send ``msg`` and return the next message of ``types`` (states broadcast meanwhile
    skipped when an error is wanted); sent again while the socket is over its rate (the test
    plays faster than people)."""
    while True:
        p.send(msg)
        while True:
            m = p.next("state", "error")
            if m["type"] in types or m["type"] == "error":
                break
        if m["type"] == "error" and m["code"] == "rate_limited":
            time.sleep(0.06)
            continue
        assert m["type"] in types, m
        return m


def test_any_seated_person_asks_and_the_last_present_ask_starts(client):
    tid = new_table(client, **OWEN3)
    ann = Player(client, tid, "Ann")          # the host
    ann.sit(0)
    bob = Player(client, tid, "Bob")
    bob.sit(1)
    ann.send({"type": "bots"})
    ann.state_until(lambda s: all(x["kind"] != "empty" for x in s["table"]["seats"]))
    watcher = Player(client, tid, "Wen")

    # no match has ended: refused, nothing changes
    before = stored(client, tid)
    assert reply(bob, {"type": "rematch"}, "error")["code"] == "not_over"
    assert stored(client, tid) == before
    ann.send({"type": "start"})
    s = ann.state_until(lambda s: s["table"]["status"] == "playing")
    first = s["table"]["match_id"]
    assert reply(bob, {"type": "rematch"}, "error")["code"] == "not_over"
    assert rematch_of(bob.state) is None

    final = play_to_end([ann, bob])
    assert final["table"]["status"] == "over" and rematch_of(final) is None
    for p in (bob, watcher):
        until(p, lambda s: s["table"]["status"] == "over")

    # a spectator may not ask; Bob (not the host) may not start, but asks for a rematch
    before = stored(client, tid)
    assert reply(watcher, {"type": "rematch"}, "error")["code"] == "not_seated"
    assert reply(bob, {"type": "start"}, "error")["code"] == "not_host"
    assert stored(client, tid) == before
    reply(bob, {"type": "rematch"}, "state")
    for p in (ann, bob, watcher):
        s = until(p, lambda s: rematch_of(s) is not None)
        assert rematch_of(s) == {"asked": [1], "waiting": [0]}, "the bot is not asked"
        assert s["table"]["status"] == "over"
    assert stored(client, tid) == before, "an ask is no stored change"
    # again: only Bob hears back, nothing starts
    assert rematch_of(reply(bob, {"type": "rematch"}, "state")) == {"asked": [1], "waiting": [0]}
    assert server_table(client, tid).status == "over"

    # the host's ask is the last one: the next match starts, with the same seats
    reply(ann, {"type": "rematch"}, "state")
    for p in (ann, bob, watcher):
        s = until(p, lambda s: s["table"]["status"] == "playing")
        assert s["table"]["match_id"] not in (None, first)
        assert rematch_of(s) is None
        assert [x["kind"] for x in s["table"]["seats"]] == ["human", "human", "bot"]

    # the second match ends; Ann has gone away: Bob's ask alone starts the third
    second = s["table"]["match_id"]
    final = play_to_end([ann, bob])
    until(bob, lambda s: s["table"]["status"] == "over")
    ann.close()
    bob.state_until(lambda s: not s["table"]["seats"][0]["connected"])
    reply(bob, {"type": "rematch"}, "state")
    s = until(bob, lambda s: s["table"]["status"] == "playing")
    assert s["table"]["match_id"] not in (first, second)


def test_play_now_seats_the_caller_with_bots_and_starts(client):
    r = client.post("/api/play", json={"game": "owen", "players": 3, "options": {"target": 2},
                                       "name": "Ann"})
    assert r.status_code == 200, r.text
    out = r.json()
    assert out["url"] == f"/t/{out['table_id']}" and out["seat"] == 0 and out["started"]
    t = server_table(client, out["table_id"])
    assert t.status == "playing" and t.room["listed"] is False
    assert [(s.kind, s.bot_level) for s in t.seats] == [("human", None), ("bot", "heuristic"),
                                                        ("bot", "heuristic")]
    assert client.get("/api/tables").json()["total"] == 0, "a Play now table is link only"
    ann = Player(client, out["table_id"], "Ann", token=out["token"])
    assert ann.seat == 0 and ann.host and ann.state["view"] is not None
    assert ann.state["table"]["seats"][0]["name"] == "Ann"
    final = play_to_end([ann])
    assert final["table"]["status"] == "over"
    reply(ann, {"type": "rematch"}, "state")    # alone with bots: one ask starts the next
    s = until(ann, lambda s: s["table"]["status"] == "playing")
    assert s["table"]["match_id"] != final["table"]["match_id"]

    # a level asked for, and the room's listing
    r = client.post("/api/play", json={"game": "zheng-shangyou/pagat", "players": 4,
                                       "bots": "greedy", "room": {"listed": True}})
    t = server_table(client, r.json()["table_id"])
    assert [s.bot_level for s in t.seats[1:]] == ["greedy"] * 3 and t.seats[0].name == "Player 1"
    assert client.get("/api/tables").json()["total"] == 1

    # refusals create nothing
    n = len(client.app.state.manager.tables)
    for body, code in (({"game": "no-such-game"}, "bad_option"),
                       ({"game": "owen", "players": 9}, "bad_option"),
                       ({"game": "owen", "bots": "nobody"}, None),
                       ({"game": "owen", "name": "a\u202eb"}, None),
                       ({"game": "owen", "extra": 1}, None)):
        r = client.post("/api/play", json=body)
        assert r.status_code == 422, (body, r.text)
        if code:
            assert r.json()["code"] == code
    assert len(client.app.state.manager.tables) == n
