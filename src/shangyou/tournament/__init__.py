"""Tournaments between bot levels on duplicate deals (``shangyou tournament``).

>>> from shangyou.tournament import make_config, run_tournament
>>> cfg = make_config("owen", "greedy,random,random,random", seed=1)
>>> cfg.players, cfg.entries
(4, ['greedy', 'random#1', 'random#2', 'random#3'])

``run_tournament(cfg, deals, out)`` plays the deals not yet in ``out``, writes ``results.json``,
``results.csv`` and ``scores.png`` there and answers the results. ``pool_results(folders)``
reports the finished deals of one or more folders of the same line-up (other seeds: other
deals) as one tournament, reading them only. Modules: :mod:`.runner`
(seeds, rotations, playing, resuming, workers and Ray), :mod:`.stats`, :mod:`.ratings`
(openskill), :mod:`.report` (tables and files), :mod:`.plot` (the PNG).
"""

from __future__ import annotations

from pathlib import Path

from .runner import Config, ConfigMismatch, deal_seed, make_config, outcome, play_deal, seating

__all__ = ["Config", "ConfigMismatch", "deal_seed", "make_config", "outcome", "play_deal",
           "pool_results", "run_tournament", "seating"]


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


def pool_results(folders) -> dict:
    """The results of the finished deals in ``folders``, pooled as one tournament.

    The folders must hold the same game, table size, line-up and options; their seeds must
    differ (the same seed is the same deals). Nothing is written, so a folder may belong to a
    run still going on (its finished deals count). ``results["config"]["seed"]`` becomes the
    list of seeds and ``results["sources"]`` says how many deals each folder gave.
    """
    from . import report
    from .runner import read_folder
    folders = [Path(f) for f in folders]
    if not folders:
        raise ValueError("no tournament folders given")
    read = [(f, *read_folder(f)) for f in folders]
    first = read[0][1].key()
    seeds = []
    for f, cfg, _ in read:
        key = cfg.key()
        diffs = [k for k in sorted(set(first) | set(key))
                 if k != "seed" and key.get(k) != first.get(k)]
        if diffs:
            raise ValueError(f"{f} holds another tournament than {read[0][0]} "
                             f"({', '.join(diffs)} differ); only the seed may differ")
        if cfg.seed in seeds:
            raise ValueError(f"seed {cfg.seed} given twice ({f}): the same deals would count "
                             "twice")
        seeds.append(cfg.seed)
    records = [r for _, _, recs in read for r in recs]
    if not records:
        raise ValueError("no finished deals in " + ", ".join(map(str, folders)))
    results = report.aggregate(read[0][1], records)
    results["config"]["seed"] = seeds
    results["sources"] = [{"folder": str(f), "seed": cfg.seed, "deals": len(recs)}
                          for f, cfg, recs in read]
    return results
