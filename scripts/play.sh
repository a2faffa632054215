#!/usr/bin/env bash
# Install into .venv and start the terminal game. Arguments go to `shangyou play`
# (e.g. `bash scripts/play.sh --game zheng-shangyou/owen --players 3`).
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/python -m pip install -q --disable-pip-version-check -c requirements.lock -e .
exec .venv/bin/shangyou play "$@"
