"""How often a Sheng ji / Zhao Pengyou position set up by hand is the game's own.

Usage::

    python bench/setup_rebuild.py [--preset sheng-ji/zhao-pengyou] [--players 5 6 7]
                                  [--seeds 0-3]

Bot hands (the heuristic in every seat) are played out; at every play-phase decision (no
throw under way) the seat's view is written as the analysis board's set-up words it (the
hand, the trick, every card of the earlier tricks, the opponents' points; Zhao Pengyou: the
calls and who answered each; ``shengJiFrom`` in ``web/static/analysis.js``) and
:func:`shangyou.position.view_of` rebuilds it. Counted: positions whose rebuilt view has the
game's legal plays, friends (as a set: a set-up lists them in the calls' order), opponents'
points and card counts; those that differ; and those refused, by code (a throw on the table
is refused with ``bad_trick``: a set-up takes one unit led). docs/analysis.md records a run.
"""

from __future__ import annotations

import argparse
from collections import Counter

import shangyou
from shangyou.bots import make_bot
from shangyou.position import BadPosition, view_of


def setup_of(v: dict) -> dict:
    level = v["level"]
    out = {"game": v["game"], "players": v["players"], "seat": v["seat"],
           "declarer": v["declarer"], "level": level, "trump": v["trump"][len(level):] or None,
           "hand": " ".join(v["hand"]), "trick": v["trick"],
           "played": " ".join(c for tr in v["tricks"] for _, c in tr["plays"]),
           "points": v["opponents_points"]}
    if v.get("teams") is None:
        out.update(calls=v["calls"], call_results=v["call_results"])
    return out


def same(a: dict, b: dict) -> bool:
    return (a["legal_moves"] == b["legal_moves"] and sorted(a["friends"]) == sorted(b["friends"])
            and a["opponents_points"] == b["opponents_points"] and a["counts"] == b["counts"])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--preset", default="sheng-ji/zhao-pengyou")
    ap.add_argument("--players", type=int, nargs="+", default=[5, 6, 7])
    ap.add_argument("--seeds", default="0-3")
    a = ap.parse_args()
    lo, _, hi = a.seeds.partition("-")
    seeds = range(int(lo), int(hi or lo) + 1)
    out: Counter = Counter()
    for n in a.players:
        for seed in seeds:
            g = shangyou.new_game(a.preset, players=n, seed=seed)
            bots = [make_bot("heuristic", s) for s in range(n)]
            while not g.over:
                v = g.view(g.to_act)
                if v["phase"] == "play" and not v["pending"]:
                    try:
                        out["same" if same(view_of(setup_of(v)), v) else "differs"] += 1
                    except BadPosition as e:
                        out[f"refused {e.code}"] += 1
                g.apply(bots[g.to_act].choose(v))
    total = sum(out.values())
    print(f"{a.preset}, players {a.players}, seeds {a.seeds}: {total} positions")
    for k, c in out.most_common():
        print(f"  {k}: {c}")


if __name__ == "__main__":
    main()
