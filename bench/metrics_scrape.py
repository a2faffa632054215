"""What one scrape of ``/metrics`` costs a node's event loop, by tables in memory.

    PYTHONPATH=src python bench/metrics_scrape.py [--tables 0,1000,10000,100000] [--runs 20]

A real app (``create_app``, SQLite in a temporary folder, started with its lifespan) gets
``--tables`` tables in memory (``Table`` rows of every status, as many as asked, put straight
into the manager: the scrape reads only their status), then the text of ``/metrics`` is built
``--runs`` times, as the route builds it (``generate_latest`` of the app's registry, on one
thread, as the event loop would). Printed: the median CPU time of a build (the thread's own:
what the event loop spends, whatever else the machine runs), its median and slowest wall
time, and the size of the text (which does not grow with the tables: no label names one).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time

from prometheus_client import generate_latest

from shangyou.server.app import create_app
from shangyou.server.model import Table


async def measure(counts: list[int], runs: int) -> None:
    app = create_app(data_dir=tempfile.mkdtemp(prefix="shangyou-bench-"), bot_delay=0)
    async with app.router.lifespan_context(app):
        manager = app.state.manager
        registry = app.state.metrics_registry
        statuses = ("waiting", "playing", "over")
        for n in counts:
            manager.tables.clear()
            for i in range(n):
                t = Table(id=f"t{i:07d}", game_name="zheng-shangyou/owen", players=2,
                          options={}, status=statuses[i % 3])
                manager.tables[t.id] = t
            times, cpu = [], []
            for _ in range(runs):
                t0, c0 = time.perf_counter(), time.thread_time()
                text = generate_latest(registry)
                cpu.append(time.thread_time() - c0)
                times.append(time.perf_counter() - t0)
            print(f"{n:>7} tables: CPU median {statistics.median(cpu) * 1000:6.2f} ms "
                  f"(wall median {statistics.median(times) * 1000:6.2f} ms, slowest "
                  f"{max(times) * 1000:6.2f} ms), {len(text):,} bytes", flush=True)
        manager.tables.clear()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tables", default="0,1000,10000,100000")
    p.add_argument("--runs", type=int, default=20)
    a = p.parse_args()
    asyncio.run(measure([int(x) for x in a.tables.split(",")], a.runs))


if __name__ == "__main__":
    main()
