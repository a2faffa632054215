"""The batch engine: N hands of a climbing preset or of Sheng ji stepped in C, in one call per
step.

>>> from shangyou.env.batch_engine import BatchEngine, available
>>> if available():
...     eng = BatchEngine("zheng-shangyou/pagat", n_envs=4, seed=0)
...     obs, mask, seat = eng.observe()
...     obs, mask, seat, rewards, done = eng.step(eng.random_actions())

``BatchEngine`` (``mode="aec"``) is :class:`~shangyou.env.batch.BatchSim` in C: row ``i`` is
``raw_env(preset)`` reset with ``seed + i``, showing the decision of the seat to act, a
finished hand followed at once by the next. With ``mode="single"`` a row is the Gymnasium
single env (``single_agent(preset, seat, opponents="random")``) reset with ``seed + i`` and
stepped with next-step autoreset: what :class:`~shangyou.env.vector.ShangyouVectorEnv` runs
when the engine supports its arguments (:func:`vector_config`).

The C code (``games/climbing/_core_batch.c``, in the climbing core: it lists the plays with the
core's own generator) deals with Python's Mersenne Twister, lists, sorts and pages the
candidates, plays the moves and writes the observations of
:class:`~shangyou.env.climbing_encoding.ClimbingEncoder` into arrays made here, the GIL
released, the rows split over ``threads`` threads. The Python environments stay the
reference: ``tests/test_batch_engine.py`` compares every observation, mask, reward and flag.

Supported: ``zheng-shangyou/pagat`` (3 to 8 players, one or two packs, either
``twos_in_sequences``), ``zheng-shangyou/pagat-teams`` (4 and 6 players),
``zheng-shangyou/owen`` (2, 3, 4, 6 players), ``zheng-shangyou/winner`` (one or two packs,
every option) and ``zheng-fen`` (3 to 6 players), one hand per episode (:func:`config`
answers None for anything else: matches; the callers then use the Python path).

Sheng ji (``sheng-ji`` 4 and 6 players, ``sheng-ji/single-deck``, ``sheng-ji/zhao-pengyou``)
has its own C code in its own core, ``games/sheng_ji/_core_batch.c`` and ``_core_row.c``
(whole hands: the deal's bids, the bury, the calls of friends, the play),
behind the same class: :mod:`~shangyou.env.sheng_ji_batch` says what it plays and makes the
hand's result; both engines share the generator and the thread pool
(``games/_batch_pool.h``) and the ``Batch`` type's plumbing (``games/_batch_type.h``).
``tests/test_batch_engine_sheng_ji.py`` compares it.
"""

from __future__ import annotations

import os
import random
from typing import Any

import numpy as np

from ..games.climbing import core
from .aec import DEFAULT_CANDIDATES, DEFAULT_MAX_STEPS, ShangyouAEC, check_max_steps
from .encoding import _EXTRA, _KIND_AT, CAND_WIDTH
from .climbing_encoding import ClimbingEncoder
from . import sheng_ji_batch
from .sheng_ji_encoding import ShengJiEncoder

_Batch: Any = getattr(core._core, "Batch", None) if core.AVAILABLE else None

#: the largest seed the engine takes (Python's generators take any int)
MAX_SEED = 2**64 - 1


def available() -> bool:
    """Is the engine built and on (the compiled core, and not ``SHANGYOU_NO_C``)?"""
    return _Batch is not None and core.ACTIVE and not os.environ.get("SHANGYOU_NO_C")


def config(preset: str, players: int | None = None, **options) -> dict | None:
    """What the engine needs to play ``preset`` with these options, or None where it does
    not play it (another family, two packs of Owen or Zheng Fen, an exchange or a leader the
    engine does not deal, another scoring) or is not :func:`available`."""
    if not available():
        return None
    from ..cards import parse
    from ..games.zheng_shangyou.owen import OwenFamily
    from ..games.zheng_shangyou.pagat import PagatFamily
    from ..games.zheng_fen.family import ZhengFenFamily
    from ..games.zheng_shangyou.winner import WinnerFamily
    from ..registry import preset_info, resolve
    try:
        info = preset_info(preset)
        key, module = resolve(info["name"])
        opts = dict(options)
        if players is not None:
            opts["players"] = players
        rules = module.build(key, opts)
    except (ValueError, TypeError, KeyError):
        return None
    if key.startswith("sheng-ji"):             # the Sheng ji engine (sheng_ji_batch.py)
        from . import sheng_ji_batch
        return sheng_ji_batch.config(info["name"], rules)
    fam = rules.family
    kinds = {PagatFamily: 0, OwenFamily: 1, WinnerFamily: 2, ZhengFenFamily: 3}
    family = kinds.get(type(fam))
    if (family is None or rules.decks not in (1, 2)
            or (rules.decks == 2 and family not in (0, 2)) or (not rules.jokers and family != 2)
            or rules.finish_trick != (family == 3) or not 2 <= rules.players <= 8):
        return None
    n = rules.players
    deck = 54 if rules.jokers else 52
    total = deck * rules.decks
    dealt = total if rules.deal_count is None else min(total, rules.deal_count * n)
    teams = tuple(map(tuple, rules.teams)) if rules.teams else None
    if teams is None and rules.scoring in ("places", "cards-left", "trick-points"):
        pass
    elif teams == ((0, 2), (1, 3)) and rules.scoring == "places":
        pass
    elif teams == ((0, 2, 4), (1, 3, 5)) and rules.scoring == "teams6":
        pass
    else:
        return None
    if rules.scoring == "places" and tuple(rules.place_points) != (2, 1):
        return None
    leader_card = -1
    if rules.first_leader.startswith("holder:"):
        leader_card = parse(rules.first_leader[7:])[0]
    elif rules.first_leader not in ("dealer", "random-card"):
        return None
    wopts = (5, 0, 0)
    if family == 2:
        wopts = (fam.min_straight, int(fam.straight_needs_higher_rank), int(fam.bomb == "quad"))
    return {"preset": info["name"], "players": rules.players,
            "seq_top": fam.seq_top if family == 0 else 11, "family": family,
            "dealt": dealt, "leader_card": leader_card, "deck": deck, "packs": rules.decks,
            "cards_left": rules.scoring == "cards-left", "wopts": wopts,
            "teams": None if teams is None else tuple(s % 2 for s in range(rules.players)),
            "team_seats": teams, "teams6": rules.scoring == "teams6",
            "random_card": rules.first_leader == "random-card"}


def _layout(enc: ClimbingEncoder) -> tuple:
    o = enc.offsets
    return (o["played"], o["last"], o["counts"], o["finished"], o["passed"], o["last_seat"],
            o["partners"], o["leading"], o["phase"], o["page"], o["candidates"], CAND_WIDTH,
            _KIND_AT["pass"], _KIND_AT["play"], _KIND_AT["more"], _EXTRA, enc.size,
            o["won_points"], o["table_points"])


def _seed_of(seed) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"a seed is a whole number, not {seed!r}")
    s = abs(int(seed))                 # random.Random(s) seeds with abs(s)
    if s > MAX_SEED:
        raise ValueError(f"the batch engine takes seeds below 2**64, not {seed}")
    return s


class BatchEngine:
    """``n_envs`` hands of a climbing preset in C (see the module's docstring).

    ``mode="aec"``: :meth:`observe` gives ``(obs [n, size], mask [n, K], seat [n])`` of the
    seat to act in each row; :meth:`step` ``(obs, mask, seat, rewards [n, players], done [n])``
    with :attr:`truncated` set for rows cut off at ``max_steps``. ``mode="single"``: the
    learner ``seat`` against random opponents; :meth:`step` fills :attr:`obs`, :attr:`mask`,
    :attr:`rewards` ``[n]``, :attr:`terminated`, :attr:`truncated`, :attr:`illegal`.
    The arrays are the engine's own, overwritten by the next call. ``threads``: 1 to 8."""

    def __init__(self, preset: str = "zheng-shangyou/pagat", n_envs: int = 1,
                 seed: int | None = 0, players: int | None = None,
                 max_candidates: int = DEFAULT_CANDIDATES,
                 max_steps: int | None = DEFAULT_MAX_STEPS, threads: int = 1,
                 mode: str = "aec", seat: int = 0, strict: bool = False,
                 illegal_reward: float = -1.0, _listing_limit: int = 4096, **options):
        if isinstance(n_envs, bool) or not isinstance(n_envs, int) or n_envs < 1:
            raise ValueError(f"n_envs must be a whole number of at least 1, not {n_envs!r}")
        if mode not in ("aec", "single"):
            raise ValueError(f"mode must be 'aec' or 'single', not {mode!r}")
        if max_candidates < 2:
            raise ValueError("max_candidates must be at least 2")
        cfg = config(preset, players, **options)
        if cfg is None:
            raise ValueError(f"the batch engine does not play {preset!r} with "
                             f"players={players!r} and {options!r}"
                             + ("" if available() else " (it is not built, or SHANGYOU_NO_C)"))
        self.preset = cfg["preset"]
        self.players = n = cfg["players"]
        self.n_envs = n_envs
        self.mode = mode
        self.single = mode == "single"
        if self.single and not 0 <= seat < n:
            raise ValueError(f"no seat {seat} at a table of {n}")
        self.seat = seat
        self.max_candidates = k = max_candidates
        self.max_steps = check_max_steps(max_steps)
        self._cfg = cfg
        self._sheng_ji = cfg.get("sheng_ji", False)
        enc: ShengJiEncoder | ClimbingEncoder
        self.encoder = enc = ShengJiEncoder(n, k) if self._sheng_ji else ClimbingEncoder(n, k)
        self.observation_slices = dict(enc.slices)
        self.obs_size = enc.size
        self.obs = np.zeros((n_envs, enc.size), np.int8)
        self.mask = np.zeros((n_envs, k), np.int8)
        self.rewards = np.zeros(n_envs if self.single else (n_envs, n), np.float64)
        self.terminated = np.zeros(n_envs, np.bool_)
        self.truncated = np.zeros(n_envs, np.bool_)
        self.seats = np.zeros(n_envs, np.int64)
        self.illegal = np.zeros(n_envs, np.bool_)
        self._actions = np.zeros(n_envs, np.int64)
        arrays = (self.obs, self.mask, self.rewards, self.terminated, self.truncated,
                  self.seats, self.illegal)
        if isinstance(enc, ShengJiEncoder):
            self._eng = sheng_ji_batch.Batch(
                n_envs, n, k, sheng_ji_batch.layout(enc), arrays, int(self.single), seat,
                self.max_steps or 0, bool(strict), float(illegal_reward), threads,
                cfg["numbers"])
        else:
            self._eng = _Batch(n_envs, n, cfg["seq_top"], cfg["teams"], k, _layout(enc),
                               arrays, int(self.single), seat, self.max_steps or 0,
                               bool(strict), float(illegal_reward), threads, _listing_limit,
                               cfg["teams6"], cfg["random_card"], cfg["family"], cfg["dealt"],
                               cfg["leader_card"], cfg["deck"], cfg["cards_left"],
                               *cfg["wopts"], cfg["packs"])
        self._threads = threads
        self.teams = cfg.get("team_seats")
        self._trick_points = cfg.get("family") == 3
        self._options = dict(options)
        #: aec mode: rows whose hand reached a decision of more than 4,096 plays (the env
        #: then lists one play per reading, which the engine does not), played by a
        #: ShangyouAEC replayed from the hand's seed and ids until the hand ends: row ->
        #: (env, steps of the hand)
        self._py: dict[int, list] = {}
        #: how many hands (aec) or episodes (single, see ShangyouVectorEnv) went to Python
        self.escapes = 0
        self._eng.seed_actions(0 if seed is None else _seed_of(seed))
        if seed is not None:
            self.reset([seed + i for i in range(n_envs)])

    @property
    def threads(self) -> int:
        return self._threads

    @threads.setter
    def threads(self, value: int) -> None:
        self._eng.set_threads(value)
        self._threads = value

    def reset(self, seeds: list, rows: list[int] | None = None) -> None:
        """Restart ``rows`` (default: every row, one seed each) from their seeds: the seed of
        ``ShangyouAEC.reset`` (aec) or ``SingleAgentEnv.reset`` (single); a seed None deals
        the next hand of the row's seed stream (the row must have had a seed)."""
        rows = list(range(self.n_envs)) if rows is None else [int(i) for i in rows]
        seeds = [None if s is None else _seed_of(s) for s in seeds]
        if len(seeds) != len(rows):
            raise ValueError(f"give one seed per row ({len(rows)}), not {len(seeds)}")
        for i, s in zip(rows, seeds):
            kept = self._py.pop(i, None) if not self.single else None
            if kept is not None and s is None:          # the stream goes on from Python
                self._eng.resume(i, kept[0]._seeder.getstate())
        self._eng.reset(seeds, rows)
        if not self.single:
            self._take_escaped()

    def observe(self):
        """``(obs, mask, seat)`` of the decisions now (aec mode)."""
        return self.obs, self.mask, self.seats

    def random_actions(self, out: np.ndarray | None = None) -> np.ndarray:
        """One uniformly random legal id per row (MORE counts as an id), drawn in C from the
        engine's own generator (seeded with ``seed``); into ``out`` if given."""
        out = self._actions if out is None else out
        self._eng.random_actions(out)
        return out

    def step(self, actions):
        """Play one id in every row (in single mode a row waiting for its autoreset ignores
        it). aec: returns ``(obs, mask, seat, rewards, done)`` as :meth:`BatchSim.step`; an
        id the mask forbids raises ValueError naming the game, before any row moves."""
        acts = np.ascontiguousarray(actions, dtype=np.int64)
        if acts.shape != (self.n_envs,):
            raise ValueError(f"need {self.n_envs} actions, got shape {acts.shape}")
        if self.single:
            self._eng.step(acts)
            return None
        k = self.max_candidates
        py = sorted(self._py)
        for i in py:                     # the C rows are checked in C, before any row moves
            a = int(acts[i])
            if not (0 <= a < k and self.mask[i, a]):
                raise ValueError(f"illegal action {a} in game {i}")
        self._eng.step(acts)
        for i in py:
            self._step_py(i, int(acts[i]))
        self._take_escaped()
        return self.obs, self.mask, self.seats, self.rewards, self.terminated

    # ------------------------------------------------ hands played in Python (aec mode)
    def _take_escaped(self) -> None:
        """Rows the engine handed over since the last call: each hand replayed by a
        ShangyouAEC from the seed stream's state at its start and the ids since."""
        while True:
            rows = self._eng.take_escaped()
            if not rows:
                return
            for i in rows:
                state, ids = self._eng.escape_state(i)
                env = ShangyouAEC(self.preset, self.players, max_candidates=self.max_candidates,
                                  max_steps=None, **self._options)
                env._seeder = random.Random()
                env._seeder.setstate(state)
                env.reset()
                for a in ids:
                    env.step(a)
                self._py[i] = [env, len(ids)]
                self.escapes += 1
                self._write_py(i)

    def _write_py(self, i: int) -> None:
        env = self._py[i][0]
        o = env.observe(env.agent_selection)
        self.obs[i] = o["observation"]
        self.mask[i] = o["action_mask"]
        self.seats[i] = env.agent_seat[env.agent_selection]

    def _step_py(self, i: int, a: int) -> None:
        """BatchSim.step of a row played in Python; at the hand's end the row goes back to C,
        which deals the next hand from the stream (and may hand it over again)."""
        kept = self._py[i]
        env = kept[0]
        env.step(a)
        kept[1] += 1
        self.rewards[i] = 0
        self.terminated[i] = self.truncated[i] = False
        over = all(env.terminations.values())
        if over:
            self.rewards[i] = [env.rewards[p] for p in env.possible_agents]
            self.terminated[i] = True
        elif self.max_steps is not None and kept[1] >= self.max_steps:
            self.terminated[i] = self.truncated[i] = True
        else:
            self._write_py(i)
            return
        del self._py[i]
        self._eng.resume(i, env._seeder.getstate())

    def hand(self, i: int) -> tuple:
        """``(order, points, to_act, steps, team points or None)`` of row ``i``'s hand
        (to_act -1 once over); Sheng ji: the numbers of its finished hand's scoring, or None
        (:func:`~shangyou.env.sheng_ji_batch.result` reads them)."""
        return self._eng.hand(i)

    def result(self, i: int) -> dict:
        """The game's ``result`` of row ``i``'s finished hand (single mode: the hand that just
        ended), as ``ClimbingGame`` (or ``ShengJiGame``) makes it for one hand."""
        if self._sheng_ji:
            return sheng_ji_batch.result(self._eng, self._cfg, i)
        order, points, _, _, tp = self._eng.hand(i)
        res: dict[str, Any] = {"order": order, "points": points, "scores": list(points),
                               "hands": 1}
        if self.teams:
            res["team_scores"] = list(tp)
            res["teams"] = [list(t) for t in self.teams]
        if self._trick_points:        # one hand of a point game: the most points win
            best = max(points)
            res["winners"] = [s for s in range(self.players) if points[s] == best]
            res["winner"] = res["winners"][0] if len(res["winners"]) == 1 else None
            return res
        res["winner"] = order[0]
        if self.teams:
            res["team_points"] = tp
        return res


def vector_config(preset: str, kwargs: dict) -> dict | None:
    """The engine's arguments for a :class:`~shangyou.env.vector.ShangyouVectorEnv` of
    ``preset`` with these keyword arguments, or None where the Python rows must play it
    (opponents other than ``"random"``, a match, rendering, a preset :func:`config` declines)."""
    kw = dict(kwargs)
    opp = kw.pop("opponents", "greedy")
    players = kw.pop("players", None)
    cfg = config(preset, players, **{k: v for k, v in kw.items() if k not in _SINGLE_ARGS})
    if cfg is None:
        return None
    seat = kw.pop("seat", 0)
    if isinstance(opp, dict):
        if set(opp) != set(range(cfg["players"])) - {seat}:
            return None
        opp = set(opp.values())
    elif isinstance(opp, (list, tuple)):
        if len(opp) != cfg["players"]:
            return None
        opp = {o for s, o in enumerate(opp) if s != seat}
    else:
        opp = {opp}
    if opp != {"random"} or kw.pop("render_mode", None) is not None or kw.pop("match", False):
        return None
    out = {"players": players, "seat": seat}
    for name in ("max_steps", "max_candidates", "strict", "illegal_reward"):
        if name in kw:
            out[name] = kw.pop(name)
    out.update(kw)                       # the preset's options
    return out


_SINGLE_ARGS = {"seat", "max_steps", "max_candidates", "strict", "illegal_reward",
                "render_mode", "match"}
