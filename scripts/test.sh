#!/usr/bin/env bash
# Install everything (extras test, env, tournament, cluster) into .venv (and Debian's chromium for
# the browser tests, if missing) and run the whole test suite. Extra arguments go to pytest
# (e.g. `bash scripts/test.sh --playouts 2000` for the large random-playout run).
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v chromium >/dev/null 2>&1 && [ ! -x /usr/bin/chromium ]; then
    echo "installing Debian's chromium for the browser tests ..." >&2
    SUDO=""
    [ "$(id -u)" = 0 ] || SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
fi
python3 -m venv .venv
.venv/bin/python -m pip install -q --disable-pip-version-check -e '.[test,env,tournament,cluster]'
exec .venv/bin/python -m pytest -n auto -q "$@"
