"""Epochs, on a real PostgreSQL server, in one process: two nodes' table managers, each with
its own store and lease (:class:`DbLease`). Node a's heartbeat thread is held while its event
loop and its bots run on: its lease runs out, and before any other node takes its table, its
next write is refused by epoch (the version and the owner are still its own); it drops the
table; node b takes the match over and its bots play on, every move a stored kept; let go, a's
heartbeat finds its epoch over and takes the next one. Every wait is on a condition, with a
generous overall bound."""

from __future__ import annotations

import asyncio
import threading

import pytest
from test_watchdog import bot_table, until

from shangyou.server.ownership import DbLease
from shangyou.server.store import AsyncStore, Store
from shangyou.server.tables import TableManager

pytestmark = pytest.mark.timeout(240)

LEASE = 2.0            # seconds
WAIT = 60.0


async def node(url: str, name: str) -> TableManager:
    store = AsyncStore(Store(url, node=name))
    manager = TableManager(store, bot_delay=0.02, lease=DbLease(store, name, LEASE))
    await manager.startup()
    return manager


def test_a_node_whose_lease_ran_out_is_refused_by_epoch_and_another_takes_over(pg_url,
                                                                               caplog):
    async def main():
        a = await node(pg_url, "a")
        stored: list[tuple] = []              # (idx, seat, text) of every move a stored
        add_move = a.store.add_move

        async def counted(*row):
            await add_move(*row)
            stored.append((row[2], row[3], row[4]))
        a.store.add_move = counted
        b = None
        hold, held = threading.Event(), threading.Event()
        try:
            t = await bot_table(a)
            await until(lambda: len(stored) >= 5, "a's bots play")
            old = a.lease.epoch
            beat = a.store.store.beat

            def held_beat(lease_ms):          # a's heartbeat thread hangs here
                held.set()
                hold.wait(WAIT)
                return beat(lease_ms)
            a.store.store.beat = held_beat
            await until(held.is_set, "a's heartbeat is held")
            # its lease runs out; its bots' next write is refused, by epoch: the table leaves
            await until(lambda: t.id not in a.tables, "a drops the table")
            assert t.lost
            assert f"or not owned by a in its live epoch {old}" in caplog.text
            n = len(stored)
            b = await node(pg_url, "b")       # b takes the orphaned match over
            await until(lambda: t.id in b.tables, "b takes the match over")
            tb = b.tables[t.id]
            assert tb.version > t.version     # taking it raised the version (the fence)
            await until(lambda: len(tb.game.moves) >= n + 5, "b's bots play on")
            hold.set()                        # a's heartbeat goes on: a new epoch
            await until(lambda: f"this node's lease ran out (epoch {old})" in caplog.text,
                        "a takes a new epoch")
            assert a.lease.epoch == old + 1
            check = Store(pg_url)
            try:
                assert check.owners([t.id]) == {t.id: "b"}
                moves = check.match(t.match_id)["moves"]
                assert len(stored) == n               # a stored nothing after it lost it
                for idx, seat, text in stored:        # and nothing it stored was lost
                    assert moves[idx] == [seat, text]
            finally:
                check.close()
            # a, in its new epoch, may take tables again: a new one is its own
            t2, _ = await a.create_table("zheng-fen", 3, {}, "greedy")
            await a.store.call("save_table", t2.id, 1, listed=False)
        finally:
            hold.set()
            for m in (a, b):
                if m is not None:
                    await m.shutdown()
                    m.store.close()

    asyncio.run(main())
