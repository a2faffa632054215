"""Tables that belong to their host, and fair deals, in headless Chromium driven by Playwright
(one browser context per person, one server for the module).

1 the lobby keeps the host token of the table it creates: its page is the host's, with the
host's tools, while a stranger sees none and waits for the host; chat lines name the speaker's
role; 2 the host moves a player to another seat, adds and removes a bot, changes the options,
takes a person out of their seat, fills the table and starts; 3 the host role handed on during a
match, a person's seat given to a bot, the table closed; 4 a stranger's lobby: pages of tables,
link-only tables left out, error messages of the server; 5 fair deals: the seal on the table
page, the cards kept in this browser, and the replay page's checks (the hash computed in the
browser, with and without crypto.subtle, the kept seal and cards, the server's check), and the
log it offers for download verifies; 6 the host's ready check: asked, answered, marked, ended by
a change of seats, and the start with everyone ready; 7 the start anyway, and the check in
Chinese.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from test_browser import _get_json, browser, serve  # noqa: F401 (browser: a fixture)
from test_browser_table import (AXE, DESKTOP, LOOPBACK, PHONE, _axe, _hand,
                                _legal_and_play, _no_horizontal_scroll, _shot, _sit, _start,
                                _table, _wait_my_turn, _watch)

pytestmark = pytest.mark.timeout(240)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    yield from serve(tmp_path_factory.mktemp("web-host-data"), "--bot-delay", "0.05", *LOOPBACK)


@pytest.fixture
def errors():
    """JavaScript errors of every page a test opens (checked at the end of the test)."""
    found: list[str] = []
    yield found
    assert not found, found


def _person(browser, errors, name: str | None = None):
    """A new browser context (a person) and its page; ``name`` is kept as the player's name."""
    ctx = browser.new_context(viewport=DESKTOP)
    if name:
        ctx.add_init_script(f"localStorage.setItem('shangyou.name', {json.dumps(name)})")
    return ctx, _watch(ctx.new_page(), errors)


def _table_state(page, expr: str):
    return page.evaluate(f"(() => {{ const tb = window.__shangyou.table; return {expr}; }})()")


def _chat(page, text: str):
    page.fill("#chat-input", text)
    page.press("#chat-input", "Enter")


def _chat_lines(page) -> list[list[str]]:
    return page.evaluate("""[...document.querySelectorAll('#chat-log li')].map(li =>
        [li.dataset.role || '', li.querySelector('.from').textContent,
         li.querySelector('.text').textContent])""")


def _listed_ids(server) -> set[str]:
    """Every table the lobby list offers, page by page."""
    ids: set[str] = set()
    offset = 0
    while True:
        page = _get_json(f"{server}/api/tables?offset={offset}&limit=100")
        ids |= {t["table_id"] for t in page["tables"]}
        offset += page["limit"]
        if offset >= page["total"]:
            return ids


# ================================================================================ tests
def test_the_host_has_the_tools_and_a_stranger_has_none(server, browser, errors):
    """1. The lobby keeps the host token; the creator's page holds the host role and shows the
    host's tools and badge; a stranger sees the badge, no tools, "Waiting for the host to
    start", and is refused (not_host) if they try anyway; chat lines name the roles."""
    hc, hp = _person(browser, errors, "Hana")
    hp.goto(server + "/?game=zheng-shangyou/owen")
    hp.wait_for_selector('#players option[value="3"]', state="attached")
    hp.select_option("#players", "3")
    hp.fill("#opt-target", "50")
    hp.click("#create")
    hp.wait_for_url(re.compile(r".*/t/[^/]+$"))
    table_id = hp.url.rsplit("/", 1)[1]
    assert hp.evaluate("k => localStorage.getItem(k)", f"shangyou.token.{table_id}")
    hp.wait_for_function("document.body.dataset.host === '1'")
    assert hp.is_visible("#host-panel") and hp.is_visible("#host-row")
    assert hp.is_visible("#host-options") and hp.is_visible("#host-close")
    hp.fill("#name", "Hana")
    hp.click('#seat-list .sit[data-seat="0"]')
    hp.wait_for_function("document.body.dataset.seat === '0'")
    hp.wait_for_selector('#seat-list li[data-seat="0"] .tag.host')
    assert hp.evaluate("document.body.dataset.host") == "1", "the host keeps the role seated"
    assert hp.locator("#seat-list .add-bot").count() == 2
    assert hp.is_hidden("#wait-host")

    sc, sp = _person(browser, errors, "Sam")
    _sit(sp, hp.url, "Sam", seat=1)
    sp.wait_for_selector('#seat-list li[data-seat="0"] .tag.host')
    assert sp.evaluate("document.body.dataset.host") == ""
    assert sp.locator(".host-btn, .swap-to").count() == 0
    assert sp.is_hidden("#host-row") and sp.is_hidden("#host-panel")
    assert sp.is_visible("#wait-host")
    assert "Waiting for the host to start" in sp.text_content("#wait-host")
    # trying anyway: the server refuses, the page says why
    sp.evaluate("window.__shangyou.ws.send(JSON.stringify({type: 'start'}))")
    sp.wait_for_function("document.getElementById('top-alert').textContent.includes('host')")
    assert _table_state(sp, "tb.status") == "waiting"

    wc, wp = _person(browser, errors, "Wen")
    wp.goto(hp.url)
    wp.wait_for_selector('#seat-list li[data-seat="0"] .tag.host')
    assert wp.locator(".host-btn").count() == 0 and wp.is_visible("#wait-host")
    for n, (page, text) in enumerate(((hp, "welcome"), (sp, "hi"), (wp, "just watching")), 1):
        _chat(page, text)
        for p in (hp, sp, wp):
            p.wait_for_function("n => document.querySelectorAll('#chat-log li').length >= n", arg=n)
    lines = _chat_lines(sp)
    assert lines == [["host", "Hana (host):", "welcome"], ["player", "Sam (player):", "hi"],
                     ["spectator", "Wen (spectator):", "just watching"]], lines
    _shot(hp, "host-tools-desktop.png")
    _shot(sp, "host-stranger-desktop.png")
    assert AXE.is_file(), "axe-core is missing: run `npm ci`"
    assert not _axe(hp), _axe(hp)
    hp.set_viewport_size(PHONE)
    _no_horizontal_scroll(hp)
    _shot(hp, "host-tools-phone.png")
    hp.set_viewport_size(DESKTOP)
    hp.click("#host-options")
    hp.wait_for_selector("#options-dialog[open] #hopt-target")
    assert not _axe(hp), _axe(hp)
    hp.click("#options-cancel")
    for c in (hc, sc, wc):
        c.close()


def test_the_host_moves_adds_removes_changes_options_and_starts(server, browser, errors):
    """2. Swap, add a bot to one seat, remove it, the options dialog (game and room), take a
    person out of their seat (they watch from then on), fill with bots, start."""
    url = _table(server, players=3, options={"target": 50})
    hc, hp = _person(browser, errors)
    sc, sp = _person(browser, errors)
    _sit(hp, url, "Hana", seat=0)
    hp.wait_for_function("document.body.dataset.host === '1'")
    _sit(sp, url, "Sam", seat=1)

    # move Sam from seat 2 to seat 3
    hp.wait_for_selector('#seat-list select.swap-to[data-seat="1"]')
    hp.select_option('#seat-list select.swap-to[data-seat="1"]', "2")
    hp.click('#seat-list .swap-btn[data-seat="1"]')
    sp.wait_for_function("document.body.dataset.seat === '2'")
    hp.wait_for_selector('#seat-list li[data-seat="2"] .kick')
    assert "Sam" in hp.text_content('#seat-list li[data-seat="2"]')
    assert hp.locator('#seat-list .add-bot[data-seat="1"]').count() == 1

    # a bot in seat 2, then removed
    hp.click('#seat-list .add-bot[data-seat="1"]')
    sp.wait_for_function("window.__shangyou.table.seats[1].kind === 'bot'")
    hp.wait_for_selector('#seat-list li[data-seat="1"] .kick')
    hp.click('#seat-list li[data-seat="1"] .kick')
    sp.wait_for_function("window.__shangyou.table.seats[1].kind === 'empty'")
    hp.wait_for_selector('#seat-list .add-bot[data-seat="1"]')

    # the options: the game's target, a turn timer, link only
    hp.click("#host-options")
    hp.wait_for_selector("#options-dialog[open] #hopt-target")
    assert hp.input_value("#hopt-target") == "50"
    hp.fill("#hopt-target", "3")
    hp.fill("#hroom-timer", "30")
    hp.select_option("#hroom-listed", "0")
    hp.click("#options-save")
    sp.wait_for_function("window.__shangyou.table.options.target === 3")
    assert _table_state(sp, "[tb.room.turn_timer, tb.room.listed]") == [30, False]
    sp.wait_for_function("document.getElementById('room-line').textContent.includes('30 s')")
    assert url.rsplit("/", 1)[1] not in _listed_ids(server)
    assert hp.is_hidden("#options-dialog")

    # Sam is taken out of his seat: he is told, watches, and his seat token is gone
    hp.click('#seat-list li[data-seat="2"] .kick')
    sp.wait_for_selector("#kicked-banner:not([hidden])")
    assert "host" in sp.text_content("#kicked-banner")
    sp.wait_for_function("document.body.dataset.seat === ''")
    assert sp.locator("#seat-list .sit").count() == 0, "no seat offered to that socket again"
    table_id = url.rsplit("/", 1)[1]
    assert sp.evaluate("k => localStorage.getItem(k)", f"shangyou.token.{table_id}") is None
    hp.wait_for_function("window.__shangyou.table.seats[2].kind === 'empty'")

    # fill with bots and start: the game for both, the host's tools while it runs
    _start(hp)
    sp.wait_for_selector("#game:not([hidden]) #seat-boxes")
    assert hp.is_visible("#host-panel") and hp.is_hidden("#host-options")
    assert sp.is_hidden("#host-panel") and sp.is_hidden("#waiting")
    assert hp.locator('.seat-box[data-seat="0"] .tag.host').count() == 1
    assert sp.locator('.seat-box[data-seat="0"] .tag.host').count() == 1
    hc.close()
    sc.close()


def test_host_role_handed_on_seat_given_to_a_bot_and_table_closed(server, browser, errors):
    """3. During a match the host hands the role on; the new host lets a bot play the old
    host's seat (who watches from then on), then closes the table: everyone is told, and the
    pages stop reconnecting."""
    url = _table(server, players=2, options={"target": 50})
    hc, hp = _person(browser, errors)
    sc, sp = _person(browser, errors)
    _sit(hp, url, "Hana", seat=0)
    _sit(sp, url, "Sam", seat=1)
    hp.wait_for_function("document.body.dataset.host === '1'")
    _start(hp, bots=False)
    sp.wait_for_selector("#game:not([hidden]) #seat-boxes")

    hp.wait_for_selector('#host-seats .make-host[data-seat="1"]')
    hp.click('#host-seats .make-host[data-seat="1"]')
    sp.wait_for_function("document.body.dataset.host === '1'")
    hp.wait_for_function("document.body.dataset.host === ''")
    assert hp.is_hidden("#host-panel") and sp.is_visible("#host-panel")
    for p in (hp, sp):
        p.wait_for_selector('.seat-box[data-seat="1"] .tag.host')
        assert p.locator('.seat-box[data-seat="0"] .tag.host').count() == 0

    sp.click('#host-seats .kick[data-seat="0"]')
    hp.wait_for_selector("#kicked-banner:not([hidden])")
    hp.wait_for_function("document.body.dataset.seat === ''")
    sp.wait_for_selector('.seat-box[data-seat="0"] .tag.bot')
    assert hp.locator("#hand .card").count() == 0

    sp.click("#host-close")
    sp.wait_for_selector("#close-dialog[open]")
    sp.click("#close-confirm")
    for p in (hp, sp):
        p.wait_for_selector("#closed-banner:not([hidden])")
        assert p.text_content("#closed-banner") == "This table was closed."
        assert p.evaluate("document.body.dataset.closed") == "1"
        p.wait_for_function("window.__shangyou.ws === null")
        assert p.evaluate("window.__shangyou.stopped") is True
        assert p.is_hidden("#reconnecting")
        assert p.is_hidden("#host-panel")
    _shot(sp, "host-table-closed.png")
    # a closed table is gone for good: a new visit is told so, and does not retry
    sp.goto(url)
    sp.wait_for_function("window.__shangyou.stopped === true")
    assert sp.text_content("#top-alert") or sp.is_visible("#closed-banner")
    hc.close()
    sc.close()


def test_a_strangers_lobby_pages_and_link_only_tables(server, browser, errors):
    """4. The lobby list a page at a time with previous and next; link-only tables are never
    listed; the create form makes link-only tables; the server's error messages are shown
    (a rate limit among them)."""
    hidden = _table(server, room={"listed": False}).rsplit("/", 1)[1]
    total = _get_json(server + "/api/tables?offset=0&limit=1")["total"]
    for _ in range(max(0, 23 - total)):
        _table(server)
    total = _get_json(server + "/api/tables?offset=0&limit=1")["total"]
    assert total > 20 and hidden not in _listed_ids(server)

    sc, sp = _person(browser, errors)
    sp.goto(server + "/")
    sp.wait_for_selector("#tables-pager:not([hidden])")
    sp.wait_for_function("document.getElementById('tables-range').textContent.startsWith('1–20 ')")
    assert sp.text_content("#tables-range") == f"1–20 of {total}"
    assert sp.locator("#tables li[data-table]").count() == 20
    assert sp.is_disabled("#tables-prev") and not sp.is_disabled("#tables-next")
    seen = set(sp.locator("#tables li[data-table]").evaluate_all("els => els.map(e => e.dataset.table)"))
    sp.click("#tables-next")
    sp.wait_for_function("document.getElementById('tables-range').textContent.startsWith('21–')")
    assert not sp.is_disabled("#tables-prev")
    more = set(sp.locator("#tables li[data-table]").evaluate_all("els => els.map(e => e.dataset.table)"))
    assert more and not (more & seen) and hidden not in seen | more
    sp.click("#tables-prev")
    sp.wait_for_function("document.getElementById('tables-range').textContent.startsWith('1–20 ')")

    # a link-only table from the form: its page works, the list does not offer it
    sp.wait_for_selector('#game option[value="zheng-shangyou/owen"]', state="attached")
    sp.select_option("#game", "zheng-shangyou/owen")
    sp.select_option("#room-listed", "0")
    sp.click("#create")
    sp.wait_for_url(re.compile(r".*/t/[^/]+$"))
    sp.wait_for_function("document.body.dataset.host === '1'")
    assert _table_state(sp, "tb.room.listed") is False
    assert sp.url.rsplit("/", 1)[1] not in _listed_ids(server)

    # the server's refusals: its message, as it words it
    sp.goto(server + "/")
    sp.wait_for_selector('#game option[value="zheng-shangyou/owen"]', state="attached")
    sp.route("**/api/tables", lambda route: route.fulfill(
        status=429, content_type="application/json",
        body=json.dumps({"code": "rate_limited", "detail": "rate limited",
                         "message": "Too many tables created from your address: wait a minute."}))
        if route.request.method == "POST" else route.continue_())
    sp.click("#create")
    sp.wait_for_function("document.getElementById('create-error').textContent.includes('wait a minute')")
    assert not sp.is_disabled("#create")
    sp.unroute("**/api/tables")
    sp.fill("#opt-target", "-5")
    sp.click("#create")
    sp.wait_for_function("document.getElementById('create-error').textContent.includes('target')")
    sc.close()


def test_fair_deal_sealed_at_the_start_and_checked_on_the_replay(server, browser, errors, tmp_path):
    """5. The seal on the table page from the start; the commitment and this seat's cards kept
    in localStorage; when the match is over the replay page's checks all pass (the hash of the
    secret computed in the browser, also without crypto.subtle), and the downloaded log
    verifies."""
    from shangyou.fairness import commitment, verify

    url = _table(server, players=2, options={"target": 1})
    ctx, page = _person(browser, errors)
    _sit(page, url, "Ada", seat=0)
    _start(page)
    page.wait_for_selector("#deal-seal")
    sealed = _table_state(page, "tb.commitment")
    match_id = _table_state(page, "tb.match_id")
    assert re.fullmatch(r"[0-9a-f]{64}", sealed)
    assert page.get_attribute("#deal-seal", "data-commitment") == sealed
    assert sealed[:12] in page.text_content("#deal-seal")
    assert _table_state(page, "tb.secret") is None
    page.wait_for_selector("#hand .card")
    kept = json.loads(page.evaluate("k => localStorage.getItem(k)", f"shangyou.commit.{match_id}"))
    assert kept["commitment"] == sealed and kept["seat"] == 0
    if page.evaluate("window.__shangyou.view.phase") != "exchange":
        assert sorted(kept["hands"]["1"]) == sorted(_hand(page)), "the cards as dealt"

    while _wait_my_turn(page):
        _legal_and_play(page)
    page.wait_for_selector("#fair-link")
    secret = _table_state(page, "tb.secret")
    assert commitment(secret) == sealed
    page.click("#fair-link")
    page.wait_for_selector('#fair-panel[data-done="1"]')
    checks = dict(page.locator("#fair-checks li").evaluate_all(
        "els => els.map(e => [e.dataset.check, e.dataset.status])"))
    assert checks == {"commitment": "ok", "kept": "ok", "hands": "ok", "moves": "ok", "seen": "ok",
                      "server": "ok"}, \
        page.text_content("#fair-checks")
    assert sealed in page.text_content("#fair-panel") and secret in page.text_content("#fair-panel")
    assert "shangyou verify" in page.text_content("#fair-panel")
    _shot(page, "replay-fair-deal.png")
    assert not _axe(page), _axe(page)

    # the hash in the browser without crypto.subtle (a page served over plain http on a LAN)
    plain = page.evaluate("""async (secret) => {
        const fair = await import('/static/fair.js');
        Object.defineProperty(window.crypto, 'subtle', {get: () => undefined, configurable: true});
        return fair.commitmentOf(secret); }""", secret)
    assert plain == sealed
    # the download is the published log, and it verifies
    with page.expect_download() as d:
        page.click("#fair-download")
    log = json.loads(Path(d.value.path()).read_text(encoding="utf-8"))
    assert log["seed"] == secret and log["commitment"] == sealed and log["deals"]
    assert verify(log).ok
    ctx.close()


def test_sha256_in_plain_javascript(server, browser, errors):
    """The fallback SHA-256 against Python's, on lengths around the block edges and UTF-8."""
    import hashlib

    ctx, page = _person(browser, errors)
    page.goto(server + "/healthz")
    texts = ["", "abc", "a" * 55, "a" * 56, "a" * 63, "a" * 64, "a" * 65, "x" * 1000,
             "上游 ♥ deal", "shangyou/commitment/v1:" + "0f" * 32]
    got = page.evaluate("""async (texts) => {
        const m = await import('/static/sha256.js');
        return texts.map(s => m.toHex(m.sha256(new TextEncoder().encode(s)))); }""", texts)
    assert got == [hashlib.sha256(s.encode()).hexdigest() for s in texts]
    ctx.close()


def _marks(page) -> dict[str, str]:
    """The ready mark of each row of the seat list that has one: {seat: yes | no | wait}."""
    return dict(page.locator("#seat-list .ready-mark").evaluate_all(
        "els => els.map(e => [e.closest('li').dataset.seat, e.dataset.ready])"))


def _in_view(page, selector: str) -> dict:
    box = page.locator(selector).bounding_box()
    size = page.viewport_size
    assert box and box["y"] >= 0 and box["y"] + box["height"] <= size["height"] and \
        box["x"] >= 0 and box["x"] + box["width"] <= size["width"], (selector, box, size)
    return box


def test_ready_check_asked_answered_and_started(server, browser, errors):
    """6. The host's ready check: the button waits for a full table; the other person is asked
    (on a phone, the question and both answers in view without scrolling, 44 px to tap), the
    seat list marks each answer for everyone, the host sees the count and then "Everyone is
    ready."; Start asks first while somebody has not said yes; a change of seats ends the
    check; with everyone ready Start starts at once."""
    url = _table(server, players=3, options={"target": 50})
    hc, hp = _person(browser, errors)
    sc = browser.new_context(viewport=PHONE)
    sp = _watch(sc.new_page(), errors)
    _sit(hp, url, "Hana", seat=0)
    hp.wait_for_function("document.body.dataset.host === '1'")
    _sit(sp, url, "Sam", seat=1)
    hp.wait_for_selector('#seat-list li[data-seat="1"] .leave, #seat-list li[data-seat="1"] .kick')
    assert hp.is_visible("#ready-check") and hp.is_disabled("#ready-check"), "a full table first"
    assert sp.is_hidden("#ready-check"), "the host's tool only"
    hp.click('#seat-list .add-bot[data-seat="2"]')
    hp.wait_for_selector("#ready-check:not([disabled])")
    hp.click("#ready-check")

    # Sam is asked: the question and the two answers, in view on his phone
    sp.wait_for_selector("#ready-question")
    assert sp.evaluate("window.scrollY") == 0
    _in_view(sp, "#ready-question")
    for sel in ("#ready-yes", "#ready-no"):
        assert _in_view(sp, sel)["height"] >= 44, sel
    assert "ready" in sp.text_content("#announce")
    assert hp.locator("#ready-yes").count() == 0, "the host asked: the host is ready"
    hp.wait_for_selector("#ready-count")
    assert "1 of 2 ready" in hp.text_content("#ready-count")
    for p in (hp, sp):
        p.wait_for_function("document.querySelectorAll('#seat-list .ready-mark').length === 2")
        assert _marks(p) == {"0": "yes", "1": "wait"}, "the bot is not asked"
    assert hp.is_disabled("#ready-check"), "one check at a time"
    _shot(sp, "ready-check-asked-phone.png")
    assert not _axe(sp), _axe(sp)

    # Start while Sam has not answered: the host is asked to confirm, and may cancel
    hp.click("#start")
    hp.wait_for_selector("#start-dialog[open]")
    assert "Not everyone is ready" in hp.text_content("#start-dialog")
    assert not _axe(hp), _axe(hp)
    hp.click("#start-cancel")
    assert hp.is_hidden("#start-dialog") and _table_state(hp, "tb.status") == "waiting"

    sp.click("#ready-no")
    hp.wait_for_function("document.querySelector('#seat-list li[data-seat=\"1\"] .ready-mark')"
                         ".dataset.ready === 'no'")
    sp.wait_for_selector('#ready-no[aria-pressed="true"]')
    sp.click("#ready-yes")
    hp.wait_for_selector("#ready-all")
    assert hp.text_content("#ready-all") == "Everyone is ready."
    sp.wait_for_function("document.body.dataset.ready === 'all'")
    assert _marks(hp) == _marks(sp) == {"0": "yes", "1": "yes"}
    _shot(hp, "ready-check-everyone-desktop.png")

    # a change of seats ends the check, for everyone
    hp.click('#seat-list li[data-seat="2"] .kick')
    for p in (hp, sp):
        p.wait_for_function("document.body.dataset.ready === ''")
        assert p.is_hidden("#ready-box") and p.locator("#seat-list .ready-mark").count() == 0
    hp.click('#seat-list .add-bot[data-seat="2"]')
    hp.wait_for_selector("#ready-check:not([disabled])")
    hp.click("#ready-check")
    sp.click("#ready-yes")
    hp.wait_for_selector("#ready-all")
    hp.click("#start")                          # everyone is ready: no question
    for p in (hp, sp):
        p.wait_for_selector("#game:not([hidden]) #seat-boxes")
    assert hp.locator("#start-dialog[open]").count() == 0
    hc.close()
    sc.close()


def test_ready_check_the_host_starts_anyway_and_in_chinese(server, browser, errors):
    """7. Somebody is not ready: the host confirms "Start anyway" and the match starts. The
    question, answers and marks in Chinese."""
    url = _table(server, players=2, options={"target": 50})
    hc, hp = _person(browser, errors)
    sc, sp = _person(browser, errors)
    sc.add_init_script("localStorage.setItem('shangyou.lang', 'zh')")
    _sit(hp, url, "Hana", seat=0)
    hp.wait_for_function("document.body.dataset.host === '1'")
    _sit(sp, url, "Sam", seat=1)
    hp.wait_for_selector("#ready-check:not([disabled])")
    hp.click("#ready-check")
    sp.wait_for_selector("#ready-question")
    assert sp.text_content("#ready-question") == "房主问：你准备好了吗？"
    assert [sp.text_content("#ready-yes"), sp.text_content("#ready-no")] == \
        ["我准备好了", "还没准备好"]
    sp.click("#ready-no")
    sp.wait_for_selector('#seat-list li[data-seat="1"] .ready-mark.no')
    assert sp.text_content('#seat-list li[data-seat="1"] .ready-mark') == "未准备"
    hp.wait_for_selector('#seat-list li[data-seat="1"] .ready-mark.no')
    hp.click("#start")
    hp.wait_for_selector("#start-dialog[open]")
    hp.click("#start-anyway")                   # the host decides
    for p in (hp, sp):
        p.wait_for_selector("#game:not([hidden]) #seat-boxes")
        assert p.evaluate("document.body.dataset.ready") == ""
    hc.close()
    sc.close()
