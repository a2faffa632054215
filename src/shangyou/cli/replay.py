"""``shangyou replay LOG``: print a saved game move by move, every hand open.

The log is ``game.log`` as JSON (what ``shangyou play --save`` writes). The game is rebuilt
exactly as :func:`shangyou.replay` does, but one move at a time so each can be told.
"""

from __future__ import annotations

import json

import shangyou

from .render import Renderer, cards_text
from .session import Narrator, NarratorProtocol
from .sheng_ji import ShengJiNarrator, ShengJiRenderer, is_sheng_ji


def load_log(path) -> dict:
    """The log in a file; ValueError with a readable message if it is not one."""
    try:
        with open(path, encoding="utf-8") as f:
            log = json.load(f)
    except OSError as e:
        raise ValueError(f"cannot read {path}: {e.strerror or e}") from None
    except json.JSONDecodeError as e:
        raise ValueError(f"{path} is not JSON: {e}") from None
    if not isinstance(log, dict) or "game" not in log or "moves" not in log:
        raise ValueError(f"{path} is not a shangyou game log (needs 'game', 'seed', 'moves')")
    return log


def new_from_log(log: dict):
    options = dict(log.get("options") or {})
    options["players"] = log.get("players", options.get("players"))
    make = shangyou.new_match if log.get("match", False) else shangyou.new_game
    return make(log["game"], seed=log.get("seed"), **options)


def replay_log(log: dict, console) -> None:
    """Tell every move of ``log``; ValueError if a move is out of turn or illegal."""
    g = new_from_log(log)
    names = [f"Seat {s}" for s in range(g.n)]
    sj: ShengJiRenderer | None = None
    r: Renderer
    if is_sheng_ji(g):
        r = sj = ShengJiRenderer(console, g, names, names, human=None)
    else:
        r = Renderer(console, g, names, names, human=None)

    def show_hands() -> None:
        for s in range(g.n):
            if sj is not None:
                line = sj.hand_groups(g.hand(s), g.trump_for_display())
            else:
                line = cards_text(r.sorted_hand(g.hand(s)), group=True)
            r.say(f"  {names[s]} ({len(g.hand(s))}): ", line)

    narrator: NarratorProtocol
    if sj is not None:
        narrator = ShengJiNarrator(g, sj, viewer=0, on_play_start=show_hands, open_hands=True)
    else:
        narrator = Narrator(g, r, viewer=0, on_play_start=show_hands)
    r.game_header()
    narrator.begin()
    for i, entry in enumerate(log["moves"]):
        try:
            seat, text = entry
        except (TypeError, ValueError):
            raise ValueError(f"log move {i} is not [seat, move]: {entry!r}") from None
        if g.over:
            raise ValueError(f"log move {i} ({text!r}) comes after the end of the game")
        if g.to_act != seat:
            raise ValueError(f"log move {i} ({text!r}) is by seat {seat}, "
                             f"but seat {g.to_act} is to act")
        pre = narrator.before()
        try:
            g.apply(text)
        except shangyou.IllegalMove as e:
            raise ValueError(f"log move {i} ({text!r}) is illegal: {e}") from None
        narrator.after(seat, pre)
    if g.over:
        r.final(g.result)
    else:
        r.blank()
        r.say("(the log ends here; the game is not over)")
