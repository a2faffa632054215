"""Who runs a table: a lease with an expiry, fenced by the table's version.

One node at a time runs a table's pipeline (its moves, bots and timers). The server alone on
its store owns every table, always (:class:`LocalLease`). Nodes that share a PostgreSQL
database hold leases in the table's own row (:class:`DbLease`): ``owner`` and ``lease_until``,
in milliseconds of the database's clock, so no two machines' clocks are compared:

- a node **takes** a table that is free, its own, or whose owner's lease ran out (one
  compare-and-set ``UPDATE``); taking it from another node raises the table's version;
- the owner **renews** the leases of every table it holds several times a lease, in one
  ``UPDATE`` (a table it no longer owns is dropped from memory: :meth:`TableManager.lose`);
- it **releases** a table it drops from memory, so another node may take it at once;
- every **write** of a table is a compare-and-set on its version and owner
  (:class:`~shangyou.server.store.Stale` otherwise): a node that was paused past its lease and
  wakes up cannot write, because the node that took the table over raised the version.
"""

from __future__ import annotations

import asyncio
import logging

log = logging.getLogger("shangyou.server")


class LocalLease:
    """The server alone on its store: every table is its own."""

    node: str | None = None
    lease_ms = 0

    async def acquire(self, table_id: str) -> bool:
        return True

    def forget(self, table_id: str) -> None:
        """The table left memory (nothing to release)."""

    async def start(self, manager) -> None:
        pass

    async def stop(self) -> None:
        pass


class DbLease:
    """Leases in the store's ``tables`` rows, for nodes sharing one PostgreSQL database."""

    ORPHANS = 50            # tables of gone nodes taken over in one round (the rest next time)

    def __init__(self, store, node: str, lease_seconds: float = 4.0):
        self.store = store              # AsyncStore of a Store made with node=node
        self.node = node
        self.lease_seconds = float(lease_seconds)
        self.lease_ms = int(self.lease_seconds * 1000)
        self._released: set[str] = set()
        self._task: asyncio.Task | None = None
        self._manager = None

    async def acquire(self, table_id: str) -> bool:
        return bool(await self.store.call("acquire", table_id, self.lease_ms))

    def forget(self, table_id: str) -> None:
        self._released.add(table_id)

    async def start(self, manager) -> None:
        self._manager = manager
        self._task = asyncio.create_task(self._run(manager), name="leases")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except (asyncio.CancelledError, Exception):
                pass
        held = list(self._released | set(self._manager.tables if self._manager else ()))
        if held:
            try:                          # a node that stops hands its tables on at once
                await self.store.call("release", held)
            except Exception:
                log.exception("releasing the tables at shutdown failed")

    async def _run(self, manager) -> None:
        while True:
            await asyncio.sleep(self.lease_seconds / 4)
            try:
                await self.tick(manager)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("renewing the leases failed")

    async def tick(self, manager) -> None:
        """Renew what this node holds, release what it dropped, drop what it lost, and take
        over the matches of nodes whose leases ran out."""
        held = list(manager.tables)
        kept = set(await self.store.call("renew", held, self.lease_ms)) if held else set()
        for table_id in held:
            t = manager.tables.get(table_id)
            if table_id not in kept and t is not None:
                manager.lose(t, "its lease went to another node")
        released = [i for i in self._released if i not in manager.tables]
        self._released.clear()
        if released:
            await self.store.call("release", released)
        for table_id in await self.store.call("orphans", self.ORPHANS):
            if table_id not in manager.tables:
                t = await manager.get(table_id)
                if t is not None:
                    log.warning("table %s: taken over from a node whose lease ran out",
                                table_id)
