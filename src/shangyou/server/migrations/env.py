"""Alembic's environment: the work is in :func:`shangyou.server.migrations.run_env`."""

from alembic import context

from shangyou.server.migrations import run_env

run_env(context)
