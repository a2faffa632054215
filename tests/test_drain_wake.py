"""uvicorn's main loop under :class:`~shangyou.server.drain.DrainingServer`: it sleeps a
second between its ticks (uvicorn's own wakes ten times a second, on every idle node), and a
stop (uvicorn's signal handler sets ``should_exit``) wakes it at once, not at its next tick."""

from __future__ import annotations

import asyncio

import uvicorn

from shangyou.server import drain


async def _app(scope, receive, send) -> None:      # never called: no socket is served
    raise AssertionError(scope)


def test_a_stop_wakes_the_main_loop_between_its_ticks(monkeypatch):
    monkeypatch.setattr(drain, "TICK_SECONDS", 3600.0)     # no tick comes during the test
    config = uvicorn.Config(_app, log_config=None)
    config.load()

    async def main() -> list[int]:
        server = drain.DrainingServer(config, lambda: asyncio.sleep(0))
        ticks: list[int] = []
        on_tick = server.on_tick

        async def counted(counter: int) -> bool:
            ticks.append(counter)
            return await on_tick(counter)
        server.on_tick = counted                            # type: ignore[method-assign]
        running = asyncio.create_task(server.main_loop())
        while server._wake is None:                         # it sleeps until its next tick
            assert not running.done()
            await asyncio.sleep(0)
        assert ticks == [0]
        server.should_exit = True                           # as uvicorn's handler does
        await asyncio.wait_for(running, 60)
        return ticks
    # the first tick, then one as it wakes, which sees the stop: the answers dated each time
    assert asyncio.run(main()) == [0, 10]
