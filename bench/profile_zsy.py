"""cProfile of random play (the benchmark's loop) for one preset, to find engine hot spots.

Usage::

    python bench/profile_zsy.py [PRESET] [PLAYERS] [GAMES] [--sort tottime|cumulative] [--top N]

Defaults: zheng-shangyou/pagat, 5 players, 300 hands from seeds 0..GAMES-1.  Prints the top
functions by internal time and by cumulative time, and the share of time in legal-move
generation (``family.leads`` / ``family.follows``) versus the rest of the engine.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import random
import sys
import time

import shangyou


def play(name: str, players: int, games: int, seed: int = 0) -> int:
    rng = random.Random(seed)
    choice = rng.choice
    moves = 0
    for s in range(seed, seed + games):
        g = shangyou.new_game(name, players=players, seed=s)
        while not g.over:
            g.apply(choice(g.legal_moves()))
            moves += 1
    return moves


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("preset", nargs="?", default="zheng-shangyou/pagat")
    ap.add_argument("players", nargs="?", type=int, default=5)
    ap.add_argument("games", nargs="?", type=int, default=300)
    ap.add_argument("--top", type=int, default=20)
    args = ap.parse_args(argv)
    if hasattr(os, "sched_setaffinity"):
        try:
            os.sched_setaffinity(0, {int(os.environ.get("BENCH_CORE", "0"))})
        except OSError:
            pass
    play(args.preset, args.players, 5)  # warm-up
    t0 = time.perf_counter()
    moves = play(args.preset, args.players, args.games)
    plain = time.perf_counter() - t0
    prof = cProfile.Profile()
    prof.enable()
    play(args.preset, args.players, args.games)
    prof.disable()
    print(f"{args.preset} {args.players}p: {args.games} hands, {moves} moves, "
          f"{moves / plain:,.0f} moves/s without the profiler\n")
    st = pstats.Stats(prof)
    total = st.total_tt
    fam = {}
    for (fname, line, func), (cc, nc, tt, ct, callers) in st.stats.items():
        if func in ("leads", "follows", "legal_moves", "apply", "new_game", "_do_play",
                    "_play_moves"):
            fam[f"{func} ({os.path.basename(fname)}:{line})"] = ct
    print("cumulative share of the profiled time:")
    for k, v in sorted(fam.items(), key=lambda kv: -kv[1]):
        print(f"  {100 * v / total:5.1f}%  {k}")
    for key in ("tottime", "cumulative"):
        out = io.StringIO()
        pstats.Stats(prof, stream=out).strip_dirs().sort_stats(key).print_stats(args.top)
        text = out.getvalue()
        start = text.find("   ncalls")
        print(f"\ntop {args.top} by {key}:")
        print(text[start:].rstrip())
    return 0


if __name__ == "__main__":
    sys.exit(main())
