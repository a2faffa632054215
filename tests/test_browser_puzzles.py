"""The puzzle page (/puzzles) in real Chromium, on a phone (390x844) and a desktop (1280x800):
one puzzle solved by tapping its cards, one failed; the engine's reason and the solution
shown, the guest's rating kept in the browser. Run one test at a time (``-k``)."""

from __future__ import annotations

import pytest

from shangyou.server.puzzles import find
from test_browser import browser  # noqa: F401 (a fixture)
from test_browser_table import (DESKTOP, PHONE, _no_horizontal_scroll, _shot, _watch, errors,  # noqa: F401
                                server)

pytestmark = pytest.mark.timeout(240)


def _cards(move: str) -> list[str]:
    return move.partition(" as ")[0].split()


def _answer(page, move: str):
    """Tap the move's cards and play them (or pass); pick its reading when asked."""
    if move == "pass":
        page.click("#pz-pass")
    else:
        for card in _cards(move):
            # a card held twice (two packs): tap one not picked yet
            # (the cards overlap: tap the corner that shows)
            page.locator(f"#hand button[data-card='{card}'][aria-pressed='false']").first \
                .click(position={"x": 6, "y": 14})
        page.click("#pz-play")
        readings = page.locator("#pz-readings button")
        if readings.count():
            readings.filter(has_text=move.partition(" as ")[2] or move).first.click()
    page.wait_for_selector("#pz-verdict")


def _puzzle(page) -> dict:
    page.wait_for_function("document.body.dataset.puzzle")
    record = find(page.evaluate("document.body.dataset.puzzle"))
    assert record is not None
    return record


@pytest.mark.parametrize("size,family", [(PHONE, "climbing"), (DESKTOP, "sheng-ji")])
def test_solve_one_puzzle_and_fail_one(server, browser, errors, size, family):
    page = _watch(browser.new_page(viewport=size), errors)
    page.goto(f"{server}/")
    page.click("#puzzles-link")
    page.wait_for_url("**/puzzles")
    page.wait_for_function("document.body.dataset.ready && document.body.dataset.puzzle")
    shown = page.evaluate("document.body.dataset.puzzle")
    if page.input_value("#pz-family") != family:
        # a change of family draws another puzzle (choosing the family shown already would
        # draw one too, while the one shown is being read: only a new family is chosen)
        page.select_option("#pz-family", family)
        page.wait_for_function("id => document.body.dataset.puzzle !== id", arg=shown)
    assert page.evaluate("document.body.dataset.puzzle").startswith(f"{family}-")
    record = _puzzle(page)
    # solved: the solution played by tapping its cards
    _answer(page, record["solution"])
    assert "pz-right" in page.get_attribute("#pz-verdict", "class")
    assert page.text_content("#pz-reason").strip() != "Why:"
    _no_horizontal_scroll(page)
    _shot(page, f"puzzles-solved-{size['width']}.png")
    stored = page.evaluate(f"JSON.parse(localStorage.getItem('shangyou.puzzles.rating.{family}'))")
    assert stored and stored["mu"] > 25
    # failed: another legal play; the solution and the reason are shown
    first = page.evaluate("document.body.dataset.puzzle")
    page.click("#pz-again")
    page.wait_for_function("id => document.body.dataset.puzzle !== id", arg=first)
    record = _puzzle(page)
    wrong = next(m for m in record["values"] if m != record["solution"])
    _answer(page, wrong)
    assert "pz-wrong" in page.get_attribute("#pz-verdict", "class")
    assert page.locator(".pz-values tr.best").count() == 1
    assert page.text_content("#pz-rating").count("→") == 1
    _no_horizontal_scroll(page)
    _shot(page, f"puzzles-failed-{size['width']}.png")
    # 中文: the same page in Chinese, nothing left untranslated
    page.evaluate("window.__i18n.setLang('zh')")
    page.reload()
    page.wait_for_function("document.body.dataset.ready")
    assert "谜题" in page.text_content("h1")
    missing = page.evaluate("[...window.__i18n.missing]")
    assert not missing, missing
    page.evaluate("window.__i18n.setLang('en')")
    page.close()


def test_solve_a_sheng_ji_lead_puzzle_on_a_phone(server, browser, errors):
    """The Sheng ji leads' theme (the lead pass's puzzles): a whole play led by tapping its
    cards is judged right; another whole play of the lead, wrong."""
    page = _watch(browser.new_page(viewport=PHONE), errors)
    page.goto(f"{server}/puzzles?family=sheng-ji&theme=leading")
    page.wait_for_function("document.body.dataset.ready && document.body.dataset.puzzle "
                           "&& document.body.dataset.puzzle.startsWith('sheng-ji-')")
    record = _puzzle(page)
    assert record["lead"] is True and record["theme"] == "leading"
    _answer(page, record["solution"])
    assert "pz-right" in page.get_attribute("#pz-verdict", "class")
    # every whole play of the lead has its value; none is a throw's step
    assert page.locator(".pz-values tr").count() >= len(record["values"])
    assert not any(m.startswith("throw ") for m in record["values"])
    _no_horizontal_scroll(page)
    first = page.evaluate("document.body.dataset.puzzle")
    page.click("#pz-again")
    page.wait_for_function("id => document.body.dataset.puzzle !== id", arg=first)
    record = _puzzle(page)
    assert record["lead"] is True
    wrong = next(m for m in record["values"] if m != record["solution"])
    _answer(page, wrong)
    assert "pz-wrong" in page.get_attribute("#pz-verdict", "class")
    _shot(page, "puzzles-sheng-ji-lead-390.png")
    page.close()
