"""CPU time of the learned level's decisions on the env's features, per family, and its model
file's size: a network of the trainer's layout (random weights, the width given) in every seat,
whole hands, ``time.process_time`` around each ``choose`` that the network makes.

    PYTHONPATH=src python bench/learned_decision.py [--hidden 128] [--hands 4]

With ``--model PATH`` (a model file, a re-ranker of ``shangyou.train.distill`` among them): that
model in every seat, on the games and table sizes its metadata names (a re-ranker's decisions
include the heuristic's move and the search's candidates it weighs).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np

import shangyou
from shangyou.bots.learned import LAYERS, LearnedBot, Network
from shangyou.env.features import FORMAT, PHASES, dims
from shangyou.train.league import deal

CASES = (("climbing", "zheng-shangyou/pagat", (4, 8)), ("climbing", "zheng-fen", (4, 6)),
         ("sheng-ji", "sheng-ji", (4, 6)), ("sheng-ji", "sheng-ji/zhao-pengyou", (5, 7)))


def model(family: str, game: str, hidden: int, rng) -> Network:
    s, m = dims(family)
    h2 = hidden // 2
    shapes = {"ws": (s, hidden), "wm": (m, hidden), "b1": (hidden,), "w2": (hidden, h2),
              "b2": (h2,), "w3": (h2, h2), "b3": (h2,), "w4": (h2,), "b4": ()}
    w = {k: (rng.normal(size=shapes[k]) * 0.05).astype(np.float32) for k in LAYERS}
    return Network(w, {"games": [game], "features": FORMAT, "family": family,
                       "phases": list(PHASES[family])})


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hidden", type=int, default=128)
    ap.add_argument("--hands", type=int, default=4)
    ap.add_argument("--model", type=Path, help="a model file instead of random weights")
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    print(f"hidden {args.hidden}; CPU ms per decision the network makes: mean, 99th pct, max")
    cases = CASES
    if args.model:
        loaded = Network.load(args.model)
        cases = tuple((loaded.meta["family"], g, tuple(loaded.meta.get("players") or (4,)))
                      for g in loaded.meta["games"])
    for family, game, sizes in cases:
        net = loaded if args.model else model(family, game, args.hidden, rng)
        with tempfile.TemporaryDirectory() as d:
            path = Path(d) / "m.npz"
            net.save(path)
            size = path.stat().st_size
        for n in sizes:
            times = []
            for h in range(args.hands):
                g = deal(game, n, 5000 + h)
                bots = [LearnedBot(s, network=net) for s in range(n)]
                while not g.over:
                    view = g.view(g.to_act)
                    bot = bots[g.to_act]
                    t0 = time.process_time()
                    move = bot.choose(view)
                    dt = time.process_time() - t0
                    if len(view["legal_moves"]) > 1 and bot.plays(view):
                        times.append(dt * 1000)
                    g.apply(move)
            t = np.asarray(times)
            print(f"{game:24s} {n}p: {len(t):5d} decisions, {t.mean():.2f} ms, "
                  f"p99 {np.percentile(t, 99):.2f} ms, max {t.max():.2f} ms; "
                  f"model {size / 1e6:.2f} MB")


if __name__ == "__main__":
    main()
