"""Speed of the compiled climbing core against the Python reference, in one process.

Usage::

    PYTHONPATH=src python bench/bench_core.py [--quick] [--rounds N] [--block SECONDS]
                                               [--core N] [--json PATH]
                                               [--presets LABEL[,LABEL...]] [--only-random]

Everything runs in ONE process pinned to ONE core, the two paths switched with
``shangyou.games.climbing.core.use``; the machine's speed drifts, so **the ratios are the
numbers to quote** (each is the median over rounds of a ratio between adjacent blocks):

1. **Random play** per preset: whole single hands from ``shangyou.new_game(name, players=p,
   seed=s)``, each decision ``g.legal_moves()`` + ``random.choice`` + ``g.apply`` (as
   bench_zsy.py). Every round runs a block with the core and a block without it per preset
   (which comes first alternates), and, when ``pyspiel`` is importable, a block of OpenSpiel's
   C++ ``dou_dizhu`` driven from Python (``legal_actions`` + ``random.choice`` +
   ``apply_action``, chance nodes included, as bench_env.py) after each pair. Reported: games/s
   and moves/s (every move is a decision), the core's ratio to Python, and, for moves/s, to
   OpenSpiel's decisions/s (the mean of the blocks either side of the preset's).
2. **Search playouts per CPU second**: worlds sampled from positions of heuristic self-play
   (pagat 5 players, every third decision of 20 hands), each played out by the search's
   playout (``Search.playout``: the plan-aware policy), with the core and without it, rounds
   interleaved; CPU time (``time.process_time``).
3. **Listing the legal plays of the worst hands**: ``family.leads`` of constructed hands, with
   the core and with the Python code: median time over repetitions and the number of plays;
   and the game's listing of the same leads with the core (``Family.play_moves``, as
   ``legal_moves`` asks it: a ``Plays`` sequence, no Move made) and its ``len``.
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_zsy import calib, loadavg, machine_info, pin

import shangyou
from shangyou.cards import parse
from shangyou.games.climbing import core

CONFIGS = [("zheng-shangyou/pagat", 5, {}), ("zheng-shangyou/pagat", 4, {}),
           ("zheng-shangyou/pagat", 8, {"decks": 2}),
           ("zheng-shangyou/pagat-teams", 4, {}), ("zheng-shangyou/pagat-teams", 6, {}),
           ("zheng-shangyou/owen", 2, {}), ("zheng-shangyou/owen", 4, {}),
           ("zheng-shangyou/winner", 4, {}), ("zheng-fen", 4, {})]
HEADLINE = "pagat/5p"
# constructed worst hands: name -> (options of the pagat family, or None for Owen; cards)
WORST = {
    "pagat 13 cards, four 2s and both jokers":
        ({}, "5S 6S 7C 7S 8C 8S 9S 2D 2C 2H 2S BJ RJ"),
    "pagat two packs, 27 cards, eight 2s and four jokers (pairs 3-9)":
        ({"decks": 2}, ("3D 3C 4D 4C 5D 5C 6D 6C 7D 7C 8D 8C 9D 9C 10D "
                        "2D 2D 2C 2C 2H 2H 2S 2S BJ BJ RJ RJ")),
    "pagat two packs, 27 cards, eight 2s and four jokers (spades 3-A, 3-5 hearts)":
        ({"decks": 2}, ("3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS 3H 4H 5H "
                        "2D 2D 2C 2C 2H 2H 2S 2S BJ BJ RJ RJ")),
    "owen 26 cards: pairs 3-Q, four 2s and both jokers":
        (None, ("3S 3H 4S 4H 5S 5H 6S 6H 7C 7S 8C 8S 9S 9H 10S 10H JS JH QS QH "
                "2D 2C 2H 2S BJ RJ")),
}
FULL = {"rounds": 7, "block": 1.0, "playout_rounds": 5, "worst_reps": 7}
QUICK = {"rounds": 3, "block": 0.5, "playout_rounds": 3, "worst_reps": 3}


def label(cfg) -> str:
    name, players, opts = cfg
    extra = "".join(f",{k}={v}" for k, v in opts.items())
    return f"{name.split('/', 1)[-1]}/{players}p{extra}"


class OurPlay:
    def __init__(self, cfg, seed: int):
        self.name, self.players, self.opts = cfg
        self.seed = seed
        self.rng = random.Random(seed)

    def run(self, seconds: float) -> tuple[int, int, float]:
        new_game, choice = shangyou.new_game, self.rng.choice
        moves = games = 0
        pc = time.perf_counter
        t0 = pc()
        while True:
            g = new_game(self.name, players=self.players, seed=self.seed, **self.opts)
            self.seed += 1
            while not g.over:
                g.apply(choice(g.legal_moves()))
                moves += 1
            games += 1
            if pc() - t0 >= seconds:
                break
        return moves, games, pc() - t0


class OpenSpielPlay:
    def __init__(self, seed: int):
        import pyspiel
        self.game = pyspiel.load_game("dou_dizhu")
        self.rng = random.Random(seed)

    def run(self, seconds: float) -> tuple[int, int, float]:
        choice = self.rng.choice
        moves = games = 0
        pc = time.perf_counter
        t0 = pc()
        while True:
            s = self.game.new_initial_state()
            while not s.is_terminal():
                if s.is_chance_node():
                    s.apply_action(choice(s.chance_outcomes())[0])
                else:
                    s.apply_action(choice(s.legal_actions()))
                    moves += 1
            games += 1
            if pc() - t0 >= seconds:
                break
        return moves, games, pc() - t0


def summ(xs) -> dict:
    xs = list(xs)
    return {"median": statistics.median(xs), "min": min(xs), "max": max(xs), "n": len(xs)}


def random_play(rounds: int, block: float, seed: int, spiel, configs=CONFIGS) -> dict:
    plays = {label(c): (OurPlay(c, seed), OurPlay(c, seed)) for c in configs}
    for py, c in plays.values():           # warm-up: imports, memo tables, first deals
        core.use(False)
        py.run(block / 4)
        core.use(True)
        c.run(block / 4)
    if spiel is not None:
        spiel.run(block / 4)
    rows = {k: {"py_games": [], "c_games": [], "py_moves": [], "c_moves": [], "ratio": [],
                "vs_openspiel": [], "py_vs_openspiel": []} for k in plays}
    spiel_rates, cal = [], []
    for r in range(rounds):
        cal.append(calib())
        gc.collect()
        keys = list(plays) if r % 2 == 0 else list(reversed(plays))
        prev_spiel = None
        if spiel is not None:
            m, g, dt = spiel.run(block)
            prev_spiel = m / dt
            spiel_rates.append(prev_spiel)
        for k in keys:
            py, c = plays[k]
            out = {}
            for on in ((False, True) if r % 2 == 0 else (True, False)):
                core.use(on)
                out[on] = (py if not on else c).run(block)
            core.use(True)
            row = rows[k]
            for on, tag in ((False, "py"), (True, "c")):
                m, g, dt = out[on]
                row[f"{tag}_games"].append(g / dt)
                row[f"{tag}_moves"].append(m / dt)
            row["ratio"].append(row["c_games"][-1] / row["py_games"][-1])
            if spiel is not None:
                m, g, dt = spiel.run(block)
                rate = m / dt
                spiel_rates.append(rate)
                mean = (prev_spiel + rate) / 2
                row["vs_openspiel"].append(row["c_moves"][-1] / mean)
                row["py_vs_openspiel"].append(row["py_moves"][-1] / mean)
                prev_spiel = rate
        print(f"  round {r + 1}/{rounds} (calibration {cal[-1]:.2f} M loops/s)", file=sys.stderr,
              flush=True)
    out = {"rounds": rounds, "block_s": block, "calib_Mloops_per_s": summ(cal), "presets": {}}
    if spiel_rates:
        out["openspiel_decisions_per_s"] = summ(spiel_rates)
    for k, row in rows.items():
        out["presets"][k] = {key: summ(v) for key, v in row.items() if v}
    return out


def playout_positions(games: int = 20):
    from shangyou.bots import climbing_heuristic
    views = []
    core.use(True)
    for d in range(games):
        g = shangyou.new_game("zheng-shangyou/pagat", players=5, seed=1000 + d)
        rng = random.Random(d)
        k = 0
        while not g.over:
            v = g.view(g.to_act)
            if k % 3 == 0 and len(v["legal_moves"]) > 1:
                views.append(v)
            k += 1
            g.apply(climbing_heuristic.choose(v, rng))
    return views


def playouts(views, rounds: int) -> dict:
    from shangyou.bots import climbing_search

    def run() -> tuple[int, float]:
        rng = random.Random(1)
        n = 0
        t0 = time.process_time()
        for v in views:
            s = climbing_search.Search(v, rng)
            for _ in range(10):
                s.playout(s.sampler.sample(rng))
                n += 1
        return n, time.process_time() - t0

    rates = {False: [], True: []}
    ratios = []
    for r in range(rounds):
        for on in ((False, True) if r % 2 == 0 else (True, False)):
            core.use(on)
            n, dt = run()
            rates[on].append(n / dt)
        ratios.append(rates[True][-1] / rates[False][-1])
    core.use(True)
    return {"positions": len(views), "playouts_per_round": 10 * len(views),
            "python_per_cpu_s": summ(rates[False]), "core_per_cpu_s": summ(rates[True]),
            "ratio": summ(ratios)}


def worst_hands(reps: int) -> dict:
    out = {}
    for name, (opts, text) in WORST.items():
        if opts is None:
            fam = shangyou.rules("zheng-shangyou/owen").family
        else:
            fam = shangyou.rules("zheng-shangyou/pagat", players=4, **opts).family
        hand = tuple(sorted(parse(text)))
        times: dict = {False: [], True: [], "moves": []}
        counts = {}
        token = object()
        for r in range(reps):
            for on in (False, True):
                core.use(on)
                gc.collect()
                t0 = time.perf_counter()
                counts[on] = len(fam.leads(hand))
                times[on].append(time.perf_counter() - t0)
            gc.collect()
            t0 = time.perf_counter()
            counts["moves"] = len(fam.play_moves(hand, None, token))
            times["moves"].append(time.perf_counter() - t0)
        core.use(True)
        assert counts[False] == counts[True] == counts["moves"], name
        py, c = statistics.median(times[False]), statistics.median(times[True])
        out[name] = {"hand": text, "cards": len(hand), "plays": counts[True],
                     "python_ms": py * 1e3, "core_ms": c * 1e3, "ratio": py / c,
                     "core_moves_ms": statistics.median(times["moves"]) * 1e3}
    return out


def span(s: dict) -> str:
    return f"[{s['min']:.2f}-{s['max']:.2f}]"


def report(res: dict) -> str:
    m = res["machine"]
    lines = [(f"shangyou ({m.get('git', '?')}), Python {m['python']}, {m.get('cpu', '?')}, "
              f"nproc {m['nproc']}, pinned to {res['affinity']}; core built: {core.AVAILABLE}")]
    rp = res["random_play"]
    lines.append(f"random play: {rp['rounds']} rounds x {rp['block_s']} s blocks")
    sp = rp.get("openspiel_decisions_per_s")
    if sp:
        lines.append(f"OpenSpiel {res['openspiel']} dou_dizhu from Python: "
                     f"{sp['median']:,.0f} decisions/s")
    else:
        lines.append(f"OpenSpiel skipped: {res['openspiel']}")
    head = (f"{'preset':<22} {'games/s py':>10} {'games/s core':>12} {'core/py':>8} "
            f"{'[min-max]':>11}")
    if sp:
        head += f" {'py/OS':>6} {'core/OS':>8} {'[min-max]':>11}"
    lines += ["", head, "-" * len(head)]
    for k, e in rp["presets"].items():
        ra = e["ratio"]
        row = (f"{k:<22} {e['py_games']['median']:>10,.0f} {e['c_games']['median']:>12,.0f} "
               f"{ra['median']:>7.2f}x {span(ra):>11}")
        if sp:
            vo, pv = e["vs_openspiel"], e["py_vs_openspiel"]
            row += f" {pv['median']:>5.2f}x {vo['median']:>7.2f}x {span(vo):>11}"
        lines.append(row)
    po = res.get("playouts")
    if po is None:
        return "\n".join(lines)
    lines += ["", (f"search playouts per CPU second (pagat 5p, {po['positions']} positions, "
                   f"{po['playouts_per_round']} playouts a round): Python "
                   f"{po['python_per_cpu_s']['median']:,.0f}, core "
                   f"{po['core_per_cpu_s']['median']:,.0f}, ratio {po['ratio']['median']:.1f}x "
                   f"{span(po['ratio'])}"), "", "worst hands (all leads):"]
    for name, w in res["worst_hands"].items():
        lines.append(f"  {name}: {w['plays']:,} plays, Python {w['python_ms']:.1f} ms, core "
                     f"{w['core_ms']:.1f} ms ({w['ratio']:.1f}x); the game's listing with the "
                     f"core {w['core_moves_ms']:.2f} ms")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--rounds", type=int)
    ap.add_argument("--block", type=float)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--core", type=int, help="core to pin to (default BENCH_CORE or first)")
    ap.add_argument("--json", metavar="PATH")
    ap.add_argument("--presets", metavar="LABELS",
                    help="random play of these presets only, by label, comma-separated "
                         "(e.g. owen/2p,pagat/5p)")
    ap.add_argument("--only-random", action="store_true",
                    help="random play only (no playouts, no worst hands)")
    args = ap.parse_args(argv)
    configs = CONFIGS
    if args.presets:
        wanted = args.presets.split(",")
        configs = [c for c in CONFIGS if label(c) in wanted]
        unknown = set(wanted) - {label(c) for c in configs}
        if unknown:
            ap.error(f"unknown presets {sorted(unknown)}; known: "
                     + ", ".join(label(c) for c in CONFIGS))
    if not core.AVAILABLE:
        print("the compiled core is not built (python setup.py build_ext --inplace)",
              file=sys.stderr)
        return 1
    cfg = dict(QUICK if args.quick else FULL)
    if args.rounds:
        cfg["rounds"] = cfg["playout_rounds"] = args.rounds
    if args.block:
        cfg["block"] = args.block
    machine = machine_info()
    affinity = pin(args.core)
    try:
        spiel = OpenSpielPlay(args.seed)
        import pyspiel
        spiel_what = getattr(pyspiel, "__version__", "(pyspiel)")
    except Exception as e:  # noqa: BLE001 - ImportError, or a broken install: measure without
        spiel, spiel_what = None, f"{type(e).__name__}: {e}"
    res = {"machine": machine, "affinity": affinity, "config": cfg, "openspiel": spiel_what,
           "loadavg_start": loadavg(), "started": time.strftime("%Y-%m-%d %H:%M:%S")}
    print("random play ...", file=sys.stderr, flush=True)
    res["random_play"] = random_play(cfg["rounds"], cfg["block"], args.seed, spiel, configs)
    if not args.only_random:
        print("playouts ...", file=sys.stderr, flush=True)
        res["playouts"] = playouts(playout_positions(), cfg["playout_rounds"])
        print("worst hands ...", file=sys.stderr, flush=True)
        res["worst_hands"] = worst_hands(cfg["worst_reps"])
    res["loadavg_end"] = loadavg()
    print(report(res))
    print(f"\n(load average {res['loadavg_start']} -> {res['loadavg_end']}; quote the ratios)")
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(res, indent=2, sort_keys=True, default=str) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
