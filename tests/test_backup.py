"""A real server's store carried over: a store an earlier version made (before migrations)
taken in by the server, and a backup taken while tables are in play (PostgreSQL: ``pg_dump
-Fc`` and ``pg_restore`` into a fresh database; SQLite: the online backup API, as
``sqlite3 .backup`` does) restored: either way, a server on it resumes every table with every
move, and the match plays on to its end (docs/deploy.md, *Schema migrations*, *Backup and
restore*)."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest
from sqlalchemy import MetaData, create_engine, select

import shangyou
from shangyou.bots.base import make_bot
from shangyou.server import migrations
from test_migrations import NEWEST, legacy_store
from test_server_restart import Server, free_port, my_turn_or_over, play, recv, until

pytestmark = pytest.mark.timeout(180)


def play_a_while(server: Server) -> tuple[str, str, str, dict]:
    """A match begun (one person, one bot) and six of the person's moves made, and a table
    still waiting: the ids, the person's seat token and the state after the last move."""
    body = {"game": "zheng-shangyou/owen", "players": 2, "options": {"target": 4},
            "bots": "greedy"}
    created = server.post("/api/tables", body)
    table_id = created["table_id"]
    waiting_id = server.post("/api/tables", {**body, "players": 3})["table_id"]
    chooser = make_bot("greedy", 3)
    with server.ws(table_id) as ws:
        ws.send(json.dumps({"type": "hello", "token": created["host_token"], "name": "Ann"}))
        assert recv(ws)["type"] == "welcome"
        recv(ws)
        ws.send(json.dumps({"type": "sit", "seat": 0}))
        token = recv(ws)["token"]
        recv(ws)
        ws.send(json.dumps({"type": "bots"}))
        recv(ws)
        ws.send(json.dumps({"type": "start"}))
        s = until(ws, my_turn_or_over(0))
        for _ in range(6):
            s = play(ws, s, chooser)
            assert s["view"]["phase"] != "over"
    return table_id, waiting_id, token, s


def resume(server: Server, table_id: str, waiting_id: str, token: str, before: dict) -> None:
    """The server lists both tables; the person's seat is where it was, move for move; the
    match plays on to its end and its log replays to its result."""
    deadline = time.monotonic() + 60
    while True:
        tables = {t["table_id"]: t for t in server.get("/api/tables")["tables"]}
        if len(tables) == 2 or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert tables[table_id]["status"] == "playing"
    assert tables[waiting_id]["status"] == "waiting"
    chooser = make_bot("greedy", 3)
    with server.ws(table_id) as ws:
        ws.send(json.dumps({"type": "hello", "token": token, "name": "Ann"}))
        assert recv(ws)["seat"] == 0
        s = recv(ws)
        assert s["type"] == "state"
        assert (s["version"], s["move_count"]) == (before["version"], before["move_count"])
        assert s["view"] == before["view"]          # same hand, same table, same turn
        while s["view"]["phase"] != "over":
            s = play(ws, s, chooser)
    match_id = s["table"]["match_id"]
    full = server.get(f"/api/matches/{match_id}")
    assert full["result"] == s["view"]["result"]
    assert shangyou.replay(full["log"]).result == s["view"]["result"]


def copy_rows(source_url: str, target_url: str) -> None:
    """Every row of one store into another, in the columns both have (one the source has
    dropped since stays empty)."""
    source, target = create_engine(source_url), create_engine(target_url)
    have, want = MetaData(), MetaData()
    have.reflect(source)
    want.reflect(target)
    with source.connect() as src, target.begin() as dst:
        for table in want.sorted_tables:
            old = have.tables[table.name]
            rows = src.execute(select(*[old.c[c.name] for c in table.columns
                                        if c.name in old.c])).mappings()
            batch = [dict(r) for r in rows]
            if batch:
                dst.execute(table.insert(), batch)
    source.dispose()
    target.dispose()


def sqlite_url(data: Path) -> str:
    return f"sqlite:///{data / 'shangyou.db'}"


@pytest.mark.parametrize("db", ["sqlite", "postgresql"])
def test_a_server_takes_in_an_earlier_store_and_plays_on(request, tmp_path, db):
    """Tables in play in a store of the last version before migrations (its schema as that
    version made it, its rows as a server wrote them): a server of this version starts on it,
    brings it to head and resumes them."""
    port = free_port()
    if db == "postgresql":
        postgres = request.getfixturevalue("postgres")
        first_url, old_url = postgres.new_database("played"), postgres.new_database("old")
        first, old = ("--db", first_url), ("--db", old_url)
    else:
        first_url, old_url = sqlite_url(tmp_path / "a"), sqlite_url(tmp_path / "b")
        (tmp_path / "b").mkdir()
        first, old = (), ()
    server = Server(port, tmp_path / "a", *first)
    try:
        table_id, waiting_id, token, before = play_a_while(server)
    finally:
        server.kill()
    legacy_store(old_url, NEWEST).dispose()
    copy_rows(first_url, old_url)
    server = Server(port, tmp_path / "b", *old)
    try:
        engine = create_engine(old_url)
        with engine.connect() as conn:
            assert migrations.current(conn) == (migrations.head(),)
        engine.dispose()
        resume(server, table_id, waiting_id, token, before)
    finally:
        server.kill()


def test_pg_dump_and_pg_restore_while_tables_are_in_play(postgres, tmp_path):
    """``pg_dump -Fc`` of a running server's database, ``pg_restore`` into a new database, a
    server on that one: the tables resume with every move."""
    url = postgres.new_database("live")
    libpq = url.replace("postgresql+psycopg://", "postgresql://")
    dump = tmp_path / "shangyou.dump"
    port = free_port()
    server = Server(port, tmp_path / "data", "--db", url)
    try:
        table_id, waiting_id, token, before = play_a_while(server)
        subprocess.run([str(postgres.bindir / "pg_dump"), "-Fc", "-f", str(dump), libpq],
                       check=True, capture_output=True, timeout=120)
    finally:
        server.kill()
    restored = postgres.new_database("restored")
    subprocess.run([str(postgres.bindir / "pg_restore"), "--no-owner", "--exit-on-error",
                    "-d", restored.replace("postgresql+psycopg://", "postgresql://"),
                    str(dump)], check=True, capture_output=True, timeout=120)
    server = Server(port, tmp_path / "data", "--db", restored)
    try:
        resume(server, table_id, waiting_id, token, before)
    finally:
        server.kill()


def test_sqlite_online_backup_while_tables_are_in_play(tmp_path):
    """SQLite's online backup (Python's ``Connection.backup``, what ``sqlite3 .backup`` runs)
    of a running server's store, put in a new data folder: the tables resume with every
    move."""
    port = free_port()
    server = Server(port, tmp_path / "data")
    try:
        table_id, waiting_id, token, before = play_a_while(server)
        (tmp_path / "restored").mkdir()
        live = sqlite3.connect(tmp_path / "data" / "shangyou.db")
        copy = sqlite3.connect(tmp_path / "restored" / "shangyou.db")
        with copy:
            live.backup(copy)
        live.close()
        copy.close()
    finally:
        server.kill()
    server = Server(port, tmp_path / "restored")
    try:
        resume(server, table_id, waiting_id, token, before)
    finally:
        server.kill()
