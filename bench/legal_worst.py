"""The worst time to list the legal moves, for every preset x pack count x player count.

Usage::

    python bench/legal_worst.py [--states N] [--seed S] [--only TEXT] [--top K] [--reps R]
                                [--no-named] [--named-only] [--json PATH]

For each configuration (every preset, every pack count it takes, every player count it allows)
the script plays random single hands (``random.choice`` of ``legal_moves()``, seeds from
``--seed`` on) until it has seen ``--states`` decision states (default 10,000), and times the
first ``g.legal_moves()`` of each state (``perf_counter_ns``, garbage collection off around
the call). It reports the median, the 99th percentile and the maximum of those single timings,
in ms. A single timing of a busy machine can be a stall rather than the state's own cost, so
the ``--top`` slowest states (default 5) are kept (``g.clone()``) and timed again ``--reps``
times (default 5): *worst* is the largest per-state median of those repetitions, with that
state's number of legal moves and what it was (leading, following, picking...).

Then come **named constructed worst hands**, states random play seldom reaches: each is built
directly, timed ``--reps`` times (median and maximum) and reported with its move count. For
Sheng ji follows the reference generator that lists every multiset of the suit and filters it
(``legal_follows_reference``, the way legal follows were listed before they were generated
directly) is timed on the same state, where the code has it. Climbing hands with more than 400
legal moves offer the play in steps (``choose`` a group, ``pick`` cards:
``games/climbing/steps.py``); each listing is timed with the grouping made afresh, as on the
first step, and the constructed climbing states include steps after a ``choose`` and after
picks. For two of them the full listing of every play (``all_moves(limit=None)``; the search
and the environments take ``all_moves()``, at most ``LISTING_LIMIT`` plays) is timed besides.

The target (issue 24) is under 5 ms at worst everywhere. Results are printed as Markdown
tables; ``--json PATH`` also writes every figure.
"""

from __future__ import annotations

import argparse
import gc
import json
import platform
import random
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

import shangyou
from shangyou.cards import deck, parse
from shangyou.registry import preset_info, preset_names

TARGET_MS = 5.0
PACKS = {"zheng-shangyou/pagat": (1, 2), "zheng-shangyou/winner": (1, 2),
         "sheng-ji": (1, 2, 3, 4), "sheng-ji/zhao-pengyou": (2, 3)}


def configs(only: str | None = None) -> list[tuple[str, int, int | None]]:
    """(preset, players, packs or None) for every combination the presets accept."""
    out = []
    for name in preset_names():
        if only and only not in name:
            continue
        for players in preset_info(name)["players"]:
            for packs in PACKS.get(name, (None,)):
                try:
                    new_game(name, players, packs, 0)
                except ValueError:      # UnknownOption: a pack count these players do not take
                    continue
                out.append((name, players, packs))
    return out


def new_game(name: str, players: int, packs: int | None, seed: int):
    opts = {} if packs is None else {"decks": packs}
    return shangyou.new_game(name, seed=seed, players=players, **opts)


def timed_list(g) -> tuple[int, int]:
    """(ns, number of moves) of one listing of ``g``'s legal moves, computed afresh (for a
    climbing play chosen in steps, the grouping of the plays too, which the game otherwise
    keeps from one step to the next)."""
    g._legal = None
    if getattr(g, "_grouping", None) is not None:
        g._grouping = None
    gc.disable()
    t0 = time.perf_counter_ns()
    moves = g.legal_moves()
    dt = time.perf_counter_ns() - t0
    gc.enable()
    return dt, len(moves)


def describe(g) -> str:
    """What kind of decision a state is, in a few words."""
    phase = getattr(g, "phase", "")
    if hasattr(g, "trick") and phase == "play" and hasattr(g, "pending"):   # Sheng ji
        if not g.trick:
            return "lead (throw being built)" if g.pending else "lead"
        moves = g._legal or []
        if moves and moves[0].kind == "pick":
            return "follow, picking card by card"
        return "follow"
    if phase == "play" and hasattr(g, "last"):
        what = "lead" if g.last is None else "follow"
        if getattr(g, "choice", None) is not None:      # a climbing play chosen in steps
            return f"{what}, {g.choice}" + (f", {len(g.picked)} picked" if g.picked else "")
        if any(m.kind == "choose" for m in (g._legal or [])):
            return f"{what}, offered by groups"
        return what
    return str(phase)


def percentile(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def run_config(name: str, players: int, packs: int | None, states: int, seed: int,
               top: int, reps: int) -> dict:
    times: list[int] = []
    kept: list[tuple[int, int, object]] = []        # (ns, index, clone), the slowest states
    rng = random.Random(seed)
    s = seed
    while len(times) < states:
        g = new_game(name, players, packs, s)
        s += 1
        while not g.over and len(times) < states:
            dt, _ = timed_list(g)
            times.append(dt)
            if len(kept) < top or dt > kept[-1][0]:
                kept.append((dt, len(times), g.clone()))
                kept.sort(key=lambda x: -x[0])
                del kept[top:]
            g.apply(rng.choice(g.legal_moves()))
    worst = (0.0, 0, "")
    for _, _, c in kept:
        runs = [timed_list(c) for _ in range(reps)]
        med = statistics.median(ns for ns, _ in runs)
        if med > worst[0]:
            worst = (med, runs[0][1], describe(c))
    ms = [t / 1e6 for t in times]
    return {"preset": name, "players": players, "packs": packs, "states": len(times),
            "games": s - seed, "median_ms": statistics.median(ms), "p99_ms": percentile(ms, 0.99),
            "max_ms": max(ms), "worst_ms": worst[0] / 1e6, "worst_moves": worst[1],
            "worst_state": worst[2]}


# ------------------------------------------------------------------ named constructed hands
def _climbing_lead(name: str, players: int, packs: int | None, hand: str):
    g = new_game(name, players, packs, 1)
    while g.phase != "play":
        g.apply(g.legal_moves()[0])
    g.hands[g.to_act] = sorted(parse(hand))
    g.last = None
    return g


def _climbing_steps(build, choice: str, picks: int = 0):
    """The state ``build()`` with ``choice`` chosen and the first ``picks`` cards offered
    picked (a climbing play chosen in steps)."""
    g = build()
    g.apply(choice)
    for _ in range(picks):
        g.apply(next(m for m in g.legal_moves() if m.kind == "pick"))
    return g


PAGAT_WORST = ("2S 2S 2H 2H 2D 2D 2C 2C BJ BJ RJ RJ 3S 3H 4S 4H 5S 5H 6S 6H 7S 7H 8S 8H 9S 9H "
               "10S")
PAGAT_3P = ("2S 2S 2H 2H 2D 2D 2C 2C BJ BJ RJ RJ 3S 3H 4S 4H 5S 5H 6S 6H 7S 7H 8S 8H 9S 9H "
            "10S 10H JS JH QS QH KS KH AS AH")
OWEN_WORST = "2S 2H 2D 2C BJ RJ 3S 3H 4S 4H 5S 5H 6S 6H 7S 7H 8S 8H 9S 9H 10S 10H JS JH QS QH"


def _pagat_worst():
    return _climbing_lead("zheng-shangyou/pagat", 4, 2, PAGAT_WORST)


def _pagat_3p():
    return _climbing_lead("zheng-shangyou/pagat", 3, 2, PAGAT_3P)


def _owen_worst():
    return _climbing_lead("zheng-shangyou/owen", 2, None, OWEN_WORST)


SPADES = " ".join(r + "S" for r in "3 4 5 6 7 8 9 10 J Q K A".split())


def _sheng_ji_follow(lead: str, held: int, players: int = 4, packs: int = 4,
                     name: str = "sheng-ji", picked: int = 0):
    """Level 2, clubs trump: seat 0 has led ``lead`` (spades) and seat 1, holding ``held`` of
    the other spades, is to follow (``picked`` cards already picked, when picking)."""
    g = new_game(name, players, packs, 3)
    while g.phase != "play":
        g.apply(g.legal_moves()[0])
    from shangyou.games.sheng_ji.order import Trump
    t = g.trump = Trump.parse("2C")
    lead_cards = sorted(parse(lead))
    left = Counter(parse(SPADES) * packs)
    left.subtract(lead_cards)
    spades = sorted(left.elements())
    rest = [c for c in deck(packs) if t.suit_of(c) != 3]
    size = len(g.hands[0])
    g.hands[0] = lead_cards + rest[:size - len(lead_cards)]
    rest = rest[size - len(lead_cards):]
    g.hands[1] = spades[:held] + rest[:size - held]
    rest = rest[size - held:]
    others = spades[held:] + rest
    for s in range(2, players):
        g.hands[s], others = others[:size], others[size:]
    # the lead is put on the table as if it stood (whether the others could beat it or not)
    from shangyou.games.sheng_ji.order import decompose
    for c in lead_cards:
        g.hands[0].remove(c)
    g.declarer = g.leader = 0
    g.trick = [(0, tuple(lead_cards))]
    g.lead_units = decompose(t, lead_cards)
    g.to_act = 1
    g._legal = None
    for _ in range(picked):
        g.apply(g.legal_moves()[0])
    return g


def _sheng_ji_lead(hand: str, packs: int = 4):
    g = new_game("sheng-ji", 4, packs, 3)
    while g.phase != "play":
        g.apply(g.legal_moves()[0])
    from shangyou.games.sheng_ji.order import Trump
    g.trump = Trump.parse("2C")
    g.hands[0] = sorted(parse(hand))
    g.declarer = g.leader = g.to_act = 0
    g.trick = []
    g._legal = None
    return g


THROW3 = "AS AS AS KS KS KS QS QS QS"
NAMED = [
    ("pagat 2 packs 4p: lead, 27 cards: eight 2s, four jokers, pairs 3-9 and a 10",
     _pagat_worst, None),
    ("pagat 2 packs 4p: the same, its largest group chosen (16 multiple sequence 3-10x2)",
     lambda: _climbing_steps(_pagat_worst, "choose 16 multiple sequence 3-10x2"), None),
    ("pagat 2 packs 4p: the same group, 3 cards picked",
     lambda: _climbing_steps(_pagat_worst, "choose 16 multiple sequence 3-10x2", 3), None),
    ("pagat 2 packs 3p: lead, 36 cards: eight 2s, four jokers, pairs 3-A",
     _pagat_3p, None),
    ("pagat 2 packs 3p: the same, 24 multiple sequence 3-Ax2 chosen",
     lambda: _climbing_steps(_pagat_3p, "choose 24 multiple sequence 3-Ax2"), None),
    ("owen 2p: lead, 26 cards: all four 2s, both jokers, pairs 3-Q", _owen_worst, None),
    ("owen 2p: the same, its largest group chosen (20 stair 3-Q)",
     lambda: _climbing_steps(_owen_worst, "choose 20 stair 3-Q"), None),
    ("sheng-ji 4 packs 4p: follow a throw of three triples (A K Q) with 33 spades",
     lambda: _sheng_ji_follow(THROW3, 33), THROW3),
    ("sheng-ji 4 packs 4p: the same, 4 cards already picked",
     lambda: _sheng_ji_follow(THROW3, 33, picked=4), None),
    ("sheng-ji 4 packs 4p: follow a throw of six singles (A-9) with 33 spades",
     lambda: _sheng_ji_follow("AS KS QS JS 10S 9S", 33), "AS KS QS JS 10S 9S"),
    ("sheng-ji 4 packs 4p: follow a pair tractor and two singles (AA KK Q J) with 33 spades",
     lambda: _sheng_ji_follow("AS AS KS KS QS JS", 33), "AS AS KS KS QS JS"),
    ("sheng-ji 4 packs 4p: follow a tractor of four quads (A-J) with 32 spades",
     lambda: _sheng_ji_follow("AS AS AS AS KS KS KS KS QS QS QS QS JS JS JS JS", 32),
     "AS AS AS AS KS KS KS KS QS QS QS QS JS JS JS JS"),
    ("zhao-pengyou 3 packs 5p: follow a throw of six singles (A-9) with 30 spades",
     lambda: _sheng_ji_follow("AS KS QS JS 10S 9S", 30, players=5, packs=3,
                              name="sheng-ji/zhao-pengyou"), "AS KS QS JS 10S 9S"),
    ("sheng-ji 4 packs 4p: lead, 52 cards: four of each of 3-A of spades and four jokers",
     lambda: _sheng_ji_lead(" ".join([SPADES] * 4) + " BJ BJ RJ RJ"), None),
    ("sheng-ji 4 packs 4p: lead, 52 cards: four of each trump 8C-AC, every 2, four jokers",
     lambda: _sheng_ji_lead(" ".join(["8C 9C 10C JC QC KC AC"] * 4) + " "
                            + " ".join(["2S 2H 2D 2C"] * 4) + " BJ BJ RJ RJ 3S 3S 3S 3S 3H 3H 3H "
                            "3H"), None),
]


# the constructed climbing states whose full listing (all_moves(limit=None): every play at
# once) is timed too; the 36-card hand has too many plays
FULL_LISTING = {NAMED[0][0], NAMED[5][0]}


def run_named(reps: int) -> list[dict]:
    try:
        from shangyou.games.sheng_ji.follow import legal_follows_reference
    except ImportError:                 # code from before direct generation: no reference
        legal_follows_reference = None
    out = []
    for label, build, lead in NAMED:
        g = build()
        runs = [timed_list(g) for _ in range(reps)]
        ms = [ns / 1e6 for ns, _ in runs]
        row = {"name": label, "moves": runs[0][1], "median_ms": statistics.median(ms),
               "max_ms": max(ms), "state": describe(g)}
        if label in FULL_LISTING:       # the climbing listing of every play, besides the steps
            full = []
            for _ in range(max(1, min(reps, 3))):
                g._legal = None
                gc.disable()
                t0 = time.perf_counter_ns()
                n = len(g.all_moves(limit=None))
                full.append(time.perf_counter_ns() - t0)
                gc.enable()
            row["plays"] = n
            row["all_moves_ms"] = statistics.median(full) / 1e6
        if lead is not None and legal_follows_reference is not None:
            hand = g.hands[g.to_act]
            lead_cards = g.trick[0][1]
            t0 = time.perf_counter_ns()
            ref = legal_follows_reference(g.trump, hand, lead_cards, g.lead_units)
            row["reference_ms"] = (time.perf_counter_ns() - t0) / 1e6
            row["legal_follows"] = len(ref)
        out.append(row)
        print(f"  {label}: {row['moves']} moves, {row['median_ms']:.2f} ms", file=sys.stderr,
              flush=True)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--states", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--only", default=None, help="only presets whose name contains this")
    ap.add_argument("--top", type=int, default=5)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--no-named", action="store_true")
    ap.add_argument("--named-only", action="store_true")
    ap.add_argument("--json", default=None)
    a = ap.parse_args(argv)
    started = time.time()
    rows = []
    if not a.named_only:
        for name, players, packs in configs(a.only):
            r = run_config(name, players, packs, a.states, a.seed, a.top, a.reps)
            rows.append(r)
            print(f"  {name} {players}p packs={packs}: worst {r['worst_ms']:.2f} ms "
                  f"({r['worst_moves']} moves)", file=sys.stderr, flush=True)
    named = [] if a.no_named else run_named(a.reps)
    print(f"# legal-move listing, worst cases ({a.states} random states per configuration, "
          f"seed {a.seed}; Python {platform.python_version()}; {time.time() - started:.0f} s)\n")
    if rows:
        print("| preset | players | packs | states | median ms | p99 ms | max ms | worst ms "
              "(re-timed) | moves of the worst | worst state |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
        for r in rows:
            mark = " **over**" if r["worst_ms"] >= TARGET_MS else ""
            print(f"| {r['preset']} | {r['players']} | {r['packs'] or 1} | {r['states']} | "
                  f"{r['median_ms']:.3f} | {r['p99_ms']:.3f} | {r['max_ms']:.2f} | "
                  f"{r['worst_ms']:.2f}{mark} | {r['worst_moves']} | {r['worst_state']} |")
    if named:
        print("\n| constructed state | moves | median ms | max ms | legal follows | reference "
              "generator ms | every play (all_moves) | all_moves ms |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|")
        for r in named:
            ref = f"{r['reference_ms']:.1f}" if "reference_ms" in r else ""
            full = f"{r['all_moves_ms']:.1f}" if "all_moves_ms" in r else ""
            print(f"| {r['name']} ({r['state']}) | {r['moves']} | {r['median_ms']:.2f} | "
                  f"{r['max_ms']:.2f} | {r.get('legal_follows', '')} | {ref} | "
                  f"{r.get('plays', '')} | {full} |")
    if a.json:
        Path(a.json).parent.mkdir(parents=True, exist_ok=True)
        Path(a.json).write_text(json.dumps({"states": a.states, "seed": a.seed, "configs": rows,
                                            "named": named}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
