"""Bots: players that see only their own view (``game.view(seat)``) and answer a move text.

>>> from shangyou.bots import make_bot
>>> bot = make_bot("greedy", seed=1)
"""

from .base import Bot, make_bot, BOTS, LEVELS, known_levels, parse_level, play_out

__all__ = ["Bot", "make_bot", "BOTS", "LEVELS", "known_levels", "parse_level", "play_out"]
