"""The Sheng ji judge: rule questions users and external tests ask without playing a game.

>>> import shangyou
>>> r = shangyou.rules("sheng-ji", decks=2)
>>> r.is_tractor("8H 8H 6H 6H", trump="7C")
True
>>> r.trick_winner(["KH QH QH 10H 10H", "8C 8C 5C 5C JC"], trump="7C")
1
>>> r.points("5H 10S KD 3C")
25
"""

from __future__ import annotations

from ...cards import parse
from .order import Trump, decompose, red_five_code
from .scoring import level_change, points
from .tricks import is_tractor, trick_winner


class ShengJiJudge:
    def __init__(self, rules):
        self.rulebook = rules
        self.name = rules.name
        self.family = rules.family

    def trump(self, trump: str | Trump) -> Trump:
        """``"7C"``: level 7, clubs trump; ``"7"``: level 7, no trump (with the preset's
        ``red_five`` option applied)."""
        t = trump if isinstance(trump, Trump) else Trump.parse(trump)
        r = self.rulebook
        return Trump(t.level, t.suit, red_five_code(r.red_five, r.red_five_gap))

    def is_tractor(self, cards, trump: str) -> bool:
        return is_tractor(self.trump(trump), tuple(parse(cards)))

    def units(self, cards, trump: str) -> list:
        """The canonical units (singles, tuples, tractors) of cards of one suit."""
        return decompose(self.trump(trump), tuple(parse(cards)))

    def trick_winner(self, plays, trump: str) -> int:
        """Index of the winning play; the first play is the lead (already judged legal)."""
        return trick_winner(self.trump(trump), [tuple(parse(p)) for p in plays])

    def points(self, cards) -> int:
        return points(parse(cards))

    def level_change(self, opponents_points: int, decks: int | None = None) -> dict:
        """Who goes up how many levels, or whether the sides swap (see docs/rules/sheng-ji.md)."""
        return level_change(opponents_points, decks if decks is not None else self.rulebook.decks)

    def __repr__(self) -> str:
        return f"ShengJiJudge({self.name!r})"


def judge(rules) -> ShengJiJudge:
    return ShengJiJudge(rules)
