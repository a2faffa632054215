"""Distillation of the search (shangyou.train.distill), Sheng ji, Zheng Fen and the climbing
presets Owen, "winner" and pagat: a labelled hand gives each candidate's gain over the heuristic's move
(the heuristic's own is 0), the re-ranker's loss falls on those labels, and the model it writes
loads in the numpy bot and plays legal moves through a whole hand; with a margin no value can
pass it plays exactly the heuristic's moves. A model plays only the presets and table sizes its
metadata names: the heuristic level decides the others."""

from __future__ import annotations

import ast
import random

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from shangyou.bots import make_bot  # noqa: E402
from shangyou.bots.learned import LearnedBot, Network  # noqa: E402
from shangyou.env.features import whole_plays  # noqa: E402
from shangyou.train.distill import label, load, parser  # noqa: E402
from shangyou.train.distill import fit as fit_model  # noqa: E402
from shangyou.train.distill_policy import fit_policy  # noqa: E402
from shangyou.train.league import deal  # noqa: E402


@pytest.fixture(scope="module", params=["sheng-ji", "zheng-fen", "zheng-shangyou/owen",
                                        "zheng-shangyou/winner", "zheng-shangyou/pagat"])
def shards(request, tmp_path_factory):
    out = tmp_path_factory.mktemp("distill")
    label(parser().parse_args(["label", "--out", str(out), "--game", request.param,
                               "--seeds", "3", "--hands", "1", "--iterations", "60"]))
    return request.param, out


def play(bot: LearnedBot, game: str, seed: int) -> tuple[list[str], list[str]]:
    """One hand, ``bot`` in seat 0 and heuristic bots elsewhere: seat 0's moves and the
    heuristic's choice (same random numbers) at each of them."""
    g = deal(game, 4, seed)
    others = [make_bot("heuristic", seed=s) for s in range(4)]
    twin = make_bot("heuristic", seed=99)
    bot.rng = random.Random(99)
    mine, heur = [], []
    while not g.over:
        seat = g.to_act
        view = g.view(seat)
        if seat == 0:
            view = whole_plays(view)      # a climbing play chosen in steps: every whole play
            move = bot.choose(view)
            assert move in view["legal_moves"]
            mine.append(move)
            heur.append(twin.choose(view))
        else:
            move = others[seat].choose(view)
        g.apply(move)
    return mine, heur


def test_labels(shards):
    states, rows, gain, worlds, pos = load(shards[1])
    assert len(states) >= 5 and len(rows) == len(gain) == len(worlds) == len(pos)
    first = np.r_[True, pos[1:] != pos[:-1]]
    assert np.all(gain[first] == 0)             # the heuristic's move: no gain over itself
    assert np.all(worlds[first] >= 1)           # the heuristic's move is in every world
    assert np.any(gain != 0)


def test_place_labels(shards, tmp_path):
    """Climbing labels keep each candidate's gain in place value (1 a hand from last to first)
    beside its gain in the search's worth; a fit can weigh it (``--place-weight``)."""
    from shangyou.train.distill import load_place
    game, data = shards
    _, _, gain, _, pos = load(data)
    place = load_place(data)
    assert place.shape == gain.shape
    first = np.r_[True, pos[1:] != pos[:-1]]
    assert np.all(place[first] == 0)
    if game == "sheng-ji":
        assert not np.any(place)
        return
    assert np.all(np.abs(place) <= 1) and np.any(place != 0)
    model = tmp_path / "p.npz"
    fit_model(parser().parse_args([
        "fit", "--data", str(data), "--out", str(model), "--game", game, "--games", game,
        "--hidden", "16", "--epochs", "1", "--batch", "16", "--val", "0.1",
        "--place-weight", "2"]))
    assert Network.load(model).meta["place_weight"] == 2


def test_fit_and_play(shards, tmp_path):
    game, data = shards
    model = tmp_path / "m.npz"
    losses = fit_model(parser().parse_args([
        "fit", "--data", str(data), "--out", str(model), "--game", game, "--games", game,
        "--hidden", "32", "--epochs", "6", "--batch", "16", "--val", "0.1", "--margin", "0"]))
    assert losses[-1] < losses[0]
    net = Network.load(model)
    assert net.meta["mode"] == "rerank" and net.meta["games"] == [game]
    mine, heur = play(LearnedBot(network=net), game, seed=11)
    assert len(mine) >= 5
    # values: each legal move's gain over the heuristic's move, which is worth 0
    bot = LearnedBot(network=net, seed=1)
    g = deal(game, 4, 13)
    while not g.over:
        view = whole_plays(g.view(g.to_act))
        if view["phase"] == "play" and len(view["legal_moves"]) > 2:
            values = bot.values(view)
            base = make_bot("heuristic", seed=2).choose(view)
            assert len(values) == len(view["legal_moves"])
            assert values[view["legal_moves"].index(base)] == 0.0
            break
        g.apply(make_bot("heuristic", seed=3).choose(view))
    # a margin no value passes: the heuristic's moves, one for one
    net.meta["margin"] = 1e9
    mine, heur = play(LearnedBot(network=net), game, seed=12)
    assert mine == heur


@pytest.mark.parametrize("shards", ["zheng-shangyou/pagat", "zheng-shangyou/owen"],
                         indirect=True)
def test_pagat_labels_start_from_the_heuristics_move(shards):
    """pagat's search puts its playout policy's move first; the labeller's and the re-ranker's
    put the heuristic's (``Search.heuristic_first``): the labels are gains over the move the
    re-ranker plays unless another candidate beats it by its margin."""
    import json

    from shangyou.bots import climbing_heuristic
    from shangyou.bots.climbing_search import Search
    game, data = shards
    views = load(data, extra=True)[-1]
    assert len(views) >= 5
    policy_first = 0
    for text in views:
        d = json.loads(str(text))
        view, cands = d["view"], d["cands"]
        base = climbing_heuristic.choose(view)
        assert cands[0] == base and len(set(cands)) == len(cands)
        search = Search(view, random.Random(7))
        search.heuristic_first = True
        assert search.candidates()[0] == base
        # the re-ranker's list (no world sampled where every legal move is a candidate): the
        # labeller's candidates, the same first, the same set
        quick = Search(view, random.Random(7))
        quick.heuristic_first = True
        got = quick.candidates(base, ordered=False)
        assert got[0] == base and len(got) <= 8 and set(got) <= set(view["legal_moves"])
        if len(view["legal_moves"]) <= 8:
            assert set(got) == set(cands)
            assert "sampler" not in quick.__dict__      # no world was sampled
        if game == "zheng-shangyou/pagat":
            policy_first += Search(view, random.Random(7)).candidates()[0] != base
    if game == "zheng-shangyou/pagat":
        assert policy_first         # the search's own order differs: the option matters


# ------------------------------------------------- refined labels, choice target, search inputs
@pytest.fixture(scope="module")
def refined(tmp_path_factory):
    out = tmp_path_factory.mktemp("refined")
    label(parser().parse_args(["label", "--out", str(out), "--seeds", "4", "--hands", "1",
                               "--iterations", "40", "--worlds", "8", "--top", "1"]))
    return out


def test_refined_labels(refined):
    from shangyou.train.distill import choices
    states, rows, gain, worlds, pos, se, views = load(refined, extra=True)
    first = np.r_[True, pos[1:] != pos[:-1]]
    assert np.all(gain[first] == 0) and np.all(se[first] == 0)
    # at most --top candidates a position weighed again, each on the 8 fresh worlds
    again = se >= 0
    again[first] = False
    assert np.all(np.bincount(pos[again], minlength=len(states)) <= 1)
    assert np.any(again) and np.all(worlds[again] == 8)
    assert len(views) == len(states) and all(v is not None for v in views)
    # the choice: the heuristic's move unless a weighed candidate's gain passes z errors
    for z in (0.0, 1.0, 1e9):
        c = choices(gain, se, pos, z)
        assert c.shape == (len(states),)
        starts = np.flatnonzero(first)
        for p in np.flatnonzero(c):
            i = starts[p] + c[p]
            assert pos[i] == p and se[i] > 0 and gain[i] > z * se[i]
    assert not np.any(choices(gain, se, pos, 1e9))
    assert np.any(choices(gain, se, pos, 0.0))


def test_search_inputs_one_pipeline(refined):
    """The fit's inputs come from the labelled views through the bot's own function: the env's
    part equals what the labeller stored; the additions read the trick as the rules do."""
    from shangyou.bots.learned import rerank_features
    from shangyou.bots.sheng_ji_inputs import CAND, POS
    from shangyou.train.distill import with_inputs
    states, rows, _, _, pos, _, views = load(refined, extra=True)
    s2, r2 = with_inputs(views, "sj-search-1")
    assert s2.shape == (len(states), states.shape[1] + POS)
    assert r2.shape == (len(rows), rows.shape[1] + CAND)
    assert np.allclose(s2[:, :-POS], states, atol=1e-2)
    assert np.allclose(r2[:, :-CAND], rows, atol=1e-2)
    import json
    for text in views:
        d = json.loads(str(text))
        _, extra = rerank_features(d["view"], d["cands"], "sj-search-1")
        extra = extra[:, -CAND:]
        assert np.all(extra[:, 1] <= extra[:, 0])        # keeps the trick only if it wins it
        if not d["view"]["trick"]:
            assert np.all(extra[:, 0] == 1)             # a lead wins the trick so far
    with pytest.raises(ValueError):
        rerank_features(d["view"], d["cands"], "no-such-inputs")


def test_fit_choice_with_inputs(refined, tmp_path):
    model = tmp_path / "c.npz"
    losses = fit_model(parser().parse_args([
        "fit", "--data", str(refined), "--out", str(model), "--hidden", "16", "--epochs", "5",
        "--batch", "8", "--val", "0.1", "--margin", "0", "--target", "choice",
        "--choice-z", "0", "--inputs", "sj-search-1"]))
    assert losses[-1] < losses[0]
    net = Network.load(model)
    assert net.meta["inputs"] == "sj-search-1" and net.meta["target"] == "choice"
    mine, _ = play(LearnedBot(network=net), "sheng-ji", seed=14)
    assert len(mine) >= 5
    net.meta["margin"] = 1e9
    mine, heur = play(LearnedBot(network=net), "sheng-ji", seed=15)
    assert mine == heur

def test_guide_targets_and_measure():
    """``best_others``: each position's best candidate other than the heuristic's move, by its
    labelled gain; ``guided``: the gain a guided search would find weighing only the network's
    best other candidate (kept where positive), its ceiling, and how often they agree."""
    from shangyou.train.distill import best_others, guided
    pos = np.array([0, 0, 0, 1, 1, 2, 2, 2, 2])
    gain = np.array([0, -1.0, 2.0, 0, -0.5, 0, 0.3, 0.1, 0.2])
    assert list(best_others(gain, pos)) == [2, 1, 1]
    vq = np.array([5, 1.0, 0.0, 0, 9.0, 0, 0.0, 0.1, 2.0])    # others: 1st, the only, 3rd
    got, ceiling, same = guided(vq, np.arange(len(pos)), pos, gain)
    assert got == pytest.approx((0 + 0 + 0.2) / 3)
    assert ceiling == pytest.approx((2.0 + 0 + 0.3) / 3)
    assert same == pytest.approx(1 / 3)


def test_fit_with_a_guide_target(refined, tmp_path):
    """``--guide-weight`` adds a cross-entropy towards each position's best other candidate;
    the loss still falls, and ``--best-by guide`` keeps an epoch by the guide's measure."""
    model = tmp_path / "g.npz"
    losses = fit_model(parser().parse_args([
        "fit", "--data", str(refined), "--out", str(model), "--hidden", "16", "--epochs", "5",
        "--batch", "8", "--val", "0.1", "--margin", "0", "--target", "choice",
        "--choice-z", "0", "--inputs", "sj-search-1", "--guide-weight", "1.0",
        "--keep-best", "--best-by", "guide"]))
    assert losses[-1] < losses[0]
    net = Network.load(model)
    mine, _ = play(LearnedBot(network=net), "sheng-ji", seed=14)
    assert len(mine) >= 5


def test_a_model_plays_only_its_presets_and_table_sizes(shards, tmp_path):
    game, data = shards
    model = tmp_path / "m.npz"
    fit_model(parser().parse_args([
        "fit", "--data", str(data), "--out", str(model), "--game", game, "--games", game,
        "--hidden", "16", "--epochs", "1", "--batch", "16", "--val", "0.1", "--margin", "0"]))
    net = Network.load(model)
    assert net.meta["players"] == [4]
    bot = LearnedBot(network=net, seed=5)
    others = [g for g in ("zheng-shangyou/pagat", "zheng-shangyou/winner", "zheng-fen")
              if g != game]
    tables = [(game, 4, True)] + [(g, 4, False) for g in others]
    if game != "sheng-ji":                   # Sheng ji has four seats only (Owen: 2, 3, 4, 6)
        tables.append((game, 3, False))
    for name, players, plays in tables:
        g = deal(name, players, 21)
        while not g.over:
            view = whole_plays(g.view(g.to_act))
            if view["phase"] == "play" and len(view["legal_moves"]) > 1:
                break
            g.apply(make_bot("heuristic", seed=3).choose(view))
        assert bot.plays(view) == plays, (name, players)
        assert bot.choose(view) in view["legal_moves"]


def test_labels_at_several_table_sizes_fit_one_model(tmp_path):
    """Owen labelled at 2 and 3 players into one folder (the shards' seeds apart: the table
    size is each shard's own): the shards record their size, the positions of both are
    loaded together, and one model fitted on them plays both sizes and not the others."""
    out = tmp_path / "sizes"
    for players, seed in ((2, 20), (3, 30)):
        label(parser().parse_args(["label", "--out", str(out), "--game", "zheng-shangyou/owen",
                                   "--players", str(players), "--seeds", str(seed),
                                   "--hands", "1", "--iterations", "40"]))
    sizes = {}
    for path in sorted(out.glob("shard-*.npz")):
        with np.load(path) as d:
            meta = ast.literal_eval(str(d["meta"]))     # the shard's repr of a dict
            sizes[meta["players"]] = len(d["start"]) - 1
    assert set(sizes) == {2, 3} and all(n > 0 for n in sizes.values())
    states = load(out)[0]
    assert len(states) == sum(sizes.values())
    model = tmp_path / "m.npz"
    fit_model(parser().parse_args([
        "fit", "--data", str(out), "--out", str(model), "--game", "zheng-shangyou/owen",
        "--games", "zheng-shangyou/owen", "--players", "2,3", "--hidden", "16", "--epochs", "1",
        "--batch", "16", "--val", "0.2", "--margin", "0"]))
    bot = LearnedBot(network=Network.load(model), seed=5)
    for players, plays in ((2, True), (3, True), (4, False), (6, False)):
        g = deal("zheng-shangyou/owen", players, 21)
        view = whole_plays(g.view(g.to_act))
        assert bot.plays(view) == plays, players
        assert bot.choose(view) in view["legal_moves"]


def test_fit_init_starts_from_another_models_weights(refined, tmp_path):
    """``fit --init``: with no epoch the model written is the one it started from, weight for
    weight (the inverse of the export); a model of another width is refused."""
    args = ["fit", "--data", str(refined), "--hidden", "16", "--batch", "8", "--val", "0.1",
            "--margin", "0", "--target", "choice", "--choice-z", "0", "--inputs", "sj-search-1"]
    first, again = tmp_path / "a.npz", tmp_path / "b.npz"
    fit_model(parser().parse_args(args + ["--out", str(first), "--epochs", "1"]))
    fit_model(parser().parse_args(args + ["--out", str(again), "--epochs", "0",
                                          "--init", str(first), "--seed", "3"]))
    a, b = Network.load(first), Network.load(again)
    assert all(np.array_equal(a.w[k], b.w[k]) for k in a.w)
    wide = [x if x != "16" else "32" for x in args]
    with pytest.raises(SystemExit):
        fit_model(parser().parse_args(wide + ["--out", str(tmp_path / "c.npz"), "--epochs",
                                              "0", "--init", str(first)]))


@pytest.mark.parametrize("shards", ["zheng-shangyou/pagat"], indirect=True)
def test_heuristic_inputs_one_pipeline(shards, tmp_path):
    """``--inputs climb-heur-1``: the heuristic's plan numbers after the env's features, made
    from the labelled views by the bot's own function; the same numbers from the heuristic
    object that chose the move (what the bot passes in play) as from a fresh one; a fitted
    model plays legal moves, and the heuristic's moves with a margin no value passes."""
    import json

    from shangyou.bots.climbing_heuristic import decide
    from shangyou.bots.climbing_inputs import CAND, POS, heuristic_inputs
    from shangyou.train.distill import with_inputs
    game, data = shards
    states, rows, _, _, pos, _, views = load(data, extra=True)
    s2, r2 = with_inputs(views, "climb-heur-1")
    assert s2.shape == (len(states), states.shape[1] + POS)
    assert r2.shape == (len(rows), rows.shape[1] + CAND)
    assert np.allclose(r2[:, :-CAND], rows, atol=1e-2)
    assert np.any(r2[:, -CAND] > 0) and np.all((r2[:, -CAND] >= 0) & (r2[:, -CAND] <= 1))
    for text in views:
        d = json.loads(str(text))
        view, cands = whole_plays(d["view"]), d["cands"]
        p1, x1 = heuristic_inputs(view, cands)
        move, h = decide(view)
        assert move == cands[0] and h is not None
        p2, x2 = heuristic_inputs(view, cands, h)
        assert np.array_equal(p1, p2) and np.array_equal(x1, x2)
        assert p1[0] > 0                      # a hand to play has a plan of some cost
        for m, x in zip(cands, x1):
            if m == "pass":
                assert x[0] == 0 and x[3] == p1[0]      # nothing played: the same plan
            elif len(m.partition(" as ")[0].split()) == len(view["hand"]):
                assert x[10] == 1 and x[3] == 0        # out: no plan left
    model = tmp_path / "h.npz"
    losses = fit_model(parser().parse_args([
        "fit", "--data", str(data), "--out", str(model), "--game", game, "--games", game,
        "--hidden", "16", "--epochs", "4", "--batch", "16", "--val", "0.1", "--margin", "0",
        "--inputs", "climb-heur-1"]))
    assert losses[-1] < losses[0]
    net = Network.load(model)
    assert net.meta["inputs"] == "climb-heur-1"
    mine, _ = play(LearnedBot(network=net), game, seed=16)
    assert len(mine) >= 5
    net.meta["margin"] = 1e9
    mine, heur = play(LearnedBot(network=net), game, seed=17)
    assert mine == heur


def test_labels_from_the_learned_levels_play(tmp_path):
    """``label --play learned``: the hands are played by that level (DAgger's positions), and
    the shard's metadata says so; the labels are still gains over the heuristic's move."""
    from shangyou.train.distill import label_hand
    from shangyou.bots import climbing_heuristic
    game = "zheng-shangyou/pagat"
    label(parser().parse_args(["label", "--out", str(tmp_path), "--game", game, "--seeds",
                               "5", "--hands", "1", "--iterations", "30", "--play", "learned"]))
    with np.load(tmp_path / "shard-5.npz", allow_pickle=False) as d:
        assert "'play': 'learned'" in str(d["meta"])
    import json
    _, _, gain, _, pos, _, views = load(tmp_path, extra=True)
    first = np.r_[True, pos[1:] != pos[:-1]]
    assert np.all(gain[first] == 0)
    for text in views:
        d = json.loads(str(text))
        assert d["cands"][0] == climbing_heuristic.choose(d["view"])
    # another level plays other positions from the same deal
    a = label_hand(game, 4, 77, 20)
    b = label_hand(game, 4, 77, 20, play="learned")
    assert [x[5] for x in a] != [x[5] for x in b]


def test_policy_fit_and_play(shards, tmp_path):
    """``distill policy``: a network over every legal move, fitted to the labels' choice. The
    features it keeps per shard put each candidate on its own legal move's row (the rows the
    re-ranker's features give the candidates), its loss falls, and the model plays legal
    moves through a hand as the plain kind (no heuristic asked); a re-ranker's choices serve as
    targets too (``--teacher``)."""
    from shangyou.env.features import features
    from shangyou.train.distill_policy import load_policy, shard_features
    game, data = shards
    states, rows, mstart, gain, place, worlds, pos, crow = load_policy(data)
    assert len(mstart) == len(states) + 1 and mstart[-1] == len(rows)
    assert len(crow) == len(gain) == len(pos)
    assert np.all((crow >= mstart[pos]) & (crow < mstart[pos + 1]))
    path = sorted(data.glob("shard-*.npz"))[0]
    with np.load(path) as d:
        text, start = str(d["views"][0]), d["start"]
    import json
    x = json.loads(text)
    _, cand_rows = features(x["view"], x["cands"])
    assert np.allclose(rows[crow[:start[1]]], cand_rows.astype(np.float16))
    assert (data / "policy" / path.name).exists()           # kept for the next fit
    assert set(shard_features(path)) == {"states", "rows", "mstart", "cand"}
    model = tmp_path / "pol.npz"
    args = ["policy", "--data", str(data), "--out", str(model), "--game", game,
            "--games", game, "--hidden", "32", "--epochs", "6", "--batch", "8",
            "--val", "0.1", "--margin", "0", "--min-worlds", "1"]
    losses = fit_policy(parser().parse_args(args))
    assert losses[-1] < losses[0]
    net = Network.load(model)
    assert net.meta["mode"] == "policy" and net.meta["games"] == [game]
    bot = LearnedBot(network=net)
    assert bot.plays(whole_plays(first_play(game)))
    mine, _ = play(bot, game, seed=11)
    assert len(mine) >= 5
    # a re-ranker's choices as the targets
    teacher = tmp_path / "rr.npz"
    fit_model(parser().parse_args([
        "fit", "--data", str(data), "--out", str(teacher), "--game", game, "--games", game,
        "--hidden", "16", "--epochs", "1", "--batch", "16", "--val", "0.1"]))
    fit_policy(parser().parse_args(args[:-4] + ["--epochs", "1", "--teacher",
                                                      str(teacher)]))
    assert Network.load(model).meta["mode"] == "policy"


def first_play(game: str) -> dict:
    """The first view of a 4-seat hand of ``game`` in the play phase with a choice."""
    g = deal(game, 4, 17)
    bot = make_bot("heuristic", seed=5)
    while True:
        view = g.view(g.to_act)
        if view["phase"] == "play" and len(view["legal_moves"]) > 1:
            return view
        g.apply(bot.choose(view))


def test_a_stopped_writers_tmp_file_is_not_read(shards, tmp_path):
    """A labeller stopped while writing leaves ``shard-N.tmp.npz``; a fit reads the finished
    shards only, and ``upto`` leaves out the shards of later seeds."""
    import shutil
    from shangyou.train.distill import shard_paths
    _, data = shards
    folder = tmp_path / "copy"
    shutil.copytree(data, folder)
    (folder / "shard-9.tmp.npz").write_bytes(b"half a file")
    shutil.copy(folder / "shard-3.npz", folder / "shard-12.npz")
    assert [p.name for p in shard_paths(folder)] == ["shard-3.npz", "shard-12.npz"]
    assert [p.name for p in shard_paths(folder, upto=11)] == ["shard-3.npz"]
    assert len(load(folder, upto=3)[0]) == len(load(data)[0])
