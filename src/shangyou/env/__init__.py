"""Research environments: PettingZoo AEC per preset, a Gymnasium single-agent wrapper, and a
batch simulator. See ``docs/env.md``.

>>> from shangyou import env as sy_env
>>> e = sy_env.make("zheng-shangyou/pagat", players=5)
>>> e.reset(seed=1)
>>> obs, reward, term, trunc, info = e.last()
>>> obs["action_mask"].dtype.name
'int8'

Needs the ``env`` extra (``pip install 'shangyou[env]'``: numpy, gymnasium, pettingzoo).
"""

from __future__ import annotations

from .aec import ShangyouAEC, rewards_of
from .encoding import KINDS, CAND_WIDTH, move_key, parse_move

__all__ = ["ShangyouAEC", "make", "raw_env", "env", "single_agent", "rewards_of", "KINDS",
           "CAND_WIDTH", "move_key", "parse_move"]


def raw_env(preset: str = "zheng-shangyou/pagat", players: int | None = None, **kwargs):
    """The unwrapped AEC environment (PettingZoo naming)."""
    return ShangyouAEC(preset, players, **kwargs)


def env(preset: str = "zheng-shangyou/pagat", players: int | None = None, **kwargs):
    """The AEC environment with PettingZoo's standard wrappers (illegal action: the acting
    agent gets -1 and the episode ends; out-of-range ids assert; call order enforced)."""
    from pettingzoo.utils import wrappers
    e = raw_env(preset, players, **kwargs)
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    return wrappers.OrderEnforcingWrapper(e)


def make(preset: str = "zheng-shangyou/pagat", players: int | None = None, wrapped: bool = False,
         **kwargs):
    """``make("zheng-shangyou/pagat", players=5, **options)``: the raw AEC environment
    (``wrapped=True``: with the standard wrappers, as :func:`env`)."""
    return env(preset, players, **kwargs) if wrapped else raw_env(preset, players, **kwargs)


def single_agent(preset: str = "zheng-shangyou/pagat", seat: int = 0, opponents="greedy",
                 players: int | None = None, **kwargs):
    """Gymnasium environment: one learner at ``seat``, the other seats played by bots of a
    level (``make_bot`` names: random, greedy, heuristic, search, ...)."""
    from .single import SingleAgentEnv
    return SingleAgentEnv(preset, seat=seat, opponents=opponents, players=players, **kwargs)
