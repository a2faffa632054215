"""The points of one climbing hand (``score_hand``): every scoring rule a preset may name
(``Rulebook.scoring``). See docs/rules/zheng-shangyou.md and docs/rules/zheng-fen.md."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from .family import PointFamily

if TYPE_CHECKING:
    from .game import Rulebook


def score_hand(rules: Rulebook, order: list[int], counts_at_first_out: list[int] | None,
               dealt: list[int] | None, won: list[list[int]] | None = None,
               hands: list[list[int]] | None = None) -> tuple[list[int], list[int] | None]:
    """Points of one hand: (per seat, per team or None). See docs/rules/zheng-shangyou.md and
    docs/rules/zheng-fen.md."""
    n = rules.players
    pts = [0] * n
    if rules.scoring == "places":
        for place, seat in enumerate(order):
            if place < len(rules.place_points):
                pts[seat] = rules.place_points[place]
    elif rules.scoring == "teams6":
        assert rules.teams is not None
        team_of = {s: i for i, t in enumerate(rules.teams) for s in t}
        t1, t2 = team_of[order[0]], team_of[order[1]]
        team_pts = [0, 0]
        if t1 == t2:
            pos3 = [p for p in range(2, 6) if team_of[order[p]] == t1][0]
            if pos3 == 2:
                team_pts[t1] = 10
            elif pos3 in (3, 4):
                team_pts[t1] = 5
            else:
                team_pts[t1] = 5
                team_pts[1 - t1] = 2
        else:
            team_pts[t1] += 3
            team_pts[t2] += 2
            team_pts[1 - team_of[order[-1]]] += 2
        return pts, team_pts  # only team scores count in this game
    elif rules.scoring == "cards-left":
        counts = counts_at_first_out
        assert counts is not None and dealt is not None
        winner = order[0]
        total = 0
        for s in range(n):
            if s == winner:
                continue
            left = counts[s]
            if left == dealt[s]:
                mult = 3
            elif n == 3:
                mult = 3 if left >= 17 else 2 if left >= 12 else 1
            else:
                mult = 2 if left >= 10 else 1
            pts[s] = -left * mult
            total += left * mult
        pts[winner] = total
    elif rules.scoring == "trick-points":
        # the last player's tricks and the cards left in their hand go to the first player out
        points = cast(PointFamily, rules.family).points   # a point game's family
        assert won is not None and hands is not None
        first, last = order[0], order[-1]
        for s in range(n):
            pts[s] = points(won[s])
        pts[first] += pts[last] + points(hands[last])
        if last != first:
            pts[last] = 0
    else:
        raise ValueError(f"unknown scoring {rules.scoring!r}")
    per_team = [sum(pts[s] for s in t) for t in rules.teams] if rules.teams else None
    return pts, per_team
