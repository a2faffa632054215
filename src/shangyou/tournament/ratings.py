"""openskill (Plackett-Luce) ratings from every hand's ranking.

Each line-up entry is one player (``greedy``, or ``random#1``, ``random#2`` ... when a level
fills several seats); hands are rated in deal order, then rotation order, so the ratings do not
depend on which worker finished first. A hand's ranking comes from the runner's ``teams`` and
``ranks`` (one-seat teams in individual games).
"""

from __future__ import annotations


def rate(labels: list[str], hands,
         start: dict[str, tuple[float, float]] | None = None) -> dict[str, dict]:
    """``{label: {"mu", "sigma", "ordinal"}}`` after rating ``hands`` in the order given.

    ``hands`` yields ``(seats, teams, ranks)``: the line-up entry in each seat, the seats of each
    team and each team's rank (1 best, equal ranks tie). ``start``: ``(mu, sigma)`` of the
    labels rated before (the server's accounts); the others start at the model's default.
    """
    from openskill.models import PlackettLuce
    model = PlackettLuce()
    start = start or {}
    ratings = {label: model.rating(*start[label], name=label) if label in start
               else model.rating(name=label) for label in labels}
    for seats, teams, ranks in hands:
        if len(teams) < 2:
            continue
        groups = [[ratings[labels[seats[s]]] for s in team] for team in teams]
        new = model.rate(groups, ranks=list(ranks))
        for team, rated in zip(teams, new):
            for s, r in zip(team, rated):
                ratings[labels[seats[s]]] = r
    return {label: {"mu": r.mu, "sigma": r.sigma, "ordinal": r.ordinal()}
            for label, r in ratings.items()}
