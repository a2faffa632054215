"""The worst CPU time and memory of one decision of every bot level, hint, review and env step.

Usage::

    python bench/decision_worst.py [--hands N] [--seed S] [--only TEXT] [--no-configs]
                                   [--no-named] [--levels a,b,...] [--json PATH]

States: every named constructed worst state of ``bench/legal_worst.py`` (the two-pack
climbing leads with up to millions of plays, their steps, the Sheng ji follows and leads)
and the variants below (:data:`EXTRA`: leads that cannot go out in one play, so the search
searches), then for every preset x pack count x player count (``legal_worst.configs``) the
decision state with the most whole moves (``all_moves()`` for the climbing games, the legal
moves for Sheng ji) met in ``--hands`` random hands (default 2, seeds from ``--seed``).

After one untimed run of each on a small state (modules imported, the model loaded), in
each state each of these is run once on a fresh copy, timed with ``time.process_time``
(CPU of this process: the decision's own work, whatever else the machine runs), then once
more under ``tracemalloc`` for its peak of Python memory (tracemalloc slows the code, so the
two runs are apart): ``random``, ``greedy``, ``heuristic``, ``search`` and ``learned``
(``choose`` on the seat's view; ``learned`` only where it plays, the climbing games' play
phase), ``hint heuristic`` / ``hint search`` (``bots.hint.hint``, what the server answers:
the search's advice, or the heuristic's where the search ran out of time), ``review``
(``review.review_decision`` of the heuristic's move: the hint's search, then the judging
step's half of the default 1 s budget) and
``env step`` (a PettingZoo AEC env set in the state: the first observation and one step of
its first candidate). The caps are docs/bots.md's, *Bounded decisions*.

Printed as Markdown: per level the worst CPU seconds and peak MB over every state, the state
it was met in, and its cap (``CAPS``; "over" marks a figure past the cap + 10 % or 100 MB).
``--json PATH`` also writes every figure.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import legal_worst as lw  # noqa: E402

from shangyou.bots.base import make_bot  # noqa: E402

LEVELS = ("random", "greedy", "heuristic", "search", "learned", "hint heuristic",
          "hint search", "review", "env step")

#: CPU seconds a decision may take (docs/bots.md, *Bounded decisions*); the figures are
#: checked against cap + 10 % and 100 MB
CAPS = {"random": 0.1, "greedy": 0.5, "heuristic": 0.5, "search": 0.9, "learned": 0.5,
        "hint heuristic": 0.5, "hint search": 1.4, "review": 1.5, "env step": 0.1}
MEMORY_MB = 100.0


def _lead_variant(name: str, players: int, packs: int | None, hand: str):
    return lambda: lw._climbing_lead(name, players, packs, hand)


# two-pack leads as large as legal_worst's but that no single play empties (so the search
# searches rather than going out at once)
EXTRA = [
    ("pagat 2 packs 4p: lead, 27 cards: eight 2s, four jokers, pairs 3-9, a king (not out in "
     "one play)", _lead_variant("zheng-shangyou/pagat", 4, 2, lw.PAGAT_WORST[:-3] + "KS")),
    ("pagat 2 packs 3p: lead, 36 cards: eight 2s, four jokers, pairs 3-Q and 4 single aces "
     "(not out in one play)",
     _lead_variant("zheng-shangyou/pagat", 3, 2,
                   lw.PAGAT_3P.replace("KS KH AS AH", "AS AH AD AC"))),
    ("owen 2p: lead, 26 cards, with a king for a queen (not out in one play)",
     _lead_variant("zheng-shangyou/owen", 2, None, lw.OWEN_WORST[:-2] + "KH")),
]


def named_states() -> list[tuple[str, object]]:
    out = [(label, build) for label, build, _ in lw.NAMED]
    return out + EXTRA


def whole_count(g) -> int:
    every = getattr(g, "all_moves", None)
    return len(every() if every is not None else g.legal_moves())


def config_states(hands: int, seed: int, only: str | None) -> list[tuple[str, object]]:
    """Per configuration the state with the most whole moves in ``hands`` random hands."""
    out = []
    for name, players, packs in lw.configs(only):
        best = (-1, None)
        rng = random.Random(seed)
        for s in range(seed, seed + hands):
            g = lw.new_game(name, players, packs, s)
            while not g.over:
                n = whole_count(g)
                if n > best[0]:
                    best = (n, g.clone())
                g.apply(rng.choice(g.legal_moves()))
        label = f"{name} {players}p packs={packs or 1}: most moves in {hands} random hands " \
                f"({best[0]})"
        state = best[1]
        out.append((label, lambda st=state: st.clone()))
    return out


def env_in_state(g):
    """A PettingZoo AEC env of ``g``'s preset set in the state ``g`` (a copy)."""
    from shangyou.env.aec import ShangyouAEC
    log = g.log
    opts = {k: v for k, v in (log.get("options") or {}).items() if k != "players"}
    e = ShangyouAEC(log["game"], players=g.n, **opts)
    e.reset(seed=0)
    e.game = g
    e._pager = None
    e.agent_selection = e.possible_agents[g.to_act]
    return e


def run_level(level: str, g, seed: int = 1):
    """Make ``level``'s decision in state ``g`` (for ``env step``, ``g`` is an env set in
    the state: its first observation and one step)."""
    if level == "env step":
        g.observe(g.agent_selection)
        g.step(0)
        return None
    view = g.view(g.to_act)
    if level.startswith("hint "):
        from shangyou.bots.hint import hint
        return hint(view, level[5:], seed)
    if level == "review":
        from shangyou.bots.heuristic import HeuristicBot
        from shangyou.review import review_decision
        played = HeuristicBot(seed).choose(view)
        return review_decision(view, played, 0, random.Random(seed))
    return make_bot(level, seed).choose(view)


def applies(level: str, g) -> bool:
    if g.over or len(g.legal_moves()) < 2 and level != "env step":
        return False
    if level == "learned":
        from shangyou.bots.learned import LearnedBot
        try:
            return LearnedBot(0).plays(g.view(g.to_act))
        except Exception:
            return False
    return True


def measure(level: str, build) -> tuple[float, float] | None:
    g = build()
    if not applies(level, g):
        return None
    g1 = env_in_state(g) if level == "env step" else g     # the env made before the clock
    t0 = time.process_time()
    run_level(level, g1)
    cpu = time.process_time() - t0
    g2 = env_in_state(build()) if level == "env step" else build()
    tracemalloc.start()
    try:
        run_level(level, g2)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return cpu, peak / 1e6


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hands", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--only", default=None, help="only presets whose name contains this")
    ap.add_argument("--levels", default=",".join(LEVELS))
    ap.add_argument("--no-configs", action="store_true")
    ap.add_argument("--no-named", action="store_true")
    ap.add_argument("--json", default=None)
    a = ap.parse_args(argv)
    levels = [x.strip() for x in a.levels.split(",") if x.strip()]
    started = time.time()
    warm = lw.new_game("zheng-shangyou/pagat", 4, None, 0)   # modules imported, model loaded
    for level in levels:
        measure(level, warm.clone)
    states = [] if a.no_named else named_states()
    if not a.no_configs:
        states += config_states(a.hands, a.seed, a.only)
    rows = []
    for label, build in states:
        for level in levels:
            try:
                got = measure(level, build)
            except Exception as exc:        # a constructed state the level cannot read
                print(f"  {level:15s} failed: {exc!r:.120}  {label}", file=sys.stderr)
                continue
            if got is None:
                continue
            rows.append({"state": label, "level": level, "cpu_s": got[0], "peak_mb": got[1]})
            print(f"  {level:15s} {got[0]:7.3f} s {got[1]:7.1f} MB  {label}", file=sys.stderr,
                  flush=True)
    print(f"# worst decision CPU and memory ({len(states)} states; {a.hands} random hands per "
          f"configuration, seed {a.seed}; Python {platform.python_version()}; "
          f"{time.time() - started:.0f} s)\n")
    print("| level | cap (CPU s) | worst CPU s | its state | peak MB (worst) | its state | "
          "states |")
    print("|---|---:|---:|---|---:|---|---:|")
    for level in levels:
        mine = [r for r in rows if r["level"] == level]
        if not mine:
            continue
        t = max(mine, key=lambda r: r["cpu_s"])
        m = max(mine, key=lambda r: r["peak_mb"])
        over_t = " **over**" if t["cpu_s"] > CAPS[level] * 1.1 else ""
        over_m = " **over**" if m["peak_mb"] > MEMORY_MB else ""
        print(f"| {level} | {CAPS[level]} | {t['cpu_s']:.3f}{over_t} | {t['state']} | "
              f"{m['peak_mb']:.1f}{over_m} | {m['state']} | {len(mine)} |")
    if a.json:
        Path(a.json).parent.mkdir(parents=True, exist_ok=True)
        Path(a.json).write_text(json.dumps({"seed": a.seed, "hands": a.hands, "rows": rows},
                                           indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
