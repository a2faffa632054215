"""How the review rates each bot level's decisions (docs/review.md).

    PYTHONPATH=src python bench/review_levels.py --game zheng-shangyou/pagat --players 5 \\
        --hands 200 --worlds 16 --judge-worlds 256 --jobs 2

For each level, every hand ``h`` is dealt with seed ``seed + h``; seat 0 plays the level, the
other seats the heuristic bot; then seat 0's decisions are reviewed (``--worlds`` worlds to
find the best candidate, ``--judge-worlds`` fresh ones to judge the move made against it, no
time limit, so the figures do not depend on the machine; ``--first search``: the best move is
the hint's search at about ``--worlds`` worlds, as the server's review finds it). Each hand's marks are written as
one JSON line to ``--out`` (default ``bench/results/review_levels/``, one file per game,
level and setting) as soon as it is done; a run that is stopped goes on from there when
started again. Printed per level: the hands and decisions reviewed, the share rated good,
the counts of each mark and the mean loss.
"""

from __future__ import annotations

import argparse
import json
import sys
from multiprocessing import Pool
from pathlib import Path

import shangyou
from shangyou.bots import make_bot, play_out
from shangyou.review import MARKS, review_log

LEVELS = ("random", "greedy", "heuristic", "search:200")
OUT = Path(__file__).resolve().parent / "results" / "review_levels"


def one(args):
    game, players, level, hand, seed, worlds, judge, first = args
    g = shangyou.new_game(game, players=players, seed=seed + hand)
    bots = [make_bot(level if s == 0 else "heuristic", seed=seed * 1000 + hand * 10 + s)
            for s in range(players)]
    play_out(g, bots)
    r = review_log(g.log, 0, seconds=None, max_worlds=worlds, seed=hand, judge_worlds=judge,
                   best_by=first)
    return level, hand, [(d.mark, round(d.loss, 4)) for d in r.decisions]


def path_of(out: Path, a, level: str) -> Path:
    name = (f"{a.game.replace('/', '_')}_{a.players}p_{level.replace(':', '-')}"
            f"_s{a.seed}_w{a.worlds}_j{a.judge_worlds}"
            f"{'' if a.first == 'candidates' else '_' + a.first}.jsonl")
    return out / name


def load(path: Path) -> dict[int, list]:
    done: dict[int, list] = {}
    if path.exists():
        for line in path.read_text().splitlines():
            try:
                row = json.loads(line)
            except ValueError:          # a line cut short by a stopped run
                continue
            done[row["hand"]] = row["marks"]
    return done


def summary(a, level: str, hands: dict[int, list]) -> dict:
    marks = [tuple(m) for h in sorted(hands) if h < a.hands for m in hands[h]]
    counts = {m: sum(1 for x, _ in marks if x == m) for m in MARKS}
    n = len(marks)
    return {"game": a.game, "players": a.players, "level": level,
            "hands": sum(1 for h in hands if h < a.hands), "decisions": n,
            "good": round(counts["good"] / n, 3) if n else None, "counts": counts,
            "mean_loss": round(sum(x for _, x in marks) / n, 4) if n else None,
            "worlds": a.worlds, "judge_worlds": a.judge_worlds}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", default="zheng-shangyou/pagat")
    ap.add_argument("--players", type=int, default=5)
    ap.add_argument("--hands", type=int, default=20)
    ap.add_argument("--worlds", type=int, default=16)
    ap.add_argument("--judge-worlds", type=int, default=256)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--levels", default=",".join(LEVELS))
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--json", action="store_true", help="one JSON line per level")
    ap.add_argument("--first", default="candidates", choices=("candidates", "search"),
                    help="the review's first step: the best mean of the candidates (as these "
                    "figures were measured) or the hint's search at about --worlds worlds")
    a = ap.parse_args(argv)
    levels = a.levels.split(",")
    a.out.mkdir(parents=True, exist_ok=True)
    done = {lv: load(path_of(a.out, a, lv)) for lv in levels}
    tasks = [(a.game, a.players, lv, h, a.seed, a.worlds, a.judge_worlds, a.first)
             for lv in levels
             for h in range(a.hands) if h not in done[lv]]
    files = {lv: path_of(a.out, a, lv).open("a") for lv in levels}
    try:
        with Pool(a.jobs) as pool:
            for level, hand, marks in pool.imap_unordered(one, tasks):
                done[level][hand] = marks
                files[level].write(json.dumps({"hand": hand, "marks": marks}) + "\n")
                files[level].flush()
    finally:
        for f in files.values():
            f.close()
    for lv in levels:
        out = summary(a, lv, done[lv])
        if a.json:
            print(json.dumps(out))
            continue
        counts = out["counts"]
        print(f"{a.game} {a.players}p {lv:>11}: {out['hands']} hands, {out['decisions']:5d} "
              f"decisions, good {out['good']:.3f}, "
              + ", ".join(f"{m} {counts[m]}" for m in MARKS[1:])
              + f", mean loss {out['mean_loss']:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
