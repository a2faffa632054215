"""Batch simulator: many games of one preset stepped together in one process.

>>> from shangyou.env.batch import BatchSim
>>> sim = BatchSim("zheng-shangyou/pagat", n_games=4, seed=0)
>>> obs, mask, seat = sim.observe()
>>> obs.shape[0] == mask.shape[0] == 4
True
>>> out = sim.step(sim.random_actions())

Game ``i`` is exactly the single environment ``raw_env(preset, ...)`` reset with
``seed + i``: the same ids give the same trajectory (tested). A finished game starts its next
hand at once (``reset()`` without a seed, as a single env would), so every row always has a
decision to make. Each row shows the decision of the seat to act in that game: its
observation (the seat's view only), its int8 mask and the seat number.
"""

from __future__ import annotations

import numpy as np

from .aec import (DEFAULT_CANDIDATES, DEFAULT_MAX_STEPS, ShangyouAEC, check_max_steps,
                  rewards_of)
from .encoding import CAND_WIDTH


class BatchSim:
    def __init__(self, preset: str, n_games: int, seed: int = 0, players: int | None = None,
                 max_candidates: int = DEFAULT_CANDIDATES, observe: bool = True,
                 max_steps: int | None = DEFAULT_MAX_STEPS, **options):
        if n_games < 1:
            raise ValueError("n_games must be at least 1")
        self.max_steps = check_max_steps(max_steps)
        self.envs = [ShangyouAEC(preset, players, max_candidates=max_candidates, max_steps=None,
                                 **options)
                     for _ in range(n_games)]
        first = self.envs[0]
        self.n_games = n_games
        self.players = first.players
        self.max_candidates = max_candidates
        self.observation_slices = first.observation_slices
        self.obs_size = first.encoder.layout.size
        self.with_obs = observe
        # the rows are filled as bytes (one copy per row and step) and read as int8 arrays
        self._obs_buf = bytearray(n_games * self.obs_size if observe else self.obs_size)
        self._obs = np.frombuffer(self._obs_buf, np.int8).reshape(-1, self.obs_size)
        if not observe:                  # zeros, shaped like the observations
            self._obs = np.broadcast_to(self._obs, (n_games, self.obs_size))
        self._zeros = memoryview(bytes(self.obs_size))
        # every write fills the head (the slices before the candidates) whole; the candidate
        # rows are added to zeros, so only the rows a row's last write used are cleared
        self._cand_at = first.encoder.slices["candidates"].start
        self._used = [self.obs_size - self._cand_at] * n_games
        self._mask_buf = bytearray(n_games * max_candidates)
        self._mask = np.frombuffer(self._mask_buf, np.int8).reshape(n_games, max_candidates)
        self._seat = np.zeros(n_games, np.int64)
        self.episodes = np.zeros(n_games, np.int64)     # finished hands per row
        self.episode_steps = np.zeros(n_games, np.int64)   # steps of each row's hand so far
        self.truncated = np.zeros(n_games, bool)   # rows the last step cut off at max_steps
        self.steps = 0
        for i, e in enumerate(self.envs):
            e.reset(seed=seed + i)
            self._refresh(i)

    def _refresh(self, i: int) -> None:
        e = self.envs[i]
        g = e.game
        assert g is not None
        seat = g.to_act
        assert seat is not None and not g.over   # a finished hand is followed at once
        self._seat[i] = seat
        pager = e._decision()
        if self.with_obs:
            at = i * self.obs_size + self._cand_at
            used = self._used[i]
            self._obs_buf[at:at + used] = self._zeros[:used]
            e.encoder.write(self._obs_buf, i * self.obs_size, g, seat, pager)
            self._used[i] = CAND_WIDTH * (pager.n if pager.pages == 1 else pager.k)
        k = self.max_candidates
        self._mask_buf[i * k:(i + 1) * k] = pager.mask_bytes()

    def observe(self):
        """(observations [n, obs], masks [n, K] int8, seats [n]) of the decisions now."""
        return self._obs, self._mask, self._seat

    def random_actions(self, rng: np.random.Generator | None = None) -> np.ndarray:
        """One uniformly random legal id per game (MORE counts as an id)."""
        rng = rng if rng is not None else np.random.default_rng()
        return np.argmax(rng.random(self._mask.shape) * self._mask, axis=1)

    def step(self, actions) -> tuple:
        """Play one id in every game. Returns ``(obs, mask, seat, rewards, done)``: the next
        decisions (a finished game's row shows the first decision of its next hand),
        ``rewards[i]`` the per-seat rewards of a hand that just ended in game ``i`` (zeros
        otherwise) and ``done[i]`` whether it ended. A hand cut off at ``max_steps`` steps
        (MORE included) also starts the next one: ``done[i]`` with zero rewards, and
        ``self.truncated[i]`` set until the next step. An illegal id raises ValueError naming
        the game, before any game moves."""
        actions = np.asarray(actions).reshape(-1)
        n = self.n_games
        if actions.shape[0] != n:
            raise ValueError(f"need {n} actions, got {actions.shape[0]}")
        inside = (actions >= 0) & (actions < self.max_candidates)
        ok = inside.copy()
        ok[inside] = self._mask[np.flatnonzero(inside), actions[inside]] != 0
        if not ok.all():
            bad = int(np.flatnonzero(~ok)[0])
            raise ValueError(f"illegal action {int(actions[bad])} in game {bad}")
        rewards = np.zeros((n, self.players), np.float32)
        done = [False] * n
        truncated = [False] * n
        self.episode_steps += 1
        # the loop reads and writes Python lists (a numpy scalar costs more than the game's
        # own step); the arrays are set from them after it
        ep_steps = self.episode_steps.tolist()
        episodes = self.episodes.tolist()
        limit = self.max_steps
        for i, (e, a) in enumerate(zip(self.envs, actions.tolist())):
            pager = e._decision()
            move = pager.move(a)
            if move is None:
                pager.turn()
            else:
                g = e.game
                assert g is not None
                g.apply(move)
                e._pager = None
                if g.over:
                    rewards[i] = rewards_of(g)
                    done[i] = True
                    episodes[i] += 1
                    ep_steps[i] = 0
                    e.reset()
            if limit is not None and ep_steps[i] >= limit:
                done[i] = truncated[i] = True
                ep_steps[i] = 0
                e.reset()
            self._refresh(i)
        self.episode_steps[:] = ep_steps
        self.episodes[:] = episodes
        self.truncated[:] = truncated
        self.steps += 1
        return self._obs, self._mask, self._seat, rewards, np.array(done, bool)
