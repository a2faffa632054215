"""Cloning a game for search: ``game.clone()`` against ``copy.deepcopy(game)``.

    python bench/bench_clone.py [--positions N]

For every preset, N positions from random play (seeded); at each, the best of 5 timings of a
batch of clones and of deep copies. Prints the median microseconds per copy and the ratio.
"""

from __future__ import annotations

import argparse
import copy
import random
import statistics
import time

import shangyou


def per_call(fn, number: int) -> float:
    best = float("inf")
    for _ in range(5):
        t = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - t) / number)
    return best * 1e6


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--positions", type=int, default=20)
    args = ap.parse_args()
    print("| preset | clone µs (median) | deepcopy µs (median) | ratio |")
    print("|---|---:|---:|---:|")
    for name in shangyou.preset_names():
        rng = random.Random(name)
        players = shangyou.preset_info(name)["defaults"]["players"]
        fast, deep = [], []
        for i in range(args.positions):
            g = shangyou.new_game(name, players=players, seed=i)
            for _ in range(rng.randrange(0, 60)):
                if g.over:
                    break
                g.apply(rng.choice(g.legal_moves()))
            fast.append(per_call(g.clone, 200))
            deep.append(per_call(lambda: copy.deepcopy(g), 10))
        f, d = statistics.median(fast), statistics.median(deep)
        print(f"| {name} | {f:.1f} | {d:.0f} | {d / f:.0f}× |", flush=True)


if __name__ == "__main__":
    main()
