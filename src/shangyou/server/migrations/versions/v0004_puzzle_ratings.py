"""puzzle ratings

Revision ID: 0004
Revises: 0003
Created: 2026-11-27 15:21:35.860679

Written with ``shangyou db revision -m "..."``: check every operation, on SQLite and on
PostgreSQL alike (batch operations rebuild a table on SQLite), and write a downgrade that
undoes the upgrade. docs/deploy.md, *Schema migrations*.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0004'
down_revision = '0003'
branch_labels = None
depends_on = None


def upgrade() -> None:
    # the puzzles' ratings (server/puzzles.py): each puzzle's, each account's by family, and
    # which puzzles an account answered (it is rated on its first answer only)
    op.create_table('puzzle_stats',
    sa.Column('puzzle_id', sa.String(length=40), nullable=False),
    sa.Column('family', sa.String(length=16), nullable=False),
    sa.Column('mu', sa.Float(), nullable=False),
    sa.Column('sigma', sa.Float(), nullable=False),
    sa.Column('attempts', sa.Integer(), nullable=False),
    sa.Column('solved', sa.Integer(), nullable=False),
    sa.Column('updated_at', sa.DateTime(), nullable=False),
    sa.PrimaryKeyConstraint('puzzle_id')
    )
    with op.batch_alter_table('puzzle_stats', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_puzzle_stats_family'), ['family'], unique=False)

    op.create_table('puzzle_attempts',
    sa.Column('account_id', sa.String(length=32), nullable=False),
    sa.Column('puzzle_id', sa.String(length=40), nullable=False),
    sa.Column('family', sa.String(length=16), nullable=False),
    sa.Column('solved', sa.Boolean(), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.ForeignKeyConstraint(['account_id'], ['accounts.id'], ),
    sa.PrimaryKeyConstraint('account_id', 'puzzle_id')
    )
    with op.batch_alter_table('puzzle_attempts', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_puzzle_attempts_family'), ['family'], unique=False)

    op.create_table('puzzle_ratings',
    sa.Column('account_id', sa.String(length=32), nullable=False),
    sa.Column('family', sa.String(length=16), nullable=False),
    sa.Column('mu', sa.Float(), nullable=False),
    sa.Column('sigma', sa.Float(), nullable=False),
    sa.Column('ordinal', sa.Float(), nullable=False),
    sa.Column('attempts', sa.Integer(), nullable=False),
    sa.Column('solved', sa.Integer(), nullable=False),
    sa.Column('updated_at', sa.DateTime(), nullable=False),
    sa.ForeignKeyConstraint(['account_id'], ['accounts.id'], ),
    sa.PrimaryKeyConstraint('account_id', 'family')
    )


def downgrade() -> None:
    op.drop_table('puzzle_ratings')
    with op.batch_alter_table('puzzle_attempts', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_puzzle_attempts_family'))

    op.drop_table('puzzle_attempts')
    with op.batch_alter_table('puzzle_stats', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_puzzle_stats_family'))

    op.drop_table('puzzle_stats')
