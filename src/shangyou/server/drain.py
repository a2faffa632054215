"""A graceful stop: the node hands its tables on before it exits.

uvicorn's own stop (SIGTERM, SIGINT) closes every socket at once, and a node's leases were
released only after that: every client of the node reconnected together, to tables nobody ran
yet. :class:`DrainingServer` hooks uvicorn's signal handler instead. On the first SIGTERM or
SIGINT it

1. stops listening (a proxy in front sends new sockets to another node) and refuses any socket
   that still arrives (``moved``, close 1012: the client tries another node);
2. hands the tables on one at a time (:meth:`TableManager.drain
   <shangyou.server.tables.TableManager.drain>`): each one's lease released, then its clients
   told ``moved``, so that they reconnect to another node, which takes the table from the store;
   then the clients of tables that other nodes run move too (:meth:`Node.drain
   <shangyou.server.cluster.Node.drain>`);
3. waits for those sockets to close (their clients answer the close frame), then stops as
   uvicorn does: a socket still open then is closed by the stop (close 1012 too, but without
   waiting for the client's answer; the count is logged).

At most ``drain_seconds`` go to steps 2 and 3 (step 3 gets at least
:data:`SOCKETS_CLOSE_SECONDS`, however long step 2 took: a loaded machine answers slowly); a
second signal stops at once, as uvicorn does.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import time
from types import FrameType
from typing import Awaitable, Callable

import uvicorn

log = logging.getLogger("shangyou.server")

SOCKETS_CLOSE_SECONDS = 3.0     # the least a drain gives its sockets' close handshakes
TICK_SECONDS = 1.0              # uvicorn's main loop: how often it dates its answers


class DrainingServer(uvicorn.Server):
    """uvicorn's server, whose first stop signal drains the app first (``drain``: the app's
    coroutine that hands its work on; see the module's text)."""

    def __init__(self, config: uvicorn.Config, drain: Callable[[], Awaitable[object]],
                 drain_seconds: float = 20.0):
        super().__init__(config)
        self.drain = drain
        self.drain_seconds = drain_seconds
        self.draining = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task | None = None
        self._wake: asyncio.Future | None = None

    # uvicorn's main loop wakes ten times a second to see whether it should stop, and dates
    # its answers once a second of those: each wake-up of an idle node costs CPU, paid once
    # for each node of a cluster (docs/benchmarks-cluster-pace.md). Here it wakes once a
    # second, and at once when told to stop.
    @property
    def should_exit(self) -> bool:
        return self._should_exit

    @should_exit.setter
    def should_exit(self, value: bool) -> None:
        self._should_exit = value
        wake = getattr(self, "_wake", None)
        if value and wake is not None:
            # from uvicorn's signal handler too: through the loop, as a signal may come
            # between any two steps of it
            wake.get_loop().call_soon_threadsafe(_wake_up, wake)

    async def main_loop(self) -> None:
        loop = asyncio.get_running_loop()
        counter = 0
        should_exit = await self.on_tick(counter)
        while not should_exit:
            counter = (counter + 10) % 864000      # on_tick dates the answers at multiples of 10
            self._wake = wake = loop.create_future()
            timer = loop.call_later(TICK_SECONDS, _wake_up, wake)
            try:
                if not self._should_exit:          # (told to stop before the future existed)
                    await wake
            finally:
                timer.cancel()
                self._wake = None
            should_exit = await self.on_tick(counter)

    async def startup(self, sockets=None) -> None:
        self._loop = asyncio.get_running_loop()
        await super().startup(sockets)

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        if self.draining or self._loop is None or self.should_exit or \
                sig not in (signal.SIGTERM, signal.SIGINT):
            if self.draining:                     # a second signal: stop now
                self.force_exit = True
            super().handle_exit(sig, frame)
            return
        self.draining = True
        self._captured_signals.append(sig)        # raised again once stopped, as uvicorn does
        self._loop.call_soon_threadsafe(self._start)

    def _start(self) -> None:
        self._task = asyncio.create_task(self._drain(), name="drain")

    async def _drain(self) -> None:
        started = time.monotonic()
        for server in getattr(self, "servers", []):
            server.close()                        # no new connection: a proxy tries another
        try:
            await asyncio.wait_for(self.drain(), self.drain_seconds)
            deadline = max(started + self.drain_seconds,
                           time.monotonic() + SOCKETS_CLOSE_SECONDS)
            while time.monotonic() < deadline and any(
                    _open_socket(c) for c in self.server_state.connections):
                await asyncio.sleep(0.05)
            left = sum(1 for c in self.server_state.connections if _open_socket(c))
            if left:
                log.warning("%d sockets did not close in time: the stop closes them", left)
        except asyncio.TimeoutError:
            log.error("draining took more than %g s: stopping with what is left",
                      self.drain_seconds)
        except Exception:
            log.exception("draining failed: stopping")
        log.warning("drained in %.2f s; stopping", time.monotonic() - started)
        self.should_exit = True


def _wake_up(fut: asyncio.Future) -> None:
    if not fut.done():
        fut.set_result(None)


def _open_socket(connection: object) -> bool:
    """A WebSocket still open on this uvicorn connection (of any of its implementations)."""
    if getattr(connection, "handshake_complete", False):
        return True
    event = getattr(connection, "handshake_completed_event", None)
    return isinstance(event, asyncio.Event) and event.is_set()
