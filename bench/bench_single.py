"""The single-game API against OpenSpiel's C++ ``dou_dizhu``, per move and per whole game.

Usage::

    PYTHONPATH=src python bench/bench_single.py [--rounds N] [--block SECONDS] [--core N]
                                                 [--presets LABEL[,LABEL...]] [--json PATH]

One process pinned to one core. Every preset of the issue's table plays whole random games
with the README's loop (``new_game``; while not over: ``g.apply(choice(g.legal_moves()))``,
dealing included), the compiled cores on, in blocks of about ``--block`` seconds; a block of
OpenSpiel's C++ ``dou_dizhu`` driven the same way from Python (``legal_actions`` +
``random.choice`` + ``apply_action``, its chance nodes of the deal included) runs between every
two of ours. A ratio is a preset's block over the mean of the OpenSpiel blocks either side:
games/s over OpenSpiel's games/s (**per whole game**) and moves/s over OpenSpiel's decisions/s
(**per move**); the medians over the rounds (order reversed every other round) are reported,
min-max in brackets. The machine's speed drifts, so only the ratios mean anything.
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_core import OpenSpielPlay, OurPlay
from bench_zsy import calib, loadavg, machine_info, pin

CONFIGS = [("zheng-shangyou/pagat", 5, {}), ("zheng-shangyou/pagat", 4, {}),
           ("zheng-shangyou/owen", 4, {}), ("zheng-shangyou/owen", 2, {}),
           ("zheng-shangyou/winner", 4, {}), ("zheng-fen", 4, {}),
           ("sheng-ji", 4, {}), ("sheng-ji/zhao-pengyou", 6, {})]


def label(cfg) -> str:
    name, players, _ = cfg
    return f"{name.split('/', 1)[-1]}/{players}p"


def summ(xs) -> dict:
    xs = list(xs)
    return {"median": statistics.median(xs), "min": min(xs), "max": max(xs), "n": len(xs)}


def measure(configs, rounds: int, block: float, seed: int) -> dict:
    spiel = OpenSpielPlay(seed)
    plays = {label(c): OurPlay(c, seed) for c in configs}
    for p in plays.values():                      # warm-up: imports, tables, first deals
        p.run(block / 4)
    spiel.run(block / 4)
    rows = {k: {"games": [], "moves": [], "per_game": [], "per_move": []} for k in plays}
    sp_games, sp_moves, cal = [], [], []
    for r in range(rounds):
        cal.append(calib())
        keys = list(plays) if r % 2 == 0 else list(reversed(plays))
        gc.collect()
        m, g, dt = spiel.run(block)
        prev = (g / dt, m / dt)
        for k in keys:
            gc.collect()
            m, g, dt = plays[k].run(block)
            ours = (g / dt, m / dt)
            gc.collect()
            m, g, dt = spiel.run(block)
            cur = (g / dt, m / dt)
            sp_games.append(cur[0])
            sp_moves.append(cur[1])
            row = rows[k]
            row["games"].append(ours[0])
            row["moves"].append(ours[1])
            row["per_game"].append(ours[0] / ((prev[0] + cur[0]) / 2))
            row["per_move"].append(ours[1] / ((prev[1] + cur[1]) / 2))
            prev = cur
        print(f"  round {r + 1}/{rounds} (calibration {cal[-1]:.2f} M loops/s, "
              f"load {loadavg()})", file=sys.stderr, flush=True)
    return {"rounds": rounds, "block_s": block, "calib_Mloops_per_s": summ(cal),
            "openspiel_games_per_s": summ(sp_games),
            "openspiel_decisions_per_s": summ(sp_moves),
            "presets": {k: {key: summ(v) for key, v in row.items()} for k, row in rows.items()}}


def report(res: dict) -> str:
    m = res["machine"]
    lines = [f"shangyou ({m.get('git', '?')}), Python {m['python']}, {m.get('cpu', '?')}, "
             f"pinned to {res['affinity']}; load {res['load_start']} -> {res['load_end']}",
             f"{res['rounds']} rounds x {res['block_s']} s blocks; OpenSpiel dou_dizhu "
             f"{res['openspiel_games_per_s']['median']:,.0f} games/s, "
             f"{res['openspiel_decisions_per_s']['median']:,.0f} decisions/s", "",
             f"{'preset':<18} {'games/s':>8} {'moves/s':>9} {'per game':>9} {'[min-max]':>12} "
             f"{'per move':>9} {'[min-max]':>12}"]
    for k, e in res["presets"].items():
        pg, pm = e["per_game"], e["per_move"]
        lines.append(f"{k:<18} {e['games']['median']:>8,.0f} {e['moves']['median']:>9,.0f} "
                     f"{pg['median']:>8.2f}x [{pg['min']:.2f}-{pg['max']:.2f}] "
                     f"{pm['median']:>8.2f}x [{pm['min']:.2f}-{pm['max']:.2f}]")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--block", type=float, default=1.0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--core", type=int, help="core to pin to (default BENCH_CORE or first)")
    ap.add_argument("--presets", metavar="LABELS", help="comma-separated labels, e.g. pagat/5p")
    ap.add_argument("--json", metavar="PATH")
    args = ap.parse_args(argv)
    configs = CONFIGS
    if args.presets:
        wanted = args.presets.split(",")
        configs = [c for c in CONFIGS if label(c) in wanted]
        if len(configs) != len(wanted):
            ap.error("known presets: " + ", ".join(label(c) for c in CONFIGS))
    res = {"machine": machine_info(), "affinity": pin(args.core), "load_start": loadavg()}
    res.update(measure(configs, args.rounds, args.block, args.seed))
    res["load_end"] = loadavg()
    print(report(res))
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
