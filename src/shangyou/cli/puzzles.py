"""``shangyou puzzles mine|stats``: mine puzzles from bot games, count them.

``mine`` appends each seed's puzzles to the family's JSON lines file and marks the seed done
(with its CPU time) in ``<family>.seeds`` beside it, so a stopped run goes on where it was
when started again with the same seeds (:mod:`shangyou.puzzles.mine`).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Annotated

import typer

from ..puzzles.mine import LEADS, done_seeds, mine
from ..puzzles.position import FAMILIES, load
from .common import fail

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Puzzles: positions from bot games where one play is clearly best.")


def _seed_range(text: str) -> range:
    try:
        lo, _, hi = text.partition("-")
        return range(int(lo), int(hi) + 1) if hi else range(int(lo), int(lo) + 1)
    except ValueError:
        fail(f"--seeds is a seed or a range FIRST-LAST, not {text!r}")


def _logs(path: Path) -> list[dict]:
    """The game logs of a file: one JSON log, or JSON lines of them (a stored match's
    ``{"log": ...}`` is taken for its log)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        fail(f"cannot read {path}: {e}")
    try:
        items = [json.loads(text)]
    except json.JSONDecodeError:
        try:
            items = [json.loads(line) for line in text.splitlines() if line.strip()]
        except json.JSONDecodeError as e:
            fail(f"{path} is neither JSON nor JSON lines: {e}")
    out = []
    for item in items:
        item = item.get("log", item) if isinstance(item, dict) else item
        if not isinstance(item, dict) or not {"game", "seed", "moves"} <= set(item):
            fail(f"{path}: not a game log (it needs game, seed and moves)")
        out.append(item)
    return out


@app.command(name="mine")
def mine_cmd(
    family: Annotated[str, typer.Option(help=f"One of: {', '.join(FAMILIES)}.")],
    seeds: Annotated[str, typer.Option(help="Seeds to mine, e.g. 0-499 (one hand each).")]
    = "0-99",
    log: Annotated[list[Path] | None, typer.Option(
        help="Mine a finished game's log instead (JSON, as `play --save` or "
             "GET /api/matches/{id} give it; or JSON lines of logs); repeatable.")] = None,
    out: Annotated[Path | None, typer.Option(help="Directory of the JSON lines files "
                                            "(default: the package's data).")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", help="No line per seed.")] = False,
    leads: Annotated[bool, typer.Option(
        "--leads", help="Sheng ji: mine the hands' leads (a pass of its own, each game "
                        "marked done as leads-SEED).")] = False,
) -> None:
    """Mine puzzles of one family; seeds done already are skipped."""
    if family not in FAMILIES:
        fail(f"unknown family {family!r}; known: {', '.join(FAMILIES)}")

    def progress(key, n, cpu):
        if not quiet:
            typer.echo(f"{key}: {n} puzzles, {cpu:.2f} s CPU", err=True)
    if leads and family != "sheng-ji":
        fail("--leads is for --family sheng-ji (the climbing miner takes leads with the rest)")
    if log:
        added = mine(family, (), out, progress, [g for p in log for g in _logs(p)], leads)
    else:
        added = mine(family, _seed_range(seeds), out, progress, leads=leads)
    typer.echo(f"{added} puzzles added to {family}")


@app.command(name="stats")
def stats_cmd(
    out: Annotated[Path | None, typer.Option(help="Directory of the JSON lines files.")]
    = None,
    as_json: Annotated[bool, typer.Option("--json", help="JSON instead of lines.")] = False,
) -> None:
    """Puzzles per family and theme, and the miner's CPU per puzzle."""
    report: dict[str, dict] = {}
    for family in FAMILIES:
        puzzles = load(family, out)
        seeds = done_seeds(family, out)
        cpu = sum(c for _, c in seeds.values())
        report[family] = {
            "puzzles": len(puzzles),
            "seeds": sum(1 for k in seeds if not k.startswith(LEADS)),
            "lead_passes": sum(1 for k in seeds if k.startswith(LEADS)),
            "leads": sum(1 for p in puzzles if p.get("lead")), "cpu_s": round(cpu, 1),
            "lead_cpu_s": round(sum(c for k, (_, c) in seeds.items() if k.startswith(LEADS)),
                                1),
            "lead_themes": dict(Counter(p["theme"] for p in puzzles
                                        if p.get("lead")).most_common()),
            "cpu_per_puzzle_s": round(cpu / len(puzzles), 3) if puzzles else None,
            "blunders": sum(1 for p in puzzles if p["blunder"]),
            "themes": dict(Counter(p["theme"] for p in puzzles).most_common()),
            "presets": dict(Counter(f"{p['preset']} {p['players']}p"
                                    for p in puzzles).most_common())}
    if as_json:
        typer.echo(json.dumps(report, indent=1))
        return
    for family, r in report.items():
        typer.echo(f"{family}: {r['puzzles']} puzzles from {r['seeds']} hands "
                   f"({r['blunders']} the bot's errors), {r['cpu_s']} s CPU, "
                   f"{r['cpu_per_puzzle_s']} s a puzzle")
        if r["lead_passes"]:
            typer.echo(f"  leads: {r['leads']} puzzles from {r['lead_passes']} hands' leads, "
                       f"{r['lead_cpu_s']} s CPU (" + ", ".join(
                           f"{k} {v}" for k, v in r["lead_themes"].items()) + ")")
        typer.echo("  themes: " + ", ".join(f"{k} {v}" for k, v in r["themes"].items()))
        typer.echo("  presets: " + ", ".join(f"{k} {v}" for k, v in r["presets"].items()))
