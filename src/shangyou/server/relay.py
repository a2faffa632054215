"""Redis pub/sub between the nodes: a client's socket on one node, its table on another.

Every node subscribes to one channel of its own, ``shangyou:node:<id>``. What a node sends
another is queued during a turn of its event loop and published as one message (JSON, newest
last, published in order on one connection, so it arrives in order): ``{"from": NODE,
"items": [[op, ...], ...]}``, where the ops are

- from the node that holds a client's socket (its *gateway*) to the node that runs the table
  (its *owner*): ``["open", table, sid, address]``, ``["msg", table, sid, text]`` (the client's
  message as it came), ``["bye", table, sid]`` (the socket closed);
- from the owner to the gateway: ``["send", sid, text]`` (a message for that socket, built by
  the owner's views) and ``["close", sid, code]``.

``sid`` is the socket's number on its gateway. ``PUBLISH`` answers how many subscribers got a
message: none means that node is gone (its Redis connection closed), and its sockets are
treated as closed. A message published while the receiving node is paused waits in Redis's
output buffer for that connection; one published to a node that is gone is lost, which costs
nothing that was stored: a client reconnects and gets its whole state again.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Callable

import orjson

from .conn import Conn

if TYPE_CHECKING:
    from redis.asyncio.client import PubSub

log = logging.getLogger("shangyou.server")

PREFIX = "shangyou:node:"


def channel(node: str) -> str:
    return PREFIX + node


class Relay:
    """This node's Redis connection: its channel (read by one task) and an ordered outbox."""

    def __init__(self, url: str, node: str, on_items: Callable[[str, list], None],
                 on_gone: Callable[[str], None]):
        try:
            import redis.asyncio as aredis
        except ModuleNotFoundError:
            raise ModuleNotFoundError("a node of several needs redis-py: pip install "
                                      "'shangyou[web,cluster]'", name="redis") from None
        self.url = url
        self.node = node
        self.redis = aredis.from_url(url)
        self.on_items = on_items          # (from node, items): called in the event loop
        self.on_gone = on_gone            # (node): a node no subscriber listens for
        self._out: dict[str, list] = {}
        self._queue: asyncio.Queue = asyncio.Queue()
        self._tasks: list[asyncio.Task] = []
        self._pubsub: PubSub | None = None

    async def start(self) -> None:
        self._pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
        await self._pubsub.subscribe(channel(self.node))
        self._tasks = [asyncio.create_task(self._read(self._pubsub), name="relay-read"),
                       asyncio.create_task(self._write(), name="relay-write")]

    async def stop(self) -> None:
        for t in self._tasks:
            t.cancel()
        for t in self._tasks:
            try:
                await t
            except (asyncio.CancelledError, Exception):
                pass
        try:
            if self._pubsub is not None:
                await self._pubsub.aclose()
            await self.redis.aclose()
        except Exception:
            pass

    # ----------------------------------------------------------------------------- sending
    def post(self, node: str, item: list) -> None:
        """Queue ``item`` for ``node``: published with the others of this turn of the loop."""
        if not self._out:
            asyncio.get_running_loop().call_soon(self._flush)
        self._out.setdefault(node, []).append(item)

    def _flush(self) -> None:
        out, self._out = self._out, {}
        for node, items in out.items():
            self._queue.put_nowait((node, orjson.dumps({"from": self.node, "items": items})))

    async def _write(self) -> None:
        while True:
            node, payload = await self._queue.get()
            try:
                got = await self.redis.publish(channel(node), payload)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("publishing to node %s failed", node)
                continue
            if got == 0:
                self.on_gone(node)

    async def alive(self, node: str) -> bool:
        """Some connection listens on ``node``'s channel (the node runs, or is paused)."""
        if node == self.node:
            return True
        got = await self.redis.pubsub_numsub(channel(node))
        return bool(got and got[0][1])

    # ---------------------------------------------------------------------------- receiving
    async def _read(self, pubsub: PubSub) -> None:
        while True:
            try:
                m = await pubsub.get_message(timeout=None)     # blocks until one
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("reading this node's channel failed; subscribing again")
                await asyncio.sleep(0.5)
                try:
                    await pubsub.subscribe(channel(self.node))
                except Exception:
                    pass
                continue
            if m is None or m.get("type") != "message":
                continue
            try:
                data = orjson.loads(m["data"])
                self.on_items(str(data["from"]), list(data["items"]))
            except Exception:
                log.exception("a message between nodes failed")


class RemoteConn(Conn):
    """On the table's owner: a client socket held by another node (its gateway). The
    manager treats it as any socket; what it sends goes through the relay to the gateway,
    and the client's messages come in through :attr:`inbox`, read one at a time."""

    remote = True

    def __init__(self, relay: Relay, node: str, sid: int, rate: float,
                 address: str | None = None):
        super().__init__(None, rate=rate, address=address)
        self.relay = relay
        self.node = node              # the gateway
        self.sid = sid                # the socket's number there
        self.inbox: asyncio.Queue = asyncio.Queue()
        self.task: asyncio.Task | None = None

    def start(self) -> None:          # no writer task: the relay sends
        pass

    def send_text(self, text: str) -> None:
        if not self.closed:
            self.relay.post(self.node, ["send", self.sid, text])

    def close(self, code: int = 1000) -> None:
        if self.closed:
            return
        self.closed = True
        self.close_code = code
        self.relay.post(self.node, ["close", self.sid, code])

    async def finish(self) -> None:
        self.closed = True
