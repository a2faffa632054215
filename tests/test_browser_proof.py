"""The pages under their Content-Security-Policy, and the fair-deal panel's check of the moves
(docs/security.md, *Headers*; docs/fairness.md, *The moves' hash*), in real headless Chromium.

The lobby, a table (a match of bots, watched by its host from start to end) and its replay page
load with no ``securitypolicyviolation`` event and no console error: no inline script or style
attribute is refused, and the table's WebSocket is allowed by ``connect-src 'self'``. The replay
page's panel computes the moves' chain in the browser: it is the one Python computes, it ends at
the log's ``moves_hash``, and it passes through the hash the table page kept; a kept hash that
differs is shown as a failed check. A page of another origin cannot frame the table.
"""

from __future__ import annotations

import time

import pytest

from shangyou.fairness import moves_chain
from test_browser import _get_json, browser, serve  # noqa: F401 (browser: a fixture)
from test_browser_table import LOOPBACK, STEP_MS, _as_host, _table

pytestmark = pytest.mark.timeout(240)

# every Content-Security-Policy violation of the page, from its first script on
RECORD_VIOLATIONS = """
window.__csp = [];
document.addEventListener("securitypolicyviolation",
  (e) => window.__csp.push(
    `${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`));
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    yield from serve(tmp_path_factory.mktemp("web-proof-data"), "--bot-delay", "0.02", *LOOPBACK)


def _page(context, problems: list):
    page = context.new_page()
    page.set_default_timeout(STEP_MS)
    page.add_init_script(RECORD_VIOLATIONS)
    page.on("pageerror", lambda e: problems.append(f"{page.url}: {e}"))
    page.on("console", lambda m: problems.append(f"{page.url}: console: {m.text}")
            if m.type == "error" else None)
    return page


def _violations(page) -> list[str]:
    return page.evaluate("window.__csp || []")


def _until(page, expression: str, timeout: float = 60.0):
    """Poll ``expression`` until it is truthy (``wait_for_function`` evaluates its text with
    eval, which the policy refuses)."""
    deadline = time.monotonic() + timeout
    while True:
        value = page.evaluate(expression)
        if value:
            return value
        assert time.monotonic() < deadline, f"not in {timeout:g} s: {expression}"
        page.wait_for_timeout(100)


def test_pages_obey_the_policy_and_the_panel_checks_the_moves(server, browser):
    problems: list[str] = []
    context = browser.new_context(bypass_csp=False)
    page = _page(context, problems)

    r = page.goto(server + "/")
    headers = r.headers
    assert "script-src 'self'" in headers["content-security-policy"]
    assert "frame-ancestors 'self'" in headers["content-security-policy"]
    assert headers["x-frame-options"] == "SAMEORIGIN"
    assert headers["x-content-type-options"] == "nosniff"
    page.wait_for_selector("#refresh")
    # a style given to h() goes through the CSSOM (card backs, review marks): not refused
    assert page.evaluate("""async () => { const { h } = await import("/static/common.js");
        const e = h("span", { style: "--i: 2; color: rgb(1, 2, 3)" }); document.body.append(e);
        return getComputedStyle(e).color; }""") == "rgb(1, 2, 3)"
    assert _violations(page) == []

    # a match of bots, watched from the start by the table's host (who does not sit)
    url = _table(server)
    _as_host(page, url)
    page.goto(url)
    page.wait_for_selector("#fill-bots:not([disabled])")
    page.click("#fill-bots")
    page.wait_for_selector("#start:not([disabled])")
    page.click("#start")
    page.wait_for_selector("#game:not([hidden]) #seat-boxes")
    _until(page, "window.__shangyou.table && window.__shangyou.table.status === 'over'", 120)
    table = page.evaluate("window.__shangyou.table")
    match_id = table["match_id"]
    assert _violations(page) == [], "the table page"

    log = _get_json(f"{server}/api/matches/{match_id}")["log"]
    chain = moves_chain(log["seed"], log["moves"])
    kept = page.evaluate("k => JSON.parse(localStorage.getItem(k))", f"shangyou.commit.{match_id}")
    assert kept["moves"] == {"n": len(log["moves"]), "hash": chain[-1]} == {
        "n": len(log["moves"]), "hash": log["moves_hash"]}

    # the replay page: the chain computed in the browser is Python's; every check passes
    page.goto(f"{server}/replay/{match_id}#fair")
    page.wait_for_selector("#fair-panel[data-done='1']", timeout=60_000)
    in_page = page.evaluate("""async ([secret, moves]) =>
        (await import("/static/fair.js")).movesChain(secret, moves)""", [log["seed"], log["moves"]])
    assert in_page == chain
    status = page.locator("#fair-checks .check").evaluate_all(
        "els => Object.fromEntries(els.map(e => [e.dataset.check, e.dataset.status]))")
    assert status == {"commitment": "ok", "kept": "ok", "hands": "none", "moves": "ok",
                      "seen": "ok", "server": "ok"}, status
    assert page.text_content("#fair-seen") == f"{len(log['moves'])}:{chain[-1]}"
    assert _violations(page) == [], "the replay page"

    # a kept hash the log's moves do not reach: the panel says so
    page.evaluate("""([k, h]) => { const r = JSON.parse(localStorage.getItem(k));
        r.moves.hash = h; localStorage.setItem(k, JSON.stringify(r)); }""",
                  [f"shangyou.commit.{match_id}", chain[-2]])
    page.reload()
    page.wait_for_selector("#fair-panel[data-done='1']", timeout=60_000)
    assert page.get_attribute('#fair-checks [data-check="seen"]', "data-status") == "bad"
    assert page.get_attribute('#fair-checks [data-check="moves"]', "data-status") == "ok"

    # a page of another origin (a blank one: no policy of its own) cannot frame the table:
    # the frame gets Chromium's error page instead
    page.goto("about:blank")
    page.evaluate("""u => new Promise((done) => { const f = document.createElement('iframe');
        f.onload = () => done(true); f.src = u; document.body.append(f); })""", url)
    urls = [f.url for f in page.frames]
    assert len(urls) == 2 and urls[1].startswith("chrome-error:"), urls
    assert problems == [], problems
    context.close()
