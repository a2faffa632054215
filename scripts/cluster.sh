#!/usr/bin/env bash
# The web server as several nodes on this machine, with real components: Debian's PostgreSQL
# (a cluster made by initdb under ./data/cluster/pg, on 127.0.0.1:$PG_PORT), Redis
# (127.0.0.1:$REDIS_PORT, nothing saved), $NODES server nodes (ports 8101, 8102, ...) and nginx
# in front with WebSocket support on http://127.0.0.1:$PORT/. Installs what is missing (Debian's
# postgresql, redis-server and nginx with apt; the app with the web and cluster extras into
# .venv). Ctrl-C stops everything; the database stays in ./data/cluster for the next start.
# docs/deploy.md says how to use a managed PostgreSQL and Redis instead.
set -euo pipefail
cd "$(dirname "$0")/.."
PORT="${PORT:-8080}"
NODES="${NODES:-2}"
PG_PORT="${PG_PORT:-55432}"
REDIS_PORT="${REDIS_PORT:-56379}"
DATA="$(pwd)/data/cluster"
SUDO=""
[ "$(id -u)" = 0 ] || SUDO="sudo"

need() {        # a Debian package, when its program is missing
    if ! command -v "$1" >/dev/null 2>&1 && [ ! -x "/usr/sbin/$1" ] && [ ! -x "/usr/bin/$1" ] \
            && ! compgen -G "/usr/lib/postgresql/*/bin/$1" >/dev/null; then
        echo "installing Debian's $2 ..." >&2
        $SUDO apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$2" >/dev/null
    fi
}
need initdb postgresql
need redis-server redis-server
need nginx nginx
python3 -m venv .venv
.venv/bin/python -m pip install -q --disable-pip-version-check -c requirements.lock \
    -e '.[web,cluster]'

# PostgreSQL's programs: beside the initdb on the PATH (links followed), else Debian's newest
PG_BIN=""
if command -v initdb >/dev/null 2>&1; then
    PG_BIN="$(dirname "$(readlink -f "$(command -v initdb)")")"
fi
if [ -z "$PG_BIN" ] || [ ! -x "$PG_BIN/psql" ]; then
    PG_BIN="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)"
fi
NGINX="$(command -v nginx || echo /usr/sbin/nginx)"
mkdir -p "$DATA/nginx/logs" "$DATA/run"
AS=()                   # PostgreSQL refuses to run as root: as root, run it as 'postgres'
if [ "$(id -u)" = 0 ]; then
    AS=(runuser -u postgres --)
    chown postgres "$DATA" "$DATA/run"
fi
if [ ! -s "$DATA/pg/PG_VERSION" ]; then
    "${AS[@]}" "$PG_BIN/initdb" -D "$DATA/pg" -U shangyou --auth=trust -E UTF8 --no-locale \
        >"$DATA/initdb.log"
fi

pids=()
cleanup() {
    trap - EXIT INT TERM
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    "${AS[@]}" "$PG_BIN/pg_ctl" -D "$DATA/pg" -m fast stop >/dev/null 2>&1 || true
}
trap cleanup EXIT INT TERM

"${AS[@]}" "$PG_BIN/pg_ctl" -D "$DATA/pg" -l "$DATA/postgres.log" -w -o \
    "-p $PG_PORT -k $DATA/run -c listen_addresses=127.0.0.1" start >/dev/null
if ! "${AS[@]}" "$PG_BIN/psql" -h 127.0.0.1 -p "$PG_PORT" -U shangyou -d postgres -tAc \
        "SELECT 1 FROM pg_database WHERE datname = 'shangyou'" | grep -q 1; then
    "${AS[@]}" "$PG_BIN/createdb" -h 127.0.0.1 -p "$PG_PORT" -U shangyou shangyou
fi
redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save "" --appendonly no \
    --dir "$DATA" --logfile "$DATA/redis.log" &
pids+=($!)

DB="postgresql://shangyou@127.0.0.1:$PG_PORT/shangyou"
upstream=""
for i in $(seq 1 "$NODES"); do
    port=$((8100 + i))
    .venv/bin/python -m shangyou.server --port "$port" --db "$DB" \
        --redis "redis://127.0.0.1:$REDIS_PORT/0" --node-id "node$i" "$@" \
        >"$DATA/node$i.log" 2>&1 &
    pids+=($!)
    upstream+="        server 127.0.0.1:$port;"$'\n'
done

cat >"$DATA/nginx/nginx.conf" <<EOF
worker_processes 1;
pid $DATA/nginx/nginx.pid;
error_log $DATA/nginx/logs/error.log warn;
events { worker_connections 4096; }
http {
    access_log off;
    upstream shangyou {
$upstream    }
    map \$http_upgrade \$connection_upgrade { default upgrade; '' close; }
    server {
        listen 127.0.0.1:$PORT;
        location / {
            proxy_pass http://shangyou;
            proxy_http_version 1.1;
            proxy_set_header Upgrade \$http_upgrade;
            proxy_set_header Connection \$connection_upgrade;
            proxy_set_header Host \$http_host;
            proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;
            proxy_read_timeout 1h;
            proxy_next_upstream error timeout;
        }
    }
}
EOF
"$NGINX" -p "$DATA/nginx" -e "$DATA/nginx/logs/error.log" -c "$DATA/nginx/nginx.conf" \
    -g "daemon off;" &
pids+=($!)

for i in $(seq 1 "$NODES"); do
    for _ in $(seq 1 600); do
        curl -fs "http://127.0.0.1:$((8100 + i))/healthz" >/dev/null 2>&1 && break
        sleep 0.1
    done
done
echo "shangyou on $NODES nodes: http://127.0.0.1:$PORT/ (nginx; logs in data/cluster/)"
wait -n "${pids[@]}"
echo "a process of the cluster stopped; stopping the rest" >&2
