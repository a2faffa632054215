"""``shangyou db upgrade|downgrade|current|history|revision``: the store's schema migrations
by hand (:mod:`shangyou.server.migrations`; docs/deploy.md, *Schema migrations*).

The database is the server's: ``--db URL``, or SQLite in ``--data DIR`` (``data``), as for
``shangyou serve``, and like it also from ``SHANGYOU_DB`` and ``SHANGYOU_DATA``. A server upgrades its database itself when it starts; these commands are for
doing it beforehand, looking, rolling back, and writing a new revision.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

import typer

from .common import fail

app = typer.Typer(no_args_is_help=True, help="The store's schema migrations (Alembic).")

# also from the server's variables (docs/deploy.md, *Settings from the environment*): a
# password in the URL need not be on the command line
DbOption = Annotated[str | None, typer.Option(
    "--db", envvar="SHANGYOU_DB", show_envvar=False,
    help="SQLAlchemy database URL (postgresql://...), as for shangyou serve "
    "(or SHANGYOU_DB).")]
DataOption = Annotated[Path, typer.Option(
    "--data", envvar="SHANGYOU_DATA", show_envvar=False,
    help="Without --db: the data folder of the SQLite store data/shangyou.db "
    "(or SHANGYOU_DATA).")]


def _migrations():
    """The migrations module (it needs the web extra: without it, how to install it)."""
    try:
        from ..server import migrations
    except ModuleNotFoundError as e:
        fail(f"{e.name} is missing: pip install 'shangyou[web]'")
    return migrations


def _engine(db: str | None, data: Path, create: bool = False):
    migrations = _migrations()
    from sqlalchemy import create_engine

    from ..server.store import database_url
    if db is None and not create and not (data / "shangyou.db").exists():
        fail(f"no store in {data}/ (shangyou.db): give --data DIR or --db URL")
    return create_engine(database_url(db, data)), migrations


def _move(db: str | None, data: Path, way: Literal["upgrade", "downgrade"],
          revision: str) -> None:
    """Upgrade or downgrade (``way``) the database to ``revision`` under the schema lock, and
    print where it was and where it is now. Only an upgrade may make a new SQLite store."""
    engine, migrations = _engine(db, data, create=way == "upgrade")
    step = migrations.upgrade if way == "upgrade" else migrations.downgrade
    try:
        with migrations.schema_lock(engine) as conn:
            before = migrations.current(conn)
            step(conn, revision)
            after = migrations.current(conn)
    except (migrations.SchemaError, migrations.CommandError) as e:
        fail(str(e), 1)
    finally:
        engine.dispose()
    print(f"{_shown(before)} -> {_shown(after)}")


def _shown(revs) -> str:
    return ", ".join(revs) if revs else "none (an empty database, or one made before migrations)"


@app.command()
def upgrade(revision: Annotated[str, typer.Argument(help="Where to go (default head).")
                                ] = "head",
            db: DbOption = None, data: DataOption = Path("data")) -> None:
    """Bring the database to REVISION (default: the newest, head), as a server does when it
    starts; a database an earlier version made is taken in with its data."""
    _move(db, data, "upgrade", revision)


@app.command()
def downgrade(revision: Annotated[str, typer.Argument(
                  help="Where to go back to: a revision, -1 for one step, base for nothing.")],
              yes: Annotated[bool, typer.Option(
                  "--yes", help="Go back to base (it drops every table and its data).")
              ] = False,
              db: DbOption = None, data: DataOption = Path("data")) -> None:
    """Take the database back to REVISION, undoing each later revision (stop the servers
    first: a server upgrades it again when it starts)."""
    if revision == "base" and not yes:
        fail("downgrade base drops every table and all its data: add --yes if you mean it")
    _move(db, data, "downgrade", revision)


@app.command()
def current(db: DbOption = None, data: DataOption = Path("data")) -> None:
    """The revision the database is at, and whether it is this version's newest."""
    engine, migrations = _engine(db, data)
    try:
        with engine.connect() as conn:
            revs = migrations.current(conn)
    finally:
        engine.dispose()
    head = migrations.head()
    print(_shown(revs) + (" (head)" if revs == (head,) else f" (this version's head: {head})"))


@app.command()
def history() -> None:
    """Every revision this version knows, newest first."""
    migrations = _migrations()
    for script in migrations.scripts().walk_revisions():
        mark = " (head)" if script.is_head else ""
        print(f"{script.revision}{mark}: {script.doc}")


@app.command()
def revision(message: Annotated[str, typer.Option("-m", "--message",
                                                  help="What the revision does.")],
             empty: Annotated[bool, typer.Option(
                 "--empty", help="An empty script, not the models' differences.")] = False
             ) -> None:
    """Write the next revision's script into the package's versions/ folder (in a source
    checkout): the differences between the rows (server/rows.py) and the schema at head, as
    Alembic's autogenerate sees them on a scratch SQLite database. Read and finish it."""
    migrations = _migrations()
    print(f"wrote {migrations.new_revision(message, autogenerate=not empty)}")
