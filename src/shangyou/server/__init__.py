"""The web server: ``python -m shangyou.server`` or ``shangyou serve`` (see
``docs/protocol.md``). Needs the ``web`` extra: ``pip install 'shangyou[web]'``."""

from __future__ import annotations

try:
    import fastapi  # noqa: F401
    import orjson  # noqa: F401
    import pydantic  # noqa: F401
    import sqlalchemy  # noqa: F401
    import uvicorn  # noqa: F401
    import alembic  # noqa: F401,I001 - last: the first missing one is named
except ModuleNotFoundError as missing:      # one line that says what to install
    raise ModuleNotFoundError(
        f"shangyou.server needs the web stack ({missing.name} is missing): "
        "pip install 'shangyou[web]'", name=missing.name) from None


def create_app(*args, **kwargs):
    from .app import create_app as _create_app
    return _create_app(*args, **kwargs)


__all__ = ["create_app"]
