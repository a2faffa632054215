"""Quick duplicate-deal comparison of two Sheng ji bot levels (until ``shangyou tournament``).

Every deal (a seed) is played twice as one hand, with the two levels swapping sides; bots see
only their views. A side *wins a hand* when it ends the hand as the declaring side of the next
hand: the declarers win when the opponents score less than 2u points (u = 20 per pack; they
keep the deal and rise), the opponents win from 2u on (they take over the deal).

    PYTHONPATH=src python bench/bots_quick_sheng_ji.py --a heuristic --b greedy --deals 100
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import time

import shangyou
from shangyou.bots import make_bot


def play_hand(args):
    game, players, seed, levels, rep = args
    g = shangyou.new_game(game, players=players, seed=seed)
    bots = [make_bot(levels[s % 2], seed=seed * 100 + rep * 10 + s) for s in range(players)]
    moves = {0: 0, 1: 0}
    spent = {0: 0.0, 1: 0.0}
    hard = {0: [0, 0.0, 0.0], 1: [0, 0.0, 0.0]}      # play decisions with a choice: n, sum, max
    while not g.over:
        s = g.to_act
        v = g.view(s)
        t = time.process_time()          # CPU time: the machine may be shared
        m = bots[s].choose(v)
        dt = time.process_time() - t
        spent[s % 2] += dt
        moves[s % 2] += 1
        if v["phase"] == "play" and len(v["legal_moves"]) > 1:
            h = hard[s % 2]
            h[0] += 1
            h[1] += dt
            h[2] = max(h[2], dt)
        g.apply(m)
    last = g.history[-1]
    winners = last["declarers"] if last["change"]["side"] == "declarers" else last["opponents"]
    win_even = all(s % 2 == 0 for s in winners) if game != "sheng-ji/zhao-pengyou" else 0 in winners
    return win_even, moves, spent, last["total"], 0 in last["declarers"], hard


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return c - h, c + h


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--game", default="sheng-ji")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--a", default="heuristic")
    ap.add_argument("--b", default="greedy")
    ap.add_argument("--deals", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--progress", action="store_true", help="print the tally after every hand")
    o = ap.parse_args(argv)
    jobs = []
    for d in range(o.deals):
        seed = o.seed * 100000 + d
        jobs.append((o.game, o.players, seed, (o.a, o.b), 0))   # a on even seats
        jobs.append((o.game, o.players, seed, (o.b, o.a), 1))   # a on odd seats
    t0 = time.time()
    results = []
    if o.workers > 1:
        with multiprocessing.Pool(o.workers) as pool:
            for i, r in enumerate(pool.imap(play_hand, jobs)):
                results.append(r)
                if o.progress:
                    report(o, jobs, results, t0)
    else:
        for j in jobs:
            results.append(play_hand(j))
            if o.progress:
                report(o, jobs, results, t0)
    report(o, jobs, results, t0)


def report(o, jobs, results, t0):
    wins = 0
    a_moves = a_time = 0.0
    h_n = h_sum = h_max = 0.0
    for (_, _, _, levels, rep), (win_even, moves, spent, total, _, hard) in zip(jobs, results):
        a_even = rep == 0
        wins += win_even if a_even else not win_even
        side = 0 if a_even else 1
        a_moves += moves[side]
        a_time += spent[side]
        h_n += hard[side][0]
        h_sum += hard[side][1]
        h_max = max(h_max, hard[side][2])
    n = len(results)
    lo, hi = wilson(wins, n)
    print(f"{o.game} {o.players}p: {o.a} vs {o.b}: {o.a} wins {wins}/{n} hands = "
          f"{wins / n:.3f} (95% CI {lo:.3f}-{hi:.3f}); {o.a} {1000 * a_time / max(1, a_moves):.1f} "
          f"ms CPU/move (play choices: mean {1000 * h_sum / max(1, h_n):.0f} ms, max "
          f"{1000 * h_max:.0f} ms); wall {time.time() - t0:.0f} s", flush=True)


if __name__ == "__main__":
    main()
