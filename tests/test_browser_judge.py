"""The judge at the table, in real Chromium: a selection the page refuses offers "Why?", which
asks the server; the alert shows the rule the cards break, in English, then in Chinese."""

from __future__ import annotations

import pytest

from test_browser import browser  # noqa: F401 (a fixture)
from test_browser_table import (  # noqa: F401 (server, errors: fixtures)
    DESKTOP,
    STEP_MS,
    _hand,
    _legal,
    _sit,
    _start,
    _table,
    _version,
    _wait_my_turn,
    _wait_version_above,
    _watch,
    errors,
    server,
)

pytestmark = pytest.mark.timeout(240)


def _bad_pair(page) -> list[str]:
    """Two natural cards of the hand, of two ranks: never a play in Owen (twos and jokers are
    wild; a natural pair is two of one rank)."""
    natural = [c for c in _hand(page) if c not in ("BJ", "RJ") and not c.startswith("2")]
    return next(([x, y] for i, x in enumerate(natural) for y in natural[i + 1:]
                 if x[:-1] != y[:-1]), [])


def test_why_button_shows_the_rule_in_the_page_language(server, browser, errors):
    ctx = browser.new_context(viewport=DESKTOP)
    page = _watch(ctx.new_page(), errors)
    # four players: 13 cards each, so the legal plays are listed whole (the page offers "Why?"
    # only then; a two-player hand of 26 often has them in groups, "choose 2 pair threes")
    url = _table(server, game="zheng-shangyou/owen", players=4)
    _sit(page, url, "Ada")
    _start(page)
    assert _wait_my_turn(page)
    while _legal(page) == ["pass"]:           # nothing to beat the trick with: a later turn
        v0 = _version(page)
        page.click("#pass")
        _wait_version_above(page, v0)
        assert _wait_my_turn(page)
    assert page.locator("#play-explain").is_hidden()          # nothing selected yet
    assert not any(m.startswith(("choose ", "pick ")) for m in _legal(page)), _legal(page)
    bad = _bad_pair(page)
    assert bad, "two cards that make no play"
    for c in bad:
        page.click(f'#hand .card[data-card="{c}"]')
    assert page.locator("#play").is_disabled()
    page.wait_for_selector("#play-explain:not([hidden])")
    page.click("#play-explain")
    page.wait_for_function(
        "/is not a combination|does not beat/.test(document.getElementById('alert').textContent)",
        timeout=STEP_MS)
    text = page.text_content("#alert")
    assert ": " in text, text                                  # the rule follows the cards
    for c in bad:                                             # the selection stays
        assert page.get_attribute(f'#hand .card[data-card="{c}"]', "aria-pressed") == "true"
    # in Chinese: the same refusal, in the page's language
    page.evaluate("window.__i18n.setLang('zh')")
    page.wait_for_selector("#play-explain:not([hidden])")
    page.click("#play-explain")
    page.wait_for_function(
        "/不是合法牌型|管不上/.test(document.getElementById('alert').textContent)",
        timeout=STEP_MS)
    ctx.close()
