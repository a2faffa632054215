"""How much the Sheng ji search's early stop (``RACE_STOP``) saves, and whether it changes a choice.

Positions: play-phase decisions of heuristic self-play (``--game``, ``--hands`` hands, every
``--every``-th decision with two candidates or more). Each is searched twice with the same
random numbers and a budget in playouts (``--iterations``, so the figures do not depend on the
machine's load): with the early stop and without. Prints the share of equal choices and of
playouts needed.

    PYTHONPATH=src python bench/sheng_ji_race_check.py --game sheng-ji --hands 4 --every 6
"""

from __future__ import annotations

import argparse
import random
import time

import shangyou
from shangyou.bots import sheng_ji_heuristic as heur
from shangyou.bots import sheng_ji_search as search


def positions(game, hands, every, seed, players=None, skip_pending=False):
    """Every ``every``-th play-phase view with two moves or more of ``hands`` heuristic hands
    (seeds ``seed``, ``seed + 1``, ...); ``skip_pending``: none with a throw in progress."""
    out = []
    for h in range(hands):
        g = shangyou.new_game(game, seed=seed + h,
                              **({"players": players} if players else {}))
        rng = random.Random(h)
        k = 0
        while not g.over:
            v = g.view(g.to_act)
            if v["phase"] == "play" and len(v["legal_moves"]) > 1 and \
                    not (skip_pending and v.get("pending")):
                if k % every == 0:
                    out.append(v)
                k += 1
            g.apply(heur.choose(v, rng))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--game", default="sheng-ji")
    ap.add_argument("--hands", type=int, default=4)
    ap.add_argument("--every", type=int, default=6)
    ap.add_argument("--iterations", type=int, default=600)
    ap.add_argument("--seed", type=int, default=500)
    a = ap.parse_args()
    views = positions(a.game, a.hands, a.every, a.seed)
    real = search.playout
    count = [0]

    def counted(*args):
        count[0] += 1
        return real(*args)
    search.playout = counted
    same = searched = 0
    used = {True: 0, False: 0}
    cpu = {True: 0.0, False: 0.0}
    for i, v in enumerate(views):
        picks = {}
        for stop in (False, True):
            search.RACE_STOP = stop
            count[0] = 0
            t = time.process_time()
            picks[stop] = search.choose(v, random.Random(i), iterations=a.iterations,
                                        strict=True)
            cpu[stop] += time.process_time() - t
            used[stop] += count[0]
        if used[False]:
            searched += 1
        same += picks[True] == picks[False]
    print(f"{a.game}: {len(views)} decisions ({a.hands} hands, every {a.every}th), "
          f"{a.iterations} playouts at most: same choice {same}/{len(views)}; playouts with "
          f"the early stop {used[True]} of {used[False]} ({used[True] / max(1, used[False]):.1%}); "
          f"CPU {cpu[True]:.1f} s of {cpu[False]:.1f} s")


if __name__ == "__main__":
    main()
