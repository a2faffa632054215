"""The ``learned`` level: a network trained by self-play (``shangyou train``) scores every legal
move, and the bot plays the best. Inference is numpy only; training needs the ``train`` extra.

The shipped model (``models/pagat.npz``) was trained on ``zheng-shangyou/pagat`` at 4 and 5
players and plays that preset at any table size (3 to 8). Decisions it was not trained for (the
exchange between the hands of a match, other presets and games) are made by the ``heuristic``
level. ``learned:PATH`` loads another model file, and so does the level ``learned`` when the
environment variable ``SHANGYOU_LEARNED_MODEL`` names one (the web server reads it too).
See ``docs/training.md``.
"""

from __future__ import annotations

import json
import os
from functools import lru_cache
from pathlib import Path

from .base import BOTS, Bot

MODEL_ENV = "SHANGYOU_LEARNED_MODEL"
DEFAULT_MODEL = Path(__file__).resolve().parent / "models" / "pagat.npz"
LAYERS = ("ws", "wm", "b1", "w2", "b2", "w3", "b3", "w4", "b4")


def _numpy():
    try:
        import numpy
    except ModuleNotFoundError:
        raise ModuleNotFoundError("the learned bot needs numpy (numpy is missing): "
                                  "pip install 'shangyou[env]'", name="numpy") from None
    return numpy


class Network:
    """``Q(position, move)`` as numpy arrays: the position and each move go through their own
    first layer, the sums through two more hidden layers (ReLU) to one number per move."""

    def __init__(self, weights: dict, meta: dict | None = None):
        np = _numpy()
        self.w = {k: np.asarray(weights[k], dtype=np.float32) for k in LAYERS}
        self.meta = dict(meta or {})

    def q(self, state, rows):
        """The value of each move (one row of ``rows`` each) in the position ``state``."""
        np = _numpy()
        w = self.w
        h = np.maximum(rows @ w["wm"] + (state @ w["ws"] + w["b1"]), 0.0)
        h = np.maximum(h @ w["w2"] + w["b2"], 0.0)
        h = np.maximum(h @ w["w3"] + w["b3"], 0.0)
        return h @ w["w4"] + w["b4"]

    def save(self, path) -> None:
        """An ``.npz`` file: the arrays and the metadata as JSON text (no pickles)."""
        np = _numpy()
        arrays = {k: self.w[k] for k in LAYERS}
        arrays["meta"] = np.array(json.dumps(self.meta, sort_keys=True))
        tmp = Path(str(path) + ".tmp.npz")
        np.savez_compressed(tmp, **arrays)
        os.replace(tmp, path)

    @classmethod
    def load(cls, path) -> Network:
        np = _numpy()
        try:
            with np.load(path, allow_pickle=False) as data:
                weights = {k: data[k] for k in LAYERS}
                meta = json.loads(str(data["meta"])) if "meta" in data else {}
        except (OSError, KeyError, ValueError) as exc:
            raise ValueError(f"{path} is not a model of the learned bot: {exc}") from None
        from .learned_features import MOVE_DIM, STATE_DIM
        if weights["ws"].shape[0] != STATE_DIM or weights["wm"].shape[0] != MOVE_DIM:
            raise ValueError(f"{path}: a model for other features ({weights['ws'].shape[0]}, "
                             f"{weights['wm'].shape[0]}; these are {STATE_DIM}, {MOVE_DIM})")
        return cls(weights, meta)


@lru_cache(maxsize=8)
def load_model(path: str) -> Network:
    """A model file, loaded once per process."""
    return Network.load(path)


def model_path(param: str | None = None) -> Path:
    """The model of ``learned:PATH``, else of ``$SHANGYOU_LEARNED_MODEL``, else the shipped one."""
    return Path(param or os.environ.get(MODEL_ENV) or DEFAULT_MODEL)


class LearnedBot(Bot):
    """Plays the legal move of highest value under a trained network (see the module)."""

    name = "learned"
    takes_budget = True             # ``learned:PATH``: another model file

    def __init__(self, seed: int | None = None, budget: str | None = None,
                 network: Network | None = None):
        super().__init__(seed)
        if network is None:
            path = model_path(budget)
            if not path.is_file():
                raise ValueError(f"no model file {str(path)!r} for the learned bot")
            network = load_model(str(path))
        self.net = network
        games = network.meta.get("games") or ["zheng-shangyou/pagat"]
        self.games = frozenset(games)
        self._fallback: Bot | None = None   # the heuristic level, made when first needed

    def plays(self, view: dict) -> bool:
        """Whether the network makes this decision (else the heuristic level does)."""
        from .learned_features import MAX_SEATS, MIN_SEATS, is_play_decision
        return (view.get("game") in self.games and MIN_SEATS <= view["players"] <= MAX_SEATS
                and is_play_decision(view))

    def values(self, view: dict) -> list[float]:
        """The network's value of each legal move (points expected from the hand); where a
        play is chosen in steps, of each legal play of ``whole_plays(view)``."""
        from .learned_features import features, whole_plays
        state, rows = features(whole_plays(view))
        return [float(x) for x in self.net.q(state, rows)]

    def choose(self, view: dict) -> str:
        """The legal move of best value; where a play is chosen in steps, the best whole
        play (the game accepts it at any step)."""
        from .learned_features import whole_plays
        moves = view["legal_moves"]
        if len(moves) == 1:
            return moves[0]
        view = whole_plays(view)
        moves = view["legal_moves"]
        if not self.plays(view):
            if self._fallback is None:
                from .heuristic import HeuristicBot
                self._fallback = HeuristicBot(self.rng.getrandbits(32))
            return self._fallback.choose(view)
        values = self.values(view)
        return moves[max(range(len(moves)), key=values.__getitem__)]


BOTS["learned"] = LearnedBot
