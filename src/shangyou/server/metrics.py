"""Prometheus metrics at ``GET /metrics`` (``docs/operations.md``, *Metrics*), with
``prometheus-client``'s own registry, metric types and text exposition.

Two kinds of figures:

- **events**, counted where they happen, in this process: moves committed (by who: a person,
  a bot, the turn timer), the store's calls (a latency histogram, by call), errors sent to
  client sockets (by code: ``rate_limited`` among them) and HTTP answers (by status: 429 among
  them). These are process-wide objects (:data:`MOVES` ...), one server per process;
- **state**, read when scraped by :class:`ServerCollector` from what the server already keeps:
  tables in memory by status, open sockets (local, gateway, remote), the worker lanes' queues
  and their counts of jobs (``server/budget.py``), hints answered and refused, the store's
  queue, the lease renewals, the relay's messages between nodes.

No label ever holds a table id, a token, a name, an address or anything a client sent: every
label value is one of a fixed set written in the server's code (a status, a code, a lane).

Who may read it (``docs/security.md``, *Metrics*): clients whose address is in
``--metrics-from`` (default: loopback only), or any client that sends ``Authorization: Bearer
<token>`` with the token of the environment variable ``SHANGYOU_METRICS_TOKEN`` (never a flag:
``ps`` would show it). Anyone else gets 403 ``forbidden``. The proxy in front
(``scripts/cluster.sh``) answers 404 to ``/metrics`` from outside: Prometheus scrapes each
node on its own port.
"""

from __future__ import annotations

import hmac
import ipaddress
import os
import time
from collections import Counter as Tally
from collections.abc import Iterable
from operator import attrgetter

from fastapi import APIRouter, Request
from fastapi.responses import Response
from prometheus_client import (CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram,
                               generate_latest)
from prometheus_client import GCCollector, PlatformCollector, ProcessCollector
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.registry import Collector

from . import answers

TOKEN_ENV = "SHANGYOU_METRICS_TOKEN"
DEFAULT_FROM = ("127.0.0.1/32", "::1/128")
TOKEN_MIN = 16              # characters: a shorter token is refused at start

# ------------------------------------------------------------------------- events (counted)
MOVES = Counter("shangyou_moves", "Moves stored by this node, by who made them: a person "
                "(their own move, hinted or not), a bot (a bot's seat, or a person's while "
                "they are away), the turn timer", ["who"], registry=None)
STORE_SECONDS = Histogram(
    "shangyou_store_call_seconds", "Time one call took in the store's thread (its queue "
    "excluded: shangyou_store_queue), by call", ["call"], registry=None,
    buckets=(.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10))
SOCKET_ERRORS = Counter("shangyou_socket_errors", "Errors sent to client sockets, by code "
                        "(rate_limited: a message refused by a rate limit)", ["code"],
                        registry=None)
HTTP = Counter("shangyou_http_responses", "HTTP answers, by status (429: refused by a rate "
               "limit, 503: busy or unavailable)", ["status"], registry=None)
_EVENTS = (MOVES, STORE_SECONDS, SOCKET_ERRORS, HTTP)
_CODE_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz_")
_STATUS = attrgetter("status")


_MOVED = {who: MOVES.labels(who) for who in ("person", "bot", "timer")}


def moved(who: str) -> None:
    """A move was stored (``who``: person, bot or timer)."""
    _MOVED[who].inc()


def socket_error(code: str) -> None:
    # codes are the server's own; anything else (none today) is counted as "other"
    SOCKET_ERRORS.labels(code if len(code) <= 32 and set(code) <= _CODE_CHARS
                         else "other").inc()


class StatusCounter:
    """ASGI middleware: each HTTP answer counted by its status (outermost, so that the body
    limit's own answers count too)."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)

        async def counted(message) -> None:
            if message["type"] == "http.response.start":
                HTTP.labels(str(int(message["status"]))).inc()
            await send(message)
        return await self.app(scope, receive, counted)


# --------------------------------------------------------------------------- state (read)
def _gauge(name: str, doc: str, labels: Iterable[str] = (), rows=()) -> GaugeMetricFamily:
    g = GaugeMetricFamily(name, doc, labels=list(labels))
    for values, value in rows:
        g.add_metric(list(values), value)
    return g


def _counter(name: str, doc: str, labels: Iterable[str] = (), rows=()) -> CounterMetricFamily:
    c = CounterMetricFamily(name, doc, labels=list(labels))
    for values, value in rows:
        c.add_metric(list(values), value)
    return c


class ServerCollector(Collector):
    """What the server keeps, read at each scrape (``state["manager"]``, ``state["node"]``
    once the app has started; nothing before)."""

    def __init__(self, state: dict) -> None:
        self.state = state

    def collect(self):
        manager = self.state.get("manager")
        if manager is None:
            return
        node = self.state.get("node")
        yield from self._tables(manager, node)
        yield from self._work(manager)
        yield from self._store(manager.store)
        yield from self._lease(manager.lease)
        if node is not None:
            yield from self._relay(node.relay)

    @staticmethod
    def _tables(manager, node):
        # one pass in C over the tables in memory, on the event loop: nothing changes them
        # meanwhile (bench/metrics_scrape.py)
        by_status = {s: 0 for s in ("waiting", "playing", "over")}
        by_status.update(Tally(map(_STATUS, manager.tables.values())))
        yield _gauge("shangyou_tables", "Tables in this node's memory, by status",
                     ["status"], [((s,), n) for s, n in sorted(by_status.items())])
        # the client sockets this node holds (counted per address for their limit): those of
        # tables another node runs are its gateway's; the rest are local
        held = sum(manager.clients.sockets.values())
        gateway = len(node.proxies) if node is not None else 0
        remote = len(node.remote) if node is not None else 0
        yield _gauge("shangyou_sockets", "Open client sockets: local (on this node, to a "
                     "table it runs), gateway (on this node, relayed to the node that runs "
                     "the table), remote (on another node, to a table this node runs)",
                     ["kind"], [(("local",), max(0, held - gateway)), (("gateway",), gateway),
                                (("remote",), remote)])
        yield _gauge("shangyou_draining", "1 while this node hands its tables on before "
                     "stopping", rows=[((), 1 if manager.draining else 0)])

    @staticmethod
    def _work(manager):
        lanes = (manager.work.bots, manager.work.advice)
        yield _gauge("shangyou_worker_processes", "Worker processes of each lane", ["lane"],
                     [((ln.name,), ln.workers) for ln in lanes])
        yield _gauge("shangyou_worker_queue", "Jobs waiting for a worker, by lane and kind",
                     ["lane", "kind"],
                     [((ln.name, k), ln.queued(k)) for ln in lanes for k in ln.bounds])
        yield _gauge("shangyou_worker_running", "Jobs handed to a lane's workers, by lane "
                     "and kind", ["lane", "kind"],
                     [((ln.name, k), ln.running[k]) for ln in lanes for k in ln.bounds])
        rows = []
        for ln in lanes:
            for key, n in sorted(ln.stats.items()):
                kind, _, event = key.partition(".")
                if event:
                    rows.append(((ln.name, kind, event), n))
        yield _counter("shangyou_worker_jobs", "The lanes' jobs by event: queued, done "
                       "(a decision made), busy (refused: the queue was full), dropped "
                       "(nobody wanted it any more), failed, broken (its worker died), "
                       "retried", ["lane", "kind", "event"], rows)
        yield _counter("shangyou_worker_rests", "Times a lane's CPU budget was spent and it "
                       "waited", ["lane"], [((ln.name,), ln.stats.get("rested", 0))
                                            for ln in lanes])
        yield _counter("shangyou_worker_cpu_seconds", "CPU seconds of the jobs a lane's "
                       "workers finished", ["lane"], [((ln.name,), ln.cpu_used)
                                                       for ln in lanes])
        yield _counter("shangyou_hints", "Hints by outcome: answered, stale (the state moved "
                       "on), fallback.* (answered by a lesser level), or refused by code "
                       "(rate_limited, busy)", ["outcome"],
                       [((k,), n) for k, n in sorted(manager.hints.stats.items())])

    @staticmethod
    def _store(store):
        yield _gauge("shangyou_store_queue", "Calls waiting for the store's thread or "
                     "running in it", rows=[((), getattr(store, "queued", 0))])
        yield _gauge("shangyou_store_pending_moves", "Moves waiting for the next group "
                     "commit", rows=[((), len(getattr(store, "_pending", ())))])

    @staticmethod
    def _lease(lease):
        renewed = getattr(lease, "renewed_at", None)
        if renewed is None and not hasattr(lease, "renewals"):
            return                                  # the server alone: nothing to renew
        yield _counter("shangyou_lease_renewals", "Renewals of this node's leases that "
                       "worked", rows=[((), getattr(lease, "renewals", 0))])
        yield _counter("shangyou_lease_renewal_failures", "Renewals of this node's leases "
                       "that failed", rows=[((), getattr(lease, "renewal_failures", 0))])
        if renewed is not None:
            yield _gauge("shangyou_lease_age_seconds", "Seconds since the last renewal that "
                         "worked began (a lease runs out past --lease-seconds)",
                         rows=[((), max(0.0, time.monotonic() - renewed))])

    @staticmethod
    def _relay(relay):
        links = relay.links
        yield _gauge("shangyou_relay_up", "1 while Redis answers", rows=[((), int(relay.up))])
        yield _counter("shangyou_relay_messages", "Messages between nodes through Redis, by "
                       "direction (each carries one turn of the loop's items for one node)",
                       ["direction"], [(("sent",), getattr(links, "sent", 0)),
                                       (("received",), getattr(links, "delivered", 0))])
        yield _counter("shangyou_relay_resent", "Messages sent again (another node missed "
                       "them)", rows=[((), links.resent)])
        yield _counter("shangyou_relay_link_resets", "Links to another node started over",
                       rows=[((), links.resets)])
        yield _counter("shangyou_relay_downs", "Times the link to Redis was found down",
                       rows=[((), relay.downs)])
        yield _counter("shangyou_relay_resubscribed", "Times this node's subscription was "
                       "made again", rows=[((), relay.resubscribed)])


def registry_for(state: dict) -> CollectorRegistry:
    """One app's registry: the process's event counters, the process's own figures (CPU,
    memory, file descriptors, garbage collection) and the app's state."""
    registry = CollectorRegistry(auto_describe=True)
    for metric in _EVENTS:
        registry.register(metric)
    ProcessCollector(registry=registry)
    PlatformCollector(registry=registry)
    GCCollector(registry=registry)
    registry.register(ServerCollector(state))
    return registry


# ------------------------------------------------------------------------------- access
class Access:
    """Who may read ``/metrics``: an address in ``networks``, or the bearer ``token``."""

    def __init__(self, networks: Iterable[str] = DEFAULT_FROM, token: str | None = None):
        try:
            self.networks = [ipaddress.ip_network(n, strict=False) for n in networks]
        except ValueError as e:
            raise ValueError(f"--metrics-from (SHANGYOU_METRICS_FROM): {e}") from None
        if token is not None and len(token) < TOKEN_MIN:
            raise ValueError(f"{TOKEN_ENV}: at least {TOKEN_MIN} characters")
        self.token = token.encode() if token else None

    @classmethod
    def from_env(cls, networks: Iterable[str] | None = None) -> Access:
        return cls(DEFAULT_FROM if networks is None else networks,
                   os.environ.get(TOKEN_ENV) or None)

    def allows(self, address: str | None, authorization: str | None) -> bool:
        if self.token is not None and authorization:
            scheme, _, given = authorization.partition(" ")
            if scheme.lower() == "bearer" and hmac.compare_digest(given.strip().encode(),
                                                                  self.token):
                return True
        if not address:
            return False
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            return False
        return any(ip in n for n in self.networks)


router = APIRouter()


@router.get("/metrics", include_in_schema=False)
async def metrics(request: Request):
    """The node's metrics in Prometheus's text format, for those :class:`Access` allows."""
    app = request.app
    address = request.client.host if request.client else None
    if not app.state.metrics_access.allows(address, request.headers.get("authorization")):
        return answers.error(403, "the metrics are for the operator's scraper only",
                             "forbidden")
    return Response(generate_latest(app.state.metrics_registry),
                    headers={"Content-Type": CONTENT_TYPE_LATEST,
                             "Cache-Control": "no-store"})
