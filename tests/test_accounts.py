"""Accounts (server/accounts.py, docs/protocol.md *Accounts*, docs/security.md): sign up, log
in and out, the session cookie, cross-site requests, the login rate limits, deletion; rated
tables (accounts only, no bots), a rated match's ratings moving once (and after a restart),
the history, the leaderboard. Real WebSocket clients play the match (Owen's rules, 2 players,
target 2: the shortest match)."""

from __future__ import annotations

import time
import warnings

import pytest

from shangyou.server import accountdb
from shangyou.server.accounts import COOKIE
from shangyou.server.rows import MatchPlayerRow, RatingRow
from shangyou.server.store import Store, database_url
from test_server import Player, new_table, play_to_end
from test_server_host import client, make_client  # noqa: F401 (client: a fixture)

with warnings.catch_warnings():
    warnings.simplefilter("ignore")      # starlette prefers httpx2 to httpx
    from fastapi.testclient import TestClient

pytestmark = pytest.mark.timeout(120)

PW = "correct horse battery"
RATED = {"room": {"rated": True}}


def sign_up(client, username, password=PW, **kw):
    """A new account; its session cookie (the client's own jar is left empty)."""
    r = client.post("/api/account/signup", json={"username": username, "password": password},
                    **kw)
    assert r.status_code == 200, r.text
    cookie = r.cookies[COOKIE]
    client.cookies.clear()
    return cookie


def me(client, cookie):
    client.cookies.clear()
    return client.get("/api/account", headers={"cookie": f"{COOKIE}={cookie}"})


def player(client, table_id, cookie=None, **kw) -> Player:
    """A socket whose handshake carries ``cookie`` (a logged-in browser's)."""
    client.cookies.clear()
    if cookie:
        client.cookies.set(COOKIE, cookie)
    try:
        return Player(client, table_id, **kw)
    finally:
        client.cookies.clear()


def test_sign_up_log_in_cookie_flags_and_no_fixation(client):
    r = client.post("/api/account/signup", json={"username": "Ann", "password": PW})
    assert r.status_code == 200 and r.json() == {"username": "Ann"}
    flags = [f.strip().lower() for f in r.headers["set-cookie"].split(";")]
    assert "httponly" in flags and "samesite=lax" in flags and "path=/" in flags
    assert "secure" not in flags                # plain http: a Secure cookie would be lost
    first = r.cookies[COOKIE]
    client.cookies.clear()
    assert me(client, first).json()["username"] == "Ann"
    # logging in again (a folded name) gives a new id; the one the browser held ends
    r = client.post("/api/account/login", json={"username": "ＡＮＮ", "password": PW},
                    headers={"cookie": f"{COOKIE}={first}"})
    assert r.status_code == 200 and r.json() == {"username": "Ann"}
    second = r.cookies[COOKIE]
    assert second != first
    assert me(client, first).status_code == 401
    assert me(client, second).json()["username"] == "Ann"
    # over https (or behind a proxy that says so) the cookie is Secure
    with TestClient(client.app, base_url="https://testserver") as tls:
        r = tls.post("/api/account/login", json={"username": "ann", "password": PW})
        assert r.status_code == 200
        assert "secure" in [f.strip().lower() for f in r.headers["set-cookie"].split(";")]


def test_wrong_password_answers_as_an_unknown_user(client):
    sign_up(client, "ann")
    wrong = client.post("/api/account/login", json={"username": "ann", "password": "nope" * 3})
    unknown = client.post("/api/account/login", json={"username": "zed", "password": PW})
    assert wrong.status_code == unknown.status_code == 401
    assert wrong.json() == unknown.json() == {"code": "bad_login", "detail":
                                              "wrong username or password",
                                              "message": "wrong username or password"}
    assert COOKIE not in wrong.cookies and COOKIE not in unknown.cookies


def test_account_rules(client):
    for name, pw in (("ab", PW), ("a" * 21, PW), ("has space", PW), ("_x1", PW),
                     ("ann", "short"), ("ann", "x" * 129), ("ann", 12345678)):
        r = client.post("/api/account/signup", json={"username": name, "password": pw})
        assert r.status_code == 422 and r.json()["code"] == "bad_request", (name, pw, r.text)
    sign_up(client, "李小龙")
    r = client.post("/api/account/signup", json={"username": "李小龙", "password": PW})
    assert r.status_code == 409 and r.json()["code"] == "name_taken"
    r = client.post("/api/account/signup", json={"username": "bob", "password": "BOB"})
    assert r.status_code == 422


def test_login_is_rate_limited_per_username_and_per_address(tmp_path):
    with make_client(tmp_path, logins_per_minute_account=3,
                     logins_per_minute_address=5) as c:
        sign_up(c, "ann")
        for _ in range(3):
            assert c.post("/api/account/login",
                          json={"username": "ann", "password": "guess" * 3}).status_code == 401
        # the username's bucket is empty: even the right password waits
        r = c.post("/api/account/login", json={"username": "ANN", "password": PW})
        assert r.status_code == 429 and r.json()["code"] == "rate_limited"
        # another username from the same address: two more, then the address is out
        for code in (401, 401, 429):
            r = c.post("/api/account/login", json={"username": "bob", "password": PW})
            assert r.status_code == code, r.text


def test_logout_revokes_the_session(client):
    cookie = sign_up(client, "ann")
    r = client.post("/api/account/logout", json={}, headers={"cookie": f"{COOKIE}={cookie}"})
    assert r.status_code == 200
    assert 'max-age=0' in r.headers["set-cookie"].lower()
    assert me(client, cookie).status_code == 401       # the id is gone from the store too
    # the top bar's question: a guest (or a revoked session) is null, never a failed request
    who = client.get("/api/account/who", headers={"cookie": f"{COOKIE}={cookie}"})
    assert who.status_code == 200 and who.json() == {"username": None}
    fresh = sign_up(client, "bea")
    who = client.get("/api/account/who", headers={"cookie": f"{COOKIE}={fresh}"})
    assert who.status_code == 200 and who.json() == {"username": "bea"}


def test_cross_site_requests_are_refused(client):
    body = {"username": "ann", "password": PW}
    r = client.post("/api/account/signup", json=body, headers={"origin": "http://evil.test"})
    assert r.status_code == 403 and r.json()["code"] == "cross_origin"
    r = client.post("/api/account/signup", json=body,
                    headers={"sec-fetch-site": "cross-site"})
    assert r.status_code == 403
    r = client.post("/api/account/signup", content=f"username=ann&password={PW}",
                    headers={"content-type": "application/x-www-form-urlencoded"})
    assert r.status_code in (415, 422)
    r = client.post("/api/account/signup", content='{"username": "ann", "password": "%s"}' % PW,
                    headers={"content-type": "text/plain"})
    assert r.status_code in (415, 422)
    assert client.post("/api/account/login", json=body).status_code == 401   # none was made
    cookie = sign_up(client, "ann", headers={"origin": "http://testserver",
                                             "sec-fetch-site": "same-origin"})
    r = client.post("/api/account/delete", json={"password": PW},
                    headers={"cookie": f"{COOKIE}={cookie}", "origin": "http://evil.test"})
    assert r.status_code == 403
    r = client.post("/api/account/logout", json={},
                    headers={"cookie": f"{COOKIE}={cookie}", "origin": "https://testserver"})
    assert r.status_code == 403                     # another scheme is another origin
    assert me(client, cookie).status_code == 200


def test_rated_table_seats_accounts_only_and_no_bots(client):
    ann = sign_up(client, "ann")
    tid = new_table(client, **RATED)
    host = player(client, tid, name="guest")           # the creator, not logged in
    host.send({"type": "sit", "seat": 0, "name": "ann"})
    assert host.error()["code"] == "account_required"
    host.send({"type": "bots"})
    assert host.error()["code"] == "rated_no_bots"
    host.send({"type": "options", "room": {"rated": False}})
    assert host.error()["code"] == "bad_option"
    a = player(client, tid, ann, host=False)
    a.sit(1, name="someone else")
    assert a.state["table"]["seats"][1]["name"] == "ann"     # the account's name, not typed
    a2 = player(client, tid, ann, host=False)          # the same account, another window
    a2.send({"type": "sit", "seat": 0})
    assert a2.error()["code"] == "already_seated"
    # a casual table: a guest typing an account's name is marked as a guest
    casual = new_table(client)
    g = player(client, casual)
    g.sit(0, name="ANN")
    assert g.state["table"]["seats"][0]["name"] == "ANN (guest)"


def _rating(client, cookie, game="zheng-shangyou"):
    out = me(client, cookie).json()
    return next((r for r in out["ratings"] if r["game"] == game), None), out


def _rated_match(client, ann: str, bob: str) -> str:
    """Ann (the host) and Bob play a rated match to its end; its id, once both are rated."""
    tid = new_table(client, **RATED)
    a = player(client, tid, ann)                   # the host
    a.sit(0)
    b = player(client, tid, bob, host=False)
    b.sit(1)
    a.send({"type": "start"})
    a.next("state")
    final = play_to_end([a, b])
    deadline = time.monotonic() + 60
    while (_rating(client, ann)[0] is None or _rating(client, bob)[0] is None) \
            and time.monotonic() < deadline:
        time.sleep(0.05)
    return final["table"]["match_id"]


def test_rated_match_on_postgresql(tmp_path, pg_url):
    with make_client(tmp_path, db_url=pg_url) as client:
        ann, bob = sign_up(client, "ann"), sign_up(client, "bob")
        match_id = _rated_match(client, ann, bob)
        ra, rb = _rating(client, ann)[0], _rating(client, bob)[0]
        assert ra["matches"] == rb["matches"] == 1 and ra["wins"] + rb["wins"] == 1
        assert accountdb.rate_match(client.app.state.manager.store.store, match_id) is False
        r = client.post("/api/account/delete", json={"password": PW},
                        headers={"cookie": f"{COOKIE}={bob}"})
        assert r.status_code == 200
        assert client.get(f"/api/matches/{match_id}").json()["names"] == ["ann", "(deleted)"]
        assert _rating(client, ann)[0] == ra


def test_rated_match_rates_once_history_restart_and_deletion(tmp_path):
    data = tmp_path / "data"
    with make_client(tmp_path) as client:
        ann, bob = sign_up(client, "ann"), sign_up(client, "bob")
        match_id = _rated_match(client, ann, bob)
        ra, out_a = _rating(client, ann)
        rb, _ = _rating(client, bob)
        assert ra["matches"] == rb["matches"] == 1
        won = out_a["history"][0]["won"]
        assert ra["wins"] == int(won) and rb["wins"] == int(not won)
        assert (ra["rating"] > rb["rating"]) == won
        h = out_a["history"][0]
        assert h["match_id"] == match_id and h["replay"] == f"/replay/{match_id}"
        assert h["rated"] and h["names"] == ["ann", "bob"] and h["after"] == ra["rating"]
        # shown as whole numbers from 1500 (a new player), the winner up and the loser down
        assert h["before"] == 1500 and isinstance(ra["rating"], int)
        assert (ra["rating"] > 1500) == won and (rb["rating"] > 1500) == (not won)
        assert out_a["stats"] == [{"game": "zheng-shangyou", "matches": 1, "wins": int(won),
                                   "first": int(h["place"] == 1)}]
        board = client.get("/api/leaderboard", params={"game": "zheng-shangyou"}).json()
        assert [p["name"] for p in board["players"]] == (["ann", "bob"] if won
                                                          else ["bob", "ann"])
        assert client.get("/api/leaderboard", params={"game": "chess"}).status_code == 422
        store = client.app.state.manager.store.store
        assert accountdb.rate_match(store, match_id) is False      # once only
    # a node that stopped before rating: the match is rated when the next one starts
    store = Store(database_url(None, data))
    with store.session() as s, s.begin():
        for r in s.query(MatchPlayerRow).filter_by(match_id=match_id):
            r.rated_at = r.before = r.after = None
        s.query(RatingRow).delete()
    store.close()
    with make_client(tmp_path) as client:
        deadline = time.monotonic() + 60
        while _rating(client, ann)[0] is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _rating(client, ann)[0] == ra and _rating(client, bob)[0] == rb
        # deletion: the password again; then no login, no rating, the name anonymised
        hdr = {"cookie": f"{COOKIE}={ann}"}
        r = client.post("/api/account/delete", json={"password": "wrong" * 3}, headers=hdr)
        assert r.status_code == 401
        r = client.post("/api/account/delete", json={"password": PW}, headers=hdr)
        assert r.status_code == 200 and r.json()["matches_anonymised"] == 1
        client.cookies.clear()
        assert me(client, ann).status_code == 401
        assert client.post("/api/account/login",
                           json={"username": "ann", "password": PW}).status_code == 401
        assert client.get(f"/api/matches/{match_id}").json()["names"] == ["(deleted)", "bob"]
        board = client.get("/api/leaderboard", params={"game": "zheng-shangyou"}).json()
        assert [p["name"] for p in board["players"]] == ["bob"]
        assert me(client, bob).json()["history"][0]["names"] == ["(deleted)", "bob"]
        # the name is free again
        sign_up(client, "ann")


def test_play_now_plays_under_the_account_and_a_guest_cannot_take_its_name(client):
    """Play now (POST /api/play) names the seat as sitting does: a logged-in person by their
    username, whatever they typed, with the match in their history; a guest who types an
    account's name is marked as a guest."""
    cookie = sign_up(client, "ann")
    r = client.post("/api/play", json={"game": "owen", "players": 2, "options": {"target": 2},
                                       "name": "Someone else"},
                    headers={"cookie": f"{COOKIE}={cookie}"})
    assert r.status_code == 200, r.text
    out = r.json()
    t = client.app.state.manager.tables[out["table_id"]]
    assert t.seats[0].name == "ann"
    ann = player(client, out["table_id"], cookie, token=out["token"])
    play_to_end([ann])
    deadline = time.monotonic() + 60
    while not me(client, cookie).json()["history"] and time.monotonic() < deadline:
        time.sleep(0.2)
    h = me(client, cookie).json()["history"]
    assert [m["match_id"] for m in h] == [t.match_id] and not h[0]["rated"]
    client.cookies.clear()
    r = client.post("/api/play", json={"game": "owen", "players": 2, "name": "ann"})
    assert r.status_code == 200, r.text
    guest = client.app.state.manager.tables[r.json()["table_id"]]
    assert guest.seats[0].name == "ann (guest)"


def test_account_reads_are_rate_limited_per_address(tmp_path):
    """who, the account and the leaderboard ask the store: one address gets its share a minute,
    then 429 rate_limited (a flood of made-up session cookies cannot hog the store's thread)."""
    with make_client(tmp_path, account_reads_per_minute_address=3) as client:
        bogus = {"cookie": f"{COOKIE}={'x' * 40}"}
        assert client.get("/api/account/who", headers=bogus).status_code == 200
        assert client.get("/api/account", headers=bogus).status_code == 401
        assert client.get("/api/leaderboard", params={"game": "sheng-ji"}).status_code == 200
        for path in ("/api/account/who", "/api/account", "/api/leaderboard?game=sheng-ji"):
            r = client.get(path, headers=bogus)
            assert r.status_code == 429 and r.json()["code"] == "rate_limited", path
