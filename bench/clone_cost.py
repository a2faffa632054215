"""Instructions a clone costs, and a clone with one move played on it, counted by cachegrind.

    python bench/clone_cost.py [PRESET] [PLAYERS] [CLONES]        # needs valgrind

Five positions, 60 random moves into hands of seeds 0..4 (their moves listed), are each
cloned CLONES times (default 200), once in a run that only clones and once in a run that
also plays the first listed move on every clone (the first move on a clone pays for what a
clone defers); each run is counted under ``valgrind --tool=cachegrind --cache-sim=no``
against the same run with no clones (start-up, imports and the positions), and the
difference is divided by the number of clones. Deterministic on a loaded machine.
"""

from __future__ import annotations

import os
import random
import re
import subprocess
import sys
import tempfile


def child(name: str, players: int, mode: str, clones: int) -> None:
    import shangyou
    games = []
    for seed in range(5):
        g = shangyou.new_game(name, players=players, seed=seed)
        rng = random.Random(seed)
        for _ in range(60):
            if g.over:
                break
            g.apply(rng.choice(g.legal_moves()))
        g.legal_moves()
        games.append(g)
    for _ in range(clones):
        for g in games:
            c = g.clone()
            if mode == "move" and not c.over:
                c.apply(c.legal_moves()[0])


def count(name: str, players: int, mode: str, clones: int) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        proc = subprocess.run(
            ["valgrind", "--tool=cachegrind", "--cache-sim=no",
             f"--cachegrind-out-file={os.path.join(tmp, 'cg.out')}", sys.executable, __file__,
             "--child", name, str(players), mode, str(clones)],
            capture_output=True, text=True, check=True)
    return int(re.search(r"I\s+refs:\s+([\d,]+)", proc.stderr).group(1).replace(",", ""))


def main(argv: list[str]) -> int:
    if argv and argv[0] == "--child":
        child(argv[1], int(argv[2]), argv[3], int(argv[4]))
        return 0
    name = argv[0] if argv else "sheng-ji"
    players = int(argv[1]) if len(argv) > 1 else 4
    clones = int(argv[2]) if len(argv) > 2 else 200
    for mode in ("clone", "move"):
        per = (count(name, players, mode, clones) - count(name, players, mode, 0)) / (5 * clones)
        print(f"{name} {players}p, {mode}: {per:,.0f} instructions"
              f"{' a clone' if mode == 'clone' else ' a clone and its first move'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
