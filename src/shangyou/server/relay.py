"""Redis pub/sub between the nodes: a client's socket on one node, its table on another.

Every node subscribes to one channel of its own, ``shangyou:node:<id>``. What a node sends
another is queued during a turn of its event loop and published as one message, in order on
one connection: ``{"from": NODE, "stream": ID, "seq": N, "items": [[op, ...], ...]}``, a
numbered message of a stream (:mod:`shangyou.server.links`: the receiver acknowledges, and a
message it missed, because its subscription dropped, is sent again). The ops are

- from the node that holds a client's socket (its *gateway*) to the node that runs the table
  (its *owner*): ``["open", table, sid, address, session]`` (``session``: the hash of the
  client's session cookie, or null; the owner looks its account up itself, for a rated seat),
  ``["msg", table, sid, text]`` (the client's message as it came), ``["bye", table, sid]``
  (the socket closed);
- from the owner to the gateway: ``["send", sid, text]`` (a message for that socket, built by
  the owner's views) and ``["close", sid, code]``.
- with table affinity (:mod:`shangyou.server.cluster`): ``["yield", table]``, a node that gets
  the table's sockets from the proxy asks its owner for it, and ``["yielded", table, ok]``,
  the owner's answer (true: released, or not held).

``sid`` is the socket's number on its gateway. An acknowledgement is ``{"from": NODE, "ack":
[stream, last number received, want]}``. A subscription that Redis drops (a node that reads
too slowly outgrows ``client-output-buffer-limit pubsub``; docs/deploy.md) is made again at
once, and the node asks every sender for what it missed. A node is gone when its heartbeat in
the database runs out (:class:`~shangyou.server.ownership.DbLease`), not when a message finds no
subscriber: then its sockets are treated as closed, and its clients reconnect and get their
whole state again.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING, Callable

import orjson

from .conn import Conn
from .links import Links

if TYPE_CHECKING:
    from redis.asyncio.client import PubSub

log = logging.getLogger("shangyou.server")

PREFIX = "shangyou:node:"


def channel(node: str) -> str:
    return PREFIX + node


class Relay:
    """This node's Redis connection: its channel (read by one task) and an ordered outbox."""

    def __init__(self, url: str, node: str, on_items: Callable[[str, list], None],
                 on_gone: Callable[[str], None], on_down: Callable[[], None] = lambda: None):
        try:
            import redis.asyncio as aredis
        except ModuleNotFoundError:
            raise ModuleNotFoundError("a node of several needs redis-py: pip install "
                                      "'shangyou[web,cluster]'", name="redis") from None
        self.url = url
        self.node = node
        self.redis = aredis.from_url(url, client_name=f"shangyou-{node}")
        self.on_items = on_items          # (from node, items): called in the event loop
        self.on_gone = on_gone            # (node): its sockets here are gone
        self.on_down = on_down            # (): Redis is out of reach: no socket spans nodes
        self.up = True                    # Redis answers (a ping, or the subscription)
        self.downs = 0                    # times the link to Redis was found down
        self._restart: set[str] = set()   # nodes told of new streams once Redis is back
        self.links = Links(node)
        self._out: dict[str, list] = {}
        self._queue: asyncio.Queue = asyncio.Queue()
        self._tasks: list[asyncio.Task] = []
        self._pubsub: PubSub | None = None
        self._unheard: set[str] = set()   # nodes a message found without a subscriber
        self.heard: dict[str, float] = {}   # node -> when it was last heard of (monotonic)
        self.resubscribed = 0             # times this node's subscription was made again
        self._said_resubscribed = -2.0

    async def start(self) -> None:
        self._pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
        await self._pubsub.subscribe(channel(self.node))
        conn = self._pubsub.connection
        if conn is not None:              # a reconnection inside redis-py subscribes again
            conn.register_connect_callback(self._reconnected)
        self._tasks = [asyncio.create_task(self._read(), name="relay-read"),
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
            self._queue.put_nowait((node, self.links.send(node, items), True))
            if self.links.too_much(node):
                log.error("node %s acknowledges nothing: %d bytes wait for it; resetting the "
                          "link", node, self.links.out[node].size)
                self.reset(node)

    def reset(self, node: str) -> None:
        """Start over with ``node``: the sockets between us are gone on both sides (a new
        stream tells it)."""
        self.links.reset(node)
        self.on_gone(node)
        self._queue.put_nowait((node, self.links.send(node, []), True))

    def gone(self, node: str) -> None:
        """``node`` stopped (its heartbeat ran out): its sockets here are gone."""
        self.links.reset(node)
        self._unheard.discard(node)
        self.heard.pop(node, None)
        self.on_gone(node)

    def link_down(self, why: str) -> None:
        """Redis is out of reach: nothing goes between the nodes. Every stream starts over
        (what was held for the other nodes is dropped), and :attr:`on_down` tells the sockets
        that span nodes to move at once: the clients reconnect, and reach the node that runs
        their table (or take it over), instead of hearing nothing until Redis is back."""
        if not self.up:
            return
        self.up = False
        self.downs += 1
        log.error("Redis is out of reach (%s): the clients of tables run by other nodes move",
                  why)
        for node in set(self.links.out) | set(self.links.inc):
            self.links.reset(node)
            self._restart.add(node)
        self._unheard.clear()
        self.on_down()

    def link_up(self) -> None:
        """Redis answers again: each node whose streams were dropped is sent the first
        message of a new one, so that it knows the sockets between us are gone (a node that
        did not see Redis down would keep its side of them, waiting for nothing)."""
        if not self.up:
            self.up = True
            log.warning("Redis answers again")
            for node in self._restart:
                self._queue.put_nowait((node, self.links.send(node, []), True))
            self._restart.clear()

    async def check(self, timeout: float) -> bool:
        """Ping Redis (at most ``timeout`` seconds): the link is up or down."""
        try:
            await asyncio.wait_for(self.redis.ping(), timeout)
        except asyncio.CancelledError:
            raise
        except Exception as e:            # noqa: BLE001 - down: said once, checked again
            self.link_down(f"a ping: {type(e).__name__} {e}".strip())
            return False
        if self._pubsub is not None and self._pubsub.connection is not None:
            self.link_up()
        return self.up

    async def _write(self) -> None:
        while True:
            node, payload, numbered = await self._queue.get()
            try:
                got = await self.redis.publish(channel(node), payload)
            except asyncio.CancelledError:
                raise
            except Exception as e:        # noqa: BLE001 - Redis is down: held, sent again
                log.warning("publishing to node %s failed (%s)", node, e)
                continue
            if got == 0 and numbered and node not in self._unheard:
                self._unheard.add(node)       # kept until acknowledged: sent again later
                log.warning("node %s: nobody listens on its channel; holding its messages",
                            node)
            elif got and node in self._unheard:
                self._unheard.discard(node)

    def acknowledge(self) -> None:
        """Acknowledge every stream this node receives (four times a lease)."""
        for sender in self.links.senders():
            ack = self.links.ack(sender)
            if ack is not None:
                self._queue.put_nowait((sender, ack, False))

    async def _reconnected(self, _conn) -> None:
        """This node's subscription was made again: ask every sender for what it missed."""
        self.resubscribed += 1
        now = time.monotonic()
        if now - self._said_resubscribed > 1.0:      # once for a burst of reconnections
            self._said_resubscribed = now
            log.warning("this node's Redis subscription was made again; asking the other "
                        "nodes for what it missed")
        for sender in self.links.senders():
            ack = self.links.ack(sender, want=True)
            if ack is not None:
                self._queue.put_nowait((sender, ack, False))

    # ---------------------------------------------------------------------------- receiving
    async def _read(self) -> None:
        while True:
            pubsub = self._pubsub
            assert pubsub is not None
            try:
                m = await pubsub.get_message(timeout=None)     # blocks until one
            except asyncio.CancelledError:
                raise
            except Exception as e:
                log.warning("reading this node's channel failed (%s); subscribing again", e)
                await self._subscribe_again()
                continue
            if m is None or m.get("type") != "message":
                continue
            try:
                self._received(orjson.loads(m["data"]))
            except Exception:
                log.exception("a message between nodes failed")

    async def _subscribe_again(self) -> None:
        delay = 0.1
        while True:
            await asyncio.sleep(delay)
            delay = min(2.0, delay * 2)           # Redis is down: try again, less often
            try:
                if self._pubsub is not None:
                    await self._pubsub.aclose()
                self._pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
                await self._pubsub.subscribe(channel(self.node))
                conn = self._pubsub.connection
                if conn is not None:
                    conn.register_connect_callback(self._reconnected)
            except asyncio.CancelledError:
                raise
            except Exception as e:        # noqa: BLE001 - Redis is down: try again
                if self.up:
                    log.warning("subscribing again failed (%s)", e)
                self.link_down(f"subscribing again: {type(e).__name__}")
                continue
            self.link_up()
            await self._reconnected(None)
            return

    def _received(self, data: dict) -> None:
        sender = str(data["from"])
        self.heard[sender] = time.monotonic()
        if "ack" in data:
            stream, got, want = data["ack"]
            again = self.links.acked(sender, str(stream), int(got), bool(want))
            if again is None:
                log.warning("node %s missed messages no longer held; resetting the link",
                            sender)
                self.reset(sender)
                return
            if again:
                log.warning("node %s missed messages: sending %d again", sender, len(again))
            for payload in again:
                self._queue.put_nowait((sender, payload, True))
            return
        deliver, ask, ended = self.links.receive(sender, str(data["stream"]), int(data["seq"]))
        if ended:                         # the sender started over: its sockets are gone
            self.on_gone(sender)
        if ask:
            ack = self.links.ack(sender, want=True)
            if ack is not None:
                self._queue.put_nowait((sender, ack, False))
        if deliver:
            self.on_items(sender, list(data["items"]))


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
        self.session_hash: str | None = None    # the client's session cookie's (its gateway's)

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
