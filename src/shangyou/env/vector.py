"""Gymnasium vector environment: ``num_envs`` single-agent games stepped in one loop.

``gymnasium.make_vec("shangyou/pagat-v0", num_envs=8, vectorization_mode="vector_entry_point")``
(or with no ``vectorization_mode``: the registered ``vector_entry_point`` is Gymnasium's
default when there is one) gives a :class:`ShangyouVectorEnv`. Row ``i`` is exactly the
single environment ``gymnasium.make(id, **kwargs)`` reset with ``seed + i`` and stepped with
Gymnasium's next-step autoreset, as ``SyncVectorEnv`` steps it (tested, infos included).

>>> import gymnasium, shangyou.env
>>> v = gymnasium.make_vec("shangyou/pagat-v0", num_envs=2, vectorization_mode="vector_entry_point")
>>> obs, infos = v.reset(seed=0)
>>> obs["observation"].shape[0], obs["action_mask"].shape
(2, (2, 128))

Why not :class:`~shangyou.env.batch.BatchSim`: it observes whichever seat is to act and never
plays a bot, while a single-agent row plays one learner seat against bots (or policy
callables) until the learner acts again. So each row keeps a
:class:`~shangyou.env.single.SingleAgentEnv` (its game, its bots, its seed stream) and this
class steps them in one loop, without the per-row checking wrappers and without
``SyncVectorEnv``'s generic batching: each row's observation and mask are copied straight into
the batch arrays.

With random opponents on a preset the batch engine plays (``batch_engine.vector_config``:
every climbing preset at one pack, and every Sheng ji preset), the rows are played in C
instead (:class:`~shangyou.env.batch_engine.BatchEngine`, ``mode="single"``): the same observations,
masks, rewards, flags and infos (tested against the single envs), one C call per step.
``engine="python"`` keeps the Python rows; ``threads`` sets the engine's threads.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np

try:
    from gymnasium.vector import AutoresetMode, VectorEnv
    from gymnasium.vector.utils import batch_space
except ModuleNotFoundError as e:      # the env extra names itself
    from . import missing_extra
    raise missing_extra(e.name) from None

from . import batch_engine
from .single import SingleAgentEnv


class ShangyouVectorEnv(VectorEnv):
    """``num_envs`` :class:`~shangyou.env.single.SingleAgentEnv` rows of one preset; keyword
    arguments (``seat``, ``opponents``, ``players``, ``max_steps``, ``max_candidates``,
    ``strict``, preset options) go to every row, as ``make_vec(..., "sync")`` passes them.

    Observations are the single env's dict, batched: ``obs["observation"]`` is int8
    ``[num_envs, obs_size]`` and ``obs["action_mask"]`` int8 ``[num_envs, K]`` (the single
    env's mask is in its observation, so the batch's is too). Autoreset is next-step
    (``metadata["autoreset_mode"]``): after a row terminates or truncates, the next
    ``step`` resets that row (``reset()`` without a seed: the next hand of its seed stream)
    and ignores its action; that row then has reward 0 and neither flag set.
    ``copy=False`` returns the env's own observation arrays (overwritten by the next call)
    instead of copies."""

    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(self, num_envs: int = 1, preset: str = "zheng-shangyou/pagat",
                 copy: bool = True, engine: str = "auto", threads: int = 1, **kwargs):
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be a whole number of at least 1, not {num_envs!r}")
        if kwargs.get("render_mode") is not None:
            raise ValueError("the vector env renders nothing: render one row's game "
                             "(envs[i].render()) instead")
        if engine not in ("auto", "c", "python"):
            raise ValueError(f"engine must be 'auto', 'c' or 'python', not {engine!r}")
        first = SingleAgentEnv(preset, **kwargs)      # checks the arguments; gives the spaces
        cfg = batch_engine.vector_config(preset, kwargs) if engine != "python" else None
        if engine == "c" and cfg is None:
            raise ValueError(f"the batch engine does not play {preset!r} with {kwargs!r}")
        #: the C rows (None: the Python rows, :attr:`envs`)
        self.engine: batch_engine.BatchEngine | None = None
        if cfg is not None:
            self.engine = batch_engine.BatchEngine(preset, num_envs, seed=None, mode="single",
                                                   threads=threads, **cfg)
            self.envs: list[SingleAgentEnv] = []
            self._seeded = [False] * num_envs
            self._max_steps = first.max_steps
            self._kwargs = dict(kwargs)
            # rows whose episode reached a decision the engine does not list, played by a
            # single env until that episode ends (see _escape)
            self._py: dict[int, SingleAgentEnv] = {}
            self._py_info: dict[int, dict] = {}
            #: how many episodes were handed to Python so far (see _escape)
            self.escapes = 0
        else:
            self.envs = [first] + [SingleAgentEnv(preset, **kwargs) for _ in range(num_envs - 1)]
        self.num_envs = num_envs
        self.preset = first.aec.preset
        self.copy = copy
        self.observation_slices = first.observation_slices
        self.single_observation_space = first.observation_space
        self.single_action_space = first.action_space
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._size = size = first.aec.encoder.layout.size
        k = first.aec.max_candidates
        # the rows are written as bytes by the encoders (as BatchSim writes them) and read as
        # int8 arrays; a row is zeroed before each write (the encoders add to zeros)
        self._obs_buf = bytearray(num_envs * size)
        self._obs = np.frombuffer(self._obs_buf, np.int8).reshape(num_envs, size)
        self._zeros = memoryview(bytes(size))
        self._k = k
        self._mask_buf = bytearray(num_envs * k)
        self._no_mask = memoryview(bytes(k))
        self._mask = np.frombuffer(self._mask_buf, np.int8).reshape(num_envs, k)
        self._observations = {"observation": self._obs, "action_mask": self._mask}
        self._rewards = np.zeros(num_envs, np.float64)
        self._terminations = np.zeros(num_envs, np.bool_)
        self._truncations = np.zeros(num_envs, np.bool_)
        self._autoreset = np.zeros(num_envs, np.bool_)

    def _observe(self, i: int) -> None:
        """Write row ``i``'s observation and mask in place: ``aec.observe`` of the learner,
        without a new array per row."""
        env = self.envs[i]
        aec = env.aec
        g = aec._live()
        seat = env.seat
        at = i * self._size
        self._obs_buf[at:at + self._size] = self._zeros
        if g.to_act == seat and not g.over:
            pager = aec._pager or aec._new_pager(g)
            aec.encoder.write(self._obs_buf, at, g, seat, pager)
            mask = pager.mask_bytes()
        else:
            aec.encoder.write(self._obs_buf, at, g, seat, None)
            mask = self._no_mask
        k = self._k
        self._mask_buf[i * k:(i + 1) * k] = mask

    def _out(self):
        if self.copy:
            return {"observation": self._obs.copy(), "action_mask": self._mask.copy()}
        return self._observations

    def reset(self, *, seed: int | list[int | None] | None = None,
              options: dict[str, Any] | None = None):
        """Reset every row (``seed``: None, an int ``s`` for seeds ``s, s+1, …``, or one
        per row) or, with ``options={"reset_mask": bool array}``, only the rows marked, as
        ``SyncVectorEnv`` does."""
        n = self.num_envs
        if seed is None:
            seeds: list[int | None] = [None] * n
        elif isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
            seeds = [int(seed) + i for i in range(n)]
        else:
            seeds = list(seed)  # type: ignore[arg-type]
            if len(seeds) != n:
                raise ValueError(f"give one seed per row ({n}), not {len(seeds)}")
        rows: list[int] = list(range(n))
        if options is not None and "reset_mask" in options:
            options = dict(options)
            mask = options.pop("reset_mask")
            if not isinstance(mask, np.ndarray) or mask.dtype != np.bool_ or mask.shape != (n,):
                raise TypeError(f"options['reset_mask'] must be a bool array of shape ({n},)")
            rows = np.flatnonzero(mask).tolist()
        if self.engine is not None:
            return self._reset_engine(seeds, rows)
        for i in rows:
            self.envs[i]._restart(seeds[i])
            self._observe(i)
            self._rewards[i] = 0.0
            self._terminations[i] = self._truncations[i] = self._autoreset[i] = False
        return self._out(), {}        # the single env's reset info is empty

    def step(self, actions):
        """Step every row with its id (a row waiting for its autoreset ignores it)."""
        acts = np.asarray(actions)
        n = self.num_envs
        if acts.shape != (n,):
            raise ValueError(f"need {n} actions (shape ({n},)), got shape {acts.shape}")
        if self.engine is not None:
            return self._step_engine(acts)
        infos: dict[str, Any] = {}
        # the loop fills Python lists (a numpy item costs more than it should here); the
        # arrays are set from them after it
        rewards, terms, truncs = [0.0] * n, [False] * n, [False] * n
        observe = self._observe
        for i, (env, a, again) in enumerate(zip(self.envs, acts.tolist(),
                                                self._autoreset.tolist())):
            if again:
                env._restart(None)
            else:
                rewards[i], terms[i], truncs[i], info = env._advance(a)
                if info:
                    infos = self._add_info(infos, info, i)
            observe(i)
        self._rewards[:] = rewards
        self._terminations[:] = terms
        self._truncations[:] = truncs
        np.logical_or(self._terminations, self._truncations, out=self._autoreset)
        return (self._out(), self._rewards.copy(), self._terminations.copy(),
                self._truncations.copy(), infos)

    # ------------------------------------------------------------ the C rows (engine)
    def _reset_engine(self, seeds: list, rows: list[int]):
        eng = self.engine
        assert eng is not None
        for i in rows:
            if seeds[i] is None and not self._seeded[i]:
                # SingleAgentEnv.reset() of a row never seeded: a seed from the system
                seeds[i] = int(np.random.default_rng().integers(2**31))
            self._seeded[i] = True
            env = self._py.pop(i, None)
            if env is not None and seeds[i] is None:      # the stream goes on from Python
                eng._eng.resume(i, env._seeds.getstate())
        eng.reset([seeds[i] for i in rows], rows)
        self._py_info = {}
        for i in eng._eng.take_escaped():
            self._escape(i)
        self._autoreset[rows] = False
        return self._out_engine(), {}

    def _escape(self, i: int) -> tuple:
        """Row ``i``'s episode reached a decision the engine does not list (more than 4,096
        plays, or more than 400 for a random opponent, whose ``legal_moves`` then offers the
        steps of a choice): it is replayed by a single env from its seed stream's state at the
        episode's start and the learner's ids, which then plays the rest of the episode.
        Returns the outputs of this step (those of the last id replayed)."""
        eng = self.engine
        assert eng is not None
        state, ids = eng._eng.escape_state(i)
        env = SingleAgentEnv(self.preset, **self._kwargs)
        env._seeds = random.Random()
        env._seeds.setstate(state)
        env._restart(None)
        out: tuple = (0.0, False, False, {})
        for a in ids:
            out = env._advance(a)
        self._py[i] = env
        self.escapes += 1
        self._write_py(i, env, out)
        return out

    def _write_py(self, i: int, env: SingleAgentEnv, out: tuple) -> None:
        """A Python row's outputs into the engine's arrays; the row goes back to C when its
        episode ends (its next step deals the next hand of the stream, in C)."""
        eng = self.engine
        assert eng is not None
        o = env.aec.observe(env.agent)
        eng.obs[i] = o["observation"]
        eng.mask[i] = o["action_mask"]
        r, term, trunc, info = out
        eng.rewards[i] = r
        eng.terminated[i] = term
        eng.truncated[i] = trunc
        eng.illegal[i] = "illegal" in info
        self._py_info[i] = info
        if term or trunc:
            eng._eng.resume(i, env._seeds.getstate())
            del self._py[i]

    def _step_engine(self, acts: np.ndarray):
        eng = self.engine
        assert eng is not None
        if acts.dtype == np.bool_ or acts.dtype.kind not in "iu":
            raise TypeError(f"an action is a whole-number id, not {acts.dtype}")
        k = self._k
        live = ~self._autoreset
        outside = live & ((acts < 0) | (acts >= k))
        if outside.any():
            a = int(acts[np.flatnonzero(outside)[0]])
            raise ValueError(f"action {a} is outside the action space (0..{k - 1})")
        before = sorted(self._py)
        eng.step(acts)                     # the C rows (a Python row is left to us)
        self._py_info = {}
        for i in before:
            env = self._py[i]
            self._write_py(i, env, env._advance(acts[i]))
        for i in eng._eng.take_escaped():
            self._escape(i)
        infos: dict[str, Any] = {}
        terms, truncs = eng.terminated, eng.truncated
        done_rows, results = [], []
        for i in np.flatnonzero(terms | truncs).tolist():
            info: dict
            if i in self._py_info:
                info = self._py_info[i]
            elif eng.illegal[i]:
                info = {"illegal": True}
            elif truncs[i]:
                info = {"max_steps": self._max_steps}
            else:
                info = {"result": eng.result(i)}
            if len(info) == 1 and "result" in info:
                done_rows.append(i)
                results.append(info["result"])
            else:
                infos = self._add_info(infos, info, i)
        if results:
            self._add_results(infos, done_rows, results)
        np.logical_or(terms, truncs, out=self._autoreset)
        return (self._out_engine(), eng.rewards.copy(), terms.copy(), truncs.copy(), infos)

    def _add_results(self, infos: dict, rows: list[int], results: list[dict]) -> None:
        """``infos["result"]`` and ``infos["_result"]`` of the hands that ended in ``rows``,
        batched as ``VectorEnv._add_info`` batches them one row at a time (an array per key,
        typed by the first row's value, and its row mask), in one pass: row by row it made
        new arrays at every call (a hundred hands end at each step of 1,024 rows)."""
        n = self.num_envs
        mask = np.zeros(n, np.bool_)
        mask[rows] = True
        out: dict[str, Any] = {}
        for key, first in results[0].items():
            if type(first) in (int, float, bool) or isinstance(first, np.number):
                arr = np.zeros(n, dtype=type(first))
                arr[rows] = [r[key] for r in results]
            else:
                arr = np.full(n, None, dtype=object)
                for i, r in zip(rows, results):
                    arr[i] = r[key]
            out[key] = arr
            out[f"_{key}"] = mask.copy()
        infos["result"] = out
        infos["_result"] = mask

    def _out_engine(self):
        eng = self.engine
        assert eng is not None
        if self.copy:
            return {"observation": eng.obs.copy(), "action_mask": eng.mask.copy()}
        return {"observation": eng.obs, "action_mask": eng.mask}

    def close_extras(self, **kwargs: Any) -> None:
        for env in self.envs:
            env.close()
