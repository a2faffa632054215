#!/usr/bin/env bash
# bench/load_server.py against the nginx proxy of scripts/cluster.sh, on a fresh cluster each
# run (a new data folder: no table of an earlier run plays on meanwhile):
#
#   bash bench/load_cluster.sh NODES BOT_DELAY [load_server.py options...]
#
# e.g. `bash bench/load_cluster.sh 2 0.3 --tables 1000 --seconds 60`. Starts PostgreSQL, Redis,
# NODES nodes (bots moving after BOT_DELAY seconds; the loopback allowance of docs/security.md
# with sockets_per_address=100 and tables_per_minute=20, so 10,000 sockets and 2,000 tables a
# minute from loopback: 1,000 tables of 4 sockets fit on one node) and nginx; waits until it
# answers; runs the load script with --url and --pids; stops the cluster, says how many tables
# each node took over from another or lost to one (from its log), and removes the folder. PYTHON (default: .venv/bin/python, made by scripts/cluster.sh) runs the nodes and the
# script; PORT, NODE_PORT, PG_PORT and REDIS_PORT as for scripts/cluster.sh (defaults 18080,
# 18101, 15432, 16379 here, apart from a cluster of the defaults).
set -euo pipefail
cd "$(dirname "$0")/.."
NODES="$1"; BOT_DELAY="$2"; shift 2
PY="${PYTHON:-.venv/bin/python}"
PORT="${PORT:-18080}"
DATA="$(mktemp -d "${TMPDIR:-/tmp}/shangyou-cluster-load.XXXXXX")"
chmod 755 "$DATA"
cluster=""
stop() {
    trap - EXIT INT TERM
    if [ -n "$cluster" ]; then               # the cluster stops everything it started
        kill -TERM "$cluster" 2>/dev/null || true
        wait "$cluster" 2>/dev/null || true
    fi
    for log in "$DATA"/node*.log; do         # what the nodes said of their tables
        [ -e "$log" ] || continue
        echo "$(basename "$log" .log): $(grep -c 'taken over' "$log") tables taken over," \
            "$(grep -c 'no longer run here' "$log") lost to another node," \
            "$(grep -c '^ERROR' "$log") errors logged" >&2
        grep -o 'since it started: .*' "$log" | sed "s/^/  /" >&2 || true
        grep -A3 '^ERROR' "$log" | head -n 12 >&2 || true
    done
    rm -rf "$DATA"
}
trap stop EXIT INT TERM
bash scripts/cluster.sh --nodes "$NODES" --port "$PORT" --node-port "${NODE_PORT:-18101}" \
    --pg-port "${PG_PORT:-15432}" --redis-port "${REDIS_PORT:-16379}" --data "$DATA" \
    --python "$PY" -- --bot-delay "$BOT_DELAY" --allow-address 127.0.0.1/32 \
    --limit sockets_per_address=100 --limit tables_per_minute=20 \
    --limit waiting_total=100000 >"$DATA/cluster.out" 2>&1 &
cluster=$!
for _ in $(seq 1 600); do
    grep -q "^shangyou on" "$DATA/cluster.out" 2>/dev/null && break
    sleep 0.1
done
grep "^shangyou on" "$DATA/cluster.out" >&2
probes=()
for i in $(seq 1 "$NODES"); do
    probes+=(--probe "http://127.0.0.1:$(( ${NODE_PORT:-18101} + i - 1 ))")
done
"$PY" bench/load_server.py --url "http://127.0.0.1:$PORT" --pids "$DATA/run/pids" \
    --db "postgresql+psycopg://shangyou@127.0.0.1:${PG_PORT:-15432}/shangyou" "${probes[@]}" \
    --bot-delay "$BOT_DELAY" "$@"
