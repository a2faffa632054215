"""The first lessons in real headless Chromium (Playwright): a short course played through at
phone size (390x844) by tapping cards, once with a wrong play whose explanation shows, the
progress kept in the browser, axe-core finding nothing; then a step at desktop size in Chinese
with no English left on the page, a pair picked by keyboard."""

from __future__ import annotations

import pytest

from test_browser import PHONE, browser, serve  # noqa: F401 (browser: a fixture)
from test_browser_table import (AXE, DESKTOP, _axe, _no_horizontal_scroll, _shot, _watch,  # noqa: F401
                                errors)  # (errors: a fixture)
from test_browser_table_languages import _latin_words

pytestmark = pytest.mark.timeout(240)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    yield from serve(tmp_path_factory.mktemp("web-learn-data"))


def _tap_and_play(page, cards: list[str]):
    for c in cards:
        # a card held twice (two packs): the first copy not picked yet
        page.locator(f'#hand .card[data-card="{c}"]:not(.selected)').first.click()
    page.click("#learn-play")


def _verdict(page, step: str) -> str:
    page.wait_for_function(
        "s => document.body.dataset.step === s && !document.getElementById('learn-result').hidden",
        arg=step)
    return page.text_content("#learn-verdict")


def test_finish_the_sheng_ji_course_on_a_phone_with_a_wrong_play(server, browser, errors):
    from shangyou import lessons
    ctx = browser.new_context(viewport=PHONE)
    page = _watch(ctx.new_page(), errors)
    page.goto(server + "/")
    page.click("#learn-link")
    page.wait_for_function("document.body.dataset.ready === '1'")
    page.click('.learn-course[data-course="sheng-ji"]')
    steps = lessons.load("sheng-ji")["steps"]
    page.wait_for_function("s => document.body.dataset.step === s", arg=steps[0]["id"])
    _no_horizontal_scroll(page)
    assert AXE.is_file(), "axe-core is missing: run `npm ci`"
    assert not _axe(page), _axe(page)
    for i, step in enumerate(steps):
        page.wait_for_function("s => document.body.dataset.step === s", arg=step["id"])
        assert page.text_content("#learn-task") == step["task_en"]
        if i == 0:
            # a wrong play first: the judge says why, and the step is not passed
            wrong = step["pass"]["wrong"][0]
            _tap_and_play(page, wrong.split())
            assert _verdict(page, step["id"]) == "Not allowed"
            assert "suit led" in page.text_content("#learn-why")
            assert page.locator("#learn-next").count() == 0
            _shot(page, "learn-phone-wrong.png")
        if step["pass"]["goal"] == "bury":
            # the kitty's cards marked in the hand; a bury of the wrong count is explained
            assert page.locator("#hand .card.from-kitty").count() == 8
            _tap_and_play(page, step["pass"]["examples"][0].split()[:3])
            assert _verdict(page, step["id"]) == "Not allowed"
            assert "bury 8 cards" in page.text_content("#learn-why")
            assert page.text_content("#learn-play") == "Confirm (0/8)"
        _tap_and_play(page, step["pass"]["examples"][0].split())
        assert _verdict(page, step["id"]) == "Well played!", (step["id"], page.text_content("#learn-why"))
        assert page.text_content("#learn-why") == step["well_en"]
        page.click("#learn-next")
    page.wait_for_selector("#learn-complete")
    assert page.text_content("#learn-progress") == f"{len(steps)} of {len(steps)} steps done"
    _no_horizontal_scroll(page)
    _shot(page, "learn-phone-done.png")
    # the progress is kept in this browser: a reload shows every step done
    page.reload()
    page.wait_for_function("document.body.dataset.ready === '1'")
    page.click('.learn-course[data-course="sheng-ji"]')
    page.wait_for_function(f"document.querySelectorAll('.learn-step.done').length === {len(steps)}")
    ctx.close()


def test_a_step_in_chinese_on_a_desktop(server, browser, errors):
    ctx = browser.new_context(viewport=DESKTOP)
    page = _watch(ctx.new_page(), errors)
    page.goto(server + "/learn?course=zheng-shangyou&step=pairs")
    page.wait_for_function("document.body.dataset.ready === '1'")
    page.evaluate("localStorage.setItem('shangyou.lang', 'zh')")
    page.reload()
    page.wait_for_function("document.body.dataset.ready === '1'")
    assert page.text_content("#learn-task") == "桌上是一对8。出一对更大的管上。"
    assert not _latin_words(page), _latin_words(page)       # no English left in 中文
    _tap_and_play(page, ["9H", "9S", "9D"])
    assert _verdict(page, "pairs") == "不能这样出"
    assert "这一轮要出2张" in page.text_content("#learn-why")
    # by keyboard: the hand is one tab stop, arrows move, Space picks
    cards = page.eval_on_selector_all("#hand .card", "cs => cs.map(c => c.dataset.card)")
    first = next(i for i in range(len(cards) - 1) if cards[i][0] == cards[i + 1][0] == "9")
    page.locator("#hand .card").nth(first).focus()
    page.keyboard.press("Space")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("Space")
    picked = page.eval_on_selector_all("#hand .card.selected", "cs => cs.map(c => c.dataset.card)")
    assert len(picked) == 2 and all(c.startswith("9") for c in picked), picked
    page.click("#learn-play")
    assert _verdict(page, "pairs") == "出得好！"
    _shot(page, "learn-desktop-zh.png")
    ctx.close()


def test_finish_the_owen_course_on_a_phone_with_wrong_plays(server, browser, errors):
    """Owen's rules (wild twos and jokers): a pass that is legal but not what the step asks
    shows the step's hint; a pair made with a wild 2 that is too low, and a straight with a
    wild 2 in it, are refused with the judge's words; each step passed by tapping its cards."""
    from shangyou import lessons
    steps = {s["id"]: s for s in lessons.load("owen")["steps"]}
    ctx = browser.new_context(viewport=PHONE)
    page = _watch(ctx.new_page(), errors)
    page.goto(server + "/learn")
    page.wait_for_function("document.body.dataset.ready === '1'")
    page.click('.learn-course[data-course="owen"]')
    page.wait_for_function("s => document.body.dataset.step === s", arg="wild")
    assert page.text_content("#learn-task") == steps["wild"]["task_en"]
    hand = page.eval_on_selector_all("#hand .card", "cs => cs.map(c => c.dataset.card)")
    assert sorted(hand) == sorted(steps["wild"]["position"]["hand"].split())
    assert not _axe(page), _axe(page)
    # legal, not what the step asks: the hint
    page.click("#learn-pass")
    assert _verdict(page, "wild") == "Legal, but not what this step asks"
    assert page.text_content("#learn-why") == steps["wild"]["hint_en"]
    # a pair of fives made with the wild 2: a pair, but lower than the eights
    _tap_and_play(page, ["5H", "2C"])
    assert _verdict(page, "wild") == "Not allowed"
    assert "it is lower" in page.text_content("#learn-why")
    assert page.locator("#learn-next").count() == 0
    for i, step in enumerate(lessons.load("owen")["steps"]):
        page.wait_for_function("s => document.body.dataset.step === s", arg=step["id"])
        if step["id"] == "straight":
            # the 2 is wild, but never in a straight
            _tap_and_play(page, ["6H", "7D", "8C", "9D", "2S"])
            assert _verdict(page, "straight") == "Not allowed"
            assert "may not be used in a straight" in page.text_content("#learn-why")
        play = step["pass"]["examples"][0].split()
        held = page.locator("#hand .card").count()
        _tap_and_play(page, play)
        assert _verdict(page, step["id"]) == "Well played!", (step["id"], page.text_content("#learn-why"))
        assert page.text_content("#learn-why") == step["well_en"]
        # the play left the hand and lies on the table
        page.wait_for_function("n => document.querySelectorAll('#hand .card').length === n",
                               arg=held - len(play))
        if i == 0:
            _no_horizontal_scroll(page)
            _shot(page, "learn-owen-phone.png")
        page.click("#learn-next")
    page.wait_for_selector("#learn-complete")
    assert page.text_content("#learn-progress") == f"{len(steps)} of {len(steps)} steps done"
    _no_horizontal_scroll(page)
    ctx.close()


def test_the_winner_course_in_chinese_on_a_desktop(server, browser, errors):
    """The "winner" rules' course in 中文: four of a kind alone refused with the rule of
    these rules (a bomb needs a fifth card), then the bomb played; no English left."""
    ctx = browser.new_context(viewport=DESKTOP)
    page = _watch(ctx.new_page(), errors)
    page.goto(server + "/learn?course=winner&step=bomb")
    page.wait_for_function("document.body.dataset.ready === '1'")
    page.evaluate("localStorage.setItem('shangyou.lang', 'zh')")
    page.reload()
    page.wait_for_function("document.body.dataset.ready === '1'")
    page.wait_for_function("s => document.body.dataset.step === s", arg="bomb")
    assert page.text_content("#learn-task") == "桌上是一对A。用四个6再加一张牌炸掉它。"
    assert not _latin_words(page), _latin_words(page)
    _tap_and_play(page, ["6C", "6D", "6H", "6S"])
    assert _verdict(page, "bomb") == "不能这样出"
    assert "再带一张牌才是炸弹" in page.text_content("#learn-why")
    _tap_and_play(page, ["6C", "6D", "6H", "6S", "9H"])
    assert _verdict(page, "bomb") == "出得好！"
    assert page.text_content("#learn-why") == "对：四张同点带一张就是炸弹。"
    assert not _latin_words(page), _latin_words(page)
    _shot(page, "learn-winner-desktop-zh.png")
    ctx.close()
