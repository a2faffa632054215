"""Instructions per random-play move, counted by cachegrind (deterministic on a loaded machine).

Usage::

    python bench/instructions.py [--warm=W] [PRESET] [PLAYERS] [HANDS]     # needs valgrind
    python bench/instructions.py [--warm=W] openspiel [HANDS]                # needs pyspiel

Runs the benchmark's loop (``new_game`` with seeds 0..HANDS-1, then ``legal_moves`` +
``random.choice`` + ``apply`` to the end of the hand, dealing included) under
``valgrind --tool=cachegrind --cache-sim=no``, once with HANDS hands and once with 0 (start-up
and imports), and prints the difference divided by the number of moves.  Defaults: pagat, 5
players, 40 hands.  ``--warm=W`` first plays W other hands (seeds from 100000) in both runs,
so the count is that of the steady state, with the engine's memo tables filled as in a long
timed run.  ``--child`` runs the loop itself (what valgrind runs).  It also prints the
instructions per whole hand (the moves of a hand and its deal).

``openspiel`` counts OpenSpiel's C++ ``dou_dizhu`` driven the same way from Python, as
``bench_core.py`` drives it (``legal_actions`` + ``random.choice`` + ``apply_action``, the
chance nodes of the deal by ``random.choice`` of ``chance_outcomes()``): per decision and per
whole game, so a preset's instructions per hand over OpenSpiel's per game is the per-game
ratio of the timed benchmarks (``bench_single.py``) without the machine's noise.
"""

from __future__ import annotations

import os
import random
import re
import subprocess
import sys
import tempfile


def play(name: str, players: int, hands: int, first: int = 0) -> int:
    import shangyou
    rng = random.Random(first)
    choice = rng.choice
    moves = 0
    for s in range(first, first + hands):
        g = shangyou.new_game(name, players=players, seed=s)
        while not g.over:
            g.apply(choice(g.legal_moves()))
            moves += 1
    return moves


def play_openspiel(hands: int, first: int = 0) -> int:
    import pyspiel
    game = pyspiel.load_game("dou_dizhu")
    choice = random.Random(first).choice
    moves = 0
    for _ in range(hands):
        s = game.new_initial_state()
        while not s.is_terminal():
            if s.is_chance_node():
                s.apply_action(choice(s.chance_outcomes())[0])
            else:
                s.apply_action(choice(s.legal_actions()))
                moves += 1
    return moves


def count(name: str, players: int, hands: int, warm: int) -> tuple[int, int]:
    """(instructions, moves) of one run under cachegrind."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "cg.out")
        proc = subprocess.run(
            ["valgrind", "--tool=cachegrind", "--cache-sim=no", f"--cachegrind-out-file={out}",
             sys.executable, __file__, "--child", name, str(players), str(hands), str(warm)],
            capture_output=True, text=True, check=True)
    refs = re.search(r"I\s+refs:\s+([\d,]+)", proc.stderr)
    moves = re.search(r"moves (\d+)", proc.stdout)
    return int(refs.group(1).replace(",", "")), int(moves.group(1))


def main(argv: list[str]) -> int:
    if argv and argv[0] == "--child":
        name, players, hands, warm = argv[1], int(argv[2]), int(argv[3]), int(argv[4])
        if name == "openspiel":
            play_openspiel(warm, first=100_000)
            print(f"moves {play_openspiel(hands)}")
            return 0
        import shangyou  # noqa: F401  (imported in both runs, so subtracted)
        play(name, players, warm, first=100_000)   # in both runs too, so subtracted
        print(f"moves {play(name, players, hands)}")
        return 0
    warm = 0
    if argv and argv[0].startswith("--warm="):
        warm = int(argv.pop(0)[7:])
    name = argv[0] if argv else "zheng-shangyou/pagat"
    if name == "openspiel":
        argv = [name, "3"] + argv[1:]
    players = int(argv[1]) if len(argv) > 1 else 5
    hands = int(argv[2]) if len(argv) > 2 else 40
    full, moves = count(name, players, hands, warm)
    base, _ = count(name, players, 0, warm)
    print(f"{name} {players}p, {hands} hands, {moves} moves"
          f"{f' after {warm} warm-up hands' if warm else ''}: "
          f"{(full - base) / moves:,.0f} instructions per move, "
          f"{(full - base) / hands:,.0f} per hand")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
