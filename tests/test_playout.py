"""The generic random-playout test: every preset x player count, seeded random games.

At every step: legal moves exist, are unique and round-trip through their text. On "deep"
games also: every play uses held cards, a card not held is refused with the state unchanged,
views do not depend on other seats' hidden cards, cards are conserved. Every game ends, its
result follows the preset's scoring, and replaying its log reproduces it exactly.

Default: a modest count per configuration; ``--playouts N`` (or SHANGYOU_PLAYOUTS=N) runs N
single hands per configuration instead.
"""

import json

import pytest

import shangyou
from helpers import CONFIGS, config_id, random_playout

DEFAULT_HANDS = 60      # single hands per configuration (deep checks on the first 8)
DEFAULT_MATCHES = 3     # whole matches per configuration


def check_hand_result(g, points) -> None:
    name, n = g.rules.name, g.n
    order = g.history[-1]["order"]
    assert sorted(order) == list(range(n)), "every seat gets a place"
    scoring = g.rules.scoring
    if scoring == "places":
        assert points[order[0]] == 2 and points[order[1]] == 1
        assert sum(points) == 3
    elif scoring == "teams6":
        tp = g.history[-1]["team_points"]
        assert sorted(tp) in ([0, 10], [0, 5], [2, 5], [3, 4], [2, 5], [3, 2], [0, 5]) or \
            sum(tp) in (5, 7, 10), tp
        assert sum(tp) in (5, 7, 10)
    elif scoring == "cards-left":
        assert sum(points) == 0, "the winner gains what the others lose"
        assert points[order[0]] >= 0
    elif scoring == "trick-points":
        assert sum(points) == 100, "every hand scores the pack's 100 points"
        assert points[order[-1]] == 0, "the last player's points go to the first"
        assert not any(g.hands[s] for s in range(n) if s != order[-1])
    else:  # pragma: no cover
        raise AssertionError(scoring)


@pytest.mark.parametrize("cfg", CONFIGS, ids=config_id)
def test_random_hands(cfg, playouts):
    name, n, opts = cfg
    count = playouts or DEFAULT_HANDS
    for i in range(count):
        g = random_playout(name, n, opts, seed=1000 + i, deep=i < 8)
        assert g.over and g.to_act is None and g.legal_moves() == []
        check_hand_result(g, g.result["points"])
        if g.rules.scoring == "trick-points":      # a single hand of points: most points win
            pts = g.result["points"]
            assert g.result["winners"] == [s for s in range(n) if pts[s] == max(pts)]
        else:
            assert g.result["winner"] == g.result["order"][0]
        log = json.loads(json.dumps(g.log))
        assert shangyou.replay(log) == g


@pytest.mark.parametrize("cfg", CONFIGS, ids=config_id)
def test_random_matches(cfg, playouts):
    name, n, opts = cfg
    count = max(DEFAULT_MATCHES, playouts // 20)
    for i in range(count):
        g = random_playout(name, n, opts, seed=77 + i, deep=i == 0, match=True, max_steps=400000)
        res = g.result
        for h in g.history:
            check_hand_result_summary(g, h)
        totals = g.team_scores() if g.rules.teams else g.scores
        best = max(totals)
        assert totals.count(best) == 1, "a tie plays another hand"
        if g.rules.target is not None and g.rules.max_hands is None:
            assert best >= g.rules.target
            previous = g.history[-2]["team_scores" if g.rules.teams else "scores"] \
                if len(g.history) > 1 else [0] * len(totals)
            assert max(previous) < g.rules.target or previous.count(max(previous)) > 1
        if g.rules.teams:
            assert res["winning_team"] == totals.index(best)
        else:
            assert res["winner"] == totals.index(best)
        assert shangyou.replay(json.loads(json.dumps(g.log))) == g


def check_hand_result_summary(g, h) -> None:
    assert sorted(h["order"]) == list(range(g.n))
    if g.rules.scoring == "places":
        assert sum(h["points"]) == 3
    elif g.rules.scoring == "cards-left":
        assert sum(h["points"]) == 0
    elif g.rules.scoring == "trick-points":
        assert sum(h["points"]) == 100
    else:
        assert sum(h["team_points"]) in (5, 7, 10)
