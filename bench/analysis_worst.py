"""The CPU time of one analysis (the analysis board, docs/analysis.md) in the worst states.

Usage::

    python bench/analysis_worst.py [--hands N] [--seed S] [--only TEXT] [--seconds X]

The states of ``bench/decision_worst.py``: every named constructed worst state of
``bench/legal_worst.py`` (two-pack climbing leads with up to millions of plays, their steps,
the Sheng ji follows and leads) and its variants, then for every preset x pack count x player
count the decision state with the most whole moves met in ``--hands`` random hands. In each,
:func:`shangyou.analysis.analyse` of the seat to act at the server's budget (``--seconds``,
default ``Limits.analysis_seconds``) is timed with ``time.process_time`` (this process's
CPU). Printed as Markdown: per state the CPU seconds, the worlds played out and the plays
listed (of how many legal); then the worst and the median.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import decision_worst as dw  # noqa: E402
import legal_worst as lw  # noqa: E402

from shangyou.analysis import NotAnalysable, analyse  # noqa: E402
from shangyou.server.limits import Limits  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hands", type=int, default=1)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--only", default=None, help="only presets whose name contains this")
    ap.add_argument("--seconds", type=float, default=Limits().analysis_seconds)
    a = ap.parse_args(argv)
    warm = lw.new_game("zheng-shangyou/pagat", 4, None, 0)
    analyse(warm.view(warm.to_act), seconds=0.05)
    states = dw.named_states() + dw.config_states(a.hands, a.seed, a.only)
    rows = []
    for label, build in states:
        g = build()
        if g.over or len(g.legal_moves()) < 2:
            continue
        view = g.view(g.to_act)
        t0 = time.process_time()
        try:
            out = analyse(view, seed=1, seconds=a.seconds)
        except NotAnalysable as e:
            print(f"  not analysed: {e}  {label}", file=sys.stderr)
            continue
        cpu = time.process_time() - t0
        rows.append((cpu, out["worlds"], out["listed"], out["legal"], label))
        print(f"  {cpu:6.3f} s {out['worlds']:3d} worlds {out['listed']:3d}/{out['legal']} "
              f"plays  {label}", file=sys.stderr, flush=True)
    print(f"# one analysis's CPU ({len(rows)} states, budget {a.seconds} s)\n")
    print("| state | CPU s | worlds | plays listed / legal |")
    print("|---|---:|---:|---:|")
    for cpu, worlds, listed, legal, label in sorted(rows, reverse=True)[:12]:
        print(f"| {label} | {cpu:.3f} | {worlds} | {listed} / {legal} |")
    cpus = [r[0] for r in rows]
    print(f"\nworst {max(cpus):.3f} s, median {statistics.median(cpus):.3f} s, "
          f"fewest worlds {min(r[1] for r in rows)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
