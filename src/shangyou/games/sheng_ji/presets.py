"""The Sheng ji presets (seed 003_0367b52b0c4da365.txt; RULES.md; docs/rules/sheng-ji.md)."""

from __future__ import annotations

from ..options import (check_bool, check_int, check_options, check_players, memo_build,
                       require)
from .game import ShengJiRules
from .order import LEVEL_RANK

PRESETS: dict = {}
ALIASES = {"tractor": "sheng-ji", "shengji": "sheng-ji", "升级": "sheng-ji",
           "forty-points": "sheng-ji/single-deck", "sishi-fen": "sheng-ji/single-deck",
           "finding-friends": "sheng-ji/zhao-pengyou", "zhao-pengyou": "sheng-ji/zhao-pengyou",
           "找朋友": "sheng-ji/zhao-pengyou"}

COMMON = {"kitty": None, "kitty_multiplier": "power", "throw_penalty": 0, "no_bid": "kitty-card",
          "kitty_theft": False, "jack_hook": False, "red_five": False, "red_five_gap": "closed",
          "must_play_ranks": (), "start_level": "2"}


def default_kitty(cards: int, players: int) -> int:
    """What is left after an equal deal, raised by whole rounds to at least five cards."""
    k = cards % players
    while k < 5:
        k += players
    return k


def _common(name: str, o: dict, players: int, decks: int) -> dict:
    cards = 54 * decks
    kitty = o["kitty"]
    if kitty is None:
        kitty = 8 if (decks, players) == (2, 4) else 6 if (decks, players) == (1, 4) \
            else default_kitty(cards, players)
    kitty = check_int("kitty", kitty, 0, cards - players)
    require((cards - kitty) % players == 0,
            f"option kitty={kitty}: {cards - kitty} cards do not deal evenly to {players}")
    require(o["kitty_multiplier"] in ("power", "linear"),
            "option kitty_multiplier must be 'power' (2^(n+1)) or 'linear' (2(n+1))")
    require(o["throw_penalty"] in (0, 10), "option throw_penalty must be 0 or 10")
    require(o["red_five_gap"] in ("closed", "open"),
            "option red_five_gap must be 'closed' (4H and 6H are neighbours) or 'open'")
    require(o["no_bid"] in ("kitty-card", "no-trump", "redeal"),
            "option no_bid must be 'kitty-card', 'no-trump' or 'redeal'")
    ranks = o["must_play_ranks"]
    if isinstance(ranks, str):
        ranks = [x for x in ranks.replace(",", " ").split() if x]
    for x in ranks:
        require(str(x).upper() in LEVEL_RANK, f"must_play_ranks: {x!r} is not a rank 2..A")
    start = str(o["start_level"]).upper()
    require(start in LEVEL_RANK, f"start_level {o['start_level']!r} is not a rank 2..A")
    return dict(name=name, players=players, decks=decks, kitty=kitty,
                kitty_multiplier=o["kitty_multiplier"], throw_penalty=o["throw_penalty"],
                no_bid=o["no_bid"], kitty_theft=check_bool("kitty_theft", o["kitty_theft"]),
                jack_hook=check_bool("jack_hook", o["jack_hook"]),
                red_five=check_bool("red_five", o["red_five"]),
                red_five_gap=o["red_five_gap"],
                must_play=tuple(LEVEL_RANK[str(x).upper()] for x in ranks),
                start_level=LEVEL_RANK[start], options=o)


def _sheng_ji(o: dict) -> ShengJiRules:
    n = check_players("sheng-ji", o["players"], (4, 6))
    decks = check_int("decks", o["decks"], 1, 4)
    teams = tuple(tuple(range(i, n, 2)) for i in range(2))
    return ShengJiRules(teams=teams, **_common("sheng-ji", o, n, decks))


def _single_deck(o: dict) -> ShengJiRules:
    n = check_players("sheng-ji/single-deck", o["players"], (4,))
    return ShengJiRules(teams=((0, 2), (1, 3)), **_common("sheng-ji/single-deck", o, n, 1))


def _zhao_pengyou(o: dict) -> ShengJiRules:
    n = check_players("sheng-ji/zhao-pengyou", o["players"], (5, 6, 7))
    decks = o["decks"] if o["decks"] is not None else (2 if n == 5 else 3)
    decks = check_int("decks", decks, 2, 3)
    friends = o["friends"] if o["friends"] is not None else n // 2 - 1
    friends = check_int("friends", friends, 1, n // 2)
    return ShengJiRules(friends=friends, teams=None,
                        **_common("sheng-ji/zhao-pengyou", o, n, decks))


PRESETS["sheng-ji"] = {"defaults": {"players": 4, "decks": 2, **COMMON}, "players": (4, 6),
                       "build": _sheng_ji}
PRESETS["sheng-ji/single-deck"] = {"defaults": {"players": 4, **COMMON}, "players": (4,),
                                   "build": _single_deck}
PRESETS["sheng-ji/zhao-pengyou"] = {"defaults": {"players": 5, "decks": None, "friends": None,
                                                 **COMMON},
                                    "players": (5, 6, 7), "build": _zhao_pengyou}


_BUILT: dict = {}


def _build(name: str, options: dict) -> ShengJiRules:
    return PRESETS[name]["build"](check_options(PRESETS, name, options))


def build(name: str, options: dict) -> ShengJiRules:
    """The preset's rulebook, shared by the games of equal options (``memo_build``)."""
    return memo_build(_BUILT, _build, name, options)


def judge(rules: ShengJiRules):
    from .judge import ShengJiJudge
    return ShengJiJudge(rules)


_GAME: list = []      # ShengJiGame, imported once (an import statement a game costs two
#                       AttributeErrors made and dropped: game.py is no package)


def new_game(rules: ShengJiRules, seed, match: bool):
    if not _GAME:
        from .game import ShengJiGame
        _GAME.append(ShengJiGame)
    return _GAME[0](rules, seed=seed, match=match)
