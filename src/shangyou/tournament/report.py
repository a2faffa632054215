"""From the deals' records to the results: per-bot table, pair comparisons, ratings, files.

Samples, per bot level (all the seats it fills, over every rotation of every deal):

- **mean score per hand**: over seat-hands. Its 95% interval is a t interval over *deals*: each
  deal contributes the bot's mean over its seats in all rotations, so the luck of the cards,
  shared by all rotations of a deal, and the results partners share are counted once.
- **win rate**: the share of seat-hands won; its Wilson interval counts each hand's team once
  per bot level (partners of the same level win or lose together, so they are one trial).
- **places** (climbing games): the share of seat-hands in each finishing place.
- **pairs**: for two levels, whether their score intervals and their win-rate intervals overlap,
  and the paired difference of their per-deal mean scores with its t interval.
"""

from __future__ import annotations

import csv
import json
import warnings
from pathlib import Path
from typing import Any

from . import ratings as ratings_mod
from .runner import Config
from .stats import mean_ci, overlap, wilson

WIN_DEFINITIONS = {
    "climbing": "first out of cards",
    "zheng-fen": "most card points in the hand (every tied player wins)",
    "teams": "the team scoring strictly more points in the hand",
    "sheng-ji": "the side that wins the hand: the declarers if they hold the opponents "
                "under the threshold, else the opponents (who may gain no level but take "
                "over the declaring)",
}
SCORE_DEFINITIONS = {
    "climbing": "the hand's points for the seat (pagat/owen 2/1/0; winner: cards left, "
                "negative for the losers)",
    "zheng-fen": "card points taken in the hand (5s, 10s, kings)",
    "teams": "the points of the seat's team in the hand",
    "sheng-ji": "levels gained by the seat's side, or minus the levels the other side gained",
}


def family(cfg: Config, hand: dict) -> str:
    if "declarer" in hand:
        return "sheng-ji"
    if cfg.game == "zheng-fen":
        return "zheng-fen"
    if any(len(t) > 1 for t in hand["teams"]):
        return "teams"
    return "climbing"


def aggregate(cfg: Config, records: list[dict]) -> dict:
    """The results dict (what ``results.json`` holds) from the deals' records."""
    names = cfg.names
    n = cfg.players
    if not records:
        raise ValueError("no deals to report")
    # per deal: the mean score over its seat-hands
    per_deal: dict[str, list[float]] = {b: [] for b in names}
    wins = {b: 0 for b in names}
    seat_hands = {b: 0 for b in names}
    trials = {b: 0 for b in names}                # team-merged trials for Wilson
    places = {b: [0] * n for b in names}
    has_places = True
    moves = {b: 0 for b in names}
    think = {b: 0.0 for b in names}
    slowest = {b: 0.0 for b in names}             # highest mean seconds per move in one hand
    # CPU time per move (None when a record lacks it)
    cpu: dict = {b: 0.0 for b in names}
    cpu_max: dict = {b: 0.0 for b in names}
    hands = sum(len(rec["hands"]) for rec in records)    # deals x the rotations played
    for rec in records:
        sums = {b: 0.0 for b in names}
        counts = {b: 0 for b in names}
        for hand in rec["hands"]:
            bot_at = [cfg.bots[e] for e in hand["seats"]]
            for s in range(n):
                b = bot_at[s]
                sums[b] += hand["score"][s]
                counts[b] += 1
                wins[b] += hand["win"][s]
                seat_hands[b] += 1
                if hand["place"][s] is None:
                    has_places = False
                else:
                    places[b][hand["place"][s] - 1] += 1
                moves[b] += hand["moves"][s]
                think[b] += hand["think"][s]
                if hand["moves"][s]:
                    slowest[b] = max(slowest[b], hand["think"][s] / hand["moves"][s])
                if "cpu" not in hand:
                    cpu[b] = cpu_max[b] = None
                elif cpu[b] is not None:
                    cpu[b] += hand["cpu"][s]
                    cpu_max[b] = max(cpu_max[b], hand["cpu_max"][s])
            for team in hand["teams"]:
                for b in {bot_at[s] for s in team}:
                    trials[b] += 1
        for b in names:
            per_deal[b].append(sums[b] / counts[b])
    bots: list[dict[str, Any]] = []
    for b in names:
        m, lo, hi = mean_ci(per_deal[b])
        rate = wins[b] / seat_hands[b]
        _, wlo, whi = wilson(rate * trials[b], trials[b])
        bots.append({
            "bot": b, "seats": cfg.bots.count(b), "hands": hands,
            "seat_hands": seat_hands[b],
            "score": {"mean": m, "low": lo, "high": hi},
            "win": {"rate": rate, "low": wlo, "high": whi, "wins": wins[b],
                    "trials": trials[b]},
            "places": ([c / seat_hands[b] for c in places[b]] if has_places else None),
            "mean_place": (sum((i + 1) * c for i, c in enumerate(places[b])) / seat_hands[b]
                           if has_places else None),
        })
    by_name = {x["bot"]: x for x in bots}
    pairs = []
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            diff = mean_ci([x - y for x, y in zip(per_deal[a], per_deal[b])])
            sa, sb = by_name[a]["score"], by_name[b]["score"]
            wa, wb = by_name[a]["win"], by_name[b]["win"]
            pairs.append({"a": a, "b": b,
                          "score_overlap": overlap((sa["low"], sa["high"]),
                                                   (sb["low"], sb["high"])),
                          "win_overlap": overlap((wa["low"], wa["high"]),
                                                 (wb["low"], wb["high"])),
                          "score_difference": {"mean": diff[0], "low": diff[1],
                                               "high": diff[2]},
                          # a's mean score over b's (issue 6's "n times the score"); only
                          # where both are positive (winner's scores are zero-sum)
                          "score_ratio": (sa["mean"] / sb["mean"]
                                          if sa["mean"] > 0 and sb["mean"] > 0 else None)})
    labels = cfg.entries
    rated = ratings_mod.rate(labels, ((h["seats"], h["teams"], h["ranks"])
                                      for rec in records for h in rec["hands"]))
    for x in bots:
        mine = [rated[lab] for lab, b in zip(labels, cfg.bots) if b == x["bot"]]
        x["rating"] = {k: sum(r[k] for r in mine) / len(mine) for k in ("mu", "sigma", "ordinal")}
    fam = family(cfg, records[0]["hands"][0])
    return {"config": cfg.key(), "deals": len(records), "hands": hands,
            "family": fam, "score_means": SCORE_DEFINITIONS[fam],
            "win_means": WIN_DEFINITIONS[fam], "bots": bots, "pairs": pairs,
            "rankings": rankings(bots),
            "ratings": [{"entry": lab, "bot": b, **rated[lab]}
                        for lab, b in zip(labels, cfg.bots)],
            # wall-clock and CPU figures: the only part that differs between two runs
            "timing": {b: {"moves": moves[b],
                           "seconds_per_move": think[b] / moves[b] if moves[b] else 0.0,
                           "slowest_hand_seconds_per_move": slowest[b],
                           "cpu_seconds_per_move": (cpu[b] / moves[b] if cpu[b] is not None
                                                    and moves[b] else None),
                           "cpu_max_seconds": cpu_max[b]} for b in names}}


RANKED_BY = {"score": ("mean score", lambda x: x["score"]["mean"], True),
             "win": ("win rate", lambda x: x["win"]["rate"], True),
             "place": ("mean place", lambda x: x["mean_place"], False),
             "rating": ("openskill ordinal", lambda x: x["rating"]["ordinal"], True)}


def rankings(bots: list[dict]) -> dict[str, list[str]]:
    """The bots best first by each strength metric the report prints (mean score, win rate,
    mean place where the game ranks players, openskill ordinal): a level can lead by one and
    trail by another, and the report says so rather than rank by one alone."""
    out = {}
    for key, (_, value, high_first) in RANKED_BY.items():
        if key == "place" and bots[0]["places"] is None:
            continue
        order = sorted(bots, key=lambda x: -value(x) if high_first else value(x))
        out[key] = [x["bot"] for x in order]
    return out


CSV_FIELDS = ["bot", "seats", "hands", "seat_hands", "score_mean", "score_low", "score_high",
              "win_rate", "win_low", "win_high", "wins", "win_trials", "mean_place",
              "rating_mu", "rating_sigma", "rating_ordinal", "seconds_per_move",
              "cpu_seconds_per_move", "cpu_max_seconds"]


def csv_rows(results: dict) -> list[dict]:
    rows = []
    n = results["config"]["players"]
    for x in results["bots"]:
        row = {"bot": x["bot"], "seats": x["seats"], "hands": x["hands"],
               "seat_hands": x["seat_hands"], "score_mean": x["score"]["mean"],
               "score_low": x["score"]["low"], "score_high": x["score"]["high"],
               "win_rate": x["win"]["rate"], "win_low": x["win"]["low"],
               "win_high": x["win"]["high"], "wins": x["win"]["wins"],
               "win_trials": x["win"]["trials"], "mean_place": x["mean_place"],
               "rating_mu": x["rating"]["mu"], "rating_sigma": x["rating"]["sigma"],
               "rating_ordinal": x["rating"]["ordinal"],
               "seconds_per_move": results["timing"][x["bot"]]["seconds_per_move"],
               "cpu_seconds_per_move": results["timing"][x["bot"]].get("cpu_seconds_per_move"),
               "cpu_max_seconds": results["timing"][x["bot"]].get("cpu_max_seconds")}
        for k in range(n):
            row[f"place_{k + 1}"] = x["places"][k] if x["places"] is not None else None
        rows.append(row)
    return rows


def write(results: dict, out: Path) -> dict[str, Path]:
    """results.json, results.csv and scores.png in ``out``; answers their paths."""
    out = Path(out)
    paths = {"json": out / "results.json", "csv": out / "results.csv", "png": out / "scores.png"}
    paths["json"].write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    rows = csv_rows(results)
    fields = CSV_FIELDS + [f"place_{k + 1}" for k in range(results["config"]["players"])]
    with open(paths["csv"], "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        for row in rows:
            w.writerow({k: ("" if v is None else v) for k, v in row.items()})
    from .plot import plot
    try:
        plot(results, paths["png"])
    except Exception as exc:     # the figure is a convenience: a finished run is never lost to it
        paths["png"].unlink(missing_ok=True)
        warnings.warn(f"tournament: the plot was not drawn ({exc}); results.json and "
                      "results.csv are written", RuntimeWarning, stacklevel=2)
        del paths["png"]
    return paths


def _ci(lo, hi, fmt) -> str:
    return "" if lo is None else f"[{fmt.format(lo)}, {fmt.format(hi)}]"


def show(results: dict, console) -> None:
    """The results as rich tables."""
    from rich.table import Table
    cfg = results["config"]
    t = Table(title=f"{cfg['game']}, {cfg['players']} players, {results['deals']} deals "
                    f"x {results['hands'] // results['deals']} rotations = {results['hands']} "
                    "hands")
    t.add_column("bot")
    t.add_column("seats", justify="right")
    t.add_column("mean score [95% CI]", justify="right")
    t.add_column("win % [95% CI]", justify="right")
    has_places = results["bots"][0]["places"] is not None
    if has_places:
        t.add_column("places 1st/2nd/.. %")
        t.add_column("mean place", justify="right")
    t.add_column("openskill μ ± σ", justify="right")
    t.add_column("s/move", justify="right")
    has_cpu = all(results["timing"][x["bot"]].get("cpu_seconds_per_move") is not None
                  for x in results["bots"])
    if has_cpu:
        t.add_column("CPU s/move (max)", justify="right")
    for x in results["bots"]:
        sc, w = x["score"], x["win"]
        row = [x["bot"], str(x["seats"]),
               f"{sc['mean']:.3f} {_ci(sc['low'], sc['high'], '{:.3f}')}",
               f"{100 * w['rate']:.1f} {_ci(100 * w['low'], 100 * w['high'], '{:.1f}')}"]
        if has_places:
            row += ["/".join(f"{100 * p:.0f}" for p in x["places"]), f"{x['mean_place']:.2f}"]
        row += [f"{x['rating']['mu']:.1f} ± {x['rating']['sigma']:.1f}",
                f"{results['timing'][x['bot']]['seconds_per_move']:.4f}"]
        if has_cpu:
            tm = results["timing"][x["bot"]]
            row.append(f"{tm['cpu_seconds_per_move']:.4f} ({tm['cpu_max_seconds']:.2f})")
        t.add_row(*row)
    console.print(t)
    console.print(f"score: {results['score_means']}; win: {results['win_means']}.")
    ranks = results.get("rankings") or rankings(results["bots"])
    console.print("best first, by " + "; by ".join(
        f"{RANKED_BY[k][0]}: {' > '.join(order)}" for k, order in ranks.items()))
    if len({tuple(order) for order in ranks.values()}) > 1:
        console.print("the metrics disagree on the order: no single ranking of these bots")
    for p in results["pairs"]:
        d = p["score_difference"]
        yes = {True: "overlap", False: "apart", None: "n/a"}
        ratio = p.get("score_ratio")
        ratio = "" if ratio is None else f" (ratio {ratio:.2f})"
        console.print(f"{p['a']} - {p['b']}: score difference {d['mean']:+.3f} "
                      f"{_ci(d['low'], d['high'], '{:+.3f}')}{ratio}; score intervals "
                      f"{yes[p['score_overlap']]}, win-rate intervals {yes[p['win_overlap']]}")
    if len(results["ratings"]) > len(results["bots"]):
        console.print("openskill per entry: " + ", ".join(
            f"{r['entry']} {r['mu']:.1f} ± {r['sigma']:.1f}" for r in results["ratings"]))
