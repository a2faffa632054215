"""The climbing heuristic against an earlier version of itself, on duplicate deals.

    PYTHONPATH=src python bench/heuristic_ab.py --old main --deals 400 --field old
    PYTHONPATH=src python bench/heuristic_ab.py --old main --deals 400 --field greedy

``--old REV`` loads ``src/shangyou/bots/climbing_heuristic.py`` as it is at git revision
``REV`` (the working tree's module is the new one). Individual presets (default pagat, 5
players): every deal (seed ``seed * 100003 + deal``, one hand, no exchange) is played with
the new heuristic in each seat in turn against a field of ``--field`` bots (``old``: the old
heuristic, or a bot level such as ``greedy``), and again with the old heuristic in that seat
against the same field; the difference of that seat's hand points is paired by deal and
seat. Printed: the mean points per hand of the new and the old seat, their difference with a
95% interval (deals are the independent unit: each deal's seats are averaged first), and the
first-out rates. ``--set NAME=VALUE`` sets a constant of the new module (to try a value).
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import subprocess
import sys
import tempfile
import time
from multiprocessing import Pool
from pathlib import Path

import shangyou
from shangyou.bots import climbing_heuristic, make_bot
from shangyou.bots.base import Bot

MODULE = "src/shangyou/bots/climbing_heuristic.py"
_OLD = None


def load_old(rev: str):
    """The heuristic module as it is at git revision ``rev`` (its imports resolve in the
    installed package)."""
    root = Path(__file__).resolve().parent.parent
    src = subprocess.run(["git", "show", f"{rev}:{MODULE}"], cwd=root, check=True,
                         capture_output=True, text=True).stdout
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "climbing_heuristic_old.py"
        path.write_text(src)
        spec = importlib.util.spec_from_file_location("shangyou.bots._heuristic_old", path)
        assert spec is not None and spec.loader is not None
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
    return mod


class ModuleBot(Bot):
    """A bot that plays a climbing heuristic module's ``choose``."""

    def __init__(self, module, seed: int = 0):
        super().__init__(seed)
        self.module = module

    def choose(self, view: dict) -> str:
        return self.module.choose(view, self.rng)


def _bot(name: str, seed: int):
    if name == "new":
        return ModuleBot(climbing_heuristic, seed)
    if name == "old":
        return ModuleBot(_OLD, seed)
    return make_bot(name, seed=seed)


def _play(game, players, seed, deal, names):
    g = shangyou.new_game(game, players=players, seed=seed * 100003 + deal)
    bots = [_bot(n, deal * 31 + s) for s, n in enumerate(names)]
    while not g.over:
        s = g.to_act
        g.apply(bots[s].choose(g.view(s)))
    return g.result["points"], g.result["order"][0]


def play_deal(args):
    game, players, field, seed, deal = args
    new, old, new_first, old_first = [], [], [], []
    ref = None
    if field == "old":            # the old heuristic in every seat: one game is every seat's
        ref = _play(game, players, seed, deal, ["old"] * players)
    for seat in range(players):
        names = [field] * players
        names[seat] = "new"
        pts, first = _play(game, players, seed, deal, names)
        new.append(pts[seat])
        new_first.append(first == seat)
        if ref is None:
            names[seat] = "old"
            opts, ofirst = _play(game, players, seed, deal, names)
        else:
            opts, ofirst = ref
        old.append(opts[seat])
        old_first.append(ofirst == seat)
    k = players
    return (sum(new) / k, sum(old) / k, sum(new_first) / k, sum(old_first) / k)


def ci(xs):
    n = len(xs)
    m = sum(xs) / n
    var = sum((x - m) ** 2 for x in xs) / (n - 1) if n > 1 else 0.0
    return m, 1.96 * math.sqrt(var / n)


def _init(rev: str, sets: list[str]):
    global _OLD
    _OLD = load_old(rev)
    for s in sets:
        k, _, v = s.partition("=")
        if not hasattr(climbing_heuristic, k):
            raise SystemExit(f"the heuristic has no constant {k!r}")
        setattr(climbing_heuristic, k, float(v) if "." in v else int(v))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", default="zheng-shangyou/pagat")
    ap.add_argument("--players", type=int, default=5)
    ap.add_argument("--old", default="main", help="git revision of the old heuristic")
    ap.add_argument("--field", default="old", help="old, or a bot level (greedy, ...)")
    ap.add_argument("--deals", type=int, default=400)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--set", action="append", default=[], help="NAME=VALUE")
    a = ap.parse_args(argv)
    jobs = [(a.game, a.players, a.field, a.seed, d) for d in range(a.deals)]
    t0 = time.time()
    with Pool(a.jobs, initializer=_init, initargs=(a.old, a.set)) as pool:
        rows = pool.map(play_deal, jobs, chunksize=4)
    nm, nh = ci([r[0] for r in rows])
    om, oh = ci([r[1] for r in rows])
    dm, dh = ci([r[0] - r[1] for r in rows])
    fm, fh = ci([r[2] - r[3] for r in rows])
    print(f"{a.game} {a.players}p, field {a.field}, {a.deals} deals, seed {a.seed}"
          + (f", set {' '.join(a.set)}" if a.set else "") + f" ({time.time() - t0:.0f} s)")
    print(f"  new heuristic  points/hand {nm:.3f} ± {nh:.3f}, first out "
          f"{sum(r[2] for r in rows) / len(rows):.3f}")
    print(f"  old ({a.old:>6})   points/hand {om:.3f} ± {oh:.3f}, first out "
          f"{sum(r[3] for r in rows) / len(rows):.3f}")
    print(f"  new - old      points/hand {dm:+.3f} ± {dh:.3f}, first out {fm:+.3f} ± {fh:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
