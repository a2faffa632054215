"""The type checker is clean on ``src/``: mypy, configured in ``pyproject.toml`` (``[tool.mypy]``),
checks every module of the package and finds no error."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src"


def test_mypy_is_clean_on_src(tmp_path):
    # a fresh cache: the result does not depend on an earlier run's
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "src", "--cache-dir", str(tmp_path / "mypy-cache")],
        capture_output=True, text=True, cwd=ROOT, timeout=900)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, f"mypy found errors (exit code {proc.returncode}):\n{out}"
    found = re.search(r"Success: no issues found in (\d+) source files", out)
    assert found, out
    # every module was checked, none left out
    modules = [p for p in SRC.rglob("*") if p.suffix in (".py", ".pyi")]
    assert int(found.group(1)) == len(modules), out
