"""The web server: ``python -m shangyou.server`` (see ``docs/protocol.md``)."""

from __future__ import annotations


def create_app(*args, **kwargs):
    from .app import create_app as _create_app
    return _create_app(*args, **kwargs)


__all__ = ["create_app"]
