"""Instructions per decision of the batch engine's ``step``, counted by callgrind (deterministic
on a loaded machine), to compare two builds of the engine.

Usage::

    python bench/batch_instructions.py [PRESET] [PLAYERS] [ROWS] [STEPS]      # needs valgrind

Runs ``BatchEngine(PRESET, n_envs=ROWS, seed=0, players=PLAYERS)`` (aec mode, one thread)
for STEPS steps of random legal ids drawn in C (``random_actions``) under ``valgrind
--tool=callgrind --toggle-collect=batch_step``: only the instructions executed inside the
engine's ``step`` (both Batch types' C function is ``batch_step``) are counted, and printed
with their number per decision (ROWS * STEPS decisions). Defaults: pagat, 5 players, 1,024
rows, 40 steps. Run it with each build's ``PYTHONPATH`` in turn. ``--child`` runs the loop
itself (what valgrind runs).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile


def play(preset: str, players: int, rows: int, steps: int) -> None:
    from shangyou.env.batch_engine import BatchEngine
    eng = BatchEngine(preset, n_envs=rows, seed=0, players=players)
    for _ in range(steps):
        eng.step(eng.random_actions())


def main(argv: list[str]) -> int:
    if argv and argv[0] == "--child":
        play(argv[1], int(argv[2]), int(argv[3]), int(argv[4]))
        return 0
    preset = argv[0] if argv else "zheng-shangyou/pagat"
    players = int(argv[1]) if len(argv) > 1 else 5
    rows = int(argv[2]) if len(argv) > 2 else 1024
    steps = int(argv[3]) if len(argv) > 3 else 40
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "cg.out")
        proc = subprocess.run(
            ["valgrind", "--tool=callgrind", "--toggle-collect=batch_step",
             f"--callgrind-out-file={out}", sys.executable, __file__, "--child", preset,
             str(players), str(rows), str(steps)],
            capture_output=True, text=True, check=True)
    refs = int(re.search(r"Collected\s*:\s*(\d+)", proc.stderr).group(1))
    print(f"{preset} {players}p, {rows} rows x {steps} steps: {refs:,} instructions in step, "
          f"{refs / (rows * steps):,.1f} per decision")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
