"""Who runs a table: a lease per node, with an epoch; every write fenced by it.

One node at a time runs a table's pipeline (its moves, bots and timers). The server alone on
its store owns every table, always (:class:`LocalLease`). Nodes that share a PostgreSQL
database (:class:`DbLease`) each hold **one lease**, in their own row of ``nodes``: an
``epoch`` and ``alive_until``, in milliseconds of the database's clock (no two machines'
clocks are compared). A table's row names the node that took it and that node's epoch then
(``owner``, ``owner_epoch``); the node runs the table while that epoch is its live one:

- a node **starting** takes a new epoch (one more than its last), so what it ran before a
  restart is no longer its own;
- its **heartbeat** renews that one row, four times a lease: one ``UPDATE`` of one row, the same
  at 10 tables and 100,000. It renews only an epoch still alive: an epoch whose lease ran out
  (the node was paused, or cut off from the database, past its lease) never comes back; the
  node takes a new epoch, and every table of the old one leaves its memory (its clients are told
  ``moved``, :meth:`TableManager.lose`); any node, this one too, may take them again. The
  heartbeat runs in a thread of its own with its own database connection, so a node whose event
  loop is busy (a second behind under overload) keeps its epoch: the renewal waits neither for
  the loop nor for the store's queue of writes. The loop still has to show it runs: when it has
  not run for ``stall_seconds`` (a hung node), the lease is left to run out, and other nodes
  take its tables over;
- a node **takes** a table that is free, its own, or whose owner's epoch is over (its lease ran
  out, or that node started a new one): one compare-and-set ``UPDATE`` that raises the table's
  version when it had an owner. The matches being played of a gone epoch are found by the index
  on ``(owner, owner_epoch)`` and taken over within about a lease, so their bots play on;
- it **releases** a table it drops from memory (a drain: all of them, one by one), so another
  node may take it at once; a node that stops ends its epoch too;
- every **write** of a table is a compare-and-set on its version, its owner and epoch, and that
  epoch's lease being alive at the database's clock, in the same statement
  (:class:`~shangyou.server.store.Stale` otherwise): a node that was paused past its lease and
  wakes up cannot write, by epoch, even before it notices, and a table another node took has a
  higher version as well.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time

from .store import EpochOver, StoreUnavailable

log = logging.getLogger("shangyou.server")


class LocalLease:
    """The server alone on its store: every table is its own."""

    node: str | None = None
    lease_ms = 0

    async def acquire(self, table_id: str) -> bool:
        return True

    def holds(self, table_id: str) -> bool:
        return True

    def forget(self, table_id: str) -> None:
        """The table left memory (nothing to release)."""

    async def release(self, ids: list[str]) -> None:
        """Draining: nothing to release."""

    def alive(self, node: str, heard_at: float = 0.0) -> bool:
        return True                       # there is no other node

    async def start(self, manager) -> None:
        pass

    async def stop(self) -> None:
        pass

    def fresh(self) -> bool:
        return True                       # nothing to renew


class DbLease:
    """A node's lease and epoch in the store's ``nodes`` row, for nodes sharing one PostgreSQL
    database."""

    ORPHANS = 50            # tables of gone nodes taken over in one round (the rest next time)

    def __init__(self, store, node: str, lease_seconds: float = 4.0,
                 stall_seconds: float | None = None):
        self.store = store              # AsyncStore of a Store made with node=node
        self.node = node
        self.lease_seconds = float(lease_seconds)
        self.lease_ms = int(self.lease_seconds * 1000)
        # the event loop silent this long: the node is hung, and its leases run out
        self.stall_seconds = (max(30.0, 8 * self.lease_seconds) if stall_seconds is None
                              else float(stall_seconds))
        self._released: set[str] = set()
        self._task: asyncio.Task | None = None
        self._beat: asyncio.TimerHandle | None = None
        self._manager = None
        self._loop_seen = time.monotonic()          # the event loop last ran (its heartbeat)
        self._renewed_at = time.monotonic()         # the latest renewal that worked began
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._taken: dict[str, int] = {}            # table id -> the epoch it was taken in
        self._epoch: int | None = None              # the epoch of the tables in memory
        self.dead: frozenset[str] = frozenset()     # nodes whose heartbeat ran out, and
        self._dead_at = 0.0                         # when the renewal that said so started
        self.renewed_at: float | None = None        # monotonic: the last renewal started
        self.renewals = self.renewal_failures = 0   # (metrics)
        # node -> (epoch, alive) when its orphan scan last found nothing (Store.orphans)
        self._clean: dict[str, tuple[int, bool]] = {}
        self.scans_skipped = 0                      # orphan scans not needed (nothing changed)

    def fresh(self) -> bool:
        """The last successful renewal started less than a lease ago: this node's leases
        run (``/readyz``)."""
        return (self.renewed_at is not None
                and time.monotonic() - self.renewed_at < self.lease_seconds)

    @property
    def epoch(self) -> int | None:
        """This node's current epoch (None before it started)."""
        return self.store.store.epoch

    async def acquire(self, table_id: str) -> bool:
        """Take the table in the current epoch. When that epoch is over (the lease ran out:
        the renewal thread takes a new one within a quarter of a lease), wait for the next one,
        a lease at most."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.lease_seconds
        while True:
            try:
                epoch = await self.store.call("acquire", table_id)
            except EpochOver:
                if loop.time() > deadline:
                    return False
                await asyncio.sleep(self.lease_seconds / 8)
                continue
            if epoch is None:
                return False
            if epoch == self.epoch:
                self._taken[table_id] = epoch
                return True

    def holds(self, table_id: str) -> bool:
        """The table was taken in this node's current epoch."""
        return self._taken.get(table_id) == self.epoch

    def forget(self, table_id: str) -> None:
        self._released.add(table_id)
        self._taken.pop(table_id, None)

    async def release(self, ids: list[str]) -> None:
        """Release these tables now (draining): any node may take them at once."""
        await self.store.call("release", ids)
        self._released.difference_update(ids)

    def alive(self, node: str, heard_at: float = 0.0) -> bool:
        """False when ``node``'s heartbeat had run out at the latest renewal (at most a
        quarter of a lease old) and nothing was heard of it since ``heard_at`` (monotonic):
        a node that started after that renewal, or woke up, is alive until the next one."""
        return node == self.node or node not in self.dead or heard_at >= self._dead_at

    async def start(self, manager) -> None:
        self._manager = manager
        await asyncio.to_thread(self._renew)         # a new epoch, and the others known
        self._epoch = self.epoch
        self._heartbeat()
        self._stop.clear()
        self._thread = threading.Thread(target=self._keep, name="shangyou-leases", daemon=True)
        self._thread.start()
        self._task = asyncio.create_task(self._run(manager), name="leases")

    async def stop(self) -> None:
        if self._beat is not None:
            self._beat.cancel()
        self._stop.set()
        if self._thread is not None:
            await asyncio.to_thread(self._thread.join)
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except (asyncio.CancelledError, Exception):
                pass
        held = list(self._released | set(self._manager.tables if self._manager else ()))
        try:                              # a node that stops hands its tables on at once,
            if held:                      # and its epoch ends
                await self.store.call("release", held)
            await self.store.call("leave")
        except Exception:
            log.exception("releasing the tables at shutdown failed")

    # ------------------------------------------------------------------ the renewal thread
    def _heartbeat(self) -> None:
        """In the event loop, several times a lease: the loop runs. A node whose loop did not
        run for a lease, and whose leases were not renewed meanwhile either (the process was
        paused), may have lost every lease:
        its tables leave memory and their clients are told to move at once (a fenced write
        would refuse them one by one); those still its own are loaded again when opened."""
        now = time.monotonic()
        silent = now - self._loop_seen
        self._loop_seen = now
        manager = self._manager
        # a loop merely busy keeps its leases (the renewal thread renews them): only a process
        # paused whole, its renewals stopped too, may have lost them
        unrenewed = now - self._renewed_at
        if min(silent, unrenewed) > self.lease_seconds and manager is not None \
                and manager.tables:
            log.error("the event loop did not run for %.1f s (a lease is %g s): its tables "
                      "may run elsewhere now; their clients move", silent, self.lease_seconds)
            for t in list(manager.tables.values()):
                manager.lose(t, f"this node was paused for {silent:.1f} s")
        if manager is not None:
            self.check_epoch(manager)
        self._beat = asyncio.get_running_loop().call_later(self.lease_seconds / 4,
                                                           self._heartbeat)

    def _keep(self) -> None:
        """The renewal thread: every quarter of a lease, one ``UPDATE`` of this node's row,
        as long as the event loop shows it runs."""
        stalled = failing = False
        while not self._stop.wait(self.lease_seconds / 4):
            silent = time.monotonic() - self._loop_seen
            if silent > self.stall_seconds:
                if not stalled:
                    log.error("the event loop has not run for %.0f s: this node's leases are "
                              "left to run out", silent)
                stalled = True
                continue
            stalled = False
            try:
                self._renew()
                self.renewals += 1
                if failing:
                    log.warning("renewing the leases works again")
                failing = False
            except Exception as e:
                self.renewal_failures += 1
                # one traceback for an outage, then a line for each renewal that fails
                if failing:
                    log.warning("renewing the leases failed again (%s)", e.__class__.__name__)
                else:
                    log.exception("renewing the leases failed")
                failing = True

    def _renew(self) -> None:
        started = time.monotonic()
        before = self.epoch
        kept, dead = self.store.store.beat(self.lease_ms)
        if not kept and before is not None:
            log.error("this node's lease ran out (epoch %d): it takes epoch %d; the tables of "
                      "the old one may run elsewhere now", before, self.epoch)
        self._renewed_at = started
        self.dead, self._dead_at = frozenset(dead), started
        self.renewed_at = started

    # ----------------------------------------------------------------- in the event loop
    async def _run(self, manager) -> None:
        while True:
            await asyncio.sleep(self.lease_seconds / 4)
            try:
                await self.tick(manager)
            except asyncio.CancelledError:
                raise
            except StoreUnavailable:
                pass                      # logged by the store; the next tick tries again
            except Exception:
                log.exception("releasing or taking over tables failed")

    def check_epoch(self, manager) -> None:
        """The node took a new epoch (its lease had run out): every table in memory not taken
        in the new one leaves it, its clients told to move (its writes are refused already)."""
        epoch = self.epoch
        if epoch == self._epoch:
            return
        for t in list(manager.tables.values()):
            if self._taken.get(t.id) != epoch:
                manager.lose(t, f"this node's epoch {self._epoch} ended (epoch {epoch} now)")
        self._taken = {i: e for i, e in self._taken.items() if e == epoch}
        self._epoch = epoch

    async def tick(self, manager) -> None:
        """Drop what this node lost with its last epoch, release what it dropped, and take over
        the matches of epochs that ended (the renewal thread renews)."""
        self.check_epoch(manager)
        if manager.draining:
            return                         # it takes nothing more
        released = [i for i in self._released if i not in manager.tables]
        if released:
            await self.store.call("release", released)
            self._released.difference_update(released)
        if not self.fresh():
            return                         # its own lease may have run out: it takes nothing
        seen = self.store.store.nodes_seen
        if seen and seen == self._clean:
            # every node as it was when its scan found nothing (the heartbeat's reading,
            # at most a quarter of a lease old): no orphan, and no query
            self.scans_skipped += 1
            return
        for table_id in await self.store.call("orphans", self.ORPHANS, self._clean):
            if table_id not in manager.tables:
                t = await manager.get(table_id)
                if t is not None:
                    log.warning("table %s: taken over from a node whose lease ran out",
                                table_id)
