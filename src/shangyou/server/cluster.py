"""This process as one node of several: any node serves any table.

Nodes share one PostgreSQL database (the source of truth, and the leases:
:mod:`shangyou.server.ownership`) and one Redis server (the relay between them:
:mod:`shangyou.server.relay`). A client may open its socket on any node:

- the node whose lease covers the table (its *owner*) runs the table's pipeline, its bots (in
  that node's worker pool) and its timers, for every socket of the table wherever it is;
- another node is that socket's *gateway*: it forwards the client's messages to the owner and
  the owner's messages (built by the owner's views, one per seat) to the client, and tells the
  owner the hash of the client's session cookie, so that the owner looks the account up
  itself (a rated seat is taken on the node that runs the table);
- a table nobody runs (free, or its owner's lease ran out) is taken by the node a client opens
  it on. A client on the gateway of a table whose owner is gone (its heartbeat, and so its
  leases, ran out) or changed is told ``moved`` and its socket closes with 1012; it
  reconnects, to any node, and that node takes the table over from the store: nothing stored
  is lost. A node whose Redis subscription drops subscribes again and gets what it missed
  (:mod:`shangyou.server.links`): its clients notice nothing.

**Table affinity** (``--affinity``; ``scripts/cluster.sh`` runs its nodes so): the proxy in
front sends every socket of a table to one node, by a consistent hash of the table's id
(nginx's ``hash ... consistent``; the next node of the ring when that one is down), so that
relaying is the exception. The table's *ownership follows the sockets*: a node that gets a
socket for a table a live other node runs asks that node to hand the table over (``["yield",
table]``); the owner does as a drain does for one table (its move in progress stored, its
lease released, its clients told ``moved``: through the proxy they reconnect to the asking
node) and answers ``["yielded", table, true]``; the asking node takes the table from the store
and serves the socket itself. So a table made by ``POST /api/tables`` on any node moves to the
node its sockets hash to with its first socket, and after its node died, to the node the proxy
sends its sockets to now. Relaying stays for what the hash does not cover: an owner that does
not answer within :data:`ASK_SECONDS`, a table that came to its owner by such a hand-over
less than a lease ago (two nodes both getting its sockets, as while a node restarts, do not
pass it to and fro: one of them relays until the proxy settles), a node without ``--affinity``.

The lobby and the replays read the database, so every node shows the same.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field

from starlette.websockets import WebSocketDisconnect

from .accounts import SESSION_HASH, session_hash
from .conn import FLOOD_CLOSE, Conn, answer_ping
from .logs import bind_table
from .relay import Relay, RemoteConn
from .store import StoreUnavailable
from .tables import MOVED_CODE, TableManager

log = logging.getLogger("shangyou.server")

_BYE = object()
ASK_SECONDS = 2.0          # the most a socket waits for an owner to hand its table over


@dataclass(frozen=True)
class ClusterConfig:
    """``--node-id``, ``--redis`` and ``--lease-seconds`` of ``python -m shangyou.server``."""
    node: str
    redis_url: str = field(repr=False)      # it may hold Redis's password
    lease_seconds: float = 4.0
    affinity: bool = False        # the proxy routes by table: ownership follows the sockets


@dataclass
class _Proxy:
    """A client socket on this node for a table another node runs. ``heard``: the owner sent
    it something (its welcome comes first): until then its pings go to the owner too, so a
    client hears a pong only from a table that answers (not from this node alone, which would
    keep a socket the owner never took up looking alive)."""
    conn: Conn
    table_id: str
    owner: str
    heard: bool = False


class Node:
    def __init__(self, manager: TableManager, config: ClusterConfig):
        self.manager = manager
        self.store = manager.store
        self.config = config
        self.id = config.node
        self.lease = manager.lease        # a DbLease: it says which nodes are alive
        self.relay = Relay(config.redis_url, self.id, self._on_items, self._on_gone,
                           self._on_down)
        self.remote: dict[tuple[str, int], RemoteConn] = {}    # owner: sockets elsewhere
        self.proxies: dict[int, _Proxy] = {}                   # gateway: sockets here
        self._task: asyncio.Task | None = None
        # affinity: the hand-overs asked of other nodes (table -> its answer to come), when a
        # table was last asked of each owner, and when a table came here by a hand-over
        self._asking: dict[str, asyncio.Future] = {}
        self._asked: dict[tuple[str, str], float] = {}
        self._arrived: dict[str, float] = {}
        self._giving: set[asyncio.Task] = set()
        # counters (a socket relayed to its table's owner; hand-overs asked, got, given)
        self.relayed = 0
        self.asked = 0
        self.got = 0
        self.given = 0

    async def start(self) -> None:
        await self.relay.start()
        self._task = asyncio.create_task(self._watch(), name="cluster-watch")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
        for p in list(self.proxies.values()):
            p.conn.close(1001)
        await asyncio.sleep(0)
        await self.relay.stop()

    # ------------------------------------------------------------------------- the socket
    async def open(self, ws, table_id: str, address: str | None):
        """A socket for a table this node does not hold. The table, if this node took it
        over (the caller serves it as its own); True once the socket was served through the
        table's owner and closed; None when there is no such live table."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.config.lease_seconds + 10.0
        while loop.time() < deadline:
            if self.manager.draining:       # this node stops: the client tries another
                await ws.send_json({"type": "error", "code": "moved", "message":
                                    "this server is stopping; reconnecting to another"})
                await ws.close(MOVED_CODE)
                return True
            owners = await self.store.call("owners", [table_id])
            if table_id not in owners:
                return None
            owner = owners[table_id]
            if owner is None or owner == self.id:
                table = await self.manager.get(table_id)
                if table is not None:
                    return table
                again = await self.store.call("owners", [table_id])
                if again.get(table_id) in (None, self.id):
                    return None             # closed or expired: the caller says which
                continue
            if not self.relay.up or self.manager.draining:
                # no way to the owner from here (or this node stops): try another node
                await ws.send_json({"type": "error", "code": "moved", "message":
                                    "this server cannot reach the table's; reconnecting"})
                await ws.close(MOVED_CODE)
                return True
            if self.lease.alive(owner, self.relay.heard.get(owner, 0.0)):
                if self.config.affinity and await self._ask(owner, table_id):
                    continue                # handed over: taken from the store next round
                self.relayed += 1
                log.info("table %s: a socket relayed to node %s, which runs it", table_id,
                         owner)
                await self._gateway(ws, table_id, owner, address)
                return True
            await asyncio.sleep(0.1)        # the owner is gone: its lease runs out soon
        return None

    async def _gateway(self, ws, table_id: str, owner: str, address: str | None) -> None:
        manager = self.manager
        if not manager.clients.socket_opened(address):
            await ws.send_json({"type": "error", "code": "too_many_sockets",
                                "message": "too many open sockets from your address"})
            await ws.close(4429)
            return
        conn = Conn(ws, rate=manager.rate, address=address)
        conn.start()
        p = _Proxy(conn, table_id, owner)
        # its lease was live just now: alive (for _check) until a later heartbeat says not
        self.relay.heard[owner] = max(self.relay.heard.get(owner, 0.0), time.monotonic())
        self.proxies[conn.id] = p
        # the session cookie's hash: the owner looks the account up (a rated seat)
        self.relay.post(owner, ["open", table_id, conn.id, address, session_hash(ws)])
        if manager.draining:                # the drain's round of proxies may be over
            self._moved(p)
        try:
            # read until the client is gone, even once this socket was told to close: leaving
            # earlier would drop the connection before its close frame went out
            while True:
                msg = await ws.receive()
                if msg["type"] == "websocket.disconnect":
                    break
                if conn.closed:             # told to close (moved, flooding): nothing relayed
                    continue
                raw = msg.get("text")
                if raw is None:
                    try:
                        raw = (msg.get("bytes") or b"").decode("utf-8")
                    except UnicodeDecodeError:
                        conn.error("bad_json", "the message is not valid JSON")
                        continue
                if p.heard and answer_ping(conn, raw):  # this node answers: the page's liveness
                    continue                            # check (the owner, before it was heard)
                if not conn.allow():        # the owner counts again; this spares the relay
                    conn.refused_in_a_row += 1
                    if conn.refused_in_a_row > FLOOD_CLOSE:
                        conn.error("rate_limited", "too many messages; closing")
                        conn.close(1008)
                        continue
                    conn.error("rate_limited", f"more than {manager.rate:g} messages per "
                               "second; this one was ignored")
                    continue
                conn.refused_in_a_row = 0
                self.relay.post(p.owner, ["msg", table_id, conn.id, raw])
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            self.proxies.pop(conn.id, None)
            self.relay.post(p.owner, ["bye", table_id, conn.id])
            manager.clients.socket_closed(address)
            await conn.finish()

    # ---------------------------------------------------------------------- affinity
    async def _ask(self, owner: str, table_id: str) -> bool:
        """Ask ``owner`` to hand ``table_id`` over to this node (the proxy sends its sockets
        here); whether it did within :data:`ASK_SECONDS`. Sockets of one table arriving
        together share one question; a table asked of the same owner less than a lease ago
        is not asked again (it relays)."""
        fut = self._asking.get(table_id)
        if fut is None:
            now = time.monotonic()
            if now - self._asked.get((table_id, owner), -1e9) < self.config.lease_seconds:
                return False
            if len(self._asked) > 10_000:       # forget the old questions
                self._asked = {k: v for k, v in self._asked.items()
                               if now - v < self.config.lease_seconds}
            self._asked[(table_id, owner)] = now
            fut = asyncio.get_running_loop().create_future()
            self._asking[table_id] = fut
            self.asked += 1
            self.relay.post(owner, ["yield", table_id])
        try:
            ok = await asyncio.wait_for(asyncio.shield(fut), ASK_SECONDS)
        except asyncio.TimeoutError:
            ok = False
        if self._asking.get(table_id) is fut:
            del self._asking[table_id]
        if ok:
            now = time.monotonic()
            self._arrived[table_id] = now
            if len(self._arrived) > 10_000:
                self._arrived = {k: v for k, v in self._arrived.items()
                                 if now - v < self.config.lease_seconds}
        return bool(ok)

    def _yield(self, sender: str, table_id: str, waited: bool = False) -> None:
        """``sender`` gets this table's sockets from the proxy: hand the table over (unless
        it came here by a hand-over less than a lease ago: then ``sender`` relays)."""
        manager = self.manager
        t = manager.tables.get(table_id)
        if t is None and not waited and manager.loading():
            # a table being taken over here (a socket's, or the orphan scan's) is not in
            # ``tables`` until it is loaded: answered once the load is done, else ``sender``
            # would read "not here" while the store still names this node, and relay
            async def after_load() -> None:
                await manager.loaded()
                self._yield(sender, table_id, waited=True)
            task = asyncio.create_task(after_load(), name=f"yield-{table_id}")
            self._giving.add(task)
            task.add_done_callback(self._giving.discard)
            return
        if t is None:                       # not here (any more): the store says whose
            self.relay.post(sender, ["yielded", table_id, True])
            return
        came = self._arrived.get(table_id)
        if manager.draining or not self.config.affinity or (
                came is not None and time.monotonic() - came < self.config.lease_seconds):
            self.relay.post(sender, ["yielded", table_id, False])
            return

        async def give() -> None:
            try:
                await manager.hand_over(t, "this table moved to another server; reconnecting")
                self.given += 1
                log.info("table %s: handed over to node %s, where its sockets go", table_id,
                         sender)
                self.relay.post(sender, ["yielded", table_id, True])
            except Exception:
                log.exception("table %s: handing it over to node %s failed", table_id, sender)
                self.relay.post(sender, ["yielded", table_id, False])
        task = asyncio.create_task(give(), name=f"yield-{table_id}")
        self._giving.add(task)
        task.add_done_callback(self._giving.discard)

    def _answered(self, table_id: str, ok) -> None:
        fut = self._asking.get(table_id)
        if fut is not None and not fut.done():
            fut.set_result(ok is True)
            if ok is True:
                self.got += 1

    def _moved(self, p: _Proxy) -> None:
        p.conn.error("moved", "this table is run by another server now; reconnecting")
        p.conn.close(MOVED_CODE)

    # ------------------------------------------------------------------------ the relay
    def _on_items(self, sender: str, items: list) -> None:
        for item in items:
            op = item[0]
            if op == "send":
                p = self.proxies.get(item[1])
                if p is not None:
                    p.heard = True
                    p.conn.send_text(item[2])
            elif op == "close":
                p = self.proxies.get(item[1])
                if p is not None:
                    p.conn.close(int(item[2]))
            elif op == "open":
                self._open(sender, str(item[1]), int(item[2]), item[3],
                           item[4] if len(item) > 4 else None)
            elif op == "msg":
                rc = self.remote.get((sender, item[2]))
                if rc is not None:
                    rc.inbox.put_nowait(item[3])
            elif op == "bye":
                rc = self.remote.get((sender, item[2]))
                if rc is not None:
                    rc.inbox.put_nowait(_BYE)
            elif op == "yield":
                self._yield(sender, str(item[1]))
            elif op == "yielded":
                self._answered(str(item[1]), item[2])

    def _on_gone(self, node: str) -> None:
        """``node`` stopped, or the link with it started over: its sockets here are closed,
        and the sockets here whose table it ran reconnect."""
        for key, rc in list(self.remote.items()):
            if key[0] == node:
                self._forget(key, rc)
        for p in list(self.proxies.values()):
            if p.owner == node:
                self._moved(p)

    def _on_down(self) -> None:
        """Redis is out of reach: every socket that spans nodes is gone. The clients here of
        tables run elsewhere move at once; the sockets of other nodes' clients here close."""
        for key, rc in list(self.remote.items()):
            self._forget(key, rc)
        for p in list(self.proxies.values()):
            self._moved(p)

    def _forget(self, key: tuple, rc: RemoteConn) -> None:
        """A socket of another node is gone: closed, and its key free at once. A node that
        started again numbers its sockets from 1 again, and its new stream's first message
        may open one under the key of a socket of its old run that is still closing; were the
        old one still named, :meth:`_open` would take the new socket for it and never serve
        it (its client would wait for a welcome that never comes)."""
        rc.closed = True
        rc.inbox.put_nowait(_BYE)
        if self.remote.get(key) is rc:
            del self.remote[key]

    def drain(self) -> int:
        """This node stops: its clients of tables run elsewhere move (to another node); how
        many."""
        proxies = list(self.proxies.values())
        for p in proxies:
            p.conn.error("moved", "this server is stopping; reconnecting to another")
            p.conn.close(MOVED_CODE)
        return len(proxies)

    def _open(self, sender: str, table_id: str, sid: int, address, session=None) -> None:
        key = (sender, sid)
        old = self.remote.get(key)
        if old is not None:
            # the streams deliver each message once: a second socket under a key means the
            # gateway started again and numbers its sockets anew; the old one is gone
            self._forget(key, old)
        # the gateway keeps the client to its rate; bursts of the relay do not count twice
        rc = RemoteConn(self.relay, sender, sid, rate=self.manager.rate * 2,
                        address=address if isinstance(address, str) else None)
        if isinstance(session, str) and SESSION_HASH.fullmatch(session):
            rc.session_hash = session
        self.remote[key] = rc
        rc.task = asyncio.create_task(self._serve(rc, table_id), name=f"remote-{sender}-{sid}")

    async def _serve(self, rc: RemoteConn, table_id: str) -> None:
        """The owner's side of a socket on another node: its messages, one at a time."""
        manager = self.manager
        table = None
        bind_table(table_id)
        try:
            table = manager.tables.get(table_id) or await manager.get(table_id)
            if table is None:
                rc.error("moved", "this table is run by another server now; reconnecting")
                rc.close(MOVED_CODE)
                table = None
                return
            if not manager.attach(table, rc):
                rc.error("too_many_sockets", "too many open sockets on this table")
                rc.close(4429)
                table = None
                return
            while True:
                raw = await rc.inbox.get()
                if raw is _BYE:
                    break
                await manager.handle(table, rc, raw)
        except asyncio.CancelledError:
            raise
        except StoreUnavailable:            # logged by the store, once: the client tries again
            rc.error("unavailable", "the database is not answering; try again shortly")
            rc.close(1013)
        except Exception:
            log.exception("table %s: the socket %s of node %s failed", table_id, rc.sid,
                          rc.node)
        finally:
            if self.remote.get((rc.node, rc.sid)) is rc:
                del self.remote[(rc.node, rc.sid)]
            if table is not None:
                await manager.disconnect(table, rc)

    # -------------------------------------------------------------------------- watching
    async def _watch(self) -> None:
        """Four times a lease: Redis is pinged (out of reach: :meth:`_on_down`); the streams
        from the other nodes are acknowledged; the gateway's sockets whose table's owner
        changed or is gone reconnect; the owner's sockets of a node that is gone close."""
        while True:
            await asyncio.sleep(self.config.lease_seconds / 4)
            try:
                if not await self.relay.check(self.config.lease_seconds):
                    continue
                self.relay.acknowledge()
                await self._check()
            except asyncio.CancelledError:
                raise
            except StoreUnavailable:
                pass                      # logged by the store; checked again next time
            except Exception:
                log.exception("watching the other nodes failed")

    async def _check(self) -> None:
        if self.proxies:
            ids = {p.table_id for p in self.proxies.values()}
            owners = await self.store.call("owners", list(ids))
            for p in list(self.proxies.values()):
                # a socket opened while the owners were read is checked next time
                if p.table_id in ids and owners.get(p.table_id) != p.owner:
                    self._moved(p)
        for node in {n for n, _ in self.remote} | {p.owner for p in self.proxies.values()}:
            if not self.lease.alive(node, self.relay.heard.get(node, 0.0)):
                self.relay.gone(node)
