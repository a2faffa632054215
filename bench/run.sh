#!/usr/bin/env bash
# Speed benchmark: installs the bench extra (RLCard 1.2 for the comparison) into .venv and runs
# bench/bench_zsy.py, which prints a table.  Arguments are passed on:
#   bash bench/run.sh            # full run, about 3 minutes
#   bash bench/run.sh --quick    # about 1 minute
#   bash bench/run.sh --json bench/results/latest.json
# BENCH_NO_INSTALL=1 skips the install step; BENCH_CORE=N picks the core to pin to.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
fi
PY=.venv/bin/python

if [ "${BENCH_NO_INSTALL:-0}" != "1" ]; then
    if ! "$PY" -c 'import shangyou, rlcard, numpy' 2>/dev/null; then
        echo "installing the bench extra into .venv ..." >&2
        "$PY" -m pip install -q -e '.[bench]' \
            || echo "  RLCard could not be installed: the benchmark runs without it" >&2
    fi
fi

exec "$PY" bench/bench_zsy.py "$@"
