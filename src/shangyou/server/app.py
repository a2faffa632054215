"""The web app: HTTP routes, the WebSocket, and the pages (``docs/protocol.md``)."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import logging
import re
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
from fastapi import FastAPI, HTTPException, Query, Request, WebSocket
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.datastructures import MutableHeaders
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.websockets import WebSocketDisconnect

from shangyou import fairness
from shangyou.registry import aliases, preset_info, preset_names

from . import accounts, analysis, answers, metrics, playnow, schemas, views
from .budget import Busy
from .conn import FLOOD_CLOSE, INBOX, answer_ping
from .limits import BodyLimit, Buckets, Limits, origin_allowed
from .replays import ReplayCache, ReplayEntry
from .health import Readiness
from .lobby import Lobby, LobbyBusy
from .logs import bind_table
from .reviews import RateLimited, ReviewJobs
from .store import RETRY_SECONDS, AsyncStore, Store, StoreUnavailable, database_url
from .tables import MOVED_CODE, TableManager

log = logging.getLogger("shangyou.server")

STATIC_DIR = Path(__file__).resolve().parent.parent / "web" / "static"
HTTP_CODES, ERRORS = schemas.HTTP_CODES, schemas.ERRORS
PAGES = {"lobby": "lobby.html", "table": "table.html", "replay": "replay.html"}
_DONE = object()             # the end of a socket's messages

_PLACEHOLDER = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>shangyou</title></head>
<body><h1>shangyou</h1>
<p>The {page} page is not installed ({file} is missing). The server is running: see
<a href="/api/presets">/api/presets</a>, <a href="/api/tables">/api/tables</a> and
<a href="/api/matches">/api/matches</a>.</p></body></html>
"""


async def _handle_inbox(manager: TableManager, table, conn, inbox: asyncio.Queue) -> None:
    """A socket's messages, in order, until ``_DONE``."""
    while True:
        raw = await inbox.get()
        if raw is _DONE:
            return
        await manager.handle(table, conn, raw)


def _presets() -> list[dict]:
    al = aliases()
    out = []
    for name in preset_names():
        info = preset_info(name)
        out.append({"name": name, "aliases": sorted(a for a, n in al.items() if n == name),
                    "players": list(info["players"]), "defaults": info["defaults"],
                    "game": name.split("/")[0]})
    return out


# Sent with every HTTP response (docs/security.md, *Headers*). The pages load their scripts,
# styles and images from this server only (no inline script or style attribute: a test loads
# each page in Chromium and records every violation); 'self' in connect-src covers the page's
# own WebSocket (ws: or wss: to the same host). No other site may frame a page.
CSP = "; ".join((
    "default-src 'self'", "script-src 'self'", "style-src 'self'",
    "img-src 'self' data:",             # the share dialog's QR code is a data: image
    "connect-src 'self'", "font-src 'self'", "object-src 'none'", "base-uri 'none'",
    "form-action 'self'", "frame-ancestors 'self'"))
SECURITY_HEADERS = {"Content-Security-Policy": CSP, "X-Frame-Options": "SAMEORIGIN",
                    "X-Content-Type-Options": "nosniff", "Referrer-Policy": "same-origin"}
# The API's own documentation page (FastAPI's Swagger UI) loads its code from a CDN and starts
# it with one inline script: that script is allowed by its hash, the CDN for scripts and styles.
DOCS_CDN = "https://cdn.jsdelivr.net"
_INLINE_SCRIPT = re.compile(rb"<script>(.*?)</script>", re.S)


def _docs_policy(body: bytes) -> str:
    """The docs page's policy of its own: its inline scripts allowed by their SHA-256."""
    hashes = " ".join("'sha256-" + base64.b64encode(hashlib.sha256(m).digest()).decode() + "'"
                      for m in _INLINE_SCRIPT.findall(body))
    return "; ".join((
        "default-src 'self'", f"script-src 'self' {DOCS_CDN} {hashes}",
        f"style-src 'self' {DOCS_CDN} 'unsafe-inline'", "img-src 'self' data: https:",
        "connect-src 'self'", "object-src 'none'", "base-uri 'none'", "frame-ancestors 'self'"))


class SecurityHeaders:
    """ASGI middleware: :data:`SECURITY_HEADERS` on every HTTP answer that does not set them
    itself; the API's docs page (``docs_url``) with its own policy (:func:`_docs_policy`).
    A plain ASGI middleware: Starlette's ``BaseHTTPMiddleware`` (``@app.middleware``) ran each
    request in a task of its own with streams between the two, about half of the event loop's
    time for a small answer (a lobby page kept, ``/healthz``)."""

    def __init__(self, app, docs_url: str | None) -> None:
        self.app = app
        self.docs_url = docs_url

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        if scope["path"] == self.docs_url:
            return await self._docs(scope, receive, send)

        async def with_headers(message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in SECURITY_HEADERS.items():
                    headers.setdefault(name, value)
            await send(message)
        await self.app(scope, receive, with_headers)

    async def _docs(self, scope, receive, send) -> None:
        start: dict = {}
        body: list[bytes] = []

        async def whole(message) -> None:
            if message["type"] == "http.response.start":
                start.update(message)
                return
            if message["type"] != "http.response.body":
                return await send(message)
            body.append(message.get("body", b""))
            if message.get("more_body"):
                return
            data = b"".join(body)
            headers = MutableHeaders(scope=start)
            if start["status"] == 200:
                headers["Content-Security-Policy"] = _docs_policy(data)
                headers["Content-Length"] = str(len(data))
            for name, value in SECURITY_HEADERS.items():
                headers.setdefault(name, value)
            await send(start)
            await send({"type": "http.response.body", "body": data})
        await self.app(scope, receive, whole)


_error = answers.error


def create_app(db_url: str | None = None, data_dir: str | Path = "data",
               bot_delay: float = 0.3, static_dir: str | Path | None = None,
               rate: float = schemas.RATE_PER_SECOND, limits: Limits | None = None,
               cluster=None, store_retry_seconds: float = RETRY_SECONDS) -> FastAPI:
    """The app. ``db_url``: any SQLAlchemy URL; by default SQLite in ``data_dir/shangyou.db``.
    ``bot_delay``: seconds a bot waits before each move (0 in tests). ``limits``: what one
    client may cost (:class:`~shangyou.server.limits.Limits`; ``docs/security.md``).
    ``cluster``: a :class:`~shangyou.server.cluster.ClusterConfig` to run as one node of
    several on a shared PostgreSQL database and Redis (``docs/deploy.md``).
    ``store_retry_seconds``: how long a write the database does not take is tried again
    (:class:`~shangyou.server.store.AsyncStore`)."""
    static = Path(static_dir) if static_dir is not None else STATIC_DIR
    url = database_url(db_url, data_dir)
    limits = limits or Limits()
    state: dict = {}

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        store = AsyncStore(Store(url, node=cluster.node if cluster else None),
                           retry_seconds=store_retry_seconds)
        node = lease = None
        if cluster is not None:
            from .cluster import Node
            from .ownership import DbLease
            lease = DbLease(store, cluster.node, cluster.lease_seconds)
        manager = TableManager(store, bot_delay=bot_delay, rate=rate, limits=limits,
                               lease=lease)
        if cluster is not None:
            node = Node(manager, cluster)
            await node.start()
        await manager.startup()
        state["store"], state["manager"], state["node"] = store, manager, node
        state["lobby"] = Lobby(store.store, limits) if node is not None else None
        state["ready"] = Readiness(manager, node)
        app.state.manager = manager
        state["reviews"] = app.state.reviews = ReviewJobs(
            store, manager.work.advice, limits, manager.clients)

        async def drain() -> None:
            """Hand this node's work on before it stops (server/drain.py)."""
            tables = await manager.drain()
            moved = node.drain() if node is not None else 0
            log.warning("draining: %d tables handed on, %d clients of other nodes' tables "
                        "moved", tables, moved)
            if node is not None:        # what the proxy's table affinity spared (cluster.py)
                log.warning("since it started: %d sockets relayed to another node, %d tables "
                            "asked of another node (%d handed over), %d handed over to "
                            "another node", node.relayed, node.asked, node.got, node.given)

        app.state.drain = drain
        try:
            yield
        finally:
            state["reviews"].shutdown()
            await manager.shutdown()
            if node is not None:
                await node.stop()
                state["lobby"].close()
            store.close()

    app = FastAPI(title="shangyou", lifespan=lifespan, docs_url="/api/docs",
                  redoc_url=None, openapi_url="/api/openapi.json")
    presets_cache = _presets()

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError):
        errs = exc.errors()
        parts = []
        for e in errs[:3]:
            where = ".".join(str(x) for x in e.get("loc", ()) if x != "body") or "body"
            parts.append(f"{where}: {e.get('msg', 'invalid')}")
        return _error(422, "; ".join(parts))

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException):
        if isinstance(exc.__cause__, RecursionError):     # a body nested too deeply to parse
            return _error(422, "the request body is nested too deeply")
        return _error(exc.status_code, str(exc.detail))

    @app.exception_handler(StoreUnavailable)
    async def _store_down(request: Request, exc: StoreUnavailable):
        # logged by the store, once; the client may try again
        return _error(503, "the database is not answering; try again shortly", "unavailable")

    @app.exception_handler(RecursionError)
    async def _too_deep(request: Request, exc: RecursionError):
        return _error(422, "the request is nested too deeply")

    app.add_middleware(SecurityHeaders, docs_url=app.docs_url)

    # ------------------------------------------------------------------------------- pages
    def page(kind: str) -> Response:
        f = static / PAGES[kind]
        if f.is_file():
            return FileResponse(f, media_type="text/html; charset=utf-8",
                                headers={"Cache-Control": "no-cache"})
        return HTMLResponse(_PLACEHOLDER.format(page=kind, file=PAGES[kind]))

    @app.get("/", include_in_schema=False)
    async def lobby():
        return page("lobby")

    @app.get("/t/{table_id}", include_in_schema=False)
    async def table_page(table_id: str):
        return page("table")

    @app.get("/replay/{match_id}", include_in_schema=False)
    async def replay_page(match_id: str):
        return page("replay")

    @app.get("/favicon.ico", include_in_schema=False)
    async def favicon():
        f = static / "favicon.svg"
        if not f.is_file():
            raise HTTPException(404, "not found")
        return FileResponse(f, media_type="image/svg+xml", headers={"Cache-Control": "max-age=86400"})

    @app.get("/static/{path:path}", include_in_schema=False)
    async def static_file(path: str):
        root = static.resolve()
        try:
            f = (root / path).resolve()
        except (OSError, ValueError):
            raise HTTPException(404, "not found") from None
        if not f.is_relative_to(root) or not f.is_file():
            raise HTTPException(404, "not found")
        return FileResponse(f, headers={"Cache-Control": "no-cache"})

    # --------------------------------------------------------------------------------- API
    @app.get("/healthz")
    async def healthz():
        """Alive: the process runs (``docs/operations.md``)."""
        return {"ok": True}

    @app.get("/readyz")
    async def readyz():
        """Ready to serve: the database and Redis answer, the leases and the watchdog run;
        503 with the checks that failed otherwise (``docs/operations.md``)."""
        ready, out = await state["ready"].check()
        return JSONResponse(status_code=200 if ready else 503, content=out,
                            headers={"Cache-Control": "no-store"})

    @app.get("/api/presets", response_model=list[schemas.PresetOut], responses=ERRORS)
    async def presets():
        return presets_cache

    @app.get("/api/bots", response_model=schemas.BotLevels, responses=ERRORS)
    async def bots():
        return {"levels": list(schemas.BOT_LEVELS)}

    @app.post("/api/tables", response_model=schemas.CreatedTable, responses=ERRORS)
    async def create_table(body: schemas.CreateTable, request: Request):
        """A new waiting table; its ``host_token`` makes whoever says it in ``hello`` the
        host."""
        made = await answers.new_table(state["manager"], body, request)
        if isinstance(made, JSONResponse):
            return made
        t, token = made
        return {"table_id": t.id, "url": f"/t/{t.id}", "host_token": token}

    app.include_router(playnow.router)       # POST /api/play: a table with bots, started
    from . import learn                      # /learn and /api/learn: first lessons
    app.state.static_dir = static             # the pages' folder, for its page
    app.include_router(learn.router)

    page_max = limits.page_max

    lobby_reads = Buckets(limits.lobby_reads_per_minute_address)

    @app.get("/api/tables", response_model=schemas.TablePage, responses=ERRORS)
    async def list_tables(request: Request, offset: int = Query(0, ge=0, le=1_000_000),
                          limit: int = Query(50, ge=1, le=page_max)):
        """One page of the open tables listed in the lobby."""
        address = request.client.host if request.client else None
        if not lobby_reads.take(address, state["manager"].clients.factor(address)):
            # a flood of lobby reads is cut off before it costs the moves' event loop anything
            return _error(429, f"at most {limits.lobby_reads_per_minute_address} lobby pages "
                          "a minute from one address; try again shortly", "rate_limited")
        if state["lobby"] is not None:        # several nodes: the database's (lobby.py)
            try:                              # its JSON, checked and encoded once a read
                return Response(await state["lobby"].page_json(offset, limit),
                                media_type="application/json")
            except LobbyBusy as e:
                return _error(503, str(e), "busy")
        return state["manager"].page(offset, limit)

    @app.get("/api/matches", response_model=list[schemas.MatchListItem], responses=ERRORS)
    async def list_matches(limit: int = Query(100, ge=1, le=500),
                           offset: int = Query(0, ge=0, le=1_000_000)):
        return await state["store"].call("finished_matches", limit, offset)

    replays = ReplayCache()

    async def finished(match_id: str) -> dict:
        m = None
        if len(match_id) <= 32:
            m = await state["store"].call("match", match_id)
        if m is None:
            raise HTTPException(404, "no such match")
        if m["finished_at"] is None:
            raise HTTPException(404, "the match is still being played")
        m["log"] = {"format": "shangyou-log/1", "game": m["game"], "players": m["players"],
                    "seed": m["seed"], "match": True, "options": m["options"],
                    "moves": m["moves"]}
        if m.get("commitment"):
            m["log"]["commitment"] = m["commitment"]
        # the last hash of the moves' chain: what every player's last state carried
        m["log"]["moves_hash"] = fairness.moves_chain(m["seed"], m["moves"])[-1]
        if m.get("assisted"):          # moves made for a person: {"index": "bot" | "timer"}
            m["log"]["assisted"] = m["assisted"]
        if m.get("hints"):             # moves that followed the hint: {"index": level}
            m["log"]["hints"] = m["hints"]
        return m

    async def published(match_id: str) -> tuple[dict, ReplayEntry]:
        """A finished match with its log as published: the deal secret (its ``seed``), the
        commitment made at the start and the record of every deal (computed once, from the
        log, in a thread)."""
        m = await finished(match_id)
        entry = replays.entry(match_id) or replays.entry(match_id, m["log"])
        if entry.deals is None:
            entry.deals = await anyio.to_thread.run_sync(
                entry.build, len(m["log"]["moves"]), fairness.deal_record)
        m["log"]["deals"] = entry.deals
        return m, entry

    @app.get("/api/matches/{match_id}", response_model=schemas.MatchOut, responses=ERRORS)
    async def get_match(match_id: str):
        m, _ = await published(match_id)
        return {"log": m["log"], "result": m["result"], "names": m["names"]}

    @app.get("/api/matches/{match_id}/verify", response_model=schemas.VerifyOut,
             responses=ERRORS)
    async def verify_match(match_id: str):
        """The server's own check of a finished match's published log (``shangyou verify``
        does the same anywhere): the secret matches the commitment, the log replays, the
        deals follow from the secret."""
        m, entry = await published(match_id)
        if entry.verified is None:
            report = await anyio.to_thread.run_sync(fairness.verify, m["log"])
            logged = m["log"].get("commitment")
            entry.verified = {
                "ok": report.ok, "commitment": logged,
                "commitment_ok": bool(logged) and report.commitment == logged,
                "replays": report.moves == len(m["log"]["moves"]),
                "deals_ok": bool(report.hands) and all(h.ok for h in report.hands),
                "hands": len(report.hands), "reason": report.reason, "lines": report.lines(),
                "moves_hash": report.moves_hash,
                "moves_ok": report.moves_hash is not None
                and report.moves_hash == m["log"].get("moves_hash")}
        return entry.verified

    @app.get("/api/matches/{match_id}/review",
             responses={**ERRORS, 503: {"model": schemas.HttpError,
                                        "description": "busy (or unavailable)"}})
    async def match_review(request: Request, match_id: str,
                           seat: int = Query(..., ge=0, le=15)):
        """The search bot's review of one seat's decisions (docs/protocol.md, *Reviews*):
        stored, or started now in the background (its progress)."""
        address = request.client.host if request.client else None
        try:
            state["reviews"].admit(address)
        except RateLimited as e:
            return _error(429, f"{e}; try again later", "rate_limited")
        m = await finished(match_id)
        if seat >= m["players"]:
            raise HTTPException(422, f"seat must be 0..{m['players'] - 1}")
        try:
            return await state["reviews"].status(match_id, seat, m["log"], address)
        except Busy:
            return _error(503, "too many reviews are being worked out; try again later",
                          "busy")
        except RateLimited as e:
            return _error(429, f"{e}; try again later", "rate_limited")

    @app.get("/api/matches/{match_id}/step/{k}", response_model=schemas.ReplayStep,
             responses=ERRORS)
    async def match_step(match_id: str, k: int, seat: str = "all"):
        entry = replays.entry(match_id)
        if entry is None:
            entry = replays.entry(match_id, (await finished(match_id))["log"])
        log_ = entry.log
        n = len(log_["moves"])
        if not 0 <= k <= n:
            raise HTTPException(422, f"step {k} is out of range 0..{n}")
        who: str | int | None
        if seat in ("all", "public", "spectator", ""):
            who = "all" if seat == "all" else None
        elif seat.isdigit() and int(seat) < log_["players"]:
            who = int(seat)
        else:
            raise HTTPException(422, f"seat must be 'all', 'public' or 0..{log_['players'] - 1}")
        return await anyio.to_thread.run_sync(
            entry.build, k, lambda g: views.replay_step(g, k, n, who))

    # ---------------------------------------------------------------------------- socket
    @app.websocket("/ws/{table_id}")
    async def socket(ws: WebSocket, table_id: str):
        manager: TableManager = state["manager"]
        if not origin_allowed(ws.headers.get("origin"), ws.headers.get("host"),
                              ws.url.scheme, limits.origins):
            await ws.close(4403)          # before the handshake: an HTTP 403
            return
        await ws.accept()

        async def moved() -> None:        # this node stops: the client tries another
            await ws.send_json({"type": "error", "code": "moved",
                                "message": "this server is stopping; reconnecting to another"})
            await ws.close(MOVED_CODE)

        if manager.draining:
            await moved()
            return
        address = ws.client.host if ws.client else None
        bind_table(table_id)          # its lines name the table (an id the server could make)
        try:
            table = await manager.get(table_id)
            if table is None and state["node"] is not None:
                table = await state["node"].open(ws, table_id, address)
                if table is True:           # served through the node that runs the table
                    return
            status = None
            if table is None and 0 < len(table_id) <= 32:
                status = await state["store"].call("table_status", table_id)
        except StoreUnavailable:            # logged by the store, once
            await ws.send_json({"type": "error", "code": "unavailable",
                                "message": "the database is not answering; try again shortly"})
            await ws.close(1013)            # try again later
            return
        if table is None and manager.draining:   # (a drain began while this socket waited)
            await moved()
            return
        if table is None:
            if status in ("closed", "expired"):
                why = "its host closed it" if status == "closed" else \
                    "nobody used it for a while"
                await ws.send_json({"type": "error", "code": "closed",
                                    "message": f"this table was closed: {why}"})
                await ws.close(4410)
            else:
                await ws.send_json({"type": "error", "code": "no_table",
                                    "message": f"no table {table_id[:40]!r}"})
                await ws.close(4404)
            return
        conn = manager.new_conn(table, ws, address)
        if conn is None:
            await ws.send_json({"type": "error", "code": "too_many_sockets",
                                "message": "too many open sockets on this table or from your "
                                "address"})
            await ws.close(4429)
            return
        # The socket is read all the time, and its messages handled one at a time by a task
        # of their own: a message that waits (for the store, under load) does not stop the
        # reading, so the client's pongs are read in time (the server's pings would close a
        # live client otherwise: uvicorn reads nothing more until the last message is taken).
        inbox: asyncio.Queue = asyncio.Queue()
        worker = asyncio.create_task(_handle_inbox(manager, table, conn, inbox),
                                     name=f"ws-inbox-{conn.id}")
        try:
            while True:
                msg = await ws.receive()
                if msg["type"] == "websocket.disconnect":
                    break
                raw = msg.get("text")
                if raw is None:
                    raw = msg.get("bytes")
                if answer_ping(conn, raw):      # at once, not behind the table's messages
                    continue
                if inbox.qsize() >= INBOX:      # the client sends faster than it is served
                    conn.refused_in_a_row += 1
                    if conn.refused_in_a_row > FLOOD_CLOSE:
                        conn.close(1008)
                    else:
                        conn.error("rate_limited", f"{INBOX} messages wait already; this one "
                                   "was ignored")
                    continue
                inbox.put_nowait(raw)
        except WebSocketDisconnect:
            pass
        except RuntimeError:       # receive after the socket closed
            pass
        finally:
            inbox.put_nowait(_DONE)
            await worker             # what was read is handled, then the socket is gone
            await manager.disconnect(table, conn)

    app.include_router(accounts.router)
    app.include_router(analysis.router)      # /analysis, POST /api/analysis
    from . import puzzles                    # /puzzles, /api/puzzles/...
    app.include_router(puzzles.router)
    app.add_middleware(BodyLimit, limit=limits.body_bytes, seconds=limits.body_seconds)
    # GET /metrics, for the operator's scraper only (server/metrics.py)
    app.state.metrics_registry = metrics.registry_for(state)
    app.state.metrics_access = metrics.Access.from_env(limits.metrics_from)
    app.include_router(metrics.router)
    app.add_middleware(metrics.StatusCounter)
    return app
