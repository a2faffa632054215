"""``/healthz`` and ``/readyz``: is the process alive, and can it serve now.

``/healthz`` answers ``{"ok": true}`` while the process runs its event loop: a supervisor
restarts a node that does not answer it. ``/readyz`` says whether the node can serve players
now, from five checks, each ``"ok"`` or why not:

- ``store``: a ``SELECT 1`` answered within :data:`TIMEOUT` seconds (in a thread of its own,
  never behind the writes queued for the database, and one at a time);
- ``redis`` (a node of several): a ``PING`` answered within :data:`TIMEOUT` seconds;
- ``leases`` (a node of several): the last renewal of this node's leases succeeded less than a
  lease ago (``--lease-seconds``);
- ``watchdog``: the watchdog (:mod:`shangyou.server.watchdog`) runs and looked at every table
  within the last :data:`WATCHDOG_LATE` seconds;
- ``draining``: the node is not stopping (a SIGTERM or SIGINT starts a drain, which hands its
  tables on: :mod:`shangyou.server.drain`).

It answers 200 with ``{"ready": true, "checks": {...}}``, or 503 with ``"ready": false`` and
``"failed"``: the names of the checks that failed. A load balancer sends no new player to a node
that is not ready; the node's tables resume by themselves once it is again.
"""

from __future__ import annotations

import asyncio

TIMEOUT = 2.0             # seconds the database and Redis have to answer a check
WATCHDOG_LATE = 10.0      # the watchdog's last round is at most this old


class Readiness:
    def __init__(self, manager, node=None) -> None:
        self.manager = manager
        self.node = node
        self._ping: asyncio.Task | None = None

    async def _store(self) -> str:
        # one ping at a time: a database that hangs does not gather threads
        if self._ping is None or self._ping.done():
            self._ping = asyncio.create_task(self.manager.store.ping(TIMEOUT))
        try:
            await asyncio.shield(self._ping)
        except asyncio.TimeoutError:
            return f"no answer within {TIMEOUT:g} s"
        except Exception as e:        # noqa: BLE001 - the answer names the kind of failure
            return f"unreachable ({e.__class__.__name__})"
        return "ok"

    async def _redis(self) -> str:
        try:
            await asyncio.wait_for(self.node.relay.redis.ping(), TIMEOUT)
        except asyncio.TimeoutError:
            return f"no answer within {TIMEOUT:g} s"
        except Exception as e:        # noqa: BLE001
            return f"unreachable ({e.__class__.__name__})"
        return "ok"

    async def check(self) -> tuple[bool, dict]:
        """Whether the node is ready, and the answer of each check."""
        checks: dict[str, str] = {}
        jobs = {"store": self._store()}
        if self.node is not None:
            jobs["redis"] = self._redis()
        for name, answer in zip(jobs, await asyncio.gather(*jobs.values())):
            checks[name] = answer
        if self.node is not None:
            checks["leases"] = "ok" if self.manager.lease.fresh() else \
                "not renewed within a lease"
        checks["watchdog"] = "ok" if self.manager.watchdog.running(WATCHDOG_LATE) else \
            "not running"
        checks["draining"] = "stopping: handing its tables on" if \
            getattr(self.manager, "draining", False) else "ok"
        failed = [k for k, v in checks.items() if v != "ok"]
        out = {"ready": not failed, "checks": checks}
        if failed:
            out["failed"] = failed
        return not failed, out
