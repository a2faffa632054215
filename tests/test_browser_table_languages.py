"""The table page in two languages and for every reader, in real headless Chromium (issue 8,
items 8 to 10 of ``test_browser_table.py``): every key the pages use has English and Chinese text
with the same placeholders, a page switched to Chinese shows no stray English and back; axe-core
finds no serious or critical issue on the lobby and the table (light and dark, both languages);
the turn is announced; the preset's rules open over the table without leaving it.
"""

from __future__ import annotations

import re

import pytest

from test_browser import HINT_MS, _get_json, browser, serve  # noqa: F401 (browser: a fixture)
from test_browser_table import (AXE, DESKTOP, PHONE, STATIC, _axe, _legal_and_play,
                                _no_horizontal_scroll, _shot, _sit, _start, _table,
                                _wait_my_turn, _watch, errors, server)  # noqa: F401 (fixtures)

pytestmark = pytest.mark.timeout(240)


# ------------------------------------------------------------------ languages, a11y, rules
def _i18n_keys_used() -> set[str]:
    """Every key the pages name: t("key") in the scripts, data-i18n and data-i18n-attr in the
    HTML (keys built from data, like `game.${name}`, are checked through the pages)."""
    keys: set[str] = set()
    for f in STATIC.glob("*.js"):
        keys |= set(re.findall(r'\bt\(\s*"([^"]+)"', f.read_text(encoding="utf-8")))
    for f in STATIC.glob("*.html"):
        text = f.read_text(encoding="utf-8")
        keys |= set(re.findall(r'data-i18n="([^"]+)"', text))
        for attrs in re.findall(r'data-i18n-attr="([^"]+)"', text):
            keys |= {pair.split(":")[1].strip() for pair in attrs.split(";")}
    return {k for k in keys if "." in k}      # (every key has a dot; "key" in a comment has not)


# words that are names, not interface text: a player's name, authors and sources of rules, and
# "English" in the language menu (each language is named in itself)
LATIN_OK = {"John", "Owen", "pagat", "Winner", "docs", "rules", "Bo", "Ada", "English"}


def _latin_words(page) -> list[str]:
    """Words in Latin letters on the page, outside card notation (cards, plays, readings,
    move texts, which are written the same in both languages)."""
    return [w for w in _latin_in(page) if w not in LATIN_OK]


def _latin_in(page) -> list[str]:
    return page.evaluate("""() => {
        const skip = '.card, .play, .reading, .card-token, #moves, #hint-text, #share-link, ' +
                     'code, script, style, [hidden]';
        const out = [];
        const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
        while (walk.nextNode()) {
            const n = walk.currentNode;
            const el = n.parentElement;
            if (!el || el.closest(skip) || !el.offsetParent && el.tagName !== 'OPTION') continue;
            for (const w of n.textContent.match(/[A-Za-z]{3,}/g) || []) out.push(w);
        }
        for (const e of document.querySelectorAll('[aria-label], [placeholder], [title]')) {
            if (e.closest(skip)) continue;
            for (const a of ['aria-label', 'placeholder', 'title']) {
                for (const w of (e.getAttribute(a) || '').match(/[A-Za-z]{3,}/g) || []) out.push(w);
            }
        }
        return out;
    }""")


def test_two_languages_for_every_key(server, browser, errors):
    """8. Chinese and English for every key (same keys, same placeholders, nothing empty);
    after switching to Chinese no key is missing and no English is left on the lobby, the
    table (with the rules help) or the replay page; the choice is kept."""
    ctx = browser.new_context(viewport=DESKTOP)
    page = _watch(ctx.new_page(), errors)
    page.goto(server + "/")
    page.wait_for_selector('#game option[value="zheng-fen"]', state="attached")
    strings = page.evaluate("window.__i18n.STRINGS")
    en, zh = strings["en"], strings["zh"]
    assert set(en) == set(zh), (set(en) ^ set(zh))
    for k in en:
        assert en[k].strip() and zh[k].strip(), k
        assert set(re.findall(r"\{\w+\}", en[k])) == set(re.findall(r"\{\w+\}", zh[k])), k
    used = _i18n_keys_used()
    assert used and not (used - set(en)), sorted(used - set(en))
    # the rules help exists in both languages for every preset, and every option is explained
    presets = _get_json(server + "/api/presets")
    rules = page.evaluate("import('/static/rules.js').then(m => ({R: m.RULES, O: m.OPTIONS}))")
    for p in presets:
        assert rules["R"]["en"].get(p["name"]) and rules["R"]["zh"].get(p["name"]), p["name"]
        assert f"game.{p['name']}" in en
        for opt in p["defaults"]:
            assert opt in rules["O"]["en"] and opt in rules["O"]["zh"], opt
    assert set(rules["O"]["en"]) == set(rules["O"]["zh"])

    # switch to Chinese in the lobby
    page.click("#open-settings")
    page.select_option("#set-lang", "zh")
    page.click("#settings-close")
    assert page.evaluate("document.documentElement.lang") == "zh-CN"
    assert page.text_content("#create") == zh["lobby.create"]
    for name in ("zheng-shangyou/owen", "sheng-ji/zhao-pengyou"):
        page.select_option("#game", name)
        assert not _latin_words(page), _latin_words(page)
    page.click("#lobby-rules")
    page.wait_for_selector("#rules-dialog[open] .rules p")
    assert "找朋友" in page.text_content("#rules-dialog")
    assert not _latin_words(page), _latin_words(page)
    page.click("#rules-close")

    # the table, in Chinese from the start (the choice is kept)
    url = _table(server, options={"target": 2})
    _sit(page, url, "小明")
    assert page.evaluate("document.documentElement.lang") == "zh-CN"
    _start(page)
    page.wait_for_selector("#hand .card")
    _wait_my_turn(page)
    page.click("#last-trick-btn")
    page.click("#hint")                    # the bot's advice, its reason in Chinese
    page.wait_for_selector('#hint-text[data-source="advice"] #hint-reason', timeout=HINT_MS)
    assert re.search(r"[\u4e00-\u9fff]", page.text_content("#hint-reason"))
    assert "⟦" not in page.inner_text("body")
    assert not _latin_words(page), _latin_words(page)
    _shot(page, "table-desktop-zh.png")
    page.click("#open-rules")
    page.wait_for_selector("#rules-dialog[open] .rules p")
    assert not _latin_words(page), _latin_words(page)
    page.click("#rules-close")
    page.set_viewport_size(PHONE)
    _no_horizontal_scroll(page)
    _shot(page, "table-phone-zh.png")
    page.set_viewport_size(DESKTOP)
    # play the match out in Chinese: summaries and the result have no English either
    while _wait_my_turn(page):
        _legal_and_play(page)
    page.wait_for_selector("#score-table")
    assert not _latin_words(page), _latin_words(page)
    missing = page.evaluate("[...window.__i18n.missing]")
    assert not missing, missing
    # the replay of the match, in Chinese too
    page.click("#replay-link")
    page.wait_for_selector(".open-hands .card")
    page.click("#next")
    page.wait_for_function("document.getElementById('step-text').textContent.includes('1')")
    assert not _latin_words(page), _latin_words(page)
    assert not page.evaluate("[...window.__i18n.missing]")
    page.go_back()
    page.wait_for_selector("#result")
    # back to English: the same page, every string in English again
    page.click("#open-settings")
    page.select_option("#set-lang", "en")
    page.click("#settings-close")
    assert "Match over" in page.text_content("#result")
    assert not re.search(r"[\u4e00-\u9fff]", page.inner_text("body").replace("小明", "")), \
        "no Chinese left after switching back"
    ctx.close()




def test_accessibility_axe_and_rules_at_the_table(server, browser, errors):
    """9 and 10. axe-core finds no serious or critical issue on the lobby and on the table
    (light and dark, English and Chinese); the turn is announced in an aria-live region; the
    rules of the preset, with this table's options, open over the table without leaving it."""
    assert AXE.is_file(), "axe-core is missing: run `npm ci` (scripts/test.sh does)"
    ctx = browser.new_context(viewport=DESKTOP)
    page = _watch(ctx.new_page(), errors)
    page.goto(server + "/")
    page.wait_for_selector('#game option[value="zheng-fen"]', state="attached")
    page.wait_for_selector("#tables li")
    assert not _axe(page), _axe(page)

    url = _table(server, options={"target": 2}, room={"turn_timer": 120, "grace": 30})
    _sit(page, url, "Ada")
    assert not _axe(page), _axe(page)          # the seats, before the start
    _start(page)
    _wait_my_turn(page)
    live = page.locator("#announce")
    assert live.get_attribute("aria-live") == "polite" and live.get_attribute("role") == "status"
    assert live.text_content() == "Your turn to play."
    page.click("#hint")
    page.wait_for_selector('#hint-text[data-source="advice"]', timeout=HINT_MS)
    page.click("#last-trick-btn")
    assert not _axe(page), _axe(page)
    _shot(page, "table-desktop-en.png")

    # rules at hand: a dialog over the table; the socket stays, the URL stays
    page.click("#open-rules")
    page.wait_for_selector("#rules-dialog[open] .rules p")
    text = page.text_content("#rules-dialog")
    assert "Owen" in text and "target" in text and "turn_timer" in text
    assert page.locator("#rules-dialog dd", has_text="target").first.text_content().endswith("2")
    assert not _axe(page), _axe(page)
    page.keyboard.press("Escape")
    assert page.url == url and page.evaluate("document.body.dataset.connected") == "1"

    # dark theme, then Chinese
    page.click("#open-settings")
    page.check("#set-dark")
    page.check("#set-four")
    page.click("#settings-close")
    assert not _axe(page), _axe(page)
    page.click("#open-settings")
    page.select_option("#set-lang", "zh")
    page.click("#settings-close")
    assert not _axe(page), _axe(page)
    assert page.text_content("#announce") in ("", "轮到你出牌。")
    ctx.close()


