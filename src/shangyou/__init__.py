"""shangyou: Chinese climbing and trick-taking card games.

>>> import shangyou
>>> r = shangyou.rules("zheng-shangyou/pagat")
>>> [c.label for c in r.combos("5H 6D BJ")]
['5-7', '4-6']
>>> r.beats("7H 2S 2D", "7S 7C 7D")
True
>>> g = shangyou.new_game("zheng-shangyou/owen", players=3, seed=7)
>>> g.to_act in range(3) and len(g.legal_moves()) > 0
True
"""

from __future__ import annotations

from .cards import Card, Cards, parse
from .engine.moves import Move
from .errors import IllegalMove, NotationError, UnknownOption
from .games.climbing import explain
from .games.climbing.combo import Combo
from .registry import make_game as _make_game, preset_info, preset_names

__all__ = ["Card", "Cards", "Combo", "IllegalMove", "Move", "NotationError", "UnknownOption",
           "new_game", "new_match", "parse", "preset_names", "preset_info", "replay", "rules"]
__version__ = "0.1.0"


class Rules:
    """The judge of one preset: which cards form which plays, and what beats what."""

    def __init__(self, rulebook):
        self.rulebook = rulebook
        self.name = rulebook.name
        self.family = rulebook.family

    def combos(self, cards) -> list[Combo]:
        """Every way these cards can be played, default (highest) reading first; [] if none."""
        return self.family.combos(tuple(sorted(parse(cards))))

    def beats(self, first, second) -> bool:
        """May ``second`` be played on ``first``? ``first`` is read as its highest reading."""
        a = self.combos(first)
        if not a:
            why = explain.not_combination(self.family, tuple(sorted(parse(first))))
            raise IllegalMove(why.text("en"), why=why)
        top = a[0]
        return any(c.beats(top) for c in self.combos(second))

    def points(self, cards) -> int:
        """Card points of these cards (games that count points: Zheng Fen, Sheng ji)."""
        if not hasattr(self.family, "points"):
            raise ValueError(f"{self.name} does not count card points")
        return self.family.points(parse(cards))

    def __repr__(self) -> str:
        return f"Rules({self.name!r})"


def rules(name: str, **options):
    """The judge of a preset (or alias) with options; unknown name or option: ValueError.

    Climbing games answer ``combos``, ``beats`` (and ``points`` for Zheng Fen); Sheng ji answers
    ``is_tractor``, ``trick_winner``, ``points``, ``level_change``.
    """
    from .registry import make_rules
    return make_rules(name, options)


def new_game(name: str, players: int | None = None, seed: int | str | None = None, **options):
    """One hand of a preset (no card exchange: it is the first hand).

    ``seed``: an int deals reproducibly and predictably (research, tests); a secret of 64
    lowercase hex digits (:func:`shangyou.fairness.new_secret`) deals unpredictably (live
    play; see ``docs/fairness.md``); None picks a random int. Anything else: ValueError.
    """
    if players is not None:
        options["players"] = players
    return _make_game(name, options, seed, match=False)


def new_match(name: str, players: int | None = None, seed: int | str | None = None, **options):
    """A match: hands to the preset's target, with exchanges and scoring between hands.
    ``seed`` as for :func:`new_game`: one seed deals every hand of the match."""
    if players is not None:
        options["players"] = players
    return _make_game(name, options, seed, match=True)


def replay(log: dict):
    """Rebuild a game from its JSON log (``g.log``, whose ``"seed"`` is an int or a secret);
    the result equals the original game."""
    if isinstance(log, str):
        import json
        log = json.loads(log)
    if not isinstance(log, dict) or "game" not in log or "moves" not in log:
        raise ValueError("not a shangyou game log (needs 'game', 'seed', 'options', 'moves')")
    options = dict(log.get("options") or {})
    options["players"] = log.get("players", options.get("players"))
    make = new_match if log.get("match", False) else new_game
    g = make(log["game"], seed=log["seed"], **options)
    for i, (seat, text) in enumerate(log["moves"]):
        if g.to_act != seat:
            raise ValueError(f"log move {i} ({text!r}) is by seat {seat}, "
                             f"but seat {g.to_act} is to act")
        g.apply(text)
    return g
