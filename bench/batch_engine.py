"""Decisions per second of the batch engine in C (``env/batch_engine.py``) for pagat 5p, with
1 and 2 threads, against the Python paths it replaces, in one process.

Usage::

    python bench/batch_engine.py [--quick] [--rounds N] [--block SECONDS] [--envs N]
                                 [--threads 1,2] [--presets [--engine-only]] [--sheng-ji]
                                 [--escapes] [--json PATH]

Systems (pagat 5p, random legal ids, observations written at every decision):

* ``BatchSim`` (Python, every seat's decisions: the AEC env's) and ``engine aec`` (the same
  rows in C): a decision is one row's step;
* ``vector python`` (``ShangyouVectorEnv(engine="python")``, the single envs with random
  opponents) and ``vector C`` (the same env on the engine, ``copy=False``): a decision is one
  learner step (autoreset steps not counted; the opponents' moves are played inside).

``--sheng-ji``: the same systems for Sheng ji 4 players (``sheng-ji``: whole hands, the deal's
bids, the bury and the play, in C; games/sheng_ji/_core_batch.c).

``--presets``: instead, ``BatchSim`` against ``engine aec`` (1 thread) for every climbing
preset at its default table size (and pagat at 3 players), and the two-pack presets, the same
rounds and blocks; with ``--sheng-ji``, for the Sheng ji presets (``sheng-ji`` 4 and 6
players, one pack, Zhao Pengyou 5 and 7 players). ``--engine-only`` leaves ``BatchSim`` out
(to compare two builds of the engine: run it with each build's ``PYTHONPATH`` in turn; a
preset the build does not play is left out).

``--escapes``: instead, how many hands and episodes of the two-pack presets (and pagat and Owen
at their smallest tables) go to Python (decisions the engine does not list, docs/env.md):
``--envs`` rows of the engine (aec mode, random ids) and of the vector env (random opponents)
for ``--steps`` steps each.

The Python systems draw their ids with numpy from the mask; the engine's rows draw them in C
(``random_actions``: uniform over the mask, as numpy's). Rates are per second of wall-clock
time (threads run at once) and per CPU-second of the process (every thread's CPU time: on a
machine shared with other work, what one core does), the systems take turns in blocks of
``--block`` seconds in alternating order, each row gives the median over rounds (min-max),
ratios are taken per round against ``BatchSim`` (aec rows) and ``vector python`` (vector
rows). Nothing is pinned: the thread pool needs both cores. The load average is printed
before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from shangyou.env.batch import BatchSim
from shangyou.env.batch_engine import BatchEngine, available, config
from shangyou.env.vector import ShangyouVectorEnv

PRESET = "zheng-shangyou/pagat"


def loadavg() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


class PySim:
    def __init__(self, n: int, seed: int, preset: str = PRESET, players: int | None = 5,
                 **options):
        self.sim = BatchSim(preset, n_games=n, seed=seed, players=players, **options)
        self.rng = np.random.default_rng(seed)

    def run(self, seconds: float) -> tuple[int, float, float]:
        sim, rng = self.sim, self.rng
        decisions = 0
        t0 = time.perf_counter()
        c0 = time.process_time()
        end = t0 + seconds
        while True:
            sim.step(sim.random_actions(rng))
            decisions += sim.n_games
            now = time.perf_counter()
            if now >= end:
                return decisions, now - t0, time.process_time() - c0


class Engine:
    def __init__(self, n: int, seed: int, threads: int, preset: str = PRESET,
                 players: int | None = 5, **options):
        self.eng = BatchEngine(preset, n_envs=n, seed=seed, players=players, threads=threads,
                               **options)

    def run(self, seconds: float) -> tuple[int, float, float]:
        eng = self.eng
        n = eng.n_envs
        acts = np.zeros(n, np.int64)
        decisions = 0
        t0 = time.perf_counter()
        c0 = time.process_time()
        end = t0 + seconds
        while True:
            for _ in range(8):
                eng.random_actions(acts)
                eng.step(acts)
            decisions += 8 * n
            now = time.perf_counter()
            if now >= end:
                return decisions, now - t0, time.process_time() - c0


class Vector:
    def __init__(self, n: int, seed: int, engine: str, threads: int = 1, preset: str = PRESET,
                 players: int | None = 5):
        self.env = ShangyouVectorEnv(n, preset, copy=False, engine=engine, threads=threads,
                                     opponents="random", players=players)
        self.obs, _ = self.env.reset(seed=seed)
        self.waiting = np.zeros(n, bool)
        self.rng = np.random.default_rng(seed)
        eng = self.env.engine
        self.draw = (lambda mask: eng.random_actions()) if eng is not None else (
            lambda mask: np.argmax(self.rng.random(mask.shape) * mask, axis=1))

    def run(self, seconds: float) -> tuple[int, float, float]:
        env, obs, waiting, draw = self.env, self.obs, self.waiting, self.draw
        n = env.num_envs
        decisions = 0
        t0 = time.perf_counter()
        c0 = time.process_time()
        end = t0 + seconds
        while True:
            for _ in range(4):
                obs, r, term, trunc, _ = env.step(draw(obs["action_mask"]))
                decisions += n - int(waiting.sum())
                waiting = term | trunc
            now = time.perf_counter()
            if now >= end:
                self.obs, self.waiting = obs, waiting
                return decisions, now - t0, time.process_time() - c0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="2 rounds of 0.3 s blocks")
    ap.add_argument("--rounds", type=int, default=None)
    ap.add_argument("--block", type=float, default=None, help="seconds per block")
    ap.add_argument("--envs", type=int, default=1024, help="rows of the engine")
    ap.add_argument("--py-envs", type=int, default=64, help="rows of the Python systems")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--presets", action="store_true",
                    help="every climbing preset: BatchSim against the engine (1 thread)")
    ap.add_argument("--engine-only", action="store_true",
                    help="with --presets: the engine alone (no BatchSim)")
    ap.add_argument("--escapes", action="store_true",
                    help="how many hands and episodes go to Python, per preset")
    ap.add_argument("--steps", type=int, default=1500, help="steps of --escapes")
    ap.add_argument("--sheng-ji", action="store_true",
                    help="Sheng ji 4 players instead of pagat 5 players")
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    if not available():
        print("the batch engine is not built (or SHANGYOU_NO_C is set)", file=sys.stderr)
        return 1
    rounds = args.rounds or (2 if args.quick else 5)
    block = args.block or (0.3 if args.quick else 2.0)
    threads = [int(t) for t in args.threads.split(",")]
    load0 = loadavg()
    if args.presets:
        return presets(args, rounds, block, load0)
    if args.escapes:
        return escapes(args, load0)
    game = ("sheng-ji", 4) if args.sheng_ji else (PRESET, 5)
    systems: dict = {"BatchSim (Python)": PySim(args.py_envs, args.seed, *game)}
    for t in threads:
        systems[f"engine aec, {t} thread(s)"] = Engine(args.envs, args.seed, t, *game)
    systems["vector python"] = Vector(args.py_envs, args.seed, "python", 1, *game)
    for t in threads:
        systems[f"vector C, {t} thread(s)"] = Vector(args.envs, args.seed, "c", t, *game)
    for s in systems.values():
        s.run(0.1)                               # warm-up
    rates: dict[str, list[float]] = {k: [] for k in systems}
    cpu: dict[str, list[float]] = {k: [] for k in systems}
    names = list(systems)
    for r in range(rounds):
        for k in (names if r % 2 == 0 else names[::-1]):
            d, dt, dc = systems[k].run(block)
            rates[k].append(d / dt)
            cpu[k].append(d / dc)
        print(f"  round {r + 1}/{rounds}", file=sys.stderr, flush=True)
    title = "sheng-ji 4p" if args.sheng_ji else "pagat 5p"
    lines = [f"{title}; engine rows {args.envs}, Python rows {args.py_envs}; {rounds} rounds x "
             f"{block:g} s; {os.cpu_count()} CPUs; load {load0} at the start, {loadavg()} at "
             "the end", "",
             "| system | decisions/s (median, min-max) | x the Python system | decisions per "
             "CPU-second | x |", "|---|---:|---:|---:|---:|"]
    for k in names:
        base = rates["vector python" if k.startswith("vector") else "BatchSim (Python)"]
        v = rates[k]
        x = statistics.median(a / b for a, b in zip(v, base))
        c, cbase = cpu[k], cpu["vector python" if k.startswith("vector") else
                               "BatchSim (Python)"]
        xc = statistics.median(a / b for a, b in zip(c, cbase))
        lines.append(f"| {k} | {statistics.median(v):,.0f} ({min(v):,.0f}-{max(v):,.0f}) "
                     f"| {x:.1f}x | {statistics.median(c):,.0f} | {xc:.1f}x |")
    print("\n".join(lines))
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps({"rates": rates, "cpu_rates": cpu,
                                               "args": vars(args),
                                               "load": [load0, loadavg()]}, indent=1))
    return 0


TWO_PACKS = {"decks": 2}
PRESETS = [("zheng-shangyou/pagat", 5, {}), ("zheng-shangyou/pagat", 3, {}),
           ("zheng-shangyou/pagat-teams", 4, {}), ("zheng-shangyou/pagat-teams", 6, {}),
           ("zheng-shangyou/owen", 4, {}), ("zheng-shangyou/owen", 2, {}),
           ("zheng-shangyou/winner", 4, {}), ("zheng-fen", 4, {}),
           ("zheng-shangyou/pagat", 5, TWO_PACKS), ("zheng-shangyou/pagat", 8, TWO_PACKS),
           ("zheng-shangyou/winner", 4, TWO_PACKS), ("zheng-shangyou/winner", 8, TWO_PACKS)]
SHENG_JI_PRESETS = [("sheng-ji", 4, {}), ("sheng-ji", 6, {}), ("sheng-ji/single-deck", 4, {}),
                    ("sheng-ji/zhao-pengyou", 5, {}), ("sheng-ji/zhao-pengyou", 7, {})]


def _label(preset: str, n: int, options: dict) -> str:
    return f"{preset} {n}p" + (" two packs" if options.get("decks") == 2 else "")


def presets(args, rounds: int, block: float, load0: str) -> int:
    """BatchSim against the engine (1 thread) for each preset: decisions per CPU-second."""
    lines = [f"engine rows {args.envs}, Python rows {args.py_envs}, 1 thread; {rounds} rounds x "
             f"{block:g} s; load {load0} at the start, {{end}} at the end", "",
             "| preset | BatchSim decisions per CPU-second | engine | x |", "|---|---:|---:|---:|"]
    out: dict = {}
    for preset, n, options in (SHENG_JI_PRESETS if args.sheng_ji else PRESETS):
        label = _label(preset, n, options)
        if config(preset, n, **options) is None:
            print(f"  {label}: not played by this build", file=sys.stderr, flush=True)
            continue
        c = Engine(args.envs, args.seed, 1, preset, n, **options)
        c.run(0.1)
        py = None if args.engine_only else PySim(args.py_envs, args.seed, preset, n, **options)
        if py is not None:
            py.run(0.1)
        a: list[float] = []
        b: list[float] = []
        for r in range(rounds):
            for which, sys_ in ((a, py), (b, c)) if r % 2 == 0 else ((b, c), (a, py)):
                if sys_ is not None:
                    d, _, dc = sys_.run(block)
                    which.append(d / dc)
        out[label] = {"python": a, "engine": b}
        if py is None:
            lines.append(f"| {label} | | {statistics.median(b):,.0f} | |")
        else:
            x = statistics.median(q / p for p, q in zip(a, b))
            lines.append(f"| {label} | {statistics.median(a):,.0f} | "
                         f"{statistics.median(b):,.0f} | {x:.1f}x |")
        print(f"  {label}", file=sys.stderr, flush=True)
    return _report(lines, args, {"cpu_rates": out})


def _report(lines: list[str], args, data: dict) -> int:
    """The table printed (the load at the end filled in), the figures into ``--json``."""
    lines[0] = lines[0].replace("{end}", loadavg())
    print("\n".join(lines))
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps({**data, "args": vars(args)}, indent=1))
    return 0



ESCAPES = [("zheng-shangyou/pagat", n, TWO_PACKS) for n in range(3, 9)] + [
    ("zheng-shangyou/winner", n, TWO_PACKS) for n in range(4, 9)] + [
    ("zheng-shangyou/pagat", 3, {}), ("zheng-shangyou/owen", 2, {})]


def escapes(args, load0: str) -> int:
    """Per preset: the hands of the engine's aec rows (every seat deciding, random ids) and
    the episodes of the vector env's rows (random opponents) that went to Python, and the
    share of the decisions made there (aec: a row's steps while its hand is in Python)."""
    lines = [f"{args.envs} rows, {args.steps} steps each, random ids; load {load0} at the start, "
             "{end} at the end", "",
             "| preset | aec: hands to Python / hands | decisions in Python | "
             "vector env: episodes to Python / episodes | seconds |", "|---|---:|---:|---:|---:|"]
    out: dict = {}
    for preset, n, options in ESCAPES:
        label = _label(preset, n, options)
        t0 = time.perf_counter()
        eng = BatchEngine(preset, n_envs=args.envs, seed=args.seed, players=n, **options)
        acts = np.zeros(args.envs, np.int64)
        hands = in_py = 0
        for _ in range(args.steps):
            in_py += len(eng._py)
            eng.random_actions(acts)
            eng.step(acts)
            hands += int(eng.terminated.sum())
        vec = ShangyouVectorEnv(args.envs, preset, copy=False, engine="c", opponents="random",
                                players=n, **options)
        vec.reset(seed=args.seed)
        episodes = 0
        for _ in range(args.steps):
            _, _, term, trunc, _ = vec.step(vec.engine.random_actions())
            episodes += int((term | trunc).sum())
        dt = time.perf_counter() - t0
        out[label] = {"hands": hands, "hand_escapes": eng.escapes,
                      "decisions": args.envs * args.steps, "decisions_in_python": in_py,
                      "episodes": episodes, "episode_escapes": vec.escapes, "seconds": dt}
        lines.append(f"| {label} | {eng.escapes:,} / {hands:,} | "
                     f"{in_py / (args.envs * args.steps):.1%} | {vec.escapes:,} / {episodes:,} "
                     f"| {dt:.0f} |")
        print(f"  {label}", file=sys.stderr, flush=True)
    return _report(lines, args, {"escapes": out})


if __name__ == "__main__":
    sys.exit(main())
