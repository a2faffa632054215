"""Learner decisions per second: ``make_vec(id, vectorization_mode="vector_entry_point")``
(``ShangyouVectorEnv``) against ``make_vec(..., "sync")`` (Gymnasium's ``SyncVectorEnv`` of
the same single envs) and the single env ``gymnasium.make(id)`` stepped alone.

Usage::

    python bench/vec_env.py [--quick] [--rounds N] [--block SECONDS] [--envs N]
                            [--opponents LEVEL] [--view] [--engine auto|python] [--core N]
                            [--json PATH]

Each system plays random legal ids (uniform over the mask, drawn with numpy) against bots of
one level (``--opponents``, default random, the cheapest: the env's own cost shows most). A
decision is one learner step; the vector envs' autoreset steps (which play no id) are not
counted. ``--view`` plays the random level through its view, as every other level is
played (a subclass of ``RandomBot``: the single env's shortcut for the random level, which
draws from the game's listing, does not apply). Presets: pagat 5p and Sheng ji 4p.
With random opponents the vector entry point plays both on the batch engine in C
(``env/batch_engine.py``; bench/batch_engine.py measures it); ``--engine python`` keeps its
Python rows, as before the engine.
Everything runs in one process pinned to one core;
the systems take turns in blocks of ``--block`` seconds, in alternating order, and each row
gives the median over rounds (min-max); ratios are taken per round. Rates are per second of
this process's CPU time (``time.process_time``), so that time the process spends waiting for a
busy core is not counted; contention for caches still is, so compare ratios.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import gymnasium
import numpy as np

import shangyou.env  # noqa: F401  # pyflakes: unused, but registers the ids
from shangyou.bots.base import RandomBot

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_zsy as bz  # noqa: E402

class ViewRandom(RandomBot):
    """The random level, chosen from its view."""


IDS = {"pagat/5p": "shangyou/pagat-v0", "sheng-ji/4p": "shangyou/sheng-ji-v0"}


class Single:
    def __init__(self, env_id: str, n: int, seed: int, opponents: str):
        self.env = gymnasium.make(env_id, opponents=opponents)
        self.obs, _ = self.env.reset(seed=seed)
        self.rng = np.random.default_rng(seed)

    def run(self, seconds: float) -> tuple[int, float]:
        env, rng, obs = self.env, self.rng, self.obs
        flat = np.flatnonzero
        decisions = 0
        t0 = time.process_time()
        end = t0 + seconds
        while True:
            for _ in range(32):
                ids = flat(obs["action_mask"])
                obs, r, term, trunc, _ = env.step(int(ids[rng.integers(len(ids))]))
                decisions += 1
                if term or trunc:
                    obs, _ = env.reset()
            now = time.process_time()
            if now >= end:
                self.obs = obs
                return decisions, now - t0


class Vector:
    def __init__(self, env_id: str, n: int, seed: int, opponents: str, mode: str,
                 **kw):
        self.env = gymnasium.make_vec(env_id, num_envs=n, vectorization_mode=mode,
                                      opponents=opponents, **kw)
        self.obs, _ = self.env.reset(seed=seed)
        self.waiting = np.zeros(n, bool)
        self.rng = np.random.default_rng(seed)

    def run(self, seconds: float) -> tuple[int, float]:
        env, rng, obs, waiting = self.env, self.rng, self.obs, self.waiting
        n = env.num_envs
        decisions = 0
        t0 = time.process_time()
        end = t0 + seconds
        while True:
            for _ in range(4):
                mask = obs["action_mask"]
                actions = np.argmax(rng.random(mask.shape) * mask, axis=1)
                obs, r, term, trunc, _ = env.step(actions)
                decisions += n - int(waiting.sum())
                waiting = term | trunc
            now = time.process_time()
            if now >= end:
                self.obs, self.waiting = obs, waiting
                return decisions, now - t0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="2 rounds of 0.3 s blocks")
    ap.add_argument("--rounds", type=int, default=None)
    ap.add_argument("--block", type=float, default=None, help="seconds per block")
    ap.add_argument("--envs", type=int, default=16, help="rows of the vector envs")
    ap.add_argument("--opponents", default="random")
    ap.add_argument("--view", action="store_true",
                    help="random opponents chosen from their views (no shortcut)")
    ap.add_argument("--engine", choices=("auto", "python"), default="auto",
                    help="the vector entry point's rows: the batch engine where it plays "
                         "(auto) or Python")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--core", type=int, default=None)
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    rounds = args.rounds or (2 if args.quick else 5)
    block = args.block or (0.3 if args.quick else 2.0)
    cores = bz.pin(args.core)
    if args.view:
        if args.opponents != "random":
            ap.error("--view goes with --opponents random")
        args.opponents = ViewRandom
    systems = {}
    for label, env_id in IDS.items():
        systems[f"single {label}"] = Single(env_id, 1, args.seed, args.opponents)
        systems[f"sync x{args.envs} {label}"] = Vector(env_id, args.envs, args.seed,
                                                       args.opponents, "sync")
        systems[f"vector_entry_point x{args.envs} {label}"] = Vector(
            env_id, args.envs, args.seed, args.opponents, "vector_entry_point",
            engine=args.engine)
    for s in systems.values():
        s.run(0.1)                               # warm-up
    rates: dict[str, list[float]] = {k: [] for k in systems}
    names = list(systems)
    for r in range(rounds):
        for k in (names if r % 2 == 0 else names[::-1]):
            d, dt = systems[k].run(block)
            rates[k].append(d / dt)
        print(f"  round {r + 1}/{rounds}", file=sys.stderr, flush=True)
    who = "random (through views)" if args.view else args.opponents
    lines = [f"{args.envs} rows, opponents {who}, {rounds} rounds x {block:g} s, "
             f"pinned to {cores}, load {bz.loadavg()}", "",
             "| system | decisions/s (median, min-max) | x single | x sync |",
             "|---|---:|---:|---:|"]
    for label in IDS:
        one, sync = rates[f"single {label}"], rates[f"sync x{args.envs} {label}"]
        for k in (f"single {label}", f"sync x{args.envs} {label}",
                  f"vector_entry_point x{args.envs} {label}"):
            v = rates[k]
            xs = statistics.median(a / b for a, b in zip(v, one))
            xy = statistics.median(a / b for a, b in zip(v, sync))
            lines.append(f"| {k} | {statistics.median(v):,.0f} ({min(v):,.0f}-{max(v):,.0f}) "
                         f"| {xs:.2f}x | {xy:.2f}x |")
    print("\n".join(lines))
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        meta = {**vars(args), "opponents": who}
        Path(args.json).write_text(json.dumps({"rates": rates, "args": meta,
                                               "machine": bz.machine_info(),
                                               "load": bz.loadavg()}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
