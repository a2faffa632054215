"""The ``shangyou`` command: ``play``, ``presets``, ``replay``, ``verify``, ``review``,
``serve``, ``tournament``, ``tournament-report``, ``train``, ``db`` (the store's schema),
``puzzles`` (``mine``, ``stats``).

Errors a user can make on the command line (an unknown game, a bad ``--option``, a player
count the preset does not allow, a seat off the table) print one line and exit with code 2,
never a traceback. ``quit`` at the prompt, the end of the game and the end of input exit 0.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

import shangyou

from ..bots import known_levels, make_bot
from ..bots.base import level_spec
from ..registry import aliases
from .common import fail, parse_option
from .db import app as _db_app
from .render import Renderer, color_wanted, fmt_value, make_console
from .replay import load_log, replay_log
from .session import PlaySession
from .sheng_ji import ShengJiRenderer, ShengJiSession, is_sheng_ji
from .puzzles import app as _puzzles
from .review import review as _review
from .tournament import tournament as _tournament
from .tournament import tournament_report as _tournament_report
from .train import train as _train
from .verify import verify as _verify

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  help="Zheng Shangyou, Zheng Fen and Sheng ji (Tractor) in the terminal.")

DEFAULT_GAME = "zheng-shangyou/pagat"
RESERVED = {"seed", "name"}


def parse_bots(spec: str, bot_seats: list[int]) -> dict[int, str]:
    """``greedy`` for every bot, or one name per bot seat in seat order."""
    names = [level_spec(s) for s in spec.split(",") if s.strip()]
    if not names:
        raise ValueError("--bots needs a bot name: " + ", ".join(known_levels()))
    if len(names) == 1:
        names = names * len(bot_seats)
    if len(names) != len(bot_seats):
        raise ValueError(f"--bots lists {len(names)} bots, but there are {len(bot_seats)} "
                         f"bot seats ({', '.join(map(str, bot_seats))}); give one name "
                         "or one per bot seat")
    for n in names:
        make_bot(n)        # raises a clear error for an unknown level or a bad parameter
    return dict(zip(bot_seats, names))


def _setup_line_editing() -> None:
    """Arrow keys and history at the prompt, without escape codes readline might print."""
    if not sys.stdin.isatty():
        return
    try:
        import readline
    except ImportError:  # pragma: no cover - not on every platform
        return
    for setting in ("set enable-bracketed-paste off", "set enable-meta-key off"):
        try:
            readline.parse_and_bind(setting)
        except Exception:  # pragma: no cover - older readline
            pass


@app.command()
def play(
    game: Annotated[str, typer.Option("--game", "-g",
                                      help="Preset or alias (see `shangyou presets`).")
                    ] = DEFAULT_GAME,
    players: Annotated[int | None, typer.Option("--players", "-p",
                                                help="Players (default: the preset's).")
                       ] = None,
    seed: Annotated[int | None, typer.Option(help="Seed of the deal (default: random).")
                    ] = None,
    seat: Annotated[int, typer.Option(help="Your seat, 0 to players-1.")] = 0,
    bots: Annotated[str, typer.Option(help="A bot level (random, greedy, heuristic, "
                                           "search, search:400, search:0.5s, learned, "
                                           "learned:MODEL.npz), or one per bot seat: "
                                           "heuristic,greedy,...")] = "greedy",
    option: Annotated[list[str] | None, typer.Option(
        "--option", "-o", help="A preset option key=value, repeatable: "
                               "--option twos_in_sequences=true --option target=5")] = None,
    match: Annotated[bool, typer.Option("--match/--single-hand",
                                        help="A whole match to the target, or one hand.")
                     ] = True,
    no_color: Annotated[bool, typer.Option("--no-color", help="No colours or styles.")
                        ] = False,
    delay: Annotated[float, typer.Option(min=0.0, help="Seconds to wait after each bot move.")
                     ] = 0.0,
    save: Annotated[Path | None, typer.Option(help="Write the game log (JSON) here at "
                                                   "the end or on quit.")] = None,
    auto_pass: Annotated[bool, typer.Option("--auto-pass",
                                            help="Pass for you when passing is your only "
                                                 "legal move (Sheng ji: during the deal, "
                                                 "ask only when your possible bids "
                                                 "change).")] = False,
) -> None:
    """Play against bots: you hold one seat, bots the others."""
    try:
        # the values as typed: the preset checks them (and names a bad one)
        options: dict[str, Any] = dict(parse_option(o) for o in (option or []))
    except ValueError as e:
        fail(str(e))
    for key in RESERVED & set(options):
        fail(f"--option {key}=... is not a game option; use --{key}" if key == "seed"
             else f"--option {key}=... is not a game option")
    if "players" in options:
        if players is not None and options["players"] != players:
            fail("--players and --option players=... disagree")
        players = options.pop("players")
    make = shangyou.new_match if match else shangyou.new_game
    try:
        g = make(game, players=players, seed=seed, **options)
    except ValueError as e:
        fail(str(e))
    if not 0 <= seat < g.n:
        fail(f"no seat {seat} at a table of {g.n} (seats 0 to {g.n - 1})")
    bot_seats = [s for s in range(g.n) if s != seat]
    try:
        kinds = parse_bots(bots, bot_seats)
    except ValueError as e:
        fail(str(e))
    table = {s: make_bot(k, seed=g.seed * 100 + s) for s, k in kinds.items()}

    console = make_console(color_wanted(no_color))
    names = ["You" if s == seat else f"Bot {s}" for s in range(g.n)]
    long_names = ["You" if s == seat else f"Bot {s} ({kinds[s]})" for s in range(g.n)]
    renderer: Renderer
    session: PlaySession
    if is_sheng_ji(g):
        renderer = ShengJiRenderer(console, g, names, long_names, human=seat)
        session = ShengJiSession(g, seat, table, renderer, delay=delay, auto_pass=auto_pass)
    else:
        renderer = Renderer(console, g, names, long_names, human=seat)
        session = PlaySession(g, seat, table, renderer, delay=delay, auto_pass=auto_pass)
    _setup_line_editing()
    try:
        outcome = session.run()
    except KeyboardInterrupt:
        renderer.blank()
        renderer.say("Interrupted.")
        if save is not None:
            _save(g, save, renderer)
        raise typer.Exit(130) from None
    if outcome == "quit":
        renderer.say("You left the game.")
    # ask only a person at a terminal: piped input would be taken as a file name
    _offer_save(g, save, renderer, ask=outcome != "eof" and sys.stdin.isatty())


def _offer_save(g, path: Path | None, r: Renderer, ask: bool) -> None:
    if path is not None:
        _save(g, path, r)
        return
    if not ask:
        return
    try:
        answer = input("Save the game log? File name (Enter to skip)> ").strip()
    except (EOFError, KeyboardInterrupt):
        r.blank()
        return
    if answer:
        _save(g, Path(os.path.expanduser(answer)), r)


def _save(g, path: Path, r: Renderer) -> None:
    try:
        path.write_text(json.dumps(g.log) + "\n", encoding="utf-8")
    except OSError as e:
        r.error(f"could not save the log to {path}: {e.strerror or e}")
        return
    r.say(f"Game log saved to {path} (shangyou replay {path}).")


@app.command()
def presets() -> None:
    """List the presets, their aliases, player counts and default options."""
    by_target: dict[str, list[str]] = {}
    for alias, target in sorted(aliases().items()):
        by_target.setdefault(target, []).append(alias)
    for name in shangyou.preset_names():
        info = shangyou.preset_info(name)
        defaults = dict(info["defaults"])
        default_players = defaults.pop("players", None)
        line = name
        if by_target.get(name):
            line += "  (aliases: " + ", ".join(by_target[name]) + ")"
        print(line)
        print(f"  players: {_players_text(info['players'])}"
              + (f" (default {default_players})" if default_players is not None else ""))
        if defaults:
            print("  options: " + ", ".join(f"{k}={fmt_value(v)}" for k, v in defaults.items()))
    print(f"\nDefault game: {DEFAULT_GAME}. Example: shangyou play --game pits --players 4 "
          "--option target=5")


def _players_text(allowed) -> str:
    allowed = sorted(allowed)
    if len(allowed) > 2 and allowed == list(range(allowed[0], allowed[-1] + 1)):
        return f"{allowed[0]}-{allowed[-1]}"
    return ", ".join(map(str, allowed))


@app.command()
def replay(
    logfile: Annotated[Path, typer.Argument(help="A game log saved by `play --save`.")],
    no_color: Annotated[bool, typer.Option("--no-color", help="No colours or styles.")
                        ] = False,
) -> None:
    """Print a saved game move by move, with every hand open."""
    try:
        log = load_log(logfile)
    except ValueError as e:
        fail(str(e), 1)
    console = make_console(color_wanted(no_color))
    try:
        replay_log(log, console)
    except ValueError as e:  # includes IllegalMove, unknown game or option in the log
        fail(str(e), 1)


@app.command(add_help_option=False,
             context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def serve(ctx: typer.Context) -> None:
    """Start the web server (tables, bots, spectators, replays) and print its URL. The options
    are those of python -m shangyou.server: --host, --port, --data, --db, --bot-delay, --ws,
    --allow-origin, --allow-address, --limit, --log-level (see shangyou serve --help), each
    also a SHANGYOU_* environment variable (--db: SHANGYOU_DB)."""
    try:
        from ..server.__main__ import main as server_main
    except ModuleNotFoundError as e:
        fail(str(e))
    raise typer.Exit(server_main(list(ctx.args), prog="shangyou serve"))


app.command(name="verify")(_verify)
app.command(name="review")(_review)
app.add_typer(_puzzles, name="puzzles")

app.command(name="tournament")(_tournament)
app.command(name="tournament-report")(_tournament_report)
app.command(name="train")(_train)
app.add_typer(_db_app, name="db")


def _version(value: bool) -> None:
    if value:
        print(f"shangyou {version()}")
        raise typer.Exit()


def version() -> str:
    """The installed distribution's version (the package's own when not installed)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as dist_version
    try:
        return dist_version("shangyou")
    except PackageNotFoundError:
        return shangyou.__version__


@app.callback()
def _options(version: Annotated[bool, typer.Option(
        "--version", callback=_version, is_eager=True,
        help="Print the version and exit.")] = False) -> None:
    """Zheng Shangyou, Zheng Fen and Sheng ji (Tractor) in the terminal."""


def main() -> None:
    """Console entry point (``shangyou``)."""
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
