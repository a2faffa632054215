#!/usr/bin/env bash
# The climbing-game bot measurements of docs/bots.md (section "Climbing games").
# Usage: bash bench/bots_climbing.sh [heuristic|search] ; figures go to bench/results/bots_climbing.jsonl
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-.venv/bin/python}
OUT=bench/results/bots_climbing.jsonl
mkdir -p bench/results
run() { PYTHONPATH=src "$PY" bench/bots_quick.py --json "$OUT" "$@"; }
what=${1:-heuristic}
if [ "$what" = heuristic ]; then
  for field in random greedy; do
    run --game zheng-shangyou/pagat --players 5 --bot heuristic --field $field --deals 100
    run --game zheng-shangyou/winner --players 4 --bot heuristic --field $field --deals 100
    run --game zheng-shangyou/owen --players 4 --bot heuristic --field $field --deals 100
    run --game zheng-fen --players 4 --bot heuristic --field $field --deals 100
    run --game zheng-shangyou/pagat-teams --players 4 --bot heuristic --field $field --deals 100
  done
else
  run --game zheng-shangyou/pagat-teams --players 4 --bot search --field heuristic --deals 30
  run --game zheng-shangyou/pagat --players 5 --bot search --field heuristic --deals 12
  run --game zheng-shangyou/pagat --players 5 --bot search --field heuristic --deals 20 --seed 2
fi
