"""Speed benchmark of the shangyou climbing engine, with RLCard's Dou Dizhu engine as the yardstick.

Usage::

    python bench/bench_zsy.py [--quick] [--rounds N] [--block SECONDS] [--core N] [--json PATH]

What it measures (all in ONE process pinned to ONE core):

1. **Random play**, per preset and player count: whole single hands from
   ``shangyou.new_game(name, players=p, seed=s)`` with consecutive seeds, each decision being
   ``g.legal_moves()`` + ``random.choice`` + ``g.apply``.  A *move* is one ``apply`` (passes
   included); the timed span includes dealing (``new_game``), as RLCard's includes ``init_game``.
   Reported: moves/s and games/s (medians over rounds).
2. **RLCard 1.2 Dou Dizhu engine** (``rlcard.games.doudizhu.game.DoudizhuGame``:
   ``init_game`` + ``step(random.choice(state["actions"]))``, no observation encoding: the
   "engine only" anchor of ``shared/reference/anchor-bench``), in blocks that alternate with ours:
   every round runs ``R P1 R P2 R ... Pn R`` (order of the presets reversed every other round),
   each block a fixed wall time of whole games.  The ratio of a preset's block is its moves/s over
   the mean of the two RLCard blocks around it; we report the median of those per-round ratios.
   The machine's speed drifts by up to 2x within minutes, so **the ratios are the numbers to
   quote**, not the absolute rates.
3. **Legal-move generation**: decision states collected from random games with a fixed seed;
   ``family.leads(hand)`` (leading) and ``family.follows(hand, prev)`` (following) are timed
   directly, several repetitions per state; per state we keep the median of its repetitions and
   report the median and the worst over the states, in microseconds.
4. **A fixed worst hand** per family (13 cards: all four 2s, both jokers and seven others, found by
   a hill-climb for the most leads): median and worst time to list all its leads, over >= 50 reps,
   and the number of leads.  Target: under 5 ms.

If RLCard is not importable the run goes on without it and says so.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

import shangyou
from shangyou.cards import parse
from shangyou.games.sheng_ji.follow import legal_follows
from shangyou.games.sheng_ji.game import lead_units
from shangyou.registry import preset_info, preset_names

# --------------------------------------------------------------------------- configuration
# Player counts per preset (all of them must be allowed by the preset; checked at start).
PLAYER_COUNTS = {
    "zheng-shangyou/pagat": (4, 5, 8),
    "zheng-shangyou/pagat-teams": (4, 6),
    "zheng-shangyou/winner": (3, 4),
    "zheng-shangyou/owen": (2, 4),
    "zheng-fen": (3, 4, 6),
    "sheng-ji": (4,),
    "sheng-ji/single-deck": (4,),
    "sheng-ji/zhao-pengyou": (5, 6),
}
HEADLINE = ("zheng-shangyou/pagat", 5)        # the preset's default table: the 3x target row
TARGET_RATIO = 3.0                              # ours / RLCard raw engine, moves per second
TARGET_WORST_MS = 5.0                           # all leads of the worst hand

# Worst 13-card hands: four 2s + BJ + RJ + seven others.  The seven were found by hill-climbing
# over all 7-card choices from 3..A, maximising the number of leads (pagat: 5 6 77 88 9 with
# mostly one suit gives the most leads; the 3-9 straight gives fewer leads but similar time).
# Owen ignores suits; its maximum is reached by the same rank shape.
WORST_HANDS = {
    "zheng-shangyou/pagat": "5S 6S 7C 7S 8C 8S 9S 2D 2C 2H 2S BJ RJ",
    "zheng-shangyou/owen": "5S 6S 7C 7S 8C 8S 9S 2D 2C 2H 2S BJ RJ",
    # Zheng Fen: a three and counting cards make many full houses; 2s and jokers fill sequences
    "zheng-fen": "3S 5S 7C 7S 8C 8S KS 2D 2C 2H 2S BJ RJ",
}

FULL = {"rounds": 9, "block": 1.0, "legal_games": 30, "legal_reps": 5, "worst_reps": 200}
QUICK = {"rounds": 4, "block": 0.6, "legal_games": 5, "legal_reps": 3, "worst_reps": 50}


def pin(core: int | None) -> list[int] | None:
    """Pin this process to one core (the given one, else BENCH_CORE, else the first allowed)."""
    if not hasattr(os, "sched_setaffinity"):
        return None
    allowed = sorted(os.sched_getaffinity(0))
    if core is None:
        core = int(os.environ.get("BENCH_CORE", allowed[0]))
    try:
        os.sched_setaffinity(0, {core})
    except OSError as e:
        print(f"warning: could not pin to core {core}: {e}", file=sys.stderr)
    return sorted(os.sched_getaffinity(0))


def configs() -> list[tuple[str, int]]:
    out = []
    for name in preset_names():
        allowed = preset_info(name)["players"]
        counts = PLAYER_COUNTS.get(name, (preset_info(name)["defaults"]["players"],))
        for p in counts:
            if p in allowed:
                out.append((name, p))
    return out


def label(name: str, players: int) -> str:
    return f"{name.split('/', 1)[-1]}/{players}p"


def machine_info() -> dict:
    info = {"nproc": os.cpu_count(), "python": sys.version.split()[0],
            "implementation": platform.python_implementation(), "platform": platform.platform(),
            "shangyou": getattr(shangyou, "__version__", "?")}
    try:
        info["nproc"] = int(subprocess.run(["nproc", "--all"], capture_output=True,
                                           text=True).stdout)
    except (OSError, ValueError):
        pass
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                info["cpu"] = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        root = Path(__file__).resolve().parent.parent
        rev = subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--", "src"],
                               capture_output=True, text=True).stdout.strip()
        if rev:
            info["git"] = rev + ("+dirty-src" if dirty else "")
            info["git_dirty_src"] = [line[3:] for line in dirty.splitlines()]
    except OSError:
        pass
    return info


def loadavg() -> str | None:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return None


# --------------------------------------------------------------------------- random play
class OurPlay:
    """Whole random hands of one preset, consecutive seeds, one fixed-seed chooser."""

    def __init__(self, name: str, players: int, seed: int):
        self.name, self.players = name, players
        self.next_seed = seed
        self.rng = random.Random(seed)

    def run(self, seconds: float) -> tuple[int, int, float]:
        """Play whole hands until ``seconds`` have passed: (moves, games, elapsed)."""
        new_game, choice = shangyou.new_game, self.rng.choice
        name, players = self.name, self.players
        seed = self.next_seed
        moves = games = 0
        pc = time.perf_counter
        t0 = pc()
        end = t0 + seconds
        while True:
            g = new_game(name, players=players, seed=seed)
            seed += 1
            while not g.over:
                g.apply(choice(g.legal_moves()))
                moves += 1
            games += 1
            t = pc()
            if t >= end:
                break
        self.next_seed = seed
        return moves, games, t - t0


class RLCardPlay:
    """RLCard 1.2 DoudizhuGame, engine only (as anchor-bench ``bench_raw``)."""

    def __init__(self, seed: int):
        import numpy as np
        from rlcard.games.doudizhu.game import DoudizhuGame
        self.game = DoudizhuGame()
        self.game.np_random = np.random.RandomState(seed)
        self.rng = random.Random(seed)

    def run(self, seconds: float) -> tuple[int, int, float]:
        game, choice = self.game, self.rng.choice
        moves = games = 0
        pc = time.perf_counter
        t0 = pc()
        end = t0 + seconds
        while True:
            state, _ = game.init_game()
            while not game.is_over():
                state, _ = game.step(choice(state["actions"]))
                moves += 1
            games += 1
            t = pc()
            if t >= end:
                break
        return moves, games, t - t0


def rlcard_or_reason(seed: int):
    try:
        import rlcard  # noqa: F401
        version = getattr(rlcard, "__version__", None)
        if version is None:
            from importlib.metadata import version as _v
            version = _v("rlcard")
        return RLCardPlay(seed), version, None
    except Exception as e:  # ImportError, or a numpy incompatibility inside rlcard
        return None, None, f"{type(e).__name__}: {e}"


def calib(n: int = 300_000) -> float:
    """A fixed pure-Python loop, in M loops/s: shows the machine's speed drift per round."""
    acc = 0
    t0 = time.perf_counter()
    for i in range(n):
        acc = (acc * 31 + i) & 0xFFFFFFFF
    return n / (time.perf_counter() - t0) / 1e6


def throughput(cfgs, rounds: int, block: float, seed: int, rl) -> dict:
    ours = {c: OurPlay(c[0], c[1], seed) for c in cfgs}
    # warm-up: imports, caches, first deals
    for p in ours.values():
        p.run(min(0.2, block / 2))
    if rl is not None:
        rl.run(min(0.2, block / 2))
    rows = {c: {"moves_per_s": [], "games_per_s": [], "ratio": []} for c in cfgs}
    rl_rates, rl_games, cal = [], [], []
    for r in range(rounds):
        order = list(cfgs) if r % 2 == 0 else list(reversed(cfgs))
        cal.append(calib())
        gc.collect()
        prev_rl = None
        if rl is not None:
            m, g, dt = rl.run(block)
            prev_rl = m / dt
            rl_rates.append(prev_rl)
            rl_games.append(g / dt)
        for c in order:
            m, g, dt = ours[c].run(block)
            rate = m / dt
            rows[c]["moves_per_s"].append(rate)
            rows[c]["games_per_s"].append(g / dt)
            if rl is not None:
                m2, g2, dt2 = rl.run(block)
                next_rl = m2 / dt2
                rl_rates.append(next_rl)
                rl_games.append(g2 / dt2)
                rows[c]["ratio"].append(rate / ((prev_rl + next_rl) / 2))
                prev_rl = next_rl
        print(f"  round {r + 1}/{rounds} done (calib {cal[-1]:.2f} M loops/s"
              + (f", RLCard {statistics.median(rl_rates[-len(cfgs) - 1:]):,.0f} moves/s)"
                 if rl is not None else ")"), file=sys.stderr, flush=True)
    out = {"rounds": rounds, "block_s": block, "calib_Mloops_per_s": summ(cal), "presets": {}}
    if rl is not None:
        out["rlcard_moves_per_s"] = summ(rl_rates)
        out["rlcard_games_per_s"] = summ(rl_games)
    for c in cfgs:
        d = rows[c]
        entry = {"name": c[0], "players": c[1],
                 "moves_per_s": summ(d["moves_per_s"]), "games_per_s": summ(d["games_per_s"]),
                 "moves_per_game": statistics.median(d["moves_per_s"][i] / d["games_per_s"][i]
                                                     for i in range(len(d["moves_per_s"])))}
        if d["ratio"]:
            entry["ratio_vs_rlcard"] = summ(d["ratio"])
        out["presets"][label(*c)] = entry
    return out


def summ(values) -> dict:
    values = list(values)
    return {"median": statistics.median(values), "min": min(values), "max": max(values),
            "n": len(values)}


# --------------------------------------------------------------------------- legal moves
def collect_states(name: str, players: int, games: int, seed: int):
    """(hand, prev) at every play decision of ``games`` random hands; prev None = leading."""
    rng = random.Random(seed)
    states = []
    for s in range(seed, seed + games):
        g = shangyou.new_game(name, players=players, seed=s)
        while not g.over:
            if g.phase == "play":
                states.append((tuple(g.hands[g.to_act]), g.last))
            g.apply(rng.choice(g.legal_moves()))
    return states


def _sj_show(hand) -> str:
    return str(parse(hand[2]))


def _prev_text(prev) -> str:
    if isinstance(prev, tuple):          # Sheng ji: (lead cards, lead units)
        return str(parse(prev[0]))
    return f"{prev} ({prev.describe()})"


def time_states(family, states, reps: int, show=None) -> dict:
    pc = time.perf_counter_ns
    lead_t, lead_n, fol_t, fol_n = [], [], [], []
    worst = {"lead": (0, None, 0), "follow": (0, None, 0)}
    leads, follows = family.leads, family.follows
    for hand, prev in states:
        ts = []
        if prev is None:
            for _ in range(reps):
                t0 = pc()
                res = leads(hand)
                ts.append(pc() - t0)
            med = statistics.median(ts) / 1000
            lead_t.append(med)
            lead_n.append(len(res))
            if med > worst["lead"][0]:
                worst["lead"] = (med, hand, len(res))
        else:
            for _ in range(reps):
                t0 = pc()
                res = follows(hand, prev)
                ts.append(pc() - t0)
            med = statistics.median(ts) / 1000
            fol_t.append(med)
            fol_n.append(len(res))
            if med > worst["follow"][0]:
                worst["follow"] = (med, hand, len(res), prev)
    out = {}
    for kind, t, n in (("lead", lead_t, lead_n), ("follow", fol_t, fol_n)):
        if not t:
            continue
        w = worst[kind]
        out[kind] = {"states": len(t), "median_us": statistics.median(t), "worst_us": max(t),
                     "mean_us": statistics.fmean(t), "mean_moves": statistics.fmean(n),
                     "max_moves": max(n),
                     "worst_hand": show(w[1]) if show else str(parse(w[1])),
                     "worst_hand_moves": w[2]}
        if kind == "follow":
            out[kind]["worst_prev"] = _prev_text(w[3])
    return out


class _ShengJiTimer:
    """Times Sheng ji's lead listing and legal-follow generation like a climbing family."""

    def __init__(self, states):
        self.states = states

    def leads(self, state):
        trump, decks, hand = state
        return lead_units(trump, hand, decks)

    def follows(self, state, prev):
        trump, decks, hand = state
        lead, units = prev
        return legal_follows(trump, hand, lead, units) or []


def collect_sheng_ji_states(name: str, players: int, games: int, seed: int):
    """((trump, decks, hand), prev) at every play decision; prev None = leading."""
    rng = random.Random(seed)
    states = []
    for s in range(seed, seed + games):
        g = shangyou.new_game(name, players=players, seed=s)
        while not g.over:
            if g.phase == "play" and not g.pending:
                state = (g.trump, g.rules.decks, tuple(g.hands[g.to_act]))
                states.append((state, (g.trick[0][1], g.lead_units) if g.trick else None))
            g.apply(rng.choice(g.legal_moves()))
    return states


def legal_generation(cfgs, games: int, reps: int, seed: int) -> dict:
    out = {}
    for name, players in cfgs:
        if name.startswith("sheng-ji"):
            states = collect_sheng_ji_states(name, players, games, seed)
            gc.collect()
            timed = time_states(_ShengJiTimer(states), states, reps, show=_sj_show)
            out[label(name, players)] = {"name": name, "players": players, "games": games,
                                         "reps": reps, **timed}
            continue
        fam = shangyou.rules(name).family
        states = collect_states(name, players, games, seed)
        gc.collect()
        out[label(name, players)] = {"name": name, "players": players, "games": games,
                                     "reps": reps, **time_states(fam, states, reps)}
    return out


def worst_hands(reps: int) -> dict:
    out = {}
    for name, text in WORST_HANDS.items():
        if name not in preset_names():
            continue
        fam = shangyou.rules(name).family
        hand = tuple(sorted(parse(text)))
        assert len(hand) == 13 and {48, 49, 50, 51, 52, 53} <= set(hand), text
        pc = time.perf_counter_ns
        n = len(fam.leads(hand))  # warm-up
        gc.collect()
        ts = []
        for _ in range(reps):
            t0 = pc()
            fam.leads(hand)
            ts.append(pc() - t0)
        med = statistics.median(ts) / 1e6
        out[name] = {"hand": str(parse(hand)), "leads": n, "reps": reps, "median_ms": med,
                     "min_ms": min(ts) / 1e6, "worst_ms": max(ts) / 1e6,
                     "target_ms": TARGET_WORST_MS, "met": med < TARGET_WORST_MS}
    return out


# --------------------------------------------------------------------------- report
def fmt_int(x: float) -> str:
    return f"{x:,.0f}"


def report(res: dict) -> str:
    lines = []
    m = res["machine"]
    lines.append(f"shangyou {m.get('shangyou')} ({m.get('git', '?')}), Python {m['python']}, "
                 f"{m.get('cpu', '?')}, nproc {m['nproc']}, pinned to core(s) {res['affinity']}")
    tp = res["throughput"]
    lines.append(f"random play: {tp['rounds']} rounds x {tp['block_s']:.2f} s blocks, "
                 f"calibration loop {tp['calib_Mloops_per_s']['median']:.2f} "
                 f"[{tp['calib_Mloops_per_s']['min']:.2f}-{tp['calib_Mloops_per_s']['max']:.2f}]"
                 " M loops/s")
    rl = res["rlcard"]
    if rl["available"]:
        r = tp["rlcard_moves_per_s"]
        lines.append(f"RLCard {rl['version']} DoudizhuGame (engine only): "
                     f"{fmt_int(r['median'])} moves/s [{fmt_int(r['min'])}-{fmt_int(r['max'])}], "
                     f"{tp['rlcard_games_per_s']['median']:.1f} games/s")
    else:
        lines.append(f"RLCard skipped: {rl['reason']}")
    lines.append("")
    head = f"{'preset':<18} {'moves/s':>9} {'[min-max]':>17} {'games/s':>8} {'moves/game':>10}"
    if rl["available"]:
        head += f" {'x RLCard':>8} {'[min-max]':>11}"
    lines.append(head)
    lines.append("-" * len(head))
    for key, e in tp["presets"].items():
        mv = e["moves_per_s"]
        row = (f"{key:<18} {fmt_int(mv['median']):>9} "
               f"{'[' + fmt_int(mv['min']) + '-' + fmt_int(mv['max']) + ']':>17} "
               f"{e['games_per_s']['median']:>8.1f} {e['moves_per_game']:>10.1f}")
        if "ratio_vs_rlcard" in e:
            ra = e["ratio_vs_rlcard"]
            span = f"[{ra['min']:.2f}-{ra['max']:.2f}]"
            row += f" {ra['median']:>7.2f}x {span:>11}"
        lines.append(row)
    lines.append("")
    lg = res["legal"]
    head = (f"{'legal moves (us)':<18} {'lead med':>9} {'lead worst':>10} {'#leads':>7} "
            f"{'follow med':>10} {'follow worst':>12} {'#follows':>8} {'states':>7}")
    lines.append(head)
    lines.append("-" * len(head))
    for key, e in lg.items():
        nan = {"median_us": float("nan"), "worst_us": float("nan"), "mean_moves": float("nan"),
               "states": 0}
        ld, fo = e.get("lead", nan), e.get("follow", nan)
        lines.append(
            f"{key:<18} {ld['median_us']:>9.1f} {ld['worst_us']:>10.0f} {ld['mean_moves']:>7.1f} "
            f"{fo['median_us']:>10.1f} {fo['worst_us']:>12.0f} {fo['mean_moves']:>8.2f} "
            f"{ld['states'] + fo['states']:>7}")
    lines.append("  (#leads / #follows: mean number of plays listed; follows exclude 'pass')")
    lines.append("")
    cal = res.get("worst_hands_calib_Mloops_per_s")
    lines.append("worst 13-card hands (all leads)"
                 + (f", calibration loop {cal[0]:.2f} / {cal[1]:.2f} M loops/s before / after"
                    " (absolute times: compare at similar calibration speed)" if cal else "")
                 + ":")
    for name, w in res["worst_hands"].items():
        lines.append(f"  {name:<22} {w['hand']}: {w['leads']} leads, median "
                     f"{w['median_ms']:.2f} ms (min {w['min_ms']:.2f}, worst {w['worst_ms']:.2f}) "
                     f"over {w['reps']} reps")
    lines.append("")
    lines.append("targets:")
    for t in res["targets"]:
        lines.append(f"  [{'MET' if t['met'] else 'NOT MET' if t['met'] is False else 'SKIPPED'}] "
                     f"{t['what']}: {t['value']}")
    return "\n".join(lines)


def targets(res: dict) -> list[dict]:
    out = []
    key = label(*HEADLINE)
    e = res["throughput"]["presets"].get(key)
    if e is not None:
        if "ratio_vs_rlcard" in e:
            r = e["ratio_vs_rlcard"]["median"]
            out.append({"what": f"{key} random play >= {TARGET_RATIO:g}x RLCard raw engine "
                                "(median of per-round ratios, moves/s)",
                        "value": f"{r:.2f}x", "met": r >= TARGET_RATIO})
        else:
            out.append({"what": f"{key} >= {TARGET_RATIO:g}x RLCard raw engine",
                        "value": "RLCard not available", "met": None})
    for name, w in res["worst_hands"].items():
        out.append({"what": f"{name} worst 13-card hand, all leads < {TARGET_WORST_MS:g} ms "
                            "(median)",
                    "value": f"{w['median_ms']:.2f} ms median, {w['worst_ms']:.2f} ms worst, "
                             f"{w['leads']} leads",
                    "met": w["met"]})
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="about a minute instead of ~3")
    ap.add_argument("--rounds", type=int, help="interleaved rounds of random play")
    ap.add_argument("--block", type=float, help="seconds per block of random play")
    ap.add_argument("--seed", type=int, default=0, help="first deal seed (default 0)")
    ap.add_argument("--core", type=int, help="core to pin to (default BENCH_CORE or first)")
    ap.add_argument("--no-rlcard", action="store_true", help="skip the RLCard comparison")
    ap.add_argument("--json", metavar="PATH", help="also write all results as JSON")
    args = ap.parse_args(argv)
    cfg = dict(QUICK if args.quick else FULL)
    if args.rounds is not None:
        cfg["rounds"] = max(1, args.rounds)
    if args.block is not None:
        cfg["block"] = args.block

    machine = machine_info()  # before pinning, so that nproc sees every core
    affinity = pin(args.core)
    t_start = time.perf_counter()
    cfgs = configs()
    res = {"mode": "quick" if args.quick else "full", "config": cfg, "seed": args.seed,
           "affinity": affinity, "machine": machine, "loadavg_start": loadavg(),
           "started": time.strftime("%Y-%m-%d %H:%M:%S")}
    if args.no_rlcard:
        rl, version, reason = None, None, "--no-rlcard"
    else:
        rl, version, reason = rlcard_or_reason(args.seed)
    res["rlcard"] = {"available": rl is not None, "version": version, "reason": reason}
    if rl is None:
        print(f"RLCard skipped ({reason}); measuring shangyou only", file=sys.stderr)
    try:
        import numpy
        res["machine"]["numpy"] = numpy.__version__
    except ImportError:
        pass

    n_blocks = len(cfgs) * (2 if rl is not None else 1) + (1 if rl is not None else 0)
    print(f"random play: {len(cfgs)} presets, {cfg['rounds']} rounds of {n_blocks} blocks x "
          f"{cfg['block']} s ...", file=sys.stderr, flush=True)
    res["throughput"] = throughput(cfgs, cfg["rounds"], cfg["block"], args.seed, rl)
    print("legal-move generation ...", file=sys.stderr, flush=True)
    res["legal"] = legal_generation(cfgs, cfg["legal_games"], cfg["legal_reps"],
                                    10_000 + args.seed)
    print("worst hands ...", file=sys.stderr, flush=True)
    cal_before = calib()
    res["worst_hands"] = worst_hands(cfg["worst_reps"])
    res["worst_hands_calib_Mloops_per_s"] = [cal_before, calib()]
    res["targets"] = targets(res)
    res["loadavg_end"] = loadavg()
    res["elapsed_s"] = time.perf_counter() - t_start

    print(report(res))
    print(f"\n(total {res['elapsed_s']:.0f} s; load average {res['loadavg_start']} -> "
          f"{res['loadavg_end']}; the machine's speed drifts: quote the ratios)")
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(res, indent=2, sort_keys=True, default=str) + "\n")
        print(f"results written to {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
