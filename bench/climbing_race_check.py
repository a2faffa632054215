"""Does racing change the climbing search's choices, and how many playouts does it save?

Plays hands with heuristic bots; at every decision of one seat (seat ``deal % players``) with
more than one candidate, plays every candidate out on the same ``ceil(600 / k)`` worlds (no
racing, no time cap) and keeps the whole matrix of playout values. Then, offline on those
values, replays the search's rule with and without racing (``Search.race`` after 8, 16, 32, ...
worlds; ``Search.pick`` at the end) and reports how often the two choose the same candidate
and what share of the playouts racing needs. As a noise floor: how often the choice made on
the first half of the worlds equals the choice made on the second half.

    PYTHONPATH=src python bench/climbing_race_check.py --game zheng-shangyou/pagat --players 5 \\
        --deals 8 --seed 2 --out bench/results/race_pagat5.jsonl
    PYTHONPATH=src python bench/climbing_race_check.py --report bench/results/race_*.jsonl
"""

from __future__ import annotations

import argparse
import json
import random
import time

import shangyou
from shangyou.bots import climbing_heuristic, climbing_search
from shangyou.bots.climbing_search import Search

EXCHANGE = ("give", "take", "discard", "offer")


def collect(game: str, players: int, seed: int, deals: int, out: str, playouts: int) -> None:
    with open(out, "w") as f:
        for d in range(deals):
            g = shangyou.new_game(game, players=players, seed=seed * 1000 + d)
            rng = random.Random(d)
            while not g.over:
                s = g.to_act
                v = g.view(s)
                moves = v["legal_moves"]
                if s == d % players and len(moves) > 1 and moves[0].split()[0] not in EXCHANGE:
                    search = Search(v, random.Random(d * 7 + len(v["hand"])))
                    cands = search.candidates()
                    if len(cands) > 1:
                        index = {m: i for i, m in enumerate(moves)}
                        scores = [[] for _ in cands]
                        t = time.process_time()
                        for _ in range(-(-playouts // len(cands))):
                            deal = search.sampler.deal(search.rng)
                            for i, m in enumerate(cands):
                                scores[i].append(search.value(deal, index[m]))
                        f.write(json.dumps({"game": game, "players": players, "deal": d,
                                            "cpu": time.process_time() - t,
                                            "scores": scores}) + "\n")
                        f.flush()
                g.apply(climbing_heuristic.choose(v, rng))


def raced(scores: list[list[float]]) -> tuple[int, int]:
    """(the candidate chosen, playouts spent) when the search races on these values."""
    k, worlds = len(scores), len(scores[0])
    alive, used, done, check = list(range(k)), 0, 0, climbing_search.RACE_FIRST
    while check < worlds and len(alive) > 1:
        used += (check - done) * len(alive)
        done = check
        alive = Search.race([s[:check] for s in scores], alive)
        check *= 2
    if len(alive) == 1:
        return 0, used
    used += (worlds - done) * len(alive)
    return alive[Search.pick([scores[i] for i in alive])], used


def report(files: list[str]) -> None:
    print("| file | decisions | full search overrules candidate 0 | same choice with racing "
          "| playouts racing needs | first half = second half (noise floor) | CPU s/decision, no racing |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for fn in files:
        recs = [json.loads(line) for line in open(fn)]
        if not recs:
            continue
        full = [Search.pick(r["scores"]) for r in recs]
        races = [raced(r["scores"]) for r in recs]
        total = sum(len(r["scores"]) * len(r["scores"][0]) for r in recs)
        halves = sum(Search.pick([s[:len(s) // 2] for s in r["scores"]])
                     == Search.pick([s[len(s) // 2:] for s in r["scores"]]) for r in recs)
        n = len(recs)
        print(f"| {recs[0]['game']} {recs[0]['players']}p | {n} | {sum(p != 0 for p in full) / n:.0%} "
              f"| {sum(p == q[0] for p, q in zip(full, races)) / n:.1%} "
              f"| {sum(q[1] for q in races) / total:.1%} | {halves / n:.0%} "
              f"| {sum(r['cpu'] for r in recs) / n:.2f} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", default="zheng-shangyou/pagat")
    ap.add_argument("--players", type=int, default=5)
    ap.add_argument("--deals", type=int, default=8)
    ap.add_argument("--seed", type=int, default=2)
    ap.add_argument("--playouts", type=int, default=climbing_search.DEFAULT_ITERATIONS)
    ap.add_argument("--out")
    ap.add_argument("--report", nargs="+", metavar="FILE")
    a = ap.parse_args()
    if a.report:
        report(a.report)
        return
    if not a.out:
        ap.error("--out FILE is needed to collect")
    collect(a.game, a.players, a.seed, a.deals, a.out, a.playouts)
    report([a.out])


if __name__ == "__main__":
    main()
