"""The baseline: the schema as it stood when migrations began.

Revision ID: 0001
Revises: (none)

On an empty database it creates every table. On a database an earlier version made (before
migrations: tables made by SQLAlchemy's ``create_all`` at start-up, columns added at start-up
by ``ALTER TABLE ... ADD COLUMN`` as versions went by) it adds whatever is missing with the
data in place: whole tables, the columns of ``LEGACY_COLUMNS``, their indexes; it makes
``tables.listed`` NOT NULL (start-up added it nullable: its empty rows become ``true``, as the
store read them) and, on SQLite, ``tables.touched_at`` a DATETIME (start-up said TIMESTAMP).
After it every database has the same schema, whatever version made it.

The schema is frozen here, as plain SQLAlchemy tables, not imported from ``rows.py``: the rows
change with later revisions, the baseline never does. Downgrade drops every table.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from shangyou.server.migrations import SchemaError

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

SCHEMA = sa.MetaData()

sa.Table(
    "tables", SCHEMA,
    sa.Column("id", sa.String(length=32), nullable=False),
    sa.Column("game", sa.String(length=64), nullable=False),
    sa.Column("players", sa.Integer(), nullable=False),
    sa.Column("options", sa.JSON(), nullable=False),
    sa.Column("bot_level", sa.String(length=16), nullable=False),
    sa.Column("status", sa.String(length=16), nullable=False),
    sa.Column("version", sa.Integer(), nullable=False),
    sa.Column("match_id", sa.String(length=32), nullable=True),
    sa.Column("created_at", sa.DateTime(), nullable=False),
    sa.Column("host_hash", sa.String(length=64), nullable=True),
    sa.Column("listed", sa.Boolean(), nullable=False),
    sa.Column("touched_at", sa.DateTime(), nullable=True),
    sa.Column("owner", sa.String(length=64), nullable=True),
    sa.Column("lease_until", sa.BigInteger(), nullable=True),
    sa.Column("bans", sa.JSON(), nullable=True),
    sa.PrimaryKeyConstraint("id"),
    sa.Index("ix_tables_owner", "owner"),
    sa.Index("ix_tables_status", "status"),
    sa.Index("ix_tables_touched_at", "touched_at"),
)
sa.Table(
    "nodes", SCHEMA,
    sa.Column("id", sa.String(length=64), nullable=False),
    sa.Column("alive_until", sa.BigInteger(), nullable=False),
    sa.PrimaryKeyConstraint("id"),
)
sa.Table(
    "seats", SCHEMA,
    sa.Column("table_id", sa.String(length=32), nullable=False),
    sa.Column("seat", sa.Integer(), nullable=False),
    sa.Column("name", sa.String(length=64), nullable=True),
    sa.Column("kind", sa.String(length=8), nullable=False),
    sa.Column("token_hash", sa.String(length=64), nullable=True),
    sa.Column("bot_level", sa.String(length=16), nullable=True),
    sa.ForeignKeyConstraint(["table_id"], ["tables.id"]),
    sa.PrimaryKeyConstraint("table_id", "seat"),
)
sa.Table(
    "matches", SCHEMA,
    sa.Column("id", sa.String(length=32), nullable=False),
    sa.Column("table_id", sa.String(length=32), nullable=False),
    sa.Column("game", sa.String(length=64), nullable=False),
    sa.Column("players", sa.Integer(), nullable=False),
    sa.Column("options", sa.JSON(), nullable=False),
    sa.Column("seed", sa.BigInteger(), nullable=False),
    sa.Column("secret", sa.String(length=64), nullable=True),
    sa.Column("commitment", sa.String(length=64), nullable=True),
    sa.Column("names", sa.JSON(), nullable=False),
    sa.Column("result", sa.JSON(), nullable=True),
    sa.Column("started_at", sa.DateTime(), nullable=False),
    sa.Column("finished_at", sa.DateTime(), nullable=True),
    sa.ForeignKeyConstraint(["table_id"], ["tables.id"]),
    sa.PrimaryKeyConstraint("id"),
    sa.Index("ix_matches_finished_at", "finished_at"),
    sa.Index("ix_matches_table_id", "table_id"),
)
sa.Table(
    "moves", SCHEMA,
    sa.Column("match_id", sa.String(length=32), nullable=False),
    sa.Column("idx", sa.Integer(), nullable=False),
    sa.Column("seat", sa.Integer(), nullable=False),
    sa.Column("text", sa.String(length=256), nullable=False),
    sa.Column("actor", sa.String(length=8), nullable=True),
    sa.ForeignKeyConstraint(["match_id"], ["matches.id"]),
    sa.PrimaryKeyConstraint("match_id", "idx"),
)
sa.Table(
    "reviews", SCHEMA,
    sa.Column("match_id", sa.String(length=32), nullable=False),
    sa.Column("seat", sa.Integer(), nullable=False),
    sa.Column("data", sa.JSON(), nullable=False),
    sa.Column("created_at", sa.DateTime(), nullable=False),
    sa.ForeignKeyConstraint(["match_id"], ["matches.id"]),
    sa.PrimaryKeyConstraint("match_id", "seat"),
)
sa.Table(
    "accounts", SCHEMA,
    sa.Column("id", sa.String(length=32), nullable=False),
    sa.Column("username", sa.String(length=32), nullable=False),
    sa.Column("name_key", sa.String(length=64), nullable=False),
    sa.Column("password_hash", sa.String(length=256), nullable=False),
    sa.Column("created_at", sa.DateTime(), nullable=False),
    sa.PrimaryKeyConstraint("id"),
    sa.UniqueConstraint("name_key"),
)
sa.Table(
    "account_sessions", SCHEMA,
    sa.Column("id_hash", sa.String(length=64), nullable=False),
    sa.Column("account_id", sa.String(length=32), nullable=False),
    sa.Column("created_at", sa.DateTime(), nullable=False),
    sa.Column("expires_at", sa.DateTime(), nullable=False),
    sa.ForeignKeyConstraint(["account_id"], ["accounts.id"]),
    sa.PrimaryKeyConstraint("id_hash"),
    sa.Index("ix_account_sessions_account_id", "account_id"),
    sa.Index("ix_account_sessions_expires_at", "expires_at"),
)
sa.Table(
    "ratings", SCHEMA,
    sa.Column("account_id", sa.String(length=32), nullable=False),
    sa.Column("game", sa.String(length=64), nullable=False),
    sa.Column("mu", sa.Float(), nullable=False),
    sa.Column("sigma", sa.Float(), nullable=False),
    sa.Column("ordinal", sa.Float(), nullable=False),
    sa.Column("matches", sa.Integer(), nullable=False),
    sa.Column("wins", sa.Integer(), nullable=False),
    sa.Column("updated_at", sa.DateTime(), nullable=False),
    sa.ForeignKeyConstraint(["account_id"], ["accounts.id"]),
    sa.PrimaryKeyConstraint("account_id", "game"),
    sa.Index("ix_ratings_ordinal", "ordinal"),
)
sa.Table(
    "seat_accounts", SCHEMA,
    sa.Column("table_id", sa.String(length=32), nullable=False),
    sa.Column("token_hash", sa.String(length=64), nullable=False),
    sa.Column("account_id", sa.String(length=32), nullable=False),
    sa.PrimaryKeyConstraint("table_id", "token_hash"),
    sa.Index("ix_seat_accounts_account_id", "account_id"),
)
sa.Table(
    "match_players", SCHEMA,
    sa.Column("match_id", sa.String(length=32), nullable=False),
    sa.Column("seat", sa.Integer(), nullable=False),
    sa.Column("account_id", sa.String(length=32), nullable=True),
    sa.Column("game", sa.String(length=64), nullable=False),
    sa.Column("rated", sa.Boolean(), nullable=False),
    sa.Column("rated_at", sa.DateTime(), nullable=True),
    sa.Column("place", sa.Integer(), nullable=True),
    sa.Column("won", sa.Boolean(), nullable=True),
    sa.Column("before", sa.Float(), nullable=True),
    sa.Column("after", sa.Float(), nullable=True),
    sa.PrimaryKeyConstraint("match_id", "seat"),
    sa.Index("ix_match_players_account_id", "account_id"),
    sa.Index("ix_match_players_rated_at", "rated_at"),
)

# the columns earlier versions added at start-up, in the order they came (git history of
# server/store.py): a store made before one of them lacks it
LEGACY_COLUMNS = (("tables", "host_hash"), ("tables", "listed"), ("tables", "touched_at"),
                  ("matches", "secret"), ("matches", "commitment"), ("moves", "actor"),
                  ("tables", "owner"), ("tables", "lease_until"), ("tables", "bans"))
# what an empty value of a NOT NULL legacy column becomes (the store read an empty one so)
LEGACY_FILL = {("tables", "listed"): sa.true()}


def upgrade() -> None:
    bind = op.get_bind()
    have = set(sa.inspect(bind).get_table_names())
    for table in SCHEMA.sorted_tables:
        if table.name in have:
            _bring_up(bind, table)
    # the tables an earlier version had not made yet (all of them on an empty database)
    SCHEMA.create_all(bind, tables=[t for t in SCHEMA.sorted_tables if t.name not in have])


def _bring_up(bind: sa.Connection, table: sa.Table) -> None:
    """An earlier version's table: its missing legacy columns, NOT NULL where the baseline has
    it, and its missing indexes."""
    insp = sa.inspect(bind)
    columns = {c["name"]: c for c in insp.get_columns(table.name)}
    unexpected = [c.name for c in table.columns if c.name not in columns
                  and (table.name, c.name) not in LEGACY_COLUMNS]
    if unexpected:
        raise SchemaError(f"table {table.name} lacks {unexpected}: shangyou did not make it")
    for column in table.columns:
        if column.name not in columns:
            op.add_column(table.name, sa.Column(column.name, column.type, nullable=True))
    tighten = [c for c in table.columns if not c.nullable
               and (c.name not in columns or columns[c.name]["nullable"])]
    for column in tighten:
        fill = LEGACY_FILL[(table.name, column.name)]
        op.execute(table.update().where(table.c[column.name].is_(None))
                   .values({column.name: fill}))
    # a column start-up added under another name of its type (SQLite: TIMESTAMP, not the
    # DATETIME a new store has; the values are the same)
    retype = [c for c in table.columns if c.name in columns
              and (table.name, c.name) in LEGACY_COLUMNS
              and _sql(columns[c.name]["type"], bind) != _sql(c.type, bind)]
    if tighten or retype:
        # SQLite cannot change a column in place: the batch rebuilds the table (its data,
        # indexes and keys copied) inside the migration's transaction
        with op.batch_alter_table(table.name) as batch:
            for column in set(tighten) | set(retype):
                batch.alter_column(column.name, type_=column.type, nullable=column.nullable)
    indexes = {i["name"] for i in sa.inspect(bind).get_indexes(table.name)}
    for index in table.indexes:
        if index.name not in indexes:
            index.create(bind)


def _sql(type_: sa.types.TypeEngine, bind: sa.Connection) -> str:
    return str(type_.compile(dialect=bind.dialect))


def downgrade() -> None:
    SCHEMA.drop_all(op.get_bind())
