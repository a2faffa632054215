"""The first bot's points a hand in a tournament folder, with its 95% interval over deals.

In a zero-sum game (Sheng ji: the levels one side gains the other loses) a line-up of one
level under test and the same level elsewhere (``learned:m.npz,heuristic,heuristic,heuristic``)
compares the tested seat with the level itself: were the tested seat a heuristic seat too,
every deal, played in every rotation with the same random numbers, would give the first bot
exactly 0 (an all-heuristic run of the same seed does: the check is kept as ``--check``).
So the first bot's mean, over deals of the means over their rotations, is its gain over the
heuristic in that seat, paired by deal.

    PYTHONPATH=src python bench/seat_gain.py FOLDER [--check BASELINE_FOLDER]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from learned_ab import first_bot_points

from shangyou.tournament.stats import mean_ci


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder", type=Path)
    ap.add_argument("--check", type=Path, help="an all-heuristic run: its first bot's points")
    args = ap.parse_args()
    config, per_deal = first_bot_points(args.folder)
    m, lo, hi = mean_ci(list(per_deal.values()))
    print(f"{config['game']} {config['bots']} seed {config['seed']}: {len(per_deal)} deals, "
          f"first bot {m:+.3f} [{lo:+.3f}, {hi:+.3f}] a hand")
    if args.check:
        _, base = first_bot_points(args.check)
        print(f"baseline {args.check}: {len(base)} deals, first bot's points per deal "
              f"{sorted(set(round(v, 9) for v in base.values()))[:5]}")


if __name__ == "__main__":
    main()
