"""How often a model of the learned level picks the move the heuristic level picks, per phase:
whole hands of heuristic bots (deal seeds 777000 on), at every decision with more than one legal
move the model's best move is compared with the heuristic's (which is played).

    PYTHONPATH=src python bench/learned_agree.py MODEL.npz GAME PLAYERS HANDS
"""

from __future__ import annotations

import collections
import sys

import numpy as np

from shangyou.bots import make_bot
from shangyou.bots.learned import Network
from shangyou.env.features import features, whole_plays
from shangyou.train.league import deal


def main() -> None:
    if len(sys.argv) != 5:
        raise SystemExit(__doc__)
    net = Network.load(sys.argv[1])
    game, n, hands = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    agree: collections.Counter = collections.Counter()
    total: collections.Counter = collections.Counter()
    for d in range(hands):
        g = deal(game, n, 777000 + d)
        bots = [make_bot("heuristic", seed=s) for s in range(n)]
        while not g.over:
            view = whole_plays(g.view(g.to_act))
            moves = view["legal_moves"]
            move = bots[g.to_act].choose(view)
            if len(moves) > 1:
                q = net.q(*features(view))
                total[view["phase"]] += 1
                agree[view["phase"]] += moves[int(np.argmax(q))] == move
            g.apply(move)
    for phase in total:
        print(f"{phase}: {agree[phase]} of {total[phase]} ({agree[phase] / total[phase]:.1%})")


if __name__ == "__main__":
    main()
