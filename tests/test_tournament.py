"""The tournament runner: duplicate rotations, statistics, resuming, workers, Ray, the command."""

from __future__ import annotations

import csv
import json
import math
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

import shangyou
from shangyou.bots import base as bots_base
from shangyou.tournament import (ConfigMismatch, make_config, play_deal, pool_results,
                                 run_tournament,
                                 seating)
from shangyou.tournament import report, runner
from shangyou.tournament.stats import mean_ci, overlap, t_quantile, wilson

SCRIPT = str(Path(sys.executable).parent / "shangyou")


def _strip_timing(results: dict) -> dict:
    out = dict(results)
    out.pop("timing")
    return out


def _hand_digests(game) -> list[str]:
    return [runner._hand_digest(game.view(s)["hand"]) for s in range(game.n)]


# ----------------------------------------------------------------------------- rotations
@pytest.mark.parametrize("players", [3, 4, 5])
def test_seating_puts_every_entry_in_every_seat_once(players):
    tables = [seating(players, r) for r in range(players)]
    for seat in range(players):
        assert sorted(t[seat] for t in tables) == list(range(players))
    for t in tables:
        assert sorted(t) == list(range(players))


def test_duplicate_deal_climbing():
    cfg = make_config("owen", "greedy,random,random,random", seed=11)
    seen_deals = set()
    for d in range(3):
        rec = play_deal(cfg, d)
        assert rec["seed"] == runner.deal_seed(11, d)
        hands = rec["hands"]
        assert [h["rotation"] for h in hands] == [0, 1, 2, 3]
        # every line-up entry in every seat exactly once
        for seat in range(4):
            assert sorted(h["seats"][seat] for h in hands) == [0, 1, 2, 3]
        # the same cards in every rotation, and they are the cards the deal's seed deals
        game = shangyou.new_game("zheng-shangyou/owen", players=4, seed=rec["seed"])
        dealt = _hand_digests(game)
        assert all(h["dealt"] == dealt for h in hands)
        seen_deals.add(tuple(dealt))
        # the greedy entry (0) sits in a different seat in each rotation
        assert sorted(h["seats"].index(0) for h in hands) == [0, 1, 2, 3]
    assert len(seen_deals) == 3


@pytest.mark.parametrize("players,line_up", [(4, "greedy,random,greedy,random"),
                                             (6, "greedy,random,greedy,random,greedy,random")])
def test_duplicate_deal_teams_keep_partners(players, line_up):
    cfg = make_config("pits-teams", line_up, seed=5, players=players)
    rec = play_deal(cfg, 0)
    for h in rec["hands"]:
        for team in h["teams"]:
            # partners are always the same level and share the score and the result
            assert len({cfg.bots[h["seats"][s]] for s in team}) == 1
            assert len({h["score"][s] for s in team}) == 1
            assert len({h["win"][s] for s in team}) == 1
        assert h["dealt"] == rec["hands"][0]["dealt"]
    # each level holds the even seats (0, 2, ...) in half the rotations, the odd ones in the rest
    even = Counter(cfg.bots[h["seats"][0]] for h in rec["hands"])
    assert even == {"greedy": players // 2, "random": players // 2}


def test_distinct_rotations_play_each_seating_of_the_levels_once(tmp_path):
    # a team line-up repeats itself after two turns: rotations 0 and 1 only
    cfg = make_config("sheng-ji", "greedy,random,greedy,random", seed=2, rotations="distinct")
    assert cfg.rotation_list() == [0, 1]
    rec = play_deal(cfg, 0)
    assert [h["rotation"] for h in rec["hands"]] == [0, 1]
    # each level still plays both sides of the deal, on the same cards
    assert {cfg.bots[rec["hands"][r]["seats"][0]] for r in (0, 1)} == {"greedy", "random"}
    # one against the rest: every turn seats the levels differently, so all are played
    solo = make_config("owen", "greedy,random,random,random", seed=1, rotations="distinct")
    assert solo.rotation_list() == [0, 1, 2, 3]
    assert make_config("pits-teams", "greedy,random," * 2 + "greedy,random", seed=1,
                       players=6, rotations="distinct").rotation_list() == [0, 1]
    # the folder remembers it: an "all" run may not carry it on, nor be pooled with it
    results = run_tournament(cfg, 2, tmp_path / "d", workers=1)
    assert results["hands"] == 4 and results["config"]["rotations"] == "distinct"
    with pytest.raises(ConfigMismatch, match="rotations: 'distinct' there, None now"):
        run_tournament(make_config("sheng-ji", "greedy,random,greedy,random", seed=2), 1,
                       tmp_path / "d", workers=1)
    run_tournament(make_config("sheng-ji", "greedy,random,greedy,random", seed=3), 1,
                   tmp_path / "a", workers=1)
    with pytest.raises(ValueError, match="rotations differ"):
        pool_results([tmp_path / "d", tmp_path / "a"])
    with pytest.raises(ValueError, match="rotations must be"):
        make_config("owen", "greedy,random,random,random", seed=1, rotations="some")


def test_duplicate_deal_sheng_ji_same_cards():
    cfg = make_config("sheng-ji", "greedy,random,greedy,random", seed=2)
    firsts = []
    for d in range(3):
        hands = play_deal(cfg, d)["hands"]
        compared = 0
        for a in hands:
            for b in hands:
                # the declarer's hand also holds the kitty; every other seat's must match
                for s in range(4):
                    if s not in (a["declarer"], b["declarer"]):
                        assert a["dealt"][s] == b["dealt"][s]
                        compared += 1
        assert compared >= 4 * 4 * 2
        firsts.append(hands[0]["dealt"])
    assert firsts[0][0] != firsts[1][0] != firsts[2][0]


@pytest.mark.parametrize("name", shangyou.preset_names())
def test_outcomes_are_consistent_in_every_preset(name):
    n = shangyou.preset_info(name)["defaults"]["players"]
    cfg = make_config(name, ["greedy"] + ["random"] * (n - 1), seed=3)
    for h in play_deal(cfg, 0)["hands"]:
        assert sorted(s for t in h["teams"] for s in t) == list(range(n))
        assert len(h["ranks"]) == len(h["teams"])
        winners = [t for t in h["teams"] if h["win"][t[0]]]
        if name.startswith("sheng-ji") or "teams" in name:
            assert len(winners) == 1        # exactly one side wins the hand
            assert len(h["teams"]) == 2
        elif name == "zheng-fen":
            assert winners                   # the most points (ties: all of them)
            best = max(h["score"])
            assert all(h["score"][t[0]] == best for t in winners)
        else:
            assert len(winners) == 1 and h["place"][winners[0][0]] == 1
        for t in h["teams"]:
            assert len({h["score"][s] for s in t}) == 1 and len({h["win"][s] for s in t}) == 1
        if name.startswith("sheng-ji"):
            assert h["place"] == [None] * n
            sides = {h["score"][t[0]] for t in h["teams"]}
            assert sides == {0} or sum(sides) == 0      # +L for one side, -L for the other
        else:
            assert sorted(h["place"]) == list(range(1, n + 1))


def test_any_registered_level_can_play(monkeypatch):
    class FirstMove(bots_base.Bot):
        name = "first"

        def choose(self, view):
            return view["legal_moves"][0]

    monkeypatch.setitem(bots_base.BOTS, "first", FirstMove)
    cfg = make_config("zheng-fen", "first,random,random,random", seed=1)
    rec = play_deal(cfg, 0)
    assert len(rec["hands"]) == 4


def test_bad_configurations_are_refused():
    with pytest.raises(ValueError, match="unknown bot"):
        make_config("owen", "greedy,nosuchbot,random,random", seed=1)
    with pytest.raises(ValueError, match="3 bots for 4 seats"):
        make_config("owen", "greedy,random,random", seed=1, players=4)
    with pytest.raises(ValueError, match="not 9"):
        make_config("owen", ["random"] * 9, seed=1)
    with pytest.raises(ValueError, match="unknown game"):
        make_config("no-such-game", "random,random,random,random", seed=1)
    with pytest.raises(ValueError):
        make_config("owen", "random,random,random,random", seed=1, options={"nope": 1})


# ----------------------------------------------------------------------------- statistics
def test_wilson_against_hand_computed_values():
    # z = 1.959964; 8 of 10: centre (0.8 + z^2/20) / (1 + z^2/10), half-width by hand
    p, lo, hi = wilson(8, 10)
    assert p == 0.8
    assert lo == pytest.approx(0.490162, abs=1e-6)
    assert hi == pytest.approx(0.943318, abs=1e-6)
    # 0 of 10: the upper end is z^2/n / (1 + z^2/n)
    assert wilson(0, 10) == pytest.approx((0.0, 0.0, 0.277533), abs=1e-6)
    assert wilson(5, 10)[1] + wilson(5, 10)[2] == pytest.approx(1.0)
    with pytest.raises(ValueError):
        wilson(3, 0)
    with pytest.raises(ValueError):
        wilson(11, 10)


def test_wilson_equals_scipy_for_whole_counts():
    from scipy.stats import binomtest
    for k, n in [(0, 5), (3, 10), (8, 10), (10, 10), (123, 400)]:
        ci = binomtest(k, n).proportion_ci(0.95, method="wilson")
        assert wilson(k, n)[1:] == pytest.approx((ci.low, ci.high), abs=1e-12)


def test_t_quantiles_match_tables():
    for df, table in [(1, 12.706205), (2, 4.302653), (3, 3.182446), (9, 2.262157),
                      (29, 2.045230), (100, 1.983972)]:
        assert t_quantile(0.975, df) == pytest.approx(table, abs=2e-6)
    assert t_quantile(0.025, 9) == pytest.approx(-2.262157, abs=2e-6)
    assert t_quantile(0.975, 10 ** 6) == pytest.approx(1.959964, abs=1e-5)


def test_mean_ci_against_hand_computed_values():
    # 1, 2, 3, 4: mean 2.5, sd sqrt(5/3), se sd/2, t(0.975, 3) = 3.182446
    m, lo, hi = mean_ci([1, 2, 3, 4])
    half = 3.182446 * math.sqrt(5 / 3) / 2
    assert m == 2.5
    assert (lo, hi) == pytest.approx((2.5 - half, 2.5 + half), abs=1e-5)
    # negative scores are fine
    m, lo, hi = mean_ci([-4, -2, 0])
    assert m == -2 and lo == pytest.approx(-2 - 4.302653 * 2 / math.sqrt(3), abs=1e-5)
    assert mean_ci([7]) == (7.0, None, None)


def test_overlap():
    assert overlap((0, 1), (1, 2)) is True
    assert overlap((0.5, 0.0, 1.0), (0.5, 1.1, 2.0)) is False
    assert overlap((3, 4), (0, 10)) is True
    assert overlap((None, None), (0, 1)) is None


def _fake_hand(rotation, score, win, place):
    return {"rotation": rotation, "seats": seating(2, rotation), "score": score, "win": win,
            "place": place, "teams": [[0], [1]],
            "ranks": [place[0], place[1]], "dealt": None, "moves": [1, 1], "think": [0.0, 0.0]}


def test_aggregate_against_hand_computed_values():
    cfg = runner.Config("zheng-shangyou/owen", 2, ("a", "b"), 1)
    # deal 0: a wins in both seats (2 vs 0); deal 1: a wins once, b once
    records = [
        {"deal": 0, "hands": [_fake_hand(0, [2, 0], [1, 0], [1, 2]),
                              _fake_hand(1, [0, 2], [0, 1], [2, 1])]},
        {"deal": 1, "hands": [_fake_hand(0, [2, 0], [1, 0], [1, 2]),
                              _fake_hand(1, [2, 0], [1, 0], [1, 2])]},
        {"deal": 2, "hands": [_fake_hand(0, [0, 2], [0, 1], [2, 1]),
                              _fake_hand(1, [0, 2], [0, 1], [2, 1])]},
    ]
    res = report.aggregate(cfg, records)
    a, b = res["bots"]
    assert (a["bot"], b["bot"]) == ("a", "b")
    # a's seat-hands: deal 0 -> 2, 2; deal 1 -> 2, 0; deal 2 -> 2, 0: per-deal means 2, 1, 1
    assert a["score"]["mean"] == pytest.approx(4 / 3)
    half = 4.302653 * math.sqrt(1 / 3) / math.sqrt(3)
    assert a["score"]["low"] == pytest.approx(4 / 3 - half, abs=1e-5)
    assert b["score"]["mean"] == pytest.approx(2 / 3)
    assert a["win"]["wins"] == 4 and a["win"]["trials"] == 6
    assert (a["win"]["low"], a["win"]["high"]) == pytest.approx(wilson(4, 6)[1:])
    assert a["places"] == pytest.approx([4 / 6, 2 / 6]) and a["mean_place"] == pytest.approx(8 / 6)
    pair = res["pairs"][0]
    # per-deal differences 2, 0, ... : a - b = (2 - 0), (1 - 1), (1 - 1) = 2, 0, 0
    assert pair["score_difference"]["mean"] == pytest.approx(2 / 3)
    assert pair["score_ratio"] == pytest.approx((4 / 3) / (2 / 3))
    assert pair["score_overlap"] is True
    assert res["ratings"][0]["mu"] > res["ratings"][1]["mu"]


def test_cpu_time_per_move_from_records_and_none_for_older_records():
    cfg = runner.Config("zheng-shangyou/owen", 2, ("a", "b"), 1)
    h0 = _fake_hand(0, [2, 0], [1, 0], [1, 2])          # seat 0: a, seat 1: b
    h0.update(moves=[2, 4], cpu=[1.0, 0.4], cpu_max=[0.9, 0.1])
    h1 = _fake_hand(1, [0, 2], [0, 1], [2, 1])          # seat 0: b, seat 1: a
    h1.update(moves=[2, 2], cpu=[0.2, 0.6], cpu_max=[0.2, 0.5])
    timing = report.aggregate(cfg, [{"deal": 0, "hands": [h0, h1]}])["timing"]
    assert timing["a"]["cpu_seconds_per_move"] == pytest.approx((1.0 + 0.6) / 4)
    assert timing["a"]["cpu_max_seconds"] == pytest.approx(0.9)
    assert timing["b"]["cpu_seconds_per_move"] == pytest.approx((0.4 + 0.2) / 6)
    assert timing["b"]["cpu_max_seconds"] == pytest.approx(0.2)
    # a record from before CPU times were kept: no CPU figure rather than a wrong one
    old = _fake_hand(0, [2, 0], [1, 0], [1, 2])
    timing = report.aggregate(cfg, [{"deal": 0, "hands": [h0, h1]},
                                    {"deal": 1, "hands": [old, old]}])["timing"]
    assert timing["a"]["cpu_seconds_per_move"] is None and timing["a"]["cpu_max_seconds"] is None
    # a played hand holds each seat's CPU time and its dearest decision
    hand = runner.play_hand(make_config("zheng-shangyou/owen", "greedy,random,random,random", 3),
                            0, 0)
    assert len(hand["cpu"]) == len(hand["cpu_max"]) == 4
    assert all(0 <= m <= c for m, c in zip(hand["cpu_max"], hand["cpu"]))
    assert sum(hand["cpu"]) > 0


# ----------------------------------------------------------------------------- running
CFG = ("zheng-shangyou/owen", "greedy,random,random,random", 7)


def test_resume_after_interruption_gives_the_same_results(tmp_path):
    cfg = make_config(CFG[0], CFG[1], seed=CFG[2])
    whole = run_tournament(cfg, 6, tmp_path / "whole", workers=1)

    class Stop(KeyboardInterrupt):
        pass

    def stop_after_three(rec):
        if rec["deal"] == 2:
            raise Stop

    part = tmp_path / "part"
    with pytest.raises(Stop):
        run_tournament(cfg, 6, part, workers=1, on_deal=stop_after_three)
    lines = (part / "deals.jsonl").read_text().splitlines()
    assert len(lines) == 1 + 3 and not (part / "results.json").exists()
    # killed while writing: half a line at the end
    with open(part / "deals.jsonl", "a") as f:
        f.write(lines[1][: len(lines[1]) // 2])
    played = []
    resumed = run_tournament(cfg, 6, part, workers=1, on_deal=lambda r: played.append(r["deal"]))
    assert played == [3, 4, 5]
    assert _strip_timing(resumed) == _strip_timing(whole)
    deals = [json.loads(x)["deal"] for x in (part / "deals.jsonl").read_text().splitlines()[1:]]
    assert deals == [0, 1, 2, 3, 4, 5]
    # killed between a line and its newline: the line counts, the next one starts afresh
    cut = tmp_path / "cut"
    cut.mkdir()
    text = (part / "deals.jsonl").read_text().splitlines()
    (cut / "deals.jsonl").write_text("\n".join(text[:3]))
    resumed = run_tournament(cfg, 6, cut, workers=1)
    assert _strip_timing(resumed) == _strip_timing(whole)
    assert (cut / "deals.jsonl").read_text().splitlines()[:3] == text[:3]
    # a finished tournament re-run plays nothing and reports the same
    again = run_tournament(cfg, 6, part, workers=1, on_deal=lambda r: played.append(r["deal"]))
    assert played == [3, 4, 5] and _strip_timing(again) == _strip_timing(whole)


def test_mismatched_configuration_is_refused(tmp_path):
    cfg = make_config(CFG[0], CFG[1], seed=CFG[2])
    run_tournament(cfg, 1, tmp_path, workers=1)
    before = (tmp_path / "deals.jsonl").read_text()
    other = make_config(CFG[0], CFG[1], seed=CFG[2] + 1)
    with pytest.raises(ConfigMismatch, match="seed: 7 there, 8 now"):
        run_tournament(other, 1, tmp_path, workers=1)
    swapped = make_config(CFG[0], "random,greedy,random,random", seed=CFG[2])
    with pytest.raises(ConfigMismatch, match="bots"):
        run_tournament(swapped, 1, tmp_path, workers=1)
    assert (tmp_path / "deals.jsonl").read_text() == before


def test_workers_give_the_same_results(tmp_path):
    cfg = make_config(CFG[0], CFG[1], seed=CFG[2])
    one = run_tournament(cfg, 4, tmp_path / "one", workers=1)
    two = run_tournament(cfg, 4, tmp_path / "two", workers=2)
    assert _strip_timing(one) == _strip_timing(two)


@pytest.mark.timeout(240)
def test_ray_local_gives_the_same_results(tmp_path):
    import ray          # required, not skipped: scripts/test.sh installs the cluster extra
    cfg = make_config("sheng-ji/single-deck", "greedy,random,greedy,random", seed=4)
    local = run_tournament(cfg, 3, tmp_path / "local", workers=1)
    on_ray = run_tournament(cfg, 3, tmp_path / "ray", workers=1, ray_address="local")
    assert _strip_timing(on_ray) == _strip_timing(local)
    assert not ray.is_initialized()


def test_ray_missing_is_refused_before_the_folder_is_made(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)          # import ray: ImportError
    cfg = make_config("owen", "greedy,random,random,random", seed=1)
    with pytest.raises(ValueError, match=r"--ray needs Ray: pip install"):
        run_tournament(cfg, 2, tmp_path / "out", workers=1, ray_address="local")
    assert not (tmp_path / "out").exists()


def test_pooled_folders_are_one_tournament_and_stay_unchanged(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    ra = run_tournament(make_config(CFG[0], CFG[1], seed=7), 3, a, workers=1)
    run_tournament(make_config(CFG[0], CFG[1], seed=8), 2, b, workers=1)
    # one folder: its own results (the seed becomes a list, the source is named)
    one = pool_results([a])
    assert one.pop("sources") == [{"folder": str(a), "seed": 7, "deals": 3}]
    assert one["config"].pop("seed") == [7]
    ra = dict(ra, config={k: v for k, v in ra["config"].items() if k != "seed"})
    assert one == ra
    # two seeds: the deals of both, as if one run had played them all
    before = {f: (f / "deals.jsonl").read_bytes() for f in (a, b)}
    both = pool_results([a, b])
    recs = [json.loads(x) for f in (a, b) for x in (f / "deals.jsonl").read_text().splitlines()[1:]]
    assert both["deals"] == 5 and both["hands"] == 20 and both["config"]["seed"] == [7, 8]
    whole = report.aggregate(make_config(CFG[0], CFG[1], seed=7), recs)
    assert both["bots"] == whole["bots"] and both["pairs"] == whole["pairs"]
    per_deal = [sum(h["score"][h["seats"].index(0)] for h in r["hands"]) / 4 for r in recs]
    assert both["bots"][0]["score"]["mean"] == pytest.approx(sum(per_deal) / 5)
    # a run still writing (half a line at the end): that deal is not counted, nothing changes
    with open(b / "deals.jsonl", "ab") as f:
        f.write(before[b].splitlines()[1][:40])
    cut = (b / "deals.jsonl").read_bytes()
    assert pool_results([a, b])["deals"] == 5
    assert (b / "deals.jsonl").read_bytes() == cut and (a / "deals.jsonl").read_bytes() == before[a]


def test_pooling_refuses_what_is_not_the_same_tournament(tmp_path):
    a, c, d = tmp_path / "a", tmp_path / "c", tmp_path / "d"
    run_tournament(make_config(CFG[0], CFG[1], seed=7), 1, a, workers=1)
    run_tournament(make_config(CFG[0], "random,greedy,random,random", seed=8), 1, c, workers=1)
    run_tournament(make_config(CFG[0], CFG[1], seed=7), 1, d, workers=1)
    with pytest.raises(ValueError, match="bots differ"):
        pool_results([a, c])
    with pytest.raises(ValueError, match="seed 7 given twice"):
        pool_results([a, d])
    with pytest.raises(ValueError, match="no tournament there"):
        pool_results([tmp_path / "nothing"])
    with pytest.raises(ValueError, match="no tournament folders"):
        pool_results([])


# ----------------------------------------------------------------------------- the command
def _cli(*args, cwd, command="tournament", pythonpath=()):
    env = dict(os.environ, COLUMNS="160")
    if env.get("PYTHONPATH"):       # runs in another folder: keep a relative path working
        env["PYTHONPATH"] = os.pathsep.join(os.path.abspath(p)
                                            for p in env["PYTHONPATH"].split(os.pathsep))
    if pythonpath:                  # these first
        env["PYTHONPATH"] = os.pathsep.join([*map(str, pythonpath)]
                                            + ([env["PYTHONPATH"]] if env.get("PYTHONPATH")
                                               else []))
    return subprocess.run([SCRIPT, command, *args], capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=180)


def test_cli_end_to_end(tmp_path):
    args = ["--game", "zheng-fen", "--bots", "greedy,random,random,random", "--hands", "3",
            "--seed", "2", "--workers", "1"]
    r = _cli(*args, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    out = next((tmp_path / "tournaments").iterdir())
    assert out.name == "zheng-fen-p4-greedy,random,random,random-s2"
    results = json.loads((out / "results.json").read_text())
    assert results["deals"] == 3 and results["hands"] == 12
    assert [b["bot"] for b in results["bots"]] == ["greedy", "random"]
    assert results["bots"][1]["seat_hands"] == 36
    with open(out / "results.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert [row["bot"] for row in rows] == ["greedy", "random"]
    assert float(rows[0]["score_mean"]) == pytest.approx(results["bots"][0]["score"]["mean"])
    assert (out / "scores.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "greedy - random: score difference" in r.stdout
    # the same command again resumes (nothing left to play) and prints the same table
    again = _cli(*args, cwd=tmp_path)
    assert again.returncode == 0 and again.stdout == r.stdout
    # another seed in the same folder: refused with one line, exit 2
    bad = _cli("--game", "zheng-fen", "--bots", "greedy,random,random,random", "--hands", "3",
               "--seed", "3", "--out", str(out), cwd=tmp_path)
    assert bad.returncode == 2 and "holds a different tournament" in bad.stderr
    assert "Traceback" not in bad.stderr


def test_cli_tournament_report(tmp_path):
    for seed in (2, 3):
        r = _cli("--game", "owen", "--bots", "greedy,random,random,random", "--hands", "2",
                 "--seed", str(seed), "--workers", "1", "--out", f"s{seed}", cwd=tmp_path)
        assert r.returncode == 0, r.stderr
    r = _cli("s2", "s3", "--out", "pool", cwd=tmp_path, command="tournament-report")
    assert r.returncode == 0, r.stderr
    assert "4 deals x 4 rotations = 16 hands" in r.stdout
    assert "s2 (seed 2) 2, s3 (seed 3) 2" in r.stdout
    pooled = json.loads((tmp_path / "pool" / "results.json").read_text())
    assert pooled["deals"] == 4 and pooled["config"]["seed"] == [2, 3]
    bad = _cli("s2", "nowhere", cwd=tmp_path, command="tournament-report")
    assert bad.returncode == 2 and "no tournament there" in bad.stderr
    assert "Traceback" not in bad.stderr


def test_cli_ray_missing(tmp_path):
    """``--ray`` where Ray does not import: one line, exit 2, and no output folder."""
    fake = tmp_path / "no-ray"
    fake.mkdir()
    (fake / "ray.py").write_text("raise ImportError(\"No module named 'ray'\")\n")
    r = _cli("--game", "owen", "--bots", "greedy,random,random,random", "--hands", "2",
             "--ray", "local", "--out", "out", cwd=tmp_path, pythonpath=[fake])
    assert r.returncode == 2, r.stderr
    assert r.stderr.strip() == "Error: --ray needs Ray: pip install 'shangyou[cluster]'"
    assert not (tmp_path / "out").exists()
    assert not (tmp_path / "tournaments").exists()


@pytest.mark.parametrize("args,fragment", [
    (["--game", "owen", "--bots", "greedy,wizard,random,random"], "unknown bot"),
    (["--game", "pits", "--bots", "greedy,random"], "not 2"),
    (["--game", "nope", "--bots", "greedy,random,random,random"], "unknown game"),
    (["--game", "owen", "--bots", "greedy,random,random,random", "--option", "x"],
     "expected key=value"),
    (["--game", "owen", "--bots", "greedy,random,random,random", "--rotations", "half"],
     "rotations must be 'all' or 'distinct'"),
])
def test_cli_bad_input(tmp_path, args, fragment):
    r = _cli(*args, cwd=tmp_path)
    assert r.returncode == 2 and fragment in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / "tournaments").exists()


def _zero_win_results() -> dict:
    """Results where one bot never won: its Wilson interval starts a rounding error above 0."""
    _, lo, hi = wilson(0, 40)
    bot = lambda name, rate, lo, hi: {"bot": name, "score": {"mean": 0.5, "low": 0.2, "high": 0.8},
                                      "win": {"rate": rate, "low": lo, "high": hi}}
    return {"bots": [bot("a", 0.0, lo + 1e-17, hi), bot("b", 1.0, 0.9, 1.0 - 1e-17)],
            "config": {"game": "zheng-fen", "players": 4}, "deals": 10, "hands": 40}


def test_plot_draws_a_win_rate_of_zero(tmp_path):
    """The interval's end on the wrong side of its value by a rounding error is drawn."""
    from shangyou.tournament.plot import plot
    plot(_zero_win_results(), tmp_path / "scores.png")
    assert (tmp_path / "scores.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_plot_error_never_loses_the_finished_run(tmp_path, monkeypatch):
    """A figure that fails to draw (fault injected) leaves results.json and .csv written."""
    from shangyou.tournament import plot as plot_module, run_tournament

    def broken(results, path):
        path.write_bytes(b"half a png")
        raise ValueError("'yerr' must not contain negative values")
    monkeypatch.setattr(plot_module, "plot", broken)
    cfg = make_config("zheng-fen", "greedy,random,random,random", seed=4)
    with pytest.warns(RuntimeWarning, match="plot was not drawn"):
        results = run_tournament(cfg, 1, tmp_path, workers=1)
    assert json.loads((tmp_path / "results.json").read_text())["deals"] == results["deals"] == 1
    assert (tmp_path / "results.csv").read_text().startswith("bot,")
    assert not (tmp_path / "scores.png").exists()


def test_the_report_ranks_by_every_metric_it_prints():
    """A bot that leads by mean score but trails by place and rating is ranked each way."""
    def bot(name, score, win, place, ordinal):
        return {"bot": name, "score": {"mean": score}, "win": {"rate": win},
                "mean_place": place, "places": [0.5, 0.5], "rating": {"ordinal": ordinal}}
    bots = [bot("learned", 0.30, 0.40, 2.6, 1.0), bot("heuristic", 0.20, 0.45, 2.3, 2.0)]
    ranks = report.rankings(bots)
    assert ranks == {"score": ["learned", "heuristic"], "win": ["heuristic", "learned"],
                     "place": ["heuristic", "learned"], "rating": ["heuristic", "learned"]}
    no_places = [dict(b, places=None) for b in bots]
    assert "place" not in report.rankings(no_places)
