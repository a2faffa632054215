"""Where a Sheng ji or climbing search's gain over the heuristic lies, on labelled positions:
the labels' best gain (what a full search at the labels' budget would keep, its "ceiling"),
its share in the decisions a guide's network rates highest (the largest value of another
candidate over the heuristic's move), and its share by the cards left in the hands beside
their share of a playout's cost. It answers whether a search run at a few decisions, chosen
by the network or by cheapness, could keep most of the search's edge.

    PYTHONPATH=src python bench/guide_gate.py --data runs/sj8-eval \
        --model src/shangyou/bots/models/sheng-ji.npz
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from shangyou.bots.learned import load_model, rerank_features, rerank_rows
from shangyou.train.distill import load


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", required=True)
    ap.add_argument("--model", required=True)
    args = ap.parse_args()
    states, _, gain, _, pos, _, views = load(Path(args.data), extra=True)
    net = load_model(args.model)
    spread, ceiling, cards = [], [], []
    for p in range(len(states)):
        g = gain[pos == p]
        if len(g) < 2:
            continue
        d = json.loads(str(views[p]))
        state, rows = rerank_features(d["view"], d["cands"], net.meta.get("inputs"))
        q = net.q(state, rerank_rows(rows))
        spread.append(float((q[1:] - q[0]).max()))
        ceiling.append(max(0.0, float(g[1:].max())))
        cards.append(sum(d["view"]["counts"]))
    spread_a, ceil_a, cards_a = np.array(spread), np.array(ceiling), np.array(cards)
    total = ceil_a.sum()
    print(f"{len(ceil_a)} positions of {args.data}: the labels' best gain {ceil_a.mean():+.4f} "
          "a decision")
    order = np.argsort(-spread_a)
    for share in (0.05, 0.1, 0.2, 0.3, 0.5):
        top = order[:int(len(order) * share)]
        print(f"  the {share:.0%} the network rates highest hold {ceil_a[top].sum() / total:.0%} "
              "of it")
    cost = cards_a + 4.0                # a playout's card plays (sheng_ji_search's per_playout)
    for lo, hi in ((0, 20), (20, 40), (40, 60), (60, 80), (80, 10_000)):
        m = (cards_a >= lo) & (cards_a < hi)
        print(f"  {lo}-{min(hi, 999)} cards left: {m.mean():.0%} of the decisions, "
              f"{cost[m].sum() / cost.sum():.0%} of the playouts' cost, "
              f"{ceil_a[m].sum() / total:.0%} of the gain")


if __name__ == "__main__":
    main()
