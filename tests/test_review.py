"""The search bot's review of a seat's decisions (shangyou.review, `shangyou review`)."""

import json

import pytest

import shangyou
from shangyou.bots import make_bot, play_out
from shangyou.review import MARKS, THRESHOLDS, mark_of, review_decision, review_log


def hand(game, players, level, seed):
    """One hand where seat 0 plays ``level`` and the others the heuristic bot."""
    g = shangyou.new_game(game, players=players, seed=seed)
    play_out(g, [make_bot(level if s == 0 else "heuristic", seed=seed * 10 + s)
                 for s in range(players)])
    return g.log


def good_share(game, players, level, seeds, worlds, judge_worlds=64):
    good = total = 0
    for seed in seeds:
        r = review_log(hand(game, players, level, seed), 0, seconds=None, max_worlds=worlds,
                       seed=seed, judge_worlds=judge_worlds)
        good += r.counts()["good"]
        total += len(r.decisions)
    return good / total


def test_marks_follow_the_thresholds():
    inacc, mistake, blunder = THRESHOLDS["sheng-ji"]
    assert mark_of(0.0, "sheng-ji") == "good"
    assert mark_of(inacc, "sheng-ji") == "inaccuracy"
    assert mark_of(mistake, "sheng-ji") == "mistake"
    assert mark_of(blunder + 1, "sheng-ji") == "blunder"
    assert list(MARKS) == ["good", "inaccuracy", "mistake", "blunder"]


def test_a_review_sees_only_the_seat_and_rates_the_move_made():
    log = hand("zheng-shangyou/pagat", 4, "random", 3)
    r = review_log(log, 1, seconds=None, max_worlds=8, seed=1, judge_worlds=16)
    assert r.seat == 1 and r.decisions
    g = shangyou.new_game("zheng-shangyou/pagat", players=4, seed=3)
    by_index = {d.index: d for d in r.decisions}
    for i, (seat, text) in enumerate(log["moves"]):
        if i in by_index:
            d = by_index[i]
            assert seat == 1 and d.seat == 1
            view = g.view(1)
            assert d.played in view["legal_moves"] and d.best in view["legal_moves"]
            assert d.loss >= 0 and d.best_value >= d.played_value - 1e-9
            assert d.mark == mark_of(d.loss, "climbing")
            if d.loss > 0:
                assert d.reason is not None and d.reason.text("zh")
        g.apply(text)
    assert r.skipped + len(r.decisions) == sum(1 for s, _ in log["moves"] if s == 1)
    assert json.loads(json.dumps(r.as_dict()))["thresholds"]["blunder"] == 0.5
    with pytest.raises(ValueError, match="seat 9 is not at this table"):
        review_log(log, 9)


def test_review_is_reproducible_with_a_world_budget():
    log = hand("sheng-ji", 4, "greedy", 5)
    a = review_log(log, 0, seconds=None, max_worlds=8, seed=2, judge_worlds=16)
    b = review_log(log, 0, seconds=None, max_worlds=8, seed=2, judge_worlds=16)
    assert a == b and a.family == "sheng-ji" and a.unit == "levels"


def test_a_move_not_legal_is_refused():
    g = shangyou.new_game("zheng-shangyou/pagat", players=4, seed=1)
    with pytest.raises(ValueError, match="not a legal move"):
        review_decision(g.view(g.to_act), "3H 3H 3H 3H 3H")


@pytest.mark.parametrize("game,players,seeds,worlds", [
    ("zheng-shangyou/pagat", 5, range(1, 5), 8),
])
def test_weaker_levels_are_rated_worse(game, players, seeds, worlds):
    # the share of decisions rated good, seat 0 of four seeded hands per level: random play
    # is rated below the greedy and heuristic bots, and the search bot above them both.
    # Between greedy and the heuristic the share good does not separate reliably (docs/review.md:
    # on 200 pagat hands the two are level), so this test does not ask it to; the loss per
    # hand does (the next test).
    shares = {lv: good_share(game, players, lv, seeds, worlds)
              for lv in ("random", "greedy", "heuristic", "search:200")}
    assert shares["random"] < shares["greedy"], shares
    assert shares["random"] < shares["heuristic"], shares
    assert shares["search:200"] > max(shares["greedy"], shares["heuristic"]), shares
    assert shares["search:200"] >= 0.9, shares


def loss_per_hand(game, players, level, seeds, worlds, judge_worlds):
    total = 0.0
    for seed in seeds:
        r = review_log(hand(game, players, level, seed), 0, seconds=None, max_worlds=worlds,
                       seed=seed, judge_worlds=judge_worlds)
        total += sum(d.loss for d in r.decisions)
    return total / len(seeds)


def test_the_heuristic_loses_less_than_greedy_per_hand():
    # the share of good decisions does not order greedy and the heuristic in pagat (greedy
    # makes more decisions a hand, many of them easy), but the loss a hand does: on 200
    # hands 0.59 points (greedy) against 0.38 (docs/review.md); over 60
    # hands a sample of the 200 orders them so about 99 times in 100
    seeds = range(1, 61)
    loss = {lv: loss_per_hand("zheng-shangyou/pagat", 5, lv, seeds, 16, 256)
            for lv in ("greedy", "heuristic")}
    assert loss["heuristic"] < loss["greedy"], loss


def test_the_move_made_is_judged_on_fresh_worlds():
    # the first step's worlds only pick the best candidate; a loss rests on the judge's worlds
    # (the former first step, the best mean of the candidates, plays exactly max_worlds)
    r = review_log(hand("zheng-shangyou/pagat", 4, "random", 2), 0, seconds=None,
                   max_worlds=8, judge_worlds=24, seed=3, best_by="candidates")
    assert any(d.best != d.played for d in r.decisions)
    for d in r.decisions:
        if d.best == d.played:
            assert d.loss == 0 and d.mark == "good" and d.worlds in (8, 24)
        else:
            assert d.worlds == 24 and d.best_value > d.played_value


def test_the_review_command(tmp_path):
    from typer.testing import CliRunner

    from shangyou.cli.main import app
    path = tmp_path / "game.json"
    path.write_text(json.dumps(hand("sheng-ji", 4, "random", 3)))
    runner = CliRunner()
    res = runner.invoke(app, ["review", str(path), "--seat", "0", "--worlds", "8",
                              "--judge-worlds", "16", "--seconds", "5"])
    assert res.exit_code == 0, res.output
    assert "Review of seat 0 in sheng-ji" in res.output
    assert "Marks: inaccuracy ?! from 0.1, mistake ? from 0.25, blunder ?? from 0.5" in res.output
    assert "decisions reviewed" in res.output
    res = runner.invoke(app, ["review", str(path), "--seat", "0", "--worlds", "8",
                              "--judge-worlds", "16", "--json"])
    assert json.loads(res.output)["seat"] == 0
    res = runner.invoke(app, ["review", str(path), "--seat", "4"])
    assert res.exit_code == 2
