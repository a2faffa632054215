"""Every preset as an RLCard environment, so RLCard's agents that learn from ``obs`` and
``legal_actions`` (its DQN agent is tested; NFSP reads the same) and its training loop
(``env.run``, ``rlcard.utils.reorganize``) run on it. ``step_back`` is not offered, so
RLCard's CFR agent, which walks the tree with it, does not run (nor could it, at this size).

>>> from shangyou.env.rlcard_env import ShangyouRLCardEnv
>>> env = ShangyouRLCardEnv("zheng-shangyou/pagat", {"seed": 0, "game_num_players": 3})
>>> state, player = env.reset()
>>> sorted(state)
['action_record', 'legal_actions', 'obs', 'raw_legal_actions', 'raw_obs']

It is the AEC env (:class:`~shangyou.env.aec.ShangyouAEC`) behind RLCard's interface: the same
observation vector (``state["obs"]``, float32), the same paged candidate ids
(``state["legal_actions"]``: an ``OrderedDict`` of the ids the mask allows, each mapped to
None as in RLCard's games; id K-1 is MORE when a decision has more than K candidates), and
the same rewards at the end of the hand (``get_payoffs()``: :func:`shangyou.env.rewards_of`;
zeros for a hand cut off after ``max_steps`` steps). ``state["raw_obs"]`` is the seat's view
(``game.view(seat)``) and ``state["raw_legal_actions"]`` the move texts of the ids, in the same
order (``"MORE"`` for MORE), so an agent with ``use_raw = True`` may answer a move text.

Config (RLCard's dict): ``seed``, ``allow_step_back`` (not supported: must be False), and the
game keys ``game_num_players``, ``game_max_candidates``, ``game_max_steps`` and
``game_options`` (a dict of preset options). :func:`register` registers every preset with
``rlcard.make`` as ``shangyou-<slug>`` (the Gymnasium slug: ``shangyou-pagat``,
``shangyou-sheng-ji-zhao-pengyou``).
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np

try:
    from rlcard.envs import Env
    from rlcard.envs.registration import register as rlcard_register
    from rlcard.envs.registration import registry
except ModuleNotFoundError as missing:          # one line that says what to install
    raise ModuleNotFoundError(
        f"shangyou.env.rlcard_env needs rlcard ({missing.name} is missing): "
        "pip install 'shangyou[research]'", name=missing.name) from None

from .. import preset_info, preset_names
from .aec import DEFAULT_CANDIDATES, DEFAULT_MAX_STEPS, ShangyouAEC, rewards_of

__all__ = ["ShangyouRLCardEnv", "register", "env_id", "env_ids"]


class _Game:
    """The game object RLCard's ``Env`` drives (``init_game``, ``step``, ``get_state``, ...),
    over one AEC env."""

    def __init__(self, aec: ShangyouAEC):
        self.aec = aec
        self.allow_step_back = False
        self.np_random: np.random.RandomState | None = None   # set by Env.seed

    def get_num_players(self) -> int:
        return self.aec.players

    def get_num_actions(self) -> int:
        return self.aec.max_candidates

    def init_game(self) -> tuple[int, int]:
        rng = self.np_random if self.np_random is not None else np.random
        self.aec.reset(seed=int(rng.randint(2**31)))
        seat = self.get_player_id()
        return seat, seat

    def step(self, action) -> tuple[int, int]:
        """Play an id (or a move text on the current page, or ``"MORE"``)."""
        if isinstance(action, str):
            action = self.id_of(action)
        self.aec.step(int(action))
        seat = self.get_player_id()
        return seat, seat

    def id_of(self, text: str) -> int:
        """The id of a move text on the current page (``"MORE"``: the MORE id)."""
        pager = self.aec._decision()
        if text == "MORE" and pager.pages > 1:
            return self.aec.max_candidates - 1
        texts = [str(m) for m in pager.page_moves()]
        if text not in texts:
            raise ValueError(f"{text!r} is not a move on this page")
        return texts.index(text)

    def step_back(self) -> bool:
        return False

    def is_over(self) -> bool:
        a = self.aec
        g = a._live()
        return g.over or any(a.truncations.values())

    def get_player_id(self) -> int:
        return self.aec.agent_seat[self.aec.agent_selection]

    def get_state(self, player_id: int) -> int:
        return player_id


class ShangyouRLCardEnv(Env):
    """One preset as an RLCard environment (see the module docstring)."""

    #: the preset of a registered subclass (``rlcard.make`` calls ``cls(config)``)
    PRESET: str | None = None

    def __init__(self, preset: str | dict | None = None, config: dict | None = None):
        if not isinstance(preset, str):            # cls(config), as rlcard.make calls it
            config = preset if config is None else config
            preset = self.PRESET
        if preset is None:
            raise ValueError("ShangyouRLCardEnv needs a preset")
        config = {"allow_step_back": False, "seed": None, **(config or {})}
        if config["allow_step_back"]:
            raise ValueError("allow_step_back is not supported by the shangyou environments")
        options = dict(config.get("game_options") or {})
        self.aec = ShangyouAEC(preset, config.get("game_num_players"),
                               max_candidates=config.get("game_max_candidates",
                                                         DEFAULT_CANDIDATES),
                               max_steps=config.get("game_max_steps", DEFAULT_MAX_STEPS),
                               **options)
        self.name = env_id(preset)
        self.game = _Game(self.aec)
        super().__init__(config)
        size = self.aec.encoder.layout.size
        self.state_shape = [[size] for _ in range(self.num_players)]
        self.action_shape = [None for _ in range(self.num_players)]

    def _extract_state(self, player_id: int) -> dict:
        a = self.aec
        ob = a.observe(a.possible_agents[player_id])
        ids = [int(i) for i in np.flatnonzero(ob["action_mask"])]
        raw_legal = []
        if ids:
            pager = a._decision()
            texts = [str(m) for m in pager.page_moves()]
            raw_legal = ["MORE" if i == a.max_candidates - 1 and pager.pages > 1 else texts[i]
                         for i in ids]
        return {"obs": ob["observation"].astype(np.float32),
                "legal_actions": OrderedDict((i, None) for i in ids),
                "raw_obs": a._live().view(player_id),
                "raw_legal_actions": raw_legal,
                "action_record": self.action_recorder}

    def _decode_action(self, action_id):
        return int(action_id)

    def _get_legal_actions(self) -> list[int]:
        return list(self._extract_state(self.get_player_id())["legal_actions"])

    def get_payoffs(self) -> np.ndarray:
        """Each seat's reward for the hand (zeros while it is being played or when cut off)."""
        g = self.aec._live()
        if not g.over:
            return np.zeros(self.num_players)
        return np.array(rewards_of(g), dtype=np.float64)

    def get_perfect_information(self) -> dict:
        """Every seat's view (the hands included)."""
        g = self.aec._live()
        return {"views": [g.view(s) for s in range(self.num_players)],
                "current_player": self.get_player_id()}


def env_id(preset: str) -> str:
    """The ``rlcard.make`` id of a preset: ``shangyou-pagat``, ``shangyou-zheng-fen``."""
    family, _, rest = preset_info(preset)["name"].partition("/")
    slug = rest if family == "zheng-shangyou" else preset_info(preset)["name"].replace("/", "-")
    return f"shangyou-{slug}"


def env_ids() -> dict[str, str]:
    """Every preset's ``rlcard.make`` id → the preset."""
    return {env_id(p): p for p in preset_names()}


def _class_name(env: str) -> str:
    return "Env_" + env.replace("-", "_")


def _subclasses() -> None:
    """One subclass per preset, named for its id (``Env_shangyou_pagat``): ``rlcard.make``
    loads an environment as ``module:Class`` and calls ``Class(config)``."""
    for eid, preset in env_ids().items():
        name = _class_name(eid)
        globals()[name] = type(name, (ShangyouRLCardEnv,), {"PRESET": preset})


_subclasses()


def register() -> list[str]:
    """Register every preset with RLCard (``rlcard.make("shangyou-pagat", config)``); a
    second call does nothing. Returns the ids."""
    for eid in env_ids():
        if eid not in registry.env_specs:
            rlcard_register(eid, f"{__name__}:{_class_name(eid)}")
    return list(env_ids())
