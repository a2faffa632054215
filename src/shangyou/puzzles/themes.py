"""A puzzle's theme, read from its position and its solution by fixed rules.

The first rule that holds names the theme (docs/puzzles.md lists them):

Climbing games (Zheng Shangyou presets, Zheng Fen):
0. ``going_out``: the solution plays every card the seat holds (the miner skips positions
   where a play goes out: they are no puzzle).
1. ``bombs``: the solution is a bomb (a bomb, a quad in Owen, 5-10-K in Zheng Fen).
2. ``points`` (Zheng Fen): the trick holds card points, or the solution plays some.
3. ``end_of_hand``: another seat still in the hand holds 2 cards or fewer, or the seat
   itself holds 3 or fewer.
4. ``holding_back``: the solution is to pass.
5. ``leading``: the seat leads (the trick is empty).
6. ``following``: the rest.

Sheng ji and Zhao Pengyou:
1. ``point_feeding``: a partner wins the trick so far and the solution plays card points.
2. ``winning_points``: the trick holds points and the solution wins it (so far).
3. ``trump_management``: the solution plays trumps (a ruff, a trump lead or a trump follow).
4. ``saving_points``: the solution plays no points where another legal play would.
5. ``leading``: the seat leads.
6. ``following``: the rest.
"""

from __future__ import annotations

from ..cards import parse

THEMES: dict[str, tuple[str, ...]] = {
    "climbing": ("bombs", "end_of_hand", "holding_back", "leading", "following"),
    "zheng-fen": ("bombs", "points", "end_of_hand", "holding_back", "leading", "following"),
    "sheng-ji": ("point_feeding", "winning_points", "trump_management", "saving_points",
                 "leading", "following"),
}

BOMB_KINDS = ("bomb", "quad", "special")


def _card_points(text: str) -> int:
    pts = 0
    for tok in text.partition(" as ")[0].split():
        r = tok[:-1]
        pts += 5 if r == "5" else 10 if r in ("10", "K") else 0
    return pts


def climbing_theme(view: dict, solution: str, kind: str | None, family: str) -> str:
    """The theme of a climbing position (``kind``: the solution's kind once played)."""
    hand = view["hand"]
    if solution != "pass" and len(solution.partition(" as ")[0].split()) == len(hand):
        return "going_out"
    if kind in BOMB_KINDS:
        return "bombs"
    if family == "zheng-fen" and (view.get("table_points") or (
            solution != "pass" and _card_points(solution))):
        return "points"
    seat = view["seat"]
    finished = set(view.get("finished") or ())
    others = [c for s, c in enumerate(view["counts"]) if s != seat and s not in finished
              and c > 0]
    if (others and min(others) <= 2) or len(hand) <= 3:
        return "end_of_hand"
    if solution == "pass":
        return "holding_back"
    if not view.get("trick"):
        return "leading"
    return "following"


def sheng_ji_theme(view: dict, solution: str) -> str:
    from ..bots.sheng_ji import partners, trump_of
    from ..games.sheng_ji.tricks import trick_winner
    trump = trump_of(view)
    trick = view.get("trick") or []
    mine = list(parse(solution))
    pts = _card_points(solution)
    if trick:
        plays = [list(parse(t)) for _, t in trick]
        ahead = trick[trick_winner(trump, plays)][0]
        on_table = sum(_card_points(t) for _, t in trick)
        if ahead in partners(view) and pts:
            return "point_feeding"
        if on_table + pts and trick_winner(trump, plays + [mine]) == len(plays):
            return "winning_points"
    if any(trump.is_trump(c) for c in mine):
        return "trump_management"
    if trick and not pts and any(_card_points(m) for m in view["legal_moves"]):
        return "saving_points"
    return "leading" if not trick else "following"


def theme_of(family: str, view: dict, solution: str, kind: str | None = None) -> str:
    if family == "sheng-ji":
        return sheng_ji_theme(view, solution)
    return climbing_theme(view, solution, kind, family)
