"""The worker processes in which slow bots think, and how they end with the server.

:class:`BotPool` wraps a :class:`concurrent.futures.ProcessPoolExecutor` (spawn start method:
no inherited threads or locks). The workers start the first time a bot needs one and end:

- on a normal stop (SIGTERM, Ctrl-C: the app's lifespan shutdown calls
  :meth:`BotPool.shutdown`): queued work is cancelled and the workers are killed and waited
  for, a bounded time, before the server exits;
- when the server dies without a shutdown (``kill -9``, a crash): every worker watches its
  parent. On Linux the kernel sends it SIGKILL when the parent goes (``PR_SET_PDEATHSIG``);
  everywhere a daemon thread compares ``os.getppid()`` with the parent's pid every half second
  and exits the worker when they differ.

Workers ignore SIGINT and SIGTERM (and start with both blocked, so that neither ends one
that is still starting). Ctrl-C in a terminal reaches the whole process group, and so does a
service manager's stop (systemd signals every process of the unit): were a worker to die of
it, the bot waiting for it would fail and play its first legal move while the server is still
stopping. The server ends its workers itself, with SIGKILL (they hold no state).

The executor's queues use named semaphores, so the server also starts multiprocessing's
resource tracker (one more process). It ignores SIGINT and SIGTERM and exits when the last
process holding its pipe (the server and its workers) is gone, removing what they left.

The kernel's parent-death signal follows the *thread* that started a worker, so it is asked
for only when the pool is started from the main thread (where uvicorn runs the event loop);
elsewhere (a test client's loop thread) the polling thread alone ends the workers.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import multiprocessing
import os
import signal
import sys
import threading
import time
from concurrent.futures.process import BrokenProcessPool

POLL_SECONDS = 0.5        # how often a worker looks whether its parent is still there
PR_SET_PDEATHSIG = 1      # <linux/prctl.h>
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def default_workers() -> int:
    """One fewer than the cores, at least 1 and at most 4: the server keeps a core."""
    return max(1, min(4, (os.cpu_count() or 2) - 1))


def _set_death_signal(sig: int) -> bool:
    """Ask the kernel for ``sig`` when the parent (thread) ends; False where not available."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_PDEATHSIG, ctypes.c_ulong(sig), ctypes.c_ulong(0),
                          ctypes.c_ulong(0), ctypes.c_ulong(0)) == 0
    except (OSError, AttributeError):
        return False


def _watch_parent(parent: int, interval: float) -> None:
    while True:
        time.sleep(interval)
        if os.getppid() != parent:
            os._exit(0)


@contextlib.contextmanager
def _stop_signals_blocked():
    """SIGINT and SIGTERM blocked in this thread meanwhile. A worker started here inherits the
    mask through fork and exec, so neither signal ends it while it is still starting (before
    :func:`_worker_init` ignores them); the parent gets them once they are unblocked."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _lower_priority(nice: int, idle: bool) -> None:
    """This process's CPU priority: ``nice`` steps lower, and under ``SCHED_IDLE`` (Linux)
    where ``idle``: then any ordinary thread of the machine that wakes takes the CPU from it at
    once, where a niced process still runs on until its time slice ends."""
    if nice > 0 and hasattr(os, "nice"):
        os.nice(nice)
    if idle and hasattr(os, "SCHED_IDLE"):
        try:
            os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
        except OSError:
            pass


def _worker_init(parent: int, death_signal: bool, interval: float, nice: int = 0,
                 idle: bool = False) -> None:
    """Runs first in each worker: ignore SIGINT and SIGTERM (dropping any that came while it
    started), lower its CPU priority as asked, exit when the parent is gone."""
    _lower_priority(nice, idle)
    for sig in STOP_SIGNALS:
        signal.signal(sig, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)
    if death_signal:
        _set_death_signal(signal.SIGKILL)
    if os.getppid() != parent:          # the parent died before the signal was asked for
        os._exit(0)
    threading.Thread(target=_watch_parent, args=(parent, interval), daemon=True,
                     name="watch-parent").start()


class BotPool:
    """Worker processes for slow bots: :meth:`run` (or :meth:`submit`) a function in one,
    :meth:`shutdown` ends them all. A pool whose worker died (killed, out of memory) is
    replaced by a new one at the next call."""

    def __init__(self, max_workers: int | None = None, *, death_signal: bool = True,
                 poll_seconds: float = POLL_SECONDS, nice: int = 0, idle: bool = False):
        self.max_workers = max_workers or default_workers()
        # a lower CPU priority of the workers: ``nice(2)`` steps, and SCHED_IDLE
        self.nice = max(0, int(nice))
        self.idle = bool(idle)
        self.death_signal = death_signal
        self.poll_seconds = poll_seconds
        self._executor: concurrent.futures.ProcessPoolExecutor | None = None
        self._closed = False

    def _get(self) -> concurrent.futures.ProcessPoolExecutor:
        if self._closed:
            raise RuntimeError("the bot worker pool is shut down")
        if self._executor is None:
            on_main = threading.current_thread() is threading.main_thread()
            self._executor = concurrent.futures.ProcessPoolExecutor(
                max_workers=self.max_workers, mp_context=multiprocessing.get_context("spawn"),
                initializer=_worker_init,
                initargs=(os.getpid(), self.death_signal and on_main, self.poll_seconds,
                          self.nice, self.idle))
        return self._executor

    def discard(self, executor) -> None:
        """Forget a broken executor (its manager thread has terminated its workers)."""
        if self._executor is executor:
            self._executor = None
        executor.shutdown(wait=False, cancel_futures=True)

    def submit_on(self, fn, *args):
        """``(executor, future)`` of ``fn(*args)`` in a worker: the executor is the one to
        :meth:`discard` should the future fail with :class:`BrokenProcessPool`."""
        executor = self._get()
        with _stop_signals_blocked():          # a submit may start a worker
            try:
                return executor, executor.submit(fn, *args)
            except BrokenProcessPool:
                self.discard(executor)
                executor = self._get()
                return executor, executor.submit(fn, *args)

    def submit(self, fn, *args) -> concurrent.futures.Future:
        """``fn(*args)`` in a worker (``fn`` and the arguments must pickle)."""
        return self.submit_on(fn, *args)[1]

    async def run(self, fn, *args):
        """``fn(*args)`` in a worker, awaited without blocking the event loop. Raises
        :class:`asyncio.CancelledError` if the pool is shut down meanwhile, and
        :class:`BrokenProcessPool` if the worker died (the next call starts new ones)."""
        executor, future = self.submit_on(fn, *args)
        try:
            return await asyncio.wrap_future(future)
        except BrokenProcessPool:
            if self._closed:
                raise asyncio.CancelledError() from None
            self.discard(executor)
            raise

    def pids(self) -> list[int]:
        """The workers' process ids (none before the first call)."""
        processes = getattr(self._executor, "_processes", None) or {}
        return sorted(processes)

    def shutdown(self, timeout: float = 3.0) -> None:
        """Cancel queued work and kill the workers, waiting for them up to ``timeout``
        seconds. The pool takes no more work afterwards."""
        self._closed = True
        executor, self._executor = self._executor, None
        if executor is None:
            return
        processes = list((getattr(executor, "_processes", None) or {}).values())
        manager = getattr(executor, "_executor_manager_thread", None)
        executor.shutdown(wait=False, cancel_futures=True)
        for p in processes:
            try:
                p.kill()
            except (OSError, ValueError):        # already gone, or already closed
                pass
        deadline = time.monotonic() + timeout
        for p in processes:
            try:
                p.join(max(0.0, deadline - time.monotonic()))
            except (OSError, ValueError):
                pass
        if manager is not None and manager.is_alive():
            manager.join(max(0.1, deadline - time.monotonic()))
