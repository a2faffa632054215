"""What one client may cost the server: every limit, its default, and where it is enforced.

:class:`Limits` holds the numbers (``docs/security.md`` lists them with their error codes);
:class:`Clients` counts what each client address holds (tables created, waiting tables,
sockets); :class:`BodyLimit` is the ASGI middleware that cuts an HTTP body off at its limit
whatever the transfer encoding; :func:`origin_allowed` checks a WebSocket's ``Origin``;
:class:`HeaderTimeoutProtocol` closes HTTP connections that never finish their request headers.

An *allowance* (``--allow-address``) multiplies the per-address limits of the networks named,
for example the load test's loopback clients; it changes no other check.
"""

from __future__ import annotations

import asyncio
import ipaddress
import time
from collections import defaultdict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import orjson

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Message, Receive, Scope, Send


@dataclass(frozen=True)
class Limits:
    """Every limit of the server, with its default."""
    body_bytes: int = 16 * 1024        # an HTTP request body (413 too_big)
    body_seconds: float = 10.0         # to send that body (408 too_slow)
    header_seconds: float = 10.0       # to send a request's headers (the connection is closed)
    tables_per_minute: int = 10        # tables created by one address (429 rate_limited)
    waiting_per_address: int = 20      # waiting tables created by one address (429 too_many_tables)
    waiting_total: int = 1000          # waiting tables in all (429 too_many_tables)
    waiting_ttl: float = 1800.0        # a waiting table nobody touched expires after this
    idle_seconds: float = 600.0        # a table without sockets leaves memory after this
    empty_listed_seconds: float = 60.0  # a waiting table with nobody seated or looking: listed
    ready_check_seconds: float = 60.0  # a host's ready check ends after this
    bans_per_table: int = 64           # seat tokens and addresses a table's host removed (the
                                       # oldest is forgotten past this: never refused)
    sockets_per_table: int = 64        # open sockets on one table (close 4429 too_many_sockets)
    sockets_per_address: int = 32      # open sockets of one address (close 4429)
    hello_seconds: float = 10.0        # before a socket's hello (close 4408 hello_timeout)
    page_max: int = 100                # tables in one page of GET /api/tables
    sweep_seconds: float = 30.0        # how often expired and idle tables are swept
    # hints and reviews (the worker processes' budget: server/budget.py, docs/operations.md)
    hints_in_flight_seat: int = 1      # hints being worked out for one seat (rate_limited)
    hints_in_flight_address: int = 2  # ... for one address, all its seats (rate_limited)
    hints_per_minute_seat: int = 30    # hints asked by one seat (rate_limited)
    hints_per_minute_table: int = 60   # hints asked at one table (rate_limited)
    hints_per_minute_address: int = 60  # hints asked from one address (rate_limited)
    hint_queue: int = 8                # hints waiting for a worker, in all (busy)
    hints_remembered: int = 100_000    # last hints kept to mark a move that followed one
    #                                    (the oldest forgotten first: that move is not marked)
    review_jobs: int = 4               # reviews running or waiting, in all (503 busy)
    reviews_per_minute_address: int = 6  # reviews started from one address (429 rate_limited)
    review_requests_per_minute_address: int = 120  # review requests, polls included (429)
    advice_workers: int = 1            # worker processes for hints and reviews
    advice_nice: int = 10              # their CPU priority below the bots' (nice(2))
    advice_idle: int = 0               # 1: also under SCHED_IDLE (Linux): may starve them
    advice_cpu_share: float = 0.5      # of a core each uses on average (0: no such budget)
    advice_cpu_burst: float = 3.0      # CPU seconds each may use at once before that average
    allowance: tuple[str, ...] = ()    # networks (CIDR) whose per-address limits are multiplied
    allowance_factor: int = 100
    origins: tuple[str, ...] = ()      # more WebSocket origins allowed besides the page's own
    # accounts (server/accounts.py)
    logins_per_minute_address: int = 10   # login (and delete) attempts of one address (429)
    logins_per_minute_account: int = 5    # ... for one username, existing or not (429)
    signups_per_minute_address: int = 3   # accounts made from one address (429 rate_limited)
    account_reads_per_minute_address: int = 240  # GETs of who/account/leaderboard (429)
    password_hashes_at_once: int = 2      # argon2 hashes computed at once (64 MiB each)
    session_days: float = 30.0            # a login lasts this long
    # analysis
    analyses_per_minute_address: int = 10  # analyses asked from one address (429 rate_limited)
    analysis_queue: int = 4               # analyses waiting for a worker, in all (503 busy)
    analysis_seconds: float = 1.5         # CPU seconds of one analysis's worlds
    # ops
    metrics_from: tuple[str, ...] = ("127.0.0.1/32", "::1/128")  # networks (CIDR) that may
    #                                     read /metrics (or a bearer token: server/metrics.py)
    # learn
    learn_requests_per_minute_address: int = 120  # lesson lists, steps and checks (429)
    # affinity
    lobby_cache_ms: int = 1000         # a page of the lobby of several nodes is kept this long
    lobby_count_ms: int = 10_000       # ... and its tables counted at most this often (lobby.py)
    lobby_reads_waiting: int = 8       # different lobby pages waiting to be read (503 busy)
    # puzzles
    puzzles_per_minute_address: int = 60  # puzzles asked by one address (429 rate_limited)
    puzzle_answers_per_minute_address: int = 30  # answers checked for one address (429)
    # lobby
    lobby_reads_per_minute_address: int = 120  # GETs of /api/tables by one address (429)

    def networks(self) -> list:
        return [ipaddress.ip_network(a, strict=False) for a in self.allowance]


class Buckets:
    """Token buckets by key: ``per_minute`` tokens a minute each (times a key's ``factor``),
    in bursts of as many. A full bucket is forgotten once more than :attr:`KEYS` are kept."""

    KEYS = 10_000

    def __init__(self, per_minute: float):
        self.per_minute = float(per_minute)
        self._bucket: dict[object, tuple[float, float]] = {}     # key -> (tokens, stamp)

    def _tokens(self, key, factor: int, now: float) -> float:
        rate = self.per_minute * factor
        tokens, stamp = self._bucket.get(key, (rate, now))
        return min(rate, tokens + (now - stamp) * rate / 60.0)

    def ready(self, key, factor: int = 1) -> bool:
        """A token is there (none is taken)."""
        return self._tokens(key, factor, time.monotonic()) >= 1.0

    def take(self, key, factor: int = 1) -> bool:
        """Take a token from ``key``'s bucket; False (nothing taken) when it is empty."""
        now = time.monotonic()
        tokens = self._tokens(key, factor, now)
        if tokens < 1.0:
            self._bucket[key] = (tokens, now)
            return False
        self._bucket[key] = (tokens - 1.0, now)
        if len(self._bucket) > self.KEYS:          # forget full buckets of quiet keys
            self._bucket = {k: v for k, v in self._bucket.items() if v[0] < self.per_minute}
        return True


class Clients:
    """What each client address holds now: a creation token bucket, its waiting tables, its
    sockets. Addresses are strings as the ASGI server gives them (``None``: unknown)."""

    def __init__(self, limits: Limits):
        self.limits = limits
        self._nets = limits.networks()
        self._create = Buckets(limits.tables_per_minute)
        self.sockets: defaultdict[str, int] = defaultdict(int)
        self.waiting: defaultdict[str, int] = defaultdict(int)

    def factor(self, address: str | None) -> int:
        if not self._nets or not address:
            return 1
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            return 1
        return self.limits.allowance_factor if any(ip in n for n in self._nets) else 1

    def may_create(self, address: str | None) -> bool:
        """Take a token from the address's creation bucket (``tables_per_minute``, bursts of
        as many); False when it is empty."""
        return self._create.take(address or "?", self.factor(address))

    def waiting_full(self, address: str | None) -> bool:
        return self.waiting[address or "?"] >= \
            self.limits.waiting_per_address * self.factor(address)

    def socket_opened(self, address: str | None) -> bool:
        """Count a socket of ``address``; False (not counted) when it holds too many."""
        key = address or "?"
        if self.sockets[key] >= self.limits.sockets_per_address * self.factor(address):
            return False
        self.sockets[key] += 1
        return True

    def socket_closed(self, address: str | None) -> None:
        key = address or "?"
        self.sockets[key] -= 1
        if self.sockets[key] <= 0:
            del self.sockets[key]


def origin_allowed(origin: str | None, host: str | None, scheme: str,
                   allowed: tuple[str, ...] = ()) -> bool:
    """A WebSocket may come from the page's own origin (scheme, host and port of the request's
    ``Host``), from an origin in ``allowed`` (``"*"``: any), or from a client that sends no
    ``Origin`` at all (not a browser: nothing to forge on a visitor's behalf)."""
    if origin is None:
        return True
    if "*" in allowed or origin.rstrip("/") in {a.rstrip("/") for a in allowed}:
        return True
    if not host:
        return False
    try:
        o = urlsplit(origin)
    except ValueError:
        return False
    page = "https" if scheme in ("https", "wss") else "http"
    default = {"http": 80, "https": 443}
    try:
        o_port = o.port or default.get(o.scheme)
        h = urlsplit(f"{page}://{host}")
        h_port = h.port or default[page]
    except ValueError:
        return False
    return (o.scheme in ("http", "https") and o.scheme == page and o.hostname is not None
            and o.hostname == h.hostname and o_port == h_port)


# ------------------------------------------------------------------------------ HTTP bodies
def _error_body(status: int, code: str, message: str) -> tuple[dict, bytes]:
    body = orjson.dumps({"code": code, "detail": message, "message": message})
    return ({"type": "http.response.start", "status": status,
             "headers": [(b"content-type", b"application/json"),
                         (b"content-length", str(len(body)).encode()),
                         (b"connection", b"close"),
                         # the app's security headers do not reach this far out: a JSON
                         # error needs no policy but "nothing" (docs/security.md, *Headers*)
                         (b"content-security-policy", b"default-src 'none'; "
                                                      b"frame-ancestors 'self'"),
                         (b"x-frame-options", b"SAMEORIGIN"),
                         (b"x-content-type-options", b"nosniff")]},
            body)


class BodyLimit:
    """ASGI middleware: an HTTP request's body is read here first, at most ``limit`` bytes in
    at most ``seconds``, whatever its transfer encoding (a declared ``Content-Length`` over the
    limit is refused before any of it is read). Over the limit: 413 ``too_big``; too slow: 408
    ``too_slow``; either way the rest is never read and the connection is closed. The app then
    gets the body from memory."""

    def __init__(self, app: ASGIApp, limit: int, seconds: float):
        self.app = app
        self.limit = limit
        self.seconds = seconds

    async def _refuse(self, send: Send, status: int, code: str, message: str) -> None:
        start, body = _error_body(status, code, message)
        await send(start)
        await send({"type": "http.response.body", "body": body})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        for k, v in scope.get("headers", ()):
            if k == b"content-length":
                if not v.isdigit() or int(v) > self.limit:
                    return await self._refuse(send, 413, "too_big",
                                              f"a request body may be at most {self.limit} bytes")
        chunks: list[bytes] = []
        size = 0
        try:
            async with asyncio.timeout(self.seconds):
                while True:
                    msg = await receive()
                    if msg["type"] == "http.disconnect":
                        return None
                    chunk = msg.get("body", b"")
                    size += len(chunk)
                    if size > self.limit:
                        return await self._refuse(
                            send, 413, "too_big",
                            f"a request body may be at most {self.limit} bytes")
                    chunks.append(chunk)
                    if not msg.get("more_body", False):
                        break
        except TimeoutError:
            return await self._refuse(send, 408, "too_slow",
                                      f"the request body took more than {self.seconds:g} s")
        body = b"".join(chunks)
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        return await self.app(scope, replay, send)


# --------------------------------------------------------------------- unfinished headers
def header_timeout_protocol(seconds: float):
    """An HTTP protocol class for uvicorn (its own, httptools when installed) that closes a
    connection whose request headers are not complete ``seconds`` after the connection opened
    or after the previous response (a slow-headers client holds no connection for ever)."""
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol as Base
    except ImportError:             # pragma: no cover - httptools missing
        # the class below is checked against HttpToolsProtocol; H11Protocol has every member
        # it uses (a base chosen at run time is beyond the checker)
        from uvicorn.protocols.http.h11_impl import H11Protocol as Base  # type: ignore[assignment]

    class HeaderTimeoutProtocol(Base):
        _header_timer: asyncio.TimerHandle | None = None
        _upgraded = False

        def _arm(self) -> None:
            if self._header_timer is None and not self._upgraded:
                self._header_timer = self.loop.call_later(seconds, self._headers_late)

        def _disarm(self) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
                self._header_timer = None

        def _headers_late(self) -> None:
            self._header_timer = None
            if self.cycle is None or self.cycle.response_complete:
                if not self.transport.is_closing():
                    self.transport.close()

        def connection_made(self, transport) -> None:
            super().connection_made(transport)
            self._arm()

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if self.cycle is not None and not self.cycle.response_complete:
                self._disarm()          # a request is under way: its headers are complete
            elif not self.transport.is_closing():
                self._arm()

        def handle_websocket_upgrade(self, *args) -> None:
            self._upgraded = True       # the WebSocket protocol owns the connection now
            self._disarm()
            super().handle_websocket_upgrade(*args)

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._disarm()

        def connection_lost(self, exc) -> None:
            self._disarm()
            super().connection_lost(exc)

    return HeaderTimeoutProtocol


@dataclass
class Sweep:
    """Counts of what one sweep removed (for logs and tests)."""
    expired: int = 0
    evicted: int = 0
    ids: list[str] = field(default_factory=list)
