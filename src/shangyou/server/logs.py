"""The server's log lines: a time stamp, the node and the table on every line.

Every line says when (UTC, to the millisecond), which node wrote it (``--node-id``, or the
host name and port of a server alone) and, where the line is about one table, which table.
The table comes from a context variable set where a table's work runs (a client's messages,
its bots, its timers: :func:`bind_table`); asyncio copies the context into every task it
starts, so a table's bot loop or timer names its table without passing it around. Lines of no
table say ``-``.

Two formats (``--log-format``): ``text``, one line a record::

    2026-11-27T08:01:02.345Z WARNING node=a table=k3j9x shangyou.server: ...

and ``json``, one JSON object a line, with ``time``, ``level``, ``logger``, ``node``,
``table`` (null where none), ``message`` and, for an error with its traceback, ``exc``: the
traceback as one string, so that a failure is one line and one record. Either way a failure
shows one traceback: that of the exception logged, with a line for each exception under it
(:func:`one_traceback`).
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import logging
import re
import sys
import time
import traceback
from collections.abc import Iterator

table_var: contextvars.ContextVar[str | None] = contextvars.ContextVar("shangyou_table",
                                                                      default=None)


_ID = re.compile(r"[A-Za-z0-9_-]{1,32}")     # a table id as the server makes them


def _safe(table_id: str | None) -> str | None:
    """The id, if it is one the server could have made: a client's text (a URL's path) never
    reaches a log line this way (no line breaks, no forged fields)."""
    return table_id if table_id is not None and _ID.fullmatch(table_id) else None


def bind_table(table_id: str | None) -> None:
    """The lines written from here on in this task (and the tasks it starts) name this table."""
    table_var.set(_safe(table_id))


@contextlib.contextmanager
def table_context(table_id: str | None) -> Iterator[None]:
    """Within the block, lines name this table; afterwards, what they named before."""
    token = table_var.set(_safe(table_id))
    try:
        yield
    finally:
        table_var.reset(token)


class ContextFilter(logging.Filter):
    """Adds ``node`` and ``table`` to every record (a handler's filter: every logger's lines,
    uvicorn's included, pass it)."""

    def __init__(self, node: str):
        super().__init__()
        self.node = node

    def filter(self, record: logging.LogRecord) -> bool:
        record.node = self.node
        record.table = table_var.get()
        return True


def one_traceback(exc_info) -> str:
    """The traceback of the exception alone, then one line for each exception that caused it
    (``caused by TYPE: first line``): a failure shows one traceback, not one for each layer
    (a database driver's error under SQLAlchemy's is two otherwise)."""
    _, value, tb = exc_info
    out = "".join(traceback.format_exception(type(value), value, tb, chain=False)).rstrip("\n")
    seen = {id(value)}
    cause = _cause(value)
    while cause is not None and id(cause) not in seen:
        seen.add(id(cause))
        first = (str(cause).strip().splitlines() or [""])[0]
        out += (f"\ncaused by {cause.__class__.__module__}.{cause.__class__.__qualname__}: "
                f"{first}")
        cause = _cause(cause)
    return out


def _cause(exc: BaseException) -> BaseException | None:
    if exc.__cause__ is not None:
        return exc.__cause__
    return None if exc.__suppress_context__ else exc.__context__


def _utc(record: logging.LogRecord) -> str:
    t = time.gmtime(record.created)
    return time.strftime("%Y-%m-%dT%H:%M:%S", t) + f".{int(record.msecs):03d}Z"


class TextFormatter(logging.Formatter):
    def formatException(self, ei) -> str:
        return one_traceback(ei)

    def format(self, record: logging.LogRecord) -> str:
        line = (f"{_utc(record)} {record.levelname} node={getattr(record, 'node', '-')} "
                f"table={getattr(record, 'table', None) or '-'} {record.name}: "
                f"{record.getMessage()}")
        if record.exc_info:
            line += "\n" + self.formatException(record.exc_info)
        if record.stack_info:
            line += "\n" + self.formatStack(record.stack_info)
        return line


class JsonFormatter(logging.Formatter):
    def formatException(self, ei) -> str:
        return one_traceback(ei)

    def format(self, record: logging.LogRecord) -> str:
        out = {"time": _utc(record), "level": record.levelname, "logger": record.name,
               "node": getattr(record, "node", None), "table": getattr(record, "table", None),
               "message": record.getMessage()}
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        if record.stack_info:
            out["stack"] = self.formatStack(record.stack_info)
        return json.dumps(out, ensure_ascii=False, default=str)


FORMATS = {"text": TextFormatter, "json": JsonFormatter}


def make_handler(fmt: str = "text", node: str = "-", stream=None) -> logging.Handler:
    """A handler writing to ``stream`` (standard error) in ``fmt``, every line naming
    ``node`` and the table of its context."""
    handler = logging.StreamHandler(stream if stream is not None else sys.stderr)
    handler.setFormatter(FORMATS[fmt]())
    handler.addFilter(ContextFilter(node))
    return handler


def setup(level: str = "warning", fmt: str = "text", node: str = "-",
          stream=None) -> logging.Handler:
    """The root logger writes through :func:`make_handler` at ``level`` (replacing any earlier
    handler of the root); the handler."""
    handler = make_handler(fmt, node, stream)
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level.upper())
    return handler
