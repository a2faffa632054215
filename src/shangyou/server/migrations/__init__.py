"""Versioned schema migrations (Alembic), shipped inside the package: ``versions/`` holds one
script per revision, ``env.py`` hands Alembic the connection the caller opened, and no
``alembic.ini`` is needed (:func:`config` builds the configuration in code).

:class:`~shangyou.server.store.Store` brings its database to the newest revision (``head``)
when it opens, holding :func:`schema_lock` so that nodes starting together on one PostgreSQL
migrate it once; ``shangyou db upgrade|downgrade|current|history|revision`` does the same by
hand (``docs/deploy.md``, *Schema migrations*).

The first revision (``0001``, the baseline) is the schema as it stood before migrations: on an
empty database it creates it; on a database an earlier version made (no ``alembic_version``
table; tables made by ``create_all`` and columns added at start-up, some perhaps missing) it
adds what is missing, with the data in place, so every database reaches the same head.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from alembic.util import CommandError
from sqlalchemy import text
from sqlalchemy.engine import Connection, Engine

HERE = Path(__file__).resolve().parent
log = logging.getLogger("shangyou.server")

# the key of the PostgreSQL advisory lock held while the schema is created or migrated
SCHEMA_LOCK = 0x5348_414E_4759_4F55        # "SHANGYOU"


class SchemaError(RuntimeError):
    """The database cannot be brought to this version's schema (say, a newer version migrated
    it past every revision this one knows)."""


def config(connection: Connection | None = None, url: str | None = None,
           location: Path = HERE) -> Config:
    """Alembic's configuration, in code: the scripts of this package (or of ``location``), and
    the connection to migrate (or a URL, for Alembic's own ``alembic`` command run against
    ``env.py``)."""
    cfg = Config()
    cfg.set_main_option("script_location", str(location))
    cfg.set_main_option("path_separator", "os")
    # new scripts: versions/v0002_node_epochs.py (a module name Python and mypy accept)
    cfg.set_main_option("file_template", "v%%(rev)s_%%(slug)s")
    if url is not None:
        cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    if connection is not None:
        cfg.attributes["connection"] = connection
    return cfg


@lru_cache(maxsize=1)
def scripts() -> ScriptDirectory:
    """The revisions shipped with this version (read once a process)."""
    return ScriptDirectory.from_config(config())


def head() -> str:
    """The newest revision this version knows."""
    found = scripts().get_current_head()
    assert found is not None
    return found


@contextlib.contextmanager
def schema_lock(engine: Engine) -> Iterator[Connection]:
    """A connection in a transaction that alone may change the schema until it ends.

    PostgreSQL: a transaction-level advisory lock (``SCHEMA_LOCK``), taken first; its DDL is
    transactional, so a node that waits finds the schema migrated, or nothing changed if the
    migration failed. SQLite: ``BEGIN IMMEDIATE`` takes the database's write lock for the whole
    migration, with foreign keys unchecked meanwhile (a table rebuilt by a batch migration is
    dropped and renamed; SQLite's advice) and checked, all of them, before the commit."""
    if engine.dialect.name == "sqlite":
        with engine.connect() as conn:
            conn.exec_driver_sql("PRAGMA foreign_keys=OFF")   # no effect inside a transaction
            conn.exec_driver_sql("BEGIN IMMEDIATE")
            try:
                yield conn
                broken = conn.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
                if broken:
                    raise SchemaError(f"a migration broke foreign keys: {broken[:5]}")
                conn.commit()
            except BaseException:
                conn.rollback()
                raise
            finally:
                conn.exec_driver_sql("PRAGMA foreign_keys=ON")
                conn.commit()
        return
    with engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": SCHEMA_LOCK})
        yield conn


def current(conn: Connection) -> tuple[str, ...]:
    """The revisions the database is at (``()``: none, an empty or a pre-migration store)."""
    return tuple(MigrationContext.configure(conn).get_current_heads())


def _known(revs: tuple[str, ...]) -> None:
    for rev in revs:
        try:
            scripts().get_revision(rev)
        except CommandError:
            raise SchemaError(
                f"the database's schema is at revision {rev!r}, which this version of "
                f"shangyou does not know (its newest is {head()!r}): a newer version migrated "
                "it. Run the newer version, or bring the database back with its "
                f"`shangyou db downgrade {head()}`.") from None


def upgrade(conn: Connection, revision: str = "head") -> None:
    """Bring the database of ``conn`` (in :func:`schema_lock`) to ``revision``; nothing to do
    when it is there already (a look at ``alembic_version``)."""
    revs = current(conn)
    _known(revs)
    if revision == "head" and revs == (head(),):
        return
    command.upgrade(config(conn), revision)


def downgrade(conn: Connection, revision: str) -> None:
    """Take the database of ``conn`` back to ``revision`` (``base``: nothing left)."""
    _known(current(conn))
    command.downgrade(config(conn), revision)


def upgrade_engine(engine: Engine) -> None:
    """What a store does when it opens: :func:`upgrade` to head under :func:`schema_lock`."""
    with schema_lock(engine) as conn:
        before = current(conn)
        _known(before)
        if before == (head(),):
            return
        command.upgrade(config(conn), "head")
        after = current(conn)
    log.warning("store schema migrated: %s -> %s", ", ".join(before) or "none",
                ", ".join(after))


def new_revision(message: str, autogenerate: bool = True, location: Path = HERE) -> Path:
    """Write the next revision's script (numbered after the newest) into ``location``'s
    ``versions/``: the operations that take the schema at head to the rows, as autogenerate
    finds them on a scratch SQLite database brought to head (or none: ``autogenerate`` False).
    Its path."""
    from sqlalchemy import create_engine

    script = ScriptDirectory.from_config(config(location=location))
    newest = script.get_current_head()
    rev_id = f"{int(newest or 0) + 1:04d}"
    engine = create_engine("sqlite://")
    try:
        with schema_lock(engine) as conn:
            command.upgrade(config(conn, location=location), "head")
            written = command.revision(config(conn, location=location), message=message,
                                       autogenerate=autogenerate, rev_id=rev_id)
    finally:
        engine.dispose()
    assert written is not None and not isinstance(written, list)
    return Path(written.path)


def run_env(context: Any) -> None:
    """The body of ``env.py``: migrate the connection the caller handed over (or one to the
    configured URL, under :func:`schema_lock`), comparing against the store's rows.
    ``context``: ``alembic.context``, the :class:`EnvironmentContext` of the run."""
    from ..rows import Base

    if context.is_offline_mode():
        raise SchemaError("offline (--sql) migrations are not supported: the baseline looks "
                          "at the database to see what an earlier version left there")
    options: dict[str, Any] = {"target_metadata": Base.metadata, "render_as_batch": True,
                               "compare_type": True}
    conn = context.config.attributes.get("connection")
    if conn is not None:
        context.configure(connection=conn, **options)
        with context.begin_transaction():
            context.run_migrations()
        return
    from sqlalchemy import create_engine

    engine = create_engine(context.config.get_main_option("sqlalchemy.url") or "")
    try:
        with schema_lock(engine) as conn:
            context.configure(connection=conn, **options)
            with context.begin_transaction():
                context.run_migrations()
    finally:
        engine.dispose()
