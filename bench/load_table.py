"""One table of bench/load_server.py: set up, played, drained, and what its client saw.

A table's life in the load script has three phases:

1. **Set up** (:meth:`Table.setup`, not measured): create the table (``POST /api/tables``),
   open its sockets (the player, the host, and the watching ones), say ``hello`` on each and
   wait for each ``welcome``, sit, fill the other seats with bots and wait for the state that
   shows every seat filled. A failure at any step (an HTTP error, a socket that does not open,
   an answer that does not come within ``step_timeout``) closes the sockets and raises
   :class:`SetupFailed`; the caller tries again with a new table.
2. **Play** (:meth:`Table.begin`): ``start``; from then on the player's socket plays the first
   legal move ``think`` seconds (±25%) after each state that gives it the turn (and, with
   ``pace``, no sooner than ``pace`` seconds after its previous move: a move sent at that
   time, not later, is counted ``on_pace``), and starts a new match when one is over. For every move sent, the latency is the time until **every** open
   socket of the table has a state of a newer version.
3. **Drain** (:attr:`Table.draining` set): no new move and no new match; the sockets go on
   listening until every move sent has been answered on every open socket.

Each move sent is kept (:class:`Sent`: its match, its index in the match's log, its text) so
that the moves can be checked against the database afterwards (``bench/load_check.py``).
"""

from __future__ import annotations

import asyncio
import json
import random
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field

import orjson
import websockets


class SetupFailed(Exception):
    """A table could not be set up (the message says at which step)."""


def post(url: str, body: dict, timeout: float = 60.0) -> dict:
    req = urllib.request.Request(url, data=json.dumps(body).encode(),
                                 headers={"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return json.loads(r.read())


@dataclass
class Sent:
    """A move the player's socket sent."""
    version: int           # the table's version it was chosen in
    match_id: str
    idx: int               # its index in the match's log (the moves stored before it)
    text: str
    at: float              # perf_counter when sent
    seen: set = field(default_factory=set)      # the sockets that had a newer state since
    answered: float | None = None               # when every open socket had one


def close_kind(e: websockets.ConnectionClosed) -> str:
    """Who closed a socket and why: ``server 1011 keepalive ping timeout`` (a close frame from
    the server), ``client 1011 ...`` (this script's own library closed it), or ``dropped``
    (no close frame either way: the connection broke)."""
    if e.rcvd is not None:
        return f"server {e.rcvd.code} {e.rcvd.reason}".rstrip()
    if e.sent is not None:
        return f"client {e.sent.code} {e.sent.reason}".rstrip()
    return "dropped"


class Table:
    def __init__(self, base: str, ws_base: str, game: str, players: int, spectators: int,
                 think: float = 0.0, step_timeout: float = 60.0, ping: float | None = None,
                 pace: float = 0.0):
        self.base, self.ws_base = base, ws_base
        self.game, self.players, self.spectators = game, players, spectators
        self.think = think
        self.pace = pace                    # seconds at least between two moves of the player
        self.last_move_at = float("-inf")
        self.on_pace = 0                    # moves sent at their paced time, not later
        self.step_timeout = step_timeout
        self.ping = ping                    # this script's own keepalive pings (None: none)
        self.table_id: str | None = None
        self.latencies: list[float] = []
        self.errors = 0
        self.error_codes: dict[str, int] = {}
        self.closes: dict[str, int] = {}    # sockets closed during play: close_kind -> count
        self.open: set[int] = set()         # the sockets not closed (their indices)
        self.versions = 0                   # versions the table advanced while measured
        self.sent: list[Sent] = []
        self.pending: dict[int, Sent] = {}  # version -> the move sent in it, not yet answered
        self.scheduled = False              # a move is waiting for its think time
        self.matches: dict[str, int] = {}   # match id -> the most moves the player saw stored
        self.last_version = -1              # the newest version the player's socket saw
        self.conns: list = []
        self.tasks: list = []
        self.tries = 0
        self.steps: dict[str, float] = {}   # seconds each step of the last setup took
        self.failures: list[str] = []       # why each try of the setup failed
        self.failed: str | None = None      # set when every try failed: left out
        self.draining = False
        self.measure_from = float("inf")
        self.until = float("inf")

    # ---------------------------------------------------------------------------- set up
    async def setup(self) -> None:
        """Create the table, open its sockets, hello, sit, bots: every answer waited for."""
        self.tries += 1
        self.steps = {}
        t0 = time.perf_counter()
        body = {"game": self.game, "players": self.players, "options": {}, "bots": "greedy"}
        try:
            made = await asyncio.to_thread(post, self.base + "/api/tables", body,
                                           self.step_timeout)
        except urllib.error.HTTPError as e:
            raise SetupFailed(f"create: HTTP {e.code} {e.read()[:120]!r}") from None
        except (OSError, ValueError) as e:
            raise SetupFailed(f"create: {type(e).__name__}: {e}") from None
        self.table_id = made["table_id"]
        t0 = self._step("create", t0)
        url = f"{self.ws_base}/ws/{self.table_id}"
        n = 1 + self.spectators
        self.conns = []
        try:
            for i in range(n):
                try:
                    self.conns.append(await websockets.connect(
                        url, max_size=2**22, compression=None, open_timeout=self.step_timeout,
                        ping_interval=self.ping, ping_timeout=self.ping))
                except (OSError, TimeoutError, websockets.WebSocketException) as e:
                    raise SetupFailed(f"socket {i}: {type(e).__name__}: {e}") from None
            t0 = self._step("connect", t0)
            for i, c in enumerate(self.conns):      # the player is the table's host
                await c.send(json.dumps({"type": "hello", "name": f"c{i}",
                                         "token": made["host_token"] if i == 0 else None}))
            for i, c in enumerate(self.conns):
                await self._wait(c, f"socket {i}: welcome", lambda m: m["type"] == "welcome")
            t0 = self._step("hello", t0)
            player = self.conns[0]
            await player.send(json.dumps({"type": "sit", "seat": 0, "name": "load"}))
            await self._wait(player, "sit", lambda m: m["type"] == "welcome"
                             and m.get("seat") == 0)
            t0 = self._step("sit", t0)
            await player.send(json.dumps({"type": "bots", "level": "greedy"}))
            await self._wait(player, "bots", lambda m: m["type"] == "state" and all(
                s["kind"] != "empty" for s in m["table"]["seats"]))
            self._step("bots", t0)
        except SetupFailed:
            await self.close()
            raise
        except websockets.ConnectionClosed as e:
            await self.close()
            raise SetupFailed(f"closed: {close_kind(e)}") from None

    def _step(self, name: str, t0: float) -> float:
        now = time.perf_counter()
        self.steps[name] = now - t0
        return now

    async def _wait(self, conn, step: str, ok) -> dict:
        """The first message on ``conn`` for which ``ok`` holds (an error message fails)."""
        deadline = time.monotonic() + self.step_timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise SetupFailed(f"{step}: no answer within {self.step_timeout:g} s")
            try:
                raw = await asyncio.wait_for(conn.recv(), timeout=left)
            except TimeoutError:
                continue
            msg = orjson.loads(raw)
            if msg.get("type") == "error":
                raise SetupFailed(f"{step}: error {msg.get('code')}")
            if ok(msg):
                return msg

    async def close(self) -> None:
        for t in self.tasks:
            t.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        self.tasks = []
        for c in self.conns:
            try:
                await asyncio.wait_for(c.close(), timeout=10)
            except (TimeoutError, OSError, websockets.WebSocketException):
                pass
        self.conns = []

    # ------------------------------------------------------------------------------ play
    async def begin(self) -> None:
        """Listen on every socket and start the first match."""
        self.open = set(range(len(self.conns)))
        self.tasks = [asyncio.create_task(self.listen(i, c)) for i, c in enumerate(self.conns)]
        try:
            await self.conns[0].send(json.dumps({"type": "start"}))
        except websockets.ConnectionClosed:
            pass

    def settled(self) -> bool:
        """Nothing left to wait for: every move sent was answered, or no socket is open."""
        return not self.pending or not self.open

    async def listen(self, idx: int, conn) -> None:
        while True:
            try:
                raw = await conn.recv()
            except websockets.ConnectionClosed as e:
                kind = close_kind(e)
                self.closes[kind] = self.closes.get(kind, 0) + 1
                self.open.discard(idx)          # its table's moves no longer wait for it
                self._answered(time.perf_counter())
                return
            msg = orjson.loads(raw)
            kind = msg.get("type")
            if kind == "error":
                code = msg.get("code")
                self.errors += 1
                self.error_codes[code] = self.error_codes.get(code, 0) + 1
                continue
            if kind != "state":
                continue
            v = msg["version"]
            now = time.perf_counter()
            for sent_v, s in self.pending.items():
                if sent_v < v:
                    s.seen.add(idx)
            self._answered(now)
            if idx == 0 and v > self.last_version:
                self._player_state(conn, msg, v, now)

    def _answered(self, now: float) -> None:
        """Moves seen answered on every open socket leave ``pending``."""
        for sent_v in [k for k, s in self.pending.items() if self.open <= s.seen]:
            s = self.pending.pop(sent_v)
            s.answered = now
            if s.at >= self.measure_from:
                self.latencies.append(now - s.at)

    def _player_state(self, conn, msg: dict, v: int, now: float) -> None:
        if self.last_version >= 0 and self.measure_from <= now < self.until:
            self.versions += v - self.last_version
        self.last_version = v
        info = msg["table"]
        match_id = info.get("match_id")
        if match_id:
            self.matches[match_id] = max(self.matches.get(match_id, 0), msg["move_count"])
        if self.draining:
            return
        view = msg.get("view") or {}
        if info["status"] == "over":
            asyncio.create_task(self._send(conn, {"type": "start"}))
        elif view.get("to_act") == view.get("seat") and view.get("legal_moves") and \
                not self.scheduled and v not in self.pending and match_id:
            self.scheduled = True
            asyncio.create_task(self.move(conn, v, match_id, msg["move_count"],
                                          view["legal_moves"][0]))

    async def move(self, conn, v: int, match_id: str, idx: int, text: str) -> None:
        try:
            if self.think:     # people think for varying times (±25%)
                await asyncio.sleep(self.think * random.uniform(0.75, 1.25))
            if self.pace:      # a fixed pace: at most one move every ``pace`` seconds
                wait = self.last_move_at + self.pace - time.perf_counter()
                if wait > 0:
                    await asyncio.sleep(wait)
                    if self.measure_from <= time.perf_counter() < self.until:
                        self.on_pace += 1
            if self.draining or v != self.last_version:
                return         # the drain began (or the table moved on): not sent
            s = Sent(v, match_id, idx, text, time.perf_counter())
            self.last_move_at = s.at
            self.pending[v] = s
            self.sent.append(s)
            await conn.send(json.dumps({"type": "move", "move": text, "version": v}))
        except websockets.ConnectionClosed:
            pass
        finally:
            self.scheduled = False

    @staticmethod
    async def _send(conn, msg: dict) -> None:
        try:
            await conn.send(json.dumps(msg))
        except websockets.ConnectionClosed:
            pass
