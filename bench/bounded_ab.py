"""What bounding the listing costs in strength: the heuristic weighing one play per reading
past LISTING_LIMIT plays (as it plays now) against the heuristic weighing every play.

    PYTHONPATH=src python bench/bounded_ab.py --deals 40 [--game zheng-shangyou/pagat]
                                              [--players 3] [--decks 2] [--jobs 1]

Duplicate deals (seed ``seed * 100003 + deal``, one hand): each seat in turn is played by the
bounded heuristic, then by the unbounded one, against a field of bounded heuristics; the
seat's hand points are paired by deal and seat (the deal is the independent unit: its seats
are averaged first). The unbounded arm is the heuristic as it was before the bound: every
legal play listed (``list_plays``, up to millions for a two-pack hand) and every lead of a
part of the hand in its plan (``PLAN_LEADS`` without limit); it can take seconds and hundreds
of megabytes on a decision, which is why it is gone. Printed: points per hand of each arm,
the difference with a 95 % interval, how many of the seat's decisions were past the limit,
and the CPU seconds of each arm's worst decision. Two-pack pagat with three players is where
bots meet more than LISTING_LIMIT plays in ordinary play (the first leads, mostly).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from multiprocessing import Pool

import shangyou
from shangyou.bots import climbing_heuristic
from shangyou.bots.base import Bot
from shangyou.bots.climbing_heuristic import rules_for_view
from shangyou.cards import parse
from shangyou.games.climbing import steps


class Bounded(Bot):
    name = "bounded"

    def __init__(self, seed=None):
        super().__init__(seed)
        self.past = 0
        self.worst = 0.0

    def choose(self, view: dict) -> str:
        t = time.process_time()
        if steps.in_steps(view["legal_moves"]) and \
                steps.every_play(view, rules_for_view(view).family).get("by_reading"):
            self.past += 1
        move = climbing_heuristic.choose(view, self.rng)
        self.worst = max(self.worst, time.process_time() - t)
        return move


class Unbounded(Bounded):
    """The heuristic on every legal play (the view's steps replaced by the full listing) with
    the plan's leads unbounded."""

    name = "unbounded"

    def choose(self, view: dict) -> str:
        t = time.process_time()
        if steps.in_steps(view["legal_moves"]):
            fam = rules_for_view(view).family
            if steps.every_play(view, fam).get("by_reading"):
                self.past += 1
            hand = sorted(parse(" ".join(view["hand"])))
            last = view.get("last")
            prev = None
            if last:
                readings = fam.combos(sorted(parse(last["cards"])))
                prev = next((c for c in readings if c.label == last["reading"]), readings[0])
            view = dict(view, legal_moves=[str(m) for m in
                                           steps.list_plays(fam, hand, prev, None)])
        saved = climbing_heuristic.PLAN_LEADS
        climbing_heuristic.PLAN_LEADS = 10**9
        try:
            move = climbing_heuristic.choose(view, self.rng)
        finally:
            climbing_heuristic.PLAN_LEADS = saved
        self.worst = max(self.worst, time.process_time() - t)
        return move


def _play(game, players, decks, seed, deal, seat, arm):
    opts = {"decks": decks} if decks else {}
    g = shangyou.new_game(game, players=players, seed=seed * 100003 + deal, **opts)
    bots = [Bounded(deal * 31 + s) for s in range(players)]
    bots[seat] = arm(deal * 31 + seat)
    while not g.over:
        s = g.to_act
        g.apply(bots[s].choose(g.view(s)))
    return g.result["points"][seat], bots[seat]


def play_deal(args):
    game, players, decks, seed, deal = args
    new, old, past, worst_new, worst_old = [], [], 0, 0.0, 0.0
    for seat in range(players):
        p, b = _play(game, players, decks, seed, deal, seat, Bounded)
        new.append(p)
        past += b.past
        worst_new = max(worst_new, b.worst)
        p, b = _play(game, players, decks, seed, deal, seat, Unbounded)
        old.append(p)
        worst_old = max(worst_old, b.worst)
    return sum(new) / players, sum(old) / players, past, worst_new, worst_old


def ci(xs):
    n = len(xs)
    m = sum(xs) / n
    var = sum((x - m) ** 2 for x in xs) / (n - 1) if n > 1 else 0.0
    return m, 1.96 * math.sqrt(var / n)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", default="zheng-shangyou/pagat")
    ap.add_argument("--players", type=int, default=3)
    ap.add_argument("--decks", type=int, default=2)
    ap.add_argument("--deals", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=1)
    a = ap.parse_args(argv)
    started = time.time()
    jobs = [(a.game, a.players, a.decks, a.seed, d) for d in range(a.deals)]
    if a.jobs > 1:
        with Pool(a.jobs) as pool:
            rows = pool.map(play_deal, jobs)
    else:
        rows = [play_deal(j) for j in jobs]
    new = [r[0] for r in rows]
    old = [r[1] for r in rows]
    diff, half = ci([x - y for x, y in zip(new, old)])
    print(f"# bounded against unbounded heuristic: {a.game} {a.players}p decks={a.decks}, "
          f"{a.deals} duplicate deals, seed {a.seed} ({time.time() - started:.0f} s)\n")
    print(f"- points a hand: bounded {sum(new) / len(new):.3f}, unbounded "
          f"{sum(old) / len(old):.3f}; difference {diff:+.3f} ± {half:.3f} (95 %)")
    print(f"- the seat's decisions past LISTING_LIMIT plays: {sum(r[2] for r in rows)} "
          f"in {a.deals * a.players} hands")
    print(f"- worst decision CPU: bounded {max(r[3] for r in rows):.2f} s, unbounded "
          f"{max(r[4] for r in rows):.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
