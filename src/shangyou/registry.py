"""Every preset of every game, found by name or common alias (``pits``, ``winner``, ...).

Games register their presets here; the public functions in :mod:`shangyou` look them up.
"""

from __future__ import annotations

from .errors import UnknownOption
from .games.sheng_ji import presets as sheng_ji
from .games.zheng_fen import presets as zheng_fen
from .games.zheng_shangyou import presets as zsy


def _games():
    return [zsy, zheng_fen, sheng_ji]


def preset_names() -> list[str]:
    names: list[str] = []
    for g in _games():
        names.extend(g.PRESETS)
    return names


def aliases() -> dict[str, str]:
    out: dict[str, str] = {}
    for g in _games():
        out.update(g.ALIASES)
    return out


_ALIASES: dict[str, str] = {}     # aliases(), made once (the games' aliases never change)


def resolve(name: str):
    """(canonical name, game module) for a preset name or alias; ValueError if unknown."""
    key = str(name).strip().lower()
    if not _ALIASES:
        _ALIASES.update(aliases())
    key = _ALIASES.get(key, key)
    for g in _games():
        if key in g.PRESETS:
            return key, g
    raise UnknownOption(f"unknown game {name!r}; known: {', '.join(preset_names())} "
                        f"(aliases: {', '.join(sorted(aliases()))})")


def preset_info(name: str) -> dict:
    key, g = resolve(name)
    spec = g.PRESETS[key]
    return {"name": key, "defaults": dict(spec["defaults"]), "players": spec["players"]}


def build(name: str, options: dict):
    key, g = resolve(name)
    return g.build(key, options)


def make_rules(name: str, options: dict):
    """The judge object of a preset (``shangyou.rules``)."""
    key, g = resolve(name)
    rulebook = g.build(key, options)
    if hasattr(g, "judge"):
        return g.judge(rulebook)
    from . import Rules
    return Rules(rulebook)


def make_game(name: str, options: dict, seed, match: bool):
    fast = None
    if len(options) == 1 and type(name) is str:
        # the common call, a name and a player count: its maker and rulebook remembered
        # (both a pure function of the two: the rulebooks are memoised and frozen)
        players = options.get("players")
        if type(players) is int:
            fast = (name, players)
            made = _MADE.get(fast)
            if made is not None:
                return made[0](made[1], seed, match)
    key, g = resolve(name)
    rulebook = g.build(key, options)
    maker = _MAKERS.get(g, _UNKNOWN)
    if maker is _UNKNOWN:     # asked once per game module (a failed hasattr formats an error)
        maker = _MAKERS[g] = getattr(g, "new_game", None)
    if maker is None:
        maker = _climbing_maker
    if fast is not None:
        if len(_MADE) >= 256:
            _MADE.clear()
        _MADE[fast] = (maker, rulebook)
    return maker(rulebook, seed, match)


_MADE: dict = {}          # (name as given, players) -> (maker, rulebook): make_game's memo


def _climbing_maker(rulebook, seed, match: bool):
    cls = _CLIMBING[0] if _CLIMBING else _climbing_game()
    return cls(rulebook, seed=seed, match=match)


_UNKNOWN = object()
_MAKERS: dict = {}        # game module -> its new_game, or None (the climbing game's class)


_CLIMBING: list = []      # ClimbingGame once imported (an import statement a deal cost more)


def _climbing_game():
    from .games.climbing.game import ClimbingGame
    _CLIMBING.append(ClimbingGame)
    return ClimbingGame
