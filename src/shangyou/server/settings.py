"""The server's settings: its command line's options, each also read from a ``SHANGYOU_*``
environment variable (``pydantic-settings``); a flag given on the command line wins.

Every option ``--name-of-it`` of ``python -m shangyou.server`` (and ``shangyou serve``) is
also ``SHANGYOU_NAME_OF_IT``: ``SHANGYOU_PORT=8101``, ``SHANGYOU_DB=postgresql+psycopg://...``,
``SHANGYOU_REDIS=redis://:password@host:6379/0``. A repeatable option takes a comma-separated
list (``SHANGYOU_ALLOW_ADDRESS=10.0.0.0/8,192.168.0.0/16``); each limit ``--limit NAME=VALUE``
is ``SHANGYOU_LIMIT_NAME=VALUE`` (``SHANGYOU_LIMIT_TABLES_PER_MINUTE=30``). So no secret
(the database's or Redis's password) needs the command line, which ``ps`` shows to every user
of the machine; a process's environment is readable by its own user and root only.

The database and Redis URLs are :class:`~pydantic.SecretStr`: printed, logged or shown in an
error they read ``**********``. A bad value stops the server at start with a message that
names the variable or flag and says what is wanted, never the value given.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from .limits import Limits

PREFIX = "SHANGYOU_"
LIMIT_PREFIX = PREFIX + "LIMIT_"
Listed = Annotated[tuple[str, ...], NoDecode]


class ServerSettings(BaseSettings):
    """The options of ``python -m shangyou.server`` with their defaults (``--help`` says what
    each does). Made from the flags given (keyword arguments, which win) and the
    environment."""

    model_config = SettingsConfigDict(env_prefix=PREFIX, extra="ignore", frozen=True,
                                      hide_input_in_errors=True)

    host: str = "127.0.0.1"
    port: int = Field(8000, ge=0, le=65535)
    data: str = "data"
    db: SecretStr | None = None
    bot_delay: float = Field(0.3, ge=0, le=60)
    ws: Literal["auto", "websockets", "websockets-sansio"] = "auto"
    allow_origin: Listed = ()
    allow_address: Listed = ()
    redis: SecretStr | None = None
    node_id: str | None = None
    lease_seconds: float = 4.0
    affinity: bool = False
    ws_ping_interval: float = 20.0
    ws_ping_timeout: float = 20.0
    store_retry_seconds: float = 10.0
    drain_seconds: float = 20.0
    log_level: Literal["critical", "error", "warning", "info", "debug"] = "warning"
    log_format: Literal["text", "json"] = "text"
    metrics_from: Listed = Limits.metrics_from

    @field_validator("allow_origin", "allow_address", "metrics_from", mode="before")
    @classmethod
    def _listed(cls, value):
        """A comma-separated list (from the environment), or the flags' list."""
        if isinstance(value, str):
            return tuple(v.strip() for v in value.split(",") if v.strip())
        return tuple(value)

    @field_validator("db", "redis", "node_id", mode="before")
    @classmethod
    def _empty_is_none(cls, value):
        return None if value == "" else value

    def url(self, name: str) -> str | None:
        """The database's or Redis's URL as given (a secret: never to be printed)."""
        value = getattr(self, name)
        return value.get_secret_value() if value is not None else None


def env_limits(environ: Mapping[str, str] | None = None) -> list[str]:
    """The ``SHANGYOU_LIMIT_NAME=VALUE`` variables as ``NAME=VALUE`` items of ``--limit``
    (the names checked with the flags': an unknown one is an error)."""
    environ = os.environ if environ is None else environ
    return [f"{key[len(LIMIT_PREFIX):].lower()}={value}"
            for key, value in sorted(environ.items()) if key.upper().startswith(LIMIT_PREFIX)]


def explain(error: ValidationError, flags: Mapping[str, object]) -> str:
    """A validation error as one line a person can act on: the flag or variable, and what is
    wanted (the value given is not repeated: it may be a secret)."""
    parts = []
    for e in error.errors(include_input=False, include_url=False):
        name = str(e["loc"][0]) if e["loc"] else "?"
        where = ("--" + name.replace("_", "-")) if name in flags else PREFIX + name.upper()
        parts.append(f"{where}: {e['msg']}")
    return "; ".join(parts)


def load(flags: Mapping[str, Any]) -> ServerSettings:
    """The settings from ``flags`` (the options given on the command line, by field name) and
    the environment; ValueError with :func:`explain`'s message when a value is bad."""
    try:
        return ServerSettings(**flags)
    except ValidationError as e:
        raise ValueError(explain(e, flags)) from None
