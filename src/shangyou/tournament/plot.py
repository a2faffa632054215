"""A PNG of each bot's mean score per hand and win rate, with their 95% intervals."""

from __future__ import annotations

from pathlib import Path


def plot(results: dict, path: Path) -> None:
    """Two panels (mean score, win rate), one bar per bot with its interval; Agg, no pyplot."""
    from matplotlib.figure import Figure

    bots = results["bots"]
    names = [b["bot"] for b in bots]
    x = range(len(names))
    fig = Figure(figsize=(4 + 1.2 * len(names), 4), dpi=100, layout="constrained")
    ax_s, ax_w = fig.subplots(1, 2)

    def bars(ax, values, lows, highs, title, ylabel):
        # an interval's end can sit a rounding error on the wrong side of its value (a
        # Wilson interval of a rate of 0 starts 1e-17 above it): error bars are never < 0
        err_lo = [max(0.0, v - lo) if lo is not None else 0 for v, lo in zip(values, lows)]
        err_hi = [max(0.0, hi - v) if hi is not None else 0 for v, hi in zip(values, highs)]
        ax.bar(x, values, yerr=[err_lo, err_hi], capsize=6,
               color=[f"C{i}" for i in range(len(names))])
        ax.set_xticks(list(x), names, rotation=20 if len(names) > 3 else 0)
        ax.set_title(title)
        ax.set_ylabel(ylabel)
        ax.axhline(0, color="black", linewidth=0.6)

    cfg = results["config"]
    bars(ax_s, [b["score"]["mean"] for b in bots], [b["score"]["low"] for b in bots],
         [b["score"]["high"] for b in bots], "mean score per hand", "score (95% CI)")
    bars(ax_w, [b["win"]["rate"] for b in bots], [b["win"]["low"] for b in bots],
         [b["win"]["high"] for b in bots], "win rate", "share of hands won (95% Wilson)")
    ax_w.set_ylim(0, 1)
    fig.suptitle(f"{cfg['game']}, {cfg['players']} players, {results['deals']} deals x "
                 f"{results['hands'] // results['deals']} rotations")
    fig.savefig(path, format="png")
