"""PettingZoo AEC environment for every preset (one hand per episode by default).

Agents are ``player_0 .. player_{n-1}`` (seat numbers). The agent to act is the game's
``to_act``; players who are out of cards simply are not selected until the hand ends, when every
agent is terminated at once with its reward from the hand result (see :func:`rewards_of`).
An episode that reaches ``max_steps`` steps (MORE included; default :data:`DEFAULT_MAX_STEPS`)
is truncated: every agent at once, with reward 0.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

import numpy as np

try:
    from gymnasium import spaces
    from pettingzoo import AECEnv
except ModuleNotFoundError as e:      # the env extra names itself
    from . import missing_extra
    raise missing_extra(e.name) from None

from .. import new_game, new_match, preset_info
from ..games.climbing import core
from ..games.climbing.core import is_plays
from ..registry import resolve
from .encoding import ClimbingEncoder, Pager, Rows, one_page_masks
from .features import rewards_of  # noqa: F401  (the env's reward; the trainer uses it too)
from .plays_pager import ONE_MOVE, PLAYS, PlaysPager
from .sheng_ji_encoding import ShengJiEncoder

if TYPE_CHECKING:
    from ..engine.base import GameBase

DEFAULT_CANDIDATES = 128
#: Steps (every agent's, MORE included) after which an episode is truncated. A random hand
#: takes at most about 150 steps and a sensible one fewer; a policy that pages with MORE
#: forever is cut off here instead of running for ever. ``max_steps=None`` turns it off.
DEFAULT_MAX_STEPS = 10_000


def check_max_steps(max_steps: int | None) -> int | None:
    if max_steps is not None and (isinstance(max_steps, bool) or not isinstance(max_steps, int)
                                  or max_steps < 1):
        raise ValueError(f"max_steps must be a whole number of at least 1, or None "
                         f"(no limit), not {max_steps!r}")
    return max_steps


def seat_to_act(game: GameBase) -> int:
    """The seat to act in a game that is not over."""
    seat = game.to_act
    assert seat is not None         # only a game that is over has no seat to act
    return seat


def encoder_for(preset: str, players: int, k: int):
    key, module = resolve(preset)
    return ShengJiEncoder(players, k) if key.startswith("sheng-ji") else ClimbingEncoder(players, k)


class ShangyouAEC(AECEnv):
    """One preset as a PettingZoo AEC environment; see ``docs/env.md``."""

    metadata: dict[str, Any] = {"render_modes": ["human", "ansi"], "name": "shangyou_v0",
                                "is_parallelizable": False, "render_fps": 1}

    def __init__(self, preset: str = "zheng-shangyou/pagat", players: int | None = None,
                 render_mode: str | None = None, max_candidates: int = DEFAULT_CANDIDATES,
                 match: bool = False, max_steps: int | None = DEFAULT_MAX_STEPS, **options):
        super().__init__()
        self.max_steps = check_max_steps(max_steps)
        info = preset_info(preset)
        self.preset = info["name"]
        self.players = players if players is not None else info["defaults"]["players"]
        self.options = dict(options)
        self.match = match
        if max_candidates < 2:
            raise ValueError("max_candidates must be at least 2")
        self.max_candidates = max_candidates
        # build one game to check the options now (bad options: a clear error here)
        probe = self._new(0)
        self.encoder = encoder_for(self.preset, self.players, max_candidates)
        self.observation_slices = dict(self.encoder.slices)
        self._rows = Rows(self.encoder.size)
        self.possible_agents = [f"player_{i}" for i in range(self.players)]
        self.agent_seat = {a: i for i, a in enumerate(self.possible_agents)}
        obs_space = spaces.Dict({
            "observation": spaces.Box(0, 127, (self.encoder.layout.size,), np.int8),
            "action_mask": spaces.Box(0, 1, (max_candidates,), np.int8)})
        self._obs_spaces = {a: obs_space for a in self.possible_agents}
        self._act_spaces = {a: spaces.Discrete(max_candidates) for a in self.possible_agents}
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}")
        self.render_mode = render_mode
        self._seeder = random.Random()
        self.game: GameBase | None = None       # the episode's game, dealt by reset()
        self._pager: Pager | None = None
        self._no_mask = np.zeros(max_candidates, np.int8)
        self._all_moves = hasattr(probe, "all_moves")    # a climbing game
        self._by_text = self.encoder.by_text
        self._masks = one_page_masks(max_candidates)

    # ------------------------------------------------------------------ spaces
    def observation_space(self, agent):
        return self._obs_spaces[agent]

    def action_space(self, agent):
        return self._act_spaces[agent]

    # ------------------------------------------------------------------- game
    def _new(self, seed: int):
        make = new_match if self.match else new_game
        return make(self.preset, players=self.players, seed=seed, **self.options)

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            self._seeder = random.Random(seed)
        self.game = g = self._new(self._seeder.randrange(2**31))
        self.encoder.reset()
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict] = {a: {} for a in self.agents}
        self._pager = None
        self.num_steps = 0               # steps of this episode, MORE included
        self.agent_selection = self.possible_agents[seat_to_act(g)]

    def _live(self) -> GameBase:
        """The episode's game; RuntimeError before the first reset()."""
        g = self.game
        if g is None:
            raise RuntimeError("no game yet: call reset() first")
        return g

    def pager(self) -> Pager | None:
        """The candidates of the decision now (None once the game is over)."""
        g = self._live()
        if g.over:
            return None
        return self._pager or self._new_pager(g)

    def _new_pager(self, g) -> Pager:
        """The candidates of a new decision (the game is not over)."""
        # every legal move at once: the environments do not choose plays in steps. The
        # compiled core's listing (``Plays``) is every legal move (docs/core.md: past 400
        # plays the game offers the steps of a choice instead); anything else may be steps
        # (a list, or the core's lazy ``Steps`` / ``Subset``): ask all_moves
        # plays: read from the listing in C without a Move per candidate (plays_pager.py),
        # unless two plays hold the same cards
        moves = g.legal_moves()
        if type(moves) is PLAYS:         # plays_pager(moves, k), inline
            order = ONE_MOVE if len(moves) == 1 else moves.env_sort()
            if order is not None:
                self._pager = plays = PlaysPager(moves, order, self.max_candidates)
                return plays
        elif self._all_moves and not is_plays(moves):
            moves = g.all_moves()
        pager = self._pager = Pager(moves, self.max_candidates, self._by_text)
        return pager

    def candidates(self, game) -> Pager:
        """A new candidate list for the decision of ``game`` (not over), as this env lists and
        pages it, for a game other than the episode's (the OpenSpiel game's states); the
        episode's decision is left as it was."""
        kept = self._pager
        try:
            return self._new_pager(game)
        finally:
            self._pager = kept

    def _decision(self) -> Pager:
        """The candidates of the decision now; ValueError once the game is over (no id is
        legal then)."""
        pager = self._pager          # kept until a move is made (MORE keeps it too)
        if pager is not None:
            return pager
        pager = self.pager()
        if pager is None:
            raise ValueError("the game is over: no action is legal")
        return pager

    def action_to_move(self, action: int) -> str | None:
        """The move text of an id now (None: MORE, the next page); ValueError if illegal."""
        return self._decision().decode(action)

    def move_to_actions(self, text: str) -> list[int]:
        """The ids that play ``text`` from the current page 0 (``MORE`` ids, then the move)."""
        return self._decision().encode(text)

    def observe(self, agent):
        seat = self.agent_seat[agent]
        g = self.game
        if g is None:
            raise RuntimeError("no game yet: call reset() first")
        rows = self._rows                # Rows.take, inline (once per step)
        i = rows.i
        if i == rows.rows:
            rows.new_block()
            i = 0
        rows.i = i + 1
        if g.to_act == seat and not g.over:
            pager = self._pager or self._new_pager(g)
            self.encoder.write(rows.buf, i * rows.size, g, seat, pager)
            return {"observation": rows.arr[i],
                    "action_mask": self._masks[pager.n].copy() if pager.pages == 1
                    else pager.mask()}
        self.encoder.write(rows.buf, i * rows.size, g, seat, None)
        return {"observation": rows.arr[i], "action_mask": self._no_mask.copy()}

    def last(self, observe: bool = True):
        """``(observation, cumulative reward, terminated, truncated, info)`` of the agent to
        act: ``AECEnv.last``, with its attributes read once."""
        agent = self.agent_selection
        assert agent is not None
        return (self.observe(agent) if observe else None, self._cumulative_rewards[agent],
                self.terminations[agent], self.truncations[agent], self.infos[agent])

    def step(self, action) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        pager = self._pager or self._decision()
        g = self.game
        assert g is not None             # a decision has a game
        if (type(pager) is PlaysPager and pager.pages == 1 and type(action) is int
                and 0 <= action < pager.n):
            # the usual step: a play listed by the core (PlaysPager.move, inline), made as
            # game.apply makes it (core.apply_listed, else the game's own path)
            move = pager.plays[pager.order[action]]
            self._cumulative_rewards[agent] = 0.0
            if not (core.ACTIVE and core.apply_listed(g, move, None)):
                g.apply(move)
            self._pager = None
        else:
            move = pager.move(action)    # a forbidden id raises here, before any change
            self._cumulative_rewards[agent] = 0.0
            if move is None:
                pager.turn()
            else:
                g.apply(move)
                self._pager = None
        self.num_steps += 1
        if g.over:
            # rewards stay 0 during the hand; the hand result gives them at its end
            self.rewards = dict(zip(self.possible_agents, rewards_of(g)))
            for a in self.agents:
                self.terminations[a] = True
            self.infos = {a: {"result": g.result} for a in self.agents}
            self._accumulate_rewards()
        elif self.max_steps is not None and self.num_steps >= self.max_steps:
            # truncated: the hand has no result, so every agent gets 0
            self.rewards = {a: 0.0 for a in self.agents}
            for a in self.agents:
                self.truncations[a] = True
            self.infos = {a: {"max_steps": self.max_steps} for a in self.agents}
            self.agent_selection = self.possible_agents[seat_to_act(g)]
            self._accumulate_rewards()
        else:
            seat = g.to_act
            assert seat is not None         # only a game that is over has no seat to act
            self.agent_selection = self.possible_agents[seat]
        if self.render_mode == "human":
            self.render()

    # ------------------------------------------------------------------ render
    def render(self):
        text = render_text(self.game)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass


def render_text(g) -> str:
    """The table as text: public state and the hand of the seat to act."""
    v = g.public_view()
    lines = [f"{v['game']}  hand {v.get('hand_number', 1)}  phase {v['phase']}"]
    counts = v.get("counts", [])
    lines.append("cards held: " + "  ".join(f"p{i}={c}" for i, c in enumerate(counts)))
    if v.get("trick"):
        lines.append("trick: " + ", ".join(f"p{s}: {t}" for s, t in v["trick"]))
    if v.get("last"):
        lines.append(f"to beat: {v['last']['cards']} (p{v['last']['seat']})")
    if v.get("trump"):
        lines.append(f"trump: {v['trump']}")
    if g.over:
        lines.append(f"result: {g.result}")
    else:
        seat = g.to_act
        hand = g.view(seat)["hand"]
        lines.append(f"to act: p{seat}  hand: {' '.join(hand)}")
    return "\n".join(lines)
