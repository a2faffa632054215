"""Who moves when no person does: the bots (quick ones under the table's lock, slow ones in
worker processes), the grace period of an absent person, and the room's turn timer.

:class:`Autoplay` is a part of :class:`~shangyou.server.tables.TableManager`; it uses the
manager's ``_commit`` and ``_broadcast``.
"""

from __future__ import annotations

import asyncio
import logging
import random
import secrets
import time

from shangyou.bots.base import make_bot

from . import schemas
from .logs import bind_table
from .model import ActionError, Seat, StoreDown, Table
from .parts import ManagerParts
from .budget import Lane, Work

log = logging.getLogger("shangyou.server")

_JITTER = random.Random()

FAST_LEVELS = frozenset({"random", "greedy"})   # move in the server process; every other
# level (heuristic, search, a level of another package) thinks in a worker process

STORE_PAUSE = 1.0     # seconds a bot or a timer waits before trying again after the store
# gave up on its move (the store itself tried again for --store-retry-seconds first)


def _level_name(level: str) -> str:
    return level.partition(":")[0].strip().lower()


def _choose_in_worker(level: str, seed: int, view: dict) -> str:
    """A bot's move, computed in a worker process (the bot sees the view only)."""
    return make_bot(level, seed=seed).choose(view)


def _make_bot(level: str):
    return make_bot(level, seed=secrets.randbits(32))


def _bot_name(level: str, seat: int) -> str:
    return f"{level.capitalize()} bot {seat + 1}"


class Autoplay(ManagerParts):
    work: Work            # the worker processes (made by the manager)

    # --------------------------------------------------------------------------------- bots
    @staticmethod
    def _bot_to_act(table: Table) -> bool:
        g = table.game
        if not (table.status == "playing" and g is not None and not g.over
                and g.to_act is not None):
            return False
        s = table.seats[g.to_act]
        return s.kind == "bot" or (s.kind == "human" and s.autoplay)

    def _kick_bots(self, table: Table) -> None:
        if self._bot_to_act(table) and (table.bot_task is None or table.bot_task.done()):
            table.bot_task = asyncio.create_task(self._bot_loop(table),
                                                 name=f"bots-{table.id}")

    async def _bot_loop(self, table: Table) -> None:
        bind_table(table.id)
        try:
            while True:
                # a bot's pause varies (±25%) like a person's: tables started together do not
                # stay in step, so the server's work does not come in bursts
                await asyncio.sleep(self.bot_delay * _JITTER.uniform(0.75, 1.25))
                try:
                    if self._bot_is_slow(table):
                        if not await self._slow_bot_step(table):
                            break
                        continue
                    async with table.lock:
                        if not self._bot_to_act(table) or not await self._bot_step(table):
                            break
                except StoreDown:
                    # the database did not take the move (the store logged why): it was
                    # undone; the bot moves again once the database is back
                    await asyncio.sleep(STORE_PAUSE)
            if table.bot_task is asyncio.current_task():
                table.bot_task = None
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("table %s: bots stopped", table.id)
            if table.bot_task is asyncio.current_task():
                table.bot_task = None      # the watchdog starts them again

    def _bot_is_slow(self, table: Table) -> bool:
        """A heuristic or searching bot may think for a while (up to a second): it runs in a
        worker process, outside the lock, so the table and the server stay responsive."""
        if not self._bot_to_act(table):
            return False
        s = table.seats[table.game.to_act]
        return _level_name(s.bot_level or table.bot_level) not in FAST_LEVELS

    async def _slow_bot_step(self, table: Table) -> bool:
        async with table.lock:
            if not self._bot_to_act(table):
                return False
            g = table.game
            seat = g.to_act
            version = table.version
            level = table.seats[seat].bot_level or table.bot_level
            view = g.view(seat)
        try:
            text = await self._bot_pool().run(_choose_in_worker, level, secrets.randbits(32),
                                              view)
        except Exception:
            log.exception("table %s: the %s bot at seat %d failed", table.id, level, seat)
            text = None
        async with table.lock:
            if table.game is not g or table.version != version or not self._bot_to_act(table):
                return self._bot_to_act(table)     # the table moved on meanwhile: look again
            return await self._apply_bot_move(table, seat, lambda: text)

    def _shutdown_pool(self) -> None:
        self.work.shutdown()

    def _bot_pool(self) -> Lane:
        """The bots' lane (:mod:`shangyou.server.budget`): no hint or review ever waits in it."""
        return self.work.bots

    async def _bot_step(self, table: Table) -> bool:
        g = table.game
        seat = g.to_act
        s = table.seats[seat]
        if s.bot is None:
            s.bot = _make_bot(s.bot_level or table.bot_level)
        return await self._apply_bot_move(table, seat, lambda: s.bot.choose(g.view(seat)))

    async def _apply_bot_move(self, table: Table, seat: int, choose) -> bool:
        """Apply the bot's choice (``choose()``), or its first legal move should the bot fail
        or choose badly; store and broadcast it. False if no move could be made."""
        g = table.game
        try:
            g.apply(choose(), seat=seat)
        except Exception:
            log.exception("table %s: the bot at seat %d failed; playing its first legal move",
                          table.id, seat)
            try:
                g.apply(_whole_moves(g)[0], seat=seat)
            except Exception:
                log.exception("table %s: no move for the bot at seat %d", table.id, seat)
                return False
        person = table.seats[seat].kind == "human"       # away: a bot plays for them
        try:
            await self._commit(table, actor="bot" if person else None)
        except StoreDown:
            raise                 # undone: the bot loop tries again
        except ActionError:
            return False
        return True

    # ---------------------------------------------------------- absent players, turn timer
    def _start_grace(self, table: Table, seat: Seat) -> None:
        """A person's seat has no socket: after the room's grace period a bot plays it during
        a match (until the person opens the link again, which cancels this or ends the
        autoplay); before the start the seat is freed instead."""
        self._cancel_grace(seat)
        if seat.kind != "human" or seat.autoplay:
            return
        seat.grace_task = asyncio.create_task(self._grace(table, seat),
                                              name=f"grace-{table.id}-{seat.index}")

    @staticmethod
    def _cancel_grace(seat: Seat) -> None:
        task, seat.grace_task = seat.grace_task, None
        if task is not None and not task.done() and task is not asyncio.current_task():
            task.cancel()

    async def _grace(self, table: Table, seat: Seat) -> None:
        bind_table(table.id)
        try:
            await asyncio.sleep(float(table.room.get("grace", schemas.GRACE_DEFAULT)))
            async with table.lock:
                seat.grace_task = None
                if (seat.kind != "human" or seat.connections > 0
                        or table.seats[seat.index] is not seat):
                    return
                if table.status == "waiting":
                    await self._free_absent(table, seat)
                    return
                if table.status != "playing":
                    return
                seat.autoplay = True
                if seat.bot is None:
                    seat.bot = _make_bot(table.bot_level)
                self._arm_timer(table)
                self._broadcast(table, [])
                self._kick_bots(table)
        except asyncio.CancelledError:
            raise
        except StoreDown:
            pass          # logged by the store, once; the watchdog starts this timer again
        except Exception:
            log.exception("table %s: grace timer of seat %d failed", table.id, seat.index)

    async def _free_absent(self, table: Table, seat: Seat) -> None:
        """A waiting table frees the seat of a person gone longer than the grace period. If
        they were the host, the host role passes to the lowest seat of a person who is
        connected (if any), so the table can still start."""
        was_host = table.host_hash is not None and seat.token_hash == table.host_hash
        await self._save_seats(table, {seat.index: {"name": None, "kind": "empty",
                                                    "token_hash": None, "bot_level": None}})
        if was_host:
            heir = next((s.token_hash for s in table.seats if s.kind == "human"
                         and s.connections > 0 and s.token_hash is not None), None)
            if heir is not None:
                await self._set_host(table, heir)
        self._broadcast(table, [])

    def _arm_timer(self, table: Table) -> None:
        """The room's turn timer: a new deadline whenever a person is to act (each move
        restarts it); none for bots, for seats a bot plays, or without a timer."""
        if table.timer_task is not None and table.timer_task is not asyncio.current_task():
            table.timer_task.cancel()
        table.timer_task = None
        table.turn_deadline = None
        seconds = int(table.room.get("turn_timer") or 0)
        g = table.game
        if (seconds <= 0 or table.status != "playing" or g is None or g.over
                or g.to_act is None):
            return
        if table.seats[g.to_act].kind != "human" or table.seats[g.to_act].autoplay:
            return
        table.turn_deadline = time.monotonic() + seconds
        table.timer_task = asyncio.create_task(self._timeout(table, table.version, seconds),
                                               name=f"timer-{table.id}")

    async def _timeout(self, table: Table, version: int, seconds: float) -> None:
        """Time is up for the seat to act: it passes where it may, otherwise a bot moves. A
        move the database did not take is undone and made again a moment later."""
        bind_table(table.id)
        try:
            await asyncio.sleep(seconds)
            async with table.lock:
                g = table.game
                if table.version != version or not self._timer_may_move(table):
                    return
                table.timer_task = None
                seat = g.to_act
                legal = g.legal_moves()
                if "pass" in legal:
                    move = "pass"
                else:            # a quick bot: this runs under the table's lock
                    level = table.bot_level
                    if _level_name(level) not in FAST_LEVELS:
                        level = "greedy"
                    move = _make_bot(level).choose(g.view(seat))
                try:
                    g.apply(move, seat=seat)
                except ValueError:
                    g.apply(_whole_moves(g)[0], seat=seat)
                try:
                    await self._commit(table, actor="timer")
                except StoreDown:
                    if table.timer_task is None and self._timer_may_move(table):
                        table.turn_deadline = time.monotonic() + STORE_PAUSE
                        table.timer_task = asyncio.create_task(
                            self._timeout(table, table.version, STORE_PAUSE),
                            name=f"timer-{table.id}")
                    return
                self._kick_bots(table)
        except asyncio.CancelledError:
            raise
        except ActionError:
            pass
        except Exception:
            log.exception("table %s: the turn timer failed", table.id)

    @staticmethod
    def _timer_may_move(table: Table) -> bool:
        g = table.game
        return (table.status == "playing" and g is not None and not g.over
                and g.to_act is not None and table.seats[g.to_act].kind == "human")


def _whole_moves(g) -> list:
    """The moves that end the decision at once: where a game offers a large choice in steps
    (``choose`` a group, then ``pick`` cards), its full listing, so a fallback never leaves a
    seat halfway through a choice."""
    every = getattr(g, "all_moves", None)
    return every() if every is not None else g.legal_moves()
