#!/usr/bin/env bash
# The web server as several nodes on this machine, with real components: Debian's PostgreSQL
# (a cluster made by initdb under the data folder, on 127.0.0.1:PG_PORT), Redis
# (127.0.0.1:REDIS_PORT, nothing saved), N server nodes (ports NODE_PORT, NODE_PORT+1, ...; run
# with --affinity) and nginx in front with WebSocket support on http://127.0.0.1:PORT/, sending
# every request of one table to one node (a consistent hash of its id). Redis, the nodes and nginx
# run under supervisord, which starts again any of them that stops: a node killed comes back
# by itself, and the other nodes serve its tables meanwhile. Installs what is missing
# (Debian's postgresql, redis-server and nginx with apt; the app with the web and cluster
# extras, supervisord included, into .venv). Ctrl-C (or `--stop` from another shell) stops
# everything (each node hands its tables on first); the database stays in the data folder for
# the next start.
#
#   bash scripts/cluster.sh [--nodes N] [--port P] [--node-port P] [--pg-port P]
#                           [--redis-port P] [--data DIR] [--python PY]
#                           [--tls-port P --tls-cert FILE --tls-key FILE] [-- NODE OPTIONS...]
#   bash scripts/cluster.sh --stop [--data DIR]
#   bash scripts/cluster.sh --restart [--data DIR]
#
# --nodes N: server nodes behind nginx (default 2; 1 gives the same proxy with one upstream);
# --port: nginx's port (default 8080); --node-port: the first node's port (default 8101);
# --pg-port, --redis-port: PostgreSQL's and Redis's (default 55432, 56379); --data: the folder
# of the database, the logs and the pid files (default ./data/cluster); --python: run the nodes
# with this interpreter as it is, installing nothing into .venv (supervisord is then its
# `supervisor` package, or Debian's); what follows `--` goes to every node (for example
# `-- --bot-delay 0.5 --allow-address 127.0.0.1/32`). The environment variables NODES, PORT,
# NODE_PORT, PG_PORT and REDIS_PORT set the same defaults.
# --tls-port with --tls-cert and --tls-key (PEM files): nginx also serves HTTPS and WSS on that
# port with this certificate (TLS 1.2 and 1.3, HSTS), and its plain port answers every request
# with a redirect (301) there. nginx answers 404 to /metrics on either port: Prometheus reads
# each node's own port (docs/deploy.md). TLS_PORT, TLS_CERT and TLS_KEY set the same defaults.
# `--stop` stops the cluster started on that data folder and waits until it is down.
# `--restart` restarts its nodes one after the other (a rolling restart: each node drains,
# handing its tables to the others, starts again and answers before the next one stops).
# supervisorctl works too: `supervisorctl -c DIR/supervisord.conf status` (or `restart node1`).
# docs/deploy.md says how to use a managed PostgreSQL and Redis instead.
set -euo pipefail
cd "$(dirname "$0")/.."
PORT="${PORT:-8080}"
NODES="${NODES:-2}"
NODE_PORT="${NODE_PORT:-8101}"
PG_PORT="${PG_PORT:-55432}"
REDIS_PORT="${REDIS_PORT:-56379}"
TLS_PORT="${TLS_PORT:-}"
TLS_CERT="${TLS_CERT:-}"
TLS_KEY="${TLS_KEY:-}"
PUBSUB_LIMIT="pubsub 512mb 128mb 60"
DATA="$(pwd)/data/cluster"
PY=""
STOP=""
RESTART=""
while [ $# -gt 0 ]; do
    case "$1" in
        --nodes) NODES="$2"; shift 2 ;;
        --port) PORT="$2"; shift 2 ;;
        --node-port) NODE_PORT="$2"; shift 2 ;;
        --pg-port) PG_PORT="$2"; shift 2 ;;
        --redis-port) REDIS_PORT="$2"; shift 2 ;;
        --data) mkdir -p "$2"; DATA="$(cd "$2" && pwd)"; shift 2 ;;
        --python) PY="$2"; shift 2 ;;
        --tls-port) TLS_PORT="$2"; shift 2 ;;
        --tls-cert) TLS_CERT="$2"; shift 2 ;;
        --tls-key) TLS_KEY="$2"; shift 2 ;;
        --stop) STOP=1; shift ;;
        --restart) RESTART=1; shift ;;
        --) shift; break ;;
        *) echo "cluster.sh: unknown option $1 (options for the nodes go after --)" >&2
           exit 2 ;;
    esac
done
case "$NODES" in
    ''|*[!0-9]*|0) echo "cluster.sh: --nodes: a number from 1" >&2; exit 2 ;;
esac
if [ -n "$TLS_PORT$TLS_CERT$TLS_KEY" ]; then
    if [ -z "$TLS_PORT" ] || [ ! -r "$TLS_CERT" ] || [ ! -r "$TLS_KEY" ]; then
        echo "cluster.sh: --tls-port needs --tls-cert and --tls-key (readable PEM files)" >&2
        exit 2
    fi
    TLS_CERT="$(cd "$(dirname "$TLS_CERT")" && pwd)/$(basename "$TLS_CERT")"
    TLS_KEY="$(cd "$(dirname "$TLS_KEY")" && pwd)/$(basename "$TLS_KEY")"
fi

running() {     # the process runs (a zombie only waits for its parent to read its status)
    kill -0 "$1" 2>/dev/null && ! grep -q '^[0-9]* (.*) Z' "/proc/$1/stat" 2>/dev/null
}
if [ -n "$STOP$RESTART" ]; then
    pidfile="$DATA/run/cluster.pid"
    if [ ! -s "$pidfile" ] || ! running "$(cat "$pidfile")"; then
        echo "no cluster runs on $DATA" >&2
        exit 1
    fi
    pid="$(cat "$pidfile")"
    if [ -n "$STOP" ]; then
        kill -TERM "$pid"
        while running "$pid"; do sleep 0.2; done
        echo "stopped the cluster on $DATA"
        exit 0
    fi
    # the rolling restart: supervisorctl stops a node with SIGTERM (it drains) and waits for
    # it, starts it again, and the node answers /healthz before the next one goes
    read -r -a CTL <"$DATA/run/supervisorctl"
    while read -r name port; do
        "${CTL[@]}" -c "$DATA/supervisord.conf" restart "$name" >/dev/null
        for _ in $(seq 1 600); do
            curl -fs "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
            sleep 0.1
        done
        echo "restarted $name"
    done <"$DATA/run/nodes"
    exit 0
fi
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
if [ -z "$PY" ]; then
    python3 -m venv .venv
    .venv/bin/python -m pip install -q --disable-pip-version-check -c requirements.lock \
        -e '.[web,cluster]'
    PY=.venv/bin/python
fi
PY="$(command -v "$PY")" || { echo "cluster.sh: --python: no such program" >&2; exit 2; }
case "$PY" in /*) ;; *) PY="$(pwd)/$PY" ;; esac
# supervisord: the nodes' Python's (the cluster extra), else Debian's
if "$PY" -c "import supervisor" 2>/dev/null; then
    SUPERVISORD=("$PY" -m supervisor.supervisord)
    SUPERVISORCTL=("$PY" -m supervisor.supervisorctl)
else
    if ! command -v supervisord >/dev/null 2>&1; then
        need supervisord supervisor
        # Debian's package starts a supervisord of the system; this cluster runs its own
        $SUDO systemctl disable --now supervisor >/dev/null 2>&1 || true
    fi
    SUPERVISORD=(supervisord)
    SUPERVISORCTL=(supervisorctl)
fi

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

supervisor=""
cleanup() {
    trap - EXIT INT TERM
    if [ -n "$supervisor" ]; then         # it stops what it runs: the nodes drain first
        kill -TERM "$supervisor" 2>/dev/null || true
        wait "$supervisor" 2>/dev/null || true
    fi
    "${AS[@]}" "$PG_BIN/pg_ctl" -D "$DATA/pg" -m fast stop >/dev/null 2>&1 || true
    rm -f "$DATA/run/cluster.pid" "$DATA/run/pids"
}
trap cleanup EXIT INT TERM
echo $$ >"$DATA/run/cluster.pid"
: >"$DATA/run/pids"        # "name pid" of each process of the cluster (bench/load_server.py)
: >"$DATA/run/nodes"       # "name port" of each node (--restart)
echo "${SUPERVISORCTL[*]}" >"$DATA/run/supervisorctl"

"${AS[@]}" "$PG_BIN/pg_ctl" -D "$DATA/pg" -l "$DATA/postgres.log" -w -o \
    "-p $PG_PORT -k $DATA/run -c listen_addresses=127.0.0.1" start >/dev/null
if ! "${AS[@]}" "$PG_BIN/psql" -h 127.0.0.1 -p "$PG_PORT" -U shangyou -d postgres -tAc \
        "SELECT 1 FROM pg_database WHERE datname = 'shangyou'" | grep -q 1; then
    "${AS[@]}" "$PG_BIN/createdb" -h 127.0.0.1 -p "$PG_PORT" -U shangyou shangyou
fi
echo "postgres $(head -n 1 "$DATA/pg/postmaster.pid")" >>"$DATA/run/pids"

q() {           # one word quoted for supervisord's command line (it splits as a shell does)
    local s="$1"
    printf '"%s"' "${s//\"/\\\"}"
}
node_args=""
for arg in "$@"; do node_args+=" $(q "$arg")"; done
DB="postgresql://shangyou@127.0.0.1:$PG_PORT/shangyou"
upstream=""
programs=""
for i in $(seq 1 "$NODES"); do
    port=$((NODE_PORT + i - 1))
    echo "node$i $port" >>"$DATA/run/nodes"
    # max_fails=0: a dead node refuses at once and the next is tried; no live node is ever
    # set aside for a failure (it would leave a paused node all the new sockets)
    upstream+="        server 127.0.0.1:$port max_fails=0;"$'\n'
    # stopped with SIGTERM: the node drains (hands its tables on) within stopwaitsecs
    programs+="
[program:node$i]
command=$(q "$PY") -m shangyou.server --port $port --db $(q "$DB") --redis $(q "redis://127.0.0.1:$REDIS_PORT/0") --node-id node$i --affinity$node_args
directory=$(pwd)
stdout_logfile=$DATA/node$i.log
stdout_logfile_maxbytes=0
redirect_stderr=true
autorestart=true
startsecs=1
startretries=1000
stopsignal=TERM
stopwaitsecs=40
"
done
# a % in a value would be read by supervisord as an expansion
programs="${programs//%/%%}"

# the lobby's reads limited per client address at the proxy (docs/security.md, *Lobby reads at
# the proxy*): past the burst, nginx itself answers 429 with the server's JSON error, so a
# flood never reaches a node's event loop; in each server that proxies
lobby_limit=$(cat <<'LIMIT'
        limit_req zone=shangyou_lobby burst=40 nodelay;
        limit_req_status 429;
        limit_req_log_level info;
        error_page 429 = @shangyou_rate_limited;
        location @shangyou_rate_limited {
            default_type application/json;
            return 429 '{"code":"rate_limited","detail":"too many lobby reads from your address; try again shortly","message":"too many lobby reads from your address; try again shortly"}';
        }
LIMIT
)
# the proxy's own answers: /metrics is for each node's scraper, never for the public; with
# TLS, the plain port sends every request to HTTPS, and HTTPS serves what the plain port did
plain_extra="$lobby_limit
        location = /metrics { return 404; }"
tls_server=""
if [ -n "$TLS_PORT" ]; then
    plain_extra="        return 301 https://\$host:$TLS_PORT\$request_uri;"
    tls_server="
    server {
        listen 127.0.0.1:$TLS_PORT ssl;
        ssl_certificate $TLS_CERT;
        ssl_certificate_key $TLS_KEY;
        ssl_protocols TLSv1.2 TLSv1.3;
        ssl_session_cache shared:tls:10m;
        ssl_session_timeout 1h;
        add_header Strict-Transport-Security \"max-age=63072000\" always;
$lobby_limit
        location = /metrics { return 404; }
        location / {
            proxy_pass http://shangyou;
            proxy_http_version 1.1;
            proxy_set_header Upgrade \$http_upgrade;
            proxy_set_header Connection \$connection_upgrade;
            proxy_set_header Host \$http_host;
            proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;
            proxy_set_header X-Forwarded-Proto \$scheme;
            proxy_read_timeout 1h;
            proxy_connect_timeout 2s;
            proxy_next_upstream error timeout;
        }
    }"
fi

cat >"$DATA/nginx/nginx.conf" <<EOF
worker_processes 1;
pid $DATA/nginx/nginx.pid;
error_log $DATA/nginx/logs/error.log warn;
worker_rlimit_nofile 65536;
events { worker_connections 16384; }
http {
    access_log off;
    # table affinity: every request of one table (its socket /ws/ID, its page /t/ID) goes to
    # one node, by a consistent hash of the id; the rest spread at random. A node that is down
    # refuses at once and the table's next node of the ring is tried (proxy_next_upstream); a
    # page that gave up a silent (paused) node names its next attempt (?via=N), hashed too
    map \$uri \$shangyou_table {
        ~^/(?:ws|t)/(?<shangyou_id>[^/]+)\$ \$shangyou_id;
        default \$request_id;
    }
    upstream shangyou {
        hash \$shangyou_table\$arg_via consistent;
$upstream    }
    map \$http_upgrade \$connection_upgrade { default upgrade; '' close; }
    # lobby reads (what the lobby page polls: GET /api/tables and /api/matches) counted per
    # client address: 4 a second (the server's 120 pages a minute, and as many match lists),
    # bursts of 40; every other request has no key and is not counted
    map "\$request_method \$uri" \$shangyou_lobby {
        "~^(?:GET|HEAD) /api/(?:tables|matches)\$" \$binary_remote_addr;
        default "";
    }
    limit_req_zone \$shangyou_lobby zone=shangyou_lobby:10m rate=4r/s;
    server {
        listen 127.0.0.1:$PORT;
$plain_extra
        location / {
            proxy_pass http://shangyou;
            proxy_http_version 1.1;
            proxy_set_header Upgrade \$http_upgrade;
            proxy_set_header Connection \$connection_upgrade;
            proxy_set_header Host \$http_host;
            proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;
            proxy_set_header X-Forwarded-Proto \$scheme;
            proxy_read_timeout 1h;
            proxy_connect_timeout 2s;
            proxy_next_upstream error timeout;
        }
    }$tls_server
}
EOF

# a node that falls behind reading its channel is not cut off at Redis's default pubsub limit
# (32 MB at once, or 8 MB for 60 s): it may hold 512 MB, or 128 MB for 60 s (docs/deploy.md)
REDIS_SERVER="$(command -v redis-server || echo /usr/bin/redis-server)"
cat >"$DATA/supervisord.conf" <<EOF
[supervisord]
nodaemon=true
logfile=$DATA/supervisord.log
logfile_maxbytes=0
pidfile=$DATA/run/supervisord.pid
directory=$(pwd)

[unix_http_server]
file=$DATA/run/supervisor.sock
chmod=0700

[rpcinterface:supervisor]
supervisor.rpcinterface_factory = supervisor.rpcinterface:make_main_rpcinterface

[supervisorctl]
serverurl=unix://$DATA/run/supervisor.sock

[program:redis]
command=$(q "$REDIS_SERVER") --port $REDIS_PORT --bind 127.0.0.1 --save "" --appendonly no --client-output-buffer-limit "$PUBSUB_LIMIT" --dir $(q "$DATA") --logfile $(q "$DATA/redis.log")
autorestart=true
startsecs=0
startretries=1000
priority=10
$programs
[program:nginx]
command=$(q "$NGINX") -p $(q "$DATA/nginx") -e $(q "$DATA/nginx/logs/error.log") -c $(q "$DATA/nginx/nginx.conf") -g "daemon off;"
autorestart=true
startsecs=0
startretries=1000
priority=900
EOF
"${SUPERVISORD[@]}" -c "$DATA/supervisord.conf" >"$DATA/supervisord.out" 2>&1 &
supervisor=$!

for i in $(seq 1 "$NODES"); do
    for _ in $(seq 1 600); do
        curl -fs "http://127.0.0.1:$((NODE_PORT + i - 1))/healthz" >/dev/null 2>&1 && break
        sleep 0.1
    done
done
for name in redis $(seq -f "node%g" 1 "$NODES") nginx; do
    echo "$name $("${SUPERVISORCTL[@]}" -c "$DATA/supervisord.conf" pid "$name")" \
        >>"$DATA/run/pids"
done
echo "shangyou on $NODES node$([ "$NODES" = 1 ] || echo s): http://127.0.0.1:$PORT/ (nginx; logs in $DATA)"
[ -z "$TLS_PORT" ] || echo "and https://127.0.0.1:$TLS_PORT/ (TLS; the plain port redirects there)"
wait "$supervisor" || true
echo "supervisord stopped; stopping the rest" >&2
