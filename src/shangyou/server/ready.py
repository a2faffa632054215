"""The host's ready check before the start.

The host asks (``ready_check``) once every seat of a waiting table is taken; every person
seated then is asked (bots and spectators are not), the host's own seat counts as ready; each
person answers for their own seat only (``ready``). Everyone sees the answers in
``table.ready_check`` of each ``state``. The check ends after ``Limits.ready_check_seconds``,
when any seat changes (someone sits, leaves, is removed or moved, a bot comes or goes), when
the options change, and at the start. It is not stored and does not change the table's
version: a restart forgets it. The host may start whatever the answers (the page asks the host
to confirm when not everyone is ready): the check informs the host's decision, it does not make
it.

:class:`ReadyChecks` is a part of :class:`~shangyou.server.tables.TableManager`; like every
change of a table, its actions run under the table's lock, and a refusal changes nothing.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field

from . import schemas
from .conn import Conn
from .model import ActionError, Table
from .parts import ManagerParts

log = logging.getLogger("shangyou.server")


@dataclass
class ReadyCheck:
    """One running check: each asked seat's answer (None: not yet), and when it ends."""
    answers: dict[int, bool | None]
    seconds: float
    deadline: float = field(default=0.0)
    task: asyncio.Task | None = None

    def info(self) -> dict:
        """What every client sees of it (``table.ready_check``)."""
        return {"seconds": self.seconds,
                "left": round(max(0.0, self.deadline - time.monotonic()), 2),
                "answers": [{"seat": i, "ready": a} for i, a in sorted(self.answers.items())],
                "all_ready": all(a is True for a in self.answers.values())}


class ReadyChecks(ManagerParts):
    async def _ready_check(self, table: Table, conn: Conn, msg: schemas.ReadyCheckMsg) -> None:
        """The host asks every seated person whether they are ready (the host is a host:
        ``handle`` checked that). While a check runs, another one changes nothing: the sender
        gets the state again."""
        if table.status != "waiting":
            raise ActionError("not_waiting", "a ready check is only for a table waiting to "
                              "start")
        if table.ready_check is not None:
            self._send_state(table, conn)
            return
        empty = [s.index for s in table.seats if s.kind == "empty"]
        if empty:
            raise ActionError("not_ready", f"empty seats: {', '.join(map(str, empty))} (a "
                              "ready check is for a full table: sit, or fill them with bots)")
        people = [s.index for s in table.seats if s.kind == "human"]
        if not people:
            raise ActionError("not_ready", "nobody to ask: every seat is a bot's")
        answers: dict[int, bool | None] = {i: None for i in people}
        if conn.seat in answers:
            answers[conn.seat] = True             # the host asks: the host is ready
        seconds = float(self.limits.ready_check_seconds)
        rc = ReadyCheck(answers, seconds, time.monotonic() + seconds)
        rc.task = asyncio.create_task(self._ready_check_ends(table, rc),
                                      name=f"ready-{table.id}")
        table.ready_check = rc
        self._broadcast(table, [])

    async def _ready(self, table: Table, conn: Conn, msg: schemas.ReadyMsg) -> None:
        """A seated person's answer, for their own seat only; the same answer again changes
        nothing (the sender gets the state again)."""
        if table.status != "waiting":
            raise ActionError("not_waiting", "the match has started: there is no ready check")
        if conn.seat is None:
            raise ActionError("not_seated", "you hold no seat: only seated people are asked")
        rc = table.ready_check
        if rc is None or conn.seat not in rc.answers:
            raise ActionError("no_ready_check", "the host has not asked whether you are ready "
                              "(or the check has ended)")
        if rc.answers[conn.seat] == msg.ready:
            self._send_state(table, conn)
            return
        rc.answers[conn.seat] = msg.ready
        self._broadcast(table, [])

    @staticmethod
    def _end_ready_check(table: Table) -> bool:
        """The table's check, if any, ends (the caller broadcasts); True if there was one."""
        rc, table.ready_check = table.ready_check, None
        if rc is None:
            return False
        if rc.task is not None and not rc.task.done() and rc.task is not asyncio.current_task():
            rc.task.cancel()
        return True

    async def _ready_check_ends(self, table: Table, rc: ReadyCheck) -> None:
        """At the end of its time the check ends and everyone is told."""
        try:
            await asyncio.sleep(rc.seconds)
            async with table.lock:
                if table.ready_check is rc:
                    self._end_ready_check(table)
                    self._broadcast(table, [])
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("table %s: the ready check's timer failed", table.id)
