#!/usr/bin/env bash
# Install everything (extras web, test, env, tournament, cluster, train, research, at the exact
# versions of requirements.lock) into .venv (Debian's chromium and a Chinese font for the browser
# tests, PostgreSQL's programs for the store tests, redis-server for the tests of several nodes
# and nginx for the chaos tests, if missing, and axe-core into node_modules/ with npm) and run the
# whole test suite. Extra arguments go to pytest
# (e.g. `bash scripts/test.sh --playouts 2000` for the large random-playout run).
set -euo pipefail
cd "$(dirname "$0")/.."
SUDO=""
[ "$(id -u)" = 0 ] || SUDO="sudo"
apt_install() {     # apt_install PACKAGE WHY: Debian's package, said on standard error
    echo "installing Debian's $1 $2 ..." >&2
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$1" >/dev/null
}
if ! command -v chromium >/dev/null 2>&1 && [ ! -x /usr/bin/chromium ]; then
    apt_install chromium "for the browser tests"
fi
if ! fc-list :lang=zh 2>/dev/null | grep -q .; then
    # a Chinese font, so the screenshots of the table in Chinese show characters, not boxes
    apt_install fonts-wqy-microhei "(a Chinese font) for the browser tests' screenshots"
fi
if ! command -v initdb >/dev/null 2>&1 && ! compgen -G '/usr/lib/postgresql/*/bin/initdb' \
        >/dev/null && ! { command -v pg_config >/dev/null 2>&1 &&
                          [ -x "$(pg_config --bindir)/initdb" ]; }; then
    # the store tests start their own PostgreSQL server (tests/pg_server.py) from its programs
    apt_install postgresql "for the store tests"
fi
if ! command -v redis-server >/dev/null 2>&1 && [ ! -x /usr/bin/redis-server ]; then
    # the tests of several nodes start their own Redis server (tests/redis_server.py)
    apt_install redis-server "for the tests of several nodes"
    # Debian's package starts a system Redis on port 6379; the tests start their own
    $SUDO systemctl disable --now redis-server >/dev/null 2>&1 || true
fi
if ! command -v openssl >/dev/null 2>&1; then
    # the fairness docs' shell recipes are run by the tests (tests/test_fair_moves.py)
    apt_install openssl "for the shell recipes of docs/fairness.md"
fi
if ! command -v nginx >/dev/null 2>&1 && [ ! -x /usr/sbin/nginx ]; then
    # the chaos tests put nginx in front of their nodes (tests/nginx_server.py)
    apt_install nginx "for the chaos tests"
    # Debian's package may start a system nginx on port 80; the tests start their own
    $SUDO systemctl disable --now nginx >/dev/null 2>&1 || true
fi
if ! command -v systemd-analyze >/dev/null 2>&1; then
    # the deployment's systemd unit is checked with systemd-analyze (tests/test_deploy_files.py)
    apt_install systemd "for the check of deploy/systemd"
fi
# axe-core (the accessibility scanner of the browser tests), pinned in package.json
npm ci --no-audit --no-fund --silent
python3 -m venv .venv
.venv/bin/python -m pip install -q --disable-pip-version-check -c requirements.lock \
    -e '.[web,test,env,tournament,cluster,train,research]'
exec .venv/bin/python -m pytest -n auto -q "$@"
