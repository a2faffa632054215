"""The hint and the review speak with one voice (docs/review.md, *The hint and the review*):
the hint names its level, a move that followed it is marked so in the review and never as a
mistake or a blunder, and its reasons are written to the player."""

from __future__ import annotations

import re

import pytest

import shangyou
from shangyou.bots import climbing_search, make_bot
from shangyou.bots.hint import hint
from shangyou.bots.reasons import TEXTS, Reason
from shangyou.review import review_log

pytestmark = pytest.mark.timeout(300)


def follow_hints(game: str, players: int, seed: int, level: str) -> dict:
    """One hand where seat 0 plays every move its hint gives; the log with the hints record
    (as the server stores it: the moves that followed the hint, by level)."""
    g = shangyou.new_game(game, players=players, seed=seed)
    bots = [make_bot("heuristic", seed * 10 + s) for s in range(players)]
    hints = {}
    while not g.over:
        s = g.to_act
        view = g.view(s)
        if s == 0:
            h = hint(view, level, seed=len(g.moves))
            assert h["level"] in ("search", "heuristic") and h["by"] == h["level"]
            assert (h["level"] == level) == (h["fallback"] is None), h
            hints[str(len(g.moves))] = h["level"]
            g.apply(h["move"], seat=s)
        else:
            g.apply(bots[s].choose(view), seat=s)
    return dict(g.log, hints=hints)


@pytest.mark.parametrize("game,players,seed,level", [
    ("sheng-ji", 4, 5, "search"),
    ("zheng-shangyou/pagat", 4, 7, "search"),
    ("zheng-fen", 4, 3, "heuristic"),
    ("sheng-ji", 4, 2, "heuristic"),
])
def test_a_move_that_followed_the_hint_is_marked_and_never_a_mistake(game, players, seed,
                                                                     level):
    log = follow_hints(game, players, seed, level)
    r = review_log(log, 0, seconds=None, max_worlds=4, judge_worlds=16, seed=1)
    assert r.decisions
    for d in r.decisions:
        assert d.hint == log["hints"][str(d.index)], d      # every one of them was followed
        assert d.mark in ("good", "inaccuracy"), d
        if d.hint == "search":      # the search's own move in that state: the best, by design
            assert d.mark == "good" and d.best == d.played and d.loss == 0
    assert r.as_dict()["hinted"] == len(r.decisions)
    # without the record the same moves are judged as any move, and not marked followed
    plain = review_log({k: v for k, v in log.items() if k != "hints"}, 0, seconds=None,
                       max_worlds=4, judge_worlds=16, seed=1)
    assert not any(d.hint for d in plain.decisions)
    assert [d.index for d in plain.decisions] == [d.index for d in r.decisions]


def test_the_review_without_a_record_finds_the_search_move_best():
    # the review's first step is the hint's search: where the search's answer is the move
    # made, the decision is good with no judging step (the search's own worlds counted)
    g = shangyou.new_game("zheng-shangyou/pagat", players=4, seed=11)
    bots = [make_bot("search:64", s) for s in range(4)]
    while not g.over:
        g.apply(bots[g.to_act].choose(g.view(g.to_act)))
    r = review_log(g.log, 0, seconds=None, max_worlds=8, judge_worlds=16, seed=2)
    goods = [d for d in r.decisions if d.mark == "good" and d.best == d.played]
    assert goods and all(d.hint is None for d in r.decisions)


def test_the_hint_falls_back_to_the_heuristic_out_of_time_and_says_so(monkeypatch):
    g = shangyou.new_game("zheng-shangyou/pagat", players=4, seed=2)
    view = g.view(g.to_act)
    assert len(view["legal_moves"]) > 1
    monkeypatch.setattr(climbing_search, "DEFAULT_CAP_SECONDS", 0.0)   # no time at all
    h = hint(view, "search", seed=1)
    assert (h["level"], h["fallback"], h["by"]) == ("heuristic", "time", "heuristic")
    assert h["move"] == make_bot("heuristic", 1).advise(view).move
    with pytest.raises(ValueError, match="no hint level"):
        hint(view, "random")


def test_reasons_speak_to_the_player_with_plurals():
    for code, (en, zh) in TEXTS.items():
        # to the player: "your plan", not "its plan"; no third-person verb first
        assert not re.search(r"\bits\b|\bit (does|plans|holds|needs)\b", en), code
        assert not re.match(r"^(leads|plays|passes|beats|takes|gives|goes) ", en), code
    assert Reason("stop_opponent", {"cards": "2S", "count": 1}).text("en") == \
        "beat with 2S to stop an opponent with 1 card left"
    assert Reason("stop_opponent", {"cards": "2S", "count": 2}).text("en") == \
        "beat with 2S to stop an opponent with 2 cards left"
    one = Reason("avoid_follow", {"cards": "3H", "count": 1})
    assert "1 card " in one.text("en") and "1 cards" not in one.text("en")
    assert "1张" in one.text("zh")
    assert "your plan" in Reason("shed_lowest", {"cards": "3H"}).text("en")
    # and the reasons the heuristic gives in play say no "1 cards" either
    texts = []
    for seed in range(6):
        g = shangyou.new_game("zheng-shangyou/pagat", players=4, seed=seed)
        bot = make_bot("heuristic", seed)
        while not g.over:
            a = bot.advise(g.view(g.to_act))
            texts.append(a.reason.text("en"))
            g.apply(a.move)
    assert texts and not [t for t in texts if re.search(r"\b1 (cards|points)\b", t)]
    assert not [t for t in texts if re.search(r"\bits\b", t)]
