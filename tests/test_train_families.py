"""Training every family on the env's features: for the climbing presets, Zheng Fen and the
Sheng ji presets the loss falls on a fixed batch, the actors' samples depend on the seed only, and
the saved model loads in the numpy bot and plays legal moves through whole games of every preset
and table size of its family; two Ray actors feed the learner; a killed run resumes from its
last checkpoint."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import torch

import shangyou
from shangyou.bots import make_bot
from shangyou.bots.base import rules_for
from shangyou.bots.learned import LearnedBot, Network
from shangyou.env.features import PHASES, family_of
from shangyou.games.climbing.steps import every_play
from shangyou.train import TrainConfig
from shangyou.train.dmc import Actors, Learner, latest_checkpoint, run
from shangyou.train.league import Actor, deal, round_seed

ROOT = Path(__file__).resolve().parent.parent
CLIMBING = [p for p in shangyou.preset_names() if p.startswith("zheng-shangyou/")]
SHENG_JI = [p for p in shangyou.preset_names() if p.startswith("sheng-ji")]
FAMILIES = {"climbing": CLIMBING, "zheng-fen": ["zheng-fen"], "sheng-ji": SHENG_JI}


def sizes(presets: list[str]) -> tuple[int, ...]:
    return tuple(sorted({n for p in presets for n in shangyou.preset_info(p)["players"]}))


def config(presets: list[str], **kw) -> TrainConfig:
    base = dict(game=",".join(presets), players=sizes(presets), hidden=32, lr=1e-3,
                opponents={"heuristic": 2.0, "self": 1.0}, teachers=("heuristic",),
                imitate=1.0, seed=5)
    return TrainConfig(**{**base, **kw}).check()


@pytest.fixture(autouse=True)
def one_thread():
    """Small matrices: one torch thread (several fight over a busy machine's cores)."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


class Checked:
    """A bot whose every move is checked against the view's legal moves."""

    def __init__(self, bot: LearnedBot):
        self.bot = bot
        self.decisions = 0
        self.by_network = 0

    def choose(self, view):
        move = self.bot.choose(view)
        legal = view["legal_moves"]
        if move not in legal and family_of(view["game"]) == "climbing":
            legal = every_play(view, rules_for(view).family)["legal_moves"]
        assert move in legal, (move, view["legal_moves"][:8])
        self.decisions += 1
        self.by_network += len(view["legal_moves"]) > 1 and self.bot.plays(view)
        return move


@pytest.mark.parametrize("family", FAMILIES)
def test_each_family_learns_and_its_model_plays_every_preset(family, tmp_path):
    presets = FAMILIES[family]
    cfg = config(presets)
    learner = Learner(cfg, "cpu")
    net = learner.numpy()
    weights = {"w": net.w, "meta": net.meta}
    actor = Actor(cfg.to_dict())
    got = actor.play(weights, {}, 0, 3, seed=11)
    assert len(got["g"]) > 50 and got["s"].shape[0] == got["m"].shape[0] == len(got["g"])
    assert got["e"].sum() > 0                       # the teachers' moves, with negatives
    assert set(got["phases"]) <= set(PHASES[cfg.family]) and "play" in got["phases"]
    again = Actor(cfg.to_dict()).play(weights, {}, 0, 3, seed=11)
    for k in ("s", "m", "g", "n", "e"):             # the same seed, the same samples
        assert np.array_equal(got[k], again[k]), k

    # the loss falls over a few hundred updates on one fixed batch
    i = np.random.default_rng(0).permutation(len(got["g"]))[:256]
    batch = tuple(got[k][i] for k in ("s", "m", "g", "n", "e"))
    losses = [learner.step(*batch) for _ in range(300)]
    assert np.mean(losses[-20:]) < 0.5 * np.mean(losses[:5]), (losses[:5], losses[-20:])

    # the saved model loads in the numpy bot and plays whole games of every preset and size
    path = tmp_path / "model.npz"
    learner.numpy().save(path)
    model = Network.load(path)
    assert model.meta["games"] == presets and model.meta["features"] == "env-1"
    assert path.stat().st_size < 20 * 1024 * 1024
    for preset in presets:
        for n in shangyou.preset_info(preset)["players"]:
            g = deal(preset, n, 100 + n)
            bots = [Checked(make_bot(f"learned:{path}", seed=s)) for s in range(n)]
            while not g.over:
                g.apply(bots[g.to_act].choose(g.view(g.to_act)))
            assert sum(b.by_network for b in bots) > 0, (preset, n)


def test_two_ray_actors_feed_the_learner(tmp_path):
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        cfg = config(["zheng-fen"], players=(4,), actors=2, hands_per_round=6, eval_every=6,
                     eval_deals=1, snapshot_every=6, batch=32)
        lines: list[str] = []
        done = run(cfg, tmp_path / "run", hands=12, device="cpu", threads=1, log=lines.append)
        assert "2 Ray actors" in lines
        assert done["hands"] == 12 and done["samples"] > 0 and done["steps"] > 0
        saved = torch.load(latest_checkpoint(tmp_path / "run"), weights_only=False)
        assert saved["hands"] == 12 and saved["config"]["actors"] == 2
        # each actor plays its share of the round with its own seed: the same samples as an
        # actor in this process given that seed
        net = Learner(cfg, "cpu").numpy()
        actors = Actors(cfg)
        try:
            remote = actors.play(net, {}, 0, 5, seed=9)
        finally:
            actors.close()
        assert len(remote) == 2 and [r["hands"] for r in remote] == [3, 2]
        weights = {"w": net.w, "meta": net.meta}
        for i, (first, count) in enumerate(((0, 3), (3, 2))):
            local = Actor(cfg.to_dict()).play(weights, {}, first, count, round_seed(9, 0, i))
            assert np.array_equal(local["s"], remote[i]["s"])
            assert np.array_equal(local["g"], remote[i]["g"])
    finally:
        ray.shutdown()


def test_a_killed_run_resumes_from_its_last_checkpoint(tmp_path):
    out = tmp_path / "run"
    args = [sys.executable, "-m", "shangyou", "train", "--out", str(out), "--game", "zheng-fen",
            "--players", "4", "--hands-per-round", "4", "--eval-every", "4", "--eval-deals", "1",
            "--snapshot-every", "8", "--hidden", "16", "--batch", "32", "--device", "cpu",
            "--seed", "4"]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(ROOT / "src")] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
    proc = subprocess.Popen([*args, "--hands", "100000"], env=env, cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline:
            ck = latest_checkpoint(out)
            if ck is not None and int(ck.stem.split("-")[1]) >= 8:
                break
            time.sleep(0.5)
        else:
            pytest.fail("no checkpoint of 8 hands within 240 s")
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
    ck = latest_checkpoint(out)
    at = torch.load(ck, weights_only=False)["hands"]
    assert at >= 8 and not list((out / "checkpoints").glob("*.tmp"))
    more = subprocess.run([*args, "--hands", str(at + 4)], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert more.returncode == 0, more.stderr
    assert f"resumed {ck} ({at} hands," in more.stdout
    saved = torch.load(latest_checkpoint(out), weights_only=False)
    assert saved["hands"] == at + 4
