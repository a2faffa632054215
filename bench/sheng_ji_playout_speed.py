"""Playouts per CPU second of the Sheng ji search, with the compiled core and without.

Positions: play-phase decisions of heuristic self-play (``--game``, ``--players``, ``--hands``
hands, every ``--every``-th decision with two moves or more, none with a throw in progress).
Each round searches every position twice with the same random numbers and a budget of
``--iterations`` playouts (no CPU cap): once with the Sheng ji core on and once with the
Python reference (``core.use``; which comes first alternates by round). CPU time is
``time.process_time``; the figures are playouts per CPU second and their ratio, medians over the
rounds, and how many choices were the same both ways (all of them, as the core plays exactly
like the Python code).

    PYTHONPATH=src python bench/sheng_ji_playout_speed.py --hands 4 --every 4 --rounds 3
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from sheng_ji_race_check import positions     # bench/ is on the path when run as a script

from shangyou.bots import sheng_ji_search as search
from shangyou.games.sheng_ji import core


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--game", default="sheng-ji")
    ap.add_argument("--players", type=int, default=None)
    ap.add_argument("--hands", type=int, default=4)
    ap.add_argument("--every", type=int, default=4)
    ap.add_argument("--iterations", type=int, default=400)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seed", type=int, default=900)
    a = ap.parse_args()
    if not core.AVAILABLE:
        raise SystemExit("the Sheng ji core is not built")
    views = positions(a.game, a.hands, a.every, a.seed, a.players, skip_pending=True)
    real = search.playout
    count = [0]

    def counted(*args):
        count[0] += 1
        return real(*args)
    search.playout = counted

    def run(on: bool):
        core.use(on)
        picks, cpu, played = [], 0.0, 0
        for i, v in enumerate(views):
            count[0] = 0
            t = time.process_time()
            picks.append(search.choose(v, random.Random(i), iterations=a.iterations,
                                       strict=True))
            cpu += time.process_time() - t
            played += count[0]
        core.use(True)
        return picks, played / cpu

    rates = {True: [], False: []}
    ratios = []
    same = total = 0
    for r in range(a.rounds):
        order = (True, False) if r % 2 == 0 else (False, True)
        got = {on: run(on) for on in order}
        for on in order:
            rates[on].append(got[on][1])
        ratios.append(got[True][1] / got[False][1])
        same += sum(x == y for x, y in zip(got[True][0], got[False][0]))
        total += len(views)
    print(f"{a.game} ({a.players or 'default'} players): {len(views)} positions, "
          f"{a.iterations} playouts each, {a.rounds} rounds; same choice {same}/{total}")
    print(f"playouts per CPU second: Python {statistics.median(rates[False]):,.0f}, core "
          f"{statistics.median(rates[True]):,.0f}; core / Python {statistics.median(ratios):.2f}x "
          f"[{min(ratios):.2f}-{max(ratios):.2f}]")


if __name__ == "__main__":
    main()
