"""Paired comparison of two models of the learned bot from two tournament folders.

Both folders are ``shangyou tournament`` runs of the same game, table size and seed, with the
model under test as the first bot and the same other bots (``learned:new.npz,heuristic,...``
against ``learned,heuristic,...``): the deals are the same and so are the other seats' random
numbers, so the difference of the first bot's points, deal by deal (its mean over the deal's
rotations), measures one model against the other with far less noise than two separate
intervals. Prints each folder's first bot against the others, and the paired difference with
its 95% t interval over the common deals.

    PYTHONPATH=src python bench/learned_ab.py NEW_FOLDER OLD_FOLDER
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from shangyou.tournament.stats import mean_ci


def first_bot_points(folder: Path) -> tuple[dict, dict[int, float]]:
    """The run's configuration and, per finished deal, the first bot's mean points."""
    lines = (Path(folder) / "deals.jsonl").read_text().splitlines()
    config = json.loads(lines[0])["config"]
    per_deal = {}
    for line in lines[1:]:
        rec = json.loads(line)
        scores = [h["score"][h["seats"].index(0)] for h in rec["hands"]]  # seats: seat -> bot
        per_deal[rec["deal"]] = sum(scores) / len(scores)
    return config, per_deal


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("new", type=Path)
    ap.add_argument("old", type=Path)
    args = ap.parse_args()
    (cn, new), (co, old) = first_bot_points(args.new), first_bot_points(args.old)
    for key in ("game", "players", "seed"):
        if cn[key] != co[key]:
            raise SystemExit(f"the folders differ in {key}: {cn[key]} and {co[key]}")
    if cn["bots"][1:] != co["bots"][1:]:
        raise SystemExit(f"the other bots differ: {cn['bots'][1:]} and {co['bots'][1:]}")
    for name, folder in (("new", args.new), ("old", args.old)):
        res = json.loads((folder / "results.json").read_text())
        for pair in res["pairs"]:
            d = pair["score_difference"]
            print(f"{name}: {pair['a']} - {pair['b']}: {d['mean']:+.3f} "
                  f"[{d['low']:+.3f}, {d['high']:+.3f}] ({folder})")
    common = sorted(set(new) & set(old))
    m, lo, hi = mean_ci([new[d] - old[d] for d in common])
    print(f"paired over {len(common)} deals: new {sum(new[d] for d in common) / len(common):.3f}"
          f", old {sum(old[d] for d in common) / len(common):.3f} points a hand; "
          f"new - old {m:+.3f} [{lo:+.3f}, {hi:+.3f}]")


if __name__ == "__main__":
    main()
