"""Quick strength check of two bot levels on one climbing preset, with duplicate deals.

    PYTHONPATH=src python bench/bots_quick.py --game zheng-shangyou/pagat --players 5 \\
        --bot heuristic --field random --deals 200 --seed 1

Individual presets: one ``--bot`` against ``players-1`` copies of ``--field`` ("one against
the rest"); every deal is replayed with the bot in each seat. Team presets: the bot's team
against the field's team, every deal played twice (teams swapped). Each game is one hand (the
first of a match: no exchange). Reported per hand, with 95% intervals (normal approximation;
deals are the independent unit, so each deal's rotations are averaged first):

* mean score of the bot's seat (its team's hand points in team presets) and of a field seat;
* the bot's hand-win rate: first out (individual), or its team scored more (teams);
* the mean score in points above the table's lowest possible score for a hand (see
  docs/bots.md: this is what the "twice random's score" ratio is taken on).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from multiprocessing import Pool

import shangyou
from shangyou.bots import make_bot


def _team_of(teams, seat):
    for i, t in enumerate(teams):
        if seat in t:
            return i
    raise ValueError(seat)


def play_deal(args):
    game, players, options, bot, field, deal, seed = args
    out = []
    probe = shangyou.new_game(game, players=players, seed=seed * 100003 + deal, **options)
    teams = probe.rules.teams
    rotations = range(len(teams)) if teams else range(players)
    moves_bot, secs_bot = 0, 0.0
    for rot in rotations:
        g = shangyou.new_game(game, players=players, seed=seed * 100003 + deal, **options)
        mine = set(teams[rot]) if teams else {rot}
        bots = [make_bot(bot if s in mine else field, seed=deal * 31 + s) for s in range(players)]
        while not g.over:
            s = g.to_act
            v = g.view(s)
            t0 = time.process_time()
            m = bots[s].choose(v)
            if s in mine:
                secs_bot += time.process_time() - t0
                moves_bot += 1
            g.apply(m)
        res = g.result
        pts = res["points"]
        if teams:
            tp = res["team_points"] if "team_points" in res else \
                [sum(pts[s] for s in t) for t in teams]
            other = 1 - rot
            out.append((tp[rot], tp[other], 1.0 if tp[rot] > tp[other] else 0.0))
        else:
            others = [pts[s] for s in range(players) if s != rot]
            out.append((pts[rot], sum(others) / len(others),
                        1.0 if res["order"][0] == rot else 0.0))
    k = len(out)
    return (sum(o[0] for o in out) / k, sum(o[1] for o in out) / k,
            sum(o[2] for o in out) / k, moves_bot, secs_bot)


def ci(xs):
    n = len(xs)
    m = sum(xs) / n
    var = sum((x - m) ** 2 for x in xs) / (n - 1) if n > 1 else 0.0
    h = 1.96 * math.sqrt(var / n)
    return m, h


def lowest(game: str, players: int, options: dict) -> float:
    """The lowest score a seat (a team in team presets) can get in one hand of this preset."""
    g = shangyou.new_game(game, players=players, seed=0, **options)
    r = g.rules
    if r.scoring == "cards-left":
        return -3 * g.dealt_counts[0]
    return 0.0


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--game", required=True)
    ap.add_argument("--players", type=int, required=True)
    ap.add_argument("--bot", default="heuristic")
    ap.add_argument("--field", default="random")
    ap.add_argument("--deals", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--option", action="append", default=[], help="NAME=VALUE (JSON value)")
    ap.add_argument("--json", help="write the figures here")
    a = ap.parse_args(argv)
    options = {}
    for o in a.option:
        k, _, v = o.partition("=")
        options[k] = json.loads(v)
    jobs = [(a.game, a.players, options, a.bot, a.field, d, a.seed) for d in range(a.deals)]
    t0 = time.time()
    if a.workers > 1:
        with Pool(a.workers) as p:
            rows = p.map(play_deal, jobs, chunksize=1)
    else:
        rows = [play_deal(j) for j in jobs]
    wall = time.time() - t0
    bot_m, bot_h = ci([r[0] for r in rows])
    fld_m, fld_h = ci([r[1] for r in rows])
    win_m, win_h = ci([r[2] for r in rows])
    moves = sum(r[3] for r in rows)
    secs = sum(r[4] for r in rows)
    low = lowest(a.game, a.players, options)
    ratio = (bot_m - low) / (fld_m - low) if fld_m - low > 0 else float("inf")
    fig = {"game": a.game, "players": a.players, "options": options, "bot": a.bot,
           "field": a.field, "deals": a.deals, "seed": a.seed,
           "bot_score": [round(bot_m, 4), round(bot_h, 4)],
           "field_score": [round(fld_m, 4), round(fld_h, 4)],
           "bot_win_rate": [round(win_m, 4), round(win_h, 4)],
           "ratio_above_lowest": round(ratio, 3), "lowest": low,
           "bot_seconds_per_move": round(secs / max(moves, 1), 4), "wall_s": round(wall, 1)}
    print(f"{a.game} {a.players}p {options or ''}: {a.bot} vs {a.field}, {a.deals} deals")
    print(f"  {a.bot:>10} score/hand {bot_m:7.3f} ± {bot_h:.3f}   "
          f"win rate {win_m:.3f} ± {win_h:.3f}")
    print(f"  {a.field:>10} score/hand {fld_m:7.3f} ± {fld_h:.3f}")
    print(f"  ratio of scores above the lowest ({low:g}): {ratio:.2f}; "
          f"{a.bot} {secs / max(moves, 1) * 1000:.1f} ms/move; {wall:.0f} s")
    if a.json:
        with open(a.json, "a") as f:
            f.write(json.dumps(fig) + "\n")
    return fig


if __name__ == "__main__":
    sys.exit(main() and 0)
