"""The store's costs at 1,000 / 10,000 / 100,000 live tables, on a private PostgreSQL.

    nice -n 10 python bench/capacity.py [--tables 1000,10000,100000] [--durable] [--json FILE]

Starts a PostgreSQL server of its own (the tests' tests/pg_server.py: ``initdb`` in a temporary
folder, ``fsync`` off; ``--durable``: ``fsync``, ``synchronous_commit`` and
``full_page_writes`` on, as a real deployment runs), and for each size a fresh database, filled
in bulk (``COPY``) with that many tables of two nodes ``a`` and ``b`` (half each, both alive):
90% playing a match of 10 stored moves, 10% waiting, two seats each. Then, through the
project's own store (:class:`shangyou.server.store.Store`, one node's as the server runs it):

- **heartbeat**: ``beat()``, the node's one ``UPDATE`` of its row in ``nodes`` (and the read of
  which nodes are gone); beside it the **per-table renewal it replaced**, emulated: one
  ``UPDATE`` of every row a node owns, locked in id order (what the heartbeat was before);
- **owners**: the owner of one table (each socket opened on a node that does not run it);
- **orphan scan**: ``orphans(50)`` (each node, four times a lease) while every node lives, then
  with node ``a``'s lease run out: the first 50, and all of its playing tables;
- **take**: ``acquire()`` of one of ``a``'s tables by ``b`` (the compare-and-set), each;
- **lobby**: one page (``lobby(0, 50)``: the count and the sort of every listed table);
- **move**: one move stored alone (``add_moves`` of one, its own transaction), and moves stored
  by group commit (50 tables' moves in one transaction), per move; and how many moves a second
  one thread stores each way for 3 s.

Times are medians and 95th percentiles in milliseconds, of one client on the same machine as
the database (loopback), so they carry the machine's load; beside them, for each, the 8 kB
pages the database touched (``EXPLAIN (ANALYZE, BUFFERS)`` of the same statements, rolled
back), which no load changes. Not a test: figures go to docs/benchmarks-cluster.md.
"""

from __future__ import annotations

import argparse
import datetime as dt
import io
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))          # the tests' PostgreSQL server (no pytest)
sys.path.insert(0, str(ROOT / "src"))
import pg_server  # noqa: E402
import psycopg  # noqa: E402
from sqlalchemy import event, text  # noqa: E402

from shangyou.server.store import Store  # noqa: E402

GAME = "zheng-shangyou/owen"
MOVES = 10                  # stored moves of each playing match
LEASE_MS = 3_600_000        # the nodes' leases while measuring (ms): they do not run out


class DurablePostgres(pg_server.PostgresServer):
    """The tests' server, but durable: every commit reaches the disk before it returns."""

    def _start_postgres(self) -> bool:
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(
                [str(self.bindir / "postgres"), "-D", str(self.data), "-p", str(self.port),
                 "-k", str(self.root), "-c", "listen_addresses=127.0.0.1",
                 "-c", "fsync=on", "-c", "synchronous_commit=on",
                 "-c", "full_page_writes=on", "-c", "max_connections=100",
                 "-c", "shared_buffers=128MB", "-c", "timezone=UTC"],
                cwd=self.root, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                preexec_fn=pg_server._die_with_parent, **self._as_user())
        deadline = time.monotonic() + 120
        while self.proc.poll() is None and time.monotonic() < deadline:
            try:
                psycopg.connect(host="127.0.0.1", port=self.port, user=pg_server.ROLE,
                                dbname="postgres", connect_timeout=5).close()
                return True
            except psycopg.OperationalError:
                time.sleep(0.05)
        self.stop_process()
        return False


def _copy(conn, table: str, columns: str, rows) -> None:
    buf = io.StringIO()
    for row in rows:
        buf.write("\t".join("\\N" if v is None else str(v) for v in row))
        buf.write("\n")
    with conn.cursor() as cur:
        with cur.copy(f"COPY {table} ({columns}) FROM STDIN") as cp:
            cp.write(buf.getvalue())


def fill(dbname: str, port: int, n: int) -> None:
    """``n`` tables of nodes a and b (epoch 1 each, alive), in bulk."""
    now = dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)
    h = "ab" * 32
    with psycopg.connect(host="127.0.0.1", port=port, user=pg_server.ROLE,
                         dbname=dbname) as conn:
        conn.execute("INSERT INTO nodes (id, epoch, alive_until) VALUES "
                     "('a', 1, 0), ('b', 1, 0)")
        step = 20_000
        for lo in range(0, n, step):
            ids = range(lo, min(n, lo + step))
            playing = [i for i in ids if i % 10]
            _copy(conn, "tables", "id, game, players, options, bot_level, status, version, "
                  "match_id, created_at, host_hash, listed, touched_at, owner, owner_epoch",
                  ((f"t{i:07d}", GAME, 2, "{}", "greedy",
                    "playing" if i % 10 else "waiting", 2 + MOVES if i % 10 else 1,
                    f"m{i:07d}" if i % 10 else None, now - dt.timedelta(seconds=i), h, "t",
                    now, "ab"[i % 2], 1) for i in ids))
            _copy(conn, "seats", "table_id, seat, name, kind, token_hash, bot_level",
                  ((f"t{i:07d}", s, "p" if s == 0 else "bot", "human" if s == 0 else "bot",
                    h if s == 0 else None, None if s == 0 else "greedy")
                   for i in ids for s in (0, 1)))
            _copy(conn, "matches", "id, table_id, game, players, options, seed, names, "
                  "started_at", ((f"m{i:07d}", f"t{i:07d}", GAME, 2, "{}", 0,
                                  '["p", null]', now) for i in playing))
            _copy(conn, "moves", "match_id, idx, seat, text",
                  ((f"m{i:07d}", k, k % 2, "pass") for i in playing for k in range(MOVES)))
            conn.commit()
        conn.execute("ANALYZE")
        conn.commit()


def timed(fn, repeat: int) -> dict:
    out = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t) * 1000)
    out.sort()
    return {"median_ms": round(statistics.median(out), 3),
            "p95_ms": round(out[min(len(out) - 1, int(len(out) * 0.95))], 3), "n": repeat}


def explain(st: Store, fn, undo=None) -> dict:
    """The work the database does for ``fn``'s statements, whatever the machine's load: each
    statement run again under ``EXPLAIN (ANALYZE, BUFFERS)`` in a transaction rolled back; the
    8 kB pages it touched (shared buffers hit or read) and the server's execution time, summed
    over the statements. ``undo``: what takes ``fn``'s writes back before they are run again."""
    seen: list[tuple[str, object]] = []

    def record(conn, cursor, statement, params, context, executemany):
        if statement.lstrip().upper().startswith(("SELECT", "UPDATE", "INSERT", "WITH")):
            seen.append((statement, params))
    event.listen(st.engine, "before_cursor_execute", record)
    try:
        fn()
    finally:
        event.remove(st.engine, "before_cursor_execute", record)
    if undo is not None:
        undo()
    pages, ms = 0, 0.0
    with st.engine.connect() as c:
        for statement, params in seen:
            if isinstance(params, (list, tuple)) and params and isinstance(params[0], dict):
                params = params[0]           # an executemany: its first row
            plan = c.exec_driver_sql("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + statement,
                                     params).scalar()[0]
            pages += sum(plan["Plan"].get(k, 0) for k in ("Shared Hit Blocks",
                                                          "Shared Read Blocks"))
            ms += plan["Execution Time"]
        c.rollback()
    return {"pages": pages, "server_ms": round(ms, 3), "statements": len(seen)}


def rate(fn, seconds: float = 3.0) -> float:
    """How many times a second ``fn`` runs, for ``seconds`` (fn returns how many it did)."""
    done, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        done += fn()
    return round(done / (time.perf_counter() - t0), 1)


def measure(url: str, n: int) -> dict:
    a, b = Store(url, node="a"), Store(url, node="b")
    for st in (a, b):               # both alive, at the epoch their tables were taken in
        with st.engine.begin() as c:
            c.execute(text("UPDATE nodes SET alive_until = CAST(EXTRACT(EPOCH FROM "
                           "clock_timestamp()) * 1000 AS BIGINT) + :ms WHERE id = :id"),
                      {"ms": LEASE_MS, "id": st.node})
        st.epoch = 1
    out: dict = {"tables": n}
    out["heartbeat"] = {**timed(lambda: a.beat(LEASE_MS), 50),
                        **explain(a, lambda: a.beat(LEASE_MS))}
    assert a.epoch == 1, "the heartbeat lost the epoch"

    def per_table_renewal():
        with a.engine.begin() as c:
            c.execute(text("UPDATE tables SET version = version WHERE id IN "
                           "(SELECT id FROM tables WHERE owner = 'a' ORDER BY id FOR UPDATE)"))
    out["per_table_renewal_replaced"] = {**timed(per_table_renewal, 5),
                                         **explain(a, per_table_renewal)}
    one = "t0000002"
    out["owners_one"] = {**timed(lambda: a.owners([one]), 50),
                         **explain(a, lambda: a.owners([one]))}
    out["orphan_scan_all_alive"] = {**timed(lambda: b.orphans(50), 50),
                                    **explain(b, lambda: b.orphans(50))}
    assert b.orphans(50) == []
    quiet = dt.datetime.now(dt.timezone.utc).replace(tzinfo=None) - dt.timedelta(hours=1)
    out["lobby_page"] = {**timed(lambda: a.lobby(0, 50, quiet), 5 if n >= 100_000 else 20),
                         **explain(a, lambda: a.lobby(0, 50, quiet))}

    # moves: a's playing tables, each one move on from where it is
    mine = [f"t{i:07d}" for i in range(n) if i % 2 == 0 and i % 10]
    at = {tid: 2 + MOVES for tid in mine}
    cursor = [0]

    def next_moves(k: int) -> list[tuple]:
        rows = []
        for _ in range(k):
            tid = mine[cursor[0] % len(mine)]
            cursor[0] += 1
            at[tid] += 1
            rows.append((tid, "m" + tid[1:], at[tid] - 3, (at[tid] - 3) % 2, "pass", at[tid],
                         None))
        return rows
    def undo_last():
        cursor[0] -= 1
        tid = mine[cursor[0] % len(mine)]
        with a.engine.begin() as c:
            c.execute(text("DELETE FROM moves WHERE match_id = :m AND idx = :i"),
                      {"m": "m" + tid[1:], "i": at[tid] - 3})
            c.execute(text("UPDATE tables SET version = version - 1 WHERE id = :t"),
                      {"t": tid})
        at[tid] -= 1
    out["move_alone"] = {**timed(lambda: a.add_moves(next_moves(1)), 200),
                         **explain(a, lambda: a.add_moves(next_moves(1)), undo_last)}
    group = timed(lambda: a.add_moves(next_moves(50)), 20)
    out["move_in_group_of_50"] = {k: round(v / 50, 3) if k != "n" else v
                                  for k, v in group.items()}
    out["moves_per_s_alone"] = rate(lambda: (a.add_moves(next_moves(1)), 1)[1])
    out["moves_per_s_groups_of_50"] = rate(lambda: (a.add_moves(next_moves(50)), 50)[1])

    # node a's lease runs out: b's scan finds its matches, and b takes them
    a.beat(1)
    while not b.beat(LEASE_MS)[1]:
        time.sleep(0.01)
    out["orphan_scan_50_of_dead_node"] = {**timed(lambda: b.orphans(50), 50),
                                          **explain(b, lambda: b.orphans(50))}
    total = len(b.orphans(10 ** 7))
    out["orphan_scan_all_of_dead_node"] = {**timed(lambda: b.orphans(10 ** 7), 5),
                                           **explain(b, lambda: b.orphans(10 ** 7)),
                                           "found": total}
    orphans = iter(b.orphans(10 ** 7))
    out["take_one"] = timed(lambda: b.acquire(next(orphans)), 200)
    out["take_one"].update(explain(b, lambda: b.acquire(next(orphans))))
    a.close()
    b.close()
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--tables", default="1000,10000,100000")
    p.add_argument("--durable", action="store_true",
                   help="fsync, synchronous_commit and full_page_writes on")
    p.add_argument("--json", help="write the figures here too")
    a = p.parse_args(argv)
    bindir = pg_server.find_bindir()
    if bindir is None:
        sys.exit("PostgreSQL's programs (initdb, postgres) were not found")
    pg = (DurablePostgres if a.durable else pg_server.PostgresServer)(bindir)
    pg.start()
    results = []
    try:
        with psycopg.connect(host="127.0.0.1", port=pg.port, user=pg_server.ROLE,
                             dbname="postgres") as c:
            version = c.execute("SHOW server_version").fetchone()[0]
        for n in (int(x) for x in a.tables.split(",")):
            url = pg.new_database("capacity")
            dbname = url.rsplit("/", 1)[1]
            Store(url).close()                  # the schema
            t0 = time.perf_counter()
            fill(dbname, pg.port, n)
            filled = round(time.perf_counter() - t0, 1)
            r = measure(url, n)
            r["fill_s"] = filled
            results.append(r)
            print(json.dumps(r), flush=True)
    finally:
        pg.stop()
    summary = {"postgresql": version, "durable": a.durable, "results": results}
    if a.json:
        Path(a.json).write_text(json.dumps(summary, indent=1))
    print(f"\nPostgreSQL {version}, {'durable' if a.durable else 'fsync off'}; ms: "
          "median / p95")
    keys = [k for k in results[0] if isinstance(results[0][k], dict)]
    print(f"{'':32}" + "".join(f"{r['tables']:>30,}" for r in results))
    for k in keys:
        print(f"{k:32}" + "".join(f"{r[k]['median_ms']:>10} / {r[k]['p95_ms']:<8} "
                                 f"{r[k].get('pages', ''):>8}p" for r in results))
    for k in ("moves_per_s_alone", "moves_per_s_groups_of_50", "fill_s"):
        print(f"{k:32}" + "".join(f"{r[k]:>22}" for r in results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
