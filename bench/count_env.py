"""A fixed, seeded workload for counting instructions (deterministic, unlike timings).

    python bench/count_env.py [--mode env|engine|batch] [--preset NAME] [--games N]

``env``: whole hands through the unwrapped AEC env (``agent_iter`` / ``last`` / random id from
the mask / ``step``), hand seeds 0..N-1, ids from ``random.Random(0)``. ``engine``: the same
number of random hands played with ``legal_moves`` + ``random.choice`` + ``apply``.
``batch``: ``BatchSim`` of 16 games stepped until N hands have finished.
Prints the number of steps (moves). Count instructions with cachegrind, and subtract a run
with ``--games 0`` (imports and set-up)::

    valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \\
        python bench/count_env.py --games 40
"""

from __future__ import annotations

import argparse
import random

import numpy as np

import shangyou
from shangyou.env import make


def run_env(preset: str, games: int) -> int:
    e = make(preset)
    rng = random.Random(0)
    flat = np.flatnonzero
    steps = 0
    for seed in range(games):
        e.reset(seed=seed)
        for _agent in e.agent_iter():
            obs, rew, term, trunc, info = e.last()
            if term or trunc:
                e.step(None)
                continue
            ids = flat(obs["action_mask"])
            e.step(int(ids[rng.randrange(len(ids))]))
            steps += 1
    return steps


def run_engine(preset: str, games: int) -> int:
    rng = random.Random(0)
    players = shangyou.preset_info(preset)["defaults"]["players"]
    steps = 0
    for seed in range(games):
        g = shangyou.new_game(preset, players=players, seed=seed)
        while not g.over:
            g.apply(rng.choice(g.legal_moves()))
            steps += 1
    return steps


def run_batch(preset: str, games: int) -> int:
    from shangyou.env.batch import BatchSim
    sim = BatchSim(preset, n_games=16, seed=0)
    rng = np.random.default_rng(0)
    steps = 0
    while int(sim.episodes.sum()) < games:
        sim.step(sim.random_actions(rng))
        steps += sim.n_games
    return steps


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mode", choices=("env", "engine", "batch"), default="env")
    ap.add_argument("--preset", default="zheng-shangyou/pagat")
    ap.add_argument("--games", type=int, default=40)
    args = ap.parse_args()
    run = {"env": run_env, "engine": run_engine, "batch": run_batch}[args.mode]
    print(run(args.preset, args.games))


if __name__ == "__main__":
    main()
