"""Side-by-side speed: our engine and environments against RLCard, OpenSpiel and Shimmy.

Usage::

    python bench/bench_env.py [--quick] [--rounds N] [--block SECONDS] [--core N] [--json PATH]

Everything runs in ONE process pinned to ONE core. Systems (each a block of whole games):

* ``ours engine <preset>``: random play of every preset at its default table
  (``legal_moves`` + ``random.choice`` + ``apply``, dealing included), as ``bench_zsy.py``.
* ``ours env <preset>``: the PettingZoo AEC env (``shangyou.env.make``, unwrapped) driven by the
  usual loop ``agent_iter`` / ``last()`` / random id from the int8 mask / ``step``.
* ``ours batch pagat``: ``BatchSim`` of 64 games with observations; a step is one game's move.
* ``RLCard raw``: RLCard 1.2 ``DoudizhuGame`` (``init_game`` + ``step(random action string)``);
  the yardstick block that runs between every two other blocks.
* ``RLCard env.run``: ``rlcard.make("doudizhu")`` with three ``RandomAgent``s,
  ``env.run(is_training=True)`` (the anchors' fast mode).
* ``OpenSpiel C++``: ``pyspiel`` ``dou_dizhu`` from Python: ``legal_actions`` +
  ``random.choice`` + ``apply_action``, chance outcomes drawn uniformly (exact for this game).
  Moves are decisions (bids and plays); the 52 chance steps of the deal are not counted.
* ``OpenSpiel rl_environment``: ``rl_environment.Environment("dou_dizhu")`` with its usual
  loop (``reset``; ``random.choice`` of ``legal_actions[current_player]``; ``step([a])``); the
  env samples the deal's chance outcomes itself, and steps are decisions. Each time step it
  builds, for **every** player, ``observation_tensor`` (dou_dizhu has no information-state
  tensor, so the env's default falls back to it: 159 floats, own hand and public cards) and
  ``legal_actions``, as Python lists. Ours builds one observation per step, the acting
  agent's (``last()``), but a larger one: int8, the hand, the public table and the candidate
  rows of every legal move (8,964 bytes for pagat 5p at 128 candidates); both give each step's
  observation, legal actions and rewards to the learner.
* ``Shimmy OpenSpiel AEC``: ``shimmy.OpenSpielCompatibilityV0(game_name="dou_dizhu")`` with the
  same AEC loop as ours (its mask is in ``info``).
* ``ours OpenSpiel pagat/5p``, ``ours OpenSpiel rl_environment pagat/5p``, ``ours RLCard
  env.run pagat/5p``: pagat 5p as an OpenSpiel game and an RLCard environment
  (``shangyou.env.openspiel``, ``shangyou.env.rlcard_env``) with the loops of the three systems
  above; the OpenSpiel loop asks for no observation, the other two build them as their
  libraries do (``rl_environment``: every player's information-state tensor each step).

Each block's rate is divided by the mean of the RLCard raw blocks before and after it; a ratio
between two systems is taken per round (both measured against the same yardstick within
seconds) and we report the median over rounds with its min-max. Quote ratios, not absolute
rates: the machine's speed drifts by up to 2x within minutes.
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import statistics
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_zsy as bz  # noqa: E402

import shangyou  # noqa: E402


def _timed(run_one, seconds: float) -> tuple[int, int, float]:
    """Call ``run_one()`` (one whole game, returns its moves) until ``seconds`` have passed."""
    moves = games = 0
    pc = time.perf_counter
    t0 = pc()
    end = t0 + seconds
    while True:
        moves += run_one()
        games += 1
        t = pc()
        if t >= end:
            return moves, games, t - t0


class OurEnv:
    def __init__(self, name: str, seed: int):
        import numpy as np
        from shangyou.env import make
        self.env = make(name)
        self.rng = random.Random(seed)
        self.seed = seed
        self.flat = np.flatnonzero

    def game(self) -> int:
        e, rng, flat = self.env, self.rng, self.flat
        e.reset(seed=self.seed)
        self.seed += 1
        steps = 0
        for agent in e.agent_iter():
            obs, rew, term, trunc, info = e.last()
            if term or trunc:
                e.step(None)
                continue
            ids = flat(obs["action_mask"])
            e.step(int(ids[rng.randrange(len(ids))]))
            steps += 1
        return steps

    def run(self, seconds):
        return _timed(self.game, seconds)


class OurBatch:
    def __init__(self, name: str, seed: int, n_games: int = 64):
        import numpy as np
        from shangyou.env.batch import BatchSim
        self.sim = BatchSim(name, n_games=n_games, seed=seed)
        self.rng = np.random.default_rng(seed)

    def run(self, seconds):
        sim = self.sim
        moves = 0
        done_before = int(sim.episodes.sum())
        pc = time.perf_counter
        t0 = pc()
        end = t0 + seconds
        while True:
            sim.step(sim.random_actions(self.rng))
            moves += sim.n_games
            t = pc()
            if t >= end:
                break
        return moves, int(sim.episodes.sum()) - done_before, t - t0


class RLCardEnvRun:
    def __init__(self, seed: int):
        import numpy as np
        import rlcard
        from rlcard.agents import RandomAgent
        self.env = rlcard.make("doudizhu", config={"seed": seed})
        self.env.set_agents([RandomAgent(num_actions=self.env.num_actions) for _ in range(3)])
        np.random.seed(seed)

    def game(self) -> int:
        self.env.run(is_training=True)
        return len(self.env.action_recorder)

    def run(self, seconds):
        return _timed(self.game, seconds)


class OpenSpielPlay:
    def __init__(self, seed: int):
        import pyspiel
        self.game_obj = pyspiel.load_game("dou_dizhu")
        self.rng = random.Random(seed)

    def game(self) -> int:
        choice = self.rng.choice
        s = self.game_obj.new_initial_state()
        dec = 0
        while not s.is_terminal():
            if s.is_chance_node():
                s.apply_action(choice(s.chance_outcomes())[0])
            else:
                s.apply_action(choice(s.legal_actions()))
                dec += 1
        return dec

    def run(self, seconds):
        return _timed(self.game, seconds)


class OpenSpielRL:
    def __init__(self, seed: int):
        from open_spiel.python import rl_environment
        self.env = rl_environment.Environment("dou_dizhu")
        self.env.seed(seed)
        self.rng = random.Random(seed)

    def game(self) -> int:
        env, choice = self.env, self.rng.choice
        time_step = env.reset()
        dec = 0
        while not time_step.last():
            p = time_step.observations["current_player"]
            a = choice(time_step.observations["legal_actions"][p])
            time_step = env.step([a])
            dec += 1
        return dec

    def run(self, seconds):
        return _timed(self.game, seconds)


class ShimmyEnv:
    def __init__(self, seed: int):
        import numpy as np
        from shimmy import OpenSpielCompatibilityV0
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            self.env = OpenSpielCompatibilityV0(game_name="dou_dizhu")
        self.rng = random.Random(seed)
        self.seed = seed
        self.flat = np.flatnonzero

    def game(self) -> int:
        e, rng, flat = self.env, self.rng, self.flat
        e.reset(seed=self.seed)
        self.seed += 1
        steps = 0
        for agent in e.agent_iter():
            obs, rew, term, trunc, info = e.last()
            if term or trunc:
                e.step(None)
                continue
            ids = flat(info["action_mask"])
            e.step(int(ids[rng.randrange(len(ids))]))
            steps += 1
        return steps

    def run(self, seconds):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return _timed(self.game, seconds)


class OursOpenSpiel(OpenSpielPlay):
    """pagat 5p as an OpenSpiel game (``shangyou.env.openspiel``), the same loop as
    ``OpenSpielPlay``: the deal drawn from ``chance_outcomes()`` (65,536 of them), decisions
    from ``legal_actions``; no observation is asked for."""

    def __init__(self, seed: int):
        import pyspiel
        from shangyou.env import openspiel as sy_spiel
        sy_spiel.register()
        self.game_obj = pyspiel.load_game("shangyou_zheng_shangyou_pagat")
        self.rng = random.Random(seed)


class OursOpenSpielRL(OpenSpielRL):
    """pagat 5p through OpenSpiel's ``rl_environment``: each time step every player's
    information-state tensor (the AEC observation, 8,964 floats) and legal actions."""

    def __init__(self, seed: int):
        import pyspiel
        from open_spiel.python import rl_environment
        from shangyou.env import openspiel as sy_spiel
        sy_spiel.register()
        self.env = rl_environment.Environment(pyspiel.load_game("shangyou_zheng_shangyou_pagat"))
        self.env.seed(seed)
        self.rng = random.Random(seed)


class OursRLCardEnvRun(RLCardEnvRun):
    """pagat 5p as an RLCard environment (``shangyou.env.rlcard_env``), ``env.run`` with five
    ``RandomAgent``s, as ``RLCardEnvRun``."""

    def __init__(self, seed: int):
        import numpy as np
        import rlcard
        from rlcard.agents import RandomAgent
        from shangyou.env import rlcard_env
        rlcard_env.register()
        self.env = rlcard.make("shangyou-pagat", config={"seed": seed})
        self.env.set_agents([RandomAgent(num_actions=self.env.num_actions) for _ in range(5)])
        np.random.seed(seed)


def build_systems(seed: int, presets: list[str]) -> tuple[dict, dict]:
    """name -> runner for every system that can be built here; name -> reason for the rest."""
    systems, skipped = {}, {}
    for name in presets:
        players = shangyou.preset_info(name)["defaults"]["players"]
        systems[f"ours engine {bz.label(name, players)}"] = bz.OurPlay(name, players, seed)
    for name in presets:
        players = shangyou.preset_info(name)["defaults"]["players"]
        systems[f"ours env {bz.label(name, players)}"] = OurEnv(name, seed)
    systems["ours batch pagat/5p (64 games)"] = OurBatch("zheng-shangyou/pagat", seed)
    for key, ctor in (("RLCard env.run", RLCardEnvRun), ("OpenSpiel C++ dou_dizhu", OpenSpielPlay),
                      ("OpenSpiel rl_environment", OpenSpielRL),
                      ("Shimmy OpenSpiel AEC", ShimmyEnv),
                      ("ours OpenSpiel pagat/5p", OursOpenSpiel),
                      ("ours OpenSpiel rl_environment pagat/5p", OursOpenSpielRL),
                      ("ours RLCard env.run pagat/5p", OursRLCardEnvRun)):
        try:
            systems[key] = ctor(seed)
        except Exception as e:  # not installed, or an incompatibility
            skipped[key] = f"{type(e).__name__}: {e}"
    return systems, skipped


def measure(systems: dict, rl, rounds: int, block: float) -> dict:
    for s in systems.values():
        s.run(min(0.2, block / 2))        # warm-up: imports, caches, first deals
    rl.run(min(0.2, block / 2))
    names = list(systems)
    rows = {k: {"moves_per_s": [], "games_per_s": [], "ratio": []} for k in names}
    rl_rates, rl_games, cal = [], [], []
    for r in range(rounds):
        order = names if r % 2 == 0 else list(reversed(names))
        cal.append(bz.calib())
        gc.collect()
        m, g, dt = rl.run(block)
        prev = m / dt
        rl_rates.append(prev)
        rl_games.append(g / dt)
        for k in order:
            m, g, dt = systems[k].run(block)
            rate = m / dt
            rows[k]["moves_per_s"].append(rate)
            rows[k]["games_per_s"].append(g / dt)
            m2, g2, dt2 = rl.run(block)
            nxt = m2 / dt2
            rl_rates.append(nxt)
            rl_games.append(g2 / dt2)
            rows[k]["ratio"].append(rate / ((prev + nxt) / 2))
            prev = nxt
        print(f"  round {r + 1}/{rounds} done (calib {cal[-1]:.2f} M loops/s, RLCard raw "
              f"{statistics.median(rl_rates[-len(names) - 1:]):,.0f} moves/s)",
              file=sys.stderr, flush=True)
    out = {"rounds": rounds, "block_s": block, "calib_Mloops_per_s": bz.summ(cal),
           "rlcard_raw": {"moves_per_s": bz.summ(rl_rates), "games_per_s": bz.summ(rl_games)},
           "systems": {}}
    for k in names:
        d = rows[k]
        out["systems"][k] = {"moves_per_s": bz.summ(d["moves_per_s"]),
                             "games_per_s": bz.summ(d["games_per_s"]),
                             "ratio_vs_rlcard_raw": bz.summ(d["ratio"]),
                             "per_round_ratio": d["ratio"]}
    return out


# the headline comparisons: (numerator, denominator, target)
KEY_PAIRS = [
    ("ours engine pagat/5p", "RLCard raw", 10.0),
    ("ours env pagat/5p", "RLCard env.run", 20.0),
    ("ours env pagat/5p", "OpenSpiel rl_environment", 1.0),
    ("ours engine pagat/5p", "OpenSpiel C++ dou_dizhu", None),
    ("ours env pagat/5p", "Shimmy OpenSpiel AEC", None),
    ("ours env pagat/5p", "ours engine pagat/5p", None),
    ("ours batch pagat/5p (64 games)", "ours env pagat/5p", None),
    ("OpenSpiel C++ dou_dizhu", "RLCard raw", None),
    ("RLCard env.run", "RLCard raw", None),
    ("ours OpenSpiel pagat/5p", "ours env pagat/5p", None),
    ("ours OpenSpiel rl_environment pagat/5p", "ours env pagat/5p", None),
    ("ours RLCard env.run pagat/5p", "ours env pagat/5p", None),
]


def pair_ratio(res: dict, a: str, b: str) -> dict | None:
    sy = res["systems"]
    ra = sy[a]["per_round_ratio"] if a in sy else ([1.0] * res["rounds"] if a == "RLCard raw"
                                                   else None)
    rb = sy[b]["per_round_ratio"] if b in sy else ([1.0] * res["rounds"] if b == "RLCard raw"
                                                   else None)
    if ra is None or rb is None:
        return None
    return bz.summ(x / y for x, y in zip(ra, rb))


def report(res: dict) -> str:
    raw = res["rlcard_raw"]
    lines = [f"RLCard raw (yardstick): {raw['moves_per_s']['median']:,.0f} moves/s, "
             f"{raw['games_per_s']['median']:,.1f} games/s; calibration "
             f"{res['calib_Mloops_per_s']['median']:.2f} M loops/s "
             f"[{res['calib_Mloops_per_s']['min']:.2f}-{res['calib_Mloops_per_s']['max']:.2f}]",
             "",
             "| system | moves/s | games/s | moves/game | x RLCard raw (median, min-max) |",
             "|---|---:|---:|---:|---|"]
    for k, d in res["systems"].items():
        mv, gm, rt = d["moves_per_s"]["median"], d["games_per_s"]["median"], \
            d["ratio_vs_rlcard_raw"]
        lines.append(f"| {k} | {mv:,.0f} | {gm:,.1f} | {f'{mv / gm:,.1f}' if gm else '-'} | "
                     f"**{rt['median']:.2f}x** ({rt['min']:.2f}-{rt['max']:.2f}) |")
    for k, why in res.get("skipped", {}).items():
        lines.append(f"| {k} | skipped: {why} | | | |")
    lines += ["", "| ratio (per round, median) | value | min-max | target |", "|---|---:|---|---|"]
    for a, b, target in KEY_PAIRS:
        r = pair_ratio(res, a, b)
        if r is None:
            continue
        t = "" if target is None else (f">= {target:g}x: " +
                                      ("MET" if r["median"] >= target else "not met"))
        lines.append(f"| {a} / {b} | **{r['median']:.2f}x** | {r['min']:.2f}-{r['max']:.2f} "
                     f"| {t} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="short blocks, 2 rounds (a smoke run)")
    ap.add_argument("--rounds", type=int, default=None)
    ap.add_argument("--block", type=float, default=None, help="seconds per block")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--core", type=int, default=None)
    ap.add_argument("--presets", default="all",
                    help="comma-separated preset names (default: every preset)")
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    rounds = args.rounds or (2 if args.quick else 5)
    block = args.block or (0.25 if args.quick else 1.0)
    cores = bz.pin(args.core)
    presets = shangyou.preset_names() if args.presets == "all" else args.presets.split(",")
    if "zheng-shangyou/pagat" not in presets:
        presets.insert(0, "zheng-shangyou/pagat")
    rl, version, why = bz.rlcard_or_reason(args.seed)
    if rl is None:
        print(f"RLCard is needed as the yardstick: {why}", file=sys.stderr)
        return 1
    systems, skipped = build_systems(args.seed, presets)
    print(f"bench_env: {len(systems)} systems + RLCard raw, {rounds} rounds x {block:g} s blocks,"
          f" pinned to {cores}", file=sys.stderr)
    t0 = time.perf_counter()
    res = measure(systems, rl, rounds, block)
    res["skipped"] = skipped
    res["machine"] = bz.machine_info()
    res["loadavg_end"] = bz.loadavg()
    res["seconds"] = time.perf_counter() - t0
    versions = {}
    for mod in ("rlcard", "open-spiel", "shimmy", "pettingzoo", "gymnasium", "numpy"):
        try:
            from importlib.metadata import version as _v
            versions[mod] = _v(mod)
        except Exception:
            versions[mod] = None
    res["versions"] = versions
    print(report(res))
    print(f"\n{res['seconds']:.0f} s; versions {versions}; load {res['loadavg_end']}")
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(res, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
