"""Fencing and leases in the store, on SQLite and on a real PostgreSQL server (``db_url``):
every write of a table is a compare-and-set on its version (and, for a node of several, on
its owner, the owner's epoch and that epoch's lease being alive); each node holds one lease
(its row of ``nodes``, with an epoch) whatever the number of its tables; a node takes a table
that is free or whose owner's epoch is over, which raises its version, so the old owner's
writes are refused; leases are renewed, released, and read by the database's clock alone."""

from __future__ import annotations

import asyncio
import datetime as dt
import time

import pytest
from sqlalchemy import event, select
from sqlalchemy.engine import Engine

from shangyou.server.rows import NodeRow
from shangyou.server.store import AsyncStore, EpochOver, Stale, Store

LONG = 600_000            # a lease that does not run out during a test (ms)


def _node(url: str, name: str, lease_ms: int = LONG) -> Store:
    """A node's store, with its first epoch (alive for ``lease_ms``)."""
    st = Store(url, node=name)
    st.join(lease_ms)
    return st


def _lapse(st: Store) -> None:
    """``st``'s node stops renewing: its lease runs out 1 ms from now; wait until it has."""
    st.beat(1)
    deadline = time.monotonic() + 60
    while _alive(st):
        assert time.monotonic() < deadline, "the lease never ran out"
        time.sleep(0.01)


def _alive(st: Store) -> bool:
    """``st``'s node's lease runs, by the database's clock."""
    with st.session() as s:
        return bool(s.scalar(select(NodeRow.alive_until >= st.clock)
                             .where(NodeRow.id == st.node)))


def _table(st: Store, tid: str = "t0") -> None:
    st.create_table(tid, "zheng-shangyou/owen", 2, {}, "greedy")
    st.save_seats(tid, [{"seat": 0, "name": "a", "kind": "human", "token_hash": "h" * 64,
                         "bot_level": None}], 1)
    st.start_match(tid, "m" + tid, "zheng-shangyou/owen", 2, {}, 0, ["a", None], 2)


def test_every_write_is_a_compare_and_set_on_the_version(db_url):
    st = Store(db_url)
    _table(st)
    with pytest.raises(Stale):                       # version 3 was not written yet
        st.add_move("t0", "mt0", 0, 0, "pass", 4)
    st.add_move("t0", "mt0", 0, 0, "pass", 3)
    for write in (lambda: st.add_move("t0", "mt0", 1, 1, "pass", 3),     # the same again
                  lambda: st.save_seats("t0", [], 3),
                  lambda: st.save_table("t0", 2, listed=False),
                  lambda: st.start_match("t0", "m2", "zheng-fen", 3, {}, 0, [], 3)):
        with pytest.raises(Stale):
            write()
    row = st.load_table("t0")                        # the refused writes changed nothing
    assert row["version"] == 3 and row["listed"] is True
    assert row["match"]["id"] == "mt0" and len(row["match"]["moves"]) == 1
    assert st.match("m2") is None
    st.close()


def test_a_refused_move_in_a_group_commit_fails_alone(db_url):
    st = Store(db_url)
    _table(st, "t0")
    _table(st, "t1")
    ast = AsyncStore(st)

    async def main():
        return await asyncio.gather(ast.add_move("t0", "mt0", 0, 0, "pass", 9),   # stale
                                    ast.add_move("t1", "mt1", 0, 0, "pass", 3),
                                    return_exceptions=True)

    out = asyncio.run(main())
    ast.close()
    assert isinstance(out[0], Stale) and out[1] is None
    st2 = Store(st.url)
    assert st2.load_table("t0")["version"] == 2 and st2.load_table("t1")["version"] == 3
    st2.close()


def test_a_group_commit_of_many_tables_is_fenced_on_each_or_writes_nothing(db_url):
    a, b = _node(db_url, "a"), _node(db_url, "b")
    for tid in ("t0", "t1", "t2"):
        _table(a, tid)
    _table(b, "t3")                                  # b's table, in a's batch by mistake

    def batch(tids, version):
        return [(tid, "m" + tid, version - 3, 0, "pass", version, None) for tid in tids]

    for wrong in (batch(["t0", "t1", "t3"], 3),                  # t3 is not a's
                  batch(["t0", "t1"], 3) + batch(["t2"], 4)):    # t2 is not at version 3
        with pytest.raises(Stale):
            a.add_moves(wrong)
        assert [a.load_table(t)["version"] for t in ("t0", "t1", "t2")] == [2, 2, 2]
        assert all(a.load_table(t)["match"]["moves"] == [] for t in ("t0", "t1", "t2"))
    a.add_moves(batch(["t2", "t0", "t1"], 3) + batch(["t0"], 4))  # two moves of t0
    assert [a.load_table(t)["version"] for t in ("t0", "t1", "t2")] == [4, 3, 3]
    assert len(a.load_table("t0")["match"]["moves"]) == 2
    assert b.load_table("t3")["version"] == 2
    a.close()
    b.close()


def test_one_node_at_a_time_and_the_old_owners_writes_are_refused_by_epoch(db_url):
    a, b = _node(db_url, "a"), _node(db_url, "b")
    _table(a)                                        # a made it: a owns it
    assert a.owners(["t0", "nope"]) == {"t0": "a"}
    assert b.acquire("t0") is None                   # a's lease runs
    with pytest.raises(Stale):                       # b may not write a's table
        b.add_move("t0", "mt0", 0, 0, "pass", 3)
    assert a.acquire("t0") == a.epoch                # a takes its own again: the version
    assert a.load_table("t0")["version"] == 3        # goes up (the fence of an old self)
    a.add_move("t0", "mt0", 0, 0, "pass", 4)
    # a is paused past its lease: its epoch is over, and before any node takes the table,
    # its writes are refused already (by epoch: the version and the owner are a's still)
    old = a.epoch
    _lapse(a)
    assert a.owners(["t0"]) == {"t0": None}
    with pytest.raises(Stale, match=f"epoch {old}"):
        a.add_move("t0", "mt0", 1, 1, "pass", 5)
    assert a.load_table("t0")["version"] == 4
    with pytest.raises(EpochOver):                   # nor take any table
        a.acquire("t0")
    assert b.acquire("t0") == b.epoch                # b takes the table: the version rises
    assert b.owners(["t0"]) == {"t0": "b"}
    assert b.load_table("t0")["version"] == 5
    # a wakes up: its heartbeat finds its epoch over and takes a new one; the table stays b's
    assert a.beat(LONG) == (False, [])
    assert a.epoch == old + 1
    for write in (lambda: a.add_move("t0", "mt0", 1, 1, "pass", 6),
                  lambda: a.save_table("t0", 6, listed=False)):
        with pytest.raises(Stale):
            write()
    assert a.acquire("t0") is None                   # b's epoch runs
    b.add_move("t0", "mt0", 1, 1, "pass", 6)
    row = b.load_table("t0")
    assert row["version"] == 6 and row["listed"] is True
    assert [m[0] for m in row["match"]["moves"]] == [0, 1]
    a.close()
    b.close()


def test_a_node_that_starts_again_takes_a_new_epoch_and_loses_the_old_ones_tables(db_url):
    a = _node(db_url, "a")
    _table(a, "t0")
    first = a.epoch
    again = _node(db_url, "a")                       # node a restarted (the old one hangs on)
    assert again.epoch == first + 1
    assert again.owners(["t0"]) == {"t0": None}      # not a's any more: its epoch is over
    assert again.orphans(10) == ["t0"]               # a match of an ended epoch
    with pytest.raises(Stale, match=f"epoch {first}"):   # the old process cannot write
        a.add_move("t0", "mt0", 0, 0, "pass", 3)
    assert again.acquire("t0") == again.epoch        # the restarted node takes the table
    assert again.load_table("t0")["version"] == 3
    assert again.orphans(10) == []
    again.add_move("t0", "mt0", 0, 0, "pass", 4)
    assert again.beat(LONG) == (True, [])
    again.close()
    a.close()


def test_leases_are_renewed_released_and_orphans_found(db_url):
    a, b = _node(db_url, "a"), _node(db_url, "b")
    for tid in ("t0", "t1", "t2"):
        _table(a, tid)
    assert a.beat(LONG) == (True, [])
    a.release(["t1"])                                # free at once, for any node
    assert a.owners(["t0", "t1"]) == {"t0": "a", "t1": None}
    assert b.acquire("t1") == b.epoch
    assert b.load_table("t1")["version"] == 2        # a free table: no fence to raise
    assert b.orphans(10) == []
    _lapse(a)                                        # a stops renewing
    assert sorted(b.orphans(10)) == ["t0", "t2"]
    assert b.orphans(1) in (["t0"], ["t2"])
    assert b.owners(["t0"]) == {"t0": None}
    # a waiting table of a live node is not expired by another node's sweep
    c = _node(db_url, "c")
    c.create_table("w", "zheng-fen", 3, {}, "greedy")
    later = dt.datetime(2100, 1, 1)
    assert b.expire_waiting(later, []) == []
    assert c.expire_waiting(later, []) == ["w"]
    c.leave()                                        # a node that stops ends its epoch
    assert sorted(b.beat(LONG)[1]) == ["a", "c"]
    for st in (a, b, c):
        st.close()


def test_a_heartbeat_touches_one_row_whatever_the_number_of_tables(db_url):
    a, b = _node(db_url, "a"), _node(db_url, "b")
    seen: list[tuple[str, int]] = []

    def record(conn, cursor, statement, params, context, executemany):
        seen.append((" ".join(statement.split()), cursor.rowcount))

    made = 0
    for n in (3, 200):
        while made < n:                              # a owns n tables, b one more each time
            a.create_table(f"a{made}", "zheng-fen", 3, {}, "greedy")
            made += 1
        _table(b, f"b{n}")
        event.listen(a.engine, "after_cursor_execute", record)
        try:
            kept, dead = a.beat(LONG)
        finally:
            event.remove(a.engine, "after_cursor_execute", record)
        assert kept and dead == []
        writes = [(sql, rows) for sql, rows in seen if not sql.upper().startswith(
            ("SELECT", "BEGIN", "COMMIT", "ROLLBACK", "PRAGMA"))]
        assert len(writes) == 1, writes
        sql, rows = writes[0]
        assert sql.upper().startswith("UPDATE NODES ") and rows == 1, writes
        assert not any(" tables" in q.lower() for q, _ in seen), seen
        seen.clear()
    assert a.owners(["a0", "a199", "b3"]) == {"a0": "a", "a199": "a", "b3": "b"}
    a.close()
    b.close()


def test_tables_of_a_store_from_before_epochs_are_anybodys(db_url):
    """A store upgraded from per-table leases: its rows name an owner but no epoch, its nodes
    have the epoch 0 the added column gave them. Those tables are nobody's now; a node that
    starts takes epoch 1, and any node takes them (the running ones from the orphan scan)."""
    a = _node(db_url, "a")
    _table(a, "t0")
    with a.engine.begin() as c:                      # as ADD COLUMN left an earlier store
        c.exec_driver_sql("UPDATE tables SET owner_epoch = NULL")
        c.exec_driver_sql("UPDATE nodes SET epoch = 0")
    a.close()
    b = _node(db_url, "b")
    assert b.owners(["t0"]) == {"t0": None}
    assert b.orphans(10) == ["t0"]
    again = _node(db_url, "a")
    assert again.epoch == 1
    assert again.acquire("t0") == 1
    assert again.load_table("t0")["version"] == 3
    again.add_move("t0", "mt0", 0, 0, "pass", 4)
    assert b.orphans(10) == []
    again.close()
    b.close()


def test_the_orphan_scan_reads_only_the_nodes_whose_state_changed(db_url):
    """With ``clean`` kept from one scan to the next, a node whose scan found nothing is not
    read again while its epoch and liveness stay; the heartbeat reads every node's state, so a
    node whose every peer is so skips the scan (DbLease.tick); a node that stops renewing, or
    starts again, is read again and its matches found."""
    a, b = _node(db_url, "a"), _node(db_url, "b")
    _table(a, "t0")
    queries: list[str] = []

    def record(conn, cursor, statement, params, context, executemany):
        queries.append(" ".join(statement.split()).lower())

    def table_reads() -> int:
        return sum(" from tables" in q for q in queries)

    clean: dict = {}
    event.listen(Engine, "after_cursor_execute", record)      # every store's statements
    again = None
    try:
        assert b.orphans(10, clean) == []
        assert table_reads() == 2 and set(clean) == {"a", "b"}   # each node's index read once
        assert b.beat(LONG) == (True, [])
        assert b.nodes_seen == clean                  # DbLease.tick: no scan at all now
        queries.clear()
        assert b.orphans(10, clean) == []
        assert table_reads() == 0                     # nothing changed: no table read
        _lapse(a)                                     # a stops renewing: its matches are orphans
        b.beat(LONG)
        assert b.nodes_seen != clean
        queries.clear()
        assert b.orphans(10, clean) == ["t0"]
        assert table_reads() == 1 and "a" not in clean   # a alone read, and read again next time
        assert b.acquire("t0") == b.epoch
        assert b.orphans(10, clean) == [] and "a" in clean
        again = _node(db_url, "b")                    # b starts again: its old epoch's tables
        queries.clear()
        assert again.orphans(10, clean) == ["t0"]     # its changed state is read
        assert table_reads() == 1
    finally:
        event.remove(Engine, "after_cursor_execute", record)
    for st in (a, b, again):
        if st is not None:
            st.close()


def test_a_pooled_connection_is_pinged_only_after_it_sat_unused(pg_url, monkeypatch):
    """A busy store writes without a ``SELECT 1`` before each transaction of a call the
    AsyncStore runs (it tries such a call again if its connection was cut off); a connection
    that sat unused for ``PING_IDLE_SECONDS`` is tested first, and one the database dropped
    meanwhile is replaced before the write, which goes through. A direct call (no retry) is
    always tested first."""
    import psycopg

    from shangyou.server import store
    from shangyou.server import store_async as store_module
    st = _node(pg_url, "a")
    _table(st, "t0")
    sent: list[str] = []
    execute = psycopg.Cursor.execute

    def recording(self, query, *args, **kwargs):
        sent.append(str(query))
        return execute(self, query, *args, **kwargs)
    monkeypatch.setattr(psycopg.Cursor, "execute", recording)
    def as_async_store(*args):                           # the path of AsyncStore's calls
        return store_module._timed("add_move", st.add_move, args)
    as_async_store("t0", "mt0", 0, 0, "pass", 3)
    sent.clear()
    as_async_store("t0", "mt0", 1, 1, "pass", 4)          # the connection was just used
    # one statement: the insert, with the fence as its common table expression
    assert "SELECT 1" not in sent and len(sent) == 1, sent
    assert sent[0].lstrip().upper().startswith("WITH FENCE AS"), sent
    sent.clear()
    st.load_table("t0")                                    # a direct call: tested first
    assert sent[0] == "SELECT 1", sent
    other = Store(pg_url)
    with other.engine.connect() as c:                     # the database drops st's connections
        assert c.exec_driver_sql(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = "
            "current_database() AND pid <> pg_backend_pid()").scalar() >= 1
    time.sleep(store.PING_IDLE_SECONDS * 1.5)      # they sat unused past the limit
    sent.clear()
    as_async_store("t0", "mt0", 2, 0, "pass", 5)          # tested, replaced, written
    assert sent.count("SELECT 1") == 1, sent
    assert [m[0] for m in st.load_table("t0")["match"]["moves"]] == [0, 1, 0]   # seats
    other.close()
    st.close()


def test_a_heartbeat_sends_no_ping_and_renews_on_a_new_connection(pg_url, monkeypatch):
    """The heartbeat (four times a lease, busy or idle) is one transaction, its UPDATE and the
    read of the nodes, without a ``SELECT 1`` first; a connection the database dropped between
    two beats fails the UPDATE, and the beat is made again on a new connection: the lease is
    renewed all the same, the epoch kept."""
    import psycopg
    st = _node(pg_url, "a")
    sent: list[str] = []
    execute = psycopg.Cursor.execute

    def recording(self, query, *args, **kwargs):
        sent.append(" ".join(str(query).split()).upper())
        return execute(self, query, *args, **kwargs)
    monkeypatch.setattr(psycopg.Cursor, "execute", recording)
    assert st.beat(LONG) == (True, [])
    assert len(sent) == 2 and sent[0].startswith("UPDATE NODES") \
        and sent[1].startswith("SELECT NODES.ID"), sent
    with st.engine.connect() as c:                        # the pool's connection
        pid = c.exec_driver_sql("SELECT pg_backend_pid()").scalar()
    other = Store(pg_url)
    with other.engine.connect() as c:                     # the database drops it
        assert c.exec_driver_sql(f"SELECT pg_terminate_backend({int(pid)})").scalar()
    epoch = st.epoch
    assert st.beat(LONG) == (True, [])                    # renewed, on a new connection
    assert st.epoch == epoch and _alive(st)
    with st.engine.connect() as c:
        assert c.exec_driver_sql("SELECT pg_backend_pid()").scalar() != pid
    other.close()
    st.close()
