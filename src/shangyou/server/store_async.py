"""The store's methods as coroutines, in one worker thread: :class:`AsyncStore` (the group
commit of the moves, the retries through a database's outage). Re-exported by
:mod:`shangyou.server.store`."""

from __future__ import annotations

import asyncio
import contextvars
import random
import time
from concurrent.futures import ThreadPoolExecutor

from sqlalchemy.exc import IntegrityError

from .logs import table_context
from .metrics import STORE_SECONDS
from .store import (RETRY_SECONDS, Stale, Store, StoreUnavailable, _retried, _short, log,
                    transient)


class AsyncStore:
    """The store's methods as coroutines, run one at a time in a single worker thread.

    Moves go through :meth:`add_move`, a **group commit**: every move handed in while the
    previous write is on the disk is written in the next single transaction, and each caller
    resumes only once its own move is stored. Under load one transaction carries the moves of
    many tables; a lone move is written at once. If a batch is refused (not a failure of the
    connection), its moves are written one by one, so a bad move fails alone.

    **Retries.** A call or a batch that fails because of the connection (:func:`transient`: the
    database restarting, failing over, a dropped connection) is tried again after 0.1 s, 0.2 s,
    0.4 s ... (at most 2 s apart, with jitter), one warning line each time, until
    ``retry_seconds`` have passed since the first try (for a move: since it was handed in, so a
    move that waited behind another batch's tries is not kept twice as long); then its caller
    gets :class:`StoreUnavailable` and the store logs the last error, with its traceback the first
    time of an outage (one line each time after that, until a call goes through again). A
    batch whose commit was cut off may have been stored all the same: when trying it again is
    refused (the table's version moved on, the move is there), the moves are looked up, and
    counted as stored if they are there as they were sent. Other errors are not tried again.
    """

    def __init__(self, store: Store, retry_seconds: float = RETRY_SECONDS):
        self.store = store
        self.retry_seconds = float(retry_seconds)
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="shangyou-store")
        # (the move's row, its caller's future, when it was handed in: loop time)
        self._pending: list[tuple[tuple, asyncio.Future, float]] = []
        self._writer: asyncio.Task | None = None
        self._gave_up = False         # a call was given up since the last one that went through
        self.queued = 0               # calls waiting for the thread or running in it (metrics)

    async def _run(self, fn, *args, call: str | None = None):
        self.queued += 1
        try:
            return await asyncio.get_running_loop().run_in_executor(
                self._pool, _timed, call or getattr(fn, "__name__", "call"), fn, args)
        finally:
            self.queued -= 1

    async def _retrying(self, what: str, attempt_fn, since: float | None = None):
        """``await attempt_fn(tries so far)`` until it succeeds, fails for good, or connection
        failures went on until ``retry_seconds`` after ``since`` (loop time; default now):
        :class:`StoreUnavailable`, logged once."""
        loop = asyncio.get_running_loop()
        deadline = (loop.time() if since is None else since) + self.retry_seconds
        delay, tries = 0.1, 0
        while True:
            try:
                out = await attempt_fn(tries)
            except Exception as e:
                if not transient(e):
                    raise
                tries += 1
                wait = delay * random.uniform(0.8, 1.2)
                if loop.time() + wait > deadline:
                    # the traceback once an outage: later give-ups of the same outage are
                    # one line each
                    log.error("%s: the database did not answer for %g s (%d tries); giving "
                              "up%s", what, self.retry_seconds, tries,
                              f" ({_short(e)}; as before)" if self._gave_up else "",
                              exc_info=None if self._gave_up else e)
                    self._gave_up = True
                    raise StoreUnavailable(f"{what}: the database did not answer for "
                                           f"{self.retry_seconds:g} s") from e
                log.warning("%s failed (try %d: %s); trying again in %.1f s", what, tries,
                            _short(e), wait)
                await asyncio.sleep(wait)
                delay = min(2.0, delay * 2)
                continue
            if self._gave_up:
                log.warning("%s: the database answers again", what)
            self._gave_up = False
            return out

    async def call(self, fn_name: str, *args, **kwargs):
        fn = getattr(self.store, fn_name)

        async def attempt(_tries):
            return await self._run(lambda: fn(*args, **kwargs), call=fn_name)
        return await self._retrying(f"the store's {fn_name}", attempt)

    async def call_with(self, fn, *args):
        """``fn(store, *args)`` as :meth:`call` runs a method (in the store's thread, tried
        again on a lost connection): queries that live in other modules (accountdb.py)."""
        async def attempt(_tries):
            return await self._run(lambda: fn(self.store, *args), call=fn.__name__)
        return await self._retrying(f"the store's {fn.__name__}", attempt)

    async def ping(self, timeout: float) -> None:
        """One ``SELECT 1``, in a thread of its own (not behind the writes), at most
        ``timeout`` seconds: TimeoutError, or the database's error."""
        await asyncio.wait_for(asyncio.to_thread(self.store.ping), timeout)

    async def add_move(self, table_id: str, match_id: str, idx: int, seat: int, text: str,
                       version: int, result: dict | None = None,
                       actor: str | None = None) -> None:
        loop = asyncio.get_running_loop()
        fut = loop.create_future()
        self._pending.append(((table_id, match_id, idx, seat, text, version, result, actor),
                              fut, loop.time()))
        if self._writer is None or self._writer.done():
            # a context of its own: the writer serves every table, its lines name none
            self._writer = asyncio.create_task(self._write_moves(), name="store-group-commit",
                                               context=contextvars.Context())
        await fut

    async def _write_moves(self) -> None:
        while self._pending:
            await asyncio.sleep(0)        # let the moves made in this turn of the loop join
            batch, self._pending = self._pending, []
            rows = [row for row, _, _ in batch]
            # a move that waited behind an earlier batch's tries has used some of its time
            since = min(t for _, _, t in batch)
            tables = sorted({row[0] for row in rows})
            what = (f"storing {len(rows)} moves of table"
                    + (f" {tables[0]}" if len(tables) == 1 else
                       f"s {', '.join(tables[:3])}{' ...' if len(tables) > 3 else ''}"))

            async def attempt(tries, rows=rows):
                try:
                    await self._run(self.store.add_moves, rows)
                except (Stale, IntegrityError):
                    # tried before, and the commit was cut off: it may have been made
                    if tries and await self._run(self.store.has_moves, rows):
                        return
                    raise
            try:
                # the lines of one table's moves name it
                with table_context(tables[0] if len(tables) == 1 else None):
                    await self._retrying(what, attempt, since)
                outcome: list[BaseException | None] = [None] * len(batch)
            except StoreUnavailable as e:
                outcome = [e] * len(batch)
            except Exception:
                try:
                    outcome = list(await self._run(self._one_by_one, rows))
                except Exception as e:  # noqa: BLE001 - handed to every caller of the batch
                    outcome = [e] * len(batch)
            for (_, fut, _), exc in zip(batch, outcome):
                if fut.done():
                    continue
                if exc is None:
                    fut.set_result(None)
                else:
                    fut.set_exception(exc)

    def _one_by_one(self, rows: list[tuple]) -> list[Exception | None]:
        out: list[Exception | None] = []
        for row in rows:
            try:
                self.store.add_moves([row])
                out.append(None)
            except Exception as e:     # noqa: BLE001 - handed to the move's own caller
                out.append(e)
        return out

    def close(self) -> None:
        self._pool.shutdown(wait=True)
        self.store.close()


def _timed(call: str, fn, args: tuple):
    """In the store's thread: ``fn(*args)``, its time observed by ``call``
    (``shangyou_store_call_seconds``)."""
    t0 = time.perf_counter()
    _retried.on = True
    try:
        return fn(*args)
    finally:
        _retried.on = False
        STORE_SECONDS.labels(call).observe(time.perf_counter() - t0)
