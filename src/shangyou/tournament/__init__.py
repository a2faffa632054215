"""Tournaments between bot levels on duplicate deals (``shangyou tournament``).

>>> from shangyou.tournament import make_config, run_tournament
>>> cfg = make_config("owen", "greedy,random,random,random", seed=1)
>>> cfg.players, cfg.entries
(4, ['greedy', 'random#1', 'random#2', 'random#3'])

``run_tournament(cfg, deals, out)`` plays the deals not yet in ``out``, writes ``results.json``,
``results.csv`` and ``scores.png`` there and answers the results. Modules: :mod:`.runner`
(seeds, rotations, playing, resuming, workers and Ray), :mod:`.stats`, :mod:`.ratings`
(openskill), :mod:`.report` (tables and files), :mod:`.plot` (the PNG).
"""

from __future__ import annotations

from pathlib import Path

from .runner import Config, ConfigMismatch, deal_seed, make_config, outcome, play_deal, seating

__all__ = ["Config", "ConfigMismatch", "deal_seed", "make_config", "outcome", "play_deal",
           "run_tournament", "seating"]


def run_tournament(cfg: Config, deals: int, out, workers: int | None = None,
                   ray_address: str | None = None, progress: bool = False, console=None,
                   on_deal=None) -> dict:
    """Play (or finish) a tournament of ``deals`` duplicate deals and write its results."""
    from . import report
    from .runner import run
    records = run(cfg, deals, Path(out), workers=workers, ray_address=ray_address,
                  progress=progress, console=console, on_deal=on_deal)
    results = report.aggregate(cfg, records)
    report.write(results, Path(out))
    return results
