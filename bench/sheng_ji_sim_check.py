"""What Zhao Pengyou gains from engine-free playouts (``Sim``), and whether a choice changes.

Positions: play-phase decisions of heuristic self-play (``--game``, ``--players``, ``--hands``
hands, every ``--every``-th decision with two moves or more). Each is searched twice with the
same random numbers and the default budget of simulated card plays, its CPU cap lifted (so the
figures do not depend on the machine's load): once with every playout on the game engine (as
before session 8) and once on ``Sim``. Prints the share of equal choices and the CPU time;
then, with the cap as the bot plays it, the worlds each way sees on average.

    PYTHONPATH=src python bench/sheng_ji_sim_check.py --hands 3 --every 4
"""

from __future__ import annotations

import argparse
import random
import time

from sheng_ji_race_check import positions     # bench/ is on the path when run as a script

from shangyou.bots import sheng_ji_search as search


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--game", default="sheng-ji/zhao-pengyou")
    ap.add_argument("--players", type=int, default=5)
    ap.add_argument("--hands", type=int, default=3)
    ap.add_argument("--every", type=int, default=4)
    ap.add_argument("--seed", type=int, default=700)
    a = ap.parse_args()
    views = positions(a.game, a.hands, a.every, a.seed, a.players, skip_pending=True)
    sim_from_world = search.Sim.from_world
    real_playout = search.playout
    count = [0]

    def counted(*args):
        count[0] += 1
        return real_playout(*args)
    search.playout = counted

    def run(use_sim, cap):
        search.Sim.from_world = sim_from_world if use_sim else (lambda *_: None)
        search.DEFAULT_CAP_SECONDS = cap
        picks, cpu, played = [], 0.0, 0
        for i, v in enumerate(views):
            count[0] = 0
            t = time.process_time()
            picks.append(search.choose(v, random.Random(i), strict=True))
            cpu += time.process_time() - t
            played += count[0]
        return picks, cpu, played

    cap = search.DEFAULT_CAP_SECONDS
    eng, eng_cpu, eng_n = run(False, 1e9)
    sim, sim_cpu, sim_n = run(True, 1e9)
    same = sum(x == y for x, y in zip(eng, sim))
    print(f"{a.game} {a.players}p: {len(views)} decisions ({a.hands} hands, every "
          f"{a.every}th), default budget without the cap: same choice {same}/{len(views)}, "
          f"{eng_n} and {sim_n} playouts; CPU a decision {eng_cpu / len(views):.3f} s on the "
          f"engine, {sim_cpu / len(views):.3f} s on Sim ({eng_cpu / sim_cpu:.2f}x)")
    _, eng_cpu, eng_n = run(False, cap)
    _, sim_cpu, sim_n = run(True, cap)
    print(f"with the {cap} s cap: engine {eng_n / len(views):.0f} playouts and "
          f"{eng_cpu / len(views):.3f} s a decision; Sim {sim_n / len(views):.0f} playouts and "
          f"{sim_cpu / len(views):.3f} s")


if __name__ == "__main__":
    main()
