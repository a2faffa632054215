"""One client socket: its send queue (drained by its own writer task) and its rate limit."""

from __future__ import annotations

import asyncio
import itertools
import logging
import time

from . import metrics, pipeline, schemas, views

log = logging.getLogger("shangyou.server")

SEND_QUEUE = 1024          # messages waiting for one socket; a client that falls further behind
#                            is disconnected (it reconnects and gets the whole state again)
CLOSE_FLUSH_SECONDS = 5.0  # the most a gone socket's writer is given to send a close it was told
FLOOD_CLOSE = 400          # refused messages in a row before a flooding socket is closed
INBOX = 32                 # messages read from a socket and waiting to be handled; past this
#                            the next ones are refused (rate_limited)

_CLOSE = object()


class Conn:
    """One client socket: a send queue drained by its own writer task, and a rate limiter."""

    _ids = itertools.count(1)
    remote = False             # a socket held by another node (relay.RemoteConn)

    def __init__(self, ws, rate: float = schemas.RATE_PER_SECOND, address: str | None = None):
        self.ws = ws
        self.id = next(self._ids)
        self.address = address
        self.seat: int | None = None
        self.token: str | None = None          # the seat's or the host's token, when proved
        self.token_hash: str | None = None
        self.kicked = False                     # the host took this socket's seat
        self.hello_timer: asyncio.TimerHandle | None = None
        self.name = ""
        self.said_hello = False
        self.closed = False
        self.closing = False                    # close() queued its close frame
        self.close_code = 1000
        self.rate = rate
        self.tokens = float(rate)
        self.stamp = time.monotonic()
        self.refused_in_a_row = 0
        self.queue: asyncio.Queue = asyncio.Queue(SEND_QUEUE)
        self.writer: asyncio.Task | None = None

    def start(self) -> None:
        self.writer = asyncio.create_task(self._write(), name=f"ws-writer-{self.id}")

    async def _write(self) -> None:
        try:
            while True:
                item = await self.queue.get()
                if item is _CLOSE:
                    await self.ws.close(self.close_code)
                    return
                await self.ws.send_text(item)
        except asyncio.CancelledError:
            raise
        except Exception:       # the client went away
            pass
        finally:
            self.closed = True

    def allow(self) -> bool:
        """Token bucket: ``rate`` messages per second, bursts of ``rate``."""
        now = time.monotonic()
        self.tokens = min(float(self.rate), self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False

    def send_text(self, text: str) -> None:
        if self.closed:
            return
        try:
            self.queue.put_nowait(text)
        except asyncio.QueueFull:
            log.warning("socket %s is too slow; closing it", self.id)
            self.close(1013)

    def send(self, msg: dict) -> None:
        self.send_text(views.dumps(msg))

    def error(self, code: str, message: str, why=None) -> None:
        """``why``: for an illegal play, the rule it breaks (``games/why.py``), sent as
        ``{"code", "params", "text": {"en", "zh"}}`` so the page shows it in its language."""
        metrics.socket_error(code)
        msg = {"type": "error", "code": code, "message": message}
        if why is not None:
            msg["why"] = why.as_dict()
        self.send(msg)

    def close(self, code: int = 1000) -> None:
        """Close after what is queued has been sent."""
        if self.closed:
            return
        self.closed = True
        self.closing = True
        self.close_code = code
        try:
            self.queue.put_nowait(_CLOSE)
        except asyncio.QueueFull:
            while not self.queue.empty():
                self.queue.get_nowait()
            self.queue.put_nowait(_CLOSE)

    async def finish(self) -> None:
        """The socket is gone, or its reading is over: stop the writer. A close this socket
        was told (``moved``, say) goes out first: a handler that returns before its close frame
        was written has its connection dropped by the server without one, and the client
        would not know it should move (it would back off instead)."""
        self.closed = True
        w = self.writer
        if w is not None and not w.done() and self.closing:
            try:
                await asyncio.wait_for(asyncio.shield(w), CLOSE_FLUSH_SECONDS)
            except (asyncio.TimeoutError, Exception):
                pass
        if w is not None and not w.done():
            w.cancel()
            try:
                await w
            except (asyncio.CancelledError, Exception):
                pass



def answer_ping(conn: Conn, raw) -> bool:
    """Answer ``raw`` at once if it is a ``ping`` (rate-limited like any message); True if it
    was one. The socket's own node answers, whatever node runs the table: a pong says this
    node and the way to it are alive (the table's owner is watched by the nodes themselves)."""
    ping = pipeline.ping_id(raw)
    if ping is None:
        return False
    if conn.allow():
        conn.send(pipeline.pong(ping))
    else:
        conn.error("rate_limited", "too many messages; this ping was ignored")
    return True
