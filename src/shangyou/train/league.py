"""The actors of a training run: they play hands with a numpy copy of the network and answer
the samples (position, chosen move, return) of the learner's seats.

Each seat but one learner seat draws an opponent by the weights of ``TrainConfig.opponents``:
``self`` is one more learner seat (its moves are samples too), ``snapshot`` one of the latest
``league_size`` snapshots of the network (before the first one, ``self``), any other name a bot
level (``make_bot``); the moves of the levels named in ``TrainConfig.teachers`` are samples too,
each with one other legal move drawn at random (a *negative*: the imitation loss of
:mod:`shangyou.train.dmc` asks the teacher's move to score above it).
Every decision with more than one legal move is a sample: plays, passes, bids, burying, friend
calls (the one loop ``to_act``/``legal_moves``/``apply``).

:class:`Actor` needs no torch and no Ray: the learner (:mod:`shangyou.train.dmc`) runs one in
its own process (``--actors 1``) or several as Ray actors (``--actors N``), each given the
network's weights and the round's seed, so a run's samples depend on its seed, not on which
actor finished first.
"""

from __future__ import annotations

import hashlib
import random

import numpy as np

import shangyou

from ..bots import make_bot
from ..bots.learned import LearnedBot, Network
from ..env.features import features, rewards_of, whole_plays


def round_seed(*parts) -> int:
    """A seed from the run's seed and the round's place (stable across processes)."""
    text = ":".join(map(str, ("shangyou-train", *parts)))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


def reward_scale(game: str) -> float:
    """Returns are scaled to a few units: Zheng Fen's card points (0 to 100 a hand) by 1/20."""
    return 0.05 if game.startswith("zheng-fen") else 1.0


def deal(game: str, n: int, seed: int):
    """A new hand of ``game`` at ``n`` seats, with the fewest packs that table size allows
    (zheng-shangyou/winner: one pack to 4 players, two above)."""
    from ..errors import UnknownOption
    try:
        return shangyou.new_game(game, players=n, seed=seed)
    except UnknownOption:
        if "decks" not in shangyou.preset_info(game)["defaults"]:
            raise
    for decks in (2, 3):
        try:
            return shangyou.new_game(game, players=n, seed=seed, decks=decks)
        except UnknownOption:
            pass
    return shangyou.new_game(game, players=n, seed=seed, decks=4)


def epsilon_at(cfg, hands: int) -> float:
    start, end = cfg.epsilon
    f = min(1.0, hands / max(1, cfg.explore_hands))
    return start + (end - start) * f


class Actor:
    """Plays hands of a run (see the module); made from the run's configuration as a dict
    (so a Ray actor can be made from it)."""

    def __init__(self, cfg: dict):
        from .config import TrainConfig
        self.cfg = TrainConfig.from_dict(cfg)
        self.snapshots: dict[int, Network] = {}

    def play(self, weights: dict, snapshots: dict, start: int, hands: int, seed: int) -> dict:
        """``hands`` hands from the run's hand ``start``: the samples as arrays ``s``, ``m``,
        ``g`` (positions, moves, returns), and the phases seen. ``snapshots``: snapshot number
        -> weights (those already sent may be None: kept here)."""
        cfg = self.cfg
        net = Network(weights["w"], weights["meta"])
        for k, w in snapshots.items():
            if w is not None:
                self.snapshots[k] = Network(w["w"], w["meta"])
        for k in [k for k in self.snapshots if k not in snapshots]:
            del self.snapshots[k]
        pool = [self.snapshots[k] for k in sorted(snapshots) if k in self.snapshots]
        rng = random.Random(seed)
        states, moves, returns, negs, has = [], [], [], [], []
        phases: set[str] = set()
        s_dim, m_dim = net.w["ws"].shape[0], net.w["wm"].shape[0]
        none = np.zeros(m_dim, np.float32)
        for h in range(hands):
            eps = epsilon_at(cfg, start + h)
            for s, m, g, ph, neg in self.play_hand(net, pool, rng, eps):
                states.append(s)
                moves.append(m)
                returns.append(g)
                negs.append(none if neg is None else neg)
                has.append(0.0 if neg is None else 1.0)
                phases.add(ph)
        if not states:
            return {"s": np.zeros((0, s_dim), np.float32), "m": np.zeros((0, m_dim), np.float32),
                    "g": np.zeros(0, np.float32), "n": np.zeros((0, m_dim), np.float32),
                    "e": np.zeros(0, np.float32), "phases": sorted(phases), "hands": hands}
        return {"s": np.stack(states), "m": np.stack(moves),
                "g": np.asarray(returns, dtype=np.float32), "n": np.stack(negs),
                "e": np.asarray(has, dtype=np.float32), "phases": sorted(phases),
                "hands": hands}

    def seats(self, n: int, learner: int, pool: list, rng: random.Random) -> list:
        """One hand's seats: None for a learner seat, else ``(name, bot)``."""
        cfg = self.cfg
        names = list(cfg.opponents)
        weights = [cfg.opponents[k] for k in names]
        seats: list = []
        for s in range(n):
            if s == learner:
                seats.append(None)
                continue
            name = rng.choices(names, weights)[0]
            if name == "snapshot" and pool:
                seats.append((name, LearnedBot(rng.getrandbits(32), network=rng.choice(pool))))
            elif name in ("self", "snapshot"):
                seats.append(None)
            else:
                seats.append((name, make_bot(name, seed=rng.getrandbits(32))))
        return seats

    def play_hand(self, net: Network, pool: list, rng: random.Random, eps: float) -> list:
        """One hand: ``(position, move row, return, phase, negative row or None)`` of every
        sampled decision."""
        cfg = self.cfg
        game_name = rng.choice(cfg.games)
        sizes = [n for n in cfg.players if n in shangyou.preset_info(game_name)["players"]]
        n = rng.choice(sizes)
        game = deal(game_name, n, rng.getrandbits(48))
        learner = rng.randrange(n)
        seats = self.seats(n, learner, pool, rng)
        teachers = set(cfg.teachers)
        trail: dict[int, list] = {s: [] for s in range(n)
                                  if seats[s] is None or seats[s][0] in teachers}
        while not game.over:
            seat = game.to_act
            view = game.view(seat)
            bot = seats[seat]
            if len(view["legal_moves"]) == 1:
                game.apply(view["legal_moves"][0])
                continue
            if seat in trail:
                view = whole_plays(view)            # whole plays, never steps of a choice
            moves = view["legal_moves"]
            if bot is not None:
                move = bot[1].choose(view)
                if seat in trail and len(moves) > 1:
                    state, rows = features(view)     # a teacher: its moves are samples too
                    i = moves.index(move)
                    j = rng.randrange(len(moves) - 1)
                    j += j >= i                      # another legal move
                    trail[seat].append((state, rows[i], view["phase"], rows[j]))
                game.apply(move)
                continue
            state, rows = features(view)
            if rng.random() < eps:
                i = rng.randrange(len(moves))
            else:
                i = int(np.argmax(net.q(state, rows)))
            trail[seat].append((state, rows[i], view["phase"], None))
            game.apply(moves[i])
        scale = reward_scale(game_name)
        points = rewards_of(game)
        return [(s, m, points[seat] * scale, ph, neg) for seat, steps in trail.items()
                for s, m, ph, neg in steps]
