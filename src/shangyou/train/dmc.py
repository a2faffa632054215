"""Deep Monte-Carlo (as DouZero does for Dou Dizhu): a network ``Q(position, move)`` is
regressed on the points the seat scored at the end of the hand, for every move it chose; moves
are chosen epsilon-greedily over the legal moves, each scored by the network.

One process plays hands in rounds (``hands_per_round``); its learner seats act with a numpy copy
of the network (the same code as the bot), their samples go to a replay memory, and after each
round the network learns from that memory on the CPU or, when torch sees one, a GPU. The other
seats come from the league (:mod:`shangyou.train.league`). Every ``eval_every`` hands the
network plays fixed deals against the evaluation opponent; the results go to ``curve.csv``,
the network to ``latest.npz`` and, when it beats its best so far, to ``best.npz``.
Checkpoints (``checkpoints/ckpt-<hands>.pt``) hold everything needed to go on: running the same
command again resumes from the latest one.
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
from ..bots.learned_features import (
    MOVE_DIM,
    STATE_DIM,
    features,
    is_play_decision,
    whole_plays,
)
from .config import TrainConfig
from .evaluate import CURVE_FIELDS, append_curve, evaluate, plot_curve
from .league import League, hand_points

KEEP_CHECKPOINTS = 3
PROGRESS_EVERY = 1000          # hands between progress lines


class QNet(nn.Module):
    """The torch form of :class:`~shangyou.bots.learned.Network` (same layers and order)."""

    def __init__(self, hidden: int):
        super().__init__()
        self.state = nn.Linear(STATE_DIM, hidden, bias=False)
        self.move = nn.Linear(MOVE_DIM, hidden)
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


class Replay:
    """The latest ``size`` samples: position, chosen move, points scored."""

    def __init__(self, size: int):
        self.s = np.zeros((size, STATE_DIM), dtype=np.float32)
        self.m = np.zeros((size, MOVE_DIM), dtype=np.float32)
        self.g = np.zeros(size, dtype=np.float32)
        self.size = size
        self.at = 0
        self.filled = 0

    def add(self, s, m, g) -> None:
        self.s[self.at], self.m[self.at], self.g[self.at] = s, m, g
        self.at = (self.at + 1) % self.size
        self.filled = min(self.filled + 1, self.size)

    def batch(self, rng: np.random.Generator, n: int):
        i = rng.integers(0, self.filled, size=n)
        return self.s[i], self.m[i], self.g[i]


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
        self.net = QNet(cfg.hidden).to(device)
        self.opt = torch.optim.Adam(self.net.parameters(), lr=cfg.lr)
        self.hands = 0
        self.samples = 0
        self.steps = 0
        self.loss = float("nan")
        self.best = -math.inf
        self.started = time.time()
        self.seconds = 0.0          # training time over every session of the run

    def meta(self) -> dict:
        return {"games": [self.cfg.game], "players": list(self.cfg.players),
                "hidden": self.cfg.hidden, "hands": self.hands, "samples": self.samples,
                "format": 1}

    def numpy(self) -> Network:
        return self.net.to_numpy(self.meta())

    def learn(self, replay: Replay, new: int, rng: np.random.Generator) -> None:
        """Learning steps for ``new`` fresh samples (``reuse`` passes over them on average)."""
        if replay.filled < self.cfg.batch:
            return
        steps = max(1, round(new * self.cfg.reuse / self.cfg.batch))
        total = 0.0
        for _ in range(steps):
            s, m, g = replay.batch(rng, self.cfg.batch)
            s = torch.from_numpy(s).to(self.device)
            m = torch.from_numpy(m).to(self.device)
            g = torch.from_numpy(g).to(self.device)
            loss = torch.mean((self.net(s, m) - g) ** 2)
            self.opt.zero_grad(set_to_none=True)
            loss.backward()
            nn.utils.clip_grad_norm_(self.net.parameters(), 40.0)
            self.opt.step()
            total += loss.item()
        self.steps += steps
        self.loss = total / steps

    def state_dict(self, league: League, rng: random.Random, nrng) -> dict:
        return {"config": self.cfg.to_dict(), "net": self.net.state_dict(),
                "opt": self.opt.state_dict(), "hands": self.hands, "samples": self.samples,
                "steps": self.steps, "loss": self.loss, "best": self.best,
                "seconds": self.seconds + (time.time() - self.started),
                "league": league.files(), "rng": rng.getstate(),
                "nrng": nrng.bit_generator.state}

    def load(self, ck: dict) -> None:
        self.net.load_state_dict(ck["net"])
        self.opt.load_state_dict(ck["opt"])
        for k in ("hands", "samples", "steps", "loss", "best", "seconds"):
            setattr(self, k, ck[k])


def epsilon(cfg: TrainConfig, hands: int) -> float:
    start, end = cfg.epsilon
    f = min(1.0, hands / max(1, cfg.explore_hands))
    return start + (end - start) * f


def play_hand(cfg: TrainConfig, net: Network, league: League, rng: random.Random,
              eps: float, replay: Replay) -> int:
    """One hand: a learner seat, the others from the league; the samples of the learner seats
    and of the teachers' seats (bot levels in ``cfg.teachers``) go to ``replay``. Answers the
    number of samples."""
    n = rng.choice(cfg.players)
    game = shangyou.new_game(cfg.game, players=n, seed=rng.getrandbits(48))
    learner = rng.randrange(n)
    seats = league.seat(n, learner, rng)           # None: a learner seat; else (name, bot)
    teachers = set(cfg.teachers)
    trail: dict[int, list] = {s: [] for s in range(n)
                              if seats[s] is None or seats[s][0] in teachers}
    while not game.over:
        seat = game.to_act
        view = game.view(seat)
        bot = seats[seat]
        if bot is None or seat in trail:
            view = whole_plays(view)                # whole plays, never steps of a choice
        moves = view["legal_moves"]
        if bot is not None:
            move = bot[1].choose(view)
            if seat in trail and len(moves) > 1 and is_play_decision(view):
                state, rows = features(view)         # a teacher: its moves are samples too
                trail[seat].append((state, rows[moves.index(move)]))
            game.apply(move)
            continue
        if len(moves) == 1 or not is_play_decision(view):
            game.apply(moves[0] if len(moves) == 1 else league.fallback(rng).choose(view))
            continue
        state, rows = features(view)
        if rng.random() < eps:
            i = rng.randrange(len(moves))
        else:
            q = net.q(state, rows)
            i = int(np.argmax(q))
        trail[seat].append((state, rows[i]))
        game.apply(moves[i])
    points = hand_points(game.result, n)
    count = 0
    for seat, steps in trail.items():
        for state, row in steps:
            replay.add(state, row, points[seat])
            count += 1
    return count


def _checkpoints(out: Path) -> list[Path]:
    return sorted((out / "checkpoints").glob("ckpt-*.pt"))


def latest_checkpoint(out: Path) -> Path | None:
    found = _checkpoints(Path(out))
    return found[-1] if found else None


def save_checkpoint(out: Path, learner: Learner, league: League, rng, nrng) -> Path:
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
    such as a lower learning rate). Answers the counters and the last evaluation."""
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
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(cfg.seed)
    nrng = np.random.default_rng(cfg.seed)
    torch.manual_seed(cfg.seed)
    learner = Learner(cfg, device)
    league = League(cfg, out)
    if ck is not None:
        learner.load(ck)
        for group in learner.opt.param_groups:
            group["lr"] = cfg.lr
        rng.setstate(ck["rng"])
        nrng.bit_generator.state = ck["nrng"]
        league.restore(ck["league"])
        log(f"resumed {ck_path} ({learner.hands} hands, {learner.steps} learning steps)")
    replay = Replay(cfg.replay)
    deadline = None if minutes is None else time.time() + minutes * 60
    net = learner.numpy()
    next_eval = (learner.hands // cfg.eval_every + 1) * cfg.eval_every
    next_snap = (learner.hands // cfg.snapshot_every + 1) * cfg.snapshot_every
    last = None
    start_hands, t_start = learner.hands, time.time()
    if ck is None:                                  # the curve starts at the untrained network
        last = _evaluate(cfg, learner, net, out, log)
    while (hands is None or learner.hands < hands) and (deadline is None
                                                        or time.time() < deadline):
        new = 0
        for _ in range(cfg.hands_per_round):
            new += play_hand(cfg, net, league, rng, epsilon(cfg, learner.hands), replay)
            learner.hands += 1
        learner.samples += new
        learner.learn(replay, new, nrng)
        if learner.hands // PROGRESS_EVERY != (learner.hands - cfg.hands_per_round) // \
                PROGRESS_EVERY:
            rate = (learner.hands - start_hands) / max(1e-9, time.time() - t_start)
            log(f"{learner.hands} hands, {learner.samples} samples, {learner.steps} steps, "
                f"loss {learner.loss:.3f}, {rate:.1f} hands/s")
        net = learner.numpy()
        league.current = net
        if learner.hands >= next_snap:
            league.add(net, learner.hands)
            next_snap += cfg.snapshot_every
        if learner.hands >= next_eval:
            last = _evaluate(cfg, learner, net, out, log)
            next_eval += cfg.eval_every
            save_checkpoint(out, learner, league, rng, nrng)
    if ck is not None and learner.hands == ck["hands"]:
        log(f"nothing to do: the run has played {learner.hands} hands")
        return {"hands": learner.hands, "samples": learner.samples, "steps": learner.steps,
                "checkpoint": str(ck_path), "evaluation": None}
    if last is None or last["hands"] != learner.hands:
        last = _evaluate(cfg, learner, net, out, log)
    path = save_checkpoint(out, learner, league, rng, nrng)
    log(f"checkpoint {path}")
    return {"hands": learner.hands, "samples": learner.samples, "steps": learner.steps,
            "checkpoint": str(path), "evaluation": last}


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
    parts = ", ".join(f"{r['players']}p {r['points']:.3f} (its level {r['baseline_points']:.3f})"
                      for r in rows)
    log(f"{learner.hands} hands, {learner.steps} steps, loss {learner.loss:.3f}: points a hand "
        f"against {cfg.eval_opponent}: {parts} [{time.time() - t0:.0f} s]")
    return {**rec, "rows": rows}


__all__ = ["run", "QNet", "Replay", "Learner", "play_hand", "latest_checkpoint",
           "CURVE_FIELDS"]
