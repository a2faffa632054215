"""Hints at the web table (docs/protocol.md "Hints"): advice from the asker's own view, to the
asker only, as the room's ``hints`` option allows."""

from __future__ import annotations

import time
import warnings

import pytest
from test_server import OPEN, Player, new_table, server_table

from shangyou.bots.base import make_bot
from shangyou.server import create_app
from shangyou.server.advice import hint_mode

with warnings.catch_warnings():
    warnings.simplefilter("ignore")      # starlette prefers httpx2 to httpx
    from fastapi.testclient import TestClient

pytestmark = pytest.mark.timeout(90)


@pytest.fixture
def client(tmp_path):
    with TestClient(create_app(data_dir=tmp_path / "data", bot_delay=0)) as c:
        try:
            yield c
        finally:
            while OPEN:
                OPEN.pop().close()


def alone_with_bots(client, room=None, game="zheng-shangyou/owen", players=2, bots="greedy"):
    body = {"game": game, "players": players, "options": {"target": 50}, "bots": bots}
    if game != "zheng-shangyou/owen":
        body["options"] = {}
    tid = new_table(client, **body, **({"room": room} if room else {}))
    a = Player(client, tid, "Ada")
    a.sit(0)
    a.send({"type": "bots"})
    a.state_until(lambda s: all(x["kind"] != "empty" for x in s["table"]["seats"]))
    a.send({"type": "start"})
    return tid, a


def ask(p: Player) -> dict:
    """The answer to a hint request (states broadcast meanwhile are skipped)."""
    p.send({"type": "hint"})
    while True:
        msg = p.next("hint", "error", "state")
        if msg["type"] != "state":
            return msg


def test_a_person_alone_gets_the_heuristic_advice_of_their_own_view(client):
    tid, a = alone_with_bots(client, room={"hints": "heuristic"})
    s = a.my_turn_or_over()
    assert s["view"]["phase"] != "over"
    h = ask(a)
    assert h["type"] == "hint", h
    assert h["by"] == h["level"] == "heuristic" and h["version"] == s["version"]
    assert h["fallback"] is None
    legal = s["view"]["legal_moves"]
    # past 400 plays a lead is offered in steps; the hint is then a whole play (played below)
    assert h["move"] in legal or any(m.split()[0] in ("choose", "pick") for m in legal)
    expected = make_bot("heuristic", 1).advise(s["view"])
    assert h["move"] == expected.move
    assert h["reason"] == expected.reason.as_dict()
    assert h["reason"]["text"]["en"] and h["reason"]["text"]["zh"]
    assert hint_mode(server_table(client, tid)) == "heuristic"
    # the hint is remembered for the seat and this state, until the seat moves
    given = client.app.state.manager.hints.given
    assert given[(tid, 0)] == (s["version"], h["move"], "heuristic")
    # the move it names is playable as it stands
    a.send({"type": "move", "move": h["move"], "version": s["version"]})
    assert a.next("state", "error")["type"] == "state"
    assert (tid, 0) not in given


def test_a_person_alone_gets_the_search_hint_by_default_and_it_says_so(client):
    tid, a = alone_with_bots(client)
    assert hint_mode(server_table(client, tid)) == "search"
    s = a.my_turn_or_over()
    h = ask(a)
    assert h["type"] == "hint", h
    # the search speaks, or the heuristic for it, saying why
    assert h["level"] == h["by"] and (h["level"], h["fallback"]) in (
        ("search", None), ("heuristic", "time"), ("heuristic", "failed")), h
    assert h["version"] == s["version"]


def test_a_followed_hint_is_marked_in_the_review_and_never_a_mistake(client):
    # a person alone with bots plays every move the hint gives (one hand of Owen; the search
    # hints); one move of their own breaks the run, so the record tells the two apart. The
    # deal is random: in about one in a hundred the hand ends before a hinted decision with a
    # choice (the review passes over forced moves), and another table is dealt
    for _ in range(5):
        tid = new_table(client, options={"target": 1}, bots="heuristic")
        a = Player(client, tid, "Ada")
        a.sit(0)
        a.send({"type": "bots"})
        a.state_until(lambda s: all(x["kind"] != "empty" for x in s["table"]["seats"]))
        a.send({"type": "start"})
        hinted, own, choices = set(), set(), set()
        while True:
            s = a.my_turn_or_over()
            if s["view"]["phase"] == "over":
                break
            legal = s["view"]["legal_moves"]
            index = len(server_table(client, tid).game.moves)
            if len(legal) > 1 and not own and index > 0:
                move = next(m for m in legal if m != "pass")     # the player's own choice
                own.add(index)
            else:
                h = ask(a)
                assert h["type"] == "hint", h
                move = h["move"]
                hinted.add(index)
                if len(legal) > 1:
                    choices.add(index)
            a.send({"type": "move", "move": move, "version": s["version"]})
        mid = s["table"]["match_id"]
        log = client.get(f"/api/matches/{mid}").json()["log"]
        followed = {int(i) for i in log.get("hints", {})}
        assert followed and followed <= hinted and not followed & own
        assert set(log["hints"].values()) <= {"search", "heuristic"}
        if followed & choices:
            break
    else:
        pytest.fail("five deals without a hinted decision that had a choice")
    client.app.state.reviews.seconds, client.app.state.reviews.worlds = None, 4
    r = client.get(f"/api/matches/{mid}/review?seat=0").json()
    while r["status"] == "running":            # (the test's timeout bounds the wait)
        time.sleep(0.2)
        r = client.get(f"/api/matches/{mid}/review?seat=0").json()
    review = r["review"]
    marked = {d["index"] for d in review["decisions"] if d["hint"]}
    assert marked and marked <= followed and review["hinted"] == len(marked)
    for d in review["decisions"]:
        if d["hint"]:
            assert d["mark"] in ("good", "inaccuracy"), d
            if d["hint"] == "search":
                assert d["mark"] == "good" and d["best"] == d["played"], d


def test_hints_are_off_by_default_between_two_people(client):
    tid = new_table(client, options={"target": 50})
    a = Player(client, tid, "Ada")
    a.sit(0)
    b = Player(client, tid, "Bo")
    b.sit(1)
    a.send({"type": "start"})
    s = a.state_until(lambda s: s["view"] is not None)
    p = a if s["view"]["to_act"] == 0 else b
    e = ask(p)
    assert e["type"] == "error" and e["code"] == "hints_off", e
    assert "two or more people" in e["message"]
    assert hint_mode(server_table(client, tid)) == "off"


def test_the_host_may_allow_hints_between_people_or_turn_them_off(client):
    tid = new_table(client, options={"target": 50}, room={"hints": "heuristic"})
    a = Player(client, tid, "Ada")
    a.sit(0)
    b = Player(client, tid, "Bo")
    b.sit(1)
    assert a.state["table"]["room"]["hints"] == "heuristic"
    a.send({"type": "start"})
    s = a.state_until(lambda s: s["view"] is not None)
    p, other = (a, b) if s["view"]["to_act"] == 0 else (b, a)
    assert ask(p)["type"] == "hint"
    e = ask(other)
    assert e["code"] == "not_your_turn"
    # off, even for a person alone with bots
    _, c = alone_with_bots(client, room={"hints": "off"})
    c.my_turn_or_over()
    e = ask(c)
    assert e["code"] == "hints_off" and "host turned hints off" in e["message"]


def test_hint_refusals(client):
    tid = new_table(client, options={"target": 50})
    a = Player(client, tid, "Ada")
    a.sit(0)
    assert ask(a)["code"] == "not_playing"
    spectator = Player(client, tid, "Sam")
    spectator.send({"type": "hint", "extra": 1})   # unknown fields are ignored, as elsewhere
    assert spectator.next("error")["code"] == "not_playing"
    r = client.post("/api/tables", json={"game": "owen", "players": 2,
                                         "room": {"hints": "always"}})
    assert r.status_code == 422


def test_search_hint_comes_from_the_worker_pool(client):
    tid, a = alone_with_bots(client, room={"hints": "search"})
    s = a.my_turn_or_over()
    h = ask(a)
    assert h["type"] == "hint", h
    assert h["by"] in ("search", "heuristic") and h["version"] == s["version"]
    legal = s["view"]["legal_moves"]
    if h["move"] not in legal:
        # past 400 plays the lead is offered in steps (choose a group, then its plays); the
        # hint is then a whole play, which the game takes at any step
        assert any(m.split()[0] in ("choose", "pick") for m in legal), (h, legal[:5])
        g = server_table(client, tid).game.clone()
        seat = g.to_act
        g.apply(h["move"])
        assert g.moves[-1][0] == seat and g.moves[-1][1].kind == "play"


def test_a_finished_match_is_reviewed_once_in_the_background(client):
    tid = new_table(client, options={"target": 1})
    w = Player(client, tid, "Watcher")
    w.send({"type": "bots"})
    w.next("state")
    w.send({"type": "start"})
    final = w.state_until(lambda s: s["view"] is not None and s["view"]["phase"] == "over")
    mid = final["table"]["match_id"]
    client.app.state.reviews.seconds, client.app.state.reviews.worlds = None, 4
    assert client.get(f"/api/matches/{mid}/review?seat=5").status_code == 422
    assert client.get("/api/matches/nope/review?seat=0").status_code == 404
    first = client.get(f"/api/matches/{mid}/review?seat=1").json()
    assert first["status"] in ("running", "done")
    while first["status"] == "running":        # (the test's timeout bounds the wait)
        assert 0 <= first["done"] <= first["total"]
        time.sleep(1.0)     # as the page polls: within 120 review requests a minute
        first = client.get(f"/api/matches/{mid}/review?seat=1").json()
    assert first["status"] == "done", first
    review = first["review"]
    log = client.get(f"/api/matches/{mid}").json()["log"]
    assert review["seat"] == 1 and review["thresholds"] == {"inaccuracy": 0.1, "mistake": 0.25,
                                                           "blunder": 0.5}
    assert review["skipped"] + len(review["decisions"]) == sum(
        1 for s, _ in log["moves"] if s == 1)
    for d in review["decisions"]:
        assert log["moves"][d["index"]][0] == 1 and d["mark"] in (
            "good", "inaccuracy", "mistake", "blunder")
    # stored: asked again, it is answered at once, the same
    assert client.get(f"/api/matches/{mid}/review?seat=1").json() == first


def test_a_hint_while_burying_is_for_the_card_after_those_chosen(client):
    """At the bury the page names the cards chosen and not sent (``bury``): the advice is the
    next card to bury after them, nothing is buried; a card that cannot be buried is refused."""
    tid = new_table(client, game="sheng-ji", players=4, options={}, room={"hints": "heuristic"})
    people = []
    for seat in range(4):
        people.append(Player(client, tid, f"P{seat}"))
        people[-1].sit(seat)
    people[0].send({"type": "start"})
    for p in people:
        p.state_until(lambda s: s["table"]["status"] == "playing")
    bot = make_bot("greedy", 3)
    while True:                              # bid and pass as the greedy bot, to the bury
        s = people[0].state
        v = s["view"]
        p = people[v["to_act"]]
        ps = p.at_version(s["version"])
        if ps["view"]["phase"] == "bury":
            break
        move = {"type": "move", "move": bot.choose(ps["view"]), "version": ps["version"]}
        p.send(move)
        got = p.next("state", "error")
        while got["type"] == "error" and got["code"] == "rate_limited":
            # (a seat that passes at every draw sends more than the 20 messages a second a
            # connection may: as a client would, it waits and sends again)
            time.sleep(0.1)
            p.send(move)
            got = p.next("state", "error")
        assert got["type"] == "state", got
        people[0].at_version(p.state["version"])
    hand = ps["view"]["hand"]
    first = ask(p)["move"]                   # with nothing chosen
    card = first.split()[1]
    after = server_table(client, tid).game.clone()
    after.apply(first)                       # the game once that card is buried
    p.send({"type": "hint", "bury": [card]})
    h = p.next("hint", "error")
    assert h["type"] == "hint" and h["version"] == ps["version"], h
    assert h["move"] in [str(m) for m in after.legal_moves()], h   # a card after the chosen
    assert hand.count(card) == 2 or h["move"] != first          # (its twin, if it has one)
    for bad in (["XX"], [card, card], hand[:8]):        # not a card; twice; the kitty full
        p.send({"type": "hint", "bury": bad})
        assert p.next("hint", "error")["code"] == "illegal", bad
    p.send({"type": "hint", "bury": ["3D"] * 65})       # more than any kitty: the schema's bound
    assert p.next("hint", "error")["code"] == "bad_message"
    assert server_table(client, tid).version == ps["version"], "a hint buries nothing"
