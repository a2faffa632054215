"""Fencing and leases in the store, on SQLite and on a real PostgreSQL server (``db_url``):
every write of a table is a compare-and-set on its version (and, for a node of several, on
its owner); a node takes a table that is free or whose lease ran out, which raises its version,
so the old owner's writes are refused; leases are renewed, released, and read by the
database's clock alone."""

from __future__ import annotations

import asyncio
import datetime as dt
import time

import pytest

from shangyou.server.store import AsyncStore, Stale, Store

LONG = 600_000            # a lease that does not run out during a test (ms)


def _table(st: Store, tid: str = "t0") -> None:
    st.create_table(tid, "zheng-shangyou/owen", 2, {}, "greedy", lease_ms=LONG)
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
    a, b = Store(db_url, node="a"), Store(db_url, node="b")
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


def test_one_node_at_a_time_and_the_old_owners_writes_are_refused(db_url):
    a, b = Store(db_url, node="a"), Store(db_url, node="b")
    _table(a)                                        # a made it: a owns it
    assert a.owners(["t0", "nope"]) == {"t0": "a"}
    assert not b.acquire("t0", LONG)                 # a's lease runs
    with pytest.raises(Stale):                       # b may not write a's table
        b.add_move("t0", "mt0", 0, 0, "pass", 3)
    assert a.acquire("t0", LONG)                     # a takes its own again: the version
    assert a.load_table("t0")["version"] == 3        # goes up (the fence of an old self)
    a.add_move("t0", "mt0", 0, 0, "pass", 4)
    # a's lease runs out (a was paused): b takes the table, which raises the version
    assert a.renew(["t0"], 1) == ["t0"]
    deadline = time.monotonic() + 60
    while not b.acquire("t0", LONG):
        assert time.monotonic() < deadline, "the lease never ran out"
        time.sleep(0.01)
    assert b.owners(["t0"]) == {"t0": "b"}
    assert b.load_table("t0")["version"] == 5
    with pytest.raises(Stale):                       # a wakes up: its next write (version 5
        a.add_move("t0", "mt0", 1, 1, "pass", 5)     # from 4) is refused
    with pytest.raises(Stale):
        a.save_table("t0", 6, listed=False)
    assert a.renew(["t0"], LONG) == []               # a learns it lost the table
    b.add_move("t0", "mt0", 1, 1, "pass", 6)
    row = b.load_table("t0")
    assert row["version"] == 6 and [m[0] for m in row["match"]["moves"]] == [0, 1]
    a.close()
    b.close()


def test_leases_are_renewed_released_and_orphans_found(db_url):
    a, b = Store(db_url, node="a"), Store(db_url, node="b")
    for tid in ("t0", "t1", "t2"):
        _table(a, tid)
    assert sorted(a.renew(["t0", "t1", "t2", "gone"], LONG)) == ["t0", "t1", "t2"]
    a.release(["t1"])                                # free at once, for any node
    assert a.owners(["t0", "t1"]) == {"t0": "a", "t1": None}
    assert b.acquire("t1", LONG)
    assert b.load_table("t1")["version"] == 2        # a free table: no fence to raise
    assert b.orphans(10) == []
    a.renew(["t0"], 1)                               # a stops renewing t0
    deadline = time.monotonic() + 60
    while b.orphans(10) != ["t0"]:
        assert time.monotonic() < deadline, "the lease never ran out"
        time.sleep(0.01)
    assert b.owners(["t0"]) == {"t0": None}
    # a waiting table of a live node is not expired by another node's sweep
    a.create_table("w", "zheng-fen", 3, {}, "greedy", lease_ms=LONG)
    later = dt.datetime(2100, 1, 1)
    assert b.expire_waiting(later, []) == []
    assert a.expire_waiting(later, []) == ["w"]
    a.close()
    b.close()


def test_a_heartbeat_renews_every_lease_of_its_node_and_names_the_stopped_nodes(db_url):
    a, b = Store(db_url, node="a"), Store(db_url, node="b")
    _table(a, "t0")
    _table(b, "t1")
    assert a.renew(["t0"], 1) == ["t0"]              # a's lease on t0 about to run out
    assert b.beat(1)[0] == ["t1"]                    # b: alive for 1 ms more (it stops)
    deadline = time.monotonic() + 60
    while True:
        kept, dead = a.beat(LONG)
        if dead:
            break
        assert time.monotonic() < deadline, "b's heartbeat never ran out"
        time.sleep(0.01)
    assert kept == ["t0"] and dead == ["b"]          # t0 renewed; b stopped, a did not
    assert a.owners(["t0", "t1"]) == {"t0": "a", "t1": None}
    assert not b.acquire("t0", LONG)                 # t0's lease runs again
    assert b.beat(LONG) == (["t1"], [])              # b back: alive, and its t1 renewed
    a.close()
    b.close()
