#!/usr/bin/env bash
# Install into .venv and run the whole test suite. Extra arguments go to pytest
# (e.g. `bash scripts/test.sh --playouts 20000` for the large random-playout run).
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/python -m pip install -q --disable-pip-version-check -e '.[test]'
exec .venv/bin/python -m pytest -n auto -q "$@"
