"""The bot interface and the two baseline bots (random legal, greedy).

A bot gets a seat's view (a dict, exactly what a remote client would get) and returns the text
of one of ``view["legal_moves"]``. Bots never see the game state.
"""

from __future__ import annotations

import random
from functools import lru_cache

from ..cards import parse


class Bot:
    name = "bot"

    def __init__(self, seed: int | None = None):
        self.rng = random.Random(seed)

    def choose(self, view: dict) -> str:  # pragma: no cover - abstract
        raise NotImplementedError


class RandomBot(Bot):
    """Uniformly random among the legal moves."""

    name = "random"

    def choose(self, view: dict) -> str:
        return self.rng.choice(view["legal_moves"])


@lru_cache(maxsize=64)
def _rules(game: str, options: tuple):
    import shangyou
    return shangyou.rules(game, **dict(options))


def rules_for(view: dict):
    return _rules(view["game"], tuple(sorted((view.get("options") or {}).items())))


class GreedyBot(Bot):
    """Plays its lowest legal play and keeps wild cards (2s, jokers) for when it is nearly out.

    Leading: the lowest reading, preferring plays without precious cards and, among equals, the
    one shedding most cards. Following: the cheapest play that beats; a play that spends precious
    cards only when it leaves three cards or fewer. Exchanges: give/take the highest card, discard
    or offer the lowest.
    """

    name = "greedy"

    def choose(self, view: dict) -> str:
        moves = view["legal_moves"]
        if len(moves) == 1:
            return moves[0]
        fam = rules_for(view).family
        kind = moves[0].split()[0] if moves[0] != "pass" else "pass"
        if kind in ("give", "take"):
            return max(moves, key=lambda m: fam.card_strength(parse(m.split(None, 1)[1])[0]))
        if kind == "discard":
            return min(moves, key=lambda m: (fam.precious(parse(m.split(None, 1)[1])[0]),
                                             fam.card_strength(parse(m.split(None, 1)[1])[0])))
        if kind == "offer":
            return min(moves, key=lambda m: sum(fam.card_strength(c)
                                                for c in parse(m.split(None, 1)[1])))
        plays = [m for m in moves if m != "pass"]
        hand_size = len(view["hand"])
        best = None
        for m in plays:
            text, _, label = m.partition(" as ")
            cards = parse(text)
            readings = fam.combos(cards)
            combo = next((c for c in readings if c.label == label), readings[0]) if label \
                else readings[0]
            spent = sum(1 for c in cards if fam.precious(c))
            cost = (spent, combo.tier, _top(combo), -len(cards), m)
            if best is None or cost < best[0]:
                best = (cost, m)
        if best is None:
            return "pass"
        (spent, *_), choice = best
        if "pass" in moves and spent and hand_size - len(parse(choice.partition(" as ")[0])) > 3:
            return "pass"
        return choice


def _top(combo) -> tuple:
    key = combo.key
    return tuple(k for k in key if isinstance(k, int))


BOTS = {"random": RandomBot, "greedy": GreedyBot}


def make_bot(name: str, seed: int | None = None) -> Bot:
    try:
        return BOTS[name](seed)
    except KeyError:
        raise ValueError(f"unknown bot {name!r}; known: {', '.join(BOTS)}") from None


def play_out(game, bots: dict | list) -> None:
    """Play ``game`` to the end with one bot per seat (list or {seat: bot})."""
    while not game.over:
        seat = game.to_act
        game.apply(bots[seat].choose(game.view(seat)))
