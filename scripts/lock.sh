#!/usr/bin/env bash
# Resolve the app's dependencies afresh (extras web, test, env, tournament, cluster) in a
# scratch virtual environment and write their exact versions to requirements.lock.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
python3 -m venv "$tmp/venv"
"$tmp/venv/bin/python" -m pip install -q --disable-pip-version-check \
    -e '.[web,test,env,tournament,cluster]'
{
    echo "# Exact versions of the app and its tests (extras web, test, env, tournament,"
    echo "# cluster) on CPython 3.11, Linux x86-64. scripts/serve.sh and scripts/test.sh"
    echo "# install with this file as pip constraints (pip install -c requirements.lock ...)."
    echo "# Regenerate: bash scripts/lock.sh"
    "$tmp/venv/bin/python" -m pip freeze --exclude-editable --disable-pip-version-check | sort -f
} > requirements.lock
echo "wrote requirements.lock" >&2
