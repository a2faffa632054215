"""A fingerprint of seeded random play: one hash over every view of every state of seeded
random matches and hands of every preset and table size.

A speed change to the engine must leave the plays, their order and the views exactly as they
were, so run this before and after and compare the printed hashes::

    python bench/view_hash.py            # one line per preset/players, then the total
    python bench/view_hash.py --matches 2 --hands 5

Each state hashes the JSON of every seat's view (sorted keys), the listed legal moves in order
and the move chosen; the moves are chosen by ``random.Random(seed)`` among the listed ones.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys

import shangyou
from shangyou.errors import UnknownOption
from shangyou.registry import preset_info, preset_names


def fingerprint(name: str, players: int, seed: int, match: bool, h) -> int:
    make = shangyou.new_match if match else shangyou.new_game
    try:
        g = make(name, players=players, seed=seed)
    except UnknownOption:       # e.g. winner at 5+ players needs a second pack
        g = make(name, players=players, seed=seed, decks=2)
    rng = random.Random(seed * 7919 + players)
    steps = 0
    while not g.over and steps < 5000:
        for s in range(g.n):
            h.update(json.dumps(g.view(s), sort_keys=True).encode())
        legal = [str(m) for m in g.legal_moves()]
        h.update("\x1f".join(legal).encode())
        i = rng.randrange(len(legal))
        h.update(legal[i].encode())
        g.apply(g.legal_moves()[i])
        steps += 1
    for s in range(g.n):
        h.update(json.dumps(g.view(s), sort_keys=True).encode())
    h.update(json.dumps(g.log, sort_keys=True).encode())
    return steps


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--matches", type=int, default=2, help="seeded matches per table (default 2)")
    ap.add_argument("--hands", type=int, default=6, help="seeded single hands per table (6)")
    ap.add_argument("--only", default=None, help="only presets whose name contains this")
    args = ap.parse_args(argv)
    total = hashlib.sha256()
    for name in preset_names():
        if args.only and args.only not in name:
            continue
        for players in preset_info(name)["players"]:
            h = hashlib.sha256()
            steps = 0
            for seed in range(args.hands):
                steps += fingerprint(name, players, seed, False, h)
            for seed in range(args.matches):
                steps += fingerprint(name, players, 1000 + seed, True, h)
            digest = h.hexdigest()[:16]
            total.update(digest.encode())
            print(f"{name:28s} {players}p {steps:7d} states {digest}", flush=True)
    print(f"total {total.hexdigest()[:16]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
