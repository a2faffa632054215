"""The table page's Hint (issue 23), in real headless Chromium: a person alone with bots asks
the server for advice and sees the suggested move, the level that gives it (the search) and its
reason in English and in Chinese, plays it and the hint and its rings go; at a table of two people (hints off by
default) and where the host turned hints off the button looks disabled and says why, while
Legal plays still works."""

from __future__ import annotations

import re

import pytest

from test_browser import HINT_MS, _get_json, browser, serve  # noqa: F401 (browser: a fixture)
from test_browser_table import (DESKTOP, LOOPBACK, PHONE, STEP_MS, _legal, _shot, _sit, _start,
                                _table, _to_act, _two_players, _version, _wait_my_turn,
                                _wait_version_above, _watch)

pytestmark = pytest.mark.timeout(240)

# the hint text's kinds as the page shows them, in order (the wait is seen however quick the
# answer, since the page shows it before the request goes)
RECORD_SOURCES = """() => {
    window.__sources = [];
    const el = document.getElementById('hint-text');
    new MutationObserver(() => window.__sources.push(el.dataset.source || ''))
        .observe(el, {attributes: true, attributeFilter: ['data-source']});
}"""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    yield from serve(tmp_path_factory.mktemp("web-hints-data"), "--bot-delay", "0.02", *LOOPBACK)


@pytest.fixture
def errors():
    found: list[str] = []
    yield found
    assert not found, found


def _set_lang(page, lang: str):
    page.click("#open-settings")
    page.select_option("#set-lang", lang)
    page.click("#settings-close")


def test_a_person_alone_with_bots_gets_advice_with_a_reason_and_plays_it(server, browser, errors):
    ctx = browser.new_context(viewport=DESKTOP)
    page = _watch(ctx.new_page(), errors)
    url = _table(server, game="zheng-shangyou/pagat", players=4, options={"target": 50},
                 bots="heuristic")
    _sit(page, url, "Ada")
    _start(page)
    assert _wait_my_turn(page)
    hint = page.locator("#hint")
    assert hint.get_attribute("aria-disabled") is None and not hint.is_disabled()

    page.evaluate(RECORD_SOURCES)
    page.click("#hint")
    page.wait_for_selector('#hint-text[data-source="advice"]', timeout=HINT_MS)
    assert page.evaluate("window.__sources")[:2] == ["wait", "advice"]
    move = page.get_attribute("#hint-text", "data-move")
    assert move in _legal(page), move
    # the search speaks (alone with bots, by default), or the heuristic for it saying why
    by = page.get_attribute("#hint-text", "data-by")
    fallback = page.get_attribute("#hint-text", "data-fallback")
    assert (by, fallback) in (("search", None), ("heuristic", "time"), ("heuristic", "failed"))
    reason_en = page.text_content("#hint-reason").strip()
    assert reason_en and re.search(r"[a-z]{3}", reason_en), reason_en
    assert page.text_content("#hint-text").startswith(f"Hint ({by}): ")
    if fallback:
        assert "the heuristic's advice" in page.text_content("#hint-text")
    # the suggested play: its cards raised (selected) and ringed, or the Pass button ringed
    if move == "pass":
        assert page.locator("#pass.hinted").count() == 1
    else:
        cards = move.split(" as ")[0].split()
        ringed = page.locator("#hand .card.hinted").evaluate_all("els => els.map(e => e.dataset.card)")
        raised = page.locator("#hand .card.selected").evaluate_all("els => els.map(e => e.dataset.card)")
        assert sorted(ringed) == sorted(cards) == sorted(raised), (move, ringed, raised)
        assert not page.locator("#play").is_disabled()
    _shot(page, "table-hint-en.png")

    # the same advice in Chinese: the reason is the bot's, in the page's language
    _set_lang(page, "zh")
    reason_zh = page.text_content("#hint-reason").strip()
    assert re.search(r"[\u4e00-\u9fff]", reason_zh) and reason_zh != reason_en, reason_zh
    assert page.text_content("#hint-text").startswith(
        "提示（搜索）：" if by == "search" else "提示（启发式）：")
    assert page.get_attribute("#hint-text", "data-move") == move
    page.set_viewport_size(PHONE)
    _shot(page, "table-hint-phone-zh.png")
    page.set_viewport_size(DESKTOP)
    _set_lang(page, "en")
    assert page.text_content("#hint-reason").strip() == reason_en

    # play it: the hint, its text and its rings are gone
    v0 = _version(page)
    page.click("#pass" if move == "pass" else "#play")
    _wait_version_above(page, v0)
    assert not page.text_content("#alert"), page.text_content("#alert")
    assert page.text_content("#hint-text") == ""
    assert page.get_attribute("#hint-text", "data-move") is None
    assert page.locator(".hinted").count() == 0
    assert page.locator("#hand .card.selected").count() == 0
    ctx.close()


def test_hints_are_off_between_two_people_and_legal_plays_stays(server, browser, errors):
    _, (ca, a), (cb, b) = _two_players(server, browser, errors)
    mover = _to_act(a)
    mp = {0: a, 1: b}[mover]
    other = {0: a, 1: b}[1 - mover]
    assert _wait_my_turn(mp)
    hint = mp.locator("#hint")
    assert hint.get_attribute("aria-disabled") == "true"
    assert "two or more people" in (hint.get_attribute("title") or "")
    # a click still reaches it (aria-disabled, for the explanation): it says why, without
    # asking the server
    mp.click("#hint", force=True)
    assert "two or more people" in mp.text_content("#hint-text")
    assert mp.get_attribute("#hint-text", "data-source") == "off"
    assert mp.get_attribute("#hint-text", "data-move") is None
    assert not mp.text_content("#alert")
    # Legal plays still lists the legal plays
    mp.click("#legal")
    assert mp.get_attribute("#hint-text", "data-move") in _legal(mp)
    assert other.locator("#hint").get_attribute("aria-disabled") == "true"
    assert other.locator("#hint").is_disabled()       # and it is not their turn anyway
    ca.close()
    cb.close()


def test_a_host_who_turned_hints_off_is_named(server, browser, errors):
    ctx = browser.new_context(viewport=DESKTOP)
    page = _watch(ctx.new_page(), errors)
    url = _table(server, options={"target": 50}, room={"hints": "off"})
    _sit(page, url, "Ada")
    _start(page)
    assert _wait_my_turn(page)
    assert page.get_attribute("#hint", "aria-disabled") == "true"
    page.keyboard.press("h")
    assert "host turned them off" in page.text_content("#hint-text")
    _set_lang(page, "zh")
    assert "房主" in page.text_content("#hint-text")
    ctx.close()


def test_the_review_marks_the_moves_that_followed_the_hint(server, browser, errors):
    """A match (one hand of Owen) where every move is the hint's (the search's), then its
    replay's review: each of those moves says it followed the hint, and none is marked."""
    ctx = browser.new_context(viewport=DESKTOP)
    page = _watch(ctx.new_page(), errors)
    url = _table(server, options={"target": 1}, bots="heuristic")
    _sit(page, url, "Ada")
    _start(page)
    while _wait_my_turn(page):
        v0 = _version(page)
        page.click("#hint")
        page.wait_for_selector('#hint-text[data-source="advice"]', timeout=HINT_MS)
        move = page.get_attribute("#hint-text", "data-move")
        page.click("#pass" if move == "pass" else "#play")
        _wait_version_above(page, v0)
        assert not page.text_content("#alert"), page.text_content("#alert")
    match_id = page.evaluate("window.__shangyou.table.match_id")
    seat = page.evaluate("window.__shangyou.mySeat")
    log = _get_json(f"{server}/api/matches/{match_id}")["log"]
    followed = {int(i) for i, level in (log.get("hints") or {}).items()}
    mine = [i for i, (s, _) in enumerate(log["moves"]) if s == seat]
    assert followed and followed <= set(mine)

    page.goto(f"{server}/replay/{match_id}?seat={seat}")
    page.wait_for_selector("#review-start", timeout=STEP_MS)
    page.select_option("#review-seat", str(seat))
    page.click("#review-start")
    page.wait_for_selector(".review-summary", timeout=120_000)
    assert "followed the hint" in page.text_content(".review-summary")
    notes = page.evaluate("""(n) => {
        document.getElementById('first').click();
        const out = [];
        for (let k = 1; k <= n; k++) {
            document.getElementById('next').click();
            const note = document.querySelector('#last-move .review-note');
            out.push(note ? [note.dataset.mark, note.dataset.hint || '', note.textContent] : null);
        }
        return out; }""", len(log["moves"]))
    shown = {i for i, n in enumerate(notes) if n and n[1]}
    assert shown and shown <= followed, (shown, followed)
    for i in shown:        # the search's hint is good; the heuristic's (a fallback) at most ?!
        mark, level, text = notes[i]
        assert level == log["hints"][str(i)] and f"followed the hint ({level})" in text, notes[i]
        assert mark == "good" if level == "search" else mark in ("good", "inaccuracy"), notes[i]
    ctx.close()
