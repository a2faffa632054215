"""The English and 中文 dictionaries (web/static/i18n-en.js, i18n-zh.js) hold the same keys in
the same order, each once, so a key added to one is added to the other in the same place and a
reviewer reads the two files side by side. Node evaluates each module (the object the pages
get); the source's keys are read too, since a JavaScript object silently keeps the last of
two equal keys."""

from __future__ import annotations

import functools
import json
import re
import shutil
import subprocess
from collections import Counter
from pathlib import Path

STATIC = Path(__file__).resolve().parent.parent / "src" / "shangyou" / "web" / "static"
DICTS = {"en": STATIC / "i18n-en.js", "zh": STATIC / "i18n-zh.js"}

# the source's comments and string literals, left to right: a literal followed by ":" is a key
_TOKEN = re.compile(r'//[^\n]*|"((?:[^"\\\n]|\\.)*)"(\s*:)?')

_DUMP = """
const [name, file] = process.argv.slice(1);
const mod = await import(file);
process.stdout.write(JSON.stringify(Object.entries(mod[name])));
"""


@functools.cache
def evaluated(name: str) -> list[tuple[str, object]]:
    """The dictionary's entries, in order, as node sees the module."""
    node = shutil.which("node")
    assert node, "node is needed (scripts/test.sh installs it for npm)"
    out = subprocess.run([node, "--input-type=module", "-e", _DUMP, name,
                          DICTS[name].as_uri()],
                         capture_output=True, text=True, timeout=60, check=True).stdout
    return [tuple(e) for e in json.loads(out)]


def written_keys(text: str) -> list[str]:
    """The keys as written in a source, duplicates included."""
    return [json.loads(f'"{m.group(1)}"') for m in _TOKEN.finditer(text) if m.group(2)]


def test_the_key_reader():
    text = ('  "a.b": "x", "c": ", ",\n  // "no": 1\n  "d\\"e": "y: \\"z\\": w",\n'
            '  "f":"g", "a.b": "again"\n')
    assert written_keys(text) == ["a.b", "c", 'd"e', "f", "a.b"]


def test_each_dictionary_has_each_key_once_and_only_strings():
    for name in DICTS:
        entries = evaluated(name)
        assert len(entries) > 100, name
        written = written_keys(DICTS[name].read_text(encoding="utf-8"))
        twice = sorted(k for k, n in Counter(written).items() if n > 1)
        assert not twice, f"i18n-{name}.js has keys twice: {twice}"
        # the reader saw every key the object has, in its order (none written as a bare name)
        assert written == [k for k, _ in entries], f"i18n-{name}.js: keys the reader missed"
        bad = [k for k, v in entries if not isinstance(v, str) or not v.strip()]
        assert not bad, f"i18n-{name}.js: empty or not text: {bad}"


def test_english_and_chinese_have_the_same_keys_in_the_same_order():
    en = [k for k, _ in evaluated("en")]
    zh = [k for k, _ in evaluated("zh")]
    assert set(en) == set(zh), f"only in English: {sorted(set(en) - set(zh))}; " \
                               f"only in 中文: {sorted(set(zh) - set(en))}"
    first = next((i for i, (a, b) in enumerate(zip(en, zh)) if a != b), None)
    assert first is None, \
        f"the order differs from entry {first}: en {en[first]!r}, zh {zh[first]!r}"
