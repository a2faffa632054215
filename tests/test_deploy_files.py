"""The files of ``deploy/`` (docs/deploy.md, *A cluster with systemd*) stay in step with
``scripts/cluster.sh``, which the tests run: the node's systemd unit gives a node the options
the script gives it (from the environment) with the same stop signal and timeout; the proxy's
site file has the script's proxying, TLS and ``/metrics`` lines; Redis's file the script's
settings; the proxy's limit of the lobby's reads is the same in the script, the site file and
the tests' nginx. Each file is also checked by its own program: ``systemd-analyze verify``, ``nginx
-t`` (with a certificate made here by ``openssl``), ``redis-server`` started on it."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from nginx_server import CONF as NGINX_CONF
from nginx_server import find_nginx
from redis_server import find_redis_server
from test_cluster import WAIT, free_port

from shangyou.server.__main__ import parse_limits
from shangyou.server.metrics import Access
from shangyou.server.settings import LIMIT_PREFIX, ServerSettings

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = (ROOT / "scripts/cluster.sh").read_text()
DEPLOY = ROOT / "deploy"
UNIT = DEPLOY / "systemd/shangyou@.service"
ENV = DEPLOY / "systemd/shangyou.env"


def unit_entries(path: Path) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for line in path.read_text().splitlines():
        if line and not line.startswith(("#", "[")):
            key, _, value = line.partition("=")
            out.setdefault(key, []).append(value)
    return out


def env_file(path: Path) -> dict[str, str]:
    return dict(line.split("=", 1) for line in path.read_text().splitlines()
                if line and not line.startswith("#"))


def program(name: str) -> dict[str, str]:
    """A ``[program:...]`` section of the supervisord configuration the script writes."""
    out = {}
    for line in SCRIPT.split(f"[program:{name}]\n", 1)[1].splitlines():
        if "=" not in line or line.startswith(("[", "$")):
            break                                # the end of the section
        key, _, value = line.partition("=")
        out[key] = value
    return out


def test_the_node_unit_gives_the_options_the_script_gives():
    node = program("node$i")
    flags = set(re.findall(r"(--[a-z-]+)", node["command"].split("shangyou.server", 1)[1]))
    assert flags == {"--port", "--db", "--redis", "--node-id", "--affinity"}
    unit = unit_entries(UNIT)
    env = env_file(ENV)
    for e in unit["Environment"]:
        key, _, value = e.partition("=")
        env[key] = value
    for flag in flags:                          # each option from its variable, none a flag
        assert "SHANGYOU_" + flag[2:].upper().replace("-", "_") in env, flag
    (command,) = unit["ExecStart"]
    assert shlex.split(command)[1:] == ["-m", "shangyou.server"]   # no secret on it
    # the script's supervision, in systemd's words
    assert node["stopsignal"] == "TERM" and unit["KillSignal"] == ["SIGTERM"]
    assert unit["TimeoutStopSec"] == [node["stopwaitsecs"]]
    assert node["autorestart"] == "true" and unit["Restart"] == ["always"]
    assert "/healthz" in unit["ExecStartPost"][0]                  # as the script waits
    # every variable is a setting of the server, and every value one it takes
    settings, limits = {}, []
    assert env.pop("FORWARDED_ALLOW_IPS")         # uvicorn's, for the proxy's address
    for key, value in env.items():
        assert key.startswith("SHANGYOU_"), key
        if key.startswith(LIMIT_PREFIX):
            limits.append(f"{key[len(LIMIT_PREFIX):].lower()}={value}")
        elif "%" not in value:                   # (systemd fills in %i, %l)
            name = key[len("SHANGYOU_"):].lower()
            assert name in ServerSettings.model_fields, key
            settings[name] = value
    s = ServerSettings(**settings)
    assert s.url("db").startswith("postgresql") and s.url("redis").startswith("redis://")
    assert parse_limits(limits, LIMIT_PREFIX)
    Access(s.metrics_from)


def test_systemd_takes_the_unit(tmp_path):
    tool = shutil.which("systemd-analyze")
    if tool is None:
        pytest.fail("systemd-analyze was not found (Debian: apt-get install systemd; "
                    "scripts/test.sh does)", pytrace=False)
    # the unit as installed, its interpreter this one (verify checks that it exists)
    text = UNIT.read_text().replace("/opt/shangyou/.venv/bin/python", sys.executable)
    (tmp_path / "shangyou@.service").write_text(text)
    out = subprocess.run([tool, "verify", str(tmp_path / "shangyou@8101.service")],
                         capture_output=True, text=True, timeout=WAIT)
    assert out.returncode == 0 and "shangyou@" not in out.stdout + out.stderr, out


def script_lines(start: str, end: str) -> list[str]:
    """The lines of the script's nginx configuration from ``start`` to ``end`` (its shell
    escapes undone)."""
    text = SCRIPT.split(start, 1)[1].split(end, 1)[0]
    return [ln.strip().replace("\\$", "$").replace('\\"', '"')
            for ln in text.splitlines() if ln.strip()]


def block(text: str, start: str) -> list[str]:
    lines = text.split(start, 1)[1].split("}", 1)[0].splitlines()
    return [ln.strip() for ln in lines if ln.strip()]


def test_the_proxy_site_file_proxies_as_the_script_does(tmp_path):
    site = (DEPLOY / "nginx/shangyou.conf").read_text()
    plain = SCRIPT.split("listen 127.0.0.1:$PORT;", 1)[1]
    want = [ln.strip().replace("\\$", "$") for ln in
            plain.split("location / {", 1)[1].split("}", 1)[0].splitlines() if ln.strip()]
    assert block(site, "location / {") == want
    tls = [ln for ln in script_lines("ssl_certificate_key $TLS_KEY;", "location = /metrics")
           if ln != "$lobby_limit"]            # (the next test compares the lobby's limit)
    assert tls and all(ln in site for ln in tls), tls
    assert site.count("location = /metrics { return 404; }") == 1
    assert "return 301 https://$host$request_uri;" in site
    assert "max_fails=0" in site and "map $http_upgrade $connection_upgrade" in site
    # the script's table affinity: the same map of a table's id and the same hash
    affinity = script_lines("map \\$uri \\$shangyou_table {", "}")
    assert affinity and all(ln in site for ln in affinity), affinity
    assert "hash $shangyou_table$arg_via consistent;" in site

    nginx = find_nginx()
    if nginx is None:
        pytest.fail("nginx was not found (scripts/test.sh installs Debian's)", pytrace=False)
    cert, key = tmp_path / "c.pem", tmp_path / "k.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                    "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", str(key), "-out",
                    str(cert), "-days", "2", "-subj", "/CN=play.example.org"], check=True,
                   capture_output=True, timeout=WAIT)
    site = site.replace("/etc/letsencrypt/live/play.example.org/fullchain.pem", str(cert))
    site = site.replace("/etc/letsencrypt/live/play.example.org/privkey.pem", str(key))
    (tmp_path / "site.conf").write_text(site)
    (tmp_path / "tmp").mkdir()
    (tmp_path / "nginx.conf").write_text(
        f"pid {tmp_path}/nginx.pid;\nerror_log {tmp_path}/error.log;\nevents {{}}\n"
        f"http {{\n client_body_temp_path {tmp_path}/tmp;\n proxy_temp_path {tmp_path}/tmp;\n"
        f" include {tmp_path}/site.conf;\n}}\n")
    out = subprocess.run([str(nginx), "-t", "-p", str(tmp_path), "-e",
                          str(tmp_path / "error.log"), "-c", str(tmp_path / "nginx.conf")],
                         capture_output=True, text=True, timeout=WAIT)
    assert out.returncode == 0 and "test is successful" in out.stderr, out.stderr


def stripped(text: str) -> list[str]:
    return [ln.strip() for ln in text.splitlines() if ln.strip()]


def holds(lines: list[str], run: list[str]) -> bool:
    """``run`` appears in ``lines``, its lines one after the other."""
    return any(lines[i:i + len(run)] == run for i in range(len(lines) - len(run) + 1))


def test_the_lobby_limit_is_the_scripts_in_the_site_file_and_the_test_proxy():
    """The lobby's reads limited per address at the proxy (docs/deploy.md): the same zone
    (its map of the lobby's requests to the client's address) and the same limit with its
    JSON refusal in the script's proxy, the site file and tests/nginx_server.py."""
    plain = SCRIPT.replace("\\$", "$").replace('\\"', '"')
    head = 'map "$request_method $uri" $shangyou_lobby {'
    zone = [head] + stripped(plain.split(head, 1)[1].split("server {", 1)[0])
    limit = stripped(SCRIPT.split("lobby_limit=$(cat <<'LIMIT'", 1)[1].split("\nLIMIT\n", 1)[0])
    assert zone[0] == 'map "$request_method $uri" $shangyou_lobby {', zone
    assert zone[-1].startswith("limit_req_zone $shangyou_lobby zone=shangyou_lobby:"), zone
    assert limit[0].startswith("limit_req zone=shangyou_lobby burst="), limit
    assert "limit_req_status 429;" in limit
    refusal = limit[-2]
    assert refusal.startswith("return 429 '") and refusal.endswith("';"), limit
    body = json.loads(refusal[len("return 429 '"):-2])
    assert body["code"] == "rate_limited" and body["detail"] == body["message"]
    # the script puts the limit in each server that proxies: the plain one, and with TLS the
    # HTTPS one (its plain port then only redirects)
    assert "$lobby_limit" in script_lines("ssl_certificate_key $TLS_KEY;", "location / {")
    assert 'plain_extra="$lobby_limit\n' in SCRIPT
    site = stripped((DEPLOY / "nginx/shangyou.conf").read_text())
    fixture = stripped(NGINX_CONF.replace("{{", "{").replace("}}", "}"))
    for lines in (site, fixture):
        assert holds(lines, zone) and holds(lines, limit)
    # in the site file, in the server that proxies (not the one that redirects)
    https = site[site.index("listen 443 ssl;"):]
    assert holds(https, limit) and "location / {" in https[https.index(limit[-1]):]


def test_redis_file_has_the_scripts_settings_and_redis_takes_it(tmp_path):
    conf = DEPLOY / "redis/shangyou.conf"
    lines = [ln for ln in conf.read_text().splitlines() if ln and not ln.startswith("#")]
    limit = re.search(r'^PUBSUB_LIMIT="(.*)"$', SCRIPT, re.M).group(1)
    command = program("redis")["command"]
    assert '--save ""' in command and "--appendonly no" in command
    assert '--client-output-buffer-limit "$PUBSUB_LIMIT"' in command
    assert lines == ['save ""', "appendonly no", f"client-output-buffer-limit {limit}"]

    binary = find_redis_server()
    if binary is None:
        pytest.fail("redis-server was not found (scripts/test.sh installs Debian's)",
                    pytrace=False)
    port = free_port()
    proc = subprocess.Popen([str(binary), str(conf), "--port", str(port), "--bind",
                             "127.0.0.1", "--dir", str(tmp_path), "--daemonize", "no"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    try:
        import redis
        deadline = time.monotonic() + WAIT
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=2):
                    break
            except OSError:
                assert proc.poll() is None and time.monotonic() < deadline
                time.sleep(0.05)
        with redis.Redis(port=port) as r:
            r.ping()
            assert r.config_get("save") == {"save": ""}
            assert r.config_get("appendonly") == {"appendonly": "no"}
            buffers = r.config_get("client-output-buffer-limit")["client-output-buffer-limit"]
            assert "pubsub 536870912 134217728 60" in buffers
    finally:
        proc.terminate()
        proc.wait(WAIT)


def test_a_node_starts_from_the_units_environment_and_its_start_check_passes(tmp_path):
    """The unit's command line and environment (the example file's, on SQLite and alone: no
    database or Redis here) start a server, and the unit's ``ExecStartPost`` (curl,
    retrying) returns once it answers, as systemd waits for it."""
    unit = unit_entries(UNIT)
    port = free_port()
    env = {k: v for k, v in env_file(ENV).items()
           if k not in ("SHANGYOU_DB", "SHANGYOU_REDIS", "FORWARDED_ALLOW_IPS")}
    for e in unit["Environment"]:
        key, _, value = e.partition("=")
        env[key] = value.replace("%i", str(port)).replace("%l", "test")
    env.update(SHANGYOU_HOST="127.0.0.1", SHANGYOU_DATA=str(tmp_path))
    del env["SHANGYOU_NODE_ID"]                # a server alone (no Redis here) has none
    del env["SHANGYOU_AFFINITY"]               # ... nor a proxy hashing to several nodes
    argv = shlex.split(unit["ExecStart"][0])
    base = {k: v for k, v in os.environ.items() if not k.startswith("SHANGYOU_")}
    log = open(tmp_path / "node.log", "w")
    node = subprocess.Popen([sys.executable, *argv[1:]], env={**base, **env},
                            stdout=log, stderr=subprocess.STDOUT)
    try:
        check = shlex.split(unit["ExecStartPost"][0].replace("%i", str(port)))
        out = subprocess.run(check, capture_output=True, text=True, timeout=WAIT + 30)
        assert out.returncode == 0, (out, (tmp_path / "node.log").read_text())
        assert node.poll() is None
    finally:
        node.terminate()
        node.wait(WAIT)
        log.close()
