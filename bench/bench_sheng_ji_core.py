"""Speed of the compiled Sheng ji core against the Python reference and RLCard's raw engine.

Usage::

    PYTHONPATH=src python bench/bench_sheng_ji_core.py [--rounds N] [--block SECONDS]
                                                      [--core N] [--json PATH]

(run it with an interpreter that has RLCard 1.2, e.g. the benchmark venv, to get the RLCard
ratio; without RLCard it measures core / Python only.)

Everything runs in ONE process pinned to ONE core; the core is switched with
``shangyou.games.sheng_ji.core.use``. Per preset (``sheng-ji`` 4 players, ``sheng-ji/single-deck``
4 players, ``sheng-ji/zhao-pengyou`` 5 players) every round runs a block of whole random hands
with the core and a block without it (which comes first alternates from round to round), with
a block of RLCard 1.2's raw ``DoudizhuGame`` (``init_game`` + ``step(random.choice(actions))``,
``bench_zsy.RLCardPlay``) between them. A hand is ``shangyou.new_game(name, players=p, seed=s)``
with consecutive seeds, dealing included, each decision ``g.legal_moves()`` + ``random.choice``
+ ``g.apply`` (``bench_zsy.OurPlay``); a move is one ``apply``. The machine's speed drifts, so
**the ratios are the numbers to quote**: per round, core moves/s over Python moves/s, and core
moves/s over the RLCard block's moves/s; reported as medians (and the lowest) over rounds.
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_zsy import OurPlay, calib, loadavg, machine_info, pin, rlcard_or_reason

from shangyou.games.sheng_ji import core

CONFIGS = [("sheng-ji", 4), ("sheng-ji/single-deck", 4), ("sheng-ji/zhao-pengyou", 5)]
TARGET = 10.0            # issue 24: Sheng ji 4p random play >= 10x RLCard's raw engine


def block(play: OurPlay, on: bool, seconds: float) -> float:
    """Moves per second of one block of whole hands, the core on or off."""
    prev = core.use(on)
    try:
        gc.collect()
        m, _g, dt = play.run(seconds)
    finally:
        core.use(prev)
    return m / dt


def measure(rounds: int, seconds: float, seed: int, rl) -> dict:
    plays = {c: (OurPlay(c[0], c[1], seed), OurPlay(c[0], c[1], seed)) for c in CONFIGS}
    for on_play, off_play in plays.values():           # warm-up: imports, caches
        block(on_play, True, 0.2)
        block(off_play, False, 0.2)
    if rl is not None:
        rl.run(0.2)
    rows = {c: {"core": [], "python": [], "rlcard": [], "core_over_python": [],
                "core_over_rlcard": []} for c in CONFIGS}
    cal = []
    for r in range(rounds):
        cal.append(calib())
        for c in CONFIGS:
            on_play, off_play = plays[c]
            row = rows[c]
            first_on = r % 2 == 0
            a = block(on_play if first_on else off_play, first_on, seconds)
            rate_rl = None
            if rl is not None:
                gc.collect()
                m, _g, dt = rl.run(seconds)
                rate_rl = m / dt
            b = block(off_play if first_on else on_play, not first_on, seconds)
            on_rate, off_rate = (a, b) if first_on else (b, a)
            row["core"].append(on_rate)
            row["python"].append(off_rate)
            row["core_over_python"].append(on_rate / off_rate)
            if rate_rl is not None:
                row["rlcard"].append(rate_rl)
                row["core_over_rlcard"].append(on_rate / rate_rl)
        print(f"  round {r + 1}/{rounds}", file=sys.stderr, flush=True)
    out = {}
    for c, row in rows.items():
        label = f"{c[0]} {c[1]}p"
        summary = {k: statistics.median(v) for k, v in row.items() if v}
        summary.update({f"{k}_min": min(v) for k, v in row.items() if k.endswith("_over_python")
                        or k.endswith("_over_rlcard") if v})
        summary["rounds"] = {k: [round(x, 3) for x in v] for k, v in row.items()}
        out[label] = summary
    return {"rows": out, "calib_mloops": cal}


def report(res: dict) -> str:
    lines = [f"Sheng ji core (git {res['machine'].get('git', '?')}, python "
             f"{res['machine'].get('python')}, pinned to {res['affinity']}, RLCard "
             f"{res['rlcard']}):", "",
             f"{'preset':<28}{'core mv/s':>11}{'python mv/s':>13}{'core/py':>9}{'(min)':>7}"
             f"{'RLCard mv/s':>13}{'core/RLCard':>13}{'(min)':>7}"]
    for label, s in res["random_play"]["rows"].items():
        rl = s.get("rlcard")
        lines.append(
            f"{label:<28}{s['core']:>11,.0f}{s['python']:>13,.0f}{s['core_over_python']:>9.2f}"
            f"{s['core_over_python_min']:>7.2f}"
            + (f"{rl:>13,.0f}{s['core_over_rlcard']:>13.2f}{s['core_over_rlcard_min']:>7.2f}"
               if rl else f"{'-':>13}{'-':>13}{'':>7}"))
    lines.append("")
    lines.append(f"target: sheng-ji 4p core / RLCard raw >= {TARGET:g}x (medians over rounds)")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--block", type=float, default=1.0, help="seconds per block")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--core", type=int, help="core to pin to (default BENCH_CORE or first)")
    ap.add_argument("--no-rlcard", action="store_true")
    ap.add_argument("--json", metavar="PATH")
    args = ap.parse_args(argv)
    if not core.AVAILABLE:
        print("the compiled core is not built (python setup.py build_ext --inplace)",
              file=sys.stderr)
        return 1
    machine = machine_info()
    affinity = pin(args.core)
    rl, version, why = (None, None, "skipped") if args.no_rlcard else rlcard_or_reason(args.seed)
    res = {"machine": machine, "affinity": affinity, "rlcard": version or why,
           "config": {"rounds": args.rounds, "block": args.block, "seed": args.seed},
           "loadavg_start": loadavg(), "started": time.strftime("%Y-%m-%d %H:%M:%S")}
    res["random_play"] = measure(args.rounds, args.block, args.seed, rl)
    res["loadavg_end"] = loadavg()
    print(report(res))
    print(f"\n(load average {res['loadavg_start']} -> {res['loadavg_end']}; quote the ratios)")
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(res, indent=2, sort_keys=True, default=str) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
