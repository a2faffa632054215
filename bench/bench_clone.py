"""Cloning a game for search: ``game.clone()`` against ``copy.deepcopy(game)``.

    python bench/bench_clone.py [--positions N]
    python bench/bench_clone.py --bytes [--positions N] [--match]

For every preset, N positions from random play (seeded); at each, the best of 5 timings of a
batch of clones and of deep copies. Prints the median microseconds per copy and the ratio.

``--bytes``: the memory a clone takes instead, counted by ``tracemalloc`` (not timed, so the
same on a loaded machine): the bytes allocated by 200 clones kept alive, divided by 200, at N
positions of single hands (``--match``: of whole matches, up to 400 moves in) of every preset
at its default table; prints the median and the largest.
"""

from __future__ import annotations

import argparse
import copy
import random
import statistics
import time
import tracemalloc

import shangyou


def per_call(fn, number: int) -> float:
    best = float("inf")
    for _ in range(5):
        t = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - t) / number)
    return best * 1e6


def clone_bytes(g, number: int = 200) -> float:
    g.clone()            # the first clone may leave something with the original (the log's chunk)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        clones = [g.clone() for _ in range(number)]
        after = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    del clones
    return (after - before) / number


def main_bytes(positions: int, match: bool) -> None:
    print("| preset | players | clone bytes (median) | clone bytes (largest) |")
    print("|---|---:|---:|---:|")
    make = shangyou.new_match if match else shangyou.new_game
    for name in shangyou.preset_names():
        rng = random.Random(name)
        players = shangyou.preset_info(name)["defaults"]["players"]
        sizes = []
        for i in range(positions):
            g = make(name, players=players, seed=i)
            for _ in range(rng.randrange(0, 400 if match else 80)):
                if g.over:
                    break
                g.apply(rng.choice(g.legal_moves()))
            if not g.over:
                g.legal_moves()
            sizes.append(clone_bytes(g))
        print(f"| {name} | {players} | {statistics.median(sizes):.0f} | {max(sizes):.0f} |",
              flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--positions", type=int, default=20)
    ap.add_argument("--bytes", action="store_true", help="bytes per clone (tracemalloc)")
    ap.add_argument("--match", action="store_true", help="with --bytes: positions of matches")
    args = ap.parse_args()
    if args.bytes:
        main_bytes(args.positions, args.match)
        return
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
