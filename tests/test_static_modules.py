"""Each page's ``<link rel="modulepreload">`` list is exactly the set of modules its scripts
import, directly or through other modules (web/static; no bundler, so the browser would
otherwise find each import only after fetching the module that names it). Static: the .html
files and the ``import`` lines of the .js files are parsed, no browser. A dynamic ``import()``
(the share dialog's QR code library) is loaded on demand and is not preloaded."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

STATIC = Path(__file__).resolve().parent.parent / "src" / "shangyou" / "web" / "static"
PAGES = sorted(p.name for p in STATIC.glob("*.html"))

_SCRIPT = re.compile(r'<script\s+type="module"\s+src="/static/([^"]+)"\s*>')
_PRELOAD = re.compile(r'<link\s+rel="modulepreload"\s+href="/static/([^"]+)"\s*>')
# `import {a, b} from "./x.js";` (over several lines too), `import "./x.js";`,
# `export {a} from "./x.js";`: a statement at the start of a line.
_IMPORT = re.compile(r'^\s*(?:import|export)\s+(?:[^"\';]*?\s*from\s*)?["\']([^"\']+)["\']',
                     re.M)


def imports_of(name: str) -> set[str]:
    """The modules one static module imports, as names under /static/."""
    text = (STATIC / name).read_text(encoding="utf-8")
    out = set()
    for spec in _IMPORT.findall(text):
        assert spec.startswith("./"), f"{name}: import {spec!r} is not a relative path"
        out.add(spec[2:])
    return out


def closure(entries: list[str]) -> set[str]:
    """Every module the entry scripts import, directly or not (the entries themselves only when
    one of them imports another)."""
    seen: set[str] = set()
    todo = [m for e in entries for m in imports_of(e)]
    while todo:
        m = todo.pop()
        if m not in seen:
            assert (STATIC / m).is_file(), f"{m} is imported but does not exist"
            seen.add(m)
            todo.extend(imports_of(m))
    return seen


def test_the_import_parser_sees_every_form():
    """The pattern finds one-line, several-line, bare and re-export imports."""
    text = ('import { a } from "./a.js";\nimport {\n  b, c,\n} from "./b.js";\n'
            'import "./c.js";\nexport { d } from "./d.js";\n * import x from "./no.js"\n'
            'const q = await import("./lazy.js");\n')
    assert set(_IMPORT.findall(text)) == {"./a.js", "./b.js", "./c.js", "./d.js"}


@pytest.mark.parametrize("page", PAGES)
def test_preload_list_is_the_import_closure(page):
    html = (STATIC / page).read_text(encoding="utf-8")
    entries = _SCRIPT.findall(html)
    assert entries, f"{page} has no module script"
    preloads = _PRELOAD.findall(html)
    assert len(preloads) == len(set(preloads)), f"{page} preloads a module twice"
    needed = closure(entries)
    assert not needed - set(preloads), f"{page} misses preloads: {sorted(needed - set(preloads))}"
    assert not set(preloads) - needed, f"{page} preloads unused: {sorted(set(preloads) - needed)}"


def test_every_module_is_used_by_some_page():
    """No module in static/ is left over: each is an entry script or imported by one."""
    used = set()
    for page in PAGES:
        entries = _SCRIPT.findall((STATIC / page).read_text(encoding="utf-8"))
        used |= set(entries) | closure(entries)
    assert {p.name for p in STATIC.glob("*.js")} - used == set()
