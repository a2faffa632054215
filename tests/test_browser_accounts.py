"""Accounts in headless Chromium on a phone (390x844), against the real server: sign up on the
account page, log out and in again (the session cookie is HttpOnly and SameSite=Lax), the
lobby's link names the account; a rated match of two accounts (the browser's own session and
another one's, played by WebSocket clients with the greedy bot's moves: Owen's rules, two
players, target 2) shows on the account page as a rating, stats and a history entry with its
replay, and on the leaderboard; then the account is deleted from the page.
"""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request

import pytest
from websockets.sync.client import connect

from shangyou.bots.base import make_bot
from shangyou.server.accounts import COOKIE
from test_browser import browser, serve  # noqa: F401 (browser: a fixture)
from test_browser_table import LOOPBACK, PHONE, _no_horizontal_scroll, _shot, _watch
from test_cluster import WAIT, Client, over, play_turns

pytestmark = pytest.mark.timeout(240)

PW = "correct horse battery"
FLAGS: set[str] = set()       # the flags of the last session cookie _post got


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    yield from serve(tmp_path_factory.mktemp("web-accounts-data"), "--bot-delay", "0",
                     *LOOPBACK)


class _Site:
    """The server as :class:`test_cluster.Client` opens sockets on it, with a session cookie."""

    def __init__(self, base: str, cookie: str):
        self.base, self.cookie = base, cookie

    def ws(self, table_id):
        return connect(f"{self.base.replace('http', 'ws', 1)}/ws/{table_id}",
                       additional_headers={"Cookie": f"{COOKIE}={self.cookie}"},
                       open_timeout=WAIT, max_queue=None, ping_interval=None)


def _post(base: str, path: str, body: dict, **headers) -> tuple[int, dict, str | None]:
    """POST ``body`` as JSON; the status, the answer and the session cookie it sets (its
    flags go to :data:`FLAGS`)."""
    req = urllib.request.Request(base + path, data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json", **headers})
    try:
        with urllib.request.urlopen(req, timeout=WAIT) as r:
            set_cookie = r.headers.get("Set-Cookie") or ""
            FLAGS.clear()
            FLAGS.update(f.strip().lower() for f in set_cookie.split(";")[1:])
            cookie = re.search(rf"{COOKIE}=([^;]+)", set_cookie)
            return r.status, json.loads(r.read()), cookie.group(1) if cookie else None
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read()), None


def _session(ctx) -> dict:
    return next(c for c in ctx.cookies() if c["name"] == COOKIE)


def _rated_match(base: str, ann: str, bob: str) -> str:
    """Ann (the host) and Bob play a rated match to its end; its id."""
    status, table, _ = _post(base, "/api/tables", {
        "game": "zheng-shangyou/owen", "players": 2, "options": {"target": 2},
        "room": {"rated": True}})
    assert status == 200, table
    a = Client(_Site(base, ann), table["table_id"], token=table["host_token"])
    a.send({"type": "sit", "seat": 0})
    a.until(lambda s: s["table"]["seats"][0]["kind"] == "human")
    b = Client(_Site(base, bob), table["table_id"])
    b.send({"type": "sit", "seat": 1})
    b.until(lambda s: s["table"]["seats"][1]["kind"] == "human")
    a.send({"type": "start"})
    final = play_turns({0: a, 1: b}, {0: make_bot("greedy", 1), 1: make_bot("greedy", 2)},
                       lambda s: False)
    assert over(final) and final["table"]["seats"][0]["name"] == "ann"
    a.sockets.close()
    b.sockets.close()
    return final["table"]["match_id"]


def test_account_page_sign_up_rated_match_history_leaderboard_delete(server, browser):
    errors: list[str] = []
    ctx = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True)
    page = _watch(ctx.new_page(), errors)
    page.goto(server + "/account")
    page.wait_for_selector("body[data-ready='1'] #login-panel:not([hidden])")
    page.fill("#username", "ann")
    page.fill("#password", PW)
    page.click("#do-signup")
    page.wait_for_selector("#me-panel:not([hidden])")
    assert page.text_content("#me-name") == "ann"
    first = _session(ctx)
    assert first["httpOnly"] and first["sameSite"] == "Lax"
    assert page.evaluate("document.cookie").find(COOKIE) < 0      # out of the scripts' reach
    page.click("#logout")
    page.wait_for_selector("#login-panel:not([hidden])")
    page.fill("#username", "ann")
    page.fill("#password", PW)
    page.click("#do-login")
    page.wait_for_selector("#me-panel:not([hidden])")
    ann = _session(ctx)["value"]
    assert ann != first["value"]
    page.goto(server + "/")
    page.wait_for_selector("#account-link.logged-in")
    assert page.text_content("#account-link") == "ann"

    status, _, bob = _post(server, "/api/account/signup", {"username": "bob", "password": PW})
    assert status == 200 and bob and "secure" not in FLAGS
    # behind a TLS proxy on this machine (X-Forwarded-Proto from 127.0.0.1): a Secure cookie
    status, _, _ = _post(server, "/api/account/login", {"username": "bob", "password": PW},
                         **{"X-Forwarded-Proto": "https"})
    assert status == 200 and "secure" in FLAGS and "httponly" in FLAGS
    match_id = _rated_match(server, ann, bob)

    # the rating moves in the background once the match is over: reload until it shows
    for _ in range(60):
        page.goto(server + "/account")
        page.wait_for_selector("body[data-ready='1'] #me-panel:not([hidden])")
        if page.locator("#ratings td", has_text="Zheng Shangyou").count():
            break
        page.wait_for_timeout(500)
    cells = page.locator("#ratings tr").nth(1).locator("td").all_text_contents()
    assert cells[0] == "Zheng Shangyou" and cells[2] == "1", cells
    assert page.locator("#stats tr").nth(1).locator("td").all_text_contents()[1] == "1"
    item = page.locator("#history li.history-item")
    assert item.count() == 1 and "bob" in item.text_content()
    _no_horizontal_scroll(page)
    _shot(page, "account-phone.png")
    item.locator("a", has_text="Replay").click()
    page.wait_for_url(re.compile(rf"/replay/{match_id}$"))
    page.goto(server + "/leaderboard?game=zheng-shangyou")
    page.wait_for_selector("body[data-ready='1'] #board td")
    names = page.locator("#board tr td:nth-child(2)").all_text_contents()
    assert sorted(names) == ["ann", "bob"]
    _no_horizontal_scroll(page)
    _shot(page, "leaderboard-phone.png")

    # in Chinese: every string of the page has its twin
    page.evaluate("localStorage.setItem('shangyou.lang', 'zh')")
    page.goto(server + "/account")
    page.wait_for_selector("body[data-ready='1'] #me-panel:not([hidden])")
    assert page.text_content("#ratings th") == "游戏"
    assert page.locator("#history a", has_text="回放").count() == 1
    assert page.evaluate("[...window.__i18n.missing]") == []
    page.click("#delete-panel summary")
    page.fill("#delete-password", PW)
    page.once("dialog", lambda d: d.accept())
    page.click("#delete")
    page.wait_for_selector("#login-panel:not([hidden])")
    assert _post(server, "/api/account/login", {"username": "ann", "password": PW})[0] == 401
    page.goto(server + "/leaderboard?game=zheng-shangyou")
    page.wait_for_selector("body[data-ready='1'] #board td")
    assert page.locator("#board tr td:nth-child(2)").all_text_contents() == ["bob"]
    ctx.close()
    assert not errors, errors


def test_lobby_offers_rated_to_a_logged_in_person(server, browser):
    """The lobby's More options show "Rated" only once logged in (signed up through the API
    with the page's own cookies); ticked, Create table makes a rated table with no bots."""
    errors: list[str] = []
    ctx = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True)
    page = _watch(ctx.new_page(), errors)
    page.goto(server + "/")
    page.wait_for_selector("#play-now:not([disabled])")
    page.click("#more-options summary")
    assert page.evaluate("import('/static/account-link.js').then((m) => m.who)") is None
    assert page.is_hidden("#room-rated-field")           # a guest: no rated tables
    r = ctx.request.post(server + "/api/account/signup",
                         data={"username": "cal", "password": PW})
    assert r.status == 200, r.text()
    page.reload()
    page.wait_for_selector("#play-now:not([disabled])")
    page.click("#more-options summary")
    page.wait_for_selector("#room-rated-field:not([hidden])")
    assert page.text_content("#room-rated-field").strip() == "Rated (accounts only, no bots)"
    _no_horizontal_scroll(page)
    page.select_option("#game", "zheng-shangyou/owen")
    page.select_option("#players", "2")
    page.check("#room-rated")
    assert page.is_disabled("#bots")                     # a rated table seats no bots
    with page.expect_request(lambda q: q.url.endswith("/api/tables") and q.method == "POST") as q:
        page.click("#create")
    body = q.value.post_data_json
    assert body["room"]["rated"] is True and "bots" not in body, body
    page.wait_for_url(re.compile(r"/t/[^/]+$"))
    page.wait_for_function("window.__shangyou && window.__shangyou.table")
    table = page.evaluate("window.__shangyou.table")
    assert table["room"]["rated"] is True
    assert all(s["kind"] != "bot" for s in table["seats"]), table["seats"]
    # in Chinese the box has its twin
    page.evaluate("localStorage.setItem('shangyou.lang', 'zh')")
    page.goto(server + "/")
    page.click("#more-options summary")
    page.wait_for_selector("#room-rated-field:not([hidden])")
    assert "计分桌" in page.text_content("#room-rated-field")
    assert page.evaluate("[...window.__i18n.missing]") == []
    ctx.close()
    assert not errors, errors
