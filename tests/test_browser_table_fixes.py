"""What a new user tripped over at the table (issue 22, section 3), each checked in real
headless Chromium: the legal play shown goes with the move, a disabled Play looks disabled, a
selection of the wrong size says what is wrong, counted words agree with their number, a reading that only
repeats the rank is left out, Sheng ji's deal reads as bids and a declaration in the log (not
one pass per dealt card), Winner's match length is shown, and the replay says which moves a bot
made for a person who was away.
"""

from __future__ import annotations

import pytest

from test_browser import _get_json, browser, serve  # noqa: F401 (browser: a fixture)
from test_browser_table import (DESKTOP, LOOPBACK, STEP_MS, _legal_and_play, _shot, _sit,
                                _start, _table, _wait_my_turn, _watch)

pytestmark = pytest.mark.timeout(240)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    yield from serve(tmp_path_factory.mktemp("web-fixes-data"), "--bot-delay", "0.02", *LOOPBACK)


def _page(browser, errors):
    ctx = browser.new_context(viewport=DESKTOP)
    return ctx, _watch(ctx.new_page(), errors)


def _plays(page) -> list[list[str]]:
    """The card plays among the legal moves, as lists of cards (readings left out)."""
    return page.evaluate("""() => (window.__shangyou.view.legal_moves || [])
        .filter(m => m !== 'pass' && !/^[a-z]/.test(m))
        .map(m => m.split(' as ')[0].trim().split(/\\s+/))""")


def test_hint_goes_with_the_move_and_disabled_play_looks_disabled(server, browser):
    errors: list[str] = []
    ctx, page = _page(browser, errors)
    url = _table(server, options={"target": 50})
    _sit(page, url, "Ada")
    _start(page)
    assert _wait_my_turn(page)
    assert page.locator("#play").is_disabled()
    look = "() => { const s = getComputedStyle(document.getElementById('play'));" \
           " return [s.backgroundColor, s.color, s.fontWeight]; }"
    disabled = page.evaluate(look)
    page.click("#legal")
    if page.get_attribute("#hint-text", "data-move") != "pass":
        assert not page.locator("#play").is_disabled()
        enabled = page.evaluate(look)
        assert disabled[0] != enabled[0] and disabled[1] != enabled[1], (disabled, enabled)
    page.click("#clear")
    _legal_and_play(page)
    # the hint, its text and its rings are gone after the move
    assert page.text_content("#hint-text") == ""
    assert page.locator(".hinted").count() == 0
    ctx.close()
    assert not errors, errors


def test_a_selection_of_the_wrong_size_says_what_is_wrong(server, browser):
    errors: list[str] = []
    ctx, page = _page(browser, errors)
    url = _table(server, options={"target": 50})
    _sit(page, url, "Ada")
    _start(page)
    checked = False
    for _ in range(60):
        if not _wait_my_turn(page):
            break
        last = page.evaluate("window.__shangyou.view.last")
        hand = page.evaluate("window.__shangyou.view.hand")
        if last:
            n = len(last["cards"].split())
            sizes = {len(p) for p in _plays(page)}
            k = next((k for k in range(1, len(hand) + 1) if k != n and k not in sizes), None)
            if k is not None:
                # a reading that only repeats the rank ("3" for a single 3) is not shown
                reading = str(last.get("reading") or "")
                ranks = {c[:-1] for c in last["cards"].split()}
                if reading.isalnum() and ranks == {reading.upper()}:
                    assert page.locator("#prompt .reading").count() == 0
                for c in hand[:k]:
                    page.click(f'#hand .card[aria-pressed="false"][data-card="{c}"] >> nth=0')
                assert page.locator("#play").is_disabled()
                why = page.text_content("#play-why")
                assert f"play {n} card" in why, why
                assert "do not beat" not in why
                page.click("#clear")
                checked = True
                break
        _legal_and_play(page)
    assert checked, "never had a play to beat with a size to get wrong"
    ctx.close()
    assert not errors, errors


def test_counted_words_agree_with_their_number(server, browser):
    errors: list[str] = []
    ctx, page = _page(browser, errors)
    page.goto(server + "/")
    page.wait_for_selector('#game option[value="zheng-fen"]', state="attached")
    got = page.evaluate("""() => import('/static/i18n.js').then(m => [
        m.t('c.nCards', {n: 1}), m.t('c.nCards', {n: 2}), m.t('f.kittyN', {n: 1}),
        m.t('s.declUp', {n: 0}), m.t('s.declUp', {n: 1}), m.t('s.oppUp', {n: 3}),
        m.t('t.why.count', {n: 1}), Object.values(m.STRINGS.en).filter(v => v.includes('(s)'))])""")
    assert got[:7] == ["1 card", "2 cards", "1 card", "Declarers stay at their level",
                       "Declarers go up 1 level", "Opponents go up 3 levels", "Select 1 card."], got
    assert got[7] == [], got[7]
    ctx.close()
    assert not errors, errors


def test_sheng_ji_deal_reads_as_bids_not_passes(server, browser):
    errors: list[str] = []
    ctx, page = _page(browser, errors)
    seen = False
    for _try in range(5):       # a deal where somebody passed before the trump was declared
        url = _table(server, game="sheng-ji", players=4)
        _sit(page, url, "Ada")
        _start(page)
        # until the deal is over (the trump is declared): pass when asked to bid
        for _ in range(200):
            assert _wait_my_turn(page)
            if page.evaluate("window.__shangyou.view.phase") != "deal":
                break
            v0 = int(page.evaluate("document.body.dataset.version"))
            page.click("#pass")
            page.wait_for_function("v0 => Number(document.body.dataset.version) > v0", arg=v0,
                                   timeout=STEP_MS)
        raw = page.evaluate("window.__shangyou.log.lines")
        kinds = [e.get("event") or e.get("type") for e in raw]
        first = next(i for i, k in enumerate(kinds) if k in ("trump", "no bid"))
        passes = sum(1 for e in raw[:first] if (e.get("event") or e.get("type")) == "pass" or
                     e.get("move") == "pass")
        shown = page.locator("#log li").evaluate_all("els => els.map(e => e.dataset.action)")
        cut = next(i for i, a in enumerate(shown) if a in ("trump", "no bid"))
        assert not [a for a in shown[:cut] if a in ("pass", "move")], shown[:cut]
        assert cut == first - passes, (shown[:cut], kinds[:first])
        if passes:
            seen = True
            break
    assert seen, "no deal had a pass to leave out"
    ctx.close()
    assert not errors, errors


def test_winner_shows_the_match_length(server, browser):
    errors: list[str] = []
    ctx, page = _page(browser, errors)
    url = _table(server, game="zheng-shangyou/winner", players=4)
    _sit(page, url, "Ada")
    _start(page)
    page.wait_for_selector('#strip [data-fact="hand"]')
    assert "1 of 8" in page.text_content('#strip [data-fact="hand"]')
    ctx.close()
    assert not errors, errors


def test_lobby_offers_only_valid_packs_and_a_bomb_menu(server, browser):
    """Winner: the packs follow the number of players (one pack for 3-4, two for 4-8), the
    bomb is a choice, and the engine's refusal is told in the form's words."""
    errors: list[str] = []
    ctx, page = _page(browser, errors)
    page.goto(server + "/")
    page.wait_for_selector('#game option[value="zheng-fen"]', state="attached")
    page.select_option("#game", "zheng-shangyou/pagat")
    page.select_option("#players", "5")
    page.select_option("#game", "zheng-shangyou/winner")
    packs = "() => [...document.querySelectorAll('#opt-decks option')].map(o => o.value)"
    for n, want in (("3", ["1"]), ("4", ["1", "2"]), ("5", ["2"]), ("8", ["2"])):
        page.select_option("#players", n)
        assert page.evaluate(packs) == want, (n, page.evaluate(packs))
    assert page.evaluate("document.getElementById('opt-bomb').tagName") == "SELECT"
    assert page.evaluate("[...document.querySelectorAll('#opt-bomb option')].map(o => o.value)") \
        == ["kicker", "quad"]
    words = page.evaluate("""() => import('/static/options.js').then(m => m.formWords(
        "zheng-shangyou/winner with decks=1 is played by 3, 4 players, not 5"))""")
    assert words == "With 1 pack this game is for 3, 4 players, not 5.", words
    # the lobby's choice for 5 players is playable: the table opens
    page.select_option("#players", "5")
    page.click("#create")
    page.wait_for_url("**/t/*", timeout=STEP_MS)
    page.wait_for_selector("#seat-list .sit", timeout=STEP_MS)
    ctx.close()
    assert not errors, errors


def test_favicon(server):
    """/favicon.ico answers (the site's icon), and every page names its icon."""
    import urllib.request

    with urllib.request.urlopen(server + "/favicon.ico", timeout=5) as r:
        assert r.status == 200 and r.headers["Content-Type"].startswith("image/svg+xml")
        assert b"<svg" in r.read()
    with urllib.request.urlopen(server + "/", timeout=5) as r:
        assert b'rel="icon"' in r.read()


def test_friend_call_picker_warns_of_a_call_that_can_never_find_a_friend(server, browser):
    """Zhao Pengyou's call: first/second/..., the suit and the rank, picked by tapping; a call whose
    every playable copy is the declarer's (held or buried) says it can never find a friend and
    is never the hint."""
    errors: list[str] = []
    ctx, page = _page(browser, errors)
    page.goto(server + "/")
    page.wait_for_selector('#game option[value="zheng-fen"]', state="attached")
    calls = [f"call {o} {r}{s}" for o in (1, 2) for s in "SHDC"
             for r in ("A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3", "2")]
    page.evaluate("""(calls) => import('/static/table-call.js').then(m => {
        const box = document.createElement('div');
        box.id = 'picker-test';
        document.body.prepend(box);
        window.__called = [];
        // the declarer holds one AS and buried the other: no AS call can find a friend
        m.renderCallPicker(box, calls, {hand: ['AS', 'KH', 'KH'], buried: ['AS'],
                                        onCall: (mv) => window.__called.push(mv)});
        window.__can = calls.filter(c => !m.callCanFind(c, {hand: ['AS', 'KH', 'KH'],
                                                             buried: ['AS'], decks: 2}));
    })""", calls)
    assert page.locator("#picker-test .call-ord").count() == 2
    assert page.locator("#picker-test .call-suit").count() == 4
    # one suit's ranks at a time (spades first)
    assert page.locator("#picker-test .call-card").count() == 13
    assert set(page.evaluate("window.__can")) == {"call 1 AS", "call 2 AS", "call 1 KH", "call 2 KH"}
    page.click('#picker-test .call-card[data-move="call 1 AS"]')
    assert page.is_visible("#call-never")
    page.click('#picker-test .call-ord[data-ord="2"]')
    page.click('#picker-test .call-suit[data-suit="D"]')
    page.click('#picker-test .call-card[data-move="call 2 QD"]')
    assert page.locator("#call-never").count() == 0
    page.click("#call-send")
    assert page.evaluate("window.__called") == ["call 2 QD"]
    ctx.close()
    assert not errors, errors


COUNT_ANIMATIONS = """(() => { window.__moves = 0; const a = Element.prototype.animate;
    Element.prototype.animate = function (...args) { window.__moves += 1; return a.apply(this, args); };
})()"""


@pytest.mark.parametrize("reduced", [False, True])
def test_cards_move_to_the_table_unless_motion_is_reduced(server, browser, reduced):
    """A new play comes from its seat to the cloth; with reduced motion (the system's setting
    here) nothing moves; the table's plays never take a click."""
    errors: list[str] = []
    ctx = browser.new_context(viewport=DESKTOP, reduced_motion="reduce" if reduced else "no-preference")
    ctx.add_init_script(COUNT_ANIMATIONS)
    page = _watch(ctx.new_page(), errors)
    url = _table(server, options={"target": 50})
    _sit(page, url, "Ada")
    _start(page)
    for _ in range(4):
        if not _wait_my_turn(page):
            break
        _legal_and_play(page)
    assert page.locator("#trick .spot").count() + page.locator("#trick-panel").count() > 0
    assert page.evaluate("getComputedStyle(document.getElementById('trick-panel')).pointerEvents") == "none"
    moved = page.evaluate("window.__moves")
    assert (moved == 0) if reduced else (moved > 0), moved
    ctx.close()
    assert not errors, errors


def test_share_button_shows_a_qr_code_of_the_link(server, browser):
    """The table's link as a QR code for phones, in a dialog (qrcode-generator, vendored)."""
    from test_browser_table import _axe

    errors: list[str] = []
    ctx, page = _page(browser, errors)
    url = _table(server, options={"target": 50})
    _sit(page, url, "Ada")
    page.click("#share-qr")
    page.wait_for_selector("#share-dialog[open] #share-qr-img")
    page.wait_for_function("document.getElementById('share-qr-img').naturalWidth > 100")
    assert page.get_attribute("#share-qr-img", "src").startswith("data:image/gif;base64,")
    assert url in page.text_content("#share-dialog")
    assert not _axe(page), _axe(page)
    page.click("#share-close")
    page.wait_for_selector("#share-dialog", state="hidden")
    ctx.close()
    assert not errors, errors


def test_side_drawer_on_a_phone(server, browser):
    """On a phone the log, chat, host tools and link are a drawer over the table: "More"
    opens it, Escape closes it, axe-core finds nothing serious either way."""
    from test_browser_table import PHONE, _axe

    errors: list[str] = []
    ctx = browser.new_context(viewport=PHONE)
    page = _watch(ctx.new_page(), errors)
    url = _table(server, options={"target": 50})
    _sit(page, url, "Ada")
    _start(page)
    _wait_my_turn(page)
    assert page.is_hidden("#side") and page.is_visible("#open-side")
    page.click("#open-side")
    page.wait_for_selector("#side #chat-input", state="visible")
    assert page.get_attribute("#open-side", "aria-expanded") == "true"
    assert page.is_visible("#host-panel") and page.is_visible("#log-title")
    assert not _axe(page), _axe(page)
    page.keyboard.press("Escape")
    page.wait_for_selector("#side", state="hidden")
    assert page.evaluate("document.activeElement.id") == "open-side"
    ctx.close()
    assert not errors, errors


def test_replay_says_which_moves_a_bot_made_for_an_absent_person(server, browser):
    """Ada makes her first moves herself, then leaves the match (the room's grace is 0 s, so a
    bot plays her seat at once): stepping through the replay, exactly the moves of her seat
    after she left carry the note "a bot played for them", not hers and not the bot seat's."""
    errors: list[str] = []
    url = _table(server, options={"target": 1}, room={"grace": 0})
    ctx, page = _page(browser, errors)
    _sit(page, url, "Ada", seat=0)
    wc, watcher = _page(browser, errors)
    watcher.goto(url)
    _start(page)                                    # a bot in the other seat
    for _ in range(2):                              # Ada's own moves (no turn timer runs)
        assert _wait_my_turn(page)
        v0 = int(page.evaluate("document.body.dataset.version"))
        page.evaluate("""() => { const S = window.__shangyou;
            S.ws.send(JSON.stringify({type: 'move', move: S.view.legal_moves[0],
                                      version: S.version})); }""")
        page.wait_for_function("v0 => Number(document.body.dataset.version) > v0", arg=v0,
                               timeout=STEP_MS)
    left_at = page.evaluate("window.__shangyou.moveCount")   # every later move of seat 0 ...
    ctx.close()                                              # ... is the bot's for Ada
    watcher.wait_for_selector("#result, #replay-link", timeout=60_000)
    match_id = watcher.evaluate("window.__shangyou.table.match_id")
    moves = _get_json(f"{server}/api/matches/{match_id}")["log"]["moves"]
    expected = [seat == 0 and i >= left_at for i, (seat, _) in enumerate(moves)]
    assert any(expected), "the bot moved for Ada"
    assert any(seat == 0 and not e for (seat, _), e in zip(moves, expected)), "Ada moved"
    assert any(seat == 1 for seat, _ in moves)

    watcher.goto(f"{server}/replay/{match_id}")
    watcher.wait_for_function("document.getElementById('step-text').textContent.endsWith(' / "
                              f"{len(moves)}')")
    notes = watcher.evaluate("""(n) => {
        const out = [];
        for (let k = 1; k <= n; k++) {
            document.getElementById('next').click();
            const note = document.querySelector('#last-move .assisted');
            out.push(note ? [note.dataset.by, note.textContent] : null);
        }
        return out; }""", len(moves))
    assert [n is not None for n in notes] == expected, (notes, moves, left_at)
    assert {tuple(n) for n in notes if n} == {("bot", "(a bot played for them: they were away)")}
    first = expected.index(True) + 1
    watcher.click("#first")
    for _ in range(first):
        watcher.click("#next")
    watcher.wait_for_selector('#last-move .assisted[data-by="bot"]')
    _shot(watcher, "replay-assisted-desktop.png")
    watcher.click("#prev")
    assert watcher.locator("#last-move .assisted").count() == (1 if expected[first - 2] else 0)
    wc.close()
    assert not errors, errors
