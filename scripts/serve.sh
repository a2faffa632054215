#!/usr/bin/env bash
# Install the app (the web extra, at the exact versions of requirements.lock) into .venv and
# start the web server (SQLite store in ./data); it prints its URL.
# Arguments go to `shangyou serve` (e.g. `bash scripts/serve.sh --port 8080`).
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/python -m pip install -q --disable-pip-version-check -c requirements.lock -e '.[web]'
exec .venv/bin/shangyou serve "$@"
