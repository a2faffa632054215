"""The card table fits every screen (issue 22, section 2), checked in real headless Chromium.

For every preset at its smallest and largest player count, on two portrait phones (390x844,
360x740), a landscape phone (844x390) and a desktop (1280x800): the seats, the table with the
current trick, the hand and the action buttons are inside the viewport without scrolling and
do not overlap; the hand takes at most two rows and shows at least 24 px of each card; every
visible button is at least 44 px high; seats are placed around the table relative to the
viewer in the order of play; axe-core finds nothing serious. One server and one browser serve
every case (a new page per table); the screenshots and a contact sheet of them all go to
``artifacts/screenshots/``.
"""

from __future__ import annotations

import math

import pytest

from test_browser import _get_json, browser, serve  # noqa: F401 (browser: a fixture)
from test_browser_table import (AXE, LOOPBACK, SHOTS, STEP_MS, _axe, _start, _sit, _table,
                                _watch)

VIEWPORTS = [(390, 844), (360, 740), (844, 390), (1280, 800)]

# options that make the largest tables playable (one pack is for 3 or 4 players of Winner)
BIG_TABLE_OPTIONS = {"zheng-shangyou/winner": {"decks": 2}}

pytestmark = pytest.mark.timeout(400)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    yield from serve(tmp_path_factory.mktemp("web-layout-data"), "--bot-delay", "0.02", *LOOPBACK)


def _cases(server) -> list[tuple[str, int]]:
    out = []
    for p in _get_json(server + "/api/presets"):
        counts = sorted(p["players"])
        for n in sorted({counts[0], counts[-1]}):
            out.append((p["name"], n))
    return out


MEASURE = """() => {
    const r = (e) => { const b = e.getBoundingClientRect();
        return {x: b.left, y: b.top, w: b.width, h: b.height}; };
    const shown = (e) => e && e.offsetParent !== null;
    const seats = [...document.querySelectorAll('#seat-boxes .seat-box')].map(e =>
        ({seat: Number(e.dataset.seat), rel: Number(e.dataset.rel), ...r(e)}));
    const spots = [...document.querySelectorAll('#trick .spot')].map(e =>
        ({seat: Number(e.dataset.seat), ...r(e)}));
    const cards = [...document.querySelectorAll('#hand .card')].map(e =>
        ({card: e.dataset.card, top: e.offsetTop, ...r(e)}));
    const buttons = [...document.querySelectorAll('#top button, #game button')].filter(b => shown(b) &&
        !b.classList.contains('card')).map(b => ({id: b.id || b.textContent.trim(), ...r(b)}));
    return {
        W: window.innerWidth, H: window.innerHeight,
        scrollW: document.documentElement.scrollWidth, scrollH: document.documentElement.scrollHeight,
        seats, spots, cards, buttons,
        table: r(document.getElementById('table-area')),
        strip: r(document.getElementById('strip')),
        controls: r(document.getElementById('controls')),
        panel: r(document.getElementById('play-panel')),
        hand: r(document.getElementById('hand')),
        header: r(document.getElementById('top')),
        me: document.body.dataset.seat,
    };
}"""


def _inside(box, W, H, what):
    assert box["x"] >= -1 and box["y"] >= -1 and box["x"] + box["w"] <= W + 1 and \
        box["y"] + box["h"] <= H + 1, f"{what} is outside the {W}x{H} viewport: {box}"


def _overlap(a, b) -> bool:
    return (min(a["x"] + a["w"], b["x"] + b["w"]) - max(a["x"], b["x"]) > 1 and
            min(a["y"] + a["h"], b["y"] + b["h"]) - max(a["y"], b["y"]) > 1)


def _check(m: dict, n: int, label: str):
    W, H = m["W"], m["H"]
    assert m["scrollW"] <= W and m["scrollH"] <= H, f"{label}: the page scrolls ({m['scrollW']}x{m['scrollH']})"
    assert len(m["seats"]) == n, f"{label}: {len(m['seats'])} seats drawn"
    blocks = {"header": m["header"], "strip": m["strip"], "table": m["table"],
              "panel": m["panel"], "hand": m["hand"]}
    for name, box in blocks.items():
        _inside(box, W, H, f"{label}: {name}")
    names = list(blocks)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            assert not _overlap(blocks[a], blocks[b]), f"{label}: {a} overlaps {b}"
    for s in m["seats"]:
        _inside(s, W, H, f"{label}: seat {s['seat']}")
        for name in ("header", "strip", "panel", "hand"):
            assert not _overlap(s, blocks[name]), f"{label}: seat {s['seat']} overlaps the {name}"
    for i, a in enumerate(m["seats"]):
        for b in m["seats"][i + 1:]:
            assert not _overlap(a, b), f"{label}: seats {a['seat']} and {b['seat']} overlap"
    for sp in m["spots"]:
        _inside(sp, W, H, f"{label}: the play of seat {sp['seat']}")
        for s in m["seats"]:
            assert not _overlap(sp, s), f"{label}: the play of seat {sp['seat']} covers seat {s['seat']}"
    for b in m["buttons"]:
        _inside(b, W, H, f"{label}: button {b['id']}")
        assert b["h"] >= 44, f"{label}: button {b['id']} is {b['h']:.0f} px high"
    cards = m["cards"]
    assert cards, f"{label}: no hand drawn"
    rows = sorted({c["top"] for c in cards})
    assert len(rows) <= 2, f"{label}: the hand takes {len(rows)} rows"
    for i, c in enumerate(cards):
        _inside(c, W, H + 14, f"{label}: card {c['card']}")     # (a picked card is raised)
        nxt = cards[i + 1] if i + 1 < len(cards) else None
        visible = nxt["x"] - c["x"] if nxt and nxt["top"] == c["top"] else c["w"]
        assert visible >= 24 and c["h"] >= 44, f"{label}: card {c['card']} shows {visible:.0f}x{c['h']:.0f} px"
    # the seats go round in the order of play: you at the bottom, the next seat on your right
    # (on your left where the game plays clockwise)
    me = next(s for s in m["seats"] if s["rel"] == 0)
    cx = m["table"]["x"] + m["table"]["w"] / 2
    cy = m["table"]["y"] + m["table"]["h"] / 2
    assert me["y"] + me["h"] / 2 > cy, f"{label}: your seat is not at the bottom"
    angles = []
    for s in sorted(m["seats"], key=lambda s: s["rel"]):
        a = math.atan2(s["y"] + s["h"] / 2 - cy, s["x"] + s["w"] / 2 - cx)
        angles.append(a)
    # counter-clockwise on the screen (y down): the angle falls from seat to seat; "winner"
    # (seed 001) plays clockwise: it rises
    sign = -1 if label.startswith("zheng-shangyou/winner ") else 1
    turns = [(sign * (angles[i] - angles[i + 1])) % (2 * math.pi)
             for i in range(len(angles) - 1)]
    assert all(0 < t < math.pi * 1.01 for t in turns), f"{label}: seats not in the order of play {angles}"


def _frames(page):
    """Until the page has laid itself out for the new size and no card is still moving."""
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    page.evaluate("() => Promise.all(document.getAnimations().map(a => a.finished.catch(() => null)))")


def _contact_sheet(paths):
    from PIL import Image, ImageDraw

    thumb_h = 300
    thumbs = []
    for p in paths:
        im = Image.open(p).convert("RGB")
        im.thumbnail((thumb_h, thumb_h))
        thumbs.append((p.stem, im))
    cols = 8
    cell_w = thumb_h + 10
    rows = math.ceil(len(thumbs) / cols)
    sheet = Image.new("RGB", (cols * cell_w, rows * (thumb_h + 26)), "white")
    draw = ImageDraw.Draw(sheet)
    for i, (name, t) in enumerate(thumbs):
        x = (i % cols) * cell_w + 5
        y = (i // cols) * (thumb_h + 26)
        sheet.paste(t, (x, y + 20))
        draw.text((x, y + 4), name.replace("layout-", ""), fill="black")
    sheet.save(SHOTS / "layout-contact-sheet.png")


def test_every_preset_fits_every_screen(server, browser):
    assert AXE.is_file(), "axe-core is missing: run `npm ci`"
    errors: list[str] = []
    SHOTS.mkdir(parents=True, exist_ok=True)
    shots = []
    failures = []
    for game, n in _cases(server):
        opts = BIG_TABLE_OPTIONS.get(game, {}) if n > 4 else {}
        url = _table(server, game=game, players=n, options=opts)
        ctx = browser.new_context(viewport={"width": 390, "height": 844})
        page = _watch(ctx.new_page(), errors)
        _sit(page, url, "Ada", seat=0)
        _start(page)
        page.wait_for_selector("#your-turn", timeout=STEP_MS)
        page.wait_for_selector("#hand .card", timeout=STEP_MS)
        for w, hgt in VIEWPORTS:
            page.set_viewport_size({"width": w, "height": hgt})
            _frames(page)
            label = f"{game} {n}p {w}x{hgt}"
            m = page.evaluate(MEASURE)
            name = f"layout-{game.replace('/', '-')}-{n}p-{w}x{hgt}.png"
            page.screenshot(path=str(SHOTS / name))
            shots.append(SHOTS / name)
            try:
                _check(m, n, label)
            except AssertionError as e:
                failures.append(str(e))
            found = _axe(page)
            if found:
                failures.append(f"{label}: axe {found}")
        ctx.close()
    _contact_sheet(shots)
    assert not errors, errors
    assert not failures, "\n".join(failures)
