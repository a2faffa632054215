"""Deep Monte-Carlo (as DouZero does for Dou Dizhu): a network ``Q(position, move)`` is
regressed on the return the seat got at the end of the hand (the env's reward,
:func:`shangyou.env.features.rewards_of`), for every move it chose; moves are chosen
epsilon-greedily over the legal moves, each scored by the network. Its inputs are the env's
observation and the env's move rows (:mod:`shangyou.env.features`), the same as the bot's.

**Actors and one learner.** Hands are played in rounds (``hands_per_round``) by actors
(:class:`~shangyou.train.league.Actor`, numpy only) given the network's weights; their samples
go to a replay memory, and after each round the learner (PyTorch; a GPU when torch sees one)
learns from that memory. ``actors=1`` plays in this process (no Ray needed: one laptop core);
``actors=N`` makes N Ray actors (``ray.init`` of a local Ray with N CPUs, or of the cluster
named by ``RAY_ADDRESS``), each playing its share of the round with its own seed, so a run
depends on its seed and its number of actors, not on which actor finished first.

Every ``eval_every`` hands the network plays fixed deals against the evaluation opponent; the
results go to ``curve.csv``, the network to ``latest.npz`` and, when it beats its best so far, to
``best.npz``. Checkpoints (``checkpoints/ckpt-<hands>.pt``) hold everything needed to go on but
the replay memory (a resumed run refills it): running the same command again resumes from the
latest one.
"""

from __future__ import annotations

import math
import os
import random
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn

import shangyou

from ..bots.learned import LAYERS, Network
from ..env.features import FORMAT, PHASES, dims
from .config import TrainConfig
from .evaluate import CURVE_FIELDS, append_curve, evaluate, plot_curve
from .league import Actor, round_seed

KEEP_CHECKPOINTS = 3
PROGRESS_EVERY = 1000          # hands between progress lines


class QNet(nn.Module):
    """The torch form of :class:`~shangyou.bots.learned.Network` (same layers and order)."""

    def __init__(self, hidden: int, state_dim: int, move_dim: int):
        super().__init__()
        self.state = nn.Linear(state_dim, hidden, bias=False)
        self.move = nn.Linear(move_dim, hidden)
        self.h2 = nn.Linear(hidden, hidden // 2)
        self.h3 = nn.Linear(hidden // 2, hidden // 2)
        self.out = nn.Linear(hidden // 2, 1)

    def forward(self, state, move):
        h = torch.relu(self.state(state) + self.move(move))
        h = torch.relu(self.h2(h))
        h = torch.relu(self.h3(h))
        return self.out(h).squeeze(-1)

    def to_numpy(self, meta: dict | None = None) -> Network:
        def a(t):
            return t.detach().to("cpu", torch.float32).numpy().copy()
        w = dict(zip(LAYERS, (a(self.state.weight).T, a(self.move.weight).T, a(self.move.bias),
                              a(self.h2.weight).T, a(self.h2.bias), a(self.h3.weight).T,
                              a(self.h3.bias), a(self.out.weight).T[:, 0], a(self.out.bias)[0])))
        return Network(w, meta)

    @torch.no_grad()
    def load_numpy(self, net: Network) -> QNet:
        """Take the weights of a numpy network (a model file of the learned bot): the inverse
        of :meth:`to_numpy`. ValueError when its layers have other widths than this one's."""
        w = net.w
        pairs = ((self.state.weight, w["ws"].T), (self.move.weight, w["wm"].T),
                 (self.move.bias, w["b1"]), (self.h2.weight, w["w2"].T),
                 (self.h2.bias, w["b2"]), (self.h3.weight, w["w3"].T), (self.h3.bias, w["b3"]),
                 (self.out.weight, w["w4"].reshape(1, -1)), (self.out.bias, w["b4"].reshape(1)))
        for param, value in pairs:
            if tuple(param.shape) != tuple(value.shape):
                raise ValueError(f"the model has layers of {tuple(value.shape)}, this network "
                                 f"{tuple(param.shape)}")
        for param, value in pairs:
            param.copy_(torch.from_numpy(np.ascontiguousarray(value)))
        return self


def init_network(path, hidden: int, family: str) -> Network:
    """The model file a new run starts from (``--init``), checked against the run's width:
    ValueError if it is no model of the learned bot or has other layers."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"--init {path}: no such model file")
    net = Network.load(path)
    if not net.env_features or net.meta.get("family") != family:
        raise ValueError(f"--init {path} is a model of other inputs (its features: "
                         f"{net.meta.get('features', 'learned-1')}, family "
                         f"{net.meta.get('family', 'climbing')}); this run's: {FORMAT}, "
                         f"{family}")
    width = net.w["ws"].shape[1]
    if width != hidden:
        raise ValueError(f"--init {path} has a first hidden layer of {width}, not {hidden}: "
                         f"leave --hidden out or give {width}")
    try:
        QNet(hidden, *dims(family)).load_numpy(net)
    except ValueError as e:
        raise ValueError(f"--init {path}: {e}") from None
    return net


class Replay:
    """The latest ``size`` samples: position, chosen move, return, and for a teacher's move
    another legal move (``n``, with ``e`` = 1; else zeros and 0)."""

    def __init__(self, size: int, state_dim: int, move_dim: int):
        self.s = np.zeros((size, state_dim), dtype=np.float32)
        self.m = np.zeros((size, move_dim), dtype=np.float32)
        self.g = np.zeros(size, dtype=np.float32)
        self.n = np.zeros((size, move_dim), dtype=np.float32)
        self.e = np.zeros(size, dtype=np.float32)
        self.size = size
        self.at = 0
        self.filled = 0

    def add_many(self, r: dict) -> None:
        """The samples of an actor's answer (:meth:`~shangyou.train.league.Actor.play`)."""
        count = len(r["g"])
        for lo in range(0, count, self.size):         # in pieces no larger than the memory
            hi = min(count, lo + self.size)
            k = hi - lo
            idx = (self.at + np.arange(k)) % self.size
            for name in ("s", "m", "g", "n", "e"):
                getattr(self, name)[idx] = r[name][lo:hi]
            self.at = (self.at + k) % self.size
            self.filled = min(self.filled + k, self.size)

    def batch(self, rng: np.random.Generator, n: int):
        i = rng.integers(0, self.filled, size=n)
        return self.s[i], self.m[i], self.g[i], self.n[i], self.e[i]


def pick_device(device: str = "auto") -> str:
    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cuda" and not torch.cuda.is_available():
        raise ValueError("--device cuda: torch sees no GPU here")
    if device not in ("cpu", "cuda"):
        raise ValueError(f"--device must be auto, cpu or cuda, not {device!r}")
    return device


class Learner:
    """The network being trained, its optimiser and the counters of the run."""

    def __init__(self, cfg: TrainConfig, device: str):
        self.cfg = cfg
        self.device = device
        self.net = QNet(cfg.hidden, *dims(cfg.family)).to(device)
        self.phases = list(PHASES[cfg.family])
        self.opt = torch.optim.Adam(self.net.parameters(), lr=cfg.lr)
        self.hands = 0
        self.samples = 0
        self.steps = 0
        self.loss = float("nan")
        self.best = -math.inf
        self.started = time.time()
        self.seconds = 0.0          # training time over every session of the run

    def meta(self) -> dict:
        return {"games": list(self.cfg.games), "players": list(self.cfg.players),
                "hidden": self.cfg.hidden, "hands": self.hands, "samples": self.samples,
                "format": 2, "features": FORMAT, "family": self.cfg.family,
                "phases": self.phases,
                **({"init": Path(self.cfg.init).name} if self.cfg.init else {})}

    def numpy(self) -> Network:
        return self.net.to_numpy(self.meta())

    def learn(self, replay: Replay, new: int, rng: np.random.Generator) -> None:
        """Learning steps for ``new`` fresh samples (``reuse`` passes over them on average)."""
        if replay.filled < self.cfg.batch:
            return
        steps = max(1, round(new * self.cfg.reuse / self.cfg.batch))
        total = 0.0
        for _ in range(steps):
            total += self.step(*replay.batch(rng, self.cfg.batch))
        self.steps += steps
        self.loss = total / steps

    def step(self, s, m, g, n, e) -> float:
        """One learning step on a batch: the squared error of ``Q(s, m)`` against the return
        ``g`` (Deep Monte-Carlo) plus, weighted by ``imitate``, the margin loss of DQfD for
        the teachers' moves: ``max(0, Q(s, n) + margin - Q(s, m))`` where ``e`` is 1."""
        dev = self.device
        s, m, g = (torch.from_numpy(x).to(dev) for x in (s, m, g))
        q = self.net(s, m)
        loss = torch.mean((q - g) ** 2)
        if self.cfg.imitate > 0 and float(e.sum()) > 0:
            n, e = torch.from_numpy(n).to(dev), torch.from_numpy(e).to(dev)
            gap = torch.relu(self.net(s, n) + self.cfg.margin - q)
            loss = loss + self.cfg.imitate * torch.sum(e * gap) / torch.sum(e)
        self.opt.zero_grad(set_to_none=True)
        loss.backward()
        nn.utils.clip_grad_norm_(self.net.parameters(), 40.0)
        self.opt.step()
        return loss.item()

    def state_dict(self, league: list[int], rng: random.Random, nrng) -> dict:
        return {"config": self.cfg.to_dict(), "net": self.net.state_dict(),
                "opt": self.opt.state_dict(), "hands": self.hands, "samples": self.samples,
                "steps": self.steps, "loss": self.loss, "best": self.best,
                "seconds": self.seconds + (time.time() - self.started),
                "league": list(league), "rng": rng.getstate(),
                "nrng": nrng.bit_generator.state}

    def load(self, ck: dict) -> None:
        self.net.load_state_dict(ck["net"])
        self.opt.load_state_dict(ck["opt"])
        for k in ("hands", "samples", "steps", "loss", "best", "seconds"):
            setattr(self, k, ck[k])


class Actors:
    """The actors of a run: one in this process, or ``n`` Ray actors (see the module)."""

    def __init__(self, cfg: TrainConfig, log=print):
        self.n = cfg.actors
        self.sent: set[int] = set()          # snapshots each Ray actor already holds
        if self.n == 1:
            self.local = Actor(cfg.to_dict())
            self.remote = []
            return
        try:
            import ray
        except ModuleNotFoundError:
            raise ValueError("--actors above 1 needs Ray: pip install 'shangyou[cluster]'"
                             ) from None
        self.ray = ray
        if not ray.is_initialized():
            if os.environ.get("RAY_ADDRESS"):
                ray.init(log_to_driver=False)
            else:
                ray.init(num_cpus=self.n, include_dashboard=False, log_to_driver=False)
            self.owned = True
        else:
            self.owned = False
        remote = ray.remote(num_cpus=1)(Actor)
        self.remote = [remote.remote(cfg.to_dict()) for _ in range(self.n)]
        log(f"{self.n} Ray actors")

    def play(self, net: Network, snapshots: dict[int, Network], start: int, hands: int,
             seed: int) -> list[dict]:
        """A round of ``hands`` hands shared by the actors, answered in actor order."""
        weights = {"w": net.w, "meta": net.meta}
        share = [hands // self.n + (1 if i < hands % self.n else 0) for i in range(self.n)]
        firsts = [start + sum(share[:i]) for i in range(self.n)]
        snaps = {k: {"w": v.w, "meta": v.meta} for k, v in snapshots.items()}
        if self.n == 1:
            return [self.local.play(weights, snaps, start, hands, round_seed(seed, start, 0))]
        new = {k: (None if k in self.sent else w) for k, w in snaps.items()}
        self.sent = set(snaps)
        ref = self.ray.put(weights)
        jobs = [a.play.remote(ref, new, firsts[i], share[i],  # type: ignore[attr-defined]
                              round_seed(seed, start, i))
                for i, a in enumerate(self.remote) if share[i] > 0]
        return self.ray.get(jobs)

    def close(self) -> None:
        if self.n > 1:
            for a in self.remote:
                self.ray.kill(a)  # type: ignore[arg-type]
            if self.owned:
                self.ray.shutdown()


def _checkpoints(out: Path) -> list[Path]:
    return sorted((out / "checkpoints").glob("ckpt-*.pt"))


def latest_checkpoint(out: Path) -> Path | None:
    found = _checkpoints(Path(out))
    return found[-1] if found else None


def save_checkpoint(out: Path, learner: Learner, league: list[int], rng, nrng) -> Path:
    folder = out / "checkpoints"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"ckpt-{learner.hands:010d}.pt"
    tmp = path.with_suffix(".tmp")
    torch.save(learner.state_dict(league, rng, nrng), tmp)
    os.replace(tmp, path)
    for old in _checkpoints(out)[:-KEEP_CHECKPOINTS]:
        old.unlink()
    return path


def run(cfg: TrainConfig, out, hands: int | None = None, minutes: float | None = None,
        device: str = "auto", threads: int | None = None, log=print,
        changes: dict | None = None) -> dict:
    """Train into ``out`` until the run has played ``hands`` hands in all or this call has
    trained ``minutes`` minutes (whichever comes first; one of them is needed). The latest
    checkpoint in ``out``, if any, is resumed (its configuration wins over ``cfg``, but for
    ``changes``: settings of :data:`~shangyou.train.config.CHANGEABLE` to change from here on,
    such as a lower learning rate or more actors). Answers the counters and the last
    evaluation."""
    if hands is None and minutes is None:
        raise ValueError("give --hands or --minutes (when to stop)")
    out = Path(out)
    device = pick_device(device)
    if threads:
        torch.set_num_threads(int(threads))
    ck_path = latest_checkpoint(out)
    ck = torch.load(ck_path, map_location=device, weights_only=False) if ck_path else None
    if ck is not None:
        cfg = TrainConfig.from_dict(ck["config"])
        cfg = cfg.changed(changes or {}, log)
    cfg.check()
    start = init_network(cfg.init, cfg.hidden, cfg.family) if ck is None and cfg.init else None
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(cfg.seed)
    nrng = np.random.default_rng(cfg.seed)
    torch.manual_seed(cfg.seed)
    learner = Learner(cfg, device)
    if start is not None:                           # a new run from a model file
        learner.net.load_numpy(start)
        log(f"the network starts from {cfg.init}")
    league: list[int] = []                          # the snapshots' hands, oldest first
    if ck is not None:
        learner.load(ck)
        for group in learner.opt.param_groups:
            group["lr"] = cfg.lr
        rng.setstate(ck["rng"])
        nrng.bit_generator.state = ck["nrng"]
        league = [h for h in ck["league"] if _snapshot_path(out, h).is_file()]
        log(f"resumed {ck_path} ({learner.hands} hands, {learner.steps} learning steps)")
    replay = Replay(cfg.replay, *dims(cfg.family))
    deadline = None if minutes is None else time.time() + minutes * 60
    net = learner.numpy()
    next_eval = (learner.hands // cfg.eval_every + 1) * cfg.eval_every
    next_snap = (learner.hands // cfg.snapshot_every + 1) * cfg.snapshot_every
    last = None
    start_hands, t_start = learner.hands, time.time()
    if ck is None:                                  # the curve starts at the untrained network
        last = _evaluate(cfg, learner, net, out, log)
    loaded: dict[int, Network] = {}
    actors = Actors(cfg, log)
    try:
        while (hands is None or learner.hands < hands) and (deadline is None
                                                            or time.time() < deadline):
            pool = league[-cfg.league_size:]
            loaded = {h: loaded.get(h) or Network.load(_snapshot_path(out, h)) for h in pool}
            round_hands = cfg.hands_per_round
            results = actors.play(net, loaded, learner.hands, round_hands, cfg.seed)
            new = 0
            for r in results:
                replay.add_many(r)
                new += len(r["g"])
            learner.hands += round_hands
            learner.samples += new
            learner.learn(replay, new, nrng)
            if learner.hands // PROGRESS_EVERY != (learner.hands - round_hands) // \
                    PROGRESS_EVERY:
                rate = (learner.hands - start_hands) / max(1e-9, time.time() - t_start)
                log(f"{learner.hands} hands, {learner.samples} samples, {learner.steps} steps, "
                    f"loss {learner.loss:.4f}, {rate:.1f} hands/s")
            net = learner.numpy()
            if learner.hands >= next_snap:
                folder = out / "snapshots"
                folder.mkdir(parents=True, exist_ok=True)
                net.save(_snapshot_path(out, learner.hands))
                league.append(learner.hands)
                next_snap += cfg.snapshot_every
            if learner.hands >= next_eval:
                last = _evaluate(cfg, learner, net, out, log)
                next_eval += cfg.eval_every
                save_checkpoint(out, learner, league, rng, nrng)
    finally:
        actors.close()
    if ck is not None and learner.hands == ck["hands"]:
        log(f"nothing to do: the run has played {learner.hands} hands")
        return {"hands": learner.hands, "samples": learner.samples, "steps": learner.steps,
                "checkpoint": str(ck_path), "evaluation": None}
    if last is None or last["hands"] != learner.hands:
        last = _evaluate(cfg, learner, net, out, log)
    path = save_checkpoint(out, learner, league, rng, nrng)
    log(f"checkpoint {path}")
    return {"hands": learner.hands, "samples": learner.samples, "steps": learner.steps,
            "checkpoint": str(path), "evaluation": last, "loss": learner.loss}


def _snapshot_path(out: Path, hands: int) -> Path:
    return Path(out) / "snapshots" / f"snap-{hands:010d}.npz"


def _evaluate(cfg: TrainConfig, learner: Learner, net: Network, out: Path, log) -> dict:
    """Evaluate, write the curve and the models (latest, best), and log a line."""
    t0 = time.time()
    rows = evaluate(cfg, net, out)
    seconds = learner.seconds + (time.time() - learner.started)
    score = sum(r["points"] - r["baseline_points"] for r in rows) / len(rows)
    rec = {"hands": learner.hands, "samples": learner.samples, "steps": learner.steps,
           "seconds": round(seconds, 1), "loss": learner.loss, "score": score}
    append_curve(out, [{**rec, **r} for r in rows])
    net.save(out / "latest.npz")
    if score > learner.best:
        learner.best = score
        net.save(out / "best.npz")
    plot_curve(out, level=cfg.eval_opponent)
    parts = ", ".join(f"{r['game']} {r['players']}p {r['points']:.3f} "
                      f"(its level {r['baseline_points']:.3f})"
                      for r in rows)
    log(f"{learner.hands} hands, {learner.steps} steps, loss {learner.loss:.3f}: points a hand "
        f"against {cfg.eval_opponent}: {parts} [{time.time() - t0:.0f} s]")
    return {**rec, "rows": rows}


__all__ = ["run", "QNet", "Replay", "Learner", "Actors", "latest_checkpoint", "CURVE_FIELDS"]
