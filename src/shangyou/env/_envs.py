"""The environments of :mod:`shangyou.env` (imported by it when gymnasium and pettingzoo
are there)."""

from __future__ import annotations

try:
    import gymnasium
except ModuleNotFoundError as e:      # the env extra names itself
    from . import missing_extra
    raise missing_extra(e.name) from None

from .. import preset_names
from .aec import DEFAULT_MAX_STEPS, ShangyouAEC, rewards_of
from .encoding import KINDS, CAND_WIDTH, move_key, parse_move

__all__ = ["ShangyouAEC", "make", "raw_env", "env", "single_agent", "rewards_of", "KINDS",
           "CAND_WIDTH", "move_key", "parse_move", "DEFAULT_MAX_STEPS", "gym_ids",
           "register_envs"]


def gym_id(preset: str) -> str:
    """The Gymnasium id of a preset: ``shangyou/pagat-v0`` for ``zheng-shangyou/pagat``,
    ``shangyou/sheng-ji-zhao-pengyou-v0`` for ``sheng-ji/zhao-pengyou``."""
    family, _, rest = preset.partition("/")
    slug = rest if family == "zheng-shangyou" else preset.replace("/", "-")
    return f"shangyou/{slug}-v0"


def gym_ids() -> dict[str, str]:
    """Every preset's Gymnasium id → the preset name."""
    return {gym_id(name): name for name in preset_names()}


def register_envs() -> None:
    """Register the single-agent wrapper of every preset with Gymnasium (done on import of
    ``shangyou.env``): ``gymnasium.make("shangyou/pagat-v0", opponents="heuristic")``. Keyword
    arguments of ``make`` go to :class:`~shangyou.env.single.SingleAgentEnv`.
    ``gymnasium.make_vec(id, num_envs=n)`` (mode ``"vector_entry_point"``, Gymnasium's default
    when an id has one) gives :class:`~shangyou.env.vector.ShangyouVectorEnv`: the same rows
    stepped in one loop; ``vectorization_mode="sync"`` still gives ``SyncVectorEnv``."""
    for env_id, preset in gym_ids().items():
        if env_id not in gymnasium.registry:
            gymnasium.register(env_id, entry_point="shangyou.env.single:SingleAgentEnv",
                               vector_entry_point="shangyou.env.vector:ShangyouVectorEnv",
                               kwargs={"preset": preset})


register_envs()


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
    level (``make_bot`` names: random, greedy, heuristic, search, ...). The same as
    ``gymnasium.make(gym_id(preset), ...)`` without Gymnasium's checking wrappers."""
    from .single import SingleAgentEnv
    return SingleAgentEnv(preset, seat=seat, opponents=opponents, players=players, **kwargs)
