"""A rematch any seated person may ask for, once a match has ended.

After a match ends (the table's status is ``over``) every seated person gets a Rematch button;
``rematch`` records that their seat asks for the next match. The next match starts, with the
same seats, options and room, as soon as every person seated *and present* (a socket open on
the table) has asked: one person playing with bots starts it with one tap; at a table of
friends it starts with the last of them. A person who is away does not hold the others up
(their seat is played by a bot after the room's grace, as at any start). Asking again re-counts
(someone may have left meanwhile). The host's ``start`` still starts the next match at once,
whoever asked.

Everyone sees the asks in ``table.rematch`` of each ``state``: ``asked`` (the seats that asked)
and ``waiting`` (the present people who have not yet). The asks belong to the match that ended
(a new match forgets them); like the ready check they are not stored, so a restart forgets
them. The ready check (``ready.py``) is the host's question before a start; this is the
players' own request after a match, so it needs no host.

:class:`Rematches` is a part of :class:`~shangyou.server.tables.TableManager`; its action runs
under the table's lock, and a refusal changes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from . import schemas
from .conn import Conn
from .model import ActionError, Table
from .parts import ManagerParts
from .views import rematch_asks, rematch_waiting


@dataclass
class RematchAsks:
    """The seats that asked for a rematch after match ``match_id``."""
    match_id: str | None
    seats: set[int] = field(default_factory=set)


class Rematches(ManagerParts):
    async def _rematch(self, table: Table, conn: Conn, msg: schemas.Rematch) -> None:
        """A seated person asks for the next match; the last present person's ask starts it."""
        if table.status != "over":
            raise ActionError("not_over", "a rematch is asked for once the match has ended")
        if conn.seat is None or table.seats[conn.seat].kind != "human":
            raise ActionError("not_seated", "you hold no seat: only seated people ask for a "
                              "rematch")
        asks = rematch_asks(table)
        if asks is None:
            asks = table.rematch = RematchAsks(table.match_id)
        new = conn.seat not in asks.seats
        asks.seats.add(conn.seat)
        if not rematch_waiting(table, asks):
            await self._start(table, conn, schemas.Start(type="start"))
        elif new:
            self._broadcast(table, [])
        else:
            self._send_state(table, conn)
