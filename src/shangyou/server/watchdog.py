"""The node's watchdog: no table in memory waits for a task that is not there.

A table moves on by itself through tasks: the bot loop while a bot (or the bot of a person
away) is to act, the turn timer while a person is, the grace timer of a seat without a socket.
Each is started by the action before it; if that action failed (the database did not take a
move, a worker process died, a bug), nothing starts it again, and the table would wait for
good. Once a second the watchdog looks at every table in memory and starts what is missing:

- a bot to act and no live bot task: the bot loop;
- a person to act at a table with a turn timer, and no live timer: the timer (a full turn);
- a person's seat without a socket, during a match or before the start, not played by a bot
  yet, and no live grace timer: the grace timer.

A table where it starts something again and again while the table does not move on (a bug that
stops its bot each time) is looked at less and less often: after 1, 2, 4 ... rounds, at most
60, until its version moves; so a failure that repeats logs its traceback at most once a
minute.

It never fights the normal path. A table whose lock is held is busy (a move is being made or
stored): it is looked at next time. A task is started only where none is alive, under the same
tests the normal path uses (``_kick_bots`` starts no second bot loop), and the bot loop checks
again, under the lock, that its bot is to act at the version it saw: no move is made twice.

Alone on its store, a server whose write was refused (its memory and the store differ: a write
whose commit was cut off was made after all) drops the table and loads it again from the store
(:meth:`reload`).
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import time

from .logs import table_context

log = logging.getLogger("shangyou.server")


class Watchdog:
    INTERVAL = 1.0          # seconds between two looks at every table

    def __init__(self, manager, interval: float = INTERVAL) -> None:
        self.manager = manager
        self.interval = float(interval)
        self.task: asyncio.Task | None = None
        self.last_round: float | None = None      # monotonic: the last look ended
        self.resumed = 0                           # tasks started again, all told
        self._reloads: set[str] = set()
        self._round = 0
        # table id -> (its version, times started at that version, the round to look again)
        self._again: dict[str, tuple[int, int, int]] = {}

    def start(self) -> None:
        self.task = asyncio.create_task(self._run(), name="watchdog",
                                        context=contextvars.Context())

    def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            self.task = None

    def running(self, within: float) -> bool:
        """The watchdog runs, and looked at every table less than ``within`` seconds ago."""
        return (self.task is not None and not self.task.done() and self.last_round is not None
                and time.monotonic() - self.last_round < within)

    def reload(self, table_id: str) -> None:
        """Load this table again from the store on the next round (it left memory)."""
        self._reloads.add(table_id)

    async def _run(self) -> None:
        self.last_round = time.monotonic()
        while True:
            await asyncio.sleep(self.interval)
            try:
                self.check()
                await self._reload()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("the watchdog's round failed")
            self.last_round = time.monotonic()

    async def _reload(self) -> None:
        for table_id in list(self._reloads):
            if table_id in self.manager.tables:
                self._reloads.discard(table_id)
                continue
            try:
                t = await self.manager.get(table_id)
            except asyncio.CancelledError:
                raise
            except Exception:            # the store is down: the next round tries again
                return
            self._reloads.discard(table_id)
            if t is not None:
                with table_context(table_id):
                    log.warning("table %s: loaded again from the store", table_id)

    def check(self) -> list[str]:
        """One look at every table in memory; the ids of those where a task was started."""
        m = self.manager
        started: list[str] = []
        self._round += 1
        for table_id in [i for i in self._again if i not in m.tables]:
            del self._again[table_id]
        for t in list(m.tables.values()):
            if t.lost or t.lock.locked():
                continue
            again = self._again.get(t.id)
            if again is not None and again[0] == t.version and self._round < again[2]:
                continue                  # started lately, and nothing moved since: wait
            what = []
            if m._bot_to_act(t) and not _alive(t.bot_task):
                m._kick_bots(t)
                what.append("its bot")
            if self._timer_missing(t):
                m._arm_timer(t)
                what.append("its turn timer")
            if t.status in ("playing", "waiting"):
                for s in t.seats:
                    if (s.kind == "human" and s.connections <= 0 and not s.autoplay
                            and not _alive(s.grace_task)):
                        m._start_grace(t, s)
                        what.append(f"the grace timer of seat {s.index}")
            if what:
                tries = again[1] if again is not None and again[0] == t.version else 0
                self._again[t.id] = (t.version, tries + 1, self._round + min(60, 2 ** tries))
                started.append(t.id)
                self.resumed += len(what)
                with table_context(t.id):
                    log.warning("table %s: nothing was scheduled; started %s", t.id,
                                ", ".join(what))
        return started

    @staticmethod
    def _timer_missing(t) -> bool:
        if int(t.room.get("turn_timer") or 0) <= 0 or _alive(t.timer_task):
            return False
        g = t.game
        if t.status != "playing" or g is None or g.over or g.to_act is None:
            return False
        s = t.seats[g.to_act]
        return s.kind == "human" and not s.autoplay


def _alive(task: asyncio.Task | None) -> bool:
    return task is not None and not task.done()
