"""The bot interface and the two baseline bots (random legal, greedy).

A bot gets a seat's view (a dict, exactly what a remote client would get) and returns the text
of one of ``view["legal_moves"]``. Bots never see the game state.

Other packages add bots through the entry point group ``shangyou.bots``: the entry point's
name is the level name, its object a factory called as ``factory(seed)`` (a :class:`Bot`
subclass, say) that returns a :class:`BotProtocol`. Such a bot is then a level like the
built-in ones, in every process: the CLI, tournaments and their workers, the web server.
"""

from __future__ import annotations

import gc
import random
import warnings
from collections.abc import Callable
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

from ..cards import parse

ENTRY_POINT_GROUP = "shangyou.bots"


def pause_gc() -> bool:
    """Stop automatic garbage collection for a bot's decision; answers whether it was on
    (give that to :func:`resume_gc` after the move). In a process that has played a few
    hundred hands (a tournament worker, the web app's bot process) one full collection took
    0.1-0.45 s, and it fell inside whichever decision happened to cross the collector's
    threshold, also when the garbage was another bot's: the collector runs after the move
    instead, and a decision's own garbage is freed as it goes (reference counts). Call it
    first thing: it allocates nothing, so it cannot set off a collection itself."""
    on = gc.isenabled()
    gc.disable()
    return on


def resume_gc(was_on: bool) -> None:
    """Undo :func:`pause_gc`."""
    if was_on:
        gc.enable()


@runtime_checkable
class BotProtocol(Protocol):
    """What a bot is: ``choose(view)`` answers the text of one of ``view["legal_moves"]``."""

    def choose(self, view: dict) -> str: ...


class Bot:
    """A convenient base class: a seeded ``self.rng`` and a ``name``."""

    name = "bot"

    def __init__(self, seed: int | None = None):
        self.rng = random.Random(seed)

    def choose(self, view: dict) -> str:  # pragma: no cover - abstract
        raise NotImplementedError

    def advise(self, view: dict):
        """The move :meth:`choose` plays and why (:class:`~shangyou.bots.reasons.Advice`).
        Levels without rules of their own give no reason but ``only_move``/``no_reason``."""
        from .reasons import Advice, Reason
        move = self.choose(view)
        code = "only_move" if len(view["legal_moves"]) == 1 else "no_reason"
        return Advice(move, Reason(code, {"bot": self.name}), self.name)


class RandomBot(Bot):
    """Uniformly random among the legal moves."""

    name = "random"

    def choose(self, view: dict) -> str:
        return self.rng.choice(view["legal_moves"])


@lru_cache(maxsize=64)
def _rules(game: str, options: tuple):
    import shangyou
    return shangyou.rules(game, **dict(options))


@lru_cache(maxsize=16384)
def _cards(text: str) -> tuple[int, ...]:
    """The cards of a move text (cached: bots read the same texts move after move)."""
    return tuple(parse(text))


def rules_for(view: dict):
    return _rules(view["game"], tuple(sorted((view.get("options") or {}).items())))


class GreedyBot(Bot):
    """Plays its lowest legal play and keeps wild cards (2s, jokers) for when it is nearly out.

    Sheng ji (trick-taking) has its own simple rules: :mod:`shangyou.bots.sheng_ji`.

    Leading: the play holding its lowest card, the largest such play first, preferring plays
    without precious cards (2s, jokers), without bombs and (in point games) without points. Following: the play with the lowest
    top card that beats; a play spending precious cards only when it leaves three cards or fewer.
    Exchanges: give/take the highest card, discard or offer the lowest.
    """

    name = "greedy"

    def choose(self, view: dict) -> str:
        moves = view["legal_moves"]
        if len(moves) == 1:
            return moves[0]
        if str(view.get("game", "")).startswith("sheng-ji"):
            from . import sheng_ji
            return sheng_ji.choose(view, self.rng)
        fam = rules_for(view).family
        from ..games.climbing.steps import every_play
        moves = every_play(view, fam)["legal_moves"]   # past the steps: every play
        kind = moves[0].split()[0] if moves[0] != "pass" else "pass"
        if kind in ("give", "take"):
            return max(moves, key=lambda m: fam.card_strength(_cards(m.split(None, 1)[1])[0]))
        if kind == "discard":
            return min(moves, key=lambda m: (fam.precious(_cards(m.split(None, 1)[1])[0]),
                                             fam.card_strength(_cards(m.split(None, 1)[1])[0])))
        if kind == "offer":
            return min(moves, key=lambda m: sum(fam.card_strength(c)
                                                for c in _cards(m.split(None, 1)[1])))
        plays = [m for m in moves if m != "pass"]
        leading = "pass" not in moves
        hand_size = len(view["hand"])
        strength = fam.card_strength
        points = getattr(fam, "points", None)
        best: tuple[tuple[Any, ...], str] | None = None
        for m in plays:
            text = m.partition(" as ")[0]
            cards = _cards(text)
            spent = sum(1 for c in cards if fam.precious(c))
            plain = [strength(c) for c in cards if not fam.precious(c)] or \
                [strength(c) for c in cards]
            low, high = min(plain), max(plain)
            tier = 1 if len(cards) >= 3 and _is_bomb_like(fam, m) else 0
            pts = points(cards) if points else 0    # point games: keep counting cards
            cost: tuple[Any, ...]   # one shape per call: leading or following
            if leading:   # shed the lowest card in the largest play that holds it
                cost = (spent, tier, pts, low, -len(cards), high, m)
            else:         # the cheapest play that beats
                cost = (spent, tier, pts, high, low, m)
            if best is None or cost < best[0]:
                best = (cost, m)
        if best is None:
            return "pass"
        spent, choice = best[0][0], best[1]
        if not leading and spent and hand_size - len(_cards(choice.partition(" as ")[0])) > 3:
            return "pass"
        return choice


def _is_bomb_like(fam, move_text: str) -> bool:
    readings = fam.combos(_cards(move_text.partition(" as ")[0]))
    return bool(readings) and readings[0].tier > 0


BotFactory = Callable[..., BotProtocol]
"""What makes a bot of a level: ``factory(seed)``, ``factory(seed, budget=...)``."""

BOTS: dict[str, BotFactory | EntryPoint] = {"random": RandomBot, "greedy": GreedyBot}
"""Bot levels by name. ``heuristic``, ``search`` and ``learned`` register themselves from
their modules."""

LEVELS = ("random", "greedy", "heuristic", "search", "learned")


PLUGINS: dict[str, EntryPoint] = {}
"""Bot levels from the ``shangyou.bots`` entry points: name → entry point (loaded on use)."""


def _load_levels() -> None:
    # the stronger levels live in their own modules; importing them registers them in BOTS
    import importlib
    for mod in ("heuristic", "search", "learned"):
        try:
            importlib.import_module(f"{__package__}.{mod}")
        except ModuleNotFoundError as exc:     # not built yet
            if exc.name != f"{__package__}.{mod}":
                raise
    _find_plugins()


_plugins_found = False


def _find_plugins() -> None:
    global _plugins_found
    if _plugins_found:
        return
    _plugins_found = True
    from importlib.metadata import entry_points
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        name = ep.name.strip().lower()
        if name in BOTS and name not in PLUGINS:
            warnings.warn(f"the bot entry point {ep.name!r} ({ep.value}) is ignored: "
                          f"{name!r} is a built-in level", stacklevel=3)
            continue
        if not name or ":" in name or "," in name or name in PLUGINS:
            continue
        PLUGINS[name] = ep
        BOTS[name] = ep


def _factory(level: str) -> BotFactory:
    """The class or factory of a level; an entry point is loaded the first time."""
    from importlib.metadata import EntryPoint
    obj = BOTS[level]
    if isinstance(obj, EntryPoint):     # a plugin level not loaded yet (see _find_plugins)
        try:
            obj = obj.load()
        except Exception as exc:
            raise ValueError(f"bot {level!r} ({PLUGINS[level].value}) failed to load: "
                             f"{exc}") from exc
        BOTS[level] = obj
    return obj


def parse_level(spec: str) -> tuple[str, dict]:
    """``"search:400"`` -> ``("search", {"budget": "400"})``; ``"greedy"`` -> ``("greedy", {})``.

    A level may carry one parameter after a colon (for ``search``: its budget, iterations or
    seconds such as ``0.5s``).
    """
    name, _, param = str(spec).strip().partition(":")
    return name.lower(), ({"budget": param} if param else {})


def level_spec(text: str) -> str:
    """A level as written by a person, its name in lower case and its parameter as given
    (``Search:400`` -> ``search:400``; the path of a model file keeps its case)."""
    name, sep, param = str(text).strip().partition(":")
    return name.strip().lower() + sep + param.strip()


def known_levels() -> list[str]:
    """The built-in levels in the order of :data:`LEVELS` (whatever order their modules were
    imported in), then those of the entry points."""
    _load_levels()
    return [n for n in LEVELS if n in BOTS] + [n for n in BOTS if n not in LEVELS]


def make_bot(name: str, seed: int | None = None) -> BotProtocol:
    """A bot by level name (``random``, ``greedy``, ``heuristic``, ``search`` or
    ``search:BUDGET``, ``learned`` or ``learned:MODEL.npz``, or a level of the
    ``shangyou.bots`` entry points)."""
    level, kwargs = parse_level(name)
    if level not in BOTS:
        _load_levels()
    if level not in BOTS:
        raise ValueError(f"unknown bot {name!r}; known: {', '.join(BOTS)}")
    cls = _factory(level)
    if kwargs and not getattr(cls, "takes_budget", False):
        raise ValueError(f"bot {level!r} takes no parameter (got {name!r})")
    bot = cls(seed, **kwargs) if kwargs else cls(seed)
    if not isinstance(bot, BotProtocol):
        raise ValueError(f"bot {level!r} made {type(bot).__name__!r}, which has no "
                         "choose(view) method")
    return bot


def play_out(game, bots: dict | list) -> None:
    """Play ``game`` to the end with one bot per seat (list or {seat: bot})."""
    while not game.over:
        seat = game.to_act
        game.apply(bots[seat].choose(game.view(seat)))
