"""The ``learned`` level: a network trained by self-play (``shangyou train``) scores every legal
move, and the bot plays the best. Inference is numpy only; training needs the ``train`` extra.

A model's inputs are the env's observation of the seat and the env's row of each move
(:mod:`shangyou.env.features`: one pipeline for the environments, the trainer and this bot).
Every decision of the game is a move the network scores, in the phases its model was trained on
(``meta["phases"]``): climbing plays and passes; Sheng ji's bids, burying, friend calls, throws
and plays.

The level plays each game with the model shipped for it (``models/*.npz``: each model's
metadata lists the presets it plays, :func:`shipped_models`). Where no model is shipped for a
game, or a decision is in a phase its model was not trained on (the exchange between the hands
of a climbing match), the ``heuristic`` level decides: see ``docs/training.md`` for which games
have a model. ``learned:PATH`` loads another model file, and so does the level ``learned`` when
the environment variable ``SHANGYOU_LEARNED_MODEL`` names one (the web server reads it too);
that model plays its games and the heuristic level the others.

A model of ``mode: rerank`` (:mod:`shangyou.train.distill`, trained on the search's values)
does not score every legal move: it re-ranks the search's few candidates (the heuristic's move
first) and leaves the heuristic's move only for a candidate it values more by the model's
``margin``; its metadata may name the table sizes it plays (``players``).

``models/pagat.npz`` is the one model of the first format (its own features,
:mod:`shangyou.bots.learned_features`; ``meta["features"]`` tells the two apart). A preset may
have several models, each for its table sizes: a model that names its sizes is tried before
``pagat.npz``, which plays every size (:func:`shipped_for`).
"""

from __future__ import annotations

import json
import os
import time
from functools import lru_cache
from pathlib import Path

from .base import BOTS, Bot, pause_gc, resume_gc
from .heuristic import is_sheng_ji

MODEL_ENV = "SHANGYOU_LEARNED_MODEL"
MODELS = Path(__file__).resolve().parent / "models"
DEFAULT_MODEL = MODELS / "pagat.npz"
LAYERS = ("ws", "wm", "b1", "w2", "b2", "w3", "b3", "w4", "b4")
DUEL_CAP_SECONDS = 0.25     # a guided search begins no world past this CPU time (LearnedBot._duel)


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
        self._fused: tuple | None = None    # q_rerank's first layer, made when first asked

    def q(self, state, rows):
        """The value of each move (one row of ``rows`` each) in the position ``state``."""
        np = _numpy()
        w = self.w
        h = np.maximum(rows @ w["wm"] + (state @ w["ws"] + w["b1"]), 0.0)
        h = np.maximum(h @ w["w2"] + w["b2"], 0.0)
        h = np.maximum(h @ w["w3"] + w["b3"], 0.0)
        return h @ w["w4"] + w["b4"]

    def q_rerank(self, state, rows, base: int = 0):
        """:meth:`q` of :func:`rerank_rows` (each row, then its difference from row
        ``base``) without making those rows: the first layer's two halves are summed once
        (equal to the long way up to float rounding)."""
        w = self.w
        fused = self._fused
        if fused is None:
            half = w["wm"].shape[0] // 2
            fused = self._fused = (w["wm"][:half] + w["wm"][half:], w["wm"][half:])
        np = _numpy()
        h = rows @ fused[0] + (state @ w["ws"] + w["b1"] - rows[base] @ fused[1])
        h = np.maximum(h, 0.0)
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
        state_dim, move_dim = input_dims(meta)
        if weights["ws"].shape[0] != state_dim or weights["wm"].shape[0] != move_dim:
            raise ValueError(f"{path}: a model for other features ({weights['ws'].shape[0]}, "
                             f"{weights['wm'].shape[0]}; these are {state_dim}, {move_dim})")
        return cls(weights, meta)

    @property
    def env_features(self) -> bool:
        """Whether the model reads the env's features (else the first format's)."""
        return self.meta.get("features") == "env-1"


def input_dims(meta: dict) -> tuple[int, int]:
    """The widths of a model's inputs (position, move) by its metadata."""
    if meta.get("features") == "env-1":
        from ..env.features import FAMILIES, dims
        family = meta.get("family")
        if family not in FAMILIES:
            raise ValueError(f"a model of an unknown family {family!r}")
        state_dim, move_dim = dims(family)
        if meta.get("inputs"):      # what the search weighs (a re-ranker's additions)
            extra_state, extra_move = extra_dims(meta["inputs"])
            state_dim, move_dim = state_dim + extra_state, move_dim + extra_move
        # a re-ranker reads each candidate's row and its difference from the heuristic's move
        return state_dim, move_dim * (2 if meta.get("mode") == "rerank" else 1)
    if meta.get("features") not in (None, "learned-1"):
        raise ValueError(f"a model of unknown features {meta.get('features')!r}")
    from .learned_features import MOVE_DIM, STATE_DIM
    return STATE_DIM, MOVE_DIM


@lru_cache(maxsize=1)
def shipped_models() -> dict[str, list[str]]:
    """Each preset with a shipped model -> the files of its models (``models/*.npz``, by the
    games in their metadata), in the order they are tried for a table (:func:`shipped_for`):
    the models that name their table sizes (``players``) first, by file name, then the one of
    the first format (``pagat.npz``), which plays every size."""
    out: dict[str, list[str]] = {}
    for path in sorted(MODELS.glob("*.npz")):
        for game in load_model(str(path)).meta.get("games") or ():
            out.setdefault(game, []).append(str(path))
    for paths in out.values():
        paths.sort(key=lambda p: not load_model(p).env_features)
    return out


def sizes_of(net: Network) -> list[int] | None:
    """The table sizes a model plays (None: every size). A model of the first format reads
    every size its features hold; its ``players`` are the sizes it was trained at."""
    return net.meta.get("players") if net.env_features else None


def shipped_for(game: str, players: int) -> str | None:
    """The file of the shipped model that plays ``game`` at ``players`` seats: the first of
    :func:`shipped_models` whose sizes hold it (None: the heuristic level plays it)."""
    for path in shipped_models().get(game, ()):
        sizes = sizes_of(load_model(path))
        if sizes is None or players in sizes:
            return path
    return None


@lru_cache(maxsize=8)
def load_model(path: str) -> Network:
    """A model file, loaded once per process."""
    return Network.load(path)


def model_path(param: str | None = None) -> Path | None:
    """The model of ``learned:PATH``, else of ``$SHANGYOU_LEARNED_MODEL``, else None (the
    shipped model of each game)."""
    given = param or os.environ.get(MODEL_ENV)
    return Path(given) if given else None


class LearnedBot(Bot):
    """Plays the legal move of highest value under a trained network (see the module)."""

    name = "learned"
    takes_budget = True             # ``learned:PATH``: another model file

    def __init__(self, seed: int | None = None, budget: str | None = None,
                 network: Network | None = None):
        super().__init__(seed)
        _numpy()                            # the level needs numpy: say so when made
        self.nets: dict[str, Network] | None = None       # game -> model; None: the shipped
        if network is None:
            path = model_path(budget)
            if path is not None:
                if not path.is_file():
                    raise ValueError(f"no model file {str(path)!r} for the learned bot")
                network = load_model(str(path))
        if network is not None:
            games = network.meta.get("games") or ["zheng-shangyou/pagat"]
            self.nets = {g: network for g in games}
        self.net = network
        self._fallback: Bot | None = None   # the heuristic level, made when first needed
        self._started = 0.0                 # process_time() at the current decision's start

    def network_for(self, game: str, players: int = 4) -> Network | None:
        """The model that plays ``game`` at ``players`` seats (None: the heuristic level plays
        it; a model given by file is the one for its games at every size, and
        :meth:`plays` reads its sizes)."""
        if self.nets is not None:
            return self.nets.get(game)
        path = shipped_for(game, players)
        return load_model(path) if path else None

    def _net(self, view: dict) -> Network | None:
        return self.network_for(str(view.get("game")), int(view.get("players") or 0))

    def plays(self, view: dict) -> bool:
        """Whether the network makes this decision (else the heuristic level does)."""
        net = self._net(view)
        if net is None:
            return False
        if not net.env_features:
            from .learned_features import MAX_SEATS, MIN_SEATS, is_play_decision
            return MIN_SEATS <= view["players"] <= MAX_SEATS and is_play_decision(view)
        from ..env.features import MAX_SEATS, MIN_SEATS
        phases = net.meta.get("phases") or ()
        sizes = net.meta.get("players")         # the table sizes a model plays (all: None)
        return (MIN_SEATS <= view["players"] <= MAX_SEATS and view.get("phase") in phases
                and (sizes is None or view["players"] in sizes))

    def values(self, view: dict) -> list[float]:
        """The network's value of each legal move (points expected from the hand); where a
        play is chosen in steps, of each legal play of ``whole_plays(view)``."""
        net = self._net(view)
        if net is None:
            raise ValueError(f"no model for {view.get('game')}")
        if net.env_features:
            from ..env.features import features, whole_plays
        else:
            from .learned_features import features, whole_plays
        view = whole_plays(view)
        if net.meta.get("mode") == "rerank":
            # a re-ranker values a move by its gain over the heuristic's: 0 for that move
            base = view["legal_moves"].index(self._heuristic_move(view))
            state, rows = rerank_features(view, view["legal_moves"], net.meta.get("inputs"))
            q = net.q_rerank(state, rows, base)
            return [float(x) for x in q - q[base]]
        state, rows = features(view)
        return [float(x) for x in net.q(state, rows)]

    def _heuristic_move(self, view: dict) -> str:
        if is_sheng_ji(view):
            from . import sheng_ji_heuristic as heur
            return heur.choose(view, self.rng)
        from . import climbing_heuristic
        return climbing_heuristic.choose(view, self.rng)

    def choose(self, view: dict) -> str:
        """The legal move of best value; where a play is chosen in steps, the best whole
        play (the game accepts it at any step)."""
        moves = view["legal_moves"]
        if len(moves) == 1:
            return moves[0]
        gc_on = pause_gc()        # a full collection can take 0.1-0.45 s (bots/base.py)
        self._started = time.process_time()
        try:
            return self._choose(view)
        finally:
            resume_gc(gc_on)

    def _choose(self, view: dict) -> str:
        from ..env.features import whole_plays
        view = whole_plays(view)
        moves = view["legal_moves"]
        if not self.plays(view):
            if self._fallback is None:
                from .heuristic import HeuristicBot
                self._fallback = HeuristicBot(self.rng.getrandbits(32))
            return self._fallback.choose(view)
        net = self._net(view)
        if net is not None and net.meta.get("mode") == "rerank":
            return self._rerank(net, view)
        values = self.values(view)
        return moves[max(range(len(moves)), key=values.__getitem__)]

    def _rerank(self, net: Network, view: dict) -> str:
        """A model of ``mode: rerank`` (:mod:`shangyou.train.distill`): the heuristic's move,
        unless the network values another of the search's candidates more by ``margin``."""
        moves = view["legal_moves"]
        plans = None            # the heuristic's plans (climbing): climbing_inputs reads them
        pairs = None            # Sheng ji: (move, play in a world) of each candidate
        if is_sheng_ji(view):
            from . import sheng_ji_search
            base = self._heuristic_move(view)
            if view.get("pending") or moves[0].startswith("pick "):
                return base
            pairs = sheng_ji_search.candidates(view, moves, base)
            cands = [m for m, _ in pairs]
        else:
            from . import climbing_heuristic
            from .climbing_search import Search
            base, plans = climbing_heuristic.decide(view)
            search = Search(view, self.rng)
            search.heuristic_first = True       # as the labeller's (pagat's order otherwise)
            # the set, valued one by one; no sampled world (see Search.candidates)
            cands = search.candidates(base, ordered=False, sampled=False)
        if len(cands) < 2:
            return cands[0] if cands else base      # a play that goes out at once
        state, rows = rerank_features(view, cands, net.meta.get("inputs"), plans)
        q = net.q_rerank(state, rows)
        duel = duel_playouts(net.meta, view["players"], view.get("game"),
                             (view.get("options") or {}).get("decks"))
        if duel and pairs is not None:
            return self._duel(net, view, pairs, q, duel)
        after = net.meta.get("duel_after_out")      # climbing: only once that many are out
        if duel and (after is None or len(view.get("finished") or ()) >= int(after)):
            return self._duel_climbing(net, search, cands, q, duel)
        best = int(q.argmax())
        return cands[best] if q[best] - q[0] > float(net.meta.get("margin", 0.0)) else base

    def _duel(self, net: Network, view: dict, pairs: list, q, playouts: int) -> str:
        """The network guides a small search (Sheng ji): its ``duel_top`` candidates valued
        above the heuristic's move by more than ``duel_margin`` are weighed against that move
        by the search over ``playouts`` playouts in all (``sheng_ji_search.weigh``: the same
        worlds for each, and another move only where it beats the heuristic's, paired), and
        no world begun past ``duel_cap_seconds`` of CPU (:data:`DUEL_CAP_SECONDS`) from the
        decision's start: the level's bound holds in the largest hands."""
        from . import sheng_ji_search
        chosen = _guided(net, q)
        if not chosen:
            return pairs[0][0]
        try:
            return sheng_ji_search.weigh(view, [pairs[0]] + [pairs[i] for i in chosen],
                                         self.rng, iterations=playouts,
                                         cpu_start=self._started, cpu_cap=_cap(net))
        except ValueError:      # no world can be dealt from this view: the heuristic's move,
            return pairs[0][0]  # as the search level answers (sheng_ji_search.choose)

    def _duel_climbing(self, net: Network, search, cands: list[str], q, playouts: int) -> str:
        """The climbing games' guided search: as :meth:`_duel`, the candidates the network
        chooses weighed against the heuristic's move (``cands[0]``) by the climbing search
        (``Search.run`` over those moves: the same worlds for each, racing, and another move
        only where it beats the heuristic's by the search's own margin), under the same CPU
        cap from the decision's start. With ``duel_after_out`` N in the model's metadata it
        searches only once N seats are out (pagat: once the points are settled, where only
        the place is left to play for), the re-ranker deciding alone before."""
        chosen = _guided(net, q)
        if not chosen:
            return cands[0]
        search.started = self._started
        try:
            return search.run(playouts, None, cands=[cands[0]] + [cands[i] for i in chosen],
                              cpu_cap=_cap(net))
        except ValueError:      # no world can be dealt from this view
            return cands[0]


def _cap(net: Network) -> float:
    """CPU seconds from a decision's start past which a guided search begins no world."""
    return float(net.meta.get("duel_cap_seconds", DUEL_CAP_SECONDS))


def _guided(net: Network, q) -> list[int]:
    """The candidates a guided search weighs against the heuristic's move (index 0): the
    network's ``duel_top`` best others, each valued above that move by more than
    ``duel_margin``."""
    margin = float(net.meta.get("duel_margin", 0.0))
    top = int(net.meta.get("duel_top", 1))
    gain = q - q[0]
    order = sorted(range(1, len(q)), key=lambda i: -gain[i])
    return [i for i in order[:top] if gain[i] > margin]


def duel_playouts(meta: dict, players: int, game: str | None = None,
                  decks: int | None = None) -> int:
    """The playouts a model's guided search spends at a table of ``players`` (0: no search).
    ``duel_playouts`` is one count for every size, or a count per size (``{"5": 64, "6": 32}``;
    a size not named does not search), where ``"4x2"`` names a size and a pack count and comes
    before ``"4"`` (two packs make each playout dearer); ``duel_players``, when given, also
    limits the sizes, and ``duel_games`` the games (a model that plays pagat and pagat-teams
    may search in one)."""
    games = meta.get("duel_games")
    if games is not None and game not in games:
        return 0
    duel = meta.get("duel_playouts") or 0
    if isinstance(duel, dict):
        duel = duel.get(f"{players}x{decks}", duel.get(str(players), 0))
    sizes = meta.get("duel_players")
    if sizes is not None and players not in sizes:
        return 0
    return int(duel or 0)


def extra_dims(inputs: str) -> tuple[int, int]:
    """The widths a re-ranker's ``inputs`` add to the position and to each candidate."""
    if inputs == "sj-search-1":
        from . import sheng_ji_inputs
        return sheng_ji_inputs.POS, sheng_ji_inputs.CAND
    if inputs == "climb-heur-1":
        from . import climbing_inputs
        return climbing_inputs.POS, climbing_inputs.CAND
    raise ValueError(f"a model of unknown inputs {inputs!r}")


def rerank_features(view: dict, cands: list[str], inputs: str | None = None, plans=None):
    """A re-ranker's position and candidates' rows: the env's features, then, where the model
    names ``inputs``, what the search weighs (``sj-search-1``:
    :mod:`shangyou.bots.sheng_ji_inputs`) or the heuristic's plans (``climb-heur-1``:
    :mod:`shangyou.bots.climbing_inputs`; ``plans``, the heuristic object that chose the
    move, when the caller has it). The distillation's fit computes them with this function
    from the labelled views, the bot in play: one pipeline."""
    np = _numpy()
    from ..env.features import features
    state, rows = features(view, cands)
    if not inputs:
        return state, rows
    extra_dims(inputs)
    if inputs == "climb-heur-1":
        from .climbing_inputs import heuristic_inputs
        pos, extra = heuristic_inputs(view, cands, plans)
    else:
        from .sheng_ji_inputs import search_inputs
        pos, extra = search_inputs(view, cands)
    return (np.concatenate([state, pos]).astype(np.float32),
            np.concatenate([rows, extra], axis=1).astype(np.float32))


def rerank_rows(rows, base: int = 0):
    """A re-ranker's input for each candidate: its row, then its difference from the row of
    the heuristic's move (``base``), so that what a candidate does otherwise is read directly."""
    np = _numpy()
    return np.concatenate([rows, rows - rows[base:base + 1]], axis=1)


BOTS["learned"] = LearnedBot
