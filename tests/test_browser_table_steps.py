"""The table page where a climbing seat's plays are offered in steps (more than 400 legal
moves: ``choose`` a group, then its plays or ``pick`` cards; docs/rules/zheng-shangyou.md,
*Choosing a play in steps*), in real headless Chromium: cards selected and played go as a whole
play, which the game accepts at any step.
"""

from __future__ import annotations

import pytest

from test_browser import browser, serve  # noqa: F401 (fixtures)
from test_browser_table import (DESKTOP, _hand, _legal, _sit, _start, _table, _to_act, _version,
                                _wait_version_above, _watch, errors, server)  # noqa: F401

pytestmark = pytest.mark.timeout(600)


def test_cards_selected_are_played_where_plays_are_offered_in_groups(server, browser, errors):
    """Two packs, 3 players: the first lead has far more than 400 plays, offered in groups
    (``choose ...``); selecting a natural pair and pressing Play still plays it."""
    ctx = browser.new_context(viewport=DESKTOP)
    page = _watch(ctx.new_page(), errors)
    pair = None
    for _ in range(30):
        # random bots: greedy ones would weigh 100,000 plays and more at every lead, and the
        # tables left behind go on playing on the same server
        url = _table(server, game="zheng-shangyou/pagat", players=3,
                     options={"target": 50, "decks": 2}, bots="random")
        _sit(page, url, "Ada", seat=0)
        _start(page)
        if _to_act(page) != 0:          # the dealer leads: another deal (1 in 3 is Ada's)
            continue
        page.wait_for_selector("#your-turn, #result", timeout=120_000)
        if page.locator("#result").count() or \
                not any(m.startswith("choose ") for m in _legal(page)):
            continue
        hand = _hand(page)
        ranks = [c[:-1] for c in hand if c[:-1] not in ("2", "B", "R") and c not in ("BJ", "RJ")]
        rank = next((r for r in ranks if ranks.count(r) >= 2), None)
        if rank is not None and "pass" not in _legal(page):       # leading
            at = [i for i, c in enumerate(hand) if c[:-1] == rank][:2]    # two packs: maybe
            pair = [hand[i] for i in at]                                 # the same card twice
            break
    assert pair, "no deal where seat 0 leads in groups with a natural pair"
    assert not any(m.split(" as ")[0].split() == pair for m in _legal(page)), \
        "the pair is not itself listed"
    for i in at:
        page.click(f"#hand .card >> nth={i}")
    assert not page.locator("#play").is_disabled()
    v0 = _version(page)
    page.click("#play")
    _wait_version_above(page, v0)
    assert not page.text_content("#alert")
    trick = page.evaluate("window.__shangyou.view.trick.concat(window.__shangyou.view.played.flat())")
    assert [0, " ".join(pair)] in trick or any(p[0] == 0 and sorted(p[1].split()) == sorted(pair)
                                               for p in trick), trick
    ctx.close()
