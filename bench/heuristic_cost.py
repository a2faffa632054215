"""CPU time of the climbing heuristic's decisions with its plan in the core (``HeurPlan``,
pagat of one pack) and the core's ``beat_levels`` (one C call for every sampled opponent hand
of a play), with the second only, and with neither (the Python reference the heuristic keeps),
in the same process, rounds alternating, on the views of heuristic self-play:

    PYTHONPATH=src python bench/heuristic_cost.py [--hands 10] [--rounds 3]

Per configuration (pagat 4p and 5p, pagat of two packs at 6p; Owen and Zheng Fen use the
reference either way): the decisions with more than one legal move, each timed with
``time.process_time``; printed: ms a decision each way (the best round of each) and
the reference's over the core's. The moves chosen are compared too: they must be the same.
"""

from __future__ import annotations

import argparse
import random
import time

import shangyou
from shangyou.bots import climbing_heuristic
from shangyou.env.features import whole_plays
from shangyou.games.zheng_shangyou.pagat import PagatFamily

CASES = (("zheng-shangyou/pagat", 4, {}), ("zheng-shangyou/pagat", 5, {}),
         ("zheng-shangyou/pagat", 6, {"decks": 2}))


def views(game: str, n: int, opts: dict, hands: int) -> list[dict]:
    out = []
    for hand in range(hands):
        g = shangyou.new_game(game, players=n, seed=9100 + hand, **opts)
        rng = random.Random(hand)
        while not g.over:
            v = whole_plays(g.view(g.to_act))
            if len(v["legal_moves"]) > 1:
                out.append(v)
            g.apply(climbing_heuristic.choose(v, rng))
    return out


def timed(vs: list[dict]) -> tuple[float, list[str]]:
    rng = random.Random(1)
    moves = []
    t0 = time.process_time()
    for v in vs:
        moves.append(climbing_heuristic.choose(v, rng, strict=True))
    return (time.process_time() - t0) / len(vs), moves


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hands", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    core_levels = PagatFamily.core_beat_levels
    for game, n, opts in CASES:
        vs = views(game, n, opts, a.hands)
        ways = ("core", "beat levels only", "reference")
        best = dict.fromkeys(ways, 1e9)
        chosen = {}
        for _ in range(a.rounds):
            for way in ways:
                climbing_heuristic.COMPILED_PLAN = way == "core"
                PagatFamily.core_beat_levels = (core_levels if way != "reference"  # type: ignore
                                                else lambda self, hands, prev: None)
                t, chosen[way] = timed(vs)
                best[way] = min(best[way], t)
        PagatFamily.core_beat_levels = core_levels     # type: ignore[method-assign]
        climbing_heuristic.COMPILED_PLAN = True
        assert chosen["core"] == chosen["reference"] == chosen["beat levels only"], \
            "the moves differ"
        label = f"{game.split('/')[-1]} {n}p" + (" 2 packs" if opts else "")
        print(f"{label}: {len(vs)} decisions, " + ", ".join(
            f"{w} {1000 * best[w]:.2f} ms" for w in ways) +
            f"; reference / core {best['reference'] / best['core']:.2f}")


if __name__ == "__main__":
    main()
