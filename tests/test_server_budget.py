"""The worker processes' budget (server/budget.py, docs/operations.md "Worker processes"):
bots in a lane of their own, hints before reviews in the advice lane, bounded queues, and a
worker killed (SIGKILL) while bots, hints and reviews wait.

Real worker processes; jobs that must stay running wait for a file this test creates, so
nothing depends on how fast the machine is."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import pytest

from shangyou.server.budget import Busy, Dropped, Lane, Work
from shangyou.server.limits import Limits

pytestmark = pytest.mark.timeout(180)

WAIT = 60.0


def hold(path: str, value):
    """In a worker: wait until ``path`` exists, then answer ``value`` (and the worker)."""
    while not os.path.exists(path):
        time.sleep(0.01)
    return value


def die(code: int):
    os._exit(code)


async def until(pred, what: str) -> None:
    deadline = time.monotonic() + WAIT
    while not pred():
        assert time.monotonic() < deadline, what
        await asyncio.sleep(0.01)


def test_hints_go_before_reviews_and_queues_are_bounded(tmp_path):
    gate = str(tmp_path / "gate")

    async def main():
        lane = Lane("advice", 1, {"hint": 2, "review": 3})
        try:
            first = lane.submit(hold, gate, "r0", kind="review")
            await until(lambda: lane.running["review"] == 1, "the first review did not start")
            reviews = [lane.submit(hold, gate, f"r{i}", kind="review") for i in (1, 2, 3)]
            with pytest.raises(Busy):
                lane.submit(hold, gate, "r4", kind="review")
            hints = [lane.submit(hold, gate, f"h{i}", kind="hint") for i in (1, 2)]
            with pytest.raises(Busy):
                lane.submit(hold, gate, "h3", kind="hint")
            Path(gate).touch()
            assert await asyncio.gather(first, *reviews, *hints) == \
                ["r0", "r1", "r2", "r3", "h1", "h2"]
            with pytest.raises(Dropped):        # nobody wants it any more: it never runs
                await lane.submit(abs, -1, kind="review", wanted=lambda: False)
            order = [d.kind for d in lane.history]
            assert order == ["review", "hint", "hint", "review", "review", "review"], order
            # no review started while a hint waited
            assert all(d.waiting["hint"] == 0 for d in lane.history if d.kind == "review")
            assert lane.stats["hint.busy"] == lane.stats["review.busy"] == 1
            assert lane.stats["review.dropped"] == 1
        finally:
            lane.shutdown()

    asyncio.run(main())


def test_a_killed_worker_loses_no_queued_bot_move_and_answers_every_hint(tmp_path):
    """SIGKILL of the bots' worker and of the advice worker while bot moves, hints and review
    decisions wait behind running ones: new pools take over, the jobs the dead pools held
    (every bot move: the bots' lane hands them all to its pool; the one running hint) are
    tried once more, every bot move and every hint is answered."""
    gate = str(tmp_path / "gate")

    async def main():
        work = Work(Limits(hint_queue=4, review_jobs=4), bot_workers=1)
        try:
            bot0 = work.bots.submit(hold, gate, "b0")
            hint0 = work.advice.submit(hold, gate, "h0", kind="hint")
            await until(lambda: work.bots.pids() and work.advice.pids()
                        and sum(work.bots.running.values()) == 1
                        and sum(work.advice.running.values()) == 1, "no worker started")
            bots = [work.bots.submit(hold, gate, f"b{i}") for i in (1, 2, 3)]
            reviews = [work.advice.submit(hold, gate, f"r{i}", kind="review") for i in (1, 2)]
            hints = [work.advice.submit(hold, gate, f"h{i}", kind="hint") for i in (1, 2)]
            killed = work.bots.pids() + work.advice.pids()
            assert set(work.bots.pids()).isdisjoint(work.advice.pids())
            for pid in killed:
                os.kill(pid, signal.SIGKILL)
            await until(lambda: work.bots.stats["bot.retried"] == 4
                        and work.advice.stats["hint.retried"] == 1, "no retry after the kill")
            Path(gate).touch()
            assert await asyncio.gather(bot0, *bots) == ["b0", "b1", "b2", "b3"]
            assert await asyncio.gather(hint0, *hints, *reviews) == ["h0", "h1", "h2", "r1",
                                                                     "r2"]
            ran = {d.pid[0] for lane in (work.bots, work.advice) for d in lane.history}
            assert 0 in ran                  # the jobs running at the kill...
            assert not (ran & set(killed))     # ...finished in new workers only
            assert set(work.bots.pids()).isdisjoint(killed)
            # a job that kills its worker on every try fails alone, with a clear error
            lost = work.advice.submit(die, 3, kind="hint")
            after = work.advice.submit(abs, -7, kind="hint")
            with pytest.raises(BrokenProcessPool):
                await lost
            assert await after == 7
            assert work.advice.stats["hint.broken"] == 3
        finally:
            work.shutdown()

    asyncio.run(main())


def test_shutdown_cancels_what_waits(tmp_path):
    gate = str(tmp_path / "gate")

    async def main():
        lane = Lane("bots", 1, {"bot": None})
        running = lane.submit(hold, gate, 1)
        await until(lambda: lane.running["bot"] == 1, "the job did not start")
        waiting = lane.submit(hold, gate, 2)
        lane.shutdown()
        for f in (running, waiting):
            with pytest.raises(asyncio.CancelledError):
                await f
        with pytest.raises(asyncio.CancelledError):
            lane.submit(abs, 1)

    asyncio.run(main())


def test_hint_rates_per_seat_table_and_address():
    """:class:`Hints` admits a hint only within every rate (a refusal takes no token) and one
    in flight per seat, whatever socket asks."""
    from shangyou.server.advice import Hints
    from shangyou.server.limits import Clients
    from shangyou.server.model import ActionError, Table

    limits = Limits(hints_per_minute_seat=2, hints_per_minute_table=3,
                    hints_per_minute_address=4, allowance=("10.9.0.0/16",))
    lane = Lane("advice", 1, {"hint": limits.hint_queue})
    hints = Hints(limits, Clients(limits), lane)
    t1, t2, t3 = (Table(id=f"t{i}", game_name="zheng-shangyou/owen", players=4, options={})
                  for i in (1, 2, 3))

    def ask(table, seat, address="10.0.0.1") -> str:
        try:
            key = hints.admit(table, seat, address)
        except ActionError as e:
            return f"{e.code}: {e.message}"
        hints.release(key)
        return "ok"

    key = hints.admit(t1, 0, "10.0.0.1")
    assert ask(t1, 0, "10.0.0.2").startswith("rate_limited: a hint for your seat")
    hints.release(key)
    assert ask(t1, 0) == "ok"                                    # the seat's 2nd
    assert ask(t1, 0).endswith("a minute for your seat; try again later")
    assert ask(t1, 1) == "ok"                                    # the table's 3rd
    assert ask(t1, 2).endswith("a minute at this table; try again later")
    assert ask(t2, 0) == "ok"                                    # the address's 4th
    assert ask(t2, 1).endswith("a minute from your address; try again later")
    assert ask(t2, 1, "10.0.0.2") == "ok"                        # refused, it took no token
    assert [ask(t3, s, "10.9.1.1") for s in (0, 1, 2)] == ["ok"] * 3   # the allowance
    assert hints.peak == 1 and not hints.in_flight and not hints.in_flight_by
    assert hints.stats["rate_limited"] == 4
    # two hints in flight from one address, whatever the seats and tables
    t4, t5 = (Table(id=f"t{i}", game_name="zheng-shangyou/owen", players=4, options={})
              for i in (4, 5))
    held = [hints.admit(t4, 0, "10.0.0.9"), hints.admit(t5, 0, "10.0.0.9")]
    assert ask(t4, 1, "10.0.0.9").endswith("from your address are being worked out already")
    assert ask(t4, 1, "10.0.0.8") == "ok"
    hints.release(held.pop())
    assert ask(t4, 1, "10.0.0.9") == "ok"


def burn(seconds: float) -> float:
    """In a worker: use ``seconds`` of CPU."""
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass
    return seconds


def test_the_cpu_budget_makes_the_lane_rest():
    """A lane with a CPU budget (half a core, in bursts of 0.1 s) starts nothing while its
    burst is spent, until the CPU time used is earned back. The lane's clock is this test's,
    so that no wall-clock time decides anything."""
    now = [100.0]

    async def main():
        lane = Lane("advice", 1, {"hint": None}, cpu_share=0.5, cpu_burst=0.1)
        lane.clock = lambda: now[0]
        lane._cpu_stamp = now[0]
        try:
            assert await lane.submit(abs, -1) == 1          # the worker starts
            assert await lane.submit(burn, 0.3) == 0.3
            assert lane.cpu_tokens < 0.1 - 0.3 + 1e-9        # what the job used is owed
            second = lane.submit(abs, -2)
            assert lane.stats["rested"] == 1
            assert lane.queued("hint") == 1 and not lane.running["hint"]
            await asyncio.sleep(0.1)
            assert lane.queued("hint") == 1 and not second.done()
            now[0] += 0.5                                    # half a core: 0.25 s earned
            assert await second == 2
            assert lane.cpu_used >= 0.3
        finally:
            lane.shutdown()

    asyncio.run(main())
