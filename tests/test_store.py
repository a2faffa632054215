"""The store, on SQLite and on a real PostgreSQL server alike (the ``db_url`` fixture): its
group commit (moves of many tables in one transaction, each caller resumed only once its own
move is stored, a bad move failing alone), every column's values as they were written, the
orderings the server relies on, an earlier store's schema brought up to date, and, on
PostgreSQL, servers starting together and connections the database dropped."""

from __future__ import annotations

import asyncio
import datetime as dt
import threading

import pytest
from sqlalchemy import MetaData, Table, create_engine, inspect, text

from shangyou.server.store import AsyncStore, Base, Store, database_url


def _store(url, tables=4):
    st = Store(url)
    for t in range(tables):
        st.create_table(f"t{t}", "zheng-shangyou/pagat", 4, {}, "greedy")
        st.start_match(f"t{t}", f"m{t}", "zheng-shangyou/pagat", 4, {}, t, [], 1)
    return st


def test_concurrent_moves_are_grouped_and_all_stored(db_url):
    st = _store(db_url)
    calls = []
    real = st.add_moves

    def spy(batch):
        calls.append(len(batch))
        real(batch)

    st.add_moves = spy
    ast = AsyncStore(st)

    async def table(t):
        for i in range(25):
            await ast.add_move(f"t{t}", f"m{t}", i, i % 4, "pass", 2 + i)

    async def main():
        await asyncio.gather(*(table(t) for t in range(4)))

    asyncio.run(main())
    ast.close()
    st2 = Store(st.url)
    for t in range(4):
        row = st2.load_table(f"t{t}")
        assert row["version"] == 26
        assert [i for i, _ in enumerate(row["match"]["moves"])] == list(range(25))
    st2.close()
    assert sum(calls) == 100
    assert max(calls) > 1, "moves arriving together were not written together"
    assert len(calls) < 100


def test_a_bad_move_fails_alone(db_url):
    st = _store(db_url, tables=2)
    st.add_move("t0", "m0", 0, 0, "pass", 2)
    ast = AsyncStore(st)

    async def main():
        return await asyncio.gather(
            ast.add_move("t0", "m0", 0, 1, "pass", 3),     # index 0 again: refused
            ast.add_move("t1", "m1", 0, 0, "pass", 2),
            ast.add_move("t1", "m1", 1, 1, "pass", 3),
            return_exceptions=True)

    out = asyncio.run(main())
    ast.close()
    assert isinstance(out[0], Exception) and out[1] is None and out[2] is None
    st2 = Store(st.url)
    assert st2.load_table("t0")["version"] == 2
    assert len(st2.load_table("t0")["match"]["moves"]) == 1
    assert st2.load_table("t1")["version"] == 3
    assert [m[0] for m in st2.load_table("t1")["match"]["moves"]] == [0, 1]
    st2.close()


def test_a_finished_match_is_marked_over(db_url):
    st = _store(db_url, tables=1)
    ast = AsyncStore(st)
    asyncio.run(ast.add_move("t0", "m0", 0, 0, "pass", 2, {"winner": 0}))
    ast.close()
    st2 = Store(st.url)
    assert st2.load_table("t0")["status"] == "over"
    assert st2.match("m0")["result"] == {"winner": 0}
    assert st2.finished_matches()[0]["match_id"] == "m0"
    st2.close()


def test_a_lone_move_is_written_at_once(db_url):
    st = _store(db_url, tables=1)
    ast = AsyncStore(st)

    async def main():
        await asyncio.wait_for(ast.add_move("t0", "m0", 0, 0, "pass", 2), timeout=5)

    asyncio.run(main())
    ast.close()
    st2 = Store(st.url)
    assert st2.load_table("t0")["version"] == 2
    st2.close()


def test_every_value_comes_back_as_written(db_url):
    st = Store(db_url)
    options = {"target": 6, "decks": 2, "名": "東風", "_room": {"turn_timer": 30,
                                                              "listed": False}}
    st.create_table("t0", "zheng-shangyou/owen", 2, options, "greedy", host_hash="h" * 64,
                    listed=False)
    st.save_seats("t0", [{"seat": 0, "name": "Zoë 张三", "kind": "human",
                          "token_hash": "a" * 64, "bot_level": None},
                         {"seat": 1, "name": "Greedy bot 2", "kind": "bot",
                          "token_hash": None, "bot_level": "greedy"}], 1)
    seed = 2 ** 63 - 1                                   # the largest 64-bit seed
    st.start_match("t0", "m0", "zheng-shangyou/owen", 2, options, seed, ["Zoë 张三", None], 2)
    st.create_table("t1", "zheng-fen", 3, {}, "strong")
    st.start_match("t1", "m1", "zheng-fen", 3, {}, 0, ["a", "b", "c"], 1, secret="5" * 64,
                   commitment="c" * 64)
    result = {"winner": 1, "scores": [3, 6], "ranks": [[1, 0]], "note": "两 ♠", "x": None,
              "ratio": 0.5, "big": 2 ** 40, "ok": True}
    st.add_move("t0", "m0", 0, 0, "3C 3S 10H", 3)
    before = dt.datetime.now(dt.timezone.utc)
    st.add_move("t0", "m0", 1, 1, "pass", 4, result)
    after = dt.datetime.now(dt.timezone.utc)
    st.close()

    st = Store(db_url)
    t = st.load_table("t0")
    assert (t["game"], t["players"], t["bot_level"], t["status"], t["version"]) == \
        ("zheng-shangyou/owen", 2, "greedy", "over", 4)
    assert t["options"] == options and t["host_hash"] == "h" * 64 and t["listed"] is False
    assert t["seats"] == [{"seat": 0, "name": "Zoë 张三", "kind": "human",
                           "token_hash": "a" * 64, "bot_level": None},
                          {"seat": 1, "name": "Greedy bot 2", "kind": "bot",
                           "token_hash": None, "bot_level": "greedy"}]
    m = t["match"]
    assert m["seed"] == seed and type(m["seed"]) is int and m["commitment"] is None
    assert m["names"] == ["Zoë 张三", None] and m["options"] == options
    assert m["result"] == result and m["moves"] == [[0, "3C 3S 10H"], [1, "pass"]]
    finished = dt.datetime.fromisoformat(m["finished_at"])   # UTC, whatever the database's zone
    assert finished.utcoffset() == dt.timedelta(0) and before <= finished <= after
    secret = st.match("m1")
    assert secret["seed"] == "5" * 64 and secret["commitment"] == "c" * 64
    assert secret["result"] is None and secret["finished_at"] is None
    assert st.load_table("t1")["listed"] is True and st.load_table("nope") is None
    assert st.match("nope") is None
    st.close()


def _set_times(st: Store, column: str, times: dict) -> None:
    with st.engine.begin() as conn:
        for tid, when in times.items():
            conn.execute(text(f"UPDATE tables SET {column} = :w WHERE id = :id"),
                         {"w": when, "id": tid})


def test_orderings_with_untouched_tables_last(db_url):
    st = Store(db_url)
    for i in range(5):
        st.create_table(f"t{i}", "zheng-fen", 3, {}, "greedy")
    day = dt.datetime(2030, 1, 1, 12, 0, 0)
    _set_times(st, "created_at", {f"t{i}": day + dt.timedelta(minutes=i) for i in range(5)})
    # t1 and t3 come from a store without touched_at: theirs is empty
    _set_times(st, "touched_at", {"t0": day + dt.timedelta(hours=3), "t1": None,
                                  "t2": day + dt.timedelta(hours=5), "t3": None,
                                  "t4": day + dt.timedelta(hours=1)})
    assert st.recent_table_ids(("waiting",), 10) == ["t2", "t0", "t4", "t3", "t1"]
    assert st.recent_table_ids(("waiting",), 2) == ["t2", "t0"]
    assert st.recent_table_ids(("playing",), 10) == []
    assert st.table_ids(("waiting",)) == ["t0", "t1", "t2", "t3", "t4"]

    # finished matches: the latest first, ties by match id
    for i, mid in enumerate(["mb", "ma", "mc"]):
        st.start_match(f"t{i}", mid, "zheng-fen", 3, {}, i, [], 1)
        st.add_move(f"t{i}", mid, 0, 0, "pass", 2, {"winner": i})
    with st.engine.begin() as conn:
        for mid, when in {"mb": day, "ma": day, "mc": day + dt.timedelta(days=1)}.items():
            conn.execute(text("UPDATE matches SET finished_at = :w WHERE id = :id"),
                         {"w": when, "id": mid})
    assert [m["match_id"] for m in st.finished_matches()] == ["mc", "ma", "mb"]
    assert [m["match_id"] for m in st.finished_matches(limit=1, offset=1)] == ["ma"]
    assert st.finished_matches()[0]["finished_at"] == "2030-01-02T12:00:00+00:00"
    st.close()


def test_waiting_tables_expire_by_their_last_touch(db_url):
    st = Store(db_url)
    for i in range(4):
        st.create_table(f"t{i}", "zheng-fen", 3, {}, "greedy")
    day = dt.datetime(2030, 1, 1)
    _set_times(st, "created_at", {f"t{i}": day for i in range(4)})
    _set_times(st, "touched_at", {"t0": day + dt.timedelta(hours=1), "t1": None,
                                  "t2": day + dt.timedelta(hours=1),
                                  "t3": day + dt.timedelta(hours=3)})
    assert st.count_waiting() == 4
    # untouched since 2:00: t0 and t2 (touched at 1:00) and t1 (created at 0:00); t2 is kept
    assert sorted(st.expire_waiting(day + dt.timedelta(hours=2), keep=["t2"])) == ["t0", "t1"]
    assert st.count_waiting() == 2
    assert st.load_table("t0")["status"] == "expired"
    assert st.expire_waiting(day + dt.timedelta(hours=2), keep=["t2"]) == []
    st.save_table("t3", 1, status="playing", listed=False, options={"target": 2})
    t3 = st.load_table("t3")
    assert (t3["status"], t3["version"], t3["listed"], t3["options"]) == \
        ("playing", 1, False, {"target": 2})
    with pytest.raises(ValueError):
        st.save_table("t3", 2, match_id="m9")
    st.close()


def test_an_earlier_store_gains_the_new_columns(db_url):
    """A store made before the columns of ``Store._ADDED`` existed, with a table and a match in
    it, opens: the columns are added, empty, and its rows read and write as new ones."""
    added = {(t, c) for t, c, _ in Store._ADDED}
    old = MetaData()
    for table in Base.metadata.sorted_tables:
        Table(table.name, old, *[c._copy() for c in table.columns
                                 if (table.name, c.name) not in added])
    engine = create_engine(db_url)
    old.create_all(engine)
    created = dt.datetime(2030, 1, 1)
    with engine.begin() as conn:
        conn.execute(old.tables["tables"].insert(), [
            {"id": "old", "game": "zheng-fen", "players": 3, "options": {"target": 5},
             "bot_level": "greedy", "status": "playing", "version": 2, "match_id": "m0",
             "created_at": created},
            {"id": "old2", "game": "zheng-fen", "players": 3, "options": {},
             "bot_level": "greedy", "status": "waiting", "version": 0, "match_id": None,
             "created_at": created}])
        conn.execute(old.tables["seats"].insert(),
                     [{"table_id": "old", "seat": i, "name": f"p{i}", "kind": "human",
                       "token_hash": None, "bot_level": None} for i in range(3)])
        conn.execute(old.tables["matches"].insert(),
                     {"id": "m0", "table_id": "old", "game": "zheng-fen", "players": 3,
                      "options": {"target": 5}, "seed": 7, "names": ["p0", "p1", "p2"],
                      "result": None, "started_at": created, "finished_at": None})
    lobby_index = "ix_tables_lobby"             # an index made after that store (lobby.py)
    assert lobby_index not in {i["name"] for i in inspect(engine).get_indexes("tables")}
    engine.dispose()

    st = Store(db_url)
    assert lobby_index in {i["name"] for i in inspect(st.engine).get_indexes("tables")}
    t = st.load_table("old")
    assert t["listed"] is True and t["host_hash"] is None and t["version"] == 2
    assert t["match"]["seed"] == 7 and t["match"]["commitment"] is None
    assert st.recent_table_ids(("waiting", "playing"), 10) == ["old", "old2"]
    st.add_move("old", "m0", 0, 1, "pass", 3)
    st.save_table("old2", 1, host_hash="h" * 64, listed=False)
    st.close()
    st = Store(db_url)                      # opening it again adds nothing
    assert st.recent_table_ids(("waiting", "playing"), 10) == ["old2", "old"]
    assert st.load_table("old2")["listed"] is False
    assert st.load_table("old")["match"]["moves"] == [[1, "pass"]]
    st.close()


def test_servers_starting_together_create_the_tables_once(pg_url):
    """Several servers on one PostgreSQL database may start at the same moment."""
    n = 6
    barrier = threading.Barrier(n)
    stores: list = []
    errors: list = []

    def start():
        barrier.wait()
        try:
            stores.append(Store(pg_url))
        except Exception as e:       # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=start) for _ in range(n)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert errors == [] and len(stores) == n
    stores[0].create_table("t0", "zheng-fen", 3, {}, "greedy")
    assert all(s.count_waiting() == 1 for s in stores)
    for s in stores:
        s.close()


def test_connections_the_database_dropped_are_replaced(pg_url):
    """PostgreSQL restarted or a network dropped the store's connections: the next call opens a
    new one instead of failing."""
    st = Store(pg_url)
    st.create_table("t0", "zheng-fen", 3, {}, "greedy")
    st.start_match("t0", "m0", "zheng-fen", 3, {}, 1, [], 1)
    ast = AsyncStore(st)
    asyncio.run(ast.add_move("t0", "m0", 0, 0, "pass", 2))

    def drop_connections():
        engine = create_engine(pg_url)
        with engine.begin() as conn:
            dropped = conn.execute(text(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid()")).all()
        engine.dispose()
        assert dropped, "the store held no connection"

    drop_connections()
    asyncio.run(ast.add_move("t0", "m0", 1, 1, "pass", 3))
    drop_connections()
    assert st.load_table("t0")["version"] == 3
    ast.close()


def test_a_postgresql_url_without_a_driver_gets_psycopg(pg_url, tmp_path):
    plain = pg_url.replace("postgresql+psycopg://", "postgresql://")
    assert database_url(plain, tmp_path) == pg_url
    assert database_url(plain.replace("postgresql://", "postgres://"), tmp_path) == pg_url
    assert database_url("sqlite:///x.db", tmp_path) == "sqlite:///x.db"
    assert database_url(None, tmp_path) == f"sqlite:///{(tmp_path / 'shangyou.db').resolve()}"
    st = Store(database_url(plain, tmp_path))
    assert st.engine.url.drivername == "postgresql+psycopg" and st.count_waiting() == 0
    st.close()
