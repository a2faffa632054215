#!/usr/bin/env bash
# Every speed benchmark in one command: installs the bench extra (RLCard 1.2, OpenSpiel 2.0.2,
# Shimmy 2.0.1, the env extra) into .venv, then runs
#   bench/bench_env.py  (engine, PettingZoo env and batch sim of every preset against RLCard's
#                        DoudizhuGame and env.run, OpenSpiel's C++ dou_dizhu and Shimmy's wrapper)
#   bench/bench_zsy.py  (every preset x player count against RLCard's engine; legal-move timing)
#   bash bench/run_all.sh            # full run, about 8 minutes
#   bash bench/run_all.sh --quick    # smoke run, about 1.5 minutes
# BENCH_NO_INSTALL=1 skips the install; BENCH_CORE=N picks the core; BENCH_JSON_DIR=DIR writes
# both results as JSON there.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
fi
PY=.venv/bin/python
if [ "${BENCH_NO_INSTALL:-0}" != "1" ]; then
    if ! "$PY" -c 'import shangyou, rlcard, pyspiel, shimmy, pettingzoo' 2>/dev/null; then
        echo "installing the bench extra into .venv ..." >&2
        "$PY" -m pip install -q -e '.[bench]'
    fi
fi
env_json=(); zsy_json=()
if [ -n "${BENCH_JSON_DIR:-}" ]; then
    env_json=(--json "$BENCH_JSON_DIR/env.json"); zsy_json=(--json "$BENCH_JSON_DIR/zsy.json")
fi
echo "== engines and environments side by side (bench/bench_env.py) =="
"$PY" bench/bench_env.py "$@" "${env_json[@]}"
echo
echo "== every preset and table size, legal-move generation (bench/bench_zsy.py) =="
"$PY" bench/bench_zsy.py "$@" "${zsy_json[@]}"
echo
echo "== cloning a game for search (bench/bench_clone.py) =="
"$PY" bench/bench_clone.py
