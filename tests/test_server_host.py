"""The table belongs to its host; one client cannot stall the server; deals are committed
before the start and published at the end (docs/protocol.md, docs/security.md,
docs/fairness.md). Every refusal is checked to change nothing."""

from __future__ import annotations

import asyncio
import contextlib
import json
import warnings

import pytest

from test_server import HOST_TOKENS, OPEN, Player, new_table, play_to_end, server_table

from shangyou import fairness
from shangyou.engine import deal
from shangyou.server import create_app
from shangyou.server.limits import Clients, Limits, origin_allowed
from shangyou.server.model import Refused
from shangyou.server.store import AsyncStore, Store
from shangyou.server.tables import TableManager

with warnings.catch_warnings():
    warnings.simplefilter("ignore")      # starlette prefers httpx2 to httpx
    from fastapi.testclient import TestClient
    from starlette.websockets import WebSocketDisconnect

pytestmark = pytest.mark.timeout(90)


@contextlib.contextmanager
def make_client(tmp_path, db_url=None, **limits):
    """A client of a server with these limits (its data in ``tmp_path / "data"``, the store
    there or at ``db_url``); its sockets are closed before it stops."""
    with TestClient(create_app(db_url=db_url, data_dir=tmp_path / "data", bot_delay=0,
                               limits=Limits(**limits))) as c:
        try:
            yield c
        finally:
            while OPEN:
                OPEN.pop().close()


@pytest.fixture
def client(tmp_path):
    with make_client(tmp_path) as c:
        yield c


def skip_to(p: Player, kind: str) -> dict:
    """The next message of this type, skipping the states broadcast meanwhile."""
    while True:
        msg = p.recv()
        if msg["type"] == kind:
            return msg


def stored(client, tid):
    t = server_table(client, tid)
    return t.version, [(s.kind, s.name, s.token_hash) for s in t.seats], t.status, \
        dict(t.options), dict(t.room), t.host_hash


# ------------------------------------------------------------------------------- the host
def test_only_the_host_sets_up_the_table(client):
    tid = new_table(client, game="zheng-shangyou/pagat", players=4, options={})
    host_token = HOST_TOKENS[tid]
    stranger = Player(client, tid, "Eve", host=False)     # came from the lobby first
    assert not stranger.host
    stranger.sit(1)
    before = stored(client, tid)
    for msg in ({"type": "bots"}, {"type": "bots", "seat": 2}, {"type": "start"},
                {"type": "kick", "seat": 1}, {"type": "swap", "seat": 0, "to": 1},
                {"type": "options", "options": {"target": 5}}, {"type": "host", "seat": 1},
                {"type": "close"}):
        stranger.send(msg)
        assert stranger.error()["code"] == "not_host", msg
    assert stored(client, tid) == before

    ann = Player(client, tid, "Ann", token=host_token)
    assert ann.host and ann.seat is None                  # the host need not sit
    ann.sit(0)
    assert ann.token == host_token                        # ... and sits with the same token
    assert ann.state["table"]["host"] == 0
    ann.send({"type": "bots", "seat": 2, "level": "random"})
    s = ann.state_until(lambda s: s["table"]["seats"][2]["kind"] == "bot")
    assert s["table"]["seats"][3]["kind"] == "empty"
    ann.send({"type": "swap", "seat": 1, "to": 3})        # Eve moves to seat 3
    w = skip_to(stranger, "welcome")
    assert w["seat"] == 3 and w["token"] == stranger.token
    stranger.seat = 3
    s = ann.state_until(lambda s: s["table"]["seats"][3]["name"] == "Eve")
    assert s["table"]["seats"][1]["kind"] == "empty"
    ann.send({"type": "options", "options": {"target": 5}, "room": {"listed": False}})
    s = ann.state_until(lambda s: s["table"]["options"].get("target") == 5)
    assert s["table"]["room"]["listed"] is False
    assert client.get("/api/tables").json()["total"] == 0          # link-only now
    ann.send({"type": "options", "options": {"target": 10 ** 6}})
    assert ann.error()["code"] == "bad_message"           # over the schema's bound
    ann.send({"type": "options", "options": {"twos_in_sequences": "maybe"}})
    assert ann.error()["code"] == "bad_option"
    ann.send({"type": "kick", "seat": 2})                 # a bot is removed before the start
    ann.state_until(lambda s: s["table"]["seats"][2]["kind"] == "empty")
    ann.send({"type": "kick", "seat": 3})                 # and a person becomes a spectator
    assert stranger.error()["code"] == "kicked"
    w = skip_to(stranger, "welcome")
    assert w["seat"] is None and w["token"] is None
    stranger.send({"type": "sit", "seat": 3})
    assert stranger.error()["code"] == "kicked"
    ann.send({"type": "bots"})
    ann.state_until(lambda s: all(x["kind"] != "empty" for x in s["table"]["seats"]))
    ann.send({"type": "start"})
    s = ann.state_until(lambda s: s["table"]["status"] == "playing")
    assert s["table"]["commitment"] and s["table"]["secret"] is None


def test_host_role_handed_on_and_kick_during_a_match(client):
    tid = new_table(client)                      # Owen, 2 players
    ann = Player(client, tid, "Ann")
    ann.sit(0)
    bob = Player(client, tid, "Bob")
    bob.sit(1)
    ann.send({"type": "host", "seat": 1})
    assert skip_to(bob, "welcome")["host"] is True
    assert skip_to(ann, "welcome")["host"] is False
    s = ann.state_until(lambda s: s["table"]["host"] == 1)
    ann.send({"type": "start"})
    assert ann.error()["code"] == "not_host"
    bob.send({"type": "start"})
    bob.state_until(lambda s: s["table"]["status"] == "playing")
    bob.send({"type": "kick", "seat": 0})        # Ann's seat is played by a bot to the end
    assert ann.error()["code"] == "kicked"
    s = bob.state_until(lambda s: s["table"]["seats"][0]["kind"] == "bot")
    assert s["table"]["status"] == "playing"
    final = play_to_end([bob])
    assert final["table"]["status"] == "over"


def test_absent_person_loses_a_waiting_seat_and_the_host_role_moves(tmp_path):
    with make_client(tmp_path) as client:
        r = client.post("/api/tables", json={"game": "owen", "players": 3,
                                             "room": {"grace": 0}})
        tid, token = r.json()["table_id"], r.json()["host_token"]
        ann = Player(client, tid, "Ann", token=token)
        ann.sit(0)
        bob = Player(client, tid, "Bob")
        bob.sit(1)
        ann.close()                              # the host goes away: after the grace period
        assert skip_to(bob, "welcome")["host"] is True    # the role passes to a person here
        s = bob.state_until(lambda s: s["table"]["seats"][0]["kind"] == "empty")
        assert s["table"]["host"] == 1
        bob.send({"type": "bots"})
        bob.send({"type": "start"})
        bob.state_until(lambda s: s["table"]["status"] == "playing")
        bob.close()


def test_close_ends_the_table_for_everyone(client):
    tid = new_table(client)
    ann = Player(client, tid, "Ann")
    watcher = Player(client, tid, "W")
    ann.send({"type": "close"})
    for p in (ann, watcher):
        p.state_until(lambda s: s["table"]["status"] == "closed")
        assert skip_to(p, "error")["code"] == "closed"
        with pytest.raises(WebSocketDisconnect) as e:
            p.recv()
        assert e.value.code == 4410
    late = Player(client, tid, hello=False)
    assert late.recv()["code"] == "closed"               # not "no such table": it was closed
    with pytest.raises(WebSocketDisconnect) as e:
        late.recv()
    assert e.value.code == 4410
    assert client.get("/api/tables").json()["total"] == 0


def test_chat_says_who_speaks(client):
    tid = new_table(client)
    ann = Player(client, tid, "Ann")
    ann.sit(0)
    bob = Player(client, tid, "Bob")
    bob.sit(1)
    eve = Player(client, tid, "Ann")             # a spectator who calls herself Ann
    eve.send({"type": "chat", "text": "I am Ann"})
    bob.send({"type": "chat", "text": "hi"})
    ann.send({"type": "chat", "text": "hello"})
    lines = [skip_to(ann, "chat") for _ in range(3)]
    assert [(m["from"], m["seat"], m["role"]) for m in lines] == [
        ("Ann", None, "spectator"), ("Bob", 1, "player"), ("Ann", 0, "host")]


# ------------------------------------------------------------------------------- fair deals
def test_the_deal_is_committed_then_published_and_verifies(client):
    tid = new_table(client)
    ann = Player(client, tid, "Ann")
    ann.sit(0)
    ann.send({"type": "bots"})
    ann.send({"type": "start"})
    s = ann.state_until(lambda s: s["table"]["status"] == "playing")
    commitment = s["table"]["commitment"]
    assert len(commitment) == 64 and s["table"]["secret"] is None
    secret = server_table(client, tid).secret
    assert deal.is_secret(secret) and deal.commitment(secret) == commitment
    hand = s["view"]["hand"]
    for msg in ann.received:                     # the secret reaches no client while live
        assert secret not in json.dumps(msg)
    final = play_to_end([ann])
    assert final["table"]["secret"] == secret    # published with the end
    mid = final["table"]["match_id"]
    log = client.get(f"/api/matches/{mid}").json()["log"]
    assert log["seed"] == secret and log["commitment"] == commitment
    dealt = hand.split() if isinstance(hand, str) else list(hand)
    assert sorted(log["deals"][0]["hands"][0]) == sorted(dealt)   # what Ann was dealt
    assert fairness.verify(log, commitment).ok
    v = client.get(f"/api/matches/{mid}/verify").json()
    assert v["ok"] and v["commitment_ok"] and v["replays"] and v["deals_ok"]
    assert v["hands"] == len(log["deals"]) >= 1
    forged = dict(log, seed=deal.new_secret())
    assert not fairness.verify(forged, commitment).ok


# ---------------------------------------------------------------------------------- limits
def test_table_creation_rate_and_waiting_caps(tmp_path):
    with make_client(tmp_path, tables_per_minute=3, waiting_per_address=5) as client:
        body = {"game": "owen", "players": 2}
        for _ in range(3):
            assert client.post("/api/tables", json=body).status_code == 200
        r = client.post("/api/tables", json=body)
        assert r.status_code == 429 and r.json()["code"] == "rate_limited"
        assert client.get("/api/tables").json()["total"] == 3
    with make_client(tmp_path / "b", waiting_per_address=2) as client:
        for _ in range(2):
            assert client.post("/api/tables", json=body).status_code == 200
        r = client.post("/api/tables", json=body)
        assert r.status_code == 429 and r.json()["code"] == "too_many_tables"
    with make_client(tmp_path / "c", waiting_total=1) as client:
        assert client.post("/api/tables", json=body).status_code == 200
        r = client.post("/api/tables", json=body)
        assert r.status_code == 429 and r.json()["code"] == "too_many_tables"
    # an allowance multiplies the per-address limits of its network, nothing else
    clients = Clients(Limits(tables_per_minute=1, sockets_per_address=1,
                             allowance=("10.0.0.0/8",), allowance_factor=5))
    assert [clients.may_create("10.1.2.3") for _ in range(6)] == [True] * 5 + [False]
    assert [clients.may_create("192.0.2.1") for _ in range(2)] == [True, False]
    assert [clients.socket_opened("10.0.0.1") for _ in range(6)] == [True] * 5 + [False]
    assert [clients.socket_opened("192.0.2.1") for _ in range(2)] == [True, False]


def test_an_expired_table_of_no_address_no_longer_counts(tmp_path):
    """A table created without a client address counts under "?" while it waits, and stops
    counting when it expires, like any other: the cap frees again."""
    async def main():
        store = AsyncStore(Store(f"sqlite:///{tmp_path / 'tables.db'}"))
        # waiting_ttl < 0: every waiting table nobody has open expires at the next sweep
        manager = TableManager(store, bot_delay=0,
                               limits=Limits(waiting_per_address=1, waiting_ttl=-60.0))
        try:
            t, _ = await manager.create_table("owen", 2, {}, "greedy", address=None)
            assert manager.clients.waiting_full(None)
            with pytest.raises(Refused) as refused:
                await manager.create_table("owen", 2, {}, "greedy", address=None)
            assert refused.value.code == "too_many_tables"
            assert (await manager.sweep()).ids == [t.id]
            assert not manager.clients.waiting_full(None)
            t2, _ = await manager.create_table("owen", 2, {}, "greedy", address=None)
            assert t2.status == "waiting"
        finally:
            store.close()

    asyncio.run(main())


def test_lobby_pages(tmp_path):
    with make_client(tmp_path, tables_per_minute=100, waiting_per_address=100) as client:
        ids = [client.post("/api/tables", json={"game": "owen", "players": 2}).json()["table_id"]
               for _ in range(7)]
        hidden = client.post("/api/tables", json={"game": "owen", "players": 2,
                                                  "room": {"listed": False}})
        assert hidden.status_code == 200
        p1 = client.get("/api/tables?limit=3").json()
        p3 = client.get("/api/tables?limit=3&offset=6").json()
        assert p1["total"] == 7 and len(p1["tables"]) == 3 and len(p3["tables"]) == 1
        seen = [t["table_id"] for o in (0, 3, 6)
                for t in client.get(f"/api/tables?limit=3&offset={o}").json()["tables"]]
        assert sorted(seen) == sorted(ids)                 # every listed table, once
        assert seen[0] == ids[-1]                           # newest first
        for bad in ("limit=0", "limit=101", "offset=-1", "limit=x"):
            r = client.get(f"/api/tables?{bad}")
            assert r.status_code == 422 and r.json()["code"] == "bad_request"


def test_abandoned_empty_tables_leave_the_lobby(tmp_path):
    with make_client(tmp_path, empty_listed_seconds=0) as client:
        empty = new_table(client)                  # made, and its creator never came
        watched = new_table(client)
        w = Player(client, watched, "W")           # somebody has this one open
        seated = new_table(client)
        ann = Player(client, seated, "Ann")
        ann.sit(0)
        ann.close()                                # gone, but her seat is held (grace period)
        listed = {t["table_id"] for t in client.get("/api/tables").json()["tables"]}
        assert listed == {watched, seated}
        late = Player(client, empty, "Bob")        # the link still works
        assert late.state["table"]["status"] == "waiting"
        listed = {t["table_id"] for t in client.get("/api/tables").json()["tables"]}
        assert empty in listed
        w.close()
        late.close()


def test_waiting_tables_expire_and_idle_ones_leave_memory(tmp_path):
    with make_client(tmp_path, waiting_ttl=0, idle_seconds=0, sweep_seconds=3600) as client:
        manager = client.app.state.manager
        old = new_table(client)
        watched = new_table(client)
        w = Player(client, watched, "W")
        swept = client.portal.call(manager.sweep)
        assert swept.expired == 1 and swept.ids == [old]
        assert old not in manager.tables and watched in manager.tables
        late = Player(client, old, hello=False)
        assert late.recv()["code"] == "closed"             # expired: gone for good
        assert client.get("/api/tables").json()["total"] == 1
        w.close()
        late.close()


def test_sockets_per_table_and_address_and_hello_timeout(tmp_path):
    with make_client(tmp_path, sockets_per_table=2, sockets_per_address=3,
                     hello_seconds=0.2) as client:
        tid = new_table(client)
        a = Player(client, tid, "A")
        b = Player(client, tid, "B")
        c = Player(client, tid, hello=False)
        assert c.recv()["code"] == "too_many_sockets"
        with pytest.raises(WebSocketDisconnect) as e:
            c.recv()
        assert e.value.code == 4429
        other = new_table(client)
        d = Player(client, other, "D")                     # the address's third socket
        e2 = Player(client, other, hello=False)            # its fourth
        assert e2.recv()["code"] == "too_many_sockets"
        d.close()
        quiet = Player(client, other, hello=False)         # never says hello
        assert quiet.recv()["code"] == "hello_timeout"
        with pytest.raises(WebSocketDisconnect) as e:
            quiet.recv()
        assert e.value.code == 4408
        for p in (a, b, c, e2, quiet):
            p.close()


def test_websocket_origin_is_checked(client):
    tid = new_table(client)
    ok = client.websocket_connect(f"/ws/{tid}", headers={"origin": "http://testserver"})
    with ok as ws:
        ws.send_text(json.dumps({"type": "hello", "token": None, "name": "x"}))
        assert json.loads(ws.receive_text())["type"] == "welcome"
    with pytest.raises(WebSocketDisconnect) as e:
        with client.websocket_connect(f"/ws/{tid}", headers={"origin": "http://evil.example"}):
            pass
    assert e.value.code == 4403
    assert origin_allowed(None, "h:1", "http")
    assert origin_allowed("https://h", "h", "https") and not origin_allowed("http://h", "h",
                                                                             "https")
    assert origin_allowed("http://h:8000", "h:8000", "ws")
    assert not origin_allowed("http://h:8001", "h:8000", "ws")
    assert origin_allowed("http://other:1", "h", "http", ("http://other:1",))
    assert origin_allowed("null", "h", "http", ("*",)) and not origin_allowed("null", "h", "http")


def test_deep_json_and_bounded_options(client):
    tid = new_table(client)
    p = Player(client, tid, "A")
    before = stored(client, tid)
    p.send("[" * 2000 + "]" * 2000)
    assert p.error()["code"] == "bad_message"
    deep = "{" + '"a":' * 1 + "[" * 5000 + "]" * 5000 + "}"
    r = client.post("/api/tables", content=deep, headers={"content-type": "application/json"})
    assert r.status_code == 422 and r.json()["code"] == "bad_request"
    for options in ({"target": 10 ** 30}, {"hands": 10 ** 9}, {"x" * 40: 1}, {"target": "y" * 40}):
        r = client.post("/api/tables", json={"game": "owen", "players": 2, "options": options})
        assert r.status_code == 422, options
    r = client.post("/api/tables", json={"game": "winner", "players": 4,
                                         "options": {"hands": 10 ** 3 + 1}})
    assert r.status_code == 422
    # a short list of values is an option value too (Sheng ji's ranks that must be played)
    r = client.post("/api/tables", json={"game": "sheng-ji", "options": {
        "must_play_ranks": ["5", "10", "K"]}})
    assert r.status_code == 200, r.text
    for bad in ([[1]], list(range(17)), ["x" * 40]):
        r = client.post("/api/tables", json={"game": "sheng-ji", "options": {
            "must_play_ranks": bad}})
        assert r.status_code == 422, bad
    assert stored(client, tid) == before
    assert client.get("/api/tables").json()["total"] == 2


def test_http_body_limit_any_encoding(client):
    big = b"{" + b" " * (20 * 1024) + b"}"
    r = client.post("/api/tables", content=big, headers={"content-type": "application/json"})
    assert r.status_code == 413 and r.json()["code"] == "too_big"

    def chunks():
        for _ in range(64):
            yield b" " * 1024
    r = client.post("/api/tables", content=chunks(), headers={"content-type": "application/json"})
    assert r.status_code == 413 and r.json()["code"] == "too_big"
    assert client.get("/api/tables").json()["total"] == 0


def test_lazy_start_with_many_waiting_tables(tmp_path):
    with make_client(tmp_path, tables_per_minute=10 ** 4, waiting_per_address=10 ** 4) as client:
        for _ in range(300):
            assert client.post("/api/tables", json={"game": "owen", "players": 2}).status_code \
                == 200
    with make_client(tmp_path) as client:
        manager = client.app.state.manager
        # answers at once; the most recent tables come back in the background, the rest on
        # demand
        assert client.get("/healthz").json() == {"ok": True}
        client.portal.call(asyncio.sleep, 0)
        for _ in range(2000):
            if len(manager.tables) >= manager.RELOAD_AT_START:
                break
            client.portal.call(asyncio.sleep, 0.01)
        assert len(manager.tables) == manager.RELOAD_AT_START
