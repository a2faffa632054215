"""Schema migrations (server/migrations, Alembic), on SQLite and on a real PostgreSQL alike:
a store an earlier version made (its schema frozen in tests/schemas, as that version's
``create_all`` made it, perhaps with columns its start-up added) is taken in with its data;
the models match the migrations at head; every revision goes down and up again to the same
schema; nodes starting together migrate once; a migration that fails changes nothing; a schema
newer than this version is refused; the ``shangyou db`` commands. A real server on a migrated store resumes its tables:
tests/test_backup.py."""

from __future__ import annotations

import datetime as dt
import shutil
import threading
from pathlib import Path

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import MetaData, create_engine, inspect, select, text
from sqlalchemy.engine import Engine
from typer.testing import CliRunner

from shangyou.cli.main import app as cli
from shangyou.server import migrations
from shangyou.server.rows import Base
from shangyou.server.store import Store

SCHEMAS = Path(__file__).resolve().parent / "schemas"
OLDEST, NEWEST = "22f4f27", "ecdaa2f"    # the first stored schema; the last before migrations
# what version a62423c's start-up added to a store of the oldest schema (its Store._ADDED)
A62423C_ALTERS = ("ALTER TABLE tables ADD COLUMN host_hash VARCHAR(64)",
                  "ALTER TABLE tables ADD COLUMN listed BOOLEAN",
                  "ALTER TABLE tables ADD COLUMN touched_at TIMESTAMP",
                  "ALTER TABLE matches ADD COLUMN secret VARCHAR(64)",
                  "ALTER TABLE matches ADD COLUMN commitment VARCHAR(64)")


def legacy_store(url: str, commit: str, alters: tuple[str, ...] = ()) -> Engine:
    """An empty store as version ``commit`` made it (tests/schemas/schema-COMMIT.DIALECT.sql),
    then ``alters`` as a later version's start-up ran them; no ``alembic_version``."""
    engine = create_engine(url)
    sql = (SCHEMAS / f"schema-{commit}.{engine.dialect.name}.sql").read_text()
    with engine.begin() as conn:
        for statement in sql.split(";\n"):
            body = "\n".join(ln for ln in statement.splitlines() if not ln.startswith("--"))
            if body.strip():
                conn.exec_driver_sql(body)
        for statement in alters:
            conn.exec_driver_sql(statement)
    return engine


def differences(engine: Engine) -> list:
    """What Alembic's autogenerate would change to make the database match the rows."""
    with engine.connect() as conn:
        return compare_metadata(MigrationContext.configure(conn, opts={"compare_type": True}),
                                Base.metadata)


def shape(conn) -> dict:
    """The schema as the database reports it: columns, keys, indexes of every table."""
    insp = inspect(conn)
    out = {}
    for name in sorted(insp.get_table_names()):
        if name == "alembic_version":
            continue
        out[name] = (
            sorted((c["name"], str(c["type"]), c["nullable"]) for c in insp.get_columns(name)),
            insp.get_pk_constraint(name)["constrained_columns"],
            sorted((tuple(f["constrained_columns"]), f["referred_table"])
                   for f in insp.get_foreign_keys(name)),
            sorted((i["name"], tuple(i["column_names"]), bool(i["unique"]))
                   for i in insp.get_indexes(name)),
            sorted(tuple(u["column_names"]) for u in insp.get_unique_constraints(name)))
    return out


def test_a_new_store_is_at_head_and_matches_the_rows(db_url):
    st = Store(db_url)
    with st.engine.connect() as conn:
        assert migrations.current(conn) == (migrations.head(),)
    assert differences(st.engine) == []
    st.close()


@pytest.mark.parametrize("commit, alters", [(OLDEST, ()), (OLDEST, A62423C_ALTERS),
                                            (NEWEST, ())], ids=["oldest", "oldest+alters",
                                                                "newest"])
def test_an_earlier_store_is_taken_in_with_its_data(db_url, commit, alters):
    """A store made before migrations, with a table and a match in it (the tables' columns
    of its version only), opens: it is brought to head, its rows read and write as new ones,
    and its schema is the one a new store has."""
    engine = legacy_store(db_url, commit, alters)
    old = MetaData()
    old.reflect(engine)
    created = dt.datetime(2030, 1, 1)
    listed = old.tables["tables"].c.get("listed")
    unset = None if listed is not None and listed.nullable else True   # as start-up left it

    def row(table: str, **values) -> dict:      # the columns that store had
        return {k: v for k, v in values.items() if k in old.tables[table].c}

    with engine.begin() as conn:
        conn.execute(old.tables["tables"].insert(), [
            row("tables", id="old", game="zheng-fen", players=3, options={"target": 5},
                bot_level="greedy", status="playing", version=2, match_id="m0",
                created_at=created, listed=unset),
            row("tables", id="old2", game="zheng-fen", players=3, options={},
                bot_level="greedy", status="waiting", version=0, match_id=None,
                created_at=created - dt.timedelta(minutes=1), listed=True)])
        conn.execute(old.tables["seats"].insert(),
                     [row("seats", table_id="old", seat=i, name=f"p{i}", kind="human",
                          token_hash=None, bot_level=None) for i in range(3)])
        conn.execute(old.tables["matches"].insert(), row(
            "matches", id="m0", table_id="old", game="zheng-fen", players=3,
            options={"target": 5}, seed=7, names=["p0", "p1", "p2"], result=None,
            started_at=created, finished_at=None))
        conn.execute(old.tables["moves"].insert(),
                     row("moves", match_id="m0", idx=0, seat=0, text="pass"))
        assert "alembic_version" not in inspect(conn).get_table_names()
    engine.dispose()

    st = Store(db_url)
    with st.engine.connect() as conn:
        assert migrations.current(conn) == (migrations.head(),)
        fresh = create_engine("sqlite://") if st.engine.dialect.name == "sqlite" else None
    assert differences(st.engine) == []
    t = st.load_table("old")
    assert t["listed"] is True and t["host_hash"] is None and t["version"] == 2
    assert t["match"]["seed"] == 7 and t["match"]["commitment"] is None
    assert t["match"]["moves"] == [[0, "pass"]]
    assert [s["name"] for s in t["seats"]] == ["p0", "p1", "p2"]
    assert st.recent_table_ids(("waiting", "playing"), 10) == ["old", "old2"]
    st.add_move("old", "m0", 1, 1, "pass", 3)
    st.save_table("old2", 1, host_hash="h" * 64, listed=False)
    st.close()
    st = Store(db_url)                      # opening it again changes nothing
    assert st.recent_table_ids(("waiting", "playing"), 10) == ["old2", "old"]
    assert st.load_table("old2")["listed"] is False
    assert st.load_table("old")["match"]["moves"] == [[0, "pass"], [1, "pass"]]
    with st.engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM tables")).scalar() == 2
        if fresh is not None:             # the same schema as a new store's, to the letter
            new = Store("sqlite://")
            with new.engine.connect() as new_conn:
                assert shape(conn) == shape(new_conn)
            new.close()
    st.close()


def test_each_revision_goes_down_and_up_again(db_url):
    """From nothing to head one revision at a time, then back down one at a time to nothing
    and up again: each revision's schema is the same on the way up and down, the rows written
    at head survive every step down to the baseline, and head matches the rows."""
    engine = create_engine(db_url)
    order = [s.revision for s in reversed(list(migrations.scripts().walk_revisions()))]
    assert order[0] == "0001" and order[-1] == migrations.head()
    shapes = {}
    with migrations.schema_lock(engine) as conn:
        shapes[None] = shape(conn)
        assert shapes[None] == {}
        for rev in order:
            migrations.upgrade(conn, rev)
            assert migrations.current(conn) == (rev,)
            shapes[rev] = shape(conn)
    st = Store(db_url)
    st.create_table("t0", "zheng-fen", 3, {}, "greedy")
    st.close()
    with migrations.schema_lock(engine) as conn:
        for rev in reversed(order):
            down = migrations.scripts().get_revision(rev).down_revision
            migrations.downgrade(conn, "-1")
            assert migrations.current(conn) == ((down,) if down else ())
            assert shape(conn) == shapes[down], f"down from {rev}"
            if down is not None:
                assert conn.execute(text("SELECT id FROM tables")).scalars().all() == ["t0"]
        migrations.upgrade(conn)
        assert shape(conn) == shapes[order[-1]]
    assert differences(engine) == []
    engine.dispose()


def test_nodes_starting_together_migrate_an_earlier_store_once(pg_url):
    """Six nodes open one PostgreSQL store of the oldest schema, with a row in it, at the same
    moment: one migrates it (the others wait on the schema lock and find it done), none fails,
    the row is kept."""
    engine = legacy_store(pg_url, OLDEST)
    with engine.begin() as conn:
        conn.execute(text("INSERT INTO tables (id, game, players, options, bot_level, status, "
                          "version, created_at) VALUES ('old', 'zheng-fen', 3, '{}', "
                          "'greedy', 'waiting', 0, '2030-01-01')"))
    n = 6
    barrier = threading.Barrier(n)
    stores: list = []
    errors: list = []

    def start():
        barrier.wait()
        try:
            stores.append(Store(pg_url, node=f"n{threading.get_ident()}"))
        except Exception as e:       # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=start) for _ in range(n)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert errors == [] and len(stores) == n
    assert all(s.load_table("old")["listed"] is True for s in stores)
    with engine.connect() as conn:
        assert conn.execute(text("SELECT version_num FROM alembic_version")).scalars().all() \
            == [migrations.head()]
    assert differences(engine) == []
    for s in stores:
        s.close()
    engine.dispose()


def test_a_migration_that_fails_changes_nothing(db_url):
    """The baseline meets a table it cannot take in (``moves`` without its ``seat``) after it
    has added columns to others: the store does not open, and the database is as it was (the
    whole migration is one transaction, on PostgreSQL and on SQLite alike)."""
    engine = legacy_store(db_url, OLDEST)
    with engine.begin() as conn:
        conn.exec_driver_sql("DROP TABLE moves")
        conn.exec_driver_sql("CREATE TABLE moves (match_id VARCHAR(32) NOT NULL, idx INTEGER "
                             "NOT NULL, text VARCHAR(256) NOT NULL, PRIMARY KEY (match_id, idx))")
        before = shape(conn)
    with pytest.raises(migrations.SchemaError, match="moves lacks"):
        Store(db_url)
    with engine.connect() as conn:
        assert shape(conn) == before
        assert "alembic_version" not in inspect(conn).get_table_names()
    engine.dispose()


def test_a_new_revision_is_numbered_after_head_and_runs(tmp_path):
    """``shangyou db revision``'s work, on a copy of the scripts: the next number after head,
    chained to it, nothing to do while the rows match head (autogenerate), and it goes up and
    down on a database."""
    scripts = tmp_path / "migrations"
    shutil.copytree(Path(migrations.__file__).parent, scripts,
                    ignore=shutil.ignore_patterns("__pycache__"))
    head = migrations.head()
    new = f"{int(head) + 1:04d}"
    path = migrations.new_revision("node epochs", location=scripts)
    assert path == scripts / "versions" / f"v{new}_node_epochs.py"
    script = path.read_text()
    assert f"revision = '{new}'" in script and f"down_revision = '{head}'" in script
    assert "op.batch_alter_table" not in script and "op.create" not in script
    engine = create_engine(f"sqlite:///{tmp_path / 'db.sqlite'}")
    with migrations.schema_lock(engine) as conn:
        command.upgrade(migrations.config(conn, location=scripts), "head")
        assert migrations.current(conn) == (new,)
        command.downgrade(migrations.config(conn, location=scripts), "-1")
        assert migrations.current(conn) == (head,)
    engine.dispose()


def test_the_scripts_ship_with_the_package():
    """The revisions are modules of a package (found by setuptools as the rest of the code is)
    and the template of new ones is package data."""
    import tomllib

    here = Path(migrations.__file__).parent
    assert (here / "versions" / "__init__.py").is_file() and (here / "env.py").is_file()
    data = tomllib.loads((SCHEMAS.parent.parent / "pyproject.toml").read_text())
    assert data["tool"]["setuptools"]["package-data"]["shangyou.server.migrations"] == \
        ["script.py.mako"]
    assert (here / "script.py.mako").is_file()


def test_a_schema_newer_than_this_version_is_refused(db_url):
    """A newer version migrated the store past every revision this one knows: opening it
    says so and what to do, and changes nothing."""
    Store(db_url).close()
    engine = create_engine(db_url)
    with engine.begin() as conn:
        conn.execute(text("UPDATE alembic_version SET version_num = '9999'"))
    with pytest.raises(migrations.SchemaError, match=r"'9999'.*shangyou db downgrade"):
        Store(db_url)
    with engine.connect() as conn:
        assert conn.execute(select(text("version_num")).select_from(
            text("alembic_version"))).scalar() == "9999"
    engine.dispose()


def _db(*args: str):
    return CliRunner().invoke(cli, ["db", *args])


def test_the_db_commands(tmp_path):
    """``shangyou db``: upgrade an earlier SQLite store in a data folder, see where it is and
    the revisions, refuse to drop everything without --yes, go back to base."""
    data = tmp_path / "data"
    data.mkdir()
    legacy_store(f"sqlite:///{data / 'shangyou.db'}", OLDEST).dispose()
    head = migrations.head()
    out = _db("current", "--data", str(data))
    assert out.exit_code == 0 and out.stdout.startswith("none ") and head in out.stdout
    out = _db("upgrade", "--data", str(data))
    assert out.exit_code == 0 and out.stdout.strip().endswith(f"-> {head}"), out.stderr
    assert _db("current", "--data", str(data)).stdout.strip() == f"{head} (head)"
    out = _db("history")
    assert out.exit_code == 0 and out.stdout.splitlines()[0].startswith(f"{head} (head): ")
    assert out.stdout.splitlines()[-1].startswith("0001")
    out = _db("downgrade", "base", "--data", str(data))
    assert out.exit_code == 2 and "--yes" in out.stderr
    assert _db("current", "--data", str(data)).stdout.strip() == f"{head} (head)"
    out = _db("downgrade", "base", "--yes", "--data", str(data))
    assert out.exit_code == 0, out.stderr
    engine = create_engine(f"sqlite:///{data / 'shangyou.db'}")
    with engine.connect() as conn:
        assert inspect(conn).get_table_names() == ["alembic_version"]
    engine.dispose()
    out = _db("current", "--data", str(tmp_path / "nowhere"))
    assert out.exit_code == 2 and "no store" in out.stderr
