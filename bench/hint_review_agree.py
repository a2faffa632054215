"""Does the review agree with the hint? (docs/review.md, *The hint and the review*)

    PYTHONPATH=src python bench/hint_review_agree.py --hands 8 --jobs 2

For each game (Sheng ji, Zheng Shangyou pagat, Zheng Fen; 4 players) and hand ``h`` (dealt
with seed ``seed + h``), seat 0 plays every move the hint gives (``--hint``: the server's
hint, :func:`shangyou.bots.hint.hint`, by default the search at its default budget) and the
other seats the heuristic bot; then seat 0's decisions are reviewed as the server reviews
them (``review.review_decision``, the server's 1 s budget), three ways:

- ``recorded``: with the hints recorded, as the server stores them (the moves that followed
  the hint), the review's first step the hint's search (what the server does now);
- ``rerun``: without the record, so the review works its best move out again with the same
  search on its own worlds (what the review says of the same moves where the server did not
  see the hint: another sample of the same search);
- ``candidates``: without the record, the review's former first step (the best mean of the
  search's candidates; with ``--hint heuristic``, the page and the review as they were
  before).

Printed per game and way: the hinted decisions reviewed and how many of them each mark got.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections import Counter
from multiprocessing import Pool

import shangyou
from shangyou.bots import make_bot
from shangyou.bots.hint import hint
from shangyou.review import MARKS, review_log

GAMES = ("sheng-ji", "zheng-shangyou/pagat", "zheng-fen")
WAYS = ("recorded", "rerun", "candidates")


def one(args):
    game, players, hand, seed, level, seconds = args
    g = shangyou.new_game(game, players=players, seed=seed + hand)
    bots = [make_bot("heuristic", seed=seed * 1000 + hand * 10 + s) for s in range(players)]
    hints: dict[str, str] = {}
    fallbacks = Counter()
    while not g.over:
        s = g.to_act
        view = g.view(s)
        if s == 0:
            h = hint(view, level, seed=seed * 100_000 + hand * 1000 + len(g.moves))
            if h["fallback"]:
                fallbacks[h["fallback"]] += 1
            hints[str(len(g.moves))] = h["level"]
            g.apply(h["move"], seat=s)
        else:
            g.apply(bots[s].choose(view), seat=s)
    log = dict(g.log)
    out = {}
    for way in WAYS:
        rlog = dict(log, hints=hints) if way == "recorded" else log
        r = review_log(rlog, 0, seconds=seconds, seed=hand,
                       best_by="candidates" if way == "candidates" else "search")
        out[way] = [d.mark for d in r.decisions]
    return game, hand, out, dict(fallbacks)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=8, help="hands per game")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--hint", default="search", choices=("search", "heuristic"),
                    help="the hint's level (heuristic: as the page hinted before)")
    ap.add_argument("--seconds", type=float, default=1.0, help="the review's CPU a decision")
    ap.add_argument("--games", default=",".join(GAMES))
    ap.add_argument("--jobs", type=int, default=1)
    a = ap.parse_args(argv)
    tasks = [(game, a.players, h, a.seed, a.hint, a.seconds)
             for game in a.games.split(",") for h in range(a.hands)]
    random.Random(0).shuffle(tasks)     # the games' costs differ: spread them over the jobs
    if a.jobs > 1:
        with Pool(a.jobs) as pool:
            results = pool.map(one, tasks, chunksize=1)
    else:
        results = [one(t) for t in tasks]
    print(f"hint {a.hint}, {a.hands} hands a game, {a.players} players, seed {a.seed}")
    print(f"{'game':24} {'way':11} {'decisions':>9} " + " ".join(f"{m:>10}" for m in MARKS)
          + "  fallbacks")
    for game in a.games.split(","):
        mine = [r for r in results if r[0] == game]
        falls = Counter()
        for r in mine:
            falls.update(r[3])
        for way in WAYS:
            c = Counter(m for r in mine for m in r[2][way])
            n = sum(c.values())
            print(f"{game:24} {way:11} {n:9d} " + " ".join(f"{c[m]:10d}" for m in MARKS)
                  + f"  {dict(falls) or '-'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
