"""The lobby on a phone, Play now, the rematch, card sounds and the chat badge, in a real
browser (Debian's Chromium, headless; see tests/test_browser.py).

1. At 360x740 and 390x844 the lobby shows Play now, the game and the players without
   scrolling, folds the other options, and never scrolls sideways; a first visit offers Pagat
   for 4 with heuristic bots; Play now lands on a table, seated, bots in every other seat, the
   match started; the next visit's Play now starts the game last played.
2. After a match every seated person (not only the host) gets Rematch; it starts the next match
   once both people asked (on the way, the sounds of plays and won tricks are counted).
3. Card sounds: counted (window.__sounds) for plays and "your turn" when sound is on (the
   default), none when the system asks for reduced motion; the chat badge counts a line that
   arrives while the phone's drawer is closed, until it is opened.
Screenshots of the phone lobby go to ``artifacts/screenshots/``.
"""

from __future__ import annotations

import re

import pytest

from test_browser import browser, serve  # noqa: F401 (browser: a fixture)
from test_browser_table import (AXE, LOOPBACK, _axe, _legal_and_play, _shot, _sit, _start,
                                _table, _watch, errors)  # noqa: F401 (errors: a fixture)

pytestmark = pytest.mark.timeout(240)

PHONES = ({"width": 360, "height": 740}, {"width": 390, "height": 844})


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    yield from serve(tmp_path_factory.mktemp("web-lobby-data"), "--bot-delay", "0.05", *LOOPBACK)


def _phone(browser, errors, viewport, **kw):
    ctx = browser.new_context(viewport=viewport, device_scale_factor=2, is_mobile=True,
                              has_touch=True, **kw)
    return ctx, _watch(ctx.new_page(), errors)


def _lobby(page, server):
    page.goto(server + "/")
    page.wait_for_selector('#game option[value="zheng-fen"]', state="attached")
    page.wait_for_function("document.getElementById('play-now-note').textContent !== ''")


def _table_state(page, expr: str):
    return page.evaluate(f"(() => {{ const S = window.__shangyou; const tb = S.table; return {expr}; }})()")


def _play_now(page) -> str:
    """Tap Play now; wait for the table page seated in a started match; the table's URL."""
    page.tap("#play-now")
    page.wait_for_url(re.compile(r".*/t/[^/]+$"))
    page.wait_for_function("document.body.dataset.status === 'playing' && "
                           "document.body.dataset.seat === '0' && !!window.__shangyou.view")
    return page.url


def _bots_elsewhere(page) -> list:
    return _table_state(page, "tb.seats.map(s => [s.kind, s.bot_level])")


def test_phone_lobby_fits_and_play_now_starts_the_last_game(server, browser, errors):
    for vp in PHONES:
        ctx, page = _phone(browser, errors, vp)
        _lobby(page, server)
        # above the fold, nothing sideways; the other options folded
        for sel in ("#play-now", "#game", "#players"):
            box = page.locator(sel).bounding_box()
            assert box and box["y"] >= 0 and box["y"] + box["height"] <= vp["height"], (vp, sel, box)
            assert box["x"] + box["width"] <= vp["width"], (vp, sel, box)
        assert page.locator("#play-now").bounding_box()["height"] >= 44
        over = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert over <= 0, f"the lobby scrolls sideways by {over}px at {vp}"
        assert page.evaluate("document.getElementById('more-options').open") is False
        assert not page.locator("#opt-players, #room-timer, #bots").first.is_visible()
        # a first visit: Pagat for 4, heuristic bots
        assert page.input_value("#game") == "zheng-shangyou/pagat"
        assert page.input_value("#players") == "4"
        assert page.input_value("#bots") == "heuristic"
        assert "3" in page.text_content("#play-now-note")
        _shot(page, f"lobby-phone-{vp['width']}x{vp['height']}.png")
        if vp["width"] == 390:
            assert AXE.is_file(), "axe-core is missing: run `npm ci`"
            assert not _axe(page), _axe(page)
        page.click("#more-options > summary")
        assert page.locator("#bots").is_visible()
        _shot(page, f"lobby-phone-{vp['width']}-more-options.png")
        if vp["width"] == 390:
            _play_now(page)
            assert _table_state(page, "[tb.game, tb.players]") == ["zheng-shangyou/pagat", 4]
            assert _bots_elsewhere(page) == [["human", None]] + [["bot", "heuristic"]] * 3
            assert page.evaluate("document.body.dataset.host") == "1"
        ctx.close()

    # another game chosen: the next visit's Play now starts it again without a choice
    ctx, page = _phone(browser, errors, PHONES[0])
    _lobby(page, server)
    page.select_option("#game", "zheng-shangyou/owen")
    page.select_option("#players", "3")
    first = _play_now(page)
    assert _table_state(page, "[tb.game, tb.players]") == ["zheng-shangyou/owen", 3]
    _lobby(page, server)
    assert page.input_value("#game") == "zheng-shangyou/owen"
    assert page.input_value("#players") == "3"
    second = _play_now(page)
    assert second != first
    assert _table_state(page, "[tb.game, tb.players]") == ["zheng-shangyou/owen", 3]
    assert _bots_elsewhere(page) == [["human", None], ["bot", "heuristic"], ["bot", "heuristic"]]
    ctx.close()


AUTOPLAY = """() => { window.__autoplay = setInterval(() => {
    const S = window.__shangyou, v = S.view;
    if (!v || !S.ws || S.ws.readyState !== 1 || v.to_act !== S.mySeat || v.result ||
        !(v.legal_moves || []).length || window.__sentAt === S.version) return;
    window.__sentAt = S.version;
    S.ws.send(JSON.stringify({type: "move", move: v.legal_moves[0], version: S.version}));
  }, 30); }"""


def test_rematch_for_every_seated_person(server, browser, errors):
    """A one-hand match between two people (their moves sent by a script: the play itself is
    tested elsewhere); Bo, who is not the host, gets Rematch and asks; Ada sees it and asks;
    the next match starts for both."""
    url = _table(server, options={"target": 2})
    ca = browser.new_context(viewport=PHONES[1])
    cb = browser.new_context(viewport=PHONES[1])
    a = _watch(ca.new_page(), errors)
    b = _watch(cb.new_page(), errors)
    assert (_sit(a, url, "Ada", seat=0), _sit(b, url, "Bo", seat=1)) == (0, 1)
    _start(a, bots=False)
    b.wait_for_selector("#game:not([hidden])")
    first = _table_state(a, "tb.match_id")
    for p in (a, b):
        p.evaluate(AUTOPLAY)
    for p in (a, b):
        p.wait_for_selector("#rematch", timeout=60_000)
        p.evaluate("clearInterval(window.__autoplay)")
    assert b.evaluate("document.body.dataset.host") == ""
    for p in (a, b):        # sound is on by default: cards laid and tricks won were heard
        counts = p.evaluate("window.__sounds")
        assert counts["play"] > 0 and counts["trick"] > 0, counts
    assert b.is_visible("#rematch") and b.text_content("#rematch") == "Rematch"
    b.click("#rematch")
    b.wait_for_selector("#rematch[disabled]")
    a.wait_for_selector("#rematch-line")
    assert "Bo" in a.text_content("#rematch-line")
    assert not _axe(a), _axe(a)
    _shot(a, "rematch-phone.png")
    assert a.evaluate("document.body.dataset.status") == "over"
    a.click("#rematch")
    for p in (a, b):
        p.wait_for_function("first => document.body.dataset.status === 'playing' && "
                            "window.__shangyou.table.match_id !== first", arg=first)
        assert p.locator("#rematch").count() == 0
    ca.close()
    cb.close()


def test_card_sounds_and_the_chat_badge(server, browser, errors):
    ctx, page = _phone(browser, errors, PHONES[1])
    _lobby(page, server)
    page.select_option("#game", "zheng-shangyou/pagat")
    page.select_option("#players", "4")
    url = _play_now(page)
    page.wait_for_selector("#your-turn")
    _legal_and_play(page)
    page.wait_for_function("window.__sounds.play > 0 && window.__sounds.turn > 0")

    # a spectator's chat line while the drawer is closed: counted until the drawer opens
    assert page.locator("#chat-badge").is_hidden()
    wc = browser.new_context(viewport={"width": 1280, "height": 800})
    w = _watch(wc.new_page(), errors)
    w.goto(url)
    w.wait_for_selector("#chat-input")
    w.wait_for_function("document.body.dataset.connected === '1'")
    w.fill("#chat-input", "hello from the rail")
    w.click("#chat-form button[type=submit]")
    page.wait_for_selector("#chat-badge:not([hidden])")
    assert page.text_content("#chat-badge") == "1"
    assert not _axe(page), _axe(page)
    _shot(page, "chat-badge-phone.png")
    assert page.locator("#side").is_hidden()
    page.click("#open-side")
    page.wait_for_selector("#chat-badge", state="hidden")
    assert "hello from the rail" in page.text_content("#chat-log")
    wc.close()
    ctx.close()

    # reduced motion asked by the system: no sound, the setting shows it off
    ctx, page = _phone(browser, errors, PHONES[1], reduced_motion="reduce")
    _lobby(page, server)
    _play_now(page)
    page.wait_for_selector("#your-turn")
    v0 = int(page.evaluate("document.body.dataset.version"))
    _legal_and_play(page)
    page.wait_for_selector("#your-turn")      # the three bots played after this player
    assert int(page.evaluate("document.body.dataset.version")) >= v0 + 4
    assert page.evaluate("window.__sounds") == {"play": 0, "trick": 0, "turn": 0}
    page.click("#open-settings")
    assert not page.is_checked("#set-sound")
    ctx.close()
