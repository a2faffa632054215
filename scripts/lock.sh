#!/usr/bin/env bash
# Resolve the app's dependencies afresh (extras web, test, env, tournament, cluster, train,
# research) in a scratch virtual environment and write their exact versions to requirements.lock.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
python3 -m venv "$tmp/venv"
"$tmp/venv/bin/python" -m pip install -q --disable-pip-version-check \
    -e '.[web,test,env,tournament,cluster,train,research]'
{
    echo "# Exact versions of the app and its tests (extras web, test, env, tournament,"
    echo "# cluster, train, research) on CPython 3.11, Linux x86-64. scripts/serve.sh and"
    echo "# scripts/test.sh install with this file as pip constraints (pip install -c"
    echo "# requirements.lock ...)."
    echo "# Regenerate: bash scripts/lock.sh"
    # a local label such as torch's "+cpu" is dropped: "torch==2.13.0" admits the CPU build
    # where an index offers it and the plain wheel elsewhere
    "$tmp/venv/bin/python" -m pip freeze --exclude-editable --disable-pip-version-check \
        | sed -E 's/^([A-Za-z0-9_.-]+==[^+]+)\+[A-Za-z0-9.]+$/\1/' | sort -f
} > requirements.lock
echo "wrote requirements.lock" >&2
