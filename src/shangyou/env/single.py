"""Gymnasium single-agent wrapper: one learner against bots of a chosen level."""

from __future__ import annotations

import operator
import random

try:
    import gymnasium
except ModuleNotFoundError as e:      # the env extra names itself
    from . import missing_extra
    raise missing_extra(e.name) from None

from ..bots import BotProtocol, make_bot
from ..bots.base import RandomBot
from .aec import DEFAULT_MAX_STEPS, ShangyouAEC, check_max_steps, rewards_of, seat_to_act


class _Policy:
    """An opponent that is a policy callable: ``policy(obs) -> id`` on its seat's
    observation (the dict the learner gets), MORE included."""

    def __init__(self, fn):
        self.fn = fn


def _opponent(spec, seat: int):
    """A level name, a bot class (``cls(seed)``), a bot object (``choose(view)``) or a policy
    callable (``fn(obs) -> id``)."""
    if isinstance(spec, str):
        make_bot(spec, 0)            # an unknown level fails here, clearly
        return spec
    if isinstance(spec, type):
        if not isinstance(spec(0), BotProtocol):
            raise ValueError(f"opponent of seat {seat}: {spec.__name__} makes no bot")
        return spec
    if isinstance(spec, BotProtocol):
        return spec
    if callable(spec):
        return _Policy(spec)
    raise ValueError(f"opponent of seat {seat}: {spec!r} is not a bot level, a bot (an object "
                     "with choose(view)) or a policy callable (obs -> id)")


class SingleAgentEnv(gymnasium.Env):
    """The learner plays ``seat``; every other seat is played by ``opponents``: a bot level
    (``make_bot`` name, a fresh seeded bot per episode), a bot object (``choose(view) ->
    move text``; it gets only its own view), or a policy callable (``policy(obs) -> id`` on
    its seat's observation, as the learner's: self-play, or a snapshot of an agent). A dict
    ``{seat: opponent}`` or a list (one per seat, the learner's entry ignored) gives each
    seat its own. ``step`` plays the learner's id, then the bots until the learner acts
    again or the hand ends. The reward is the learner's reward from the hand result (0 before
    the end). An id the mask forbids ends the episode with ``illegal_reward`` (info
    ``{"illegal": True}``), as PettingZoo's TerminateIllegalWrapper does; with ``strict=True``
    it raises ValueError instead, so a bug in an agent is an error, not a silent loss. An
    action that is not an id at all is always an error: a float or other non-integer raises
    TypeError (it is never truncated), an id outside ``action_space`` raises ValueError. The
    episode is
    truncated (reward 0) when the learner and the policy opponents together have made
    ``max_steps`` steps, MORE included (default :data:`~shangyou.env.aec.DEFAULT_MAX_STEPS`;
    ``None``: no limit)."""

    metadata = {"render_modes": ["human", "ansi"], "render_fps": 1}

    def __init__(self, preset: str = "zheng-shangyou/pagat", seat: int = 0, opponents="greedy",
                 players: int | None = None, illegal_reward: float = -1.0,
                 render_mode: str | None = None, max_steps: int | None = DEFAULT_MAX_STEPS,
                 strict: bool = False, **kwargs):
        self.strict = bool(strict)
        self.max_steps = check_max_steps(max_steps)
        self.aec = ShangyouAEC(preset, players, render_mode=None, max_steps=None, **kwargs)
        if not 0 <= seat < self.aec.players:
            raise ValueError(f"no seat {seat} at a table of {self.aec.players}")
        self.seat = seat
        self.agent = self.aec.possible_agents[seat]
        self.opponents = opponents
        others = [s for s in range(self.aec.players) if s != seat]
        if isinstance(opponents, dict):
            if set(opponents) != set(others):
                raise ValueError(f"opponents: give one for each of the seats {others}, "
                                 f"not {sorted(opponents)}")
            specs = dict(opponents)
        elif isinstance(opponents, (list, tuple)):
            if len(opponents) != self.aec.players:
                raise ValueError(f"opponents: give one per seat ({self.aec.players}), "
                                 f"not {len(opponents)}")
            specs = {s: opponents[s] for s in others}
        else:
            specs = {s: opponents for s in others}
        self._specs = {s: _opponent(specs[s], s) for s in others}
        self.illegal_reward = illegal_reward
        self.observation_space = self.aec.observation_space(self.agent)
        self.action_space = self.aec.action_space(self.agent)
        self.observation_slices = self.aec.observation_slices
        self.render_mode = render_mode
        self.bots: dict[int, BotProtocol | _Policy] = {}
        self.num_steps = 0
        self._ended = False

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        self._restart(seed)
        obs = self.aec.observe(self.agent)
        if self.render_mode == "human":
            self.render()
        return obs, {}

    def _restart(self, seed: int | None) -> None:
        """:meth:`reset` without the observation (the vector env writes its own)."""
        super().reset(seed=seed)
        if seed is None and not hasattr(self, "_seeds"):
            seed = int(self.np_random.integers(2**31))
        if seed is not None:
            self._seeds = random.Random(seed)
        self.aec.reset(seed=self._seeds.randrange(2**31))
        seeds = {s: self._seeds.randrange(2**31) for s in self._specs}
        self.bots = {s: make_bot(spec, seeds[s]) if isinstance(spec, str)
                     else spec(seeds[s]) if isinstance(spec, type) else spec
                     for s, spec in self._specs.items()}
        self.num_steps = 0
        self._ended = False
        if not self._play_bots():
            raise RuntimeError(f"the opponent policy of seat {self.aec._live().to_act} paged with "
                               f"MORE {self.max_steps} times without playing")

    def _play_bots(self) -> bool:
        """Play the other seats until the learner acts or the hand ends; False when a policy
        opponent's steps reached ``max_steps`` first."""
        aec = self.aec
        g = aec._live()
        aec._pager = None
        while not g.over and g.to_act != self.seat:
            s = seat_to_act(g)
            bot = self.bots[s]
            if isinstance(bot, _Policy):
                if self.max_steps is not None and self.num_steps >= self.max_steps:
                    return False
                obs = aec.observe(aec.possible_agents[s])
                action = bot.fn(obs)
                pager = aec._decision()
                try:
                    move = pager.move(int(action))
                except (ValueError, TypeError):
                    raise ValueError(f"the opponent policy of seat {s} chose {action!r}, "
                                     "an id its mask forbids") from None
                self.num_steps += 1
                if move is None:
                    pager.turn()
                    continue
                g.apply(move)
            elif type(bot) is RandomBot:
                # the random level without its view: RandomBot.choose draws rng.choice from
                # the view's legal_moves, the texts of legal_moves() in the same order, so
                # the same draw picks the same move (a test compares the two paths)
                g.apply(bot.rng.choice(g.legal_moves()))
            else:
                g.apply(bot.choose(g.view(s)))
            aec._pager = None
        return True

    def step(self, action):
        reward, terminated, truncated, info = self._advance(action)
        obs = self.aec.observe(self.agent)
        if self.render_mode == "human" and "illegal" not in info:
            self.render()
        return obs, reward, terminated, truncated, info

    def _advance(self, action) -> tuple:
        """:meth:`step` without the observation: ``(reward, terminated, truncated, info)``."""
        g = self.aec._live()
        if g.over or self._ended:
            raise RuntimeError("the episode is over: call reset()")
        action = self._check_action(action)
        pager = self.aec._decision()
        try:
            move = pager.move(action)
        except ValueError:
            if self.strict:
                raise
            return float(self.illegal_reward), True, False, {"illegal": True}
        self.num_steps += 1
        if move is None:
            pager.turn()
        else:
            g.apply(move)
            self.aec._pager = None
            self._play_bots()
        if g.over:
            return rewards_of(g)[self.seat], True, False, {"result": g.result}
        if self.max_steps is not None and (self.num_steps >= self.max_steps
                                           or g.to_act != self.seat):
            self._ended = True
            return 0.0, False, True, {"max_steps": self.max_steps}
        return 0.0, False, False, {}

    def _check_action(self, action) -> int:
        """The id of ``action``: a Python or NumPy integer (or a 0-d integer array) within
        ``action_space``; TypeError for anything else (a float is never truncated), ValueError
        outside the space."""
        if isinstance(action, bool):
            raise TypeError("an action is a whole-number id, not a bool")
        try:
            a = operator.index(action)
        except TypeError:
            raise TypeError(f"an action is a whole-number id, not {type(action).__name__} "
                            f"{action!r}") from None
        n = int(getattr(self.action_space, "n"))    # a Discrete space (ShangyouAEC.action_space)
        if not 0 <= a < n:
            raise ValueError(f"action {a} is outside the action space (0..{n - 1})")
        return a

    def render(self):
        from .aec import render_text
        text = render_text(self.aec.game)
        if self.render_mode == "human":
            print(text)
            return None
        return text
