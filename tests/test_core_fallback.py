"""Both compiled cores fall back to their Python reference: ``SHANGYOU_NO_C=1`` forces it with
no notice; a module that cannot be imported is said once on standard error, and the game
plays on (the same game as with the core). Each case runs in a fresh interpreter."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

SRC = str(Path(__file__).resolve().parent.parent / "src")

# one whole random game; it prints whether the core is there and on, and the game's outcome
CASES = {
    "shangyou.games.climbing._core": (
        "import random, shangyou\n"
        "from shangyou.games.climbing import core\n"
        "g = shangyou.new_game('zheng-shangyou/pagat', players=5, seed=3)\n"
        "r = random.Random(1)\n"
        "while not g.over: g.apply(r.choice(g.legal_moves()))\n"
        "print(core.AVAILABLE, core.ACTIVE, g.result['order'])\n"),
    "shangyou.games.sheng_ji._core": (
        "import random, shangyou\n"
        "from shangyou.games.sheng_ji import core\n"
        "g = shangyou.new_game('sheng-ji', players=4, seed=3)\n"
        "r = random.Random(1)\n"
        "while not g.over: g.apply(r.choice(g.legal_moves()))\n"
        "print(core.AVAILABLE, core.ACTIVE, g.result['winners'], len(g.moves))\n"),
}


def _run(code: str, **env) -> subprocess.CompletedProcess:
    e = {k: v for k, v in os.environ.items() if k != "SHANGYOU_NO_C"}
    e["PYTHONPATH"] = SRC + os.pathsep + e.get("PYTHONPATH", "")
    e.update(env)
    return subprocess.run([sys.executable, "-c", code], check=False, capture_output=True,
                          text=True, env=e, timeout=120)


@pytest.mark.parametrize("module", sorted(CASES))
def test_no_c_forces_python_without_a_notice(module):
    out = _run(CASES[module], SHANGYOU_NO_C="1")
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("False False [")
    assert "compiled core" not in out.stderr


@pytest.mark.parametrize("module", sorted(CASES))
def test_missing_module_falls_back_with_one_notice(module):
    play = CASES[module]
    blocker = ("import sys\n"
               "class Block:\n"
               "    def find_spec(self, name, path=None, target=None):\n"
               f"        if name == {module!r}:\n"
               "            raise ImportError('not built')\n"
               "sys.meta_path.insert(0, Block())\n")
    out = _run(blocker + play + play.split("\n", 2)[2])     # two games, one notice
    assert out.returncode == 0, out.stderr
    lines = out.stdout.split("\n")
    assert lines[0].startswith("False False [") and lines[0] == lines[1]
    notices = [x for x in out.stderr.splitlines() if module in x]
    assert len(notices) == 1, out.stderr
    core = importlib.import_module(module.rsplit(".", 1)[0] + ".core")
    if core.AVAILABLE:                       # the same game as with the core
        assert lines[0].split(" ", 2)[2] == _run(play).stdout.split("\n")[0].split(" ", 2)[2]
