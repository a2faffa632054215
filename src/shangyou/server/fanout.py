"""The fan-out: every client of a table gets its own message, wherever its socket is.

:class:`Fanout` builds each seat's ``state`` once (:mod:`shangyou.server.views`) and hands
its text to every socket of that seat. A socket of this process (:class:`~.conn.Conn`) queues
it for its writer task; a socket held by another node (:class:`~.relay.RemoteConn`, on the node
that owns the table) hands it to that node's Redis channel, one message a node for each turn of
the event loop (:mod:`shangyou.server.relay`). The one-process server has only sockets of its
own: the same calls, without Redis.
"""

from __future__ import annotations

from typing import Iterable

from . import views
from .model import Table


class Fanout:
    """Delivers a table's messages to its clients' sockets."""

    @staticmethod
    def broadcast(table: Table, events: list[dict]) -> None:
        """Every client that said hello gets the table's new ``state`` (with ``events``)."""
        if not table.conns:
            return
        texts = views.states_by_seat(table, {c.seat for c in table.conns}, events)
        for c in table.conns:
            c.send_text(texts[c.seat])

    @staticmethod
    def send_state(table: Table, conn, events: list | None = None) -> None:
        """One client gets the table's ``state`` (with ``events``: a catch-up)."""
        conn.send_text(views.states_by_seat(table, [conn.seat], events or [])[conn.seat])

    @staticmethod
    def send_all(conns: Iterable, msg: dict) -> None:
        """The same message (a chat line) to each of ``conns``."""
        text = views.dumps(msg)
        for c in conns:
            c.send_text(text)
