"""The compiled climbing core keeps the state of a counting (the steps of a large choice) per
thread: games listed and played in several threads at once list what they list alone."""

from __future__ import annotations

import random

import pytest
from helpers import in_threads

import shangyou
from shangyou.bots.base import make_bot
from shangyou.games.climbing import core

pytestmark = pytest.mark.skipif(not core.AVAILABLE, reason="the compiled core is not built")

GAMES = [("zheng-shangyou/pagat", 3, {"decks": 2}), ("zheng-shangyou/owen", 2, {}),
         ("zheng-shangyou/pagat", 5, {})]


def trace(seed: int, hands: int = 2) -> list:
    """What one seeded run lists and plays: each decision's first moves and the move made
    (greedy bots, whole moves where the game offers a choice in steps)."""
    name, players, options = GAMES[seed % len(GAMES)]
    out = []
    for hand in range(hands):
        g = shangyou.new_match(name, players=players, seed=seed * 100 + hand, **options)
        bot = make_bot("greedy", seed=seed)
        rng = random.Random(seed)
        for _ in range(400):
            if g.over:
                break
            moves = g.legal_moves()
            out.append([str(m) for m in list(moves)[:8]] + [len(moves)])
            whole = g.all_moves()
            out.append(len(whole))
            move = bot.choose(g.view(g.to_act)) if rng.random() < 0.5 else \
                whole[rng.randrange(len(whole))]
            out.append(str(move))
            g.apply(move)
    return out


def test_listings_in_several_threads_match_those_made_alone():
    seeds = list(range(6))
    alone = {s: trace(s) for s in seeds}
    got = in_threads(trace, seeds)
    for s in seeds:
        assert got[s] == alone[s], f"seed {s}: a listing differs when made beside others"


def sheng_ji_trace(seed: int) -> list:
    """The first 600 decisions of a seeded random Sheng ji (or Zhao Pengyou) match: each
    decision's listing and the move."""
    name, players = (("sheng-ji", 4), ("sheng-ji/zhao-pengyou", 6))[seed % 2]
    g = shangyou.new_match(name, players=players, seed=seed)
    rng = random.Random(seed)
    out = []
    for _ in range(600):
        if g.over:
            break
        moves = [str(m) for m in g.legal_moves()]
        out.append(moves)
        g.apply(moves[rng.randrange(len(moves))])
    return out


def test_sheng_ji_games_in_several_threads_play_as_alone():
    """The Sheng ji core's listing and apply (which calls the Python scoring at a hand's end)
    keep no state across a call back into Python: games played in threads at once list and
    play what they do alone."""
    seeds = list(range(6))
    alone = {s: sheng_ji_trace(s) for s in seeds}
    got = in_threads(sheng_ji_trace, seeds)
    for s in seeds:
        assert got[s] == alone[s], f"seed {s}: a game differs when played beside others"
