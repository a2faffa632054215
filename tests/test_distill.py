"""Distillation of the Sheng ji search (shangyou.train.distill): a labelled hand gives each
candidate's gain over the heuristic's move (the heuristic's own is 0), the re-ranker's loss falls
on those labels, and the model it writes loads in the numpy bot and plays legal moves through a
whole hand; with a margin no value can pass it plays exactly the heuristic's moves."""

from __future__ import annotations

import random

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from shangyou.bots import make_bot  # noqa: E402
from shangyou.bots.learned import LearnedBot, Network  # noqa: E402
from shangyou.train.distill import label, load, parser  # noqa: E402
from shangyou.train.distill import fit as fit_model  # noqa: E402
from shangyou.train.league import deal  # noqa: E402


@pytest.fixture(scope="module")
def shards(tmp_path_factory):
    out = tmp_path_factory.mktemp("distill")
    label(parser().parse_args(["label", "--out", str(out), "--seeds", "3", "--hands", "1",
                               "--iterations", "60"]))
    return out


def play(bot: LearnedBot, seed: int) -> tuple[list[str], list[str]]:
    """One Sheng ji hand, ``bot`` in seat 0 and heuristic bots elsewhere: seat 0's moves and
    the heuristic's choice (same random numbers) at each of them."""
    g = deal("sheng-ji", 4, seed)
    others = [make_bot("heuristic", seed=s) for s in range(4)]
    twin = make_bot("heuristic", seed=99)
    bot.rng = random.Random(99)
    mine, heur = [], []
    while not g.over:
        seat = g.to_act
        view = g.view(seat)
        if seat == 0:
            move = bot.choose(view)
            assert move in view["legal_moves"]
            mine.append(move)
            heur.append(twin.choose(view))
        else:
            move = others[seat].choose(view)
        g.apply(move)
    return mine, heur


def test_labels(shards):
    states, rows, gain, worlds, pos = load(shards)
    assert len(states) > 10 and len(rows) == len(gain) == len(worlds) == len(pos)
    first = np.r_[True, pos[1:] != pos[:-1]]
    assert np.all(gain[first] == 0)             # the heuristic's move: no gain over itself
    assert np.all(worlds[first] >= 1)           # the heuristic's move is in every world
    assert np.any(gain != 0)


def test_fit_and_play(shards, tmp_path):
    model = tmp_path / "m.npz"
    losses = fit_model(parser().parse_args([
        "fit", "--data", str(shards), "--out", str(model), "--hidden", "32", "--epochs", "6",
        "--batch", "32", "--val", "0.1"]))
    assert losses[-1] < losses[0]
    net = Network.load(model)
    assert net.meta["mode"] == "rerank" and net.meta["games"] == ["sheng-ji"]
    mine, _ = play(LearnedBot(network=net), seed=11)
    assert len(mine) >= 10
    # a margin no value passes: the heuristic's moves, one for one
    net.meta["margin"] = 1e9
    mine, heur = play(LearnedBot(network=net), seed=12)
    assert mine == heur
