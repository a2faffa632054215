"""How the review rates each bot level's decisions (docs/bots.md, "Advice and review").

    PYTHONPATH=src python bench/review_levels.py --game zheng-shangyou/pagat --players 5 \\
        --hands 200 --worlds 16 --jobs 16

For each level, every hand ``h`` is dealt with seed ``seed + h``; seat 0 plays the level, the
other seats the heuristic bot; then seat 0's decisions are reviewed (``--worlds`` worlds per
decision, no time limit, so the figures do not depend on the machine). Printed per level: the
decisions reviewed, the share rated good, the counts of each mark and the mean loss.
"""

from __future__ import annotations

import argparse
import json
import sys
from multiprocessing import Pool

import shangyou
from shangyou.bots import make_bot, play_out
from shangyou.review import MARKS, review_log

LEVELS = ("random", "greedy", "heuristic", "search:200")


def one(args):
    game, players, level, hand, seed, worlds = args
    g = shangyou.new_game(game, players=players, seed=seed + hand)
    bots = [make_bot(level if s == 0 else "heuristic", seed=seed * 1000 + hand * 10 + s)
            for s in range(players)]
    play_out(g, bots)
    r = review_log(g.log, 0, seconds=None, max_worlds=worlds, seed=hand)
    return level, [(d.mark, d.loss) for d in r.decisions]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", default="zheng-shangyou/pagat")
    ap.add_argument("--players", type=int, default=5)
    ap.add_argument("--hands", type=int, default=20)
    ap.add_argument("--worlds", type=int, default=16)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--levels", default=",".join(LEVELS))
    ap.add_argument("--json", action="store_true", help="one JSON line per level")
    a = ap.parse_args(argv)
    levels = a.levels.split(",")
    tasks = [(a.game, a.players, lv, h, a.seed, a.worlds) for lv in levels
             for h in range(a.hands)]
    rows: dict[str, list] = {lv: [] for lv in levels}
    with Pool(a.jobs) as pool:
        for level, marks in pool.imap_unordered(one, tasks):
            rows[level] += marks
    for lv in levels:
        marks = rows[lv]
        counts = {m: sum(1 for x, _ in marks if x == m) for m in MARKS}
        n = len(marks)
        out = {"game": a.game, "players": a.players, "level": lv, "hands": a.hands,
               "decisions": n, "good": round(counts["good"] / n, 3) if n else None,
               "counts": counts,
               "mean_loss": round(sum(x for _, x in marks) / n, 4) if n else None}
        if a.json:
            print(json.dumps(out))
        else:
            print(f"{a.game} {a.players}p {lv:>11}: {n:5d} decisions, good {out['good']:.3f}, "
                  + ", ".join(f"{m} {counts[m]}" for m in MARKS[1:])
                  + f", mean loss {out['mean_loss']:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
