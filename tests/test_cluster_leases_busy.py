"""Leases of a node whose event loop is busy, on a real PostgreSQL server: the renewal runs in
a thread of its own, so a node whose loop does not yield for several leases keeps its tables;
a node whose loop is hung past ``stall_seconds`` lets them run out, another node takes them,
and the hung node, running again, cannot write and drops them. The table manager, its lease
and the store are the server's own, in this process; the other node is a second store."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from shangyou.server.ownership import DbLease
from shangyou.server.store import AsyncStore, Stale, Store
from shangyou.server.tables import TableManager

pytestmark = pytest.mark.timeout(240)

LEASE = 4.0            # the default lease (seconds)
WAIT = 60.0            # the overall bound of any one wait


def busy(seconds: float | None = None, until: threading.Event | None = None) -> None:
    """Keep this thread (the event loop's) computing, never yielding to the loop, for
    ``seconds`` or until ``until`` is set (at most WAIT)."""
    deadline = time.monotonic() + (seconds if seconds is not None else WAIT)
    while time.monotonic() < deadline:
        if until is not None and until.is_set():
            return
        sum(i * i for i in range(2000))
    assert until is None, "the other node never took the table"


def taker(url: str, table_id: str, stop: threading.Event, taken: threading.Event):
    """Node b, trying to take the table until told to stop."""
    def run():
        b = Store(url, node="b")
        b.join(60_000)
        try:
            while not stop.is_set():
                if b.acquire(table_id) is not None:
                    taken.set()
                    return
                time.sleep(0.05)
        finally:
            b.close()
    t = threading.Thread(target=run)
    t.start()
    return t


async def node_a(url: str, **lease_args) -> tuple[TableManager, str]:
    store = AsyncStore(Store(url, node="a"))
    manager = TableManager(store, bot_delay=0, lease=DbLease(store, "a", LEASE, **lease_args))
    await manager.startup()
    table, _ = await manager.create_table("zheng-shangyou/owen", 2, {"target": 4}, "greedy")
    return manager, table.id


def test_a_busy_event_loop_keeps_its_leases(pg_url):
    async def main():
        manager, table_id = await node_a(pg_url)
        stop, taken = threading.Event(), threading.Event()
        thread = taker(pg_url, table_id, stop, taken)
        busy(2.5 * LEASE)                  # the loop runs nothing else for 2.5 leases
        stop.set()
        thread.join()
        assert not taken.is_set()          # b never got the table: a renewed meanwhile
        check = Store(pg_url)
        assert check.owners([table_id]) == {table_id: "a"}
        check.close()
        await asyncio.sleep(LEASE)         # the loop runs again: a keeps the table
        assert table_id in manager.tables and not manager.tables[table_id].lost
        await manager.shutdown()
        manager.store.close()

    asyncio.run(main())


def test_a_hung_event_loop_lets_its_leases_go_and_cannot_write_after(pg_url, caplog):
    async def main():
        manager, table_id = await node_a(pg_url, stall_seconds=LEASE)
        table = manager.tables[table_id]
        stop, taken = threading.Event(), threading.Event()
        thread = taker(pg_url, table_id, stop, taken)
        busy(until=taken)                  # hung until b took the table over
        stop.set()
        thread.join()
        assert "the event loop has not run for" in caplog.text
        # running again, a cannot write the table: b raised its version (the fence)
        with pytest.raises(Stale):
            await manager.store.call("save_table", table_id, table.version + 1, listed=False)
        deadline = time.monotonic() + WAIT
        while table_id in manager.tables:  # and a drops it from memory
            assert time.monotonic() < deadline, "a kept a table it lost"
            await asyncio.sleep(0.05)
        assert table.lost
        check = Store(pg_url)
        assert check.owners([table_id]) == {table_id: "b"}
        assert check.load_table(table_id)["listed"] is True     # a's write changed nothing
        check.close()
        await manager.shutdown()
        manager.store.close()

    asyncio.run(main())
