"""The watchdog and the store's retries, in one process: a table whose bot task is lost is
found and resumed; a store that gives up (the database down longer than the retries) costs a
table nothing but time, with one traceback a failure; the log lines' format.

Real components: the store on SQLite, and on a PostgreSQL server of the test's own that is
stopped (``pg_ctl -m fast``) and started again. Waits are on conditions with generous bounds."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import re

import pytest

from shangyou.server import schemas
from shangyou.server.logs import make_handler, table_context
from shangyou.server.store import AsyncStore, Store
from shangyou.server.tables import TableManager
from test_store_faults import own_pg  # noqa: F401 - the fixture

WAIT = 60.0
pytestmark = pytest.mark.timeout(180)


async def until(pred, what: str, timeout: float = WAIT) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not pred():
        assert loop.time() < deadline, f"not within {timeout} s: {what}"
        await asyncio.sleep(0.01)


async def bot_table(manager: TableManager):
    """A started table of four greedy bots, in a long match."""
    t, _ = await manager.create_table("zheng-shangyou/winner", 4, {"hands": 400}, "greedy")
    async with t.lock:
        await manager._bots(t, None, schemas.parse_client({"type": "bots"}))
        await manager._start(t, None, None)
    return t


def test_the_watchdog_resumes_a_table_whose_bot_task_was_lost(tmp_path):
    async def main():
        store = AsyncStore(Store(f"sqlite:///{tmp_path / 'db.sqlite'}"))
        manager = TableManager(store, bot_delay=0.001)
        await manager.startup()
        manager.watchdog.stop()          # its rounds are run by hand here
        try:
            t = await bot_table(manager)
            await until(lambda: len(t.game.moves) >= 5, "the bots play")
            assert manager.watchdog.check() == []        # a live bot task: nothing to do
            async with t.lock:        # between two moves (none is being stored)
                task = t.bot_task
                task.cancel()                            # the bot task is lost
                await asyncio.gather(task, return_exceptions=True)
                n = len(t.game.moves)
            for _ in range(10):
                await asyncio.sleep(0)
            assert len(t.game.moves) == n and t.bot_task.done()   # nothing moves it on
            assert manager.watchdog.check() == [t.id]
            assert manager.watchdog.check() == []        # started once, not twice
            await until(lambda: len(t.game.moves) >= n + 10, "the bots play again")
            async with t.lock:
                stored = await store.call("load_table", t.id)
                assert len(stored["match"]["moves"]) == len(t.game.moves)
                assert stored["version"] == t.version
        finally:
            await manager.shutdown()
            store.close()

    asyncio.run(main())


def test_the_watchdog_arms_a_lost_turn_timer_again(tmp_path):
    """A person to act at a table with a turn timer, the timer lost: the watchdog arms it
    again, and at its end the timer moves for the person."""
    async def main():
        store = AsyncStore(Store(f"sqlite:///{tmp_path / 'db.sqlite'}"))
        manager = TableManager(store, bot_delay=0.001)
        await manager.startup()
        manager.watchdog.stop()
        try:
            t, _ = await manager.create_table("zheng-shangyou/owen", 2, {}, "greedy",
                                              room={"turn_timer": 1, "grace": 600})
            async with t.lock:
                await manager._save_seats(t, {0: {"name": "Ann", "kind": "human",
                                                  "token_hash": "x" * 64, "bot_level": None}})
                await manager._bots(t, None, schemas.parse_client({"type": "bots"}))
                await manager._start(t, None, None)
            await until(lambda: t.game.to_act == 0 and t.timer_task is not None
                        and not t.lock.locked(), "the person is to act, with a timer")
            async with t.lock:
                n = len(t.game.moves)
                t.timer_task.cancel()                    # the timer is lost
                await asyncio.gather(t.timer_task, return_exceptions=True)
            assert manager.watchdog.check() == [t.id]
            assert t.timer_task is not None and not t.timer_task.done()
            assert manager.watchdog.check() == []
            await until(lambda: len(t.game.moves) > n, "the timer moves for the person")
            async with t.lock:
                stored = await store.call("load_table", t.id)
            assert stored["match"]["assisted"][str(n)] == "timer"
        finally:
            await manager.shutdown()
            store.close()

    asyncio.run(main())


def test_a_store_that_gives_up_costs_the_bots_time_only(own_pg, caplog):  # noqa: F811
    """The database down longer than the store's retries: each move is given up (an error
    line, with the traceback the first time only, and a warning line a try), undone, and made
    again once the database is back; the table plays on by itself, nothing in memory but what
    is stored."""
    url = own_pg.new_database("gives_up")
    caplog.set_level(logging.WARNING, logger="shangyou.server")

    async def main():
        store = AsyncStore(Store(url), retry_seconds=0.3)
        manager = TableManager(store, bot_delay=0.001)
        await manager.startup()
        try:
            t = await bot_table(manager)
            await until(lambda: len(t.game.moves) >= 5, "the bots play")
            await asyncio.to_thread(own_pg.stop_fast)
            await until(lambda: sum("giving up" in r.getMessage() for r in caplog.records) >= 2,
                        "the store gives up twice")
            n = len(t.game.moves)
            await asyncio.to_thread(own_pg.start_again)
            await until(lambda: len(t.game.moves) >= n + 10, "the bots play on")
            async with t.lock:
                stored = await store.call("load_table", t.id)
                assert len(stored["match"]["moves"]) == len(t.game.moves)
                assert stored["version"] == t.version
        finally:
            await manager.shutdown()
            store.close()

    asyncio.run(main())
    traced = [r for r in caplog.records if r.exc_info]
    given_up = [r for r in caplog.records if "giving up" in r.getMessage()]
    # one traceback for the outage (the first give-up); the later ones are one line each
    assert len(given_up) >= 2 and traced == given_up[:1]
    assert any("the database answers again" in r.getMessage() for r in caplog.records)
    assert all(r.levelname == "ERROR" for r in given_up)
    tries = [r for r in caplog.records if "trying again in" in r.getMessage()]
    assert tries and all(r.levelname == "WARNING" and not r.exc_info for r in tries)
    assert not any("bots stopped" in r.getMessage() for r in caplog.records)


def test_log_lines_name_the_time_the_node_and_the_table():
    log = logging.getLogger("shangyou.test.logs")
    log.propagate = False
    log.setLevel(logging.INFO)
    for fmt in ("text", "json"):
        buf = io.StringIO()
        handler = make_handler(fmt, "node-7", buf)
        log.addHandler(handler)
        try:
            with table_context("T1"):
                log.warning("a line of table %s", "T1")
            log.info("a line of no table")
            try:
                try:
                    raise ConnectionError("refused\nsecond line")
                except ConnectionError as e:
                    raise RuntimeError("boom") from e
            except RuntimeError:
                log.exception("a failure")     # two exceptions, one traceback
        finally:
            log.removeHandler(handler)
        out = buf.getvalue()
        if fmt == "text":
            lines = out.splitlines()
            stamp = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"
            assert re.fullmatch(stamp + r" WARNING node=node-7 table=T1 shangyou\.test\.logs: "
                                r"a line of table T1", lines[0]), lines[0]
            assert re.fullmatch(stamp + r" INFO node=node-7 table=- .*", lines[1]), lines[1]
            assert out.count("Traceback (most recent call last)") == 1
            assert "caused by builtins.ConnectionError: refused\n" in out + "\n"
            assert "second line" not in out
        else:
            records = [json.loads(line) for line in out.splitlines()]   # one object a line
            assert len(records) == 3
            assert records[0]["node"] == "node-7" and records[0]["table"] == "T1"
            assert records[0]["level"] == "WARNING" and records[0]["message"].endswith("T1")
            assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", records[0]["time"])
            assert records[1]["table"] is None
            assert "RuntimeError: boom" in records[2]["exc"] and "exc" not in records[0]
            assert records[2]["exc"].count("Traceback (most recent call last)") == 1
            assert records[2]["exc"].endswith("caused by builtins.ConnectionError: refused")


def test_what_the_store_tries_again(tmp_path):
    """Connection failures are tried again; refusals of the data and SQLite's programming
    errors are not (they would fail the same way)."""
    import psycopg
    from sqlalchemy import create_engine, text
    from sqlalchemy.exc import IntegrityError

    from shangyou.server.store import Stale, transient
    from test_cluster import free_port

    try:
        psycopg.connect(host="127.0.0.1", port=free_port(), user="x", connect_timeout=5)
    except psycopg.OperationalError as e:
        refused = e
    assert transient(refused)
    engine = create_engine(f"postgresql+psycopg://x@127.0.0.1:{free_port()}/x")
    with pytest.raises(Exception) as wrapped:
        engine.connect()
    assert transient(wrapped.value)                 # SQLAlchemy's OperationalError
    sqlite = create_engine(f"sqlite:///{tmp_path / 'x.db'}")
    with pytest.raises(Exception) as missing:
        with sqlite.connect() as conn:
            conn.execute(text("SELECT * FROM nowhere"))
    assert not transient(missing.value)
    with sqlite.begin() as conn:
        conn.execute(text("CREATE TABLE t (k INTEGER PRIMARY KEY)"))
        conn.execute(text("INSERT INTO t VALUES (1)"))
    with pytest.raises(IntegrityError) as twice:
        with sqlite.begin() as conn:
            conn.execute(text("INSERT INTO t VALUES (1)"))
    assert not transient(twice.value)
    assert not transient(Stale("table x: not at version 3"))
    assert not transient(ValueError("a bug"))


def test_a_table_whose_store_moved_on_loads_again_and_plays_on(tmp_path):
    """Alone on its store, a server whose write is refused (the stored version is not the one
    in memory: here moved on behind its back) drops the table and loads it again from the
    store, where its bots play on."""
    url = f"sqlite:///{tmp_path / 'db.sqlite'}"

    async def main():
        store = AsyncStore(Store(url))
        manager = TableManager(store, bot_delay=0.001)
        await manager.startup()
        try:
            t = await bot_table(manager)
            await until(lambda: len(t.game.moves) >= 5, "the bots play")
            async with t.lock:
                other = Store(url)
                with other.engine.begin() as conn:
                    conn.exec_driver_sql("UPDATE tables SET version = version + 1 "
                                         "WHERE id = ?", (t.id,))
                other.close()
            await until(lambda: manager.tables.get(t.id) not in (None, t),
                        "the table is loaded again")
            again = manager.tables[t.id]
            n = len(again.game.moves)
            await until(lambda: len(again.game.moves) >= n + 10, "its bots play on")
            assert t.lost
        finally:
            await manager.shutdown()
            store.close()

    asyncio.run(main())


class CutOffStore(Store):
    """A real store whose first write of moves is committed, then reported lost (a commit
    whose answer the connection did not bring back)."""
    cut = False

    def add_moves(self, batch):
        super().add_moves(batch)
        if not self.cut:
            self.cut = True
            import psycopg
            raise psycopg.OperationalError("server closed the connection unexpectedly")


def test_a_commit_cut_off_but_made_counts_as_stored(tmp_path):
    async def main():
        store = AsyncStore(CutOffStore(f"sqlite:///{tmp_path / 'db.sqlite'}"))
        manager = TableManager(store, bot_delay=0.001)
        await manager.startup()
        try:
            t = await bot_table(manager)
            await until(lambda: len(t.game.moves) >= 10, "the bots play on")
            assert store.store.cut
            async with t.lock:
                stored = await store.call("load_table", t.id)
            assert len(stored["match"]["moves"]) == len(t.game.moves)
            assert manager.tables[t.id] is t and not t.lost      # nothing was undone
        finally:
            await manager.shutdown()
            store.close()

    asyncio.run(main())


def test_a_hostile_table_id_never_reaches_a_log_line():
    log = logging.getLogger("shangyou.test.hostile")
    log.propagate = False
    buf = io.StringIO()
    handler = make_handler("text", "n", buf)
    log.addHandler(handler)
    try:
        for bad in ("x\nFAKE ERROR line", "a" * 33, "id with spaces", ""):
            with table_context(bad):
                log.warning("w")
    finally:
        log.removeHandler(handler)
    lines = buf.getvalue().splitlines()
    assert len(lines) == 4 and all(" table=- " in line for line in lines), lines
