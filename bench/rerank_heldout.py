"""A re-ranker model's gain on the held-out positions of a folder of labelled shards, as
``python -m shangyou.train.distill fit`` splits and reports them (the same seed and share):
the mean search gain a decision of the move the model plays over the heuristic's, the share
of decisions where it leaves the heuristic's move, and the best candidate's mean gain. It
compares a model trained on other positions (another table size) with one fitted on these.
As a guide of a small search (the model keys ``duel_*``): the gain of its best other
candidate where positive (the labels' best other candidate's in brackets, and how often the
two agree), and with ``--duel-margin M`` the same counted only where that candidate's value
is above the heuristic's move's minus M (where the level weighs it), and how often that is;
``--duel-rate R``: the same at the margin that weighs a share R of the decisions (models
compared at equal cost).

    PYTHONPATH=src python bench/rerank_heldout.py --data runs/distill-zp6 --model m.npz
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from shangyou.bots.learned import load_model, rerank_features, rerank_rows
from shangyou.train.distill import guided, load, reranked


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", required=True)
    ap.add_argument("--model", required=True, action="append")
    ap.add_argument("--val", type=float, default=0.15)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--duel-margin", type=float, default=None)
    ap.add_argument("--duel-rate", type=float, action="append", default=[],
                    help="also at the margin that weighs this share of the decisions")
    args = ap.parse_args()
    states, _, gain, _, pos, _, views = load(Path(args.data), extra=True)
    n_pos = len(states)
    order = np.random.default_rng(args.seed).permutation(n_pos)
    val = np.zeros(n_pos, bool)
    val[order[:max(1, int(n_pos * args.val))]] = True
    idx = np.flatnonzero(val[pos])
    for path in args.model:
        net = load_model(path)
        vq = np.zeros(len(pos), np.float32)
        for p in np.flatnonzero(val):
            d = json.loads(str(views[p]))
            state, rows = rerank_features(d["view"], d["cands"], net.meta.get("inputs"))
            vq[pos == p] = net.q(state, rerank_rows(rows))
        got, switch, best = reranked(vq[idx], idx, pos, gain, float(net.meta.get("margin", 0)))
        print(f"{path}: {int(val.sum())} held-out positions of {n_pos}; gain {got:+.4f} a "
              f"decision (switches {switch:.1%}; best candidate {best:+.4f})")
        g, ceiling, same = guided(vq[idx], idx, pos, gain)
        print(f"  as a guide: {g:+.4f} a decision (the labels' best other {ceiling:+.4f}; "
              f"the same move {same:.1%})")
        p_of = pos[idx]
        lead, found = [], []        # per position: the best other's lead in value, its gain
        for k in np.unique(p_of):
            sel, qs = idx[p_of == k], vq[idx][p_of == k]
            if len(sel) < 2:
                continue
            j = 1 + int(np.argmax(qs[1:]))
            lead.append(qs[j] - qs[0])
            found.append(max(gain[sel[j]], 0.0))
        lead, found = np.array(lead), np.array(found)
        margins = [args.duel_margin] if args.duel_margin is not None else []
        margins += [float(np.quantile(lead, 1 - r)) for r in args.duel_rate]
        for m in margins:
            weighed = lead > m
            print(f"  weighed above {m:+.2f}: {np.mean(found * weighed):+.4f} a decision, "
                  f"in {weighed.mean():.1%} of them")


if __name__ == "__main__":
    main()
