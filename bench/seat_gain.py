"""The first bot's points a hand in a tournament folder over the table's mean, with its 95%
interval over deals.

In a constant-sum game (Sheng ji: the levels one side gains the other loses; Zheng Fen: the
100 card points of a pack are shared out) a line-up of one
level under test and the same level elsewhere (``learned:m.npz,heuristic,heuristic,heuristic``)
compares the tested seat with the level itself: were the tested seat a heuristic seat too,
every deal, played in every rotation with the same random numbers, would give the first bot
its share, the table's mean, exactly (an all-heuristic run of the same seed does: the check
is kept as ``--check``). So the first bot's points less the table's mean, over deals of the
means over their rotations, is its gain over the heuristic in that seat, paired by deal. The
same pairing is printed for its place (negative: it finishes earlier) and its rate of going out
first (positive: more often), whatever the game's scoring.

With ``--against K`` the first bot is compared with the bot listed K-th (0-based) at the same
table instead of with the table's mean, deal by deal (``learned,search,heuristic,heuristic
--against 1``: the learned seat less the search's, by points, place and going out first).

Several folders (the same levels in the same seats, on other seeds; a level's model file may
differ) are pooled: their deals, each one sample.

    PYTHONPATH=src python bench/seat_gain.py FOLDER [FOLDER ...] [--check BASELINE_FOLDER] [--against K]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import json

from shangyou.tournament.stats import mean_ci


def first_bot_points(folder: Path, key: str = "score",
                     against: int | None = None) -> tuple[dict, dict[int, float]]:
    """The run's configuration and, per finished deal, the first bot's ``key`` (``score``;
    ``place``; ``win``: out first) less the table's mean (or less the bot listed
    ``against``-th), averaged over the deal's rotations."""
    lines = (Path(folder) / "deals.jsonl").read_text().splitlines()
    config = json.loads(lines[0])["config"]
    per_deal = {}
    for line in lines[1:]:
        rec = json.loads(line)
        gains = [h[key][h["seats"].index(0)] - (sum(h[key]) / len(h[key]) if against is None
                                                 else h[key][h["seats"].index(against)])
                 for h in rec["hands"]]              # seats: seat -> bot
        per_deal[rec["deal"]] = sum(gains) / len(gains)
    return config, per_deal


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder", type=Path, nargs="+")
    ap.add_argument("--check", type=Path, help="an all-heuristic run: its first bot's points")
    ap.add_argument("--against", type=int, default=None,
                    help="compare with the bot listed at this index (0-based), not the mean")
    args = ap.parse_args()
    runs = [first_bot_points(f, against=args.against) for f in args.folder]
    config = runs[0][0]
    levels = [[b.split(":")[0] for b in c["bots"]] for c, _ in runs]     # learned:FILE -> learned
    if any(lv != levels[0] or c["game"] != config["game"] for lv, (c, _) in zip(levels, runs)):
        raise SystemExit("the folders hold different line-ups or games: not pooled")
    if len(runs) > 1:
        print("pooled first bots:", ", ".join(c["bots"][0] for c, _ in runs))
    gains = [v for _, per_deal in runs for v in per_deal.values()]
    other = ("the table's mean" if args.against is None
             else f"{config['bots'][args.against]} (bot {args.against})")
    seeds = ", ".join(str(c["seed"]) for c, _ in runs)
    m, lo, hi = mean_ci(gains)
    print(f"{config['game']} {config['bots']} seed {seeds}: {len(gains)} deals, "
          f"first bot over {other} {m:+.3f} [{lo:+.3f}, {hi:+.3f}] a hand")
    # the same pairing for the place (lower is better) and for going out first
    for key, what in (("place", "place"),
                      ("win", "win rate (out first; Sheng ji: its side wins the hand)")):
        try:
            per = [v for f in args.folder
                   for v in first_bot_points(f, key, args.against)[1].values()]
        except (KeyError, TypeError):       # a run that does not record it (Sheng ji: no place)
            continue
        m, lo, hi = mean_ci(per)
        print(f"  its {what} over {other}: {m:+.4f} [{lo:+.4f}, {hi:+.4f}]")
    if args.check:
        _, base = first_bot_points(args.check)
        print(f"baseline {args.check}: {len(base)} deals, first bot's points over the table's mean per deal "
              f"{sorted(set(round(v, 9) for v in base.values()))[:5]}")


if __name__ == "__main__":
    main()
