"""The web server (docs/protocol.md) with real WebSocket clients against the app.

Every message a client receives is checked against the server message schemas; the state a
seated client gets is exactly the engine's ``view(seat)``, a spectator's ``public_view()``.
"""

from __future__ import annotations

import json
import re
import time
import warnings

import pytest

import shangyou
from shangyou.bots.base import make_bot
from shangyou.cards import CARD_TEXT
from shangyou.server import create_app
from shangyou.server.schemas import SERVER_MESSAGE

with warnings.catch_warnings():
    warnings.simplefilter("ignore")      # starlette prefers httpx2 to httpx
    from fastapi.testclient import TestClient
    from starlette.websockets import WebSocketDisconnect

pytestmark = pytest.mark.timeout(60)

OWEN2 = {"game": "zheng-shangyou/owen", "players": 2, "options": {"target": 2}, "bots": "greedy"}


@pytest.fixture
def app(request, tmp_path):
    """The app on SQLite in a data folder; parametrized indirectly with ``"postgresql"``, on a
    new database of the tests' PostgreSQL server."""
    db_url = request.getfixturevalue("pg_url") if getattr(request, "param", None) == \
        "postgresql" else None
    return create_app(db_url=db_url, data_dir=tmp_path / "data", bot_delay=0)


BOTH_STORES = pytest.mark.parametrize("app", ["sqlite", "postgresql"], indirect=True)


OPEN: list = []      # every client socket a test opened, closed before its app stops
HOST_TOKENS: dict = {}   # table id -> the host token its creator got, until a Player takes it


@pytest.fixture
def client(app):
    with TestClient(app) as c:
        try:
            yield c
        finally:
            while OPEN:
                OPEN.pop().close()


class Player:
    """A WebSocket client that checks and records every message it receives."""

    def __init__(self, client: TestClient, table_id: str, name: str = "", token=None,
                 hello: bool = True, host: bool | None = None):
        """``host``: say the table's host token in hello (by default the first Player of a
        table made by :func:`new_table` does, as its creator's browser would)."""
        if token is None and host is not False and table_id in HOST_TOKENS:
            token = HOST_TOKENS.pop(table_id) if host is None else HOST_TOKENS[table_id]
        self._cm = client.websocket_connect(f"/ws/{table_id}")
        self.ws = self._cm.__enter__()
        OPEN.append(self)
        self.received: list[dict] = []
        self.state: dict | None = None
        self.seat = None
        self.token = token
        if hello:
            self.send({"type": "hello", "token": token, "name": name})
            w = self.next("welcome")
            self.seat, self.token = w["seat"], w["token"] if w["token"] is not None else token
            self.host = w["host"]
            self.next("state")

    def send(self, msg) -> None:
        if isinstance(msg, (bytes, str)):
            (self.ws.send_bytes if isinstance(msg, bytes) else self.ws.send_text)(msg)
        else:
            self.ws.send_text(json.dumps(msg))

    def recv(self) -> dict:
        msg = json.loads(self.ws.receive_text())
        SERVER_MESSAGE.validate_python(msg)   # every message has the documented shape
        self.received.append(msg)
        if msg["type"] == "state":
            self.state = msg
        return msg

    def next(self, *types: str) -> dict:
        """The next message of one of these types (chat lines in between are skipped)."""
        while True:
            msg = self.recv()
            if msg["type"] in types:
                return msg
            assert msg["type"] == "chat", f"expected {types}, got {msg}"

    def error(self) -> dict:
        """The next error (states broadcast meanwhile, e.g. bot moves, are skipped)."""
        while True:
            msg = self.next("error", "state")
            if msg["type"] == "error":
                return msg

    def sit(self, seat: int, name: str | None = None) -> None:
        self.send({"type": "sit", "seat": seat, **({"name": name} if name else {})})
        w = self.next("welcome")
        assert w["seat"] == seat and w["token"]
        self.seat, self.token = seat, w["token"]
        self.next("state")

    def state_until(self, pred) -> dict:
        while True:
            s = self.next("state")
            if pred(s):
                return s

    def at_version(self, version: int) -> dict:
        if self.state is not None and self.state["version"] == version:
            return self.state
        return self.state_until(lambda s: s["version"] == version)

    def my_turn_or_over(self) -> dict:
        return self.state_until(lambda s: s["view"] is not None and (
            s["view"]["phase"] == "over" or s["view"]["to_act"] == self.seat))

    def close(self) -> None:
        if self in OPEN:
            OPEN.remove(self)
        try:
            self._cm.__exit__(None, None, None)
        except Exception:
            pass


def new_table(client: TestClient, **body) -> str:
    r = client.post("/api/tables", json={**OWEN2, **body})
    assert r.status_code == 200, r.text
    out = r.json()
    assert out["url"] == f"/t/{out['table_id']}"
    HOST_TOKENS[out["table_id"]] = out["host_token"]
    return out["table_id"]


def server_table(client: TestClient, table_id: str):
    return client.app.state.manager.tables[table_id]


def snapshot(client: TestClient, table_id: str):
    t = server_table(client, table_id)
    return t.version, (t.game.snapshot() if t.game is not None else None), \
        [(s.name, s.kind, s.token_hash) for s in t.seats], t.status


def send_move(p: Player, move: str, version: int) -> dict:
    """Send a move and answer the reply (its ``state`` or ``error``); a test plays faster than
    people, so a move refused as ``rate_limited`` is sent again a moment later."""
    while True:
        p.send({"type": "move", "move": move, "version": version})
        reply = p.next("state", "error")
        if reply["type"] == "error" and reply["code"] == "rate_limited":
            time.sleep(0.06)
            continue
        return reply


def play_to_end(players: list[Player], bots_seed: int = 5) -> dict:
    """Humans choose with a greedy bot until the match is over; the final state."""
    chooser = make_bot("greedy", bots_seed)
    by_seat = {p.seat: p for p in players}
    acted: set[int] = set()

    def actionable(s):
        return s["view"] is not None and s["version"] not in acted and (
            s["view"]["phase"] == "over" or s["view"]["to_act"] in by_seat)

    while True:
        s = players[0].state
        if not actionable(s):
            s = players[0].state_until(actionable)
        if s["view"]["phase"] == "over":
            return s
        p = by_seat[s["view"]["to_act"]]
        ps = p.at_version(s["version"])
        acted.add(s["version"])
        move = chooser.choose(ps["view"])
        reply = send_move(p, move, ps["version"])
        assert reply["type"] == "state", (move, reply)


# ------------------------------------------------------------------------------------- HTTP
def test_readyz_says_503_while_the_node_drains(app, client):
    """A server alone is ready (no Redis, no leases to check); once it drains (its first
    SIGTERM) ``/readyz`` answers 503 naming ``draining``, and ``/healthz`` stays 200."""
    r = client.get("/readyz")
    assert r.status_code == 200 and r.json() == {"ready": True, "checks": {
        "store": "ok", "watchdog": "ok", "draining": "ok"}}, r.json()
    app.state.manager.draining = True
    r = client.get("/readyz")
    assert r.status_code == 503, r.json()
    assert r.json()["failed"] == ["draining"], r.json()
    assert r.json()["checks"]["draining"] != "ok"
    assert client.get("/healthz").json() == {"ok": True}
    app.state.manager.draining = False


def test_http_routes(client):
    assert client.get("/healthz").json() == {"ok": True}
    presets = client.get("/api/presets").json()
    names = {p["name"] for p in presets}
    assert set(shangyou.preset_names()) == names
    owen = next(p for p in presets if p["name"] == "zheng-shangyou/owen")
    assert owen["game"] == "zheng-shangyou" and "owen" in owen["aliases"]
    assert owen["players"] == [2, 3, 4, 6] and owen["defaults"]["target"] == 6
    for path in ("/", "/t/abc", "/replay/abc"):
        r = client.get(path)
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    assert client.get("/static/../../server/app.py").status_code == 404

    tid = new_table(client, game="owen")   # an alias
    tables = client.get("/api/tables").json()["tables"]
    assert [t["table_id"] for t in tables] == [tid]
    assert tables[0]["game"] == "zheng-shangyou/owen" and tables[0]["status"] == "waiting"
    assert [s["kind"] for s in tables[0]["seats"]] == ["empty", "empty"]

    for bad in ({"game": "no-such-game"}, {"players": 5}, {"options": {"colour": 1}},
                {"options": {"target": "x"}}, {"players": "two"}, {"bots": "genius"}):
        r = client.post("/api/tables", json={**OWEN2, **bad})
        assert r.status_code == 422, bad
        assert isinstance(r.json()["detail"], str) and r.json()["detail"]
    assert len(client.get("/api/tables").json()["tables"]) == 1
    assert client.get("/api/matches").json() == []
    assert client.get("/api/matches/nope").status_code == 404


# ----------------------------------------------------------------------------- a whole match
@BOTH_STORES
def test_match_with_bots_to_the_end(client):
    tid = new_table(client)
    ann = Player(client, tid, "Ann")
    assert ann.seat is None and ann.state["view"] is None
    assert ann.state["table"]["status"] == "waiting"
    ann.sit(0)
    ann.send({"type": "bots"})
    s = ann.next("state")
    assert [x["kind"] for x in s["table"]["seats"]] == ["human", "bot"]
    ann.send({"type": "start"})
    s = ann.next("state")
    assert s["table"]["status"] == "playing" and s["view"]["seat"] == 0
    match_id = s["table"]["match_id"]
    assert client.get(f"/api/matches/{match_id}").status_code == 404   # still running
    assert [t["status"] for t in client.get("/api/tables").json()["tables"]] == ["playing"]

    final = play_to_end([ann])
    result = final["view"]["result"]
    assert final["table"]["status"] == "over" and result["winner"] in (0, 1)
    assert max(result["scores"]) >= 2

    listed = client.get("/api/matches").json()
    assert [m["match_id"] for m in listed] == [match_id]
    assert listed[0]["result"] == result and listed[0]["finished_at"]
    assert listed[0]["names"] == ["Ann", "Greedy bot 2"]
    full = client.get(f"/api/matches/{match_id}").json()
    assert full["result"] == result and full["names"] == ["Ann", "Greedy bot 2"]
    assert "seed" in full["log"]
    assert shangyou.replay(full["log"]).result == json.loads(json.dumps(result))
    assert client.get("/api/tables").json()["tables"] == []
    ann.close()


def test_reconnect_same_seat_and_hand_and_replaced(client):
    tid = new_table(client)
    ann = Player(client, tid, "Ann")
    ann.sit(0)
    bob = Player(client, tid, "Bob")
    bob.sit(1)
    ann.next("state")                      # Bob sat
    ann.send({"type": "start"})
    s = ann.next("state")
    bob.next("state")
    hand = s["view"]["hand"]
    ann.close()
    s_bob = bob.next("state")              # Ann's seat shows disconnected
    assert s_bob["table"]["seats"][0]["connected"] is False

    again = Player(client, tid, "someone", token=ann.token)
    assert again.seat == 0
    assert again.state["view"]["hand"] == hand and again.state["view"]["seat"] == 0
    assert again.state["version"] == s["version"]
    assert bob.next("state")["table"]["seats"][0]["connected"] is True

    # the same token opened elsewhere takes the seat over; the older socket is told and closed
    third = Player(client, tid, "", token=ann.token)
    assert third.seat == 0 and third.state["view"]["hand"] == hand
    err = again.next("error")
    assert err["code"] == "replaced"
    with pytest.raises(WebSocketDisconnect):
        again.recv()
    # a bad token is a spectator
    spy = Player(client, tid, "spy", token="x" * 40)
    assert spy.seat is None and "hand" not in spy.state["view"]
    for p in (bob, third, spy, again):
        p.close()


def test_spectators_see_no_hand(client):
    tid = new_table(client)
    ann = Player(client, tid, "Ann")
    ann.sit(0)
    ann.send({"type": "bots"})
    ann.next("state")
    watcher = Player(client, tid, "Watcher")
    ann.send({"type": "start"})
    ann.next("state")
    s = watcher.next("state")
    log = server_table(client, tid).game.log
    log["moves"] = log["moves"][:s["move_count"]]
    g = shangyou.replay(log)
    assert s["view"] == json.loads(json.dumps(g.public_view()))
    assert "hand" not in s["view"] and "legal_moves" not in s["view"]
    assert s["view"]["seat"] is None and s["seat"] is None
    assert s["view"]["counts"] == [26, 26]
    watcher.send({"type": "move", "move": "pass", "version": s["version"]})
    assert watcher.error()["code"] == "not_seated"
    ann.close()
    watcher.close()


def test_no_message_carries_another_seats_cards(client):
    """Two people, a bot and a spectator play a two-hand Winner match (with the card exchange
    of the second hand); every message each receives is checked against the engine."""
    tid = new_table(client, game="zheng-shangyou/winner", players=3, options={"hands": 2})
    ann = Player(client, tid, "Ann")
    ann.sit(0)
    bob = Player(client, tid, "Bob")
    bob.sit(2)
    watcher = Player(client, tid, "Watcher")
    ann.send({"type": "bots"})
    ann.send({"type": "start"})
    clients = [ann, bob, watcher]
    for c in clients:
        c.state_until(lambda s: s["table"]["status"] == "playing")
    final = play_to_end([ann, bob])
    for c in (bob, watcher):
        c.at_version(final["version"])
    match_id = final["table"]["match_id"]
    log = client.get(f"/api/matches/{match_id}").json()["log"]
    assert any(m[1].startswith("give ") for m in log["moves"]), "no exchange was played"

    # the engine's state after each number of moves
    g = shangyou.new_match(log["game"], players=log["players"], seed=log["seed"],
                           **log["options"])
    states = []
    for i in range(len(log["moves"]) + 1):
        states.append({
            "views": {s: json.loads(json.dumps(g.view(s))) for s in range(g.n)},
            "public": json.loads(json.dumps(g.public_view())),
            "hands": [[CARD_TEXT[c] for c in g.hands[s]] for s in range(g.n)],
            # cards openly on offer, and every card of this hand's exchange: all face up (seed
            # 001: the exchanged cards are shown to the other players; seed 000: face up)
            "offered": set((g.view(0).get("exchange") or {}).get("offered") or [])
            | {card for _, _, card in g.public_view().get("exchanged", [])}})
        if i < len(log["moves"]):
            g.apply(log["moves"][i][1])
    card_re = re.compile(r"\b(?:10|[2-9JQKA])[SHDC]\b|\b[BR]J\b")
    checked = exchange_events = 0
    for c in clients:
        for msg in c.received:
            if msg["type"] != "state" or msg["view"] is None:
                continue
            st = states[msg["move_count"]]
            if c.seat is None:
                assert msg["view"] == st["public"]
            else:
                assert msg["view"] == st["views"][c.seat]
            # no card held by another seat appears anywhere in the message, but the cards of
            # the exchange (face up: every seat sees them) and plays (the last play of a hand
            # comes with the deal of the next)
            public = [e for e in msg["last_events"] if e["event"] in ("play", "give", "receive")]
            text = json.dumps([msg["view"], [e for e in msg["last_events"]
                                             if e not in public]])
            others = {card for s, h in enumerate(st["hands"]) if s != c.seat for card in h}
            seen = set(card_re.findall(text)) & (others - st["offered"])
            assert not seen, (c.seat, seen, msg)
            for ev in msg["last_events"]:
                if ev["event"] in ("give", "receive"):
                    # the exchange is face up: its events name the card to everyone, as every
                    # view's `exchanged` does (docs/rules/zheng-shangyou.md)
                    assert ev["card"] in {card for _, _, card in msg["view"]["exchanged"]}
                    assert "hidden" not in ev
                    exchange_events += 1
            checked += 1
    assert checked > 100 and exchange_events > 0


# --------------------------------------------------------------------------- hostile clients
@pytest.fixture
def duel(client):
    """Ann (seat 0) and Bob (seat 1), both people, in a started two-player Owen match; and a
    spectator."""
    tid = new_table(client)
    ann = Player(client, tid, "Ann")
    ann.sit(0)
    bob = Player(client, tid, "Bob")
    bob.sit(1)
    watcher = Player(client, tid, "Watcher")
    ann.send({"type": "start"})
    for p in (ann, bob, watcher):
        p.state_until(lambda s: s["table"]["status"] == "playing")
    yield tid, ann, bob, watcher
    for p in (ann, bob, watcher):
        p.close()


def turn(ann, bob):
    """(the player to act, the other) by the last state."""
    to_act = ann.state["view"]["to_act"]
    return (ann, bob) if to_act == 0 else (bob, ann)


def test_bad_messages_change_nothing(client, duel):
    tid, ann, bob, watcher = duel
    before = snapshot(client, tid)
    mover, other = turn(ann, bob)
    v = mover.state["version"]
    cases = [
        ("{not json", "bad_json"),
        (b"\xff\xfe\x00", "bad_json"),
        ("[1, 2]", "bad_message"),
        ({"type": "dance"}, "bad_message"),
        ({"type": "move", "version": v}, "bad_message"),             # missing field
        ({"type": "move", "move": "pass", "version": "1"}, "bad_message"),   # bad field
        ({"type": "sit", "seat": True}, "bad_message"),
        ({"type": "hello", "token": None, "name": "again"}, "bad_message"),   # not first
        (json.dumps({"type": "chat", "text": "x" * 5000}), "too_big"),
        ("{" + " " * 5000 + "}", "too_big"),
        ({"type": "sit", "seat": 1}, "not_waiting"),
        ({"type": "leave"}, "not_waiting"),
        ({"type": "bots", "level": "random"}, "not_waiting" if mover.host else "not_host"),
        ({"type": "start"}, "not_waiting" if mover.host else "not_host"),
    ]
    for msg, code in cases:
        mover.send(msg)
        err = mover.error()
        assert err["code"] == code, (msg, err)
        assert err["message"]
    assert snapshot(client, tid) == before
    # nobody else heard of any of it: the next message the others get is the next real state
    mover.send({"type": "move", "move": mover.state["view"]["legal_moves"][-1], "version": v})
    for p in (ann, bob, watcher):
        s = p.recv()
        assert s["type"] == "state" and s["version"] == v + 1


def test_moves_out_of_turn_for_others_not_held_illegal(client, duel):
    tid, ann, bob, watcher = duel
    before = snapshot(client, tid)
    mover, other = turn(ann, bob)
    v = mover.state["version"]
    view = mover.state["view"]
    g = server_table(client, tid).game

    # out of turn (a card the other player holds)
    other.send({"type": "move", "move": other.state["view"]["hand"][0], "version": v})
    assert other.error()["code"] == "not_your_turn"
    # for another seat, without its token: a spectator, and a forged token
    watcher.send({"type": "move", "move": view["hand"][0], "version": v})
    assert watcher.error()["code"] == "not_seated"
    forger = Player(client, tid, "Mallory", token=mover.token[:-2] + "xx")
    assert forger.seat is None
    forger.send({"type": "move", "move": view["hand"][0], "version": v})
    assert forger.error()["code"] == "not_seated"
    forger.close()
    # cards not held
    not_held = next(c for c in CARD_TEXT if c not in view["hand"])
    mover.send({"type": "move", "move": not_held, "version": v})
    err = mover.error()
    assert err["code"] == "illegal" and "hold" in err["message"]
    assert "why" not in err                  # no rule of the game: the cards are not held
    # an illegal play: cards held that form no legal play
    hand = view["hand"]
    bad = why = None
    for i in range(len(hand)):
        for j in range(i + 1, len(hand)):
            text = f"{hand[i]} {hand[j]}"
            try:
                g.clone().apply(text)
            except shangyou.IllegalMove as e:
                bad, why = text, e.why
                break
        if bad:
            break
    mover.send({"type": "move", "move": bad, "version": v})
    err = mover.error()
    assert err["code"] == "illegal"
    # the rule the play breaks, in both languages (games/why.py): the page shows it
    assert why is not None and err["why"]["code"] == why.code
    assert err["why"]["text"] == {"en": why.text("en"), "zh": why.text("zh")}
    assert err["message"] == why.text("en")
    mover.send({"type": "move", "move": "not cards", "version": v})
    assert mover.error()["code"] == "illegal"
    # stale
    mover.send({"type": "move", "move": view["legal_moves"][-1], "version": v - 1})
    assert mover.error()["code"] == "stale"
    assert snapshot(client, tid) == before


def test_repeated_action_refused(client, duel):
    tid, ann, bob, watcher = duel
    mover, other = turn(ann, bob)
    v = mover.state["version"]
    play = {"type": "move", "move": mover.state["view"]["legal_moves"][-1], "version": v}
    mover.send(play)
    s = mover.next("state")
    assert s["version"] == v + 1 and s["move_count"] == 1
    other.next("state")
    if s["view"]["to_act"] != mover.seat:
        before = snapshot(client, tid)
        mover.send(play)                       # the same message again: not its turn now
        assert mover.error()["code"] == "not_your_turn"
        assert snapshot(client, tid) == before
        other.send({"type": "move", "move": "pass", "version": v + 1})
        s = mover.next("state")
        other.next("state")
    assert s["view"]["to_act"] == mover.seat
    before = snapshot(client, tid)
    mover.send(play)                           # its turn again: the old version is stale
    assert mover.error()["code"] == "stale"
    assert snapshot(client, tid) == before


def test_flood_is_rate_limited(client, duel):
    tid, ann, bob, watcher = duel
    before = snapshot(client, tid)
    for i in range(80):
        watcher.send({"type": "chat", "text": f"spam {i}"})
    errors = chats = 0
    while errors + chats < 80:
        m = watcher.recv()
        if m["type"] == "error":
            assert m["code"] == "rate_limited"
            errors += 1
        else:
            assert m["type"] == "chat" and m["from"] == "Watcher"
            chats += 1
    assert errors >= 20 and 15 <= chats <= 60
    assert snapshot(client, tid) == before
    # the others got the chat lines that passed, and nothing else
    got = [ann.recv() for _ in range(chats)]
    assert all(m["type"] == "chat" for m in got)


def test_markup_and_control_characters_in_names_and_chat(client):
    tid = new_table(client)
    markup = "<b onclick=x>Bob</b>"
    bob = Player(client, tid, markup)
    bob.sit(0)
    s = bob.state
    assert s["table"]["seats"][0]["name"] == markup     # kept as the characters it is: data
    for bad in ("Bob\x07", "Bob\nBob", "\u202eboB", "x" * 25, 7):
        bob.send({"type": "sit", "seat": 1, "name": bad})
        err = bob.error()
        assert err["code"] == "bad_message", bad
    spaced = Player(client, tid, "  Ann   Lee  ")
    spaced.send({"type": "sit", "seat": 1})
    w = spaced.next("welcome")
    assert w["table"]["seats"][1]["name"] == "Ann Lee"
    spaced.seat, spaced.token = w["seat"], w["token"]
    spaced.next("state")
    bob.next("state")
    line = "<script>alert('hi')</script> & <img src=x onerror=alert(1)>"
    bob.send({"type": "chat", "text": line})
    for p in (bob, spaced):
        m = p.next("chat")
        assert m == {"type": "chat", "from": markup, "text": line, "seat": 0, "role": "host"}
    for bad in ("", "   ", "a\x00b", "line\nbreak", "y" * 201):
        bob.send({"type": "chat", "text": bad})
        assert bob.error()["code"] == "bad_message", bad
    # stored as given: the finished match lists the name as plain data
    bob.send({"type": "start"})
    final = play_to_end([bob, spaced])
    names = client.get(f"/api/matches/{final['table']['match_id']}").json()["names"]
    assert names == [markup, "Ann Lee"]
    bob.close()
    spaced.close()


def test_seating_errors(client):
    tid = new_table(client)
    ann = Player(client, tid, "Ann")
    ann.send({"type": "start"})
    assert ann.error()["code"] == "not_ready"
    ann.send({"type": "leave"})
    assert ann.error()["code"] == "not_seated"
    ann.send({"type": "sit", "seat": 2})
    assert ann.error()["code"] == "bad_message"
    ann.sit(0)
    bob = Player(client, tid, "Bob")
    bob.send({"type": "sit", "seat": 0})
    assert bob.error()["code"] == "seat_taken"
    bob.send({"type": "bots"})             # only the host fills seats and starts
    assert bob.error()["code"] == "not_host"
    bob.send({"type": "start"})
    assert bob.error()["code"] == "not_host"
    ann.send({"type": "start"})
    assert ann.error()["code"] == "not_ready"
    ann.send({"type": "leave"})
    w = ann.next("welcome")
    assert w["seat"] is None and w["token"] == ann.token and w["host"]   # still the host
    s = ann.next("state")
    assert s["table"]["seats"][0]["kind"] == "empty"
    bob.state_until(lambda s: s["table"]["seats"][0]["kind"] == "empty")
    bob.sit(1)
    old_token = bob.token
    bob.send({"type": "leave"})
    w = bob.next("welcome")
    assert w["seat"] is None and w["token"] is None and not w["host"]
    again = Player(client, tid, "Bob", token=old_token)      # a token given up is worthless
    assert again.seat is None and not again.host
    ann.send({"type": "move", "move": "pass", "version": s["version"]})
    assert ann.error()["code"] == "not_playing"
    for p in (ann, bob, again):
        p.close()


def test_first_message_must_be_hello_and_unknown_table(client):
    tid = new_table(client)
    p = Player(client, tid, hello=False)
    p.send({"type": "sit", "seat": 0})
    assert p.error()["code"] == "bad_message"
    p.send({"type": "hello", "token": None, "name": "Ann"})
    assert p.next("welcome")["seat"] is None
    p.close()
    q = Player(client, "nope", hello=False)
    assert q.recv() == {"type": "error", "code": "no_table", "message": "no table 'nope'"}
    with pytest.raises(WebSocketDisconnect):
        q.recv()
    q.close()


def test_bot_only_table_plays_itself(client):
    tid = new_table(client)
    w = Player(client, tid, "Watcher")
    w.send({"type": "bots", "level": "random"})
    s = w.next("state")
    assert [x["bot_level"] for x in s["table"]["seats"]] == ["random", "random"]
    w.send({"type": "start"})
    final = w.state_until(lambda s: s["view"] is not None and s["view"]["phase"] == "over")
    assert final["table"]["status"] == "over" and "hand" not in final["view"]
    # a new match at the same table
    w.send({"type": "start"})
    s = w.next("state")
    assert s["table"]["status"] == "playing" and s["table"]["match_id"] != \
        final["table"]["match_id"]
    w.close()


@pytest.mark.parametrize("db", ["sqlite", "postgresql"])
def test_tables_survive_a_new_app_on_the_same_store(request, tmp_path, db):
    data = tmp_path / "data"
    db_url = request.getfixturevalue("pg_url") if db == "postgresql" else None
    with TestClient(create_app(db_url=db_url, data_dir=data, bot_delay=0)) as c:
        tid = new_table(c)
        ann = Player(c, tid, "Ann")
        ann.sit(0)
        ann.send({"type": "bots"})
        ann.next("state")
        ann.send({"type": "start"})
        s = ann.my_turn_or_over()
        ann.send({"type": "move", "move": s["view"]["legal_moves"][0], "version": s["version"]})
        s = ann.my_turn_or_over()
        token = ann.token
        ann.close()
    with TestClient(create_app(db_url=db_url, data_dir=data, bot_delay=0)) as c:
        again = Player(c, tid, "", token=token)
        assert again.seat == 0
        assert again.state["version"] == s["version"] and again.state["view"] == s["view"]
        final = play_to_end([again])
        assert final["table"]["status"] == "over"
        again.close()
    # a finished table is loaded again on demand, showing how the match ended
    with TestClient(create_app(db_url=db_url, data_dir=data, bot_delay=0)) as c:
        late = Player(c, tid, "late")
        assert late.state["table"]["status"] == "over"
        assert late.state["view"]["result"] == final["view"]["result"]
        assert "hand" not in late.state["view"]
        late.close()


def test_bots_wait_their_delay(tmp_path):
    with TestClient(create_app(data_dir=tmp_path, bot_delay=0.02)) as c:
        tid = new_table(c)
        w = Player(c, tid, "Watcher")
        w.send({"type": "bots"})
        w.next("state")
        t0 = time.monotonic()
        w.send({"type": "start"})
        final = w.state_until(lambda s: s["view"] is not None and s["view"]["phase"] == "over")
        assert time.monotonic() - t0 >= 0.02 * final["move_count"]
        w.close()


def test_replay_steps_of_a_finished_match(client):
    tid = new_table(client)
    w = Player(client, tid, "Watcher")
    w.send({"type": "bots"})
    w.next("state")
    w.send({"type": "start"})
    final = w.state_until(lambda s: s["view"] is not None and s["view"]["phase"] == "over")
    mid = final["table"]["match_id"]
    log = client.get(f"/api/matches/{mid}").json()["log"]
    n = len(log["moves"])
    g = shangyou.new_match(log["game"], players=log["players"], seed=log["seed"],
                           **log["options"])
    norm = lambda x: json.loads(json.dumps(x))    # noqa: E731
    for k in (0, 1, 2, 5):
        r = client.get(f"/api/matches/{mid}/step/{k}?seat=all").json()
        assert r["k"] == k and r["n"] == n
        assert r["views"] == [norm(g.view(s)) for s in range(2)]
        assert r["view"] == norm(g.public_view())
        r1 = client.get(f"/api/matches/{mid}/step/{k}?seat=1").json()
        assert r1["view"] == norm(g.view(1)) and r1["views"] is None
        if k < 5:
            for m in log["moves"][k:(k + 1 if k < 2 else 5)]:
                g.apply(m[1])
    back = client.get(f"/api/matches/{mid}/step/1?seat=public").json()   # stepping back
    assert "hand" not in back["view"] and back["move"] == log["moves"][0]
    last = client.get(f"/api/matches/{mid}/step/{n}?seat=0").json()
    assert last["view"]["phase"] == "over"
    assert client.get(f"/api/matches/{mid}/step/{n + 1}").status_code == 422
    assert client.get(f"/api/matches/{mid}/step/0?seat=7").status_code == 422
    assert client.get("/api/matches/nope/step/0").status_code == 404
    # a running match cannot be stepped through
    w.send({"type": "start"})
    running = w.next("state")["table"]["match_id"]
    assert client.get(f"/api/matches/{running}/step/0").status_code == 404
    w.close()


def test_thinking_bots_move_in_a_worker_while_the_table_answers(client):
    """Heuristic and search bots think in worker processes: a whole hand of a table of them
    is played, and the table answers a newcomer (hello) meanwhile."""
    tid = new_table(client, game="zheng-shangyou/pagat", players=3, options={"target": 1},
                    bots="search")
    ann = Player(client, tid, "Ann")
    ann.send({"type": "bots", "level": "heuristic"})
    ann.state_until(lambda s: all(x["kind"] == "bot" for x in s["table"]["seats"]))
    ann.send({"type": "start"})
    ann.state_until(lambda s: s["table"]["status"] == "playing")
    late = Player(client, tid, "Late")          # joins while bots are thinking
    assert late.state["table"]["status"] in ("playing", "over")
    final = ann.state_until(lambda s: s["table"]["status"] == "over")
    g = server_table(client, tid).game
    assert g.over and len(g.moves) > 3
    assert final["move_count"] == len(g.moves)
    assert {s["bot_level"] for s in final["table"]["seats"]} == {"heuristic"}


def test_ping_is_answered_at_once_before_and_after_hello(client):
    """``ping`` (the page's check of a silent server) gets ``pong`` with its id, before hello
    too; it changes nothing; a bad one is refused as any bad message."""
    tid = new_table(client)
    early = Player(client, tid, hello=False)
    early.send({"type": "ping", "id": 7})
    assert early.next("pong") == {"type": "pong", "id": 7}
    early.send('{"type": "ping"}')                       # the id is optional
    assert early.next("pong") == {"type": "pong", "id": 0}
    early.send({"type": "hello", "name": "Cy"})
    assert early.next("welcome")["seat"] is None
    version = early.next("state")["version"]
    for bad in ({"type": "ping", "id": -1}, {"type": "ping", "id": "x"},
                {"type": "ping", "id": 2 ** 60}):
        early.send(bad)
        assert early.next("error")["code"] == "bad_message", bad
    early.send({"type": "ping", "id": 2 ** 53})
    assert early.next("pong")["id"] == 2 ** 53
    ann = Player(client, tid, "Ann")
    ann.sit(0)
    assert ann.state["version"] == version + 1           # the pings changed nothing
    early.close()
    ann.close()
