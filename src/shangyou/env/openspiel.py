"""Every preset as an OpenSpiel game, so OpenSpiel's algorithms and tools run on it.

>>> from shangyou.env import openspiel as sy_spiel
>>> names = sy_spiel.register()                 # idempotent; needs ``open-spiel``
>>> import pyspiel
>>> game = pyspiel.load_game("shangyou_zheng_shangyou_pagat", {"players": 3})
>>> game.num_players(), game.num_distinct_actions()
(3, 128)

One game per preset, named ``shangyou_`` + the preset with ``/`` and ``-`` as ``_``
(:func:`game_name`): ``shangyou_zheng_shangyou_pagat``, ``shangyou_sheng_ji_zhao_pengyou``, ...
Parameters: ``players`` (the preset's default), ``max_candidates`` (K, default 128),
``deals`` (default 65,536) and ``max_steps`` (default 10,000).

What maps to what (docs/env.md, *OpenSpiel and RLCard*):

- **Chance**: one explicit chance node, the deal: outcome ``i`` of ``deals`` equally likely ones
  is the game dealt by ``new_game(preset, seed=i)``. Every later random draw of the game comes
  from that seed, so the rest of the game is deterministic. ``deals`` bounds how many distinct
  deals there are (``chance_outcomes()`` lists them all, so it is not 2**31).
- **Actions**: the AEC env's paged candidate ids (``num_distinct_actions`` = K): ids
  ``0 .. count-1`` pick a candidate of the current page, K-1 is MORE (the next page) when the
  decision has more than K candidates. A MORE step is a decision of the same player that
  changes only the page.
- **Observations**: ``observation_tensor`` and ``information_state_tensor`` are the AEC
  env's observation vector (the same encoder, as floats; tensor pieces named by
  ``observation_slices``); before the deal they are zeros. The strings are the seat's view
  (``game.view(seat)``, JSON with sorted keys) and the page: the view holds the seat's hand and
  every public play of the hand, so it is what the seat knows.
- **Returns**: 0 until the hand ends, then :func:`shangyou.env.rewards_of`. A hand cut off after
  ``max_steps`` decisions (MORE included) has no result: everyone gets 0, as in the AEC env,
  except in constant-sum games, where everyone gets an equal share of the sum (so the
  declared sum holds for every terminal state).
- **Utility**: constant-sum where the preset's points are (places scoring: the place points;
  equal teams: times the team size), zero-sum for cards-left scoring and Sheng ji with fixed
  equal teams, general-sum otherwise (Zheng Fen, pagat-teams with 6, Zhao Pengyou).
"""

from __future__ import annotations

import json
import random
from typing import Any

import numpy as np

try:
    import pyspiel
except ModuleNotFoundError as missing:          # one line that says what to install
    raise ModuleNotFoundError(
        f"shangyou.env.openspiel needs open-spiel ({missing.name} is missing): "
        "pip install 'shangyou[research]'", name=missing.name) from None

from .. import new_game, preset_info, preset_names
from ..cards import deck
from .aec import DEFAULT_CANDIDATES, DEFAULT_MAX_STEPS, ShangyouAEC, render_text, rewards_of
from ..games.climbing import core
from .encoding import Pager
from .plays_pager import PlaysPager

#: default number of distinct deals (chance outcomes of the one chance node)
DEFAULT_DEALS = 1 << 16

__all__ = ["register", "game_name", "game_names", "ShangyouGame", "ShangyouState",
           "DEFAULT_DEALS", "utility_of", "utility_bounds"]


def game_name(preset: str) -> str:
    """The OpenSpiel name of a preset: ``shangyou_zheng_shangyou_pagat``."""
    return "shangyou_" + preset_info(preset)["name"].replace("/", "_").replace("-", "_")


def game_names() -> dict[str, str]:
    """Every preset's OpenSpiel name → the preset."""
    return {game_name(p): p for p in preset_names()}


def register() -> list[str]:
    """Register every preset with OpenSpiel (``pyspiel.load_game`` finds them by name);
    a second call does nothing. Returns the names."""
    known = set(pyspiel.registered_names())
    for name, preset in game_names().items():
        if name not in known:
            pyspiel.register_game(_game_type(name, preset), _creator(preset))
    return list(game_names())


def _creator(preset: str) -> type:
    """A subclass of :class:`ShangyouGame` for one preset, as OpenSpiel registers a game: by
    its class. (A class, not a closure: pyspiel keeps the creator until the interpreter has
    finalised, and freeing a plain function then aborts the process.)"""
    return type(f"ShangyouGame_{game_name(preset)[len('shangyou_'):]}", (ShangyouGame,),
                {"PRESET": preset})


def _game_type(name: str, preset: str) -> pyspiel.GameType:
    info = preset_info(preset)
    players = info["players"]
    # the utility kind of the default table; a game made with other parameters declares its own
    # (GameType is per name, so this is what pyspiel.registered_games() shows)
    kind, _ = utility_of(preset, info["defaults"]["players"])
    return pyspiel.GameType(
        short_name=name, long_name=f"shangyou {info['name']}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=kind, reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=max(players), min_num_players=min(players),
        provides_information_state_string=True, provides_information_state_tensor=True,
        provides_observation_string=True, provides_observation_tensor=True,
        parameter_specification={"players": info["defaults"]["players"],
                                 "max_candidates": DEFAULT_CANDIDATES,
                                 "deals": DEFAULT_DEALS, "max_steps": DEFAULT_MAX_STEPS})


def utility_of(preset: str, players: int) -> tuple[Any, float]:
    """(``pyspiel.GameType.Utility``, utility sum) of a preset at a table size, read from the
    rules: places scoring hands out the same points every hand (constant-sum; with teams of
    equal size every member gets its team's points), cards-left scoring is zero-sum, as is
    Sheng ji with fixed equal teams (one side gains what the other loses)."""
    U = pyspiel.GameType.Utility
    rules = new_game(preset, players=players, seed=0).rules
    teams = getattr(rules, "teams", None)
    if hasattr(rules, "scoring"):                           # climbing
        if rules.scoring == "cards-left":
            return U.ZERO_SUM, 0.0
        if rules.scoring == "places":
            total = float(sum(rules.place_points[:players]))
            if not teams:
                return U.CONSTANT_SUM, total
            if len({len(t) for t in teams}) == 1:
                return U.CONSTANT_SUM, total * len(teams[0])
        return U.GENERAL_SUM, 0.0
    if teams and len({len(t) for t in teams}) == 1:         # Sheng ji, fixed partnerships
        return U.ZERO_SUM, 0.0
    return U.GENERAL_SUM, 0.0


def utility_bounds(game) -> tuple[float, float]:
    """Bounds of a seat's reward at the end of a hand of ``game`` (a shangyou game), from its
    rules. They are safe rather than tight (OpenSpiel needs min < max and every return
    between them)."""
    r = game.rules
    n = game.n
    if hasattr(r, "scoring"):                               # climbing
        cards = deck(r.decks, r.jokers)
        if r.scoring == "places":
            return 0.0, float(sum(r.place_points))          # a team gets at most every place
        if r.scoring == "teams6":
            return 0.0, 10.0
        if r.scoring == "cards-left":
            return -3.0 * len(cards), 3.0 * len(cards)      # triple every card left, at most
        return 0.0, float(r.family.points(cards))          # trick points: the pack's points
    # Sheng ji: levels = 4 + |p| // u at most, p the opponents' points: the pack's points, the
    # kitty's (at most the pack's) times the largest kitty multiplier a hand allows, and a
    # throw penalty per trick at most
    # (the largest multiplier is a tractor of pairs as long as half a hand; one pack has no
    # pairs, so only singles, 2)
    u = 20 * r.decks
    hand = (54 * r.decks - r.kitty) // n
    tuples = hand // 2
    if r.decks < 2:
        mult = 2
    else:
        mult = 2 ** (tuples + 1) if r.kitty_multiplier == "power" else 2 * (tuples + 1)
    kitty_points = min(100 * r.decks, 10 * r.kitty)
    p = 100 * r.decks + kitty_points * mult + r.throw_penalty * hand * n
    top = float(4 + p // u)
    return -top, top


class ShangyouGame(pyspiel.Game):
    """One preset as an OpenSpiel game (see the module docstring)."""

    #: the preset of a registered subclass (``pyspiel.load_game`` makes it as ``cls(params)``)
    PRESET: str | None = None

    def __init__(self, preset: str | dict | None = None, params: dict | None = None):
        if not isinstance(preset, str):            # cls(params), as pyspiel calls it
            params = preset if params is None else params
            preset = self.PRESET
        if preset is None:
            raise ValueError("ShangyouGame needs a preset")
        params = dict(params or {})
        info = preset_info(preset)
        name = game_name(preset)
        self.preset = info["name"]
        self.players = int(params.get("players", info["defaults"]["players"]))
        self.max_candidates = int(params.get("max_candidates", DEFAULT_CANDIDATES))
        self.deals = int(params.get("deals", DEFAULT_DEALS))
        self.max_steps = int(params.get("max_steps", DEFAULT_MAX_STEPS))
        if not 1 <= self.deals < 2**31:       # OpenSpiel counts chance outcomes in an int
            raise ValueError(f"deals must be 1 .. 2**31 - 1, not {self.deals}")
        if self.max_steps < 1:
            raise ValueError(f"max_steps must be at least 1, not {self.max_steps}")
        # the AEC env: its encoder and its way of listing a decision's candidates (bad
        # parameters raise here, as the env's constructor checks them)
        self.env = ShangyouAEC(self.preset, self.players, max_candidates=self.max_candidates,
                               max_steps=self.max_steps)
        probe = new_game(self.preset, players=self.players, seed=0)
        low, high = utility_bounds(probe)
        kind, total = utility_of(self.preset, self.players)
        game_type = _game_type(name, self.preset)
        if kind != game_type.utility:       # another table size of the preset scores otherwise
            game_type = pyspiel.GameType(
                short_name=name, long_name=game_type.long_name, dynamics=game_type.dynamics,
                chance_mode=game_type.chance_mode, information=game_type.information,
                utility=kind, reward_model=game_type.reward_model,
                max_num_players=game_type.max_num_players,
                min_num_players=game_type.min_num_players,
                provides_information_state_string=True,
                provides_information_state_tensor=True, provides_observation_string=True,
                provides_observation_tensor=True,
                parameter_specification=game_type.parameter_specification)
        game_info = pyspiel.GameInfo(
            num_distinct_actions=self.max_candidates, max_chance_outcomes=self.deals,
            num_players=self.players, min_utility=low, max_utility=high,
            utility_sum=total if kind in (pyspiel.GameType.Utility.ZERO_SUM,
                                          pyspiel.GameType.Utility.CONSTANT_SUM) else None,
            max_game_length=self.max_steps)
        super().__init__(game_type, game_info, {"players": self.players,
                                                "max_candidates": self.max_candidates,
                                                "deals": self.deals,
                                                "max_steps": self.max_steps})
        self.slices = dict(self.env.observation_slices)
        self.obs_size = self.env.encoder.layout.size
        self._chance: list[tuple[int, float]] | None = None    # listed when first asked for
        # the returns of a hand cut off at max_steps: no result, so a draw
        share = total / self.players if kind == pyspiel.GameType.Utility.CONSTANT_SUM else 0.0
        self.cut_returns = [share] * self.players

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The deals, equally likely (listed once per game)."""
        if self._chance is None:
            self._chance = [(i, 1.0 / self.deals) for i in range(self.deals)]
        return self._chance

    def new_initial_state(self) -> ShangyouState:
        return ShangyouState(self)

    def make_py_observer(self, iig_obs_type=None, params=None) -> ShangyouObserver:
        """The seat's own observation (public and its private information), for both the
        observation and the information state; other kinds (public only, every player's
        private cards) are not offered."""
        if params:
            raise ValueError(f"observation parameters are not supported: {params}")
        if iig_obs_type is not None and (
                not iig_obs_type.public_info
                or iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER):
            raise ValueError("only the seat's own observation is offered (public information "
                             "and the seat's private cards)")
        return ShangyouObserver(self)


class _Shared:
    """What every state of one game shares (never copied): the game object."""

    __slots__ = ("game",)

    def __init__(self, game: ShangyouGame):
        self.game = game

    def __deepcopy__(self, memo) -> _Shared:
        return self

    def __reduce__(self):
        g = self.game
        return _shared_for, (g.preset, g.get_parameters())


_UNPICKLED: dict[tuple, _Shared] = {}   # one game per preset and parameters, for unpickling


def _shared_for(preset: str, params: dict) -> _Shared:
    key = (preset, tuple(sorted(params.items())))
    shared = _UNPICKLED.get(key)
    if shared is None:
        shared = _UNPICKLED[key] = _Shared(ShangyouGame(preset, params))
    return shared


class _Table:
    """The shangyou game of a state after the deal, with the current decision's candidates
    (made when first asked for, dropped at each move) and its page. A copy clones the game
    (``game.clone()``, not a deep copy); pickling pickles the game, not the pager."""

    __slots__ = ("game", "pager", "page")

    def __init__(self, game, page: int = 0):
        self.game = game
        self.pager: Pager | None = None
        self.page = page

    def __deepcopy__(self, memo) -> _Table:
        return _Table(self.game.clone(), self.page)

    def __reduce__(self):
        return _Table, (self.game, self.page)     # the pager is made again when needed


class ShangyouState(pyspiel.State):
    """A state of a :class:`ShangyouGame`: before the deal (a chance node), a seat's decision,
    or the end of the hand."""

    def __init__(self, game: ShangyouGame):
        super().__init__(game)
        self.shared = _Shared(game)
        self.table: _Table | None = None     # None until the deal
        self.steps = 0                       # decisions so far, MORE included
        self.cut = False                     # cut off after max_steps decisions

    # -------------------------------------------------------------- the decision
    def _pager(self) -> Pager:
        t = self.table
        assert t is not None
        pager = t.pager
        if pager is None:
            pager = t.pager = self.shared.game.env.candidates(t.game)
            pager.page = t.page
        return pager

    def current_player(self) -> int:
        t = self.table
        if t is None:
            return pyspiel.PlayerId.CHANCE
        if self.cut or t.game.over:
            return pyspiel.PlayerId.TERMINAL
        return t.game.to_act

    def is_terminal(self) -> bool:
        t = self.table
        return t is not None and (self.cut or t.game.over)

    def _legal_actions(self, player: int) -> list[int]:
        """The ids the AEC env's mask allows: the candidates of the page, then MORE."""
        pager = self._pager()
        if pager.pages == 1:
            return list(range(pager.n))
        return list(range(pager._page_len())) + [pager.k - 1]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        assert self.table is None
        return self.shared.game.chance_outcomes()

    def _apply_action(self, action: int) -> None:
        sg = self.shared.game
        if self.table is None:
            if not 0 <= action < sg.deals:
                raise ValueError(f"deal {action} is not one of 0 .. {sg.deals - 1}")
            self.table = _Table(new_game(sg.preset, players=sg.players, seed=int(action)))
            return
        t = self.table
        pager = self._pager()
        if type(pager) is PlaysPager and pager.pages == 1 and 0 <= action < pager.n:
            # the usual step, made as the AEC env makes it (a play of the core's listing)
            move = pager.plays[pager.order[action]]
            if not (core.ACTIVE and core.apply_listed(t.game, move, None)):
                t.game.apply(move)
            t.pager = None
        else:
            self._apply_general(t, pager, action)
        self.steps += 1
        if not t.game.over and self.steps >= sg.max_steps:
            self.cut = True

    def _apply_general(self, t: _Table, pager: Pager, action: int) -> None:
        move = pager.move(action)        # an id that is not legal raises, nothing changes
        if move is None:
            pager.turn()
            t.page = pager.page
        else:
            t.game.apply(move)
            t.pager = None
            t.page = 0

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {action}"
        text = self._pager().decode(action)
        return "MORE" if text is None else text

    def returns(self) -> list[float]:
        t = self.table
        if self.cut:
            return list(self.shared.game.cut_returns)
        if t is None or not t.game.over:
            return [0.0] * self.shared.game.players
        return rewards_of(t.game)

    def __str__(self) -> str:
        t = self.table
        if t is None:
            return "before the deal"
        g = t.game
        head = f"seed {g.seed}, {len(g.moves)} moves, {self.steps} steps"
        if self.cut:
            head += ", cut off"
        elif not g.over:
            pager = self._pager()
            head += f", page {pager.page + 1}/{pager.pages}"
        return head + "\n" + render_text(g)

    def resample(self, player: int, rng: random.Random) -> ShangyouState:
        """A state of the same information state for ``player``: the hidden cards dealt at
        random in agreement with the seat's view (the search bots' world sampler,
        ``games/<game>/worlds.py``), the same page. For ISMCTS:
        ``ISMCTSBot.set_resampler(lambda s, p: s.resample(p, rng))``."""
        t = self.table
        if t is None or self.is_terminal():
            return self.clone()
        view = t.game.view(player)
        world: Any
        if hasattr(t.game, "all_moves"):            # climbing
            from ..games.climbing.worlds import WorldSampler
            world = WorldSampler(view, t.game.rules).sample(rng)
        else:
            from ..games.sheng_ji.worlds import sample_world
            world = sample_world(view, rng, t.game.rules)
        new = self.clone()
        new.table = _Table(world, t.page)
        return new

    # ------------------------------------------------------------- observations
    def observation_array(self, player: int) -> np.ndarray:
        """The AEC env's observation of seat ``player`` (int8; zeros before the deal)."""
        sg = self.shared.game
        t = self.table
        if t is None:
            return np.zeros(sg.obs_size, np.int8)
        g = t.game
        mine = g.to_act == player and not g.over and not self.cut
        return sg.env.encoder.observe(g, player, self._pager() if mine else None)

    def view_string(self, player: int) -> str:
        """The seat's view as JSON (sorted keys) and the page of its decision."""
        t = self.table
        if t is None:
            return f"p{player} before the deal"
        g = t.game
        text = json.dumps(g.view(player), sort_keys=True, separators=(",", ":"), default=str)
        if g.to_act == player and not g.over and not self.cut:
            pager = self._pager()
            text += f" page {pager.page + 1}/{pager.pages}"
        if self.cut:
            text += " cut off"
        return f"p{player} {text}"


class ShangyouObserver:
    """OpenSpiel's Python observer protocol over the AEC env's observation: ``tensor`` (float32)
    with one piece per observation slice in ``dict``."""

    def __init__(self, game: ShangyouGame):
        self.tensor = np.zeros(game.obs_size, np.float32)
        self.dict = {name: self.tensor[sl] for name, sl in game.slices.items()}

    def set_from(self, state: ShangyouState, player: int) -> None:
        self.tensor[:] = state.observation_array(player)

    def string_from(self, state: ShangyouState, player: int) -> str:
        return state.view_string(player)

