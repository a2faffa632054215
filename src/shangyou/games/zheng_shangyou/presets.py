"""The four Zheng Shangyou presets: named bundles of documented options (RULES.md).

Each preset is a function of the user's options returning a :class:`Rulebook`. Options are
checked here: an unknown option name or a bad value raises :class:`UnknownOption` naming it.
The decisions behind every field are in ``docs/rules/zheng-shangyou.md``.
"""

from __future__ import annotations

from ..climbing.game import Rulebook
from ..options import (check_bool, check_int, check_options, check_players, memo_build,
                       require)
from .owen import OwenFamily
from .pagat import PagatFamily
from .winner import WinnerFamily

# name -> (defaults, builder); defaults list every accepted option
PRESETS: dict = {}
ALIASES = {
    "pits": "zheng-shangyou/pagat",
    "zheng-shangyou": "zheng-shangyou/pagat",
    "zsy": "zheng-shangyou/pagat",
    "struggling-upstream": "zheng-shangyou/pagat",
    "pits-teams": "zheng-shangyou/pagat-teams",
    "san-jia-xi": "zheng-shangyou/pagat-teams",
    "huojian": "zheng-shangyou/pagat-teams",
    "winner": "zheng-shangyou/winner",
    "owen": "zheng-shangyou/owen",
}


def preset(name: str, defaults: dict, players: tuple):
    def deco(fn):
        PRESETS[name] = {"defaults": defaults, "players": players, "build": fn}
        return fn
    return deco


def _check(name: str, options: dict) -> dict:
    return check_options(PRESETS, name, options)


@preset("zheng-shangyou/pagat",
        {"players": 5, "decks": 1, "twos_in_sequences": False, "target": 11},
        tuple(range(3, 9)))
def _pagat(o: dict) -> Rulebook:
    n = check_players("zheng-shangyou/pagat", o["players"], tuple(range(3, 9)))
    decks = check_int("decks", o["decks"], 1, 2)
    return Rulebook(
        name="zheng-shangyou/pagat", players=n, decks=decks, jokers=True,
        family=PagatFamily(
            twos_in_sequences=check_bool("twos_in_sequences", o["twos_in_sequences"])),
        first_leader="dealer", later_leader="dealer", next_dealer="place:2",
        exchange="pits", scoring="places", place_points=(2, 1),
        target=check_int("target", o["target"], 1), options=o)


@preset("zheng-shangyou/pagat-teams",
        {"players": 4, "twos_in_sequences": False, "target": None}, (4, 6))
def _pagat_teams(o: dict) -> Rulebook:
    n = check_players("zheng-shangyou/pagat-teams", o["players"], (4, 6))
    fam = PagatFamily(twos_in_sequences=check_bool("twos_in_sequences", o["twos_in_sequences"]))
    if n == 4:
        target = check_int("target", o["target"] if o["target"] is not None else 11, 1)
        return Rulebook(
            name="zheng-shangyou/pagat-teams", players=4, family=fam,
            first_leader="dealer", later_leader="dealer", next_dealer="place:2",
            exchange="pits", scoring="places", place_points=(2, 1),
            teams=((0, 2), (1, 3)), target=target, options=o)
    target = check_int("target", o["target"] if o["target"] is not None else 50, 1)
    return Rulebook(
        name="zheng-shangyou/pagat-teams", players=6, family=fam,
        first_leader="random-card", later_leader="place:4", next_dealer="place:4",
        exchange="pits", scoring="teams6", teams=((0, 2, 4), (1, 3, 5)), target=target,
        options=o)


@preset("zheng-shangyou/winner",
        {"players": 4, "decks": 1, "jokers": False, "min_straight": 5,
         "straight_needs_higher_rank": False, "bomb": "kicker", "hands": 8, "target": None},
        tuple(range(3, 9)))
def _winner(o: dict) -> Rulebook:
    decks = check_int("decks", o["decks"], 1, 2)
    allowed = (3, 4) if decks == 1 else tuple(range(4, 9))
    n = check_players(f"zheng-shangyou/winner with decks={decks}", o["players"], allowed)
    require(o["bomb"] in ("kicker", "quad"), "option bomb must be 'kicker' or 'quad'")
    hands = o["hands"]
    target = o["target"]
    if hands is not None:
        hands = check_int("hands", hands, 1)
    if target is not None:
        target = check_int("target", target, 1)
    require(hands is not None or target is not None,
             "zheng-shangyou/winner needs a number of hands or a target score")
    fam = WinnerFamily(jokers=check_bool("jokers", o["jokers"]),
                       min_straight=check_int("min_straight", o["min_straight"], 3, 13),
                       straight_needs_higher_rank=check_bool("straight_needs_higher_rank",
                                                        o["straight_needs_higher_rank"]),
                       bomb=o["bomb"])
    return Rulebook(
        name="zheng-shangyou/winner", players=n, decks=decks, jokers=bool(o["jokers"]),
        family=fam, first_leader="holder:3D", later_leader="place:0", next_dealer="place:-1",
        exchange="offer", scoring="cards-left", target=target, max_hands=hands, options=o)


OWEN_DEAL = {2: 26, 3: 18, 4: 13, 6: 9}


@preset("zheng-shangyou/owen", {"players": 4, "target": 6}, (2, 3, 4, 6))
def _owen(o: dict) -> Rulebook:
    n = check_players("zheng-shangyou/owen", o["players"], (2, 3, 4, 6))
    return Rulebook(
        name="zheng-shangyou/owen", players=n, family=OwenFamily(), deal_count=OWEN_DEAL[n],
        first_leader="holder:3S", later_leader="place:0", next_dealer="place:-1",
        exchange=None, scoring="places", place_points=(2, 1),
        target=check_int("target", o["target"], 1), options=o)


def _build(name: str, options: dict) -> Rulebook:
    merged = _check(name, options)
    return PRESETS[name]["build"](merged)


_BUILT: dict = {}


def build(name: str, options: dict) -> Rulebook:
    return memo_build(_BUILT, _build, name, options)
