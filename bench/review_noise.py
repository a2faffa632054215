"""How noisy the review's loss is (docs/review.md, "The noise, measured").

    PYTHONPATH=src python bench/review_noise.py --game sheng-ji --players 4 \\
        --level search:200 --hands 20 --worlds 16 --fresh 600

Hands are dealt and played as in ``bench/review_levels.py`` (seat 0 plays ``--level``, the
others the heuristic; hand ``h`` with seed ``seed + h``). At each of seat 0's decisions the
review's first step runs (every candidate on ``--worlds`` worlds; the best mean names the best
candidate); where that is not the move made, the best candidate and the move made are played
out on ``--fresh`` fresh worlds and every paired difference is kept. Each hand is one JSON line
in ``bench/results/review_noise/`` (a stopped run resumes). Printed from those worlds:

- the standard error of the paired difference over the first 64 and 256 fresh worlds;
- the share rated good by the loss measured on the first step's own worlds (less one standard
  error), and by the loss on the first 64 / 128 / 256 fresh worlds less one or two standard
  errors, with the marks whose mean on the remaining fresh worlds is below the threshold;
- of the decisions the first-step measure marks, how many are no loss on all the fresh worlds
  and how many lose the threshold by two standard errors;
- the decisions that lose the threshold by two standard errors over all the fresh worlds.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
from pathlib import Path

import shangyou
from shangyou import review as R
from shangyou.bots import make_bot, play_out

OUT = Path(__file__).resolve().parent / "results" / "review_noise"


def one_hand(game: str, players: int, level: str, hand: int, seed: int, worlds: int,
             fresh: int) -> list[dict]:
    g = shangyou.new_game(game, players=players, seed=seed + hand)
    play_out(g, [make_bot(level if s == 0 else "heuristic", seed=seed * 1000 + hand * 10 + s)
                 for s in range(players)])
    log = g.log
    options = {k: tuple(v) if isinstance(v, list) else v
               for k, v in (log.get("options") or {}).items()}
    options["players"] = log["players"]
    g = shangyou.new_game(log["game"], seed=log["seed"], **options)
    rng = random.Random(hand)
    rows = []
    for i, (s, text) in enumerate(log["moves"]):
        view = g.view(0) if s == 0 else None
        if view is not None and len(view["legal_moves"]) >= 2:
            played = R._as_listed(view, text)
            if game.startswith("sheng-ji"):
                judge = R._sheng_ji_judge(view, played, rng)
            else:
                judge = R._climbing_judge(view, played, rng)
            if judge is not None:
                values = {m: [] for m in judge.cands}
                for _ in range(worlds):
                    w = judge.world()
                    for m in judge.cands:
                        values[m].append(judge.value(w, m))
                means = {m: sum(v) / len(v) for m, v in values.items()}
                best = max(values, key=lambda m: (means[m], m == played))
                first = 0.0
                diffs = []
                if best != played:
                    mean, se = R._paired(values[best], values[played])
                    first = max(0.0, mean - se)
                    for _ in range(fresh):
                        w = judge.world()
                        diffs.append(round(judge.value(w, best) - judge.value(w, played), 4))
                rows.append({"i": i, "k": len(judge.cands), "same": best == played,
                             "first": round(first, 4), "diffs": diffs})
        g.apply(text)
    return rows


def mean_se(xs: list[float]) -> tuple[float, float]:
    n = len(xs)
    m = sum(xs) / n
    v = sum((d - m) ** 2 for d in xs) / (n - 1)
    return m, math.sqrt(v / n)


def report(rows: list[dict], t: float, unit: str) -> list[str]:
    n = len(rows)
    judged = [r for r in rows if r["diffs"]]
    out = [f"{n} decisions, {len(judged)} with another best move in the first step"]
    if not judged:
        return out
    fresh = len(judged[0]["diffs"])
    for k in (64, 256):
        if k < fresh:
            ses = sorted(mean_se(r["diffs"][:k])[1] for r in judged)
            out.append(f"standard error over {k} fresh worlds: median {statistics.median(ses):.3f}"
                       f" {unit}, 90% below {ses[int(0.9 * len(ses))]:.3f}")
    first_marks = [r for r in judged if r["first"] >= t]
    out.append(f"good by the first step's own worlds: {1 - len(first_marks) / n:.3f}")
    for k in (64, 128, 256):
        if k >= fresh:
            continue
        for z in (1, 2):
            marked = wrong = 0
            for r in judged:
                m, se = mean_se(r["diffs"][:k])
                if m > 0 and m - z * se >= t:
                    marked += 1
                    if mean_se(r["diffs"][k:])[0] < t:
                        wrong += 1
            out.append(f"good on {k} fresh worlds less {z} SE: {1 - marked / n:.3f} "
                       f"({marked} marked, {wrong} below the threshold on the other "
                       f"{fresh - k} worlds)")

    def loses(r) -> bool:               # the threshold by two standard errors, all worlds
        m, se = mean_se(r["diffs"])
        return m - 2 * se >= t

    none = sum(1 for r in first_marks if mean_se(r["diffs"])[0] <= 0)
    real = sum(1 for r in first_marks if loses(r))
    out.append(f"of the {len(first_marks)} the first step marks: {none} no loss on the "
               f"{fresh} fresh worlds, {real} lose the threshold by two standard errors")
    real_all = sum(1 for r in judged if loses(r))
    out.append(f"decisions that lose the threshold by two standard errors over all {fresh} "
               f"fresh worlds: {real_all} ({real_all / n:.3f})")
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", default="sheng-ji")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--level", default="search:200")
    ap.add_argument("--hands", type=int, default=20)
    ap.add_argument("--worlds", type=int, default=16)
    ap.add_argument("--fresh", type=int, default=600)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", type=Path, default=OUT)
    a = ap.parse_args(argv)
    a.out.mkdir(parents=True, exist_ok=True)
    path = a.out / (f"{a.game.replace('/', '_')}_{a.players}p_{a.level.replace(':', '-')}"
                    f"_s{a.seed}_w{a.worlds}_f{a.fresh}.jsonl")
    done: dict[int, list] = {}
    if path.exists():
        for line in path.read_text().splitlines():
            try:
                row = json.loads(line)
            except ValueError:
                continue
            done[row["hand"]] = row["rows"]
    with path.open("a") as f:
        for h in range(a.hands):
            if h not in done:
                done[h] = one_hand(a.game, a.players, a.level, h, a.seed, a.worlds, a.fresh)
                f.write(json.dumps({"hand": h, "rows": done[h]}) + "\n")
                f.flush()
    g = shangyou.new_game(a.game, players=a.players, seed=a.seed)
    family = R.family_of(a.game, getattr(g, "rules", None))
    rows = [r for h in range(a.hands) for r in done[h]]
    print(f"{a.game} {a.players}p {a.level}, {a.hands} hands, first step {a.worlds} worlds, "
          f"{a.fresh} fresh worlds:")
    for line in report(rows, R.THRESHOLDS[family][0], R.UNITS[family]):
        print("  " + line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
