"""The kitty and the friend call as people play them on a phone (issue 32), in real headless
Chromium: burying is choose-then-Confirm with the kitty's cards marked, the friend-call picker
fits the screen and the log words the call; the host's switch for hints between people.

The server deals at random (no seed can be chosen), so a test bids as strongly as it can and
takes a new table until its player is the one to bury.
"""

from __future__ import annotations

import re

import pytest

from test_browser import HINT_MS, browser  # noqa: F401 (browser: a fixture)
from test_browser_table import (  # noqa: F401 (server, errors: fixtures)
    STEP_MS, _axe, _hand, _no_horizontal_scroll, _shot, _sit, _start, _table, _version,
    _wait_version_above, _watch, errors, server)

pytestmark = pytest.mark.timeout(300)

PORTRAIT = {"width": 390, "height": 844}
LANDSCAPE = {"width": 844, "height": 390}
SMALL = {"width": 360, "height": 740}


def _strongest_bid(moves: list[str]) -> str | None:
    bids = [m for m in moves if m.startswith("bid ")]
    return max(bids, key=lambda m: (len(m.split()), "BJ" in m or "RJ" in m)) if bids else None


def _to_my_bury(page, server, game: str, players: int, tries: int = 30) -> None:
    """A table of ``game`` with bots where this page's player buries the kitty: bid the
    strongest bid at every chance; a new table as soon as another seat has declared (with
    four bots overcalling, that is most tables of five: each try is a few seconds)."""
    mine_or_lost = """() => { const v = window.__shangyou.view;
        return !!v && (v.to_act === v.seat || (v.phase !== 'deal' && v.declarer !== v.seat)); }"""
    for _ in range(tries):
        url = _table(server, game=game, players=players)
        _sit(page, url, "Ada", seat=0)
        _start(page)
        for _step in range(200):
            page.wait_for_function(mine_or_lost, timeout=STEP_MS)
            v = page.evaluate("window.__shangyou.view")
            moves = v.get("legal_moves") or []
            if v["phase"] == "bury" and any(m.startswith("bury ") for m in moves):
                page.wait_for_selector("#bury-box:not([hidden]) #bury-confirm")
                return
            if v["phase"] != "deal" or not moves:
                break                      # somebody else took the kitty: another table
            move = _strongest_bid(moves) or "pass"
            v0 = _version(page)
            if move == "pass":
                page.click("#pass")
            else:
                page.click(f'#moves button[data-move="{move}"]')
            _wait_version_above(page, v0)
    pytest.fail(f"never the one to bury in {tries} tables")


def _fits(page, selectors: list[str]) -> None:
    """The page does not scroll, and each element lies wholly on the screen."""
    over = page.evaluate("""() => [document.scrollingElement.scrollHeight - window.innerHeight,
                                   document.scrollingElement.scrollWidth - window.innerWidth]""")
    assert over[0] <= 0 and over[1] <= 0, f"the page scrolls by {over}"
    _no_horizontal_scroll(page)
    for sel in selectors:
        box = page.locator(sel).first.bounding_box()
        size = page.viewport_size
        assert box, f"{sel} is drawn"
        assert box["x"] >= 0 and box["y"] >= 0 and box["x"] + box["width"] <= size["width"] + 0.5 \
            and box["y"] + box["height"] <= size["height"] + 0.5, f"{sel} off the screen: {box}"


def _targets(page, selector: str) -> list:
    """[width, height] of every element of ``selector`` smaller than 44 px either way."""
    return page.locator(selector).evaluate_all("""els => els.map(e => {
        const r = e.getBoundingClientRect(); return [e.id || e.textContent, r.width, r.height];
    }).filter(([, w, h]) => w < 44 || h < 44)""")


def _tap(page, selector: str) -> None:
    """Tap a hand card where it shows: its left edge (the next card lies over the rest)."""
    page.locator(selector).click(position={"x": 6, "y": 30})


def _count_text(page) -> str:
    return page.text_content("#bury-count")


def _bury_checks(page, kitty: int) -> None:
    """At the bury turn: the kitty's cards marked; taps choose without sending; Undo and Clear
    put cards back; everything fits."""
    v = page.evaluate("window.__shangyou.view")
    assert v["kitty_size"] == kitty and len(v["kitty_taken"]) == kitty
    marked = page.locator("#hand .card.from-kitty")
    assert marked.count() == kitty
    cards = sorted(marked.evaluate_all("els => els.map(e => e.dataset.card)"))
    assert cards == sorted(v["kitty_taken"])
    assert "from the kitty" in marked.first.get_attribute("aria-label")
    assert _count_text(page) == f"Choose {kitty} cards to bury: 0 chosen"
    v0 = _version(page)
    for i in (0, 1, 2):
        _tap(page, f'#hand .card[data-index="{i}"]')
    assert _count_text(page) == f"Choose {kitty} cards to bury: 3 chosen"
    assert page.locator("#hand .card.selected").count() == 3
    assert page.locator("#bury-confirm").is_disabled()
    page.click("#bury-undo")
    assert _count_text(page) == f"Choose {kitty} cards to bury: 2 chosen"
    assert page.get_attribute('#hand .card[data-index="2"]', "aria-pressed") == "false"
    _tap(page, '#hand .card[data-index="0"]')              # a second tap puts a card back
    assert _count_text(page) == f"Choose {kitty} cards to bury: 1 chosen"
    page.click("#clear")
    assert _count_text(page) == f"Choose {kitty} cards to bury: 0 chosen"
    assert page.locator("#hand .card.selected").count() == 0
    assert _version(page) == v0, "nothing was sent before Confirm"
    # Hint adds the card it names to the choice, unsent; the next hint is for the card after it
    _tap(page, '#hand .card[data-index="0"]')
    for k in (2, 3):
        page.click("#hint")
        page.wait_for_function("t => document.getElementById('bury-count').textContent === t",
                               arg=f"Choose {kitty} cards to bury: {k} chosen", timeout=HINT_MS)
        assert page.get_attribute("#hint-text", "data-source") == "advice"
        assert page.locator("#hand .card.selected").count() == k
    assert _version(page) == v0, "a hint sends no move"
    page.click("#clear")
    assert _count_text(page) == f"Choose {kitty} cards to bury: 0 chosen"
    assert page.evaluate("window.__shangyou.view.buried") == []


def _bury_fits(page) -> None:
    for vp in (PORTRAIT, LANDSCAPE):
        page.set_viewport_size(vp)
        page.wait_for_timeout(50)              # a frame for the layout (nothing is timed)
        _fits(page, ["#bury-confirm", "#bury-undo", "#bury-count", "#hand .card >> nth=-1"])
        assert not _targets(page, "#bury-box button"), _targets(page, "#bury-box button")
        hand = page.locator("#hand .card").evaluate_all(
            "els => els.map(e => e.getBoundingClientRect().height)")
        assert min(hand) >= 44, f"hand cards {min(hand)} px tall"
        _shot(page, f"kitty-bury-{vp['width']}x{vp['height']}.png")


def _confirm_bury(page, kitty: int, keyboard: bool = False) -> None:
    before = len(_hand(page))
    # choose the kitty's size: the cards that came from the kitty, which the page marks
    for _ in range(kitty):
        _tap(page, "#hand .card.from-kitty:not(.selected) >> nth=0")
    assert _count_text(page) == f"Choose {kitty} cards to bury: {kitty} chosen"
    assert not page.locator("#bury-confirm").is_disabled()
    if keyboard:                    # Enter in the hand buries the cards chosen, as Confirm
        page.focus("#hand .card.selected >> nth=0")
        page.keyboard.press("Enter")
    else:
        page.click("#bury-confirm")
    page.wait_for_function("n => window.__shangyou.view.hand.length === n && "
                           "window.__shangyou.view.phase !== 'bury'", arg=before - kitty,
                           timeout=STEP_MS * 2)
    assert not page.text_content("#alert"), page.text_content("#alert")
    assert page.locator("#bury-box:not([hidden])").count() == 0
    assert page.locator("#hand .card.from-kitty").count() == 0


def _refused_bury(page, kitty: int) -> None:
    """A bury move the server refuses (here: named with a stale version) stops the rest, says
    why, and the page takes the table's state again: nothing buried, all to choose again."""
    hand = _hand(page)
    for _ in range(kitty):
        _tap(page, "#hand .card:not(.selected) >> nth=0")
    page.evaluate("window.__shangyou.version -= 1")     # as if a state had been missed
    page.click("#bury-confirm")
    page.wait_for_function("document.getElementById('alert').textContent !== ''")
    page.wait_for_function("document.body.dataset.connected === '1' && "
                           "document.getElementById('bury-count')?.textContent.endsWith(' 0 chosen')",
                           timeout=STEP_MS * 2)
    assert page.evaluate("window.__shangyou.view.buried") == []
    assert _hand(page) == hand


def test_bury_is_choose_then_confirm_with_the_kitty_marked(server, browser, errors):
    """Sheng ji at 390x844 and 844x390: the kitty's 8 cards are marked; taps choose without
    sending; Undo, a second tap and Clear put cards back; a refused move stops the rest and
    the page takes the state again; Confirm (here Enter) buries them all; no page scroll and
    44 px buttons at that turn."""
    ctx = browser.new_context(viewport=PORTRAIT, has_touch=True)
    page = _watch(ctx.new_page(), errors)
    _to_my_bury(page, server, "sheng-ji", 4)
    _bury_checks(page, 8)
    _tap(page, "#hand .card.from-kitty >> nth=0")
    assert not _axe(page), _axe(page)          # the marks, the choice, the bury box
    page.click("#clear")
    _bury_fits(page)
    _refused_bury(page, 8)
    _confirm_bury(page, 8, keyboard=True)
    ctx.close()


def test_friend_call_picker_fits_a_phone_and_the_log_words_it(server, browser, errors):
    """Zhao Pengyou: bury, then the friend call: the picker lies over the table at 360x740,
    390x844 and 844x390 without scrolling, with 44 px targets and the cards written large; the
    call made, the log and the facts strip word it ("calls the 2nd A♥")."""
    ctx = browser.new_context(viewport=SMALL, has_touch=True)
    page = _watch(ctx.new_page(), errors)
    _to_my_bury(page, server, "sheng-ji/zhao-pengyou", 5)
    kitty = page.evaluate("window.__shangyou.view.kitty_size")
    _confirm_bury(page, kitty)
    page.wait_for_selector("#call-sheet:not([hidden]) #call-picker", timeout=STEP_MS)
    assert page.evaluate("window.__shangyou.view.phase") == "call"
    for vp in (SMALL, PORTRAIT, LANDSCAPE):
        page.set_viewport_size(vp)
        page.wait_for_timeout(50)
        _fits(page, ["#call-picker", "#call-send", "#hand .card >> nth=-1"])
        inner = page.evaluate("""() => { const p = document.getElementById('call-picker');
                                         return p.scrollHeight - p.clientHeight; }""")
        assert inner <= 0, f"the picker scrolls by {inner}px at {vp}"
        small = _targets(page, "#call-picker button")
        assert not small, (vp, small)
        size = page.locator(".call-card .call-rank >> nth=0").evaluate(
            "e => parseFloat(getComputedStyle(e).fontSize)")
        assert size >= 16, f"the rank is written {size}px high"
        if vp is not PORTRAIT:
            _shot(page, f"kitty-call-{vp['width']}x{vp['height']}.png")
    assert not _axe(page), _axe(page)
    # the second copy if there is one, a suit, a card that can find a friend
    ords = page.locator(".call-ord")
    ords.nth(ords.count() - 1).click()
    page.click(".call-suit >> nth=-1")
    page.click(".call-card:not(.never) >> nth=-1")
    move = page.get_attribute(".call-card[aria-pressed='true']", "data-move")
    n, card = move.split()[1:]
    words = {"1": "1st", "2": "2nd", "3": "3rd"}[n]
    glyph = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}[card[-1]]
    expected = f"the {words} {card[:-1]}{glyph}"
    assert page.text_content("#call-choice") == expected
    v0 = _version(page)
    page.click("#call-send")
    _wait_version_above(page, v0)
    page.wait_for_selector("#call-sheet", state="hidden")
    page.wait_for_function("[...document.querySelectorAll('#log li')].some(li => "
                           "li.dataset.action === 'call')")
    line = page.locator('#log li[data-action="call"]').first.text_content()
    assert re.fullmatch(r".+ calls the (1st|2nd|3rd) (10|[2-9JQKA])[♠♥♦♣]", line), line
    assert line.endswith(expected), line
    assert expected in page.text_content('#strip-list [data-fact="calls"]')
    # and in Chinese
    zh = page.evaluate("""() => import('/static/i18n.js').then(async (i) => {
        const c = await import('/static/view.js');
        i.setLang('zh'); const out = [c.callWords('2 AH'), c.callsWords(['2 AH', '1 10S'])];
        i.setLang('en'); return out; })""")
    assert zh == ["第二张红桃A", "第二张红桃A和第一张黑桃10"]
    ctx.close()


def test_host_switch_for_hints_between_people(server, browser, errors):
    """The host sets the room's hints option from the table page while it waits; the room
    option follows each change; others get no switch."""
    ctx = browser.new_context(viewport=PORTRAIT)
    page = _watch(ctx.new_page(), errors)
    url = _table(server, game="sheng-ji", players=4)
    _sit(page, url, "Ada", seat=0)
    page.wait_for_selector("#host-hints:not([disabled])")
    assert page.input_value("#host-hints") == ""
    room = "(window.__shangyou.table.room || {}).hints ?? null"
    for value, want in (("heuristic", "heuristic"), ("off", "off"), ("", None)):
        v0 = _version(page)
        page.select_option("#host-hints", value)
        _wait_version_above(page, v0)
        page.wait_for_function(f"{room} === {('null' if want is None else repr(want))}")
        assert page.input_value("#host-hints") == value
    other = _watch(browser.new_context(viewport=PORTRAIT).new_page(), errors)
    _sit(other, url, "Bo", seat=1)
    assert other.locator("#host-panel").is_hidden()
    other.context.close()
    ctx.close()
