"""The analysis board in real headless Chromium (Playwright): a position set up by tapping
cards on a phone (390x844), analysed, a card changed and analysed again; then, on a desktop
(1280x800), a finished match's replay step opened with "Analyse". Screenshots go to
``artifacts/screenshots/``."""

from __future__ import annotations

import time

import pytest

import shangyou
from shangyou.bots.reasons import Reason
from shangyou.games.climbing.steps import every_play
from test_browser import _get_json, browser  # noqa: F401 (browser: a fixture)
from test_browser_table_languages import _latin_words
from test_browser_table import (DESKTOP, LOOPBACK, PHONE, _as_host,  # noqa: F401 (errors: a
                                _no_horizontal_scroll, _shot, _table, _watch, errors,  # fixture)
                                serve)

pytestmark = pytest.mark.timeout(240)
ANSWER_MS = 120_000        # the advice lane's worker starts on the first analysis (nice +10)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    yield from serve(tmp_path_factory.mktemp("web-analysis-data"), "--bot-delay", "0.02",
                     *LOOPBACK)


def _rows(page) -> list[str]:
    return page.eval_on_selector_all("#result-rows tr", "rs => rs.map(r => r.dataset.play)")


def _tap(page, card: str):
    page.click(f'#pack .card[data-card="{card}"]')


def test_set_up_analyse_change_a_card_and_open_a_replay_step(server, browser, errors):
    # ---- a phone: set up a position by tapping cards, analyse, change a card, again
    page = _watch(browser.new_page(viewport=PHONE), errors)
    page.goto(server + "/analysis")
    page.wait_for_selector('#pack .card[data-card="9C"]')
    assert page.input_value("#game") == "zheng-shangyou/pagat"
    page.select_option("#players", "4")
    _tap(page, "9C")
    _tap(page, "9S")
    page.check('input[name="target"][value="table"]')
    _tap(page, "5D")
    _tap(page, "5C")
    page.select_option("#table-seat", "2")
    assert sorted(page.eval_on_selector_all("#hand .card", "cs => cs.map(c => c.dataset.card)")) \
        == ["9C", "9S"]
    # the unseen cards are shared, at most a deal (14) a hand: 50 - 42 are in no hand
    counts = [int(page.input_value(f"#count-{s}")) for s in range(4)]
    assert counts == [2, 14, 14, 14]
    assert "8" in page.inner_text("#setup-note")
    page.check('input[name="target"][value="played"]')
    for card in "3S 3H 3D 3C 4S 4H 4D 4C 6S 6H 6D 6C 7S 7H".split():
        _tap(page, card)
    assert [int(page.input_value(f"#count-{s}")) for s in range(4)] == [2, 12, 12, 12]
    assert page.inner_text("#setup-note") == ""
    page.click("#analyse")
    _answered(page)
    assert _rows(page) == ["9C 9S", "pass"]          # going out is clearly best
    assert "less on average than 9" in page.inner_text("#result-rows tr >> nth=1")   # why
    _no_horizontal_scroll(page)
    _shot(page, "analysis-phone.png")
    # change a card: a third card in the hand, the pair no longer goes out
    page.check('input[name="target"][value="hand"]')
    _tap(page, "10S")
    page.click("#analyse")
    page.wait_for_function("document.querySelectorAll('#result-rows tr').length === 2 && "
                           "!document.getElementById('analyse').disabled", timeout=ANSWER_MS)
    assert sorted(_rows(page)) == ["9C 9S", "pass"]
    assert sorted(page.eval_on_selector_all("#hand .card", "cs => cs.map(c => c.dataset.card)")) \
        == ["10S", "9C", "9S"]
    # a set-up that cannot be: a clear error, nothing analysed
    page.fill("#count-1", "40")
    page.dispatch_event("#count-1", "change")
    page.click("#analyse")
    page.wait_for_function("document.getElementById('alert').textContent.length > 0",
                           timeout=ANSWER_MS)
    assert "at most 14 cards" in page.inner_text("#alert")
    assert page.evaluate("[...window.__i18n.missing]") == []
    page.close()

    # ---- a finished match (bots in every seat), its replay, "Analyse" on a desktop
    match_id = _finished_match(server, browser, errors, game="zheng-shangyou/owen", players=2,
                               options={"target": 1})
    log = _get_json(f"{server}/api/matches/{match_id}")["log"]
    g = shangyou.replay({**log, "moves": []})
    for k, (seat, text) in enumerate(log["moves"]):       # a step with a choice to weigh
        if len(g.view(seat)["legal_moves"]) > 2:
            break
        g.apply(text)
    full = every_play(g.view(seat), g.rules.family)["legal_moves"]
    page = _watch(browser.new_page(viewport=DESKTOP), errors)
    page.goto(f"{server}/replay/{match_id}#k={k}&seat=all")
    link = page.locator("#analyse")
    link.wait_for(state="visible")
    assert link.get_attribute("href") == f"/analysis?match={match_id}&step={k}&seat={seat}"
    link.click()
    page.wait_for_url("**/analysis?*")
    _answered(page)
    mine = _get_json(f"{server}/api/matches/{match_id}/step/{k}?seat={seat}")["view"]
    shown = page.eval_on_selector_all("#hand .card", "cs => cs.map(c => c.dataset.card)")
    assert sorted(shown) == sorted(mine["hand"])
    assert mine == g.view(seat) and set(_rows(page)) <= set(full) and len(_rows(page)) >= 2
    # the set-up holds the same position: the hand's cards are marked in the pack
    marked = page.eval_on_selector_all('#pack .card[data-state="hand"]',
                                       "cs => cs.map(c => c.dataset.card)")
    assert sorted(marked) == sorted(mine["hand"])
    _no_horizontal_scroll(page)
    _shot(page, "analysis-desktop.png")
    # in Chinese: every string of the page, the engine's reasons included
    page.evaluate("localStorage.setItem('shangyou.lang', 'zh')")
    page.reload()
    _answered(page)
    assert _latin_words(page) == []
    assert page.evaluate("[...window.__i18n.missing]") == []
    _shot(page, "analysis-desktop-zh.png")
    page.close()


def test_a_reading_in_a_reason_or_a_row_is_notation_in_either_language(server, browser, errors):
    """An Owen full house with wild cards read in its second way ("... as nines over aces") in
    a result row and in reasons: the cards are card tokens and the reading a `.reading` span
    after them ("as ..." / "作 ..."), never words of the sentence around it, in English and in
    Chinese (the last CI run's Chinese page showed "threes over fives" as words)."""
    # two legal moves of Owen 2p deals (the engine's texts)
    play, other = "9D AC AS 2H RJ as nines over aces", "5D 5C 9D 2H RJ as fives over nines"
    reasons = [Reason(code, {"cards": play, "other": other, "gain": "0.30", "loss": "0.30",
                             "worlds": 200, "unit": "points", "unit_zh": "分"}).as_dict()
               for code in ("analysis_behind", "search_better", "search_close", "search_prefers")]
    page = _watch(browser.new_page(viewport=DESKTOP), errors)
    for lang, word in (("en", "as"), ("zh", "作")):
        page.goto(server + "/analysis")
        page.evaluate(f"localStorage.setItem('shangyou.lang', '{lang}')")
        page.reload()
        page.wait_for_selector('#pack .card[data-card="9C"]')
        shown = page.evaluate("""async ([play, reasons, lang]) => {
            const m = await import('/static/cards.js');
            const box = document.createElement('div');
            box.id = 'reading-check';
            box.append(m.richText(play, [play]));
            for (const r of reasons) {
                const p = document.createElement('p');
                p.append(m.reasonElement(r, lang));
                box.append(p);
            }
            document.body.append(box);
            return {
                readings: [...box.querySelectorAll('.reading')].map((e) => e.textContent),
                cards: [...box.querySelectorAll('.card-token')].length,
                words: [...box.childNodes].map((e) => e.textContent).join(' | '),
            };
        }""", [play, reasons, lang])
        # a reading each time a play is named: once in the row, twice in each reason (each
        # names both plays)
        assert sorted(set(shown["readings"])) == sorted(
            {f"{word} nines over aces", f"{word} fives over nines"}), shown
        assert len(shown["readings"]) == 1 + 2 * len(reasons), shown
        assert shown["cards"] == 5 * len(shown["readings"]), shown
        if lang == "zh":
            assert _latin_words(page) == [], shown
    page.close()


def test_a_sheng_ji_position_set_up_by_hand(server, browser, errors):
    page = _watch(browser.new_page(viewport=PHONE), errors)
    page.goto(server + "/analysis")
    page.wait_for_selector('#game option[value="sheng-ji/single-deck"]', state="attached")
    page.select_option("#game", "sheng-ji/single-deck")
    page.wait_for_selector("#sj-setup", state="visible")
    assert not page.is_visible("#pack")                  # the taps are for the climbing games
    page.select_option("#seat", "2")
    page.select_option("#sj-level", "2")
    page.select_option("#sj-trump", "S")
    page.select_option("#sj-declarer", "0")
    page.fill("#sj-hand", "AH 3H 9C 4D 5S 6S 7S 8S 9S 10S")
    page.fill("#sj-trick", "KH")
    assert "2" in page.inner_text("#sj-note")            # "Seat 2" (seat 1) led
    page.fill("#sj-played", "2H 2C 2D 3S 4S 4H 4C 5D")
    page.fill("#sj-points", "5")
    page.click("#analyse")
    _answered(page)
    assert sorted(_rows(page)) == ["3H", "AH"]           # must follow hearts
    assert len(page.eval_on_selector_all("#hand .card", "cs => cs")) == 10
    _no_horizontal_scroll(page)
    page.fill("#sj-points", "15")                        # more than the earlier cards hold
    page.click("#analyse")
    page.wait_for_function("document.getElementById('alert').textContent.length > 0",
                           timeout=ANSWER_MS)
    assert "points" in page.text_content("#alert")
    page.close()


def test_a_zhao_pengyou_position_set_up_by_hand(server, browser, errors):
    """Five players, one friend call: the call typed, a select for who answered it; the
    position analysed with the call open, then refused when the call is said answered by a
    seat while no A♥ was played."""
    page = _watch(browser.new_page(viewport=PHONE), errors)
    page.goto(server + "/analysis")
    page.wait_for_selector('#game option[value="sheng-ji/zhao-pengyou"]', state="attached")
    page.select_option("#game", "sheng-ji/zhao-pengyou")
    page.wait_for_selector("#zp-setup", state="visible")
    assert page.eval_on_selector_all("#players option", "os => os.map(o => o.value)") == \
        ["5", "6", "7"]
    page.select_option("#seat", "1")
    page.select_option("#sj-level", "2")
    page.select_option("#sj-trump", "S")
    page.select_option("#sj-declarer", "0")
    page.fill("#sj-hand", "AH 3H 5H 9C 9C 10C JC QC KC AC 3D 4D 6D 7D 8D JD QD KD AD 4S")
    page.fill("#sj-trick", "KH")
    page.fill("#sj-played", "")
    page.fill("#sj-points", "0")
    page.fill("#zp-calls", "1 AH")
    page.wait_for_selector("#zp-answer-0")
    assert page.eval_on_selector("#zp-answer-0", "s => s.value") == ""     # nobody yet
    page.click("#analyse")
    _answered(page)
    assert sorted(_rows(page)) == ["3H", "5H", "AH"]      # must follow hearts
    assert len(page.eval_on_selector_all("#hand .card", "cs => cs")) == 20
    _no_horizontal_scroll(page)
    _shot(page, "analysis-zhao-pengyou-phone.png")
    page.select_option("#zp-answer-0", "3")               # answered, but no A♥ was played
    page.click("#analyse")
    page.wait_for_function("document.getElementById('alert').textContent.length > 0",
                           timeout=ANSWER_MS)
    assert "still open" in page.text_content("#alert")
    page.close()



def _finished_match(server, browser, errors, **table) -> str:
    """The id of a match of bots in every seat, played to its end."""
    url = _table(server, **table)
    table_id = url.rsplit("/t/", 1)[1]
    host = _watch(browser.new_page(viewport=DESKTOP), errors)
    _as_host(host, url)
    host.goto(url)
    host.click("#fill-bots")
    host.wait_for_selector("#start:not([disabled])")
    host.click("#start")
    deadline = time.monotonic() + 180
    while True:
        done = [m for m in _get_json(server + "/api/matches") if m["table_id"] == table_id]
        if done:
            break
        assert time.monotonic() < deadline, f"the bots' {table['game']} match did not finish"
        time.sleep(0.3)
    host.close()
    return done[0]["match_id"]


def _answered(page) -> None:
    """Wait for the engine's table, or for the page's alert: a refusal fails at once, with
    the page's words, not after the whole wait."""
    page.wait_for_function("""() => document.querySelector(
        '#result-table:not([hidden]) #result-rows tr')
        || document.getElementById('alert').textContent.length > 0""", timeout=ANSWER_MS)
    assert page.text_content("#alert") == "", page.text_content("#alert")


def _fact(page, label: str) -> str:
    """The text of one fact of the replay's game panel (renderInfo), by its label."""
    return page.evaluate("""label => {
        const f = [...document.querySelectorAll('#info-panel .fact')]
            .find(d => d.querySelector('dt').textContent === label);
        return f ? f.querySelector('dd').textContent : null;
    }""", label)


@pytest.mark.timeout(400)
def test_a_zhao_pengyou_replay_step_opens_with_its_calls_in_the_set_up(server, browser, errors):
    """A finished six-player Zhao Pengyou match (two friend calls), its replay at a play after
    a call was answered, "Analyse": the set-up holds the calls the replay shows and, for each,
    the seat that answered it (the replay's friends), or none while it is open."""
    # at level A the declarers' first win ends the match: a hand or a few
    match_id = _finished_match(server, browser, errors, game="sheng-ji/zhao-pengyou", players=6,
                               options={"start_level": "A"})
    log = _get_json(f"{server}/api/matches/{match_id}")["log"]
    g = shangyou.replay({**log, "moves": []})
    found = None
    for k, (seat, text) in enumerate(log["moves"]):
        v = g.view(seat)
        # a follow with a choice (a throw's steps and a lone play are not analysed)
        plays = [m for m in v.get("legal_moves") or [] if not m.startswith(("throw ", "pick "))]
        if (v["phase"] == "play" and v["trick"] and not v.get("pending") and len(plays) > 1
                and any(r is not None for r in v["call_results"])):
            found = k, seat, v      # the first: the other call is still open, mostly
            break
        g.apply(text)
    assert found, "no call was answered in the match"
    k, seat, v = found
    assert len(v["calls"]) == 2 and v["declarer"] is not None

    # the replay at that step, from the seat to play
    page = _watch(browser.new_page(viewport=DESKTOP), errors)
    page.goto(f"{server}/replay/{match_id}#k={k}&seat={seat}")
    t = page.evaluate("l => window.__i18n.STRINGS[l]", "en")
    # the step drawn: its number on the slider, its calls in the game panel, the seat to play
    page.wait_for_function("""([k, s, label]) =>
        document.getElementById('slider').value === String(k)
        && [...document.querySelectorAll('#info-panel dt')].some(d => d.textContent === label)
        && document.querySelector('#seat-boxes .seat-box.to-act')?.dataset.seat === String(s)""",
                           arg=[k, seat, t["f.calls"]])
    shown_calls = _fact(page, t["f.calls"])
    friends_shown = sorted(int(s) for s in page.eval_on_selector_all(
        "#seat-boxes .seat-box:has(.friend)", "bs => bs.map(b => b.dataset.seat)"))
    declarer_shown = page.eval_on_selector_all("#seat-boxes .seat-box:has(.declarer)",
                                               "bs => bs.map(b => Number(b.dataset.seat))")
    assert friends_shown == sorted(v["friends"]) and declarer_shown == [v["declarer"]]
    link = page.locator("#analyse")
    assert link.get_attribute("href") == f"/analysis?match={match_id}&step={k}&seat={seat}"
    link.click()

    # the analysis board: analysed, and its set-up filled from the same view
    page.wait_for_url("**/analysis?*")
    _answered(page)
    page.wait_for_selector("#zp-setup", state="visible")
    calls = [c.strip() for c in page.input_value("#zp-calls").split(",")]
    assert calls == v["calls"]
    # the same calls, in the same words as the replay's
    words = page.evaluate("cs => import('/static/view.js').then(m => m.callsWords(cs))", calls)
    assert words == shown_calls, (words, shown_calls)
    answers = [page.input_value(f"#zp-answer-{i}") for i in range(len(calls))]
    assert answers == ["" if r is None else str(r) for r in v["call_results"]]
    assert page.locator("#zp-answers select").count() == len(calls)
    # who answered: the friends the replay marks (a call the declarer answered makes none)
    declarer = int(page.input_value("#sj-declarer"))
    assert declarer == v["declarer"]
    assert sorted({int(a) for a in answers if a} - {declarer}) == friends_shown
    # an open call is said so in the set-up
    for i, a in enumerate(answers):
        label = page.eval_on_selector(f"#zp-answer-{i}", "s => s.selectedOptions[0].textContent")
        assert (label == t["an.zp.open"]) == (a == "")
    # the board's seats: the step's seat is "you", as in the set-up
    names = page.eval_on_selector_all("#seats-panel .seat-box .name",
                                      "ns => ns.map(n => n.textContent)")
    assert names == [t["an.seatYou" if s == seat else "an.seatN"].replace("{n}", str(s + 1))
                     for s in range(6)]
    assert page.input_value("#seat") == str(seat)
    assert page.evaluate("[...window.__i18n.missing]") == []
    _no_horizontal_scroll(page)
    _shot(page, "analysis-zhao-pengyou-from-replay.png")
    page.close()
