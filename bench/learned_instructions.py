"""Instructions per decision of the learned level, counted by cachegrind (deterministic on a
loaded machine), to compare two versions of the code on the same positions.

Usage::

    python bench/learned_instructions.py [--players 4] [--deals 60]     # needs valgrind

Plays DEALS deals (seeds 5100 and up) of pagat at PLAYERS seats, the learned level in seat 0
and the heuristic in the others, and keeps every view of seat 0 with more than one legal move.
Then ``LearnedBot.choose`` decides each of them under ``valgrind --tool=cachegrind
--cache-sim=no``, once over every view and once over none (start-up, imports, loading the
views and the models), and the difference is divided by the number of views. It prints that,
and the CPU time of the same loop without valgrind. Run it with each version's
``PYTHONPATH`` in turn: the views are the same where both versions play the same moves.
``--child FILE REPS`` runs the loop itself (what valgrind runs).
"""

from __future__ import annotations

import argparse
import os
import pickle
import re
import subprocess
import sys
import tempfile
import time


def collect(players: int, deals: int) -> list[dict]:
    import shangyou
    from shangyou.bots.base import make_bot
    views = []
    for deal in range(deals):
        bots = [make_bot("learned", 1)] + [make_bot("heuristic", i) for i in range(2, players + 1)]
        g = shangyou.new_game("zheng-shangyou/pagat", players=players, seed=5100 + deal)
        while not g.over:
            s = g.to_act
            v = g.view(s)
            if s == 0 and len(v["legal_moves"]) > 1:
                views.append(v)
            g.apply(bots[s].choose(v))
    return views


def decide(path: str, reps: int) -> float:
    """CPU seconds a decision over the views in ``path`` (``reps`` times; 0: load only)."""
    from shangyou.bots.base import make_bot
    from shangyou.bots.learned import load_model, shipped_models
    with open(path, "rb") as f:
        views = pickle.load(f)
    for paths in shipped_models().values():     # the models are loaded before any decision
        for p in paths:
            load_model(p)
    bot = make_bot("learned", 1)
    t = time.process_time()
    for _ in range(reps):
        for v in views:
            bot.choose(v)
    return (time.process_time() - t) / max(1, reps * len(views))


def count(path: str, reps: int) -> int:
    proc = subprocess.run(
        ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
         sys.executable, __file__, "--child", path, str(reps)],
        capture_output=True, text=True, check=True,
        env={**os.environ, "PYTHONHASHSEED": "0", "OPENBLAS_NUM_THREADS": "1"})
    return int(re.search(r"I\s+refs:\s+([\d,]+)", proc.stderr).group(1).replace(",", ""))


def main(argv: list[str]) -> int:
    if argv and argv[0] == "--child":
        decide(argv[1], int(argv[2]))
        return 0
    ap = argparse.ArgumentParser()
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--deals", type=int, default=60)
    args = ap.parse_args(argv)
    views = collect(args.players, args.deals)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "views.pkl")
        with open(path, "wb") as f:
            pickle.dump(views, f)
        cpu = decide(path, 3)
        per = (count(path, 1) - count(path, 0)) / len(views)
    print(f"pagat {args.players}p, {len(views)} decisions of the learned seat: "
          f"{per / 1e6:.3f} M instructions a decision; {cpu * 1e3:.3f} ms of CPU (3 passes)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
