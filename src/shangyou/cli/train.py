"""``shangyou train``: train the ``learned`` bot level by Deep Monte-Carlo self-play against a
league (its own snapshots and bot levels), for any preset: the climbing presets (Zheng
Shangyou, Zheng Fen; several presets of the family in one run with ``--game a,b``) or the
Sheng ji presets (bids, burying, friend calls and play); see ``docs/training.md``.
``--actors N`` plays the hands in N Ray actors (one learner); the default, 1, needs no Ray.

The run lives in ``--out``: checkpoints, snapshots, ``curve.csv``/``curve.png``, ``latest.npz``
and ``best.npz``. Running the same command again resumes from the latest checkpoint (the run
keeps the settings it started with, but for the learning and league settings given on the
command line, such as a lower ``--lr``; ``--hands``/``--minutes`` say when this call stops).
Bad input prints one line and exits 2; Ctrl-C keeps the latest checkpoint and exits 130.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import Annotated

import typer

from .common import fail


# command-line options that are settings of the run: option name -> TrainConfig field
SETTINGS = {"game": "game", "players": "players", "opponents": "opponents",
            "teachers": "teachers", "hidden": "hidden", "init": "init", "epsilon": "epsilon",
            "lr": "lr", "batch": "batch",
            "replay": "replay", "hands_per_round": "hands_per_round",
            "eval_every": "eval_every", "eval_deals": "eval_deals",
            "eval_level": "eval_opponent", "snapshot_every": "snapshot_every", "seed": "seed",
            "actors": "actors", "imitate": "imitate", "margin": "margin"}


def train(
    ctx: typer.Context,
    out: Annotated[Path, typer.Option(help="The run's folder (created; resumed when it holds "
                                           "a checkpoint).")],
    hands: Annotated[int | None, typer.Option(min=1, help="Stop when the run has played this "
                                                          "many hands in all.")] = None,
    minutes: Annotated[float | None, typer.Option(min=0.0, help="Stop after this many minutes "
                                                                "of this call.")] = None,
    game: Annotated[str, typer.Option("--game", "-g", help="A preset, or several of one family "
                                                           "(comma-separated: one drawn per "
                                                           "hand).")
                    ] = "zheng-shangyou/pagat",
    players: Annotated[str, typer.Option("--players", "-p",
                                         help="Table sizes, one drawn per hand: 4,5.")] = "4,5",
    opponents: Annotated[str, typer.Option(
        help="The league and its weights: self (copies of the learner), snapshot (earlier "
             "snapshots of it) and bot levels.")] = "self=4,heuristic=3,snapshot=2,greedy=1",
    teachers: Annotated[str, typer.Option(
        help="Bot levels whose moves are samples too (comma-separated; 'none').")
                        ] = "heuristic",
    hidden: Annotated[int, typer.Option(min=4, help="Width of the first hidden layer (with "
                                                    "--init: the model's).")] = 256,
    init: Annotated[Path | None, typer.Option(
        help="Start the network from this model file (.npz of the learned bot, such as "
             "src/shangyou/bots/models/pagat.npz or a run's best.npz) instead of at random."
    )] = None,
    epsilon: Annotated[str, typer.Option(
        help="Exploration: the chance of a random move, from START down to END over the "
             "first 20,000 hands (START,END).")] = "0.1,0.02",
    lr: Annotated[float, typer.Option(help="Learning rate (Adam).")] = 3e-4,
    batch: Annotated[int, typer.Option(min=1, help="Samples per learning step.")] = 256,
    replay: Annotated[int, typer.Option(min=1, help="Latest samples kept for learning.")
                      ] = 100_000,
    hands_per_round: Annotated[int, typer.Option(min=1, help="Hands played between "
                                                             "learning rounds.")] = 32,
    eval_every: Annotated[int, typer.Option(min=1, help="Hands between evaluations "
                                                        "(and checkpoints).")] = 5_000,
    eval_deals: Annotated[int, typer.Option(min=1, help="Fixed deals per table size in an "
                                                        "evaluation.")] = 200,
    eval_level: Annotated[str, typer.Option(help="The bot level evaluated against.")
                          ] = "heuristic",
    snapshot_every: Annotated[int, typer.Option(min=1, help="Hands between snapshots for "
                                                            "the league.")] = 5_000,
    seed: Annotated[int, typer.Option(help="Seed of the run.")] = 0,
    imitate: Annotated[float, typer.Option(
        help="Weight of the imitation loss: the teachers' moves should score MARGIN above "
             "another legal move (0: Deep Monte-Carlo alone).")] = 0.0,
    margin: Annotated[float, typer.Option(help="The imitation loss's margin (in returns).")
                      ] = 0.1,
    device: Annotated[str, typer.Option(help="auto (a GPU when torch sees one), cpu or cuda.")
                      ] = "auto",
    threads: Annotated[int, typer.Option(min=1, help="CPU threads for torch.")] = 1,
    actors: Annotated[int, typer.Option(help="Processes playing hands: 1 plays in this "
                                                    "process; more are Ray actors (a local Ray, "
                                                    "or the cluster of RAY_ADDRESS).")] = 1,
    export: Annotated[Path | None, typer.Option(help="At the end, copy the best model "
                                                     "(best.npz) to this file.")] = None,
) -> None:
    """Train the learned bot (needs the train extra: pip install 'shangyou[train]')."""
    if hands is None and minutes is None:
        fail("give --hands N or --minutes M (when to stop)")
    # small matrices: one BLAS thread each (several fight over a busy machine's cores)
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, str(threads))
    try:
        from ..train import TrainConfig, parse_opponents, require_torch
        require_torch()
    except ModuleNotFoundError as e:
        fail(str(e))
    try:
        sizes = tuple(int(p) for p in players.split(",") if p.strip())
    except ValueError:
        fail(f"bad --players {players!r}: give table sizes such as 4,5")
    try:
        eps = tuple(float(e) for e in epsilon.split(","))
        if len(eps) != 2:
            raise ValueError
    except ValueError:
        fail(f"bad --epsilon {epsilon!r}: give START,END such as 0.1,0.02")
    if init is not None and init.is_file() and getattr(
            ctx.get_parameter_source("hidden"), "name", "") != "COMMANDLINE":
        from ..bots.learned import Network
        try:
            hidden = int(Network.load(init).w["ws"].shape[1])     # the model's width
        except ValueError as e:
            fail(f"--init: {e}")
    teacher_list = tuple(t.strip().lower() for t in teachers.split(",")
                         if t.strip() and t.strip().lower() != "none")
    try:
        from ..bots import make_bot
        for t in teacher_list:
            make_bot(t, seed=0)
        cfg = TrainConfig(game=game, players=sizes, hidden=hidden, lr=lr, batch=batch,
                          init=str(init) if init is not None else "", epsilon=eps,
                          replay=replay, opponents=parse_opponents(opponents),
                          teachers=teacher_list, hands_per_round=hands_per_round,
                          snapshot_every=snapshot_every, eval_every=eval_every,
                          eval_deals=eval_deals, eval_opponent=eval_level.strip().lower(),
                          seed=seed, actors=actors, imitate=imitate, margin=margin).check()
        from ..train.dmc import latest_checkpoint, pick_device
        pick_device(device)
    except ValueError as e:
        fail(str(e))
    if export is not None and export.exists() and export.is_dir():
        fail(f"--export {export} is a folder; give a file name such as model.npz")
    changes = None
    if latest_checkpoint(out) is not None:
        given = [name for name in SETTINGS
                 if getattr(ctx.get_parameter_source(name), "name", "") == "COMMANDLINE"]
        changes = {SETTINGS[name]: getattr(cfg, SETTINGS[name]) for name in given}
        print(f"resuming the run in {out} (its settings apply, but for those given here)",
              file=sys.stderr)
    from ..train.dmc import run
    try:
        result = run(cfg, out, hands=hands, minutes=minutes, device=device, threads=threads,
                     log=lambda line: print(line, flush=True), changes=changes)
    except KeyboardInterrupt:
        print(f"Interrupted: the latest checkpoint in {out} is kept; run the same command to "
              "go on.", file=sys.stderr)
        raise typer.Exit(130) from None
    except ValueError as e:
        fail(str(e))
    print(f"{result['hands']} hands, {result['samples']} samples, {result['steps']} learning "
          f"steps; models in {out / 'best.npz'} and {out / 'latest.npz'}, curve in "
          f"{out / 'curve.csv'}")
    if export is not None:
        export.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(out / "best.npz", export)
        print(f"Wrote {export} (play it: --bots learned:{export})")
