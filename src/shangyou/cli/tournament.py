"""``shangyou tournament``: bot levels against each other on duplicate deals;
``shangyou tournament-report``: the finished deals of one or more such runs, pooled.

Bad input (unknown game, level or option, a bot count that does not fit the table, an output
folder holding another tournament, ``--ray`` without Ray installed: checked before the output
folder is made) prints one line and exits 2; Ctrl-C keeps the finished deals and exits 130 (the
same command resumes).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Annotated

import typer

from .common import fail, parse_option


def default_out(game: str, players: int, bots, seed: int, options: dict,
                rotations: str = "all") -> Path:
    """``tournaments/<game>-p<players>-<bots>-s<seed>[-<options>][-distinct]``: the same
    command, the same folder, so re-running it resumes."""
    parts = [game.replace("/", "_"), f"p{players}", ",".join(bots), f"s{seed}"]
    parts += [f"{k}={options[k]}" for k in sorted(options)]
    if rotations != "all":
        parts.append(rotations)
    name = "-".join(parts)
    return Path("tournaments") / re.sub(r"[^A-Za-z0-9_.,=:+-]", "_", name)


def tournament(
    game: Annotated[str, typer.Option("--game", "-g", help="Preset or alias.")],
    bots: Annotated[str, typer.Option(help="One level per seat, comma-separated, e.g. "
                                           "search,heuristic,heuristic,heuristic.")],
    hands: Annotated[int, typer.Option("--hands", "--deals", "-n", min=1,
                                       help="Duplicate deals; each is played once per "
                                            "rotation (players times).")] = 100,
    seed: Annotated[int, typer.Option(help="Tournament seed (the deals derive from it).")
                    ] = 0,
    players: Annotated[int | None, typer.Option("--players", "-p",
                                                help="Players (default: one per bot).")
                       ] = None,
    workers: Annotated[int | None, typer.Option(min=1, help="Local worker processes "
                                                            "(default: the usable cores).")
                       ] = None,
    ray: Annotated[str | None, typer.Option("--ray", help="Ray cluster address "
                                                          "(ray.init(address=...)); 'local' "
                                                          "starts one here.")] = None,
    out: Annotated[Path | None, typer.Option(help="Output folder (default: tournaments/"
                                                  "<game>-p<players>-<bots>-s<seed>).")
                   ] = None,
    option: Annotated[list[str] | None, typer.Option(
        "--option", "-o", help="A preset option key=value, repeatable.")] = None,
    progress: Annotated[bool, typer.Option("--progress/--no-progress",
                                           help="Show a progress bar.")] = True,
    rotations: Annotated[str, typer.Option(
        help="'all': each deal once per seat turn (players times); 'distinct': only the "
             "turns that seat the levels differently (a team line-up such as "
             "search,heuristic,search,heuristic: 2 of 4).")] = "all",
) -> None:
    """Bot levels against each other on duplicate deals (results.json, .csv, scores.png)."""
    from rich.console import Console

    try:
        options = dict(parse_option(o) for o in (option or []))
        if "seed" in options:
            raise ValueError("--option seed=... is not a game option; use --seed")
        from ..tournament import make_config
        cfg = make_config(game, bots, seed, players=players, options=options,
                          rotations=rotations)
    except ValueError as e:
        fail(str(e))
    try:
        import matplotlib  # noqa: F401
        import openskill  # noqa: F401
        import scipy  # noqa: F401
    except ImportError:
        fail("tournaments need openskill, matplotlib and scipy: "
             "pip install 'shangyou[tournament]'")
    if ray:
        from ..tournament.runner import require_ray
        try:
            require_ray()             # before the output folder is made
        except ValueError as e:
            fail(str(e))
    folder = out if out is not None else default_out(cfg.game, cfg.players, cfg.bots,
                                                     cfg.seed, cfg.options, cfg.rotations)
    console = Console(stderr=True)
    from ..tournament import run_tournament
    from ..tournament.report import show
    console.print(f"{cfg.game}, {cfg.players} players: {', '.join(cfg.bots)}; {hands} deals "
                  f"x {len(cfg.rotation_list())} rotations; results in {folder}")
    try:
        results = run_tournament(cfg, hands, folder, workers=workers, ray_address=ray,
                                 progress=progress, console=console)
    except KeyboardInterrupt:
        print(f"Interrupted: the finished deals are kept in {folder}; run the same command "
              "to go on.", file=sys.stderr)
        raise typer.Exit(130) from None
    except ValueError as e:          # another tournament in the folder, Ray missing
        fail(str(e))
    show(results, Console() if sys.stdout.isatty() else Console(width=150))
    print(f"Wrote {folder / 'results.json'}, {folder / 'results.csv'}, "
          f"{folder / 'scores.png'}")


def tournament_report(
    folders: Annotated[list[Path], typer.Argument(help="Tournament folders (--out of "
                                                        "'shangyou tournament').")],
    out: Annotated[Path | None, typer.Option(help="Also write results.json, .csv and "
                                                  "scores.png of the pool here.")] = None,
) -> None:
    """The finished deals of one or more tournaments with the same line-up (other seeds),
    as one table. It only reads the folders: a run still going on counts its finished deals."""
    from rich.console import Console

    try:
        import matplotlib  # noqa: F401
        import openskill  # noqa: F401
        import scipy  # noqa: F401
    except ImportError:
        fail("tournaments need openskill, matplotlib and scipy: "
             "pip install 'shangyou[tournament]'")
    from ..tournament import pool_results
    from ..tournament.report import show, write
    try:
        results = pool_results(folders)
    except ValueError as e:
        fail(str(e))
    show(results, Console() if sys.stdout.isatty() else Console(width=150))
    print("deals: " + ", ".join(f"{s['folder']} (seed {s['seed']}) {s['deals']}"
                                for s in results["sources"]))
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        paths = write(results, out)
        print("Wrote " + ", ".join(str(p) for p in paths.values()))
