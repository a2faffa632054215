"""the lobby's index

Revision ID: 0003
Revises: 0002
Created: 2026-11-27 15:10:00

The lobby of several nodes (server/lobby.py) reads each status's listed tables newest first:
an index over (status, created_at, id) of the listed tables serves that order, so a page
reads a page of rows, not the whole table. docs/deploy.md, *Schema migrations*.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0003'
down_revision = '0002'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index('ix_tables_lobby', 'tables', ['status', 'created_at', 'id'], unique=False,
                    postgresql_where=sa.text('listed IS NOT false'),
                    sqlite_where=sa.text('listed IS NOT 0'))


def downgrade() -> None:
    op.drop_index('ix_tables_lobby', table_name='tables')
