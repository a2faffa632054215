"""Evaluation during training: the network on fixed deals against one bot level, and the
training curve (``curve.csv``, ``curve.png``).

Each preset and table size of the run plays ``eval_deals`` deals, the same in every evaluation
of every run (their seeds derive from the game, the table size and the deal number); in deal
``d`` the network takes seat ``d mod n`` and the other seats play the evaluation level. Points
are the env's reward (:func:`~shangyou.env.features.rewards_of`: a climbing seat's points,
Sheng ji's levels won or lost); ``first_out`` is the share of hands the seat won (first out, or
on the winning side). The *baseline* is that level itself in the network's seat on the same
deals (computed once per folder, ``eval_baseline.json``): the points the network must beat to
be better than the level.
"""

from __future__ import annotations

import csv
import hashlib
import json
import math
from pathlib import Path

import shangyou

from ..bots import make_bot
from ..bots.learned import LearnedBot, Network
from ..env.features import rewards_of
from .league import deal

CURVE_FIELDS = ("hands", "samples", "steps", "seconds", "loss", "score", "game", "players",
                "deals",
                "points", "points_se", "first_out", "baseline_points", "baseline_first_out")


def _seed(*parts) -> int:
    text = ":".join(map(str, ("shangyou-train-eval",) + parts))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:6], "big")


def play_deals(game: str, n: int, deals: int, seat_bot, level: str) -> tuple[list, list]:
    """Points and first-out (1/0) of the evaluated seat over the deals; ``seat_bot(seed)``
    makes the bot of that seat."""
    points, first = [], []
    for d in range(deals):
        g = deal(game, n, _seed(game, n, d))
        me = d % n
        bots = [seat_bot(_seed("bot", n, d, s)) if s == me else
                make_bot(level, seed=_seed("bot", n, d, s)) for s in range(n)]
        while not g.over:
            seat = g.to_act
            g.apply(bots[seat].choose(g.view(seat)))
        points.append(rewards_of(g)[me])
        first.append(1.0 if me in (g.result.get("winners") or ()) else 0.0)
    return points, first


def _mean_se(xs: list[float]) -> tuple[float, float]:
    m = sum(xs) / len(xs)
    if len(xs) < 2:
        return m, 0.0
    var = sum((x - m) ** 2 for x in xs) / (len(xs) - 1)
    return m, math.sqrt(var / len(xs))


def baseline(cfg, out: Path) -> dict:
    """The evaluation level in the evaluated seat: ``{players: (points, first_out)}``."""
    path = Path(out) / "eval_baseline.json"
    key = {"game": cfg.game, "deals": cfg.eval_deals, "level": cfg.eval_opponent, "format": 2}
    saved = json.loads(path.read_text()) if path.is_file() else {}
    if saved.get("key") != key:
        saved = {"key": key, "tables": {}}
    changed = False
    for game, n in tables(cfg):
        if f"{game} {n}" not in saved["tables"]:
            level = cfg.eval_opponent
            pts, first = play_deals(game, n, cfg.eval_deals,
                                    lambda seed: make_bot(level, seed=seed), level)
            saved["tables"][f"{game} {n}"] = [sum(pts) / len(pts), sum(first) / len(first)]
            changed = True
    if changed:
        path.write_text(json.dumps(saved, indent=1) + "\n")
    return {(k.split()[0], int(k.split()[1])): tuple(v) for k, v in saved["tables"].items()}


def tables(cfg) -> list[tuple[str, int]]:
    """Every (preset, table size) of the run that the preset allows."""
    return [(g, n) for g in cfg.games for n in cfg.players
            if n in shangyou.preset_info(g)["players"]]


def evaluate(cfg, net: Network, out: Path) -> list[dict]:
    """One row per table size: the network's mean points (and its standard error), its
    first-out rate, and the baseline's."""
    base = baseline(cfg, out)
    rows = []
    for game, n in tables(cfg):
        pts, first = play_deals(game, n, cfg.eval_deals,
                                lambda seed: LearnedBot(seed, network=net), cfg.eval_opponent)
        m, se = _mean_se(pts)
        rows.append({"game": game, "players": n, "deals": cfg.eval_deals, "points": m,
                     "points_se": se, "first_out": sum(first) / len(first),
                     "baseline_points": base[(game, n)][0],
                     "baseline_first_out": base[(game, n)][1]})
    return rows


def append_curve(out: Path, rows: list[dict]) -> None:
    path = Path(out) / "curve.csv"
    new = not path.is_file()
    with open(path, "a", newline="") as f:
        w = csv.DictWriter(f, fieldnames=CURVE_FIELDS, extrasaction="ignore")
        if new:
            w.writeheader()
        for r in rows:
            w.writerow({k: (round(v, 5) if isinstance(v, float) else v) for k, v in r.items()})


def read_curve(path: Path) -> list[dict]:
    with open(path, newline="") as f:
        return [{k: (v if k == "game" else float(v)) for k, v in r.items()}
                for r in csv.DictReader(f)]


def plot_curve(out: Path, png: Path | None = None, level: str = "heuristic",
               csv_path: Path | None = None) -> Path | None:
    """``curve.png`` from ``curve.csv`` (points a hand against the evaluation level, and the
    level's own in the same seat, by hands trained); None without matplotlib."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    rows = read_curve(Path(csv_path) if csv_path else Path(out) / "curve.csv")
    if not rows:
        return None
    png = Path(png) if png is not None else Path(out) / "curve.png"
    fig, ax = plt.subplots(figsize=(6.4, 3.8), dpi=100)
    keys = sorted({(r.get("game", ""), int(r["players"])) for r in rows})
    for i, (game, n) in enumerate(keys):
        rs = [r for r in rows if (r.get("game", ""), int(r["players"])) == (game, n)]
        name = f"{game.rpartition('/')[2]} {n}p" if len(keys) > 1 else f"{n} players"
        x = [r["hands"] / 1000 for r in rs]
        y = [r["points"] for r in rs]
        se = [1.96 * r["points_se"] for r in rs]
        color = f"C{i}"
        ax.plot(x, y, marker="o", ms=3, color=color, label=f"learned, {name}")
        ax.fill_between(x, [a - b for a, b in zip(y, se)], [a + b for a, b in zip(y, se)],
                        color=color, alpha=0.15)
        ax.axhline(rs[-1]["baseline_points"], color=color, ls="--", lw=1,
                   label=f"{level} in its seat, {name}")
    ax.set_xlabel("hands trained (thousands)")
    ax.set_ylabel("points a hand (95% interval)")
    ax.set_title(f"The learned bot against {level} bots (fixed deals)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    tmp = png.with_suffix(".tmp.png")
    fig.savefig(tmp)
    plt.close(fig)
    tmp.replace(png)
    return png
