"""``GET /metrics`` (server/metrics.py): who may read it, and its counters moving when play
happens on two real nodes (real PostgreSQL and Redis) that take their settings, passwords
included, from the environment: no secret shows in their logs, ``/readyz`` or ``/metrics``.
The scrapes are parsed with prometheus-client's own parser."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest
import redis
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families
from test_cluster import WAIT, Client, Node, free_port

from shangyou.bots.base import make_bot
from shangyou.server.app import create_app
from shangyou.server.limits import Limits

pytestmark = pytest.mark.timeout(300)

TOKEN = "t0ken-for-the-scraper-only-42"


def samples(text: str) -> dict[tuple, float]:
    """``(name, ((label, value), ...)) -> value`` of every sample of a scrape."""
    out = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


def value(scrape: dict, name: str, **labels) -> float:
    return scrape.get((name, tuple(sorted(labels.items()))), 0.0)


def test_only_allowed_addresses_or_the_bearer_token_read_metrics(tmp_path, monkeypatch):
    monkeypatch.setenv("SHANGYOU_METRICS_TOKEN", TOKEN)
    app = create_app(data_dir=tmp_path, bot_delay=0,
                     limits=Limits(metrics_from=("127.0.0.1/32", "192.0.2.0/24")))
    with TestClient(app, client=("127.0.0.1", 4000)) as local, \
            TestClient(app, client=("192.0.2.7", 4000)) as listed, \
            TestClient(app, client=("203.0.113.9", 4000)) as stranger:
        r = local.get("/metrics")
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/plain")
        assert value(samples(r.text), "shangyou_tables", status="waiting") == 0
        assert listed.get("/metrics").status_code == 200
        refused = stranger.get("/metrics")
        assert refused.status_code == 403 and refused.json()["code"] == "forbidden"
        for wrong in (f"Bearer {TOKEN}x", f"Basic {TOKEN}", TOKEN, "Bearer "):
            assert stranger.get("/metrics", headers={"Authorization": wrong}).status_code \
                == 403, wrong
        ok = stranger.get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"})
        assert ok.status_code == 200
        # the refusals themselves are counted, by status
        assert value(samples(ok.text), "shangyou_http_responses_total", status="403") >= 5


class EnvNode(Node):
    """A node whose settings all come from the environment, but for ``--port``."""

    def __init__(self, tmp_path, name: str, env: dict[str, str]):
        self.name = name
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.output = tmp_path / f"node-{name}.log"
        self.out = open(self.output, "w")
        self.texts: list[str] = []            # every scrape of its /metrics
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "shangyou.server", "--port", str(self.port)],
            env={**os.environ, **env, "SHANGYOU_NODE_ID": name,
                 "SHANGYOU_DATA": str(tmp_path / f"data-{name}")},
            stdout=self.out, stderr=subprocess.STDOUT, text=True)
        self.wait_up("the node")

    def scrape(self) -> dict:
        with urllib.request.urlopen(self.base + "/metrics", timeout=10) as r:
            text = r.read().decode()
        self.texts.append(text)
        return samples(text)


def test_counters_move_when_two_nodes_configured_from_the_environment_play(
        tmp_path, pg_url, redis_url):
    redis_pw, db_pw = "Redis-Pass-7c41e", "Db-Pass-93ab0"
    with redis.Redis.from_url(redis_url) as r:        # Redis asks for a password from now on
        r.config_set("requirepass", redis_pw)
    env = {"SHANGYOU_DB": pg_url.replace("@", f":{db_pw}@", 1),
           "SHANGYOU_REDIS": redis_url.replace("redis://", f"redis://:{redis_pw}@", 1),
           "SHANGYOU_BOT_DELAY": "0", "SHANGYOU_LOG_LEVEL": "info",
           # flags win: --port is given, this one is not used
           "SHANGYOU_PORT": str(free_port()),
           "SHANGYOU_LIMIT_TABLES_PER_MINUTE": "1"}
    a, b = EnvNode(tmp_path, "a", env), EnvNode(tmp_path, "b", env)
    nodes = (a, b)
    try:
        before = {n.name: n.scrape() for n in nodes}
        made = a.post("/api/play", {"game": "zheng-shangyou/owen", "players": 2,
                                    "options": {"target": 4}, "bots": "heuristic",
                                    "room": {"hints": "off"}})
        table_id = made["table_id"]                 # its bot thinks in a worker process
        person = Client(a, table_id, made["token"], "Ann")      # the table runs on a
        spectator = Client(b, table_id, name="Cy")              # relayed through b
        assert person.seat == 0 and spectator.seat is None
        bot = make_bot("greedy", 1)
        state = person.until(lambda s: s["view"] is not None and s["view"]["to_act"] == 0)
        moves = 0
        while moves < 4 and state["view"]["phase"] != "over":
            state = person.play(bot, state)
            moves += 1
            state = person.until(lambda s: s["view"]["phase"] == "over"
                                 or s["view"]["to_act"] == 0)
        spectator.until(lambda s: s["version"] >= state["version"])
        person.ws.send("{not json")                             # an error, by its code
        deadline = time.monotonic() + WAIT
        while not any(e["code"] == "bad_json" for e in person.errors):
            person.recv(max(0.1, deadline - time.monotonic()))
        # the table limit of the environment: one a minute from one address (bursts of one)
        codes = []
        for _ in range(3):
            try:
                b.post("/api/tables", {"game": "zheng-shangyou/owen", "players": 2})
                codes.append(200)
            except urllib.error.HTTPError as e:
                codes.append(e.code)
        assert 429 in codes, codes

        # the leases are renewed several times a lease: wait for a renewal on each
        deadline = time.monotonic() + WAIT
        while not all(value(n.scrape(), "shangyou_lease_renewals_total") > 0 for n in nodes):
            assert time.monotonic() < deadline, "no lease renewal counted"
            time.sleep(0.2)
        after_a, after_b = a.scrape(), b.scrape()

        def delta(name, node="a", **labels):
            now = after_a if node == "a" else after_b
            return value(now, name, **labels) - value(before[node], name, **labels)

        assert delta("shangyou_moves_total", who="person") == moves
        assert delta("shangyou_moves_total", who="bot") >= 1
        assert delta("shangyou_moves_total", "b", who="person") == 0   # a runs the table
        assert delta("shangyou_store_call_seconds_count", call="add_moves") >= 1
        assert delta("shangyou_worker_jobs_total", lane="bots", kind="bot", event="done") >= 1
        assert value(after_a, "shangyou_tables", status="playing") + \
            value(after_a, "shangyou_tables", status="over") >= 1
        assert value(after_a, "shangyou_sockets", kind="local") == 1
        assert value(after_a, "shangyou_sockets", kind="remote") == 1
        assert value(after_b, "shangyou_sockets", kind="gateway") == 1
        assert delta("shangyou_relay_messages_total", direction="sent") >= 1
        assert delta("shangyou_relay_messages_total", "b", direction="received") >= 1
        assert value(after_a, "shangyou_relay_up") == 1
        assert delta("shangyou_socket_errors_total", code="bad_json") == 1
        assert delta("shangyou_http_responses_total", "b", status="429") >= 1
        assert value(after_a, "shangyou_store_queue") >= 0
        assert value(after_a, "process_resident_memory_bytes") > 0

        ready = urllib.request.urlopen(a.base + "/readyz", timeout=10).read().decode()
        assert json.loads(ready)["ready"] is True
        commands = [open(f"/proc/{n.proc.pid}/cmdline").read() for n in nodes]
    finally:
        for n in nodes:
            n.stop()
    # no secret anywhere an operator or a visitor reads, nor on the command line
    logs = "".join(n.output.read_text() for n in nodes)
    assert f"node a of several (Redis redis://:***@127.0.0.1" in logs
    shown = [logs, ready, *commands, *a.texts, *b.texts]
    for secret in (redis_pw, db_pw):
        assert not any(secret in text for text in shown), secret
    # nor a table id, a token or a name in the metrics
    for text in a.texts + b.texts:
        for private in (table_id, made["token"], "Ann", "Cy"):
            assert private not in text
