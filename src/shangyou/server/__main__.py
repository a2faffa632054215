"""``python -m shangyou.server [--host H] [--port P] [--data DIR] [--db URL] ...``

The one definition of the server's command line: ``shangyou serve`` hands its arguments to
:func:`main` unchanged, so both take the same options (``--help`` lists them)."""

from __future__ import annotations

import argparse
import sys
from argparse import SUPPRESS


def parse_limits(items: list[str], source: str = "--limit") -> dict:
    """``NAME=VALUE`` pairs as Limits fields of their own types; ValueError naming the bad one
    (``source``: ``--limit``, or ``SHANGYOU_LIMIT_`` for the environment's)."""
    from dataclasses import fields

    from .limits import Limits
    kinds = {f.name: f.type for f in fields(Limits) if f.type in ("int", "float")}
    out: dict = {}
    for item in items:
        name, sep, value = item.partition("=")
        name = name.strip().replace("-", "_")
        if not sep or name not in kinds:
            what = f"--limit {item!r}" if source == "--limit" else \
                f"{source}{name.upper()}: no such limit"
            raise ValueError(f"{what}: use NAME=VALUE with NAME one of "
                             + ", ".join(sorted(kinds)))
        try:
            number = int(value) if kinds[name] == "int" else float(value)
        except ValueError:
            raise ValueError(f"{_where(source, name)}: {value!r} is not a number") from None
        if number < 0:
            raise ValueError(f"{_where(source, name)}: must not be negative")
        out[name] = number
    return out


def _where(source: str, name: str) -> str:
    return f"--limit {name}" if source == "--limit" else f"{source}{name.upper()}"


def build_parser(prog: str = "python -m shangyou.server") -> argparse.ArgumentParser:
    """The server's options (``python -m shangyou.server`` and ``shangyou serve``)."""
    p = argparse.ArgumentParser(
        prog=prog, description="The shangyou web server: play in the browser.",
        epilog="Every option is also read from the environment: --name-of-it from "
        "SHANGYOU_NAME_OF_IT (a list comma-separated), --limit NAME=VALUE from "
        "SHANGYOU_LIMIT_NAME=VALUE; the flags win. Give secrets (the database's and Redis's "
        "passwords in --db and --redis) that way: ps shows a command line to everyone "
        "(docs/deploy.md).")
    p.add_argument("--host", default=SUPPRESS, help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=SUPPRESS, help="port (default 8000)")
    p.add_argument("--data", default=SUPPRESS,
                   help="data folder for the SQLite store data/shangyou.db (default ./data)")
    p.add_argument("--db", default=SUPPRESS,
                   help="SQLAlchemy database URL instead (e.g. postgresql+psycopg://...)")
    p.add_argument("--bot-delay", type=float, default=SUPPRESS,
                   help="seconds a bot waits before moving, so people can follow (default 0.3)")
    p.add_argument("--ws", default=SUPPRESS,
                   choices=["auto", "websockets", "websockets-sansio"],
                   help="uvicorn's WebSocket implementation (default auto)")
    p.add_argument("--allow-origin", action="append", default=SUPPRESS, metavar="URL",
                   help="another origin whose pages may open sockets (repeatable; '*': any); "
                   "by default only the server's own pages may")
    p.add_argument("--allow-address", action="append", default=SUPPRESS, metavar="CIDR",
                   help="clients of this network get 100 times the per-address limits "
                   "(repeatable; e.g. 127.0.0.1/32 for a load test on loopback)")
    p.add_argument("--limit", action="append", default=SUPPRESS, metavar="NAME=VALUE",
                   help="change one limit of docs/security.md (repeatable), e.g. "
                   "--limit tables_per_minute=30")
    p.add_argument("--redis", default=SUPPRESS, metavar="URL",
                   help="run as one node of several: the Redis server between the nodes "
                   "(redis://host:6379/0); needs --db on a PostgreSQL database they share "
                   "(docs/deploy.md)")
    p.add_argument("--node-id", default=SUPPRESS, metavar="NAME",
                   help="this node's name among the nodes (default: host name and port)")
    p.add_argument("--lease-seconds", type=float, default=SUPPRESS,
                   help="how long a node's hold on its tables lasts without renewal: another "
                   "node takes a table over this long after its node died (default 4)")
    p.add_argument("--affinity", action="store_true", default=SUPPRESS,
                   help="a node of several behind a proxy that sends each table's sockets to "
                   "one node (scripts/cluster.sh's nginx: a consistent hash of the table's id): "
                   "a table moves to the node its sockets reach (docs/deploy.md)")
    p.add_argument("--ws-ping-interval", type=float, default=SUPPRESS, metavar="SECONDS",
                   help="how often the server pings each socket (default 20; 0: never)")
    p.add_argument("--ws-ping-timeout", type=float, default=SUPPRESS, metavar="SECONDS",
                   help="a socket whose pong is this late is closed (1011; default 20)")
    p.add_argument("--store-retry-seconds", type=float, default=SUPPRESS, metavar="SECONDS",
                   help="how long a write the database did not take is tried again before "
                   "the player hears it failed (default 10; bots and timers try again later)")
    p.add_argument("--drain-seconds", type=float, default=SUPPRESS, metavar="SECONDS",
                   help="on SIGTERM or SIGINT, at most this long to hand the tables on to "
                   "other nodes before stopping (default 20; a second signal stops at once)")
    p.add_argument("--metrics-from", action="append", default=SUPPRESS, metavar="CIDR",
                   help="a network whose clients may read /metrics (repeatable; default "
                   "loopback only; also: a bearer token in SHANGYOU_METRICS_TOKEN)")
    p.add_argument("--log-level", default=SUPPRESS,
                   choices=["critical", "error", "warning", "info", "debug"],
                   help="default warning")
    p.add_argument("--log-format", default=SUPPRESS, choices=["text", "json"],
                   help="log lines as text (default) or one JSON object a line; either names "
                   "the time (UTC), the node and the table (docs/operations.md)")
    return p


def main(argv: list[str] | None = None, prog: str = "python -m shangyou.server") -> int:
    p = build_parser(prog)
    given = vars(p.parse_args(argv))        # only the flags given: they win over the environment
    flag_limits = given.pop("limit", [])

    import uvicorn

    from . import logs
    from .app import create_app
    from .drain import DrainingServer
    from .limits import Limits, header_timeout_protocol
    from .settings import env_limits, load

    try:
        a = load(given)
    except ValueError as e:
        p.error(str(e))
    import socket
    try:
        chosen = {**parse_limits(env_limits(), source="SHANGYOU_LIMIT_"),
                  **parse_limits(flag_limits)}
        limits = Limits(origins=a.allow_origin, allowance=a.allow_address,
                        metrics_from=a.metrics_from, **chosen)
        limits.networks()
        from .metrics import Access
        Access.from_env(limits.metrics_from)
    except ValueError as e:
        p.error(str(e))
    if not 0 <= a.drain_seconds <= 3600:
        p.error("--drain-seconds (SHANGYOU_DRAIN_SECONDS): between 0 and 3600")
    if a.ws_ping_interval < 0 or a.ws_ping_timeout <= 0:
        p.error("--ws-ping-interval (SHANGYOU_WS_PING_INTERVAL): 0 or more; --ws-ping-timeout "
                "(SHANGYOU_WS_PING_TIMEOUT): more than 0")
    if not 0 <= a.store_retry_seconds <= 3600:
        p.error("--store-retry-seconds (SHANGYOU_STORE_RETRY_SECONDS): between 0 and 3600")
    db, redis = a.url("db"), a.url("redis")
    cluster = None
    if a.affinity and not redis:
        p.error("--affinity (SHANGYOU_AFFINITY): for a node of several (--redis URL)")
    if redis or a.node_id:
        from .cluster import ClusterConfig
        if not redis:
            p.error("--node-id (SHANGYOU_NODE_ID): a node of several needs --redis URL "
                    "(SHANGYOU_REDIS) as well")
        if not db or db.startswith("sqlite"):
            p.error("--redis (SHANGYOU_REDIS): the nodes share one database: give --db "
                    "postgresql://... (SHANGYOU_DB)")
        if not 0.5 <= a.lease_seconds <= 600:
            p.error("--lease-seconds (SHANGYOU_LEASE_SECONDS): between 0.5 and 600")
        node = a.node_id or f"{socket.gethostname()}:{a.port}"
        if not 0 < len(node) <= 64:
            p.error("--node-id (SHANGYOU_NODE_ID): 1 to 64 characters")
        cluster = ClusterConfig(node=node, redis_url=redis, lease_seconds=a.lease_seconds,
                                affinity=a.affinity)
    # (every check above ends in p.error before anything starts or is set up)
    logs.setup(a.log_level, a.log_format, a.node_id or f"{socket.gethostname()}:{a.port}")
    app = create_app(db_url=db, data_dir=a.data, bot_delay=a.bot_delay, limits=limits,
                     cluster=cluster, store_retry_seconds=a.store_retry_seconds)
    import gc
    gc.collect()
    gc.freeze()      # the code and data loaded so far never become garbage: never scan them
    gc.set_threshold(20_000, 20, 20)   # fewer, not longer, pauses for a server's many objects
    shown = f"[{a.host}]" if ":" in a.host else a.host
    print(f"shangyou server: http://{shown}:{a.port}/", flush=True)
    if cluster is not None:
        print(f"node {cluster.node} of several (Redis {_no_password(cluster.redis_url)})",
              flush=True)
    # small JSON: compressing costs more CPU than it saves, so no per-message deflate
    # log_config None: uvicorn's lines go through the handler above (time, node, format)
    config = uvicorn.Config(app, host=a.host, port=a.port, log_level=a.log_level,
                            log_config=None, ws=a.ws,
                            ws_max_size=65536, ws_ping_interval=a.ws_ping_interval or None,
                            ws_ping_timeout=a.ws_ping_timeout, ws_per_message_deflate=False,
                            http=header_timeout_protocol(limits.header_seconds),
                            timeout_keep_alive=5)

    async def drain() -> None:
        if hasattr(app.state, "drain"):
            await app.state.drain()

    # the first SIGTERM or SIGINT hands the tables on before uvicorn stops (server/drain.py)
    server = DrainingServer(config, drain, a.drain_seconds)
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    return 0 if server.started else 3        # 3: uvicorn's "could not start"


def _no_password(url: str) -> str:
    """A URL as it may be printed: without the password it may hold."""
    from urllib.parse import urlsplit, urlunsplit
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    if parts.port:
        host += f":{parts.port}"
    user = f"{parts.username}:***@" if parts.username else ":***@"
    return urlunsplit((parts.scheme, user + host, parts.path, parts.query, parts.fragment))


if __name__ == "__main__":
    sys.exit(main())
