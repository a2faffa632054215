"""Abuse of the shared worker processes (docs/security.md "Limits", docs/operations.md "Worker
processes"): a hint flood with reconnects (the same seat on new sockets in a loop), hints from
several seats and a review flood, side by side with tables of heuristic bots.

A real server (uvicorn, real sockets) runs in a thread of this process, so that the test can
look at its lanes and counters (the review flood also comes from 127.0.0.2 to 127.0.0.4: Linux
answers on the whole of 127.0.0.0/8). The advice lane's one worker is held by a job that waits
for a file (a long review decision, in effect) while the flood comes: what is refused, what
waits and whether the bots go on does not depend on how fast the machine is."""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import signal
import threading
import time
from pathlib import Path

import pytest
import uvicorn
from test_server_budget import hold
from test_server_workers import free_port
from websockets.sync.client import connect

from shangyou.server import create_app
from shangyou.server.limits import Limits

pytestmark = pytest.mark.timeout(300)

WAIT = 60.0


class ThreadServer:
    """The app under uvicorn on a free port, in a thread with its own event loop."""

    def __init__(self, tmp_path: Path, limits: Limits):
        self.app = create_app(data_dir=tmp_path / "data", bot_delay=0, limits=limits)
        self.port = free_port()
        self.server = uvicorn.Server(uvicorn.Config(self.app, host="127.0.0.1", port=self.port,
                                                   log_level="warning"))
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_until_complete,
                                       args=(self.server.serve(),), daemon=True)
        self.thread.start()
        wait(lambda: self.server.started, "the server did not start")
        self.manager = self.app.state.manager

    def call(self, fn):
        """``fn()`` run in the server's loop (its state is read and changed there only)."""
        async def run():
            return fn()
        return asyncio.run_coroutine_threadsafe(run(), self.loop).result(WAIT)

    def http(self, method: str, path: str, body: dict | None = None,
             source: str = "127.0.0.1") -> tuple[int, dict]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=WAIT,
                                          source_address=(source, 0))
        try:
            conn.request(method, path, body=json.dumps(body) if body is not None else None,
                         headers={"Content-Type": "application/json"})
            r = conn.getresponse()
            return r.status, json.loads(r.read())
        finally:
            conn.close()

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(WAIT)
        self.loop.close()


def wait(pred, what: str):
    deadline = time.monotonic() + WAIT
    while True:
        out = pred()
        if out:
            return out
        assert time.monotonic() < deadline, what
        time.sleep(0.02)


class Socket:
    def __init__(self, server: ThreadServer, table_id: str, token: str | None, name="x"):
        self._cm = connect(f"ws://127.0.0.1:{server.port}/ws/{table_id}", open_timeout=WAIT,
                           max_queue=None)
        self.ws = self._cm.__enter__()
        self.send({"type": "hello", "token": token, "name": name})
        self.welcome = self.next("welcome")
        self.state = self.next("state")

    def send(self, msg: dict) -> None:
        self.ws.send(json.dumps(msg))

    def next(self, *types: str) -> dict:
        """The next message of these types (others are skipped; a state is remembered)."""
        while True:
            msg = json.loads(self.ws.recv(timeout=WAIT))
            if msg["type"] == "state":
                self.state = msg
            if msg["type"] in types:
                return msg

    def close(self) -> None:
        self._cm.__exit__(None, None, None)


def table(server: ThreadServer, bots: str, players: int, target: int,
          seated: bool) -> tuple[str, Socket]:
    """A started table: bots at every seat, or a person at seat 0 and bots at the others (with
    the heuristic's hints: a few milliseconds each, so the test holds the worker itself)."""
    code, created = server.http("POST", "/api/tables", {
        "game": "zheng-shangyou/owen", "players": players, "options": {"target": target},
        "bots": bots, **({"room": {"hints": "heuristic"}} if seated else {})})
    assert code == 200, created
    tid = created["table_id"]
    s = Socket(server, tid, created["host_token"])
    if seated:
        s.send({"type": "sit", "seat": 0})
        s.token = s.next("welcome")["token"]
    s.send({"type": "bots"})
    s.send({"type": "start"})
    # started before the caller may close the socket (a message still waiting when its
    # socket closes is dropped: on a busy machine the start would be)
    while s.state["table"]["status"] == "waiting":
        s.next("state")
    return tid, s


def my_turn(s: Socket) -> None:
    while not (s.state["view"] and s.state["view"].get("to_act") == 0):
        s.next("state")


def answer(s: Socket) -> dict:
    """The answer to the hint just asked: a hint or an error."""
    return s.next("hint", "error")


def test_hint_and_review_floods_do_not_hold_up_the_bots(tmp_path):
    # every person here comes from 127.0.0.1: four hints of theirs may be in flight at once
    # (the default, two, is checked in test_server_budget.py), so that the queue fills
    limits = Limits(hint_queue=2, hints_per_minute_seat=1, hints_in_flight_address=4,
                    review_jobs=2, reviews_per_minute_address=1,
                    review_requests_per_minute_address=20)
    server = ThreadServer(tmp_path, limits)
    gate = str(tmp_path / "gate")
    sockets: list[Socket] = []
    m = server.manager
    try:
        # a finished match to review (3 seats), then two tables of heuristic bots
        tid, host = table(server, "greedy", 3, 1, seated=False)
        sockets.append(host)
        while host.state["table"]["status"] != "over":
            host.next("state")
        match_id = host.state["table"]["match_id"]
        server.call(lambda: setattr(server.app.state.reviews, "worlds", 4))
        server.call(lambda: setattr(server.app.state.reviews, "seconds", None))
        busy_tables = []
        for _ in range(2):
            tid, host = table(server, "heuristic", 2, 1000, seated=False)
            host.close()                  # the bots play on without anybody watching
            busy_tables.append(tid)
        # five people alone with greedy bots, each on their turn; hints: heuristic
        people = {}
        for name in "ABCDE":
            tid, s = table(server, "greedy", 2, 1000, seated=True)
            my_turn(s)
            people[name] = (tid, s)
            sockets.append(s)
        # one hint a minute for a seat (the first one starts the advice worker)
        e = people["E"][1]
        e.send({"type": "hint"})
        assert answer(e)["type"] == "hint"
        e.send({"type": "hint"})
        refused = answer(e)
        assert refused["code"] == "rate_limited" and "for your seat" in refused["message"]

        # the advice lane's only worker is busy (a long review decision, in effect)
        held = []
        server.call(lambda: held.append(
            asyncio.ensure_future(m.work.advice.submit(hold, gate, "held", kind="review"))))
        wait(lambda: server.call(lambda: m.work.advice.running["review"] == 1),
             "the advice worker did not start")
        versions = server.call(lambda: [m.tables[t].version for t in busy_tables])

        # A's hint waits; A reconnects and asks again and again: refused, one in flight
        tid_a, a = people["A"]
        a.send({"type": "hint"})
        wait(lambda: server.call(lambda: m.work.advice.queued("hint") == 1), "A's hint")
        token_a = a.token
        for _ in range(12):
            s = Socket(server, tid_a, token_a)
            assert s.welcome["seat"] == 0
            s.send({"type": "hint"})
            e = answer(s)
            assert e["type"] == "error" and e["code"] == "rate_limited", e
            assert "being worked out" in e["message"]
            s.close()
        # B's hint fills the queue; C and D are told the server is busy
        tid_b, b = people["B"]
        b.send({"type": "hint"})
        wait(lambda: server.call(lambda: m.work.advice.queued("hint") == 2), "B's hint")
        for name in "CD":
            s = people[name][1]
            s.send({"type": "hint"})
            e = answer(s)
            assert e["type"] == "error" and e["code"] == "busy", e

        # the review flood: one start a minute from an address, two reviews at once in all
        path = f"/api/matches/{match_id}/review?seat="
        code, body = server.http("GET", path + "0")
        assert code == 200 and body["status"] == "running", body
        code, body = server.http("GET", path + "1")
        assert (code, body["code"]) == (429, "rate_limited"), body
        code, body = server.http("GET", path + "1", source="127.0.0.2")
        assert code == 200 and body["status"] == "running", body
        for source in ("127.0.0.2", "127.0.0.3"):
            code, body = server.http("GET", path + "2", source=source)
            assert (code, body["code"]) == (503, "busy"), body
        code, body = server.http("GET", path + "0", source="127.0.0.3")  # progress: free
        assert code == 200 and body["status"] == "running", body
        assert server.call(lambda: sorted(server.app.state.reviews.jobs)) == [
            (match_id, 0), (match_id, 1)]

        # meanwhile the bots of the other tables play on: no bot waits behind a hint or a
        # review (neither can even start while the advice worker is held)
        wait(lambda: server.call(lambda: all(m.tables[t].version >= v + 20
                                             for t, v in zip(busy_tables, versions))),
             "the bots stopped while hints and reviews waited")
        assert server.call(lambda: (m.work.advice.queued("hint"), m.work.advice.running["review"],
                                    m.hints.peak)) == (2, 1, 1)

        # the worker is free: B's hint is answered; A's socket is gone, so its hint is dropped
        Path(gate).touch()
        h = answer(b)
        assert h["type"] == "hint" and h["by"] == "heuristic", h
        wait(lambda: server.call(lambda: not m.hints.in_flight), "a hint stayed in flight")
        # (the reviews go on, a decision at a time, while the test does)
        wait(lambda: server.call(lambda: [d.kind for d in m.work.advice.history][1:4])
             == ["review", "hint", "review"], "no review decision after the hint")
        # every request counts toward the address's rate, a review's progress too
        for asked in range(1, 101):
            code, body = server.http("GET", path + "0", source="127.0.0.4")
            if code != 200:
                break
        assert (code, body["code"]) == (429, "rate_limited"), body
        assert asked > 20 and "review requests a minute" in body["message"], (asked, body)
        stats = server.call(lambda: dict(m.hints.stats))
        assert stats["rate_limited"] == 13 and stats["busy"] == 2, stats
        assert stats["answered"] == 2 and stats["stale"] == 1, stats
        assert server.call(lambda: m.hints.peak) == 1      # never two for one seat

        # hints went before every review decision; the bots' processes ran no advice
        advice = server.call(lambda: list(m.work.advice.history))
        # (E's hint, the held job, B's hint; A's was dropped unrun: its socket had gone)
        assert [d.kind for d in advice[:3]] == ["hint", "review", "hint"], advice[:3]
        assert all(d.waiting["hint"] == 0 for d in advice if d.kind == "review")
        bots = server.call(lambda: list(m.work.bots.history))
        assert bots and {d.kind for d in bots} == {"bot"}
        bot_pids = {d.pid[0] for d in bots} - {0}
        assert bot_pids and bot_pids.isdisjoint({d.pid[0] for d in advice})

        # every worker killed: new ones take over, the bots play on, a hint is answered
        killed = server.call(lambda: m.work.bots.pids() + m.work.advice.pids())
        for pid in killed:
            os.kill(pid, signal.SIGKILL)
        c = people["C"][1]
        c.send({"type": "hint"})
        assert answer(c)["type"] == "hint"
        versions = server.call(lambda: [m.tables[t].version for t in busy_tables])
        wait(lambda: server.call(lambda: all(m.tables[t].version >= v + 10
                                             for t, v in zip(busy_tables, versions))),
             "the bots stopped after their worker was killed")
        assert not set(server.call(lambda: m.work.bots.pids())) & set(killed)
    finally:
        Path(gate).touch()
        for s in sockets:
            s.close()
        server.stop()
