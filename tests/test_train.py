"""``shangyou train``: a tiny run on the CPU learns, writes checkpoints, models and the curve,
and the same command resumes it; bad input and a missing PyTorch give one line."""

from __future__ import annotations

import csv
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
import torch

import shangyou
from shangyou.bots import make_bot, play_out
from shangyou.bots.learned import DEFAULT_MODEL, LearnedBot, Network
from shangyou.env.features import dims, features
from shangyou.train import TrainConfig, parse_opponents
from shangyou.train.dmc import QNet, latest_checkpoint
from shangyou.train.evaluate import play_deals

ROOT = Path(__file__).resolve().parent.parent
TINY = ["--players", "4", "--hands-per-round", "8", "--eval-every", "8", "--eval-deals", "2",
        "--snapshot-every", "8", "--hidden", "16", "--batch", "32", "--device", "cpu",
        "--seed", "3"]


def train(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(ROOT / "src")] + [p for p in [os.environ.get("PYTHONPATH")] if p]), COLUMNS="120")
    return subprocess.run([sys.executable, "-m", "shangyou", "train", *args],
                          capture_output=True, text=True, env=env, timeout=300, cwd=ROOT)


def curve(folder: Path) -> list[dict]:
    with open(folder / "curve.csv", newline="") as f:
        return list(csv.DictReader(f))


def test_a_tiny_run_learns_checkpoints_and_resumes(tmp_path):
    out = tmp_path / "run"
    first = train("--out", str(out), "--hands", "16", *TINY)
    assert first.returncode == 0, first.stderr
    ck = latest_checkpoint(out)
    assert ck is not None and ck.name == "ckpt-0000000016.pt"
    saved = torch.load(ck, weights_only=False)
    assert saved["hands"] == 16 and saved["steps"] > 0 and saved["samples"] > 0
    assert [p.name for p in sorted((out / "snapshots").iterdir())] == [
        "snap-0000000008.npz", "snap-0000000016.npz"]
    assert (out / "best.npz").is_file() and (out / "latest.npz").is_file()
    rows = curve(out)
    assert [int(r["hands"]) for r in rows] == [0, 8, 16]
    latest = Network.load(out / "latest.npz")
    assert latest.meta["hands"] == 16
    # the exported network is the checkpoint's network
    net = QNet(16, *dims("climbing"))
    net.load_state_dict(saved["net"])
    as_numpy = net.to_numpy()
    for k, v in latest.w.items():
        assert np.allclose(v, as_numpy.w[k]), k
    # it learned: the untrained network of the same seed differs
    torch.manual_seed(3)
    untrained = QNet(16, *dims("climbing")).to_numpy()
    assert not np.allclose(untrained.w["w2"], latest.w["w2"])

    # a resumed run may change its learning settings, not its network
    other = train("--out", str(out), "--hands", "32", *TINY, "--hidden", "8")
    assert other.returncode == 2 and other.stderr.strip().splitlines()[-1] == (
        "Error: a resumed run keeps its hidden (16); start a new run (another --out) to "
        "change it")
    second = train("--out", str(out), "--hands", "32", *TINY, "--lr", "0.001",
                   "--export", str(tmp_path / "mine.npz"))
    assert second.returncode == 0, second.stderr
    assert "resuming the run" in second.stderr
    assert "resumed" in second.stdout and "(16 hands," in second.stdout
    assert "changed lr: 0.0003 -> 0.001" in second.stdout
    saved2 = torch.load(latest_checkpoint(out), weights_only=False)
    assert saved2["config"]["lr"] == 0.001 and saved2["opt"]["param_groups"][0]["lr"] == 0.001
    assert saved2["hands"] == 32 and saved2["steps"] > saved["steps"]
    assert saved2["samples"] > saved["samples"]
    assert [int(r["hands"]) for r in curve(out)] == [0, 8, 16, 24, 32]
    # the exported model plays as a bot level
    bot = make_bot(f"learned:{tmp_path / 'mine.npz'}", seed=1)
    g = shangyou.new_game("zheng-shangyou/pagat", players=4, seed=2)
    play_out(g, [bot] + [make_bot("random", seed=s) for s in range(3)])
    assert g.over
    # done already: the same command again learns nothing more
    third = train("--out", str(out), "--hands", "32", *TINY)
    assert third.returncode == 0, third.stderr
    assert "nothing to do" in third.stdout
    assert torch.load(latest_checkpoint(out), weights_only=False)["steps"] == saved2["steps"]
    assert [int(r["hands"]) for r in curve(out)] == [0, 8, 16, 24, 32]


@pytest.mark.parametrize("args, message", [
    ([], "give --hands N or --minutes M"),
    (["--hands", "4", "--players", "2"], "not 2"),
    (["--hands", "4", "--game", "sheng-ji,zheng-fen"], "one run trains one family"),
    (["--hands", "4", "--game", "sheng-ji", "--players", "5"], "not 5"),
    (["--hands", "4", "--actors", "0"], "actors must be a whole number"),
    (["--hands", "4", "--opponents", "self=3,wizard=1"], "unknown bot"),
    (["--hands", "4", "--opponents", "self=-1"], "bad opponent weight"),
    (["--hands", "4", "--teachers", "wizard"], "unknown bot"),
    (["--hands", "4", "--device", "tpu"], "--device must be"),
    (["--hands", "4", "--init", "no-such-model.npz"], "no such model file"),
    (["--hands", "4", "--init", str(DEFAULT_MODEL), "--hidden", "256"],
     "is a model of other inputs"),
    (["--hands", "4", "--epsilon", "0.1"], "bad --epsilon"),
])
def test_bad_input_is_one_line(tmp_path, args, message):
    out = train("--out", str(tmp_path / "run"), *args)
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ") and message in lines[0], lines
    assert not (tmp_path / "run").exists()


def test_without_torch_the_command_names_the_extra(tmp_path):
    code = textwrap.dedent("""
        import sys
        class Hide:
            def find_spec(self, name, path=None, target=None):
                if name.partition(".")[0] == "torch":
                    raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        sys.meta_path.insert(0, Hide())
        from shangyou.cli.main import main
        sys.argv = ["shangyou", "train", "--out", sys.argv[1], "--hands", "4"]
        main()
    """)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(ROOT / "src")] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path / "run")],
                         capture_output=True, text=True, env=env, timeout=120, cwd=ROOT)
    assert out.returncode == 2
    assert out.stderr.strip().splitlines() == [
        "Error: shangyou train needs PyTorch (torch is missing): pip install 'shangyou[train]'"]


def test_opponents_and_config_round_trip():
    assert parse_opponents("self=3, heuristic=4,greedy") == {
        "self": 3.0, "heuristic": 4.0, "greedy": 1.0}
    assert parse_opponents("search:50=2,snapshot") == {"search:50": 2.0, "snapshot": 1.0}
    cfg = TrainConfig(players=(4, 5), opponents={"self": 1.0}, teachers=("heuristic",))
    assert TrainConfig.from_dict(cfg.to_dict()) == cfg


def random_model(path: Path, hidden: int = 16, seed: int = 0) -> Network:
    """A model file of an untrained network of the env's features (climbing, pagat)."""
    torch.manual_seed(seed)
    net = QNet(hidden, *dims("climbing")).to_numpy(
        {"games": ["zheng-shangyou/pagat"], "features": "env-1", "family": "climbing",
         "phases": ["play"], "hands": 0, "hidden": hidden})
    net.save(path)
    return net


def test_a_network_initialised_from_a_model_file_computes_the_bots_values(tmp_path):
    model = random_model(tmp_path / "m.npz", hidden=24)
    shipped = Network.load(tmp_path / "m.npz")
    net = QNet(24, *dims("climbing")).load_numpy(shipped)
    bot = LearnedBot(seed=1, network=shipped)
    g = shangyou.new_game("zheng-shangyou/pagat", players=5, seed=4)
    checked = 0
    while not g.over:
        view = g.view(g.to_act)
        if len(view["legal_moves"]) > 1 and bot.plays(view):
            state, rows = features(view)
            with torch.no_grad():
                q = net(torch.from_numpy(np.tile(state, (len(rows), 1))),
                        torch.from_numpy(rows)).numpy()
            assert np.allclose(q, bot.values(view), atol=1e-5)
            checked += 1
        g.apply(bot.choose(view))
    assert checked > 10
    # and back: the torch network's numpy form is the model, weight for weight
    again = net.to_numpy()
    for k, v in model.w.items():
        assert np.array_equal(again.w[k], v), k
    with pytest.raises(ValueError, match="layers of"):
        QNet(16, *dims("climbing")).load_numpy(shipped)


def test_train_init_starts_the_run_from_the_model(tmp_path):
    model = tmp_path / "start.npz"
    random_model(model, hidden=24, seed=5)
    out = tmp_path / "run"
    args = ["--out", str(out), "--players", "4", "--hands-per-round", "8", "--eval-every", "8",
            "--eval-deals", "3", "--batch", "32", "--device", "cpu", "--seed", "3",
            "--init", str(model), "--lr", "1e-4", "--epsilon", "0.05,0.01"]
    bad = train(*args, "--hands", "8", "--hidden", "16")
    assert bad.returncode == 2 and "has a first hidden layer of 24, not 16" in bad.stderr
    done = train(*args, "--hands", "8")
    assert done.returncode == 0, done.stderr
    assert f"the network starts from {model}" in done.stdout
    saved = torch.load(latest_checkpoint(out), weights_only=False)
    assert saved["config"]["init"] == str(model) and saved["config"]["hidden"] == 24
    assert saved["config"]["epsilon"] == [0.05, 0.01]
    # the evaluation before any learning is the model's, deal for deal
    start = Network.load(model)
    points, _ = play_deals("zheng-shangyou/pagat", 4, 3,
                           lambda seed: LearnedBot(seed, network=start), "heuristic")
    first = curve(out)[0]
    assert int(first["hands"]) == 0
    assert float(first["points"]) == pytest.approx(sum(points) / len(points), abs=1e-4)
    latest = Network.load(out / "latest.npz")
    assert latest.meta["init"] == "start.npz" and latest.meta["hands"] == 8
    assert not np.array_equal(latest.w["w2"], start.w["w2"])      # it learned from there
    # the same command resumes the run (the checkpoint's network, not the file's again)
    more = train(*args, "--hands", "16")
    assert more.returncode == 0, more.stderr
    assert "resumed" in more.stdout and "starts from" not in more.stdout
    assert Network.load(out / "latest.npz").meta["hands"] == 16
