"""Puzzle ratings: players and puzzles rated against each other, as lichess does.

A solve is a win of the player over the puzzle, a wrong answer a win of the puzzle
(openskill's Plackett-Luce, the model the accounts' ratings use). Both are shown on the
accounts' scale: ``1500 + 40 x (mu - 3 sigma)``, 1500 for a new player. A puzzle starts at
the miner's rating seed (``mu`` set so that its shown rating is that seed).
"""

from __future__ import annotations

MU, SIGMA = 25.0, 25.0 / 3.0      # openskill's defaults: a new player
START, SCALE = 1500, 40


def shown(mu: float, sigma: float) -> int:
    return round(START + SCALE * (mu - 3 * sigma))


def puzzle_start(seed_rating: int) -> tuple[float, float]:
    """(mu, sigma) of a puzzle never tried: shown as its seed rating."""
    return MU + (seed_rating - START) / SCALE, SIGMA


def valid(mu, sigma) -> bool:
    """A rating a browser may send for a guest: numbers in the model's range."""
    return (isinstance(mu, (int, float)) and isinstance(sigma, (int, float))
            and -100.0 <= mu <= 150.0 and 0.05 <= sigma <= SIGMA)


def rate(player: tuple[float, float], puzzle: tuple[float, float],
         solved: bool) -> tuple[tuple[float, float], tuple[float, float]]:
    """The player's and the puzzle's (mu, sigma) after one answer."""
    from openskill.models import PlackettLuce
    model = PlackettLuce()
    p, q = model.rating(*player, name="player"), model.rating(*puzzle, name="puzzle")
    (p2,), (q2,) = model.rate([[p], [q]], ranks=[1, 2] if solved else [2, 1])
    return (p2.mu, p2.sigma), (q2.mu, q2.sigma)
