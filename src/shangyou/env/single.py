"""Gymnasium single-agent wrapper: one learner against bots of a chosen level."""

from __future__ import annotations

import random

import gymnasium

from ..bots import make_bot
from .aec import DEFAULT_MAX_STEPS, ShangyouAEC, check_max_steps


class SingleAgentEnv(gymnasium.Env):
    """The learner plays ``seat``; every other seat is a ``make_bot(opponents)`` bot that gets
    only its own view. ``step`` plays the learner's id, then the bots until the learner acts
    again or the hand ends. The reward is the learner's reward from the hand result (0 before
    the end). An id the mask forbids ends the episode with ``illegal_reward`` (info
    ``{"illegal": True}``), as PettingZoo's TerminateIllegalWrapper does. The episode is
    truncated (reward 0) when the learner has made ``max_steps`` steps, MORE included
    (default :data:`~shangyou.env.aec.DEFAULT_MAX_STEPS`; ``None``: no limit)."""

    metadata = {"render_modes": ["human", "ansi"], "render_fps": 1}

    def __init__(self, preset: str = "zheng-shangyou/pagat", seat: int = 0, opponents="greedy",
                 players: int | None = None, illegal_reward: float = -1.0,
                 render_mode: str | None = None, max_steps: int | None = DEFAULT_MAX_STEPS,
                 **kwargs):
        self.max_steps = check_max_steps(max_steps)
        self.aec = ShangyouAEC(preset, players, render_mode=None, max_steps=None, **kwargs)
        if not 0 <= seat < self.aec.players:
            raise ValueError(f"no seat {seat} at a table of {self.aec.players}")
        self.seat = seat
        self.agent = self.aec.possible_agents[seat]
        self.opponents = opponents
        make_bot(opponents, 0)          # an unknown level fails here, clearly
        self.illegal_reward = illegal_reward
        self.observation_space = self.aec.observation_space(self.agent)
        self.action_space = self.aec.action_space(self.agent)
        self.observation_slices = self.aec.observation_slices
        self.render_mode = render_mode
        self.bots = {}
        self.num_steps = 0
        self._ended = False

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if seed is None and not hasattr(self, "_seeds"):
            seed = int(self.np_random.integers(2**31))
        if seed is not None:
            self._seeds = random.Random(seed)
        self.aec.reset(seed=self._seeds.randrange(2**31))
        self.bots = {s: make_bot(self.opponents, self._seeds.randrange(2**31))
                     for s in range(self.aec.players) if s != self.seat}
        self.num_steps = 0
        self._ended = False
        self._play_bots()
        obs = self.aec.observe(self.agent)
        if self.render_mode == "human":
            self.render()
        return obs, {}

    def _play_bots(self) -> None:
        g = self.aec.game
        while not g.over and g.to_act != self.seat:
            s = g.to_act
            g.apply(self.bots[s].choose(g.view(s)))
        self.aec._pager = None

    def step(self, action):
        g = self.aec.game
        if g.over or self._ended:
            raise RuntimeError("the episode is over: call reset()")
        pager = self.aec.pager()
        try:
            move = pager.move(action)
        except ValueError:
            return self.aec.observe(self.agent), float(self.illegal_reward), True, False, \
                {"illegal": True}
        if move is None:
            pager.turn()
        else:
            g.apply(move)
            self.aec._pager = None
            self._play_bots()
        self.num_steps += 1
        obs = self.aec.observe(self.agent)
        if self.render_mode == "human":
            self.render()
        if g.over:
            from .aec import rewards_of
            return obs, rewards_of(g)[self.seat], True, False, {"result": g.result}
        if self.max_steps is not None and self.num_steps >= self.max_steps:
            self._ended = True
            return obs, 0.0, False, True, {"max_steps": self.max_steps}
        return obs, 0.0, False, False, {}

    def render(self):
        from .aec import render_text
        text = render_text(self.aec.game)
        if self.render_mode == "human":
            print(text)
            return None
        return text
