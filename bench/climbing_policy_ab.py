"""Strength and speed of a climbing playout policy, measured directly.

Strength: the policy plays with perfect information (it reads the game object, as in the
search's playouts) as a team against the heuristic team in ``zheng-shangyou/pagat-teams``
(4 players), every deal twice (teams swapped). Reports the policy team's hand-win rate with a
95% interval over deals; ``--other`` names a second policy to play on the same deals (paired).

    PYTHONPATH=src python bench/climbing_policy_ab.py --policy plan --deals 300 --seed 1
    PYTHONPATH=src python bench/climbing_policy_ab.py --policy plan --other fast --deals 300
    PYTHONPATH=src python bench/climbing_policy_ab.py --speed --policy plan

``--game PRESET`` (an individual preset, e.g. ``zheng-shangyou/owen``, ``zheng-fen``) likewise
for that preset. ``--players 5``: pagat, one policy seat against four heuristic seats, every seat of each deal
(points per hand: 2 for first out, 1 for second; a fair share is 0.6).

Speed (``--speed``): playouts per second from positions of real games (heuristic self-play,
pagat 5 players or ``--game``), every seat played by the policy, as in a search.
"""

from __future__ import annotations

import argparse
import math
import random
import time

import shangyou
from shangyou.bots import climbing_heuristic, climbing_playout, climbing_search


def policy_by_name(name):
    if name == "fast":
        return climbing_search.fast_policy
    if name.startswith("plan"):
        params = {}
        for kv in name.split(":")[1:]:
            k, _, v = kv.partition("=")
            params[k] = float(v) if "." in v else int(v)
        return climbing_playout.PlanPolicy(**params)
    raise SystemExit(f"no policy {name!r}")


def play_teams(policy, deal, seed, rep, game="zheng-shangyou/pagat-teams", players=4):
    g = shangyou.new_game(game, players=players, seed=seed * 100003 + deal)
    teams = g.rules.teams
    team_of = {s: i for i, t in enumerate(teams) for s in t}
    mine = set(teams[rep])
    rng = random.Random(deal * 7 + rep)
    while not g.over:
        s = g.to_act
        if s in mine:
            g.apply(policy(g, rng, team_of))
        else:
            g.apply(climbing_heuristic.choose(g.view(s), rng))
    tp = g.result["team_points"]
    return 1.0 if tp[rep] > tp[1 - rep] else 0.0, tp[rep] - tp[1 - rep]


def play_one(policy, deal, seed, seat, players=5, game="zheng-shangyou/pagat"):
    """One policy seat against ``players - 1`` heuristic seats: its points, and 1 when it went
    out first (Zheng Fen: when it took the most card points)."""
    g = shangyou.new_game(game, players=players, seed=seed * 100003 + deal)
    rng = random.Random(deal * 7 + seat)
    while not g.over:
        s = g.to_act
        if s == seat:
            g.apply(policy(g, rng, {}))
        else:
            g.apply(climbing_heuristic.choose(g.view(s), rng))
    pts = g.result["points"]
    if g.rules.family.name == "zheng-fen":
        return (1.0 if pts[seat] == max(pts) else 0.0), pts[seat]
    return (1.0 if g.result["order"][0] == seat else 0.0), pts[seat]


def ci(xs):
    n = len(xs)
    m = sum(xs) / n
    var = sum((x - m) ** 2 for x in xs) / (n - 1) if n > 1 else 0.0
    return m, 1.96 * math.sqrt(var / n)


def strength(a):
    names = [a.policy] + (a.other.split(",") if a.other else [])
    pols = [policy_by_name(n) for n in names]
    res = {n: [] for n in names}
    t0 = time.time()
    for d in range(a.deals):
        for n, p in zip(names, pols):
            if a.players == 4 and not a.game:
                w = [play_teams(p, d, a.seed, rep) for rep in (0, 1)]
            else:
                w = [play_one(p, d, a.seed, seat, a.players, a.game or "zheng-shangyou/pagat")
                     for seat in range(a.players)]
            res[n].append((sum(x[0] for x in w) / len(w), sum(x[1] for x in w) / len(w)))
        if a.progress and (d + 1) % 50 == 0:
            print(d + 1, {n: round(sum(x[0] for x in r) / len(r), 3) for n, r in res.items()},
                  f"{time.time() - t0:.0f}s", flush=True)
    for n in names:
        m, h = ci([x[0] for x in res[n]])
        pm, ph = ci([x[1] for x in res[n]])
        what = "points diff" if a.players == 4 and not a.game else "points"
        print(f"{n}: hand wins {m:.3f} ± {h:.3f}, {what} {pm:+.3f} ± {ph:.3f} "
              f"({a.deals} deals, seed {a.seed}, {a.players} players)")
    for other in names[1:]:
        m, h = ci([x[0] - y[0] for x, y in zip(res[names[0]], res[other])])
        pm, ph = ci([x[1] - y[1] for x, y in zip(res[names[0]], res[other])])
        print(f"paired {names[0]} - {other}: wins {m:+.3f} ± {h:.3f}, points {pm:+.3f} ± {ph:.3f}")


def speed(a):
    # positions: heuristic self-play (pagat 5p, or --game), every 3rd decision of 20 hands
    views = []
    for d in range(20):
        g = shangyou.new_game(a.game or "zheng-shangyou/pagat",
                              players=a.players if a.game else 5, seed=1000 + d)
        rng = random.Random(d)
        k = 0
        while not g.over:
            v = g.view(g.to_act)
            if k % 3 == 0 and len(v["legal_moves"]) > 1:
                views.append(v)
            k += 1
            g.apply(climbing_heuristic.choose(v, rng))
    for name in [a.policy] + (a.other.split(",") if a.other else []):
        pol = policy_by_name(name)
        rng = random.Random(1)
        n, t0 = 0, time.process_time()
        for v in views:
            s = climbing_search.Search(v, rng)
            s.policy = pol
            for _ in range(10):
                w = s.sampler.sample(rng)
                s.playout(w)
                n += 1
        dt = time.process_time() - t0
        print(f"{name}: {n} playouts from {len(views)} positions, {n / dt:.0f} playouts/s")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--policy", default="plan")
    ap.add_argument("--other")
    ap.add_argument("--deals", type=int, default=100)
    ap.add_argument("--players", type=int, default=4, help="4: pagat-teams; 3-8: pagat, "
                    "one policy seat against the heuristic, rotated through every seat")
    ap.add_argument("--game", help="an individual preset (zheng-shangyou/owen, zheng-fen, ...): "
                    "one policy seat against the heuristic, rotated through every seat")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--speed", action="store_true")
    ap.add_argument("--progress", action="store_true")
    a = ap.parse_args()
    if a.speed:
        speed(a)
    else:
        strength(a)


if __name__ == "__main__":
    main()
