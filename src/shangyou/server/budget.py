"""Budgets for the worker processes: a bot to act first, then hints, then reviews.

The work is split into two *lanes*, each a :class:`~shangyou.server.workers.BotPool` fed by a
dispatcher in the server process (``docs/operations.md``, *Worker processes*):

- ``bots``: the bots' moves, and nothing else (:func:`~shangyou.server.workers.default_workers`
  processes). A bot never waits behind a hint or a review: none ever enters this lane, and
  its processes keep the normal CPU priority. Its queue has no bound: a bot is never refused
  (a table would stop).
- ``advice``: hints, the decisions of reviews and analyses (``Limits.advice_workers`` processes, whose
  CPU priority is lowered by ``Limits.advice_nice``, so that the kernel serves the bots'
  processes and the server first on a busy machine), which together use at most
  ``Limits.advice_cpu_share`` of a core each on average (a CPU budget in bursts of
  ``Limits.advice_cpu_burst`` seconds). A hint goes before any review decision, and a review
  decision before an analysis (the analysis board, ``server/analysis.py``); each kind
  waits in a bounded queue, and a request past the bound is refused with :class:`Busy` (the
  client's ``busy``).

The advice lane's dispatcher hands its pool at most as many jobs as the pool has workers; the
others wait here, in priority order, where a job nobody wants any more (its asker left) is
dropped before it costs anything. (The bots' lane has one kind of work, so it hands each move
to its pool at once.) A worker that dies (SIGKILL, the out-of-memory killer) breaks the jobs
handed to its pool: the pool is replaced and each of them is tried once more (``retries``);
the jobs waiting here go on as if nothing happened.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections import Counter, deque
from collections.abc import Callable
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field

from .workers import BotPool, default_workers

HISTORY = 2000          # dispatches remembered (for the tests and an operator's look)


class Busy(Exception):
    """The queue of this kind of work is full; the request is refused and changes nothing."""


class Dropped(Exception):
    """The job was no longer wanted when its turn came (it never ran)."""


def _in_worker(fn: Callable, args: tuple):
    """Runs in a worker: ``fn(*args)``, the worker's pid (which process did the work) and the
    CPU seconds it took."""
    t0 = time.process_time()
    result = fn(*args)
    return os.getpid(), time.process_time() - t0, result


@dataclass(eq=False)
class Job:
    kind: str
    fn: Callable
    args: tuple
    future: asyncio.Future
    tries: int
    wanted: Callable[[], bool] | None = None


@dataclass(frozen=True)
class Dispatch:
    """One job handed to a worker: its kind, what waited and ran in the lane at that moment
    (by kind, this job excluded) and, once done, the worker's pid (0: it failed)."""
    kind: str
    waiting: dict
    running: dict
    pid: list = field(default_factory=lambda: [0])


class Lane:
    """Worker processes for the kinds of work in ``kinds`` (highest priority first; each with
    the bound of its queue, ``None`` for none)."""

    def __init__(self, name: str, workers: int, kinds: dict[str, int | None], *,
                 nice: int = 0, idle: bool = False, retries: int = 1,
                 depth: int | None = 0, cpu_share: float | None = None,
                 cpu_burst: float = 3.0):
        self.name = name
        self.pool = BotPool(max(1, int(workers)), nice=nice, idle=idle)
        # jobs handed to the pool at once: as many as it has workers (0), so that the order
        # is decided here, or no bound (None) where there is no order to keep (one kind)
        self.depth = self.pool.max_workers if depth == 0 else depth
        self.bounds = dict(kinds)
        self.retries = retries
        self.waiting: dict[str, deque[Job]] = {k: deque() for k in kinds}
        self.running: Counter[str] = Counter()
        self.stats: Counter[str] = Counter()        # "<kind>.<event>": queued, done, ...
        self.history: deque[Dispatch] = deque(maxlen=HISTORY)
        self.closed = False
        # a CPU budget (token bucket, in CPU seconds): each worker may use ``cpu_share`` of a
        # core on average, in bursts of ``cpu_burst`` seconds; past it no job starts until the
        # bucket has refilled (the lane "rests")
        self.cpu_share = cpu_share if cpu_share and cpu_share > 0 else None
        self.cpu_burst = max(0.0, cpu_burst) * self.pool.max_workers
        self.cpu_tokens = self.cpu_burst
        self.clock = time.monotonic                  # (a test may set its own)
        self._cpu_stamp = self.clock()
        self._rest: asyncio.TimerHandle | None = None
        self.cpu_used = 0.0                         # CPU seconds of the jobs done
        self._jobs: set[Job] = set()                # handed to the pool, not finished
        self._loop: asyncio.AbstractEventLoop | None = None

    @property
    def workers(self) -> int:
        return self.pool.max_workers

    def queued(self, kind: str) -> int:
        return len(self.waiting[kind])

    def full(self, kind: str) -> bool:
        bound = self.bounds[kind]
        return bound is not None and len(self.waiting[kind]) >= bound

    def submit(self, fn: Callable, *args, kind: str | None = None,
               wanted: Callable[[], bool] | None = None) -> asyncio.Future:
        """Queue ``fn(*args)`` for a worker of this lane (``kind``: the lane's first by
        default) and answer its future at once. Raises :class:`Busy` when that kind's queue is
        full. The future ends with :class:`Dropped` when ``wanted()`` says no at its turn,
        :class:`BrokenProcessPool` when its worker died on every try, cancelled once the lane
        is shut down. Cancelling the future takes a job that has not started off the queue."""
        kind = kind or next(iter(self.bounds))
        if self.closed:
            raise asyncio.CancelledError()
        if self.full(kind):
            self.stats[f"{kind}.busy"] += 1
            raise Busy(f"{self.bounds[kind]} {kind} jobs wait already")
        self._loop = asyncio.get_running_loop()
        job = Job(kind, fn, args, self._loop.create_future(), 1 + self.retries, wanted)
        job.future.add_done_callback(lambda f: self._forget(job) if f.cancelled() else None)
        self.waiting[kind].append(job)
        self.stats[f"{kind}.queued"] += 1
        self._pump()
        return job.future

    async def run(self, fn: Callable, *args, kind: str | None = None,
                  wanted: Callable[[], bool] | None = None):
        """:meth:`submit`, awaited (the interface of :meth:`BotPool.run`)."""
        return await self.submit(fn, *args, kind=kind, wanted=wanted)

    def _forget(self, job: Job) -> None:
        try:
            self.waiting[job.kind].remove(job)      # it had not started: it never will
        except ValueError:
            pass

    # ----------------------------------------------------------------------- dispatching
    def _next(self) -> Job | None:
        for kind, queue in self.waiting.items():
            while queue:
                job = queue.popleft()
                if job.future.done():
                    continue
                if job.wanted is not None and not job.wanted():
                    self.stats[f"{kind}.dropped"] += 1
                    job.future.set_exception(Dropped())
                    continue
                return job
        return None

    def _resting(self) -> bool:
        """True while the CPU budget is spent (and a wake-up is set for when it is not)."""
        if self.cpu_share is None:
            return False
        rate = self.cpu_share * self.workers
        now = self.clock()
        self.cpu_tokens = min(self.cpu_burst, self.cpu_tokens + (now - self._cpu_stamp) * rate)
        self._cpu_stamp = now
        if self.cpu_tokens > 0:
            return False
        if self._rest is None and self._loop is not None:
            self.stats["rested"] += 1
            self._rest = self._loop.call_later(-self.cpu_tokens / rate + 0.001, self._wake)
        return True

    def _wake(self) -> None:
        self._rest = None
        self._pump()

    def _pump(self) -> None:
        while not self.closed and (self.depth is None
                                   or sum(self.running.values()) < self.depth):
            if any(self.waiting.values()) and self._resting():
                return
            job = self._next()
            if job is None:
                return
            self._start(job)

    def _start(self, job: Job) -> None:
        record = Dispatch(job.kind, {k: len(q) for k, q in self.waiting.items()},
                          dict(+self.running))
        try:
            executor, cf = self.pool.submit_on(_in_worker, job.fn, job.args)
        except Exception as e:                      # the pool is shut down
            if not job.future.done():
                job.future.set_exception(e)
            return
        self.history.append(record)
        self.running[job.kind] += 1
        self._jobs.add(job)
        loop = self._loop
        assert loop is not None                     # set by submit, which calls this

        def done(f) -> None:                        # in the executor's thread
            try:
                loop.call_soon_threadsafe(self._finished, job, executor, f, record)
            except RuntimeError:                    # the loop is closed: nobody waits
                pass

        cf.add_done_callback(done)

    def _finished(self, job: Job, executor, cf, record: Dispatch) -> None:
        self.running[job.kind] -= 1
        self._jobs.discard(job)
        exc = asyncio.CancelledError() if cf.cancelled() else cf.exception()
        if self.closed:
            job.future.cancel()
        elif isinstance(exc, BrokenProcessPool):
            self.pool.discard(executor)             # the next job starts a new pool
            self.stats[f"{job.kind}.broken"] += 1
            if job.tries > 1 and not job.future.done():
                job.tries -= 1
                self.stats[f"{job.kind}.retried"] += 1
                self.waiting[job.kind].appendleft(job)
            elif not job.future.done():
                job.future.set_exception(exc)
        elif exc is not None:
            self.stats[f"{job.kind}.failed"] += 1
            if not job.future.done():
                job.future.set_exception(exc)
        else:
            pid, cpu, result = cf.result()
            record.pid[0] = pid
            self.cpu_tokens -= cpu
            self.cpu_used += cpu
            self.stats[f"{job.kind}.done"] += 1
            if not job.future.done():
                job.future.set_result(result)
        self._pump()

    def pids(self) -> list[int]:
        return self.pool.pids()

    def shutdown(self) -> None:
        """Cancel what waits and runs, end the workers."""
        self.closed = True
        if self._rest is not None:
            self._rest.cancel()
        for queue in self.waiting.values():
            while queue:
                queue.popleft().future.cancel()
        for job in list(self._jobs):
            job.future.cancel()
        self.pool.shutdown()


class Work:
    """The server's two lanes (``bots`` and ``advice``), made from its limits."""

    def __init__(self, limits, bot_workers: int | None = None):
        # one kind: every bot move goes to the pool at once, which keeps the next one queued
        # in the worker's pipe (no round trip through the server between two moves)
        self.bots = Lane("bots", bot_workers or default_workers(), {"bot": None}, depth=None)
        self.advice = Lane("advice", limits.advice_workers,
                           {"hint": limits.hint_queue, "review": limits.review_jobs,
                            "analysis": limits.analysis_queue},
                           nice=limits.advice_nice, idle=bool(limits.advice_idle),
                           cpu_share=limits.advice_cpu_share,
                           cpu_burst=limits.advice_cpu_burst)

    def shutdown(self) -> None:
        self.bots.shutdown()
        self.advice.shutdown()
