"""The Zheng Fen preset (seed 004_226fd5f9fee0f853.txt; RULES.md; docs/rules/zheng-fen.md)."""

from __future__ import annotations

from ..climbing.game import Rulebook
from ..options import check_int, check_options, check_players, memo_build
from .family import ZhengFenFamily

PRESETS: dict = {}
ALIASES = {"zhengfen": "zheng-fen", "competing-for-points": "zheng-fen", "挣分": "zheng-fen"}


def _zheng_fen(o: dict) -> Rulebook:
    n = check_players("zheng-fen", o["players"], (3, 4, 5, 6))
    target = check_int("target", o["target"], 1)
    return Rulebook(
        name="zheng-fen", players=n, family=ZhengFenFamily(), decks=1, jokers=True,
        first_leader="holder:3H", later_leader="place:0", next_dealer="place:0",
        exchange=None, scoring="trick-points", target=target, finish_trick=True, options=o)


PRESETS["zheng-fen"] = {"defaults": {"players": 4, "target": 500}, "players": (3, 4, 5, 6),
                        "build": _zheng_fen}


def _build(name: str, options: dict) -> Rulebook:
    return PRESETS[name]["build"](check_options(PRESETS, name, options))


_BUILT: dict = {}


def build(name: str, options: dict) -> Rulebook:
    return memo_build(_BUILT, _build, name, options)
