"""Research environments: PettingZoo AEC per preset, a Gymnasium single-agent wrapper
(registered with Gymnasium as ``shangyou/<preset>-v0``, with a vector env for
``gymnasium.make_vec``), and a batch simulator. See ``docs/env.md``.

>>> from shangyou import env as sy_env
>>> e = sy_env.make("zheng-shangyou/pagat", players=5)
>>> e.reset(seed=1)
>>> obs, reward, term, trunc, info = e.last()
>>> obs["action_mask"].dtype.name
'int8'

Needs the ``env`` extra (``pip install 'shangyou[env]'``: numpy, gymnasium, pettingzoo).
"""

from __future__ import annotations


def missing_extra(name: str | None) -> ModuleNotFoundError:
    """The error of a module of the ``env`` extra that is not installed: one line that says
    what to install (raised by the modules that need it, ``from None``)."""
    return ModuleNotFoundError(
        f"shangyou.env needs numpy, gymnasium and pettingzoo ({name} is missing): "
        "pip install 'shangyou[env]'", name=name)


try:
    import numpy  # noqa: F401  (the encoders and the learned bot's features need only numpy)
except ModuleNotFoundError as e:
    raise missing_extra(e.name) from None

_PUBLIC = ("ShangyouAEC", "make", "raw_env", "env", "single_agent", "rewards_of", "KINDS",
           "CAND_WIDTH", "move_key", "parse_move", "DEFAULT_MAX_STEPS", "gym_ids", "gym_id",
           "register_envs")

try:
    import gymnasium
    import pettingzoo  # noqa: F401
except ModuleNotFoundError as missing:      # one line that says what to install
    _MISSING = missing.name

    def __getattr__(name: str):
        # the submodules that need numpy only (encoding, features: the learned bot) still
        # import; the environments name the extra
        if name not in _PUBLIC:
            raise AttributeError(name)
        raise missing_extra(_MISSING)
    del missing
else:
    from ._envs import (CAND_WIDTH, DEFAULT_MAX_STEPS, KINDS, ShangyouAEC,  # noqa: F401
                        __all__, env, gym_id, gym_ids, make, move_key, parse_move, raw_env,
                        register_envs, rewards_of, single_agent)
