"""Each page's ``<link rel="modulepreload">`` list is exactly the set of modules its scripts
import, directly or through other modules (web/static; no bundler, so the browser would
otherwise find each import only after fetching the module that names it). Static: the .html
files and the ``import`` lines of the .js files are parsed, no browser. A dynamic ``import()``
(the share dialog's QR code library) is loaded on demand and is not preloaded.

Stylesheets: every page links ``base.css``, then the sheet named after the page where there is
one (``table.css`` for table.html), and nothing else; each class and id a page's own sheet
names is one that page's HTML or scripts use."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

STATIC = Path(__file__).resolve().parent.parent / "src" / "shangyou" / "web" / "static"
PAGES = sorted(p.name for p in STATIC.glob("*.html"))

_SCRIPT = re.compile(r'<script\s+type="module"\s+src="/static/([^"]+)"\s*>')
_STYLE = re.compile(r'<link\s+rel="stylesheet"\s+href="/static/([^"]+)"\s*>')
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


def sheets_of(page: str) -> list[str]:
    """The stylesheets a page should link, in order: base.css, then its own sheet if any."""
    own = page.removesuffix(".html") + ".css"
    return ["base.css"] + ([own] if (STATIC / own).is_file() else [])


@pytest.mark.parametrize("page", PAGES)
def test_each_page_links_base_then_its_own_sheet(page):
    html = (STATIC / page).read_text(encoding="utf-8")
    assert _STYLE.findall(html) == sheets_of(page)
    # the sheets come before the scripts, so the first paint is already styled
    assert html.index('rel="stylesheet"') < html.index("<script")


def test_every_sheet_is_linked_by_some_page():
    linked = {s for page in PAGES for s in sheets_of(page)}
    assert {p.name for p in STATIC.glob("*.css")} == linked


def _names_in_selectors(css: str) -> set[str]:
    """The class and id names in a stylesheet's selectors (comments and declarations left out)."""
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    css = re.sub(r"\{[^{}]*\}", "{}", css)          # rule bodies (colours like #fff are not ids)
    return set(re.findall(r"[.#](-?[A-Za-z_][\w-]*)", css))


def test_the_selector_parser_skips_bodies_and_comments():
    css = "/* .no */ .a > #b, .c:hover::after { color: #fff; width: .5rem; }\n@media (x) { .d { } }"
    assert _names_in_selectors(css) == {"a", "b", "c", "d"}


@pytest.mark.parametrize("page", [p for p in PAGES if len(sheets_of(p)) > 1])
def test_a_pages_own_sheet_styles_only_what_the_page_uses(page):
    """A rule in table.css for a class only the replay draws would leave the replay unstyled:
    each name in a page's own sheet occurs in that page or in the modules it loads (the
    dictionaries aside: their words are not class names)."""
    html = (STATIC / page).read_text(encoding="utf-8")
    entries = _SCRIPT.findall(html)
    mods = (set(entries) | closure(entries)) - {"i18n-en.js", "i18n-zh.js"}
    words = set(re.findall(r"[A-Za-z_][\w-]*", html + "".join(
        (STATIC / m).read_text(encoding="utf-8") for m in sorted(mods))))
    # the classes settings.js sets on <html> on every page (the sizes through `size-${z}`)
    words |= {"dark", "four-colour", "reduce-motion", "size-s", "size-l"}
    own = sheets_of(page)[1]
    unused = _names_in_selectors((STATIC / own).read_text(encoding="utf-8")) - words
    assert not unused, f"{own} styles names {page} never uses: {sorted(unused)}"
