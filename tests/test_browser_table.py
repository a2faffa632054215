"""The table players expect (issue 8), checked in real headless Chromium with Playwright: one
browser context per player, one server for the module (``--bot-delay 0.05``).

1 seamless resume and the "Reconnecting…" banner; 2 a dropped player's seat is played by a bot
after the room's grace period and given back when the link is opened again; 3 the same seat in a
second tab; 4 turn awareness (one active seat, the banner, the title marker in a background tab,
the sound, the room's turn timer, the screen-reader announcement); 5 play helpers; 6 the last
trick, the game log and the end-of-hand score table; 7 phone layout, keyboard play and the kept
display settings; 8 English and Chinese for every key, 9 axe-core on the lobby and the table
and 10 rules help at the table are in ``test_browser_table_languages.py``. Screenshots of the
table (phone and desktop, both languages) go to ``artifacts/screenshots/``.

axe-core is the npm package pinned in ``package.json`` (``npm ci`` in ``scripts/test.sh``
installs it into ``node_modules/``); Chromium is Debian's ``/usr/bin/chromium``.
"""

from __future__ import annotations

import json
import re
import time
import urllib.request
from pathlib import Path

import pytest

from test_browser import _bury_by_page, _get_json, browser, serve  # noqa: F401 (browser: a fixture)

ROOT = Path(__file__).resolve().parent.parent
STATIC = ROOT / "src" / "shangyou" / "web" / "static"
SHOTS = ROOT / "artifacts" / "screenshots"
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}
STEP_MS = 15_000

pytestmark = pytest.mark.timeout(240)


# ------------------------------------------------------------------------------ fixtures
def _post_json(url: str, body: dict):
    req = urllib.request.Request(url, data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(req, timeout=5) as r:
        return json.loads(r.read().decode())


# the tests create many tables from loopback: give it the per-address allowance (100 times
# the limits on creating tables and opening sockets)
LOOPBACK = ("--allow-address", "127.0.0.1/32")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    yield from serve(tmp_path_factory.mktemp("web-table-data"), "--bot-delay", "0.05", *LOOPBACK)


@pytest.fixture
def errors():
    """JavaScript errors of every page a test opens (checked at the end of the test)."""
    found: list[str] = []
    yield found
    assert not found, found


# ------------------------------------------------------------------------------- helpers
def _watch(page, errors: list):
    page.set_default_timeout(STEP_MS)
    page.on("pageerror", lambda e: errors.append(f"{page.url}: {e}"))
    return page


def _shot(page, name: str):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / name), full_page=True)


HOST_TOKENS: dict[str, str] = {}      # table URL -> the host token its creation answered


def _table(server, game="zheng-shangyou/owen", players=2, options=None, room=None,
           bots="greedy") -> str:
    body = {"game": game, "players": players, "options": options or {}, "bots": bots}
    if room is not None:
        body["room"] = room
    made = _post_json(server + "/api/tables", body)
    url = server + made["url"]
    if made.get("host_token"):
        HOST_TOKENS[url] = made["host_token"]
    return url


def _as_host(page, url: str):
    """The page's browser keeps the table's host token, as the lobby does for the creator
    (once: the first page to come to a table made by ``_table`` is its host)."""
    token = HOST_TOKENS.pop(url, None)
    if token:
        base, table_id = url.rsplit("/t/", 1)
        page.goto(base + "/healthz")           # any page of the origin, for its localStorage
        page.evaluate("([k, v]) => localStorage.setItem(k, v)",
                      [f"shangyou.token.{table_id}", token])


def _sit(page, url: str, name: str, seat: int | None = None):
    _as_host(page, url)
    page.goto(url)
    page.wait_for_selector("#seat-list .sit", timeout=STEP_MS)
    page.fill("#name", name)
    if seat is None:
        page.click("#seat-list .sit >> nth=0")
    else:
        page.click(f'#seat-list .sit[data-seat="{seat}"]')
    page.wait_for_function("document.body.dataset.seat !== ''", timeout=STEP_MS)
    return int(page.evaluate("document.body.dataset.seat"))


def _start(page, bots=True):
    if bots:
        page.click("#fill-bots")
    page.wait_for_selector("#start:not([disabled])", timeout=STEP_MS)
    page.click("#start")
    page.wait_for_selector("#game:not([hidden]) #seat-boxes", timeout=STEP_MS)


def _hand(page) -> list[str]:
    return page.locator("#hand .card").evaluate_all("els => els.map(e => e.dataset.card)")


def _version(page) -> int:
    v = page.evaluate("document.body.dataset.version")
    return int(v) if v else -1


def _legal(page) -> list[str]:
    return page.evaluate("(window.__shangyou.view || {}).legal_moves || []")


def _wait_my_turn(page):
    page.wait_for_selector("#your-turn, #result", timeout=STEP_MS)
    return page.locator("#result").count() == 0


def _wait_version_above(page, v0: int, timeout=STEP_MS):
    page.wait_for_function("v0 => Number(document.body.dataset.version) > v0", arg=v0,
                           timeout=timeout)


def _legal_and_play(page, keyboard=False) -> str:
    """Our turn: take the first of the legal plays (the Legal plays button, which answers at
    once) and make it (by keys or by clicks)."""
    v0 = _version(page)
    if keyboard:
        page.keyboard.press("l")
    else:
        page.click("#legal")
    move = page.get_attribute("#hint-text", "data-move")
    assert move and move in _legal(page), move
    if move == "pass":
        if keyboard:
            page.keyboard.press("x")
        else:
            page.click("#pass")
    else:
        assert not page.locator("#play").is_disabled(), "Play is enabled for a legal play shown"
        if keyboard:
            page.keyboard.press("p")
        else:
            page.click("#play")
    _wait_version_above(page, v0)
    assert not page.text_content("#alert"), page.text_content("#alert")
    return move


def _no_horizontal_scroll(page):
    over = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert over <= 0, f"{page.url}: the page scrolls sideways by {over}px"


def _card_tap_areas(page):
    boxes = page.evaluate("""() => {
        const cards = [...document.querySelectorAll('#hand .card')];
        return cards.map((c, i) => {
            const r = c.getBoundingClientRect();
            const next = cards[i + 1] && cards[i + 1].getBoundingClientRect();
            const sameRow = next && Math.abs(next.top - r.top) < 2;
            const visible = sameRow ? next.left - r.left : r.width;
            return [c.dataset.card, visible, r.height, r.right];
        });
    }""")
    assert boxes, "the hand is drawn"
    for card, visible, height, right in boxes:
        assert visible >= 24 and height >= 44, f"card {card}: {visible}x{height}px to tap"
        assert right <= PHONE["width"], f"card {card} sticks out of the screen"


# ================================================================================ tests
def test_resume_after_reload_and_dropped_socket(server, browser, errors):
    """1. Back in the same seat with the same hand within 2 s, after a reload and after the
    socket drops; the "Reconnecting…" banner shows meanwhile."""
    ctx = browser.new_context(viewport=DESKTOP)
    page = _watch(ctx.new_page(), errors)
    routes = []

    def route(ws):        # pass every socket through, keeping a handle to cut it
        ws.connect_to_server()
        routes.append(ws)

    page.route_web_socket(re.compile(r".*/ws/.*"), route)
    url = _table(server, options={"target": 50})
    seat = _sit(page, url, "Ada")
    _start(page)
    page.wait_for_function("document.getElementById('hand').children.length > 0")
    hand = _hand(page)
    assert page.is_hidden("#reconnecting")

    # a reload: same seat, same hand, within 2 s, without typing anything (timed by the page:
    # from the start of the navigation to the first state drawn)
    page.reload()
    page.wait_for_function("h => [...document.querySelectorAll('#hand .card')]"
                           ".map(e => e.dataset.card).join(',') === h", arg=",".join(hand),
                           timeout=STEP_MS)
    took = page.evaluate("window.__shangyou.resumedAt")
    assert took < 2000, f"resume took {took:.0f} ms"
    assert int(page.evaluate("document.body.dataset.seat")) == seat
    assert page.is_hidden("#reconnecting")

    # the socket drops (the server side closes it): the banner, then the same seat and hand
    page.evaluate("""() => { window.__sawBanner = false;
        new MutationObserver(() => { if (!document.getElementById('reconnecting').hidden)
            window.__sawBanner = true; }).observe(document.getElementById('reconnecting'),
            {attributes: true}); }""")
    n = len(routes)
    routes[-1].close(code=1012, reason="server restart")
    page.wait_for_function("window.__sawBanner === true", timeout=STEP_MS)
    page.wait_for_function("document.body.dataset.connected === '1'", timeout=STEP_MS)
    page.wait_for_function("h => [...document.querySelectorAll('#hand .card')]"
                           ".map(e => e.dataset.card).join(',') === h", arg=",".join(hand),
                           timeout=STEP_MS)
    took = page.evaluate("window.__shangyou.resumedAt - window.__shangyou.droppedAt")
    assert took < 2000, f"reconnect took {took:.0f} ms (from the drop to the state drawn)"
    assert len(routes) == n + 1, "one new socket"
    assert page.is_hidden("#reconnecting")
    assert int(page.evaluate("document.body.dataset.seat")) == seat
    ctx.close()


STARTED: dict[str, float] = {}


def _two_players(server, browser, errors, room=None, options=None, viewport=DESKTOP):
    """A 2-player Owen table with two people, each in their own browser context."""
    url = _table(server, options=options or {"target": 50}, room=room)
    ca = browser.new_context(viewport=viewport)
    cb = browser.new_context(viewport=viewport)
    a = _watch(ca.new_page(), errors)
    b = _watch(cb.new_page(), errors)
    sa = _sit(a, url, "Ada", seat=0)
    sb = _sit(b, url, "Bo", seat=1)
    assert (sa, sb) == (0, 1)
    STARTED[url] = time.monotonic()       # the server arms a turn timer after this
    _start(a, bots=False)
    b.wait_for_selector("#game:not([hidden]) #seat-boxes", timeout=STEP_MS)
    return url, (ca, a), (cb, b)


def _to_act(page) -> int:
    page.wait_for_function("document.body.dataset.toAct !== ''", timeout=STEP_MS)
    return int(page.evaluate("document.body.dataset.toAct"))


def test_turn_awareness_timer_and_background_title(server, browser, errors):
    """4. One active seat; "Your turn" only for that player; the title marker within 1 s in a
    background tab; the sound; the room's turn timer for everyone, right after a reload, and
    a move made for the player at zero; the announcement in an aria-live region."""
    url, (ca, a), (cb, b) = _two_players(server, browser, errors, room={"turn_timer": 6})
    pages = {0: a, 1: b}
    for p in (a, b):
        p.wait_for_selector("#turn-timer:not([hidden])", timeout=STEP_MS)
        assert p.locator(".seat-box.to-act").count() == 1
    mover = _to_act(a)
    other = 1 - mover
    assert pages[mover].locator("#your-turn").count() == 1
    assert pages[other].locator("#your-turn").count() == 0
    assert pages[mover].title().startswith("●") and not pages[other].title().startswith("●")
    live = pages[mover].locator("#announce")
    assert live.get_attribute("aria-live") == "polite" and "turn" in live.text_content().lower()
    assert pages[other].text_content("#announce") == ""

    # the timer is shown to both players, and a reload shows the same time left (within 1 s)
    left_other = int(pages[other].get_attribute("#turn-timer", "data-left"))
    # whole seconds left, counted from 6 at the start; a slow machine may have spent some
    elapsed = time.monotonic() - STARTED[url]
    assert max(0, 6 - elapsed - 1) <= left_other <= 6 and pages[other].get_attribute("#turn-timer", "data-seat") == str(mover)
    t_reload = time.monotonic()
    pages[other].reload()
    pages[other].wait_for_selector("#turn-timer:not([hidden])", timeout=STEP_MS)
    after = int(pages[other].get_attribute("#turn-timer", "data-left"))
    mover_left = int(pages[mover].get_attribute("#turn-timer", "data-left"))
    assert abs(after - mover_left) <= 1, (after, mover_left)
    assert abs(after - (left_other - (time.monotonic() - t_reload))) <= 1.5

    # the other player turns the sound on and puts the table in a background tab
    ctx_other = cb if other == 1 else ca
    op = pages[other]
    op.click("#open-settings")
    op.check("#set-sound")
    op.click("#settings-close")
    # Playwright lets every page think it has the focus: turn that off for this one, so that
    # with another page in front it is a background tab (headless Chromium still reports every
    # page "visible")
    ctx_other.new_cdp_session(op).send("Emulation.setFocusEmulationEnabled", {"enabled": False})
    front = ctx_other.new_page()
    front.goto(server + "/")
    front.bring_to_front()
    assert not op.evaluate("document.hasFocus()")

    # the mover does nothing: at zero the server moves for them (pass or a bot's move); then
    # it is the background tab's turn, and its title gets the marker within 1 s of the news
    op.evaluate("""() => new MutationObserver(() => {
        if (document.title.startsWith('●') && !window.__markedAt)
            window.__markedAt = performance.now(); }).observe(
        document.querySelector('title'), {childList: true, characterData: true, subtree: true})""")
    v0 = _version(op)
    _wait_version_above(op, v0, timeout=10_000)
    op.wait_for_function("document.title.startsWith('●')", timeout=STEP_MS)
    took = op.evaluate("window.__markedAt - window.__shangyou.stateAt")
    assert 0 <= took < 1000, f"the title changed {took:.0f} ms after the state arrived"
    assert int(op.evaluate("document.body.dataset.beeps || 0")) >= 1, "the sound played"
    # the mover's page shows no "Your turn" once it has the state the other page has (on a
    # loaded machine it may get that state a moment later)
    _wait_version_above(pages[mover], _version(op) - 1)
    assert pages[mover].locator("#your-turn").count() == 0
    front.close()
    ca.close()
    cb.close()


def test_dropped_player_is_played_by_a_bot_then_restored(server, browser, errors):
    """2. The badge when a player is gone; a bot plays the seat within 2 s after the grace
    period; opening the link again gives the seat back to the person."""
    grace = 2
    url, (ca, a), (cb, b) = _two_players(server, browser, errors, room={"grace": grace})
    state = cb.storage_state()
    hand_b = _hand(b)
    cb.close()                                   # Bo is gone
    t_gone = time.monotonic()
    # Ada's page notes when each state arrives, with the move count and whose turn it was: the
    # bot answers Ada within a moment, often before this test looks again, so its moves are
    # found in this record, timed by the page's clock rather than by how fast this test polls
    grace_end = a.evaluate("""grace => { window.__states = [];
        const note = () => window.__states.push({t: performance.now(),
            mc: window.__shangyou.moveCount, toAct: document.body.dataset.toAct});
        note();
        new MutationObserver(note).observe(document.body,
            {attributes: true, attributeFilter: ['data-version']});
        return performance.now() + grace * 1000; }""", grace)
    a.wait_for_selector('.seat-box[data-seat="1"] .tag.away', timeout=STEP_MS)
    # Ada plays whenever it is her turn; Bo's seat must move by itself after the grace period
    a.wait_for_selector('.seat-box[data-seat="1"] .tag.autoplay', timeout=STEP_MS)
    assert time.monotonic() - t_gone >= grace - 0.2

    def bot_moves() -> list[float]:
        """How long after its turn began (never before the grace period ended) each move
        made from seat 1 arrived, in seconds."""
        states = a.evaluate("window.__states")
        return [(r["t"] - max(p["t"], grace_end)) / 1000 for p, r in zip(states, states[1:])
                if p["toAct"] == "1" and r["mc"] > p["mc"]]

    for _ in range(20):          # turns, not seconds: Ada's own plays may be slow on a busy machine
        if bot_moves():
            break
        to_act, v0 = a.evaluate("[document.body.dataset.toAct, Number(document.body.dataset.version)]")
        if to_act == "0":
            _legal_and_play(a)
        else:
            _wait_version_above(a, v0, timeout=STEP_MS)
    took = bot_moves()
    assert took, "the bot played Bo's seat"
    assert took[0] < 2.0, f"the bot moved {took[0]:.2f} s after the grace period"
    # Bo opens the link again: the seat is his, the badge goes, his hand is there
    cb2 = browser.new_context(viewport=DESKTOP, storage_state=state)
    b2 = _watch(cb2.new_page(), errors)
    b2.goto(url)
    b2.wait_for_function("document.body.dataset.seat === '1'", timeout=STEP_MS)
    b2.wait_for_selector("#hand .card", timeout=STEP_MS)
    a.wait_for_selector('.seat-box[data-seat="1"] .tag.autoplay', state="detached",
                        timeout=STEP_MS)
    assert a.locator('.seat-box[data-seat="1"] .tag.away').count() == 0
    assert set(_hand(b2)) <= set(hand_b)
    # and the seat waits for him again: when it is his turn, nobody moves for him
    if _to_act(a) == 0:
        _legal_and_play(a)
    b2.wait_for_selector("#your-turn", timeout=STEP_MS)
    v = _version(b2)
    time.sleep(1.0)
    assert _version(b2) == v, "no bot moves for a person who is back"
    ca.close()
    cb2.close()


def test_same_seat_in_a_second_tab(server, browser, errors):
    """3. The older tab says "Opened elsewhere" and sends nothing from then on."""
    url, (ca, a), (cb, b) = _two_players(server, browser, errors)
    sent = []
    b.on("websocket", lambda ws: ws.on("framesent", lambda payload: sent.append(payload)))
    b.reload()
    b.wait_for_selector("#hand .card", timeout=STEP_MS)
    b.wait_for_function("document.body.dataset.connected === '1'", timeout=STEP_MS)
    newer = _watch(cb.new_page(), errors)
    newer.goto(url)
    newer.wait_for_function("document.body.dataset.seat === '1'", timeout=STEP_MS)
    b.wait_for_selector("#elsewhere:not([hidden])", timeout=STEP_MS)
    assert "Opened elsewhere" in b.text_content("#elsewhere")
    n = len(sent)
    # whatever the older tab tries, nothing goes out
    b.click("#hand .card >> nth=0", force=True)      # (the card says aria-disabled)
    for key in ("h", "Enter", "x", "p"):
        b.keyboard.press(key)
    b.fill("#chat-input", "still here?")
    b.click("#chat-form button")
    time.sleep(0.5)
    assert len(sent) == n, sent[n:]
    assert b.locator("#play").is_disabled() and b.locator("#pass").is_disabled()
    assert newer.locator("#hand .card").count() > 0
    ca.close()
    cb.close()


def test_play_helpers_selection_and_auto_pass(server, browser, errors):
    """5. The selection survives the other players' moves; Play stays disabled for an illegal
    selection and says why; Legal plays cycles through the legal plays; auto-pass passes for the rest
    of the trick and switches itself off when the trick ends."""
    url, (ca, a), (cb, b) = _two_players(server, browser, errors)
    pages = {0: a, 1: b}
    mover = _to_act(a)
    me, mp = 1 - mover, pages[1 - mover]
    # the waiting player picks a card; the other player's move keeps it picked
    card = _hand(mp)[-1]
    mp.click(f'#hand .card[data-card="{card}"]')
    assert mp.get_attribute(f'#hand .card[data-card="{card}"]', "aria-pressed") == "true"
    _legal_and_play(pages[mover])
    mp.wait_for_selector("#your-turn", timeout=STEP_MS)
    assert mp.get_attribute(f'#hand .card[data-card="{card}"]', "aria-pressed") == "true"
    mp.click("#clear")

    # an illegal selection: Play disabled, with the reason next to it
    hand = _hand(mp)
    def ranks(cards):          # suits never matter in Owen's rules
        return " ".join(sorted(c if c in ("BJ", "RJ") else c[:-1] for c in cards))

    plays = {ranks(m.split(" as ")[0].split()) for m in _legal(mp) if m != "pass"}
    natural = [c for c in hand if c not in ("BJ", "RJ") and not c.startswith("2")]
    bad = next(([x, y] for i, x in enumerate(natural) for y in natural[i + 1:]
                if ranks([x, y]) not in plays), None)
    assert bad, "two cards that make no play"
    for c in bad:
        mp.click(f'#hand .card[data-card="{c}"]')
    assert mp.locator("#play").is_disabled()
    why = mp.text_content("#play-why")
    assert why and ("beat" in why or "form" in why), why
    assert mp.get_attribute("#play", "aria-describedby") == "play-why"
    mp.click("#clear")

    # Legal plays cycles through the legal plays
    seen = []
    for _ in range(min(4, len(_legal(mp)))):
        mp.click("#legal")
        m = mp.get_attribute("#hint-text", "data-move")
        assert m in _legal(mp)
        seen.append(m)
    assert len(set(seen)) == len(seen), seen
    mp.click("#clear")

    # auto-pass: on while the other player leads; it passes for me in this trick, then is off
    _legal_and_play(mp)                    # my move; now the other player acts
    op = pages[mover]
    op.wait_for_selector("#your-turn", timeout=STEP_MS)
    beats = [m for m in _legal(op) if m != "pass"]
    if not beats:
        pytest.fail("expected the other player to have a play")
    mp.check("#autopass")
    v0 = _version(mp)
    move = beats[0]
    for c in move.split(" as ")[0].split():
        op.click(f'#hand .card[data-card="{c}"]')
    op.click("#play")
    if op.locator("#moves .reading-btn").count():
        op.click("#moves .reading-btn >> nth=0")
    # the trick goes on with my turn: auto-pass passes without a click, and the trick ends
    mp.wait_for_function("v0 => Number(document.body.dataset.version) >= v0 + 2", arg=v0,
                         timeout=STEP_MS)
    mp.wait_for_function("!document.getElementById('autopass').checked", timeout=STEP_MS)
    actions = mp.locator("#log li").evaluate_all(
        "els => els.map(e => [e.dataset.action, e.dataset.seat])")
    assert actions[-1] == ["pass", str(me)] or ["pass", str(me)] in actions[-3:], actions[-4:]
    ca.close()
    cb.close()


def test_wild_card_readings_are_asked(server, browser, errors):
    """5. When the selected cards can be read two ways (a joker in a pagat sequence), the
    player is asked which reading; the chosen one is played."""
    ctx = browser.new_context(viewport=DESKTOP)
    page = _watch(ctx.new_page(), errors)
    group = None
    # The server deals at random (no seed can be chosen), so try deals until one happens. With
    # 3 players, seat 0's first turn offers a play of two readings in about a third of the
    # deals (32.5% of 400 deals played with the engine and greedy bots): 10 tries missed about
    # 2% of the time (it failed once in CI); 40 miss about once in seven million.
    tries = 40
    for _ in range(tries):
        url = _table(server, game="zheng-shangyou/pagat", players=3, options={"target": 50})
        _sit(page, url, "Ada", seat=0)
        _start(page)
        if not _wait_my_turn(page):
            continue
        group = page.evaluate("""() => {
            const by = {};
            for (const m of window.__shangyou.view.legal_moves) {
                if (m === 'pass') continue;
                const k = m.split(' as ')[0].split(' ').sort().join(' ');
                (by[k] = by[k] || []).push(m);
            }
            return Object.values(by).find(g => g.length > 1) || null;
        }""")
        if group:
            break
    assert group, f"no deal with a play of two readings in {tries} tries"
    for c in group[0].split(" as ")[0].split():
        page.click(f'#hand .card[data-card="{c}"]')
    assert not page.locator("#play").is_disabled()
    page.click("#play")
    page.wait_for_selector("#moves .reading-btn", timeout=STEP_MS)
    offered = page.locator("#moves .reading-btn").evaluate_all(
        "els => els.map(e => e.dataset.move)")
    assert sorted(offered) == sorted(group)
    assert page.text_content("#readings-q")
    v0 = _version(page)
    page.click(f'#moves .reading-btn[data-move="{group[-1]}"]')
    _wait_version_above(page, v0)
    assert not page.text_content("#alert")
    played = page.evaluate("(window.__shangyou.view.played.flat().concat(window.__shangyou.view.trick))"
                           ".filter(p => p[0] === 0).map(p => p[1])")
    assert group[-1] in played or group[-1].split(" as ")[0] in " ".join(played), played
    ctx.close()


def test_whole_hand_on_a_phone_by_keyboard_with_review(server, browser, errors):
    """6 and 7. A whole match on a 390x844 screen played with the keyboard only: no sideways
    scroll, every card at least 24x44 px to tap; the last trick on demand, one log line per
    move, and the end-of-hand score table whose rows add up."""
    ctx = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True,
                              has_touch=True)
    page = _watch(ctx.new_page(), errors)
    url = _table(server, options={"target": 2})
    seat = _sit(page, url, "Ada")
    _start(page)
    _wait_my_turn(page)
    _no_horizontal_scroll(page)
    _card_tap_areas(page)
    _shot(page, "table-phone-en.png")

    # a whole turn by the keyboard: Tab into the hand, arrows, Space picks, Enter plays
    v0 = _version(page)
    page.focus("#hand .card[tabindex='0']")
    if page.evaluate("window.__shangyou.view.last") is None:       # we lead: any single card
        page.keyboard.press("ArrowRight")
        page.keyboard.press("ArrowRight")
        focused = page.evaluate("document.activeElement.dataset.card")
        assert focused == _hand(page)[2]
        page.keyboard.press("Space")
        assert page.evaluate("document.activeElement.getAttribute('aria-pressed')") == "true"
        page.keyboard.press("Enter")
    else:
        page.keyboard.press("l")
        page.keyboard.press("Enter" if page.get_attribute("#hint-text", "data-move") != "pass"
                            else "x")
    _wait_version_above(page, v0)
    assert not page.text_content("#alert")

    checked_last = False
    moves = 1
    while _wait_my_turn(page):
        if not checked_last and page.evaluate("(window.__shangyou.view.played || []).length"):
            page.click("#last-trick-btn")
            page.wait_for_selector("#last-trick:not([hidden]) .trick-plays li", timeout=STEP_MS)
            want = page.evaluate("window.__shangyou.view.played.at(-1)")
            shown = page.locator("#last-trick .trick-plays li").evaluate_all(
                "els => els.map(e => Number(e.dataset.seat))")
            assert shown == [p[0] for p in want]
            winner = [p[0] for p in want if p[1] != "pass"][-1]
            assert page.get_attribute("#last-trick", "data-winner") == str(winner)
            assert page.get_attribute("#last-trick-btn", "aria-expanded") == "true"
            _no_horizontal_scroll(page)
            checked_last = True
        _legal_and_play(page, keyboard=True)
        moves += 1
        assert moves < 120
    assert checked_last

    # one log line per move
    n_moves = page.evaluate("window.__shangyou.moveCount")
    lines = page.locator("#log li[data-action='play'], #log li[data-action='pass']").count()
    assert lines == n_moves, (lines, n_moves)
    # the score table: before + change = after on every row, after = the final scores
    page.wait_for_selector("#score-table tbody tr", timeout=STEP_MS)
    rows = page.locator("#score-table tbody tr").evaluate_all(
        "els => els.map(e => [+e.dataset.before, +e.dataset.change, +e.dataset.after])")
    assert rows and all(b + c == a for b, c, a in rows), rows
    result = page.evaluate("window.__shangyou.view.result")
    assert [a for _, _, a in rows] == result["scores"]
    assert sum(c for _, c, _ in rows) == sum(result["scores"]) - sum(b for b, _, _ in rows)
    _no_horizontal_scroll(page)
    # the log on another device (no log kept there yet): the server sends the whole match
    other = browser.new_context(viewport=DESKTOP)
    spect = _watch(other.new_page(), errors)
    spect.goto(url)
    spect.wait_for_selector("#result")
    spect.wait_for_function("n => document.querySelectorAll(\"#log li[data-action='play'], "
                            "#log li[data-action='pass']\").length === n", arg=n_moves)
    assert spect.locator("#log li").count() == page.locator("#log li").count()
    other.close()
    ctx.close()


def test_display_settings_kept_and_suits_not_by_colour(server, browser, errors):
    """7. Four-colour suits, dark theme, card size and reduced motion are kept across reloads;
    each suit has its own shape and name, whatever the colours."""
    ctx = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True,
                              has_touch=True)
    page = _watch(ctx.new_page(), errors)
    url = _table(server, options={"target": 50})
    _sit(page, url, "Ada")
    _start(page)
    page.wait_for_selector("#hand .card", timeout=STEP_MS)
    colour = "c => getComputedStyle(document.querySelector(`.card-svg.ink-${c}`) || document.body).color"
    page.click("#open-settings")
    page.check("#set-four")
    page.check("#set-dark")
    page.select_option("#set-size", "l")
    page.check("#set-motion")
    page.click("#settings-close")
    page.reload()
    page.wait_for_selector("#hand .card", timeout=STEP_MS)
    classes = page.evaluate("document.documentElement.className")
    for c in ("four-colour", "dark", "size-l", "reduce-motion"):
        assert c in classes.split(), classes
    page.click("#open-settings")
    assert page.is_checked("#set-four") and page.is_checked("#set-dark")
    assert page.is_checked("#set-motion") and page.input_value("#set-size") == "l"
    page.click("#settings-close")
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") != "rgb(15, 81, 50)"
    assert page.evaluate("getComputedStyle(document.querySelector('.card')).transitionDuration") \
        in ("0s", "")
    _card_tap_areas(page)
    _no_horizontal_scroll(page)
    # every card names its suit and draws its own suit shape
    labels = page.locator("#hand .card").evaluate_all(
        "els => els.map(e => [e.dataset.card, e.getAttribute('aria-label'),"
        " e.querySelector('svg g path, svg g g') ? e.querySelector('svg g').innerHTML : ''])")
    names = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
    shapes = {}
    for card, label, shape in labels:
        if card in ("BJ", "RJ"):
            assert "joker" in label
            continue
        assert names[card[-1]] in label, (card, label)
        shapes.setdefault(card[-1], set()).add(shape)
    assert all(len(v) == 1 for v in shapes.values())
    assert len({next(iter(v)) for v in shapes.values()}) == len(shapes), "one shape per suit"
    # four colours: diamonds and clubs get their own ink
    page.evaluate("document.documentElement.classList.add('x')")
    assert len({page.evaluate(colour, s) for s in "SHDC"}) == 4
    ctx.close()


def _axe(page) -> list[dict]:
    page.add_script_tag(path=str(AXE))
    res = page.evaluate("""() => axe.run(document, {runOnly: {type: 'tag',
        values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']}})""")
    return [{"id": v["id"], "impact": v["impact"], "help": v["help"],
             "nodes": [n["target"] for n in v["nodes"][:5]]}
            for v in res["violations"] if v["impact"] in ("serious", "critical")]


def test_sheng_ji_lead_of_two_suits_is_refused_with_the_reason(server, browser, errors):
    """5 (Sheng ji). A lead of two suits keeps Play disabled and says why (trumps are one
    suit); the table of a trick-taking game also passes axe-core."""
    ctx = browser.new_context(viewport=DESKTOP)
    page = _watch(ctx.new_page(), errors)
    led = False
    for _table_try in range(5):     # a hand may end before Ada ever leads: a new table then
        url = _table(server, game="sheng-ji", players=4)
        _sit(page, url, "Ada")
        _start(page)
        for _ in range(120):            # bidding, burying, tricks: until we lead a trick
            if not _wait_my_turn(page):
                break
            v = page.evaluate("window.__shangyou.view")
            if v["phase"] == "play" and not v["trick"] and not v.get("pending"):
                led = True
                break
            move = page.evaluate("window.__shangyou.view.legal_moves[0]")
            v0 = _version(page)
            kind = move.split()[0]
            if page.locator(f'#moves button[data-move="{move}"]').count():
                page.click(f'#moves button[data-move="{move}"]')
            elif move == "pass":
                page.click("#pass")
            elif kind == "bury":
                _bury_by_page(page)
            elif kind in ("pick", "throw"):
                page.click(f'#hand .card[data-card="{move.split()[1]}"] >> nth=0')
            else:
                for c in move.split():
                    page.click(f'#hand .card[aria-pressed="false"][data-card="{c}"] >> nth=0')
                page.click("#play")
            _wait_version_above(page, v0)
        if led:
            suit = page.evaluate("""() => {
                const v = window.__shangyou.view, lvl = String(v.level), tr = String(v.trump || '');
                return v.hand.map(c => (c === 'BJ' || c === 'RJ' || c.slice(0, -1) === lvl ||
                    (tr.length >= 2 && c.slice(-1) === tr.slice(-1))) ? 'T' : c.slice(-1));
            }""")
            if len(set(suit)) > 1:
                break
            led = False                # a lead from a hand of one suit: a new table then
    if not led:
        pytest.fail("never led a trick from a hand of two suits")
    hand = _hand(page)
    first = 0
    second = next(i for i, s in enumerate(suit) if s != suit[first])
    page.click(f'#hand .card[data-index="{first}"]')
    assert not page.locator("#play").is_disabled(), f"{hand[first]} alone is a lead"
    page.click(f'#hand .card[data-index="{second}"]')
    assert page.locator("#play").is_disabled()
    assert "one suit" in page.text_content("#play-why")
    assert not _axe(page), _axe(page)
    ctx.close()

