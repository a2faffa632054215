"""The CPU a node's process spends on one group commit of one table's move (its store thread's
share of a move when the moves come slower than the commits: each batch one table):

    python bench/store_commit_cpu.py [--commits 2000] [--src DIR] [--beat]

On a private PostgreSQL (the tests' server, tests/pg_server.py): a node's ``Store`` (joined, a
table started), then ``--commits`` calls of ``add_moves`` with one move each, timed by this
process's CPU clock (``time.process_time``: the Python, SQLAlchemy and psycopg work, not the
server's), then 100 more with the Python function calls counted (``sys.setprofile``: a count
the machine's load does not change). ``--beat``: the same for the node's heartbeat
(``Store.beat``, what its lease thread does four times a lease, busy or idle, two nodes in
the database) instead of the commit. ``--src`` imports ``shangyou`` from another checkout's ``src`` (a tree before a
change). Prints JSON (docs/benchmarks-cluster-profile.md).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent



def _tree(src: str) -> str:
    """The commit of the checkout ``src`` belongs to (no machine's path in the results)."""
    try:
        return subprocess.run(["git", "-C", src, "rev-parse", "--short", "HEAD"], check=True,
                              capture_output=True, text=True).stdout.strip() or "unknown"
    except (OSError, subprocess.CalledProcessError):
        return "unknown"

def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--commits", type=int, default=2000)
    p.add_argument("--src", default=str(ROOT / "src"))
    p.add_argument("--beat", action="store_true",
                   help="time the node's heartbeat (Store.beat), not the group commit")
    a = p.parse_args()
    sys.path[:0] = [a.src, str(ROOT / "tests")]
    import pg_server

    from shangyou.server.store import Store
    pg = pg_server.PostgresServer(pg_server.find_bindir())
    pg.start()
    try:
        store = Store(pg.new_database("commits"), node="a")
        store.join(600_000)
        store.create_table("t0", "zheng-shangyou/owen", 2, {}, "greedy")
        store.start_match("t0", "m0", "zheng-shangyou/owen", 2, {}, 0, [], 1)
        version = 1

        def commit() -> None:
            nonlocal version
            version += 1
            store.add_moves([("t0", "m0", version, 0, "x", version, None)])
        if a.beat:
            Store(store.url, node="b").join(600_000)     # another node in the database

            def commit() -> None:                      # noqa: F811 - what --beat times
                kept, dead = store.beat(600_000)
                assert kept and not dead
        for _ in range(200):                       # warm the statement caches
            commit()
        cpu, wall = time.process_time(), time.perf_counter()
        for _ in range(a.commits):
            commit()
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        calls = 0                                  # counted, not timed: Python calls a commit

        def count(_frame, event, _arg) -> None:
            nonlocal calls
            calls += event == "call"
        sys.setprofile(count)
        for _ in range(100):
            commit()
        sys.setprofile(None)
        store.close()
    finally:
        pg.stop()
    print(json.dumps({"src": _tree(a.src), "commits": a.commits, "timed": "beat" if a.beat else "commit",
                      "cpu_ms_per_commit": round(1000 * cpu / a.commits, 3),
                      "wall_ms_per_commit": round(1000 * wall / a.commits, 3),
                      "python_calls_per_commit": calls / 100,
                      "load_average": [round(x, 2) for x in os.getloadavg()]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
