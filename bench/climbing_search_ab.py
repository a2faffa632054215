"""Paired A/B check of climbing search settings against the heuristic.

``zheng-shangyou/pagat-teams`` (4 players): every deal twice, the search team on seats 0+2,
then 1+3. ``--players 5`` (``zheng-shangyou/pagat``): one search seat against four heuristic
seats, the seat rotating with the deal (deal d: seat d % 5), one game per deal. One JSON line
per game goes to OUT (resumable). ``--set NAME=VALUE`` overrides a constant of
``bots/climbing_search.py`` (e.g. ``PLAYOUT_POLICY=fast``, ``MARGIN_SE=0.5``), so two settings
play the same deals with the same random numbers until their first different choice.
``--game PRESET --players N``: an individual preset (``zheng-shangyou/owen``, ``zheng-fen``) the
same way as pagat 5p. ``--report A B`` prints each file's figures and the paired difference over common games.

    PYTHONPATH=src python bench/climbing_search_ab.py runs/plan.jsonl --deals 30 --seed 11
    PYTHONPATH=src python bench/climbing_search_ab.py runs/fast.jsonl --deals 30 --seed 11 \\
        --set PLAYOUT_POLICY=fast
    PYTHONPATH=src python bench/climbing_search_ab.py --report runs/fast.jsonl runs/plan.jsonl
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import time

import shangyou
from shangyou.bots import climbing_heuristic, climbing_search


def play(game, players, seed, deal, rep):
    g = shangyou.new_game(game, players=players, seed=seed * 100003 + deal)
    teams = g.rules.teams
    mine = set(teams[rep]) if teams else {rep}
    rngs = [random.Random(seed * 1000 + deal * 10 + s) for s in range(players)]
    times = []
    while not g.over:
        s = g.to_act
        v = g.view(s)
        if s in mine:
            t = time.process_time()
            m = climbing_search.choose(v, rngs[s])
            if len(v["legal_moves"]) > 1:
                times.append(time.process_time() - t)
        else:
            m = climbing_heuristic.choose(v, rngs[s])
        g.apply(m)
    res = g.result
    if teams:
        tp = res["team_points"]
        score, other = tp[rep], tp[1 - rep]
        win = 1.0 if score > other else 0.0
    else:
        score = res["points"][rep]
        win = 1.0 if res["order"][0] == rep else 0.0
        other = sum(p for s, p in enumerate(res["points"]) if s != rep) / (players - 1)
    return dict(deal=deal, rep=rep, score=score, win=win, n=len(times), cpu=sum(times),
                cpu_max=max(times, default=0.0), **({} if teams else {"other": other}))


def ci(xs):
    n = len(xs)
    m = sum(xs) / n
    var = sum((x - m) ** 2 for x in xs) / (n - 1) if n > 1 else 0.0
    return m, 1.96 * math.sqrt(var / n)


def per_deal(rows, key):
    by = {}
    for r in rows.values():
        by.setdefault(r["deal"], []).append(r[key])
    return {d: sum(v) / len(v) for d, v in by.items()}


def report(paths, players):
    data = []
    for path in paths:
        rows = {(r["deal"], r["rep"]): r for r in map(json.loads, open(path))}
        data.append(rows)
        w, wh = ci(list(per_deal(rows, "win").values()))
        s, sh = ci(list(per_deal(rows, "score").values()))
        dec = sum(r["n"] for r in rows.values())
        cpu = sum(r["cpu"] for r in rows.values()) / max(1, dec)
        worst = max(r["cpu_max"] for r in rows.values())
        extra = ""
        if all("other" in r for r in rows.values()):
            field = sum(r["other"] for r in rows.values()) / len(rows)
            extra = f", a heuristic seat {field:.3f}, ratio {s / field:.2f}"
        elif players != 4:
            field = (3 - s) / (players - 1)        # 2 + 1 points a hand among the others
            extra = f", ratio to a heuristic seat {s / field:.2f}"
        print(f"{path}: {len(rows)} games, {len(per_deal(rows, 'win'))} deals: "
              f"wins {w:.3f} ± {wh:.3f}, score {s:.3f} ± {sh:.3f}{extra}; "
              f"cpu/decision {cpu:.3f} s (max {worst:.2f})")
    if len(data) == 2:
        common = data[0].keys() & data[1].keys()
        a = {k: data[0][k] for k in common}
        b = {k: data[1][k] for k in common}
        for key in ("win", "score"):
            da, db = per_deal(a, key), per_deal(b, key)
            m, h = ci([db[d] - da[d] for d in da])
            print(f"paired {key} (second - first), {len(da)} deals: {m:+.3f} ± {h:.3f}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out", nargs="?")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--game", help="an individual preset (zheng-shangyou/owen, zheng-fen, "
                    "...): one search seat against the heuristic, as with --players 5")
    ap.add_argument("--deals", type=int, default=20)
    ap.add_argument("--first", type=int, default=0)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--set", action="append", default=[])
    ap.add_argument("--report", nargs="+")
    a = ap.parse_args()
    if a.report:
        report(a.report, a.players)
        return
    for kv in a.set:
        k, _, v = kv.partition("=")
        old = getattr(climbing_search, k)
        setattr(climbing_search, k, type(old)(v))
    game = a.game or ("zheng-shangyou/pagat-teams" if a.players == 4 else "zheng-shangyou/pagat")
    done = set()
    if os.path.exists(a.out):
        done = {(r["deal"], r["rep"]) for r in map(json.loads, open(a.out))}
    for d in range(a.first, a.first + a.deals):
        reps = (0, 1) if a.players == 4 and not a.game else (d % a.players,)
        for rep in reps:
            if (d, rep) in done:
                continue
            r = play(game, a.players, a.seed, d, rep)
            with open(a.out, "a") as f:
                f.write(json.dumps(r) + "\n")


if __name__ == "__main__":
    main()
