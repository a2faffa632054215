"""Bots: players that see only their own view (``game.view(seat)``) and answer a move text.

>>> from shangyou.bots import make_bot
>>> bot = make_bot("greedy", seed=1)
"""

from .base import (BOTS, ENTRY_POINT_GROUP, LEVELS, Bot, BotProtocol, known_levels, make_bot,
                   parse_level, play_out)

__all__ = ["Bot", "BotProtocol", "ENTRY_POINT_GROUP", "make_bot", "BOTS", "LEVELS",
           "known_levels", "parse_level", "play_out"]
