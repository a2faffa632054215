"""The lobby of several nodes (server/lobby.py), on SQLite and PostgreSQL: its pages (order,
the unlisted and the abandoned empty waiting tables left out, offset and limit, total) are
those of the rule written out in Python over every table; its reads never wait in the
store's writing thread (that thread is held while a page is read); its cache serves a page
again without reading; past its bound of pages waiting, it answers busy."""

from __future__ import annotations

import asyncio
import datetime as dt
import threading

import pytest
from sqlalchemy import update

from shangyou.server.limits import Limits
from shangyou.server.lobby import Lobby, LobbyBusy
from shangyou.server.model import hash_token
from shangyou.server.rows import SeatRow, TableRow, utcnow
from shangyou.server.store import AsyncStore, Store

WAIT = 60.0


def fill(store: Store) -> list[dict]:
    """Tables of every kind the lobby meets, each made at its own moment; what the lobby
    must know of each."""
    now = utcnow()
    kinds = []
    for i in range(40):
        status = ("waiting", "playing", "over", "expired", "closed")[i % 5 if i % 3 else 0]
        listed = i % 7 != 3
        seated = i % 4 == 1
        quiet = i % 6 == 2                      # nothing changed for 10 minutes
        kinds.append({"id": f"t{i:02d}", "status": status, "listed": listed,
                      "seated": seated, "quiet": quiet,
                      "created": now - dt.timedelta(seconds=3600 - i * 7 % 40 * 60)})
    for k in kinds:
        store.create_table(k["id"], "zheng-shangyou/owen", 2, {}, "greedy",
                           hash_token(k["id"]), listed=k["listed"])
        with store.session.begin() as s:
            s.execute(update(TableRow).where(TableRow.id == k["id"]).values(
                status=k["status"], created_at=k["created"],
                touched_at=now - dt.timedelta(seconds=600 if k["quiet"] else 5)))
            if k["seated"]:
                s.execute(update(SeatRow).where(SeatRow.table_id == k["id"], SeatRow.seat == 1)
                          .values(kind="human", name="Ann", token_hash=hash_token(k["id"])))
    return kinds


def expected(kinds: list[dict]) -> list[str]:
    """The lobby's rule in Python: listed waiting tables (but not an empty one quiet for
    ``empty_listed_seconds``) newest first, then listed running ones newest first."""
    shown = [k for k in kinds if k["listed"] and k["status"] in ("waiting", "playing")
             and not (k["status"] == "waiting" and not k["seated"] and k["quiet"])]
    shown.sort(key=lambda k: (k["status"] != "waiting", -k["created"].timestamp()))
    return [k["id"] for k in shown]


@pytest.fixture
def store(db_url):
    s = Store(db_url)
    yield s
    s.close()


def test_pages_follow_the_lobby_rule(store):
    kinds = fill(store)
    want = expected(kinds)
    assert 10 < len(want) < 40          # some of each kind are left out, some shown
    lobby = Lobby(store, Limits(lobby_cache_ms=0))

    async def pages():
        out = {}
        for offset in range(0, len(want) + 3):
            for limit in (1, 3, 7, 100):
                out[offset, limit] = await lobby.page(offset, limit)
        return out
    try:
        got = asyncio.run(pages())
    finally:
        lobby.close()
    for (offset, limit), page in got.items():
        assert [t["table_id"] for t in page["tables"]] == want[offset:offset + limit], \
            (offset, limit)
        assert page["total"] == len(want) and (page["offset"], page["limit"]) == (offset, limit)
    first = got[0, 100]["tables"]
    seated = {k["id"] for k in kinds if k["seated"]}
    for t in first:
        assert t["host"] == (1 if t["table_id"] in seated else None)
        assert [x["kind"] for x in t["seats"]] == \
            ["empty", "human" if t["table_id"] in seated else "empty"]


def test_a_page_is_read_while_the_stores_writing_thread_is_held(store):
    fill(store)
    astore = AsyncStore(store)
    lobby = Lobby(store, Limits())
    held, release = threading.Event(), threading.Event()

    def hold():
        held.set()
        release.wait(WAIT)

    async def run():
        writes = asyncio.ensure_future(astore.call_with(lambda _store: hold()))
        await asyncio.to_thread(held.wait, WAIT)
        try:
            # the store's only thread is busy: the lobby answers all the same
            page = await asyncio.wait_for(lobby.page(0, 10), WAIT)
            assert not writes.done()
            return page
        finally:
            release.set()
            await writes
    try:
        page = asyncio.run(run())
    finally:
        lobby.close()
        astore._pool.shutdown(wait=True)
    assert page["tables"] and lobby.reads == 1


def test_the_cache_and_the_bound(store):
    fill(store)
    lobby = Lobby(store, Limits(lobby_cache_ms=3_600_000, lobby_reads_waiting=1))
    held, release = threading.Event(), threading.Event()

    async def run():
        first = await lobby.page(0, 5)
        assert await lobby.page(0, 5) == first and lobby.reads == 1 and lobby.counts == 1
        # the lobby's thread held: one page may wait for it, a second one is refused
        blocker = asyncio.get_running_loop().run_in_executor(
            lobby._pool, lambda: (held.set(), release.wait(WAIT)))
        await asyncio.to_thread(held.wait, WAIT)
        waiting = asyncio.ensure_future(lobby.page(5, 5))
        again = asyncio.ensure_future(lobby.page(5, 5))      # the same page: shares the read
        await asyncio.sleep(0)
        with pytest.raises(LobbyBusy):
            await lobby.page(10, 5)
        assert await lobby.page(0, 5) == first                # kept: no read needed
        release.set()
        await blocker
        assert await waiting == await again
        assert lobby.reads == 2 and lobby.counts == 1
    try:
        asyncio.run(run())
    finally:
        release.set()
        lobby.close()


def test_a_flood_of_one_page_is_read_and_encoded_once(store):
    """Many requests for one page while it is kept: one read, one check and encoding of its
    JSON (in the lobby's thread); every request gets the same bytes, the JSON that
    ``GET /api/tables`` declares (schemas.TablePage) of the page read."""
    from shangyou.server.schemas import TablePage
    kinds = fill(store)
    lobby = Lobby(store, Limits(lobby_cache_ms=3_600_000))

    async def run():
        first = await asyncio.gather(*(lobby.page_json(0, 10) for _ in range(50)))
        again = [await lobby.page_json(0, 10) for _ in range(50)]
        return first + again, await lobby.page(0, 10)
    try:
        answers, page = asyncio.run(run())
    finally:
        lobby.close()
    assert lobby.reads == 1 and lobby.renders == 1
    assert all(a is answers[0] for a in answers)          # the same bytes, not made again
    assert TablePage.model_validate_json(answers[0]) == TablePage.model_validate(page)
    assert [t["table_id"] for t in page["tables"]] == expected(kinds)[:10]
