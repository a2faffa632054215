"""The table page when its table moves to another node, in real headless Chromium: two real
server nodes on one real PostgreSQL database and one real Redis server (the fixtures of
tests/test_cluster.py), the page on the node that does not run the table.

The node that runs the table is killed; once its lease ran out the page's node tells the page
``moved`` and closes its socket with 1012. The page shows its usual reconnecting state (never
the server's ``moved`` message as an alert) and opens a new socket at once: the page's clock is
stopped (Playwright's clock), so no timer of the page runs, and the page is back in its seat
with the table's state all the same."""

from __future__ import annotations

import signal
import time

import pytest
from playwright.sync_api import Error as PlaywrightError
from test_browser import browser  # noqa: F401 (a fixture)
from test_cluster import WAIT, Client, new_table, nodes  # noqa: F401 (nodes: a fixture)

pytestmark = pytest.mark.timeout(240)
STEP_MS = int(WAIT * 1000)

# every text the connection indicator and the alerts show, in order (a MutationObserver: no
# timer, so it runs with the page's clock stopped)
WATCH = """
window.__seen = [];
document.addEventListener("DOMContentLoaded", () => {
  for (const id of ["conn", "alert", "top-alert", "reconnecting"]) {
    const el = document.getElementById(id);
    const note = () => window.__seen.push([id, el.hidden ? "" : el.textContent]);
    new MutationObserver(note).observe(el, { childList: true, characterData: true,
                                             subtree: true, attributes: true });
  }
});
"""


def _stop_clock(page) -> None:
    """Stop the page's installed clock a moment ahead of its time now. The clock runs on between
    reading it and pausing it, and pause_at refuses a time already passed (a busy machine), so
    such a refusal reads the time again."""
    for _ in range(100):
        try:
            page.clock.pause_at((page.evaluate("Date.now()") + 1) / 1000)   # seconds
            return
        except PlaywrightError as e:
            if "to the past" not in str(e):
                raise
    raise AssertionError("the page's clock could not be paused")


def test_the_page_reconnects_at_once_when_its_table_moves_to_another_node(nodes, browser):
    a, b = nodes("a"), nodes("b")
    table_id, token = new_table(a, grace=3600)          # a runs the table
    host = Client(a, table_id, token, "Ann")
    host.recv()
    host.send({"type": "sit", "seat": 0})
    assert host.recv()["type"] == "welcome"

    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    frames: list[str] = []
    sockets: list = []

    def on_socket(ws):
        sockets.append(ws)
        ws.on("framereceived", lambda payload: frames.append(str(payload)))

    page.on("websocket", on_socket)
    page.add_init_script(WATCH)
    page.clock.install()
    page.set_default_timeout(STEP_MS)
    page.goto(f"{b.base}/t/{table_id}")                 # b: the page's socket goes through b
    page.wait_for_selector("#seat-list .sit")
    page.fill("#name", "Bo")
    page.click('#seat-list .sit[data-seat="1"]')
    page.wait_for_function("document.body.dataset.seat === '1'")
    host.send({"type": "start"})
    page.wait_for_selector("#game:not([hidden]) #seat-boxes")
    assert len(sockets) == 1 and page.locator("#conn").text_content() == "connected"
    before = host.until(lambda s: s["view"] is not None)["version"]

    _stop_clock(page)                                   # from here on no timer of the page runs
    page.evaluate("window.__seen.length = 0")
    a.signal(signal.SIGKILL)
    a.proc.wait(WAIT)

    # back at once, through b, which took the table over: the seat and the game, connected
    page.wait_for_function("document.body.dataset.connected === '1' && "
                           "window.__seen.some(([id]) => id === 'conn')")
    assert any('"code":"moved"' in f.replace(" ", "") for f in frames), frames[-3:]
    assert len(sockets) == 2                            # one new socket, made with no timer
    assert page.evaluate("document.body.dataset.seat") == "1"
    assert page.locator("#conn").text_content() == "connected"
    seen = page.evaluate("window.__seen")
    conn = [text for id_, text in seen if id_ == "conn"]
    assert "reconnecting…" in conn and conn[-1] == "connected", seen
    assert any(id_ == "reconnecting" and text for id_, text in seen), seen   # the banner
    alerts = [text for id_, text in seen if id_ in ("alert", "top-alert") and text]
    assert not alerts, alerts                           # the "moved" message is not shown
    assert page.locator("#alert").text_content() == ""
    assert page.locator("#game:not([hidden]) #seat-boxes").count() == 1
    # the host, whose node died, comes back through b too: both see the table run by b
    host.open(b)
    after = host.until(lambda s: s["view"] is not None)
    assert after["version"] > before                     # b took the table over: the fence
    assert not errors, errors
    page.close()


def test_the_page_gives_up_a_silent_server_and_comes_back(nodes, browser):
    """The page pings a server it has not heard from; a server paused (SIGSTOP) answers
    nothing, and sends no close either: past the deadline the page gives the socket up, shows
    "Reconnecting…" and tries again; once the server runs again the page is back. The page's
    clock is Playwright's: its timers run only when the test says (run_for), so the deadline
    passes however slow the machine is."""
    a = nodes("a")
    table_id, _ = new_table(a, grace=3600)
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    got: list[str] = []
    sent: list[str] = []
    sockets: list = []

    def on_socket(ws):
        sockets.append(ws)
        ws.on("framereceived", lambda payload: got.append(str(payload).replace(" ", "")))
        ws.on("framesent", lambda payload: sent.append(str(payload).replace(" ", "")))

    page.on("websocket", on_socket)
    page.add_init_script(WATCH)
    page.clock.install()
    page.set_default_timeout(STEP_MS)
    page.goto(f"{a.base}/t/{table_id}")
    page.wait_for_function("document.body.dataset.connected === '1'")
    _stop_clock(page)

    def wait_for(what, pred):
        deadline = time.monotonic() + WAIT
        while not pred():
            assert time.monotonic() < deadline, what
            page.wait_for_timeout(50)

    page.clock.run_for(6000)                 # nothing heard for a while: a ping, answered
    wait_for("a pong", lambda: any('"type":"pong"' in f for f in got))
    wait_for("its ping", lambda: any('"type":"ping"' in f for f in sent))
    page.evaluate("window.__seen.length = 0")
    pings = sum('"type":"ping"' in f for f in sent)
    a.signal(signal.SIGSTOP)
    try:
        page.clock.run_for(12000)            # past the deadline: no pong, no close
        # (the frames reach the test a little later than the page sends them)
        wait_for("a ping to the paused server",
                 lambda: sum('"type":"ping"' in f for f in sent) > pings)
        page.wait_for_function("document.body.dataset.connected === ''")
        assert page.locator("#reconnecting").is_visible()
        assert page.locator("#conn").text_content() == "reconnecting…"
    finally:
        a.signal(signal.SIGCONT)
    page.clock.resume()
    page.wait_for_function("document.body.dataset.connected === '1'")
    assert len(sockets) >= 2                 # a new socket: the silent one was given up
    assert page.locator("#reconnecting").is_hidden()
    assert not errors, errors
    page.close()
