"""Paired A/B check of Sheng ji search versions against the heuristic (``sheng-ji``, 4 players).

Plays every deal twice (the search team on seats 0+2, then 1+3; the heuristic team on the
others) with one version of ``bots/sheng_ji_search.py`` and appends one JSON line per hand to
OUT (resumable). ``--module`` takes another copy of the module (e.g. an older commit's,
``git show REV:src/shangyou/bots/sheng_ji_search.py > old.py``), so two versions play the same
deals with the same random numbers until their first different choice. ``--report`` prints the
win rate (Wilson interval), the CPU time per play decision with a choice (``process_time``:
mean and max) and, for a second file, the paired difference over the hands both played.

    PYTHONPATH=src python bench/sheng_ji_search_ab.py runs/new.jsonl --seed 11 --deals 30
    PYTHONPATH=src python bench/sheng_ji_search_ab.py runs/old.jsonl --seed 11 --deals 30 --module old.py
    PYTHONPATH=src python bench/sheng_ji_search_ab.py --report runs/old.jsonl runs/new.jsonl

``--set NAME=VALUE`` sets a constant of the module before play (e.g. ``DEFAULT_CAP_SECONDS=0.05``
with ``DEFAULT_WORK=1000000000 MAX_WORLDS=1000000``, so that only the CPU cap stops a decision).
Each line also holds ``gain``: the levels the search team went up (its opponents' levels with a
minus sign), the report's second, finer measure.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import random
import time

import shangyou
from shangyou.bots import sheng_ji_heuristic as heur


def load(path):
    if not path:
        from shangyou.bots import sheng_ji_search
        return sheng_ji_search
    spec = importlib.util.spec_from_file_location("shangyou.bots._ab_version", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def play(mod, seed, rep):
    g = shangyou.new_game("sheng-ji", players=4, seed=seed)
    rngs = [random.Random(seed * 100 + rep * 10 + s) for s in range(4)]
    times = []
    while not g.over:
        s = g.to_act
        v = g.view(s)
        if s % 2 == rep:
            t = time.process_time()
            m = mod.choose(v, rngs[s])
            dt = time.process_time() - t
            if v["phase"] == "play" and len(v["legal_moves"]) > 1:
                times.append(dt)
        else:
            m = heur.choose(v, rngs[s])
        g.apply(m)
    last = g.history[-1]
    winners = last["declarers"] if last["change"]["side"] == "declarers" else last["opponents"]
    win = all(s % 2 == rep for s in winners)
    levels = last["change"]["levels"]
    return dict(win=win, gain=levels if win else -levels, n=len(times), cpu_sum=sum(times),
                cpu_max=max(times, default=0.0))


def wilson(k, n, z=1.96):
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return c - h, c + h


def report(paths):
    data = []
    for path in paths:
        rows = {(r["seed"], r["rep"]): r for r in map(json.loads, open(path))}
        data.append(rows)
        n = len(rows)
        k = sum(r["win"] for r in rows.values())
        lo, hi = wilson(k, n)
        dec = sum(r["n"] for r in rows.values())
        cpu = sum(r["cpu_sum"] for r in rows.values()) / max(1, dec)
        worst = max(r["cpu_max"] for r in rows.values())
        print(f"{path}: search wins {k}/{n} = {k / n:.3f} [{lo:.3f}, {hi:.3f}]; CPU per play "
              f"decision: mean {cpu:.3f} s, max {worst:.3f} s ({dec} decisions)")
    if len(data) == 2:
        keys = sorted(set(data[0]) & set(data[1]))
        d = [data[1][k]["win"] - data[0][k]["win"] for k in keys]
        n = len(d)
        m = sum(d) / n
        sd = (sum((x - m) ** 2 for x in d) / max(1, n - 1)) ** 0.5
        print(f"second - first over {n} hands: wins {m:+.3f} +- {1.96 * sd / n ** 0.5:.3f} (95%)")
        if all("gain" in data[i][k] for i in (0, 1) for k in keys):
            for i in (0, 1):
                g = [data[i][k]["gain"] for k in keys]
                mi = sum(g) / n
                si = (sum((x - mi) ** 2 for x in g) / max(1, n - 1)) ** 0.5
                print(f"  {paths[i]}: levels gained a hand {mi:+.3f} +- {1.96 * si / n ** 0.5:.3f}")
            d = [data[1][k]["gain"] - data[0][k]["gain"] for k in keys]
            m = sum(d) / n
            sd = (sum((x - m) ** 2 for x in d) / max(1, n - 1)) ** 0.5
            print(f"second - first: levels gained a hand {m:+.3f} +- "
                  f"{1.96 * sd / n ** 0.5:.3f} (95%, paired)")


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("out", nargs="+")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--deals", type=int, default=30)
    ap.add_argument("--module", default=None, help="a copy of sheng_ji_search.py to play instead")
    ap.add_argument("--report", action="store_true")
    ap.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                    help="set a constant of the search module (a number)")
    o = ap.parse_args(argv)
    if o.report:
        return report(o.out)
    mod = load(o.module)
    for item in o.set:
        name, value = item.split("=", 1)
        if not hasattr(mod, name):
            raise SystemExit(f"the search module has no {name}")
        setattr(mod, name, type(getattr(mod, name))(float(value)))
    out = o.out[0]
    done = set()
    if os.path.exists(out):
        done = {(r["seed"], r["rep"]) for r in map(json.loads, open(out))}
    for d in range(o.deals):
        seed = o.seed * 100000 + d
        for rep in (0, 1):
            if (seed, rep) in done:
                continue
            r = play(mod, seed, rep)
            r.update(seed=seed, rep=rep)
            with open(out, "a") as f:
                f.write(json.dumps(r) + "\n")


if __name__ == "__main__":
    main()
