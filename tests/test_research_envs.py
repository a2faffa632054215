"""Every preset as an OpenSpiel game and as an RLCard environment (``shangyou.env.openspiel``,
``shangyou.env.rlcard_env``), checked with each library's own tools: OpenSpiel's random-sim
test, outcome-sampling MCCFR, ISMCTS and its RL environment; RLCard's ``env.run`` with its
random agents and a few steps of its DQN agent's training."""

from __future__ import annotations

import random
import subprocess
import sys
from collections import OrderedDict

import numpy as np
import pytest
import pyspiel
import rlcard
from open_spiel.python import rl_environment
from open_spiel.python.algorithms import ismcts, mcts
from open_spiel.python.algorithms import outcome_sampling_mccfr as os_mccfr
from open_spiel.python.bots import uniform_random
from rlcard.agents import DQNAgent, RandomAgent
from rlcard.utils import reorganize

from shangyou import preset_info, preset_names
from shangyou.env import raw_env, rewards_of
from shangyou.env import openspiel as sy_spiel
from shangyou.env import rlcard_env as sy_rlcard

sy_spiel.register()
sy_rlcard.register()

# the smallest table of each preset keeps the tests quick
SMALL = {p: min(preset_info(p)["players"]) for p in preset_names()}


def spiel_game(preset: str, **params) -> pyspiel.Game:
    return pyspiel.load_game(sy_spiel.game_name(preset), {"players": SMALL[preset], **params})


def test_every_preset_is_registered():
    names = set(pyspiel.registered_names())
    assert set(sy_spiel.game_names()) <= names
    assert len(sy_spiel.game_names()) == len(preset_names())
    assert sy_spiel.register() == list(sy_spiel.game_names())      # a second call: no error
    g = pyspiel.load_game("shangyou_zheng_shangyou_pagat")
    assert g.num_players() == preset_info("zheng-shangyou/pagat")["defaults"]["players"]
    assert g.num_distinct_actions() == 128
    assert g.max_chance_outcomes() == sy_spiel.DEFAULT_DEALS
    assert g.get_type().information == pyspiel.GameType.Information.IMPERFECT_INFORMATION


def test_openspiel_parameters_and_ids_are_checked():
    """Bad parameters fail at load_game with the env's message; an id that is not legal raises
    and changes nothing; other observation kinds are refused, not faked."""
    name = "shangyou_zheng_shangyou_pagat"
    for params, message in (({"players": 2}, "3, 4, 5, 6, 7, 8 players"),
                            ({"deals": 0}, "deals must be"),
                            ({"max_candidates": 1}, "max_candidates must be"),
                            ({"bogus": 3}, "Unknown parameter")):
        with pytest.raises(Exception, match=message):
            pyspiel.load_game(name, params)
    game = pyspiel.load_game(name, {"players": 3})
    state = game.new_initial_state()
    state.apply_action(0)
    while 127 in state.legal_actions():          # to a decision of one page
        state.apply_action(state.legal_actions()[0])
    illegal = 127
    before = str(state)
    with pytest.raises(ValueError, match="not legal"):
        state.apply_action(illegal)
    assert str(state) == before
    everyone = pyspiel.IIGObservationType(perfect_recall=False, public_info=True,
                                          private_info=pyspiel.PrivateInfoType.ALL_PLAYERS)
    with pytest.raises(ValueError, match="own observation"):
        game.make_py_observer(everyone)


@pytest.mark.parametrize("preset", preset_names())
def test_openspiel_random_sim(preset):
    """OpenSpiel's own generic test (the one every OpenSpiel game passes): random games with
    clone, serialisation, legal-action, observation and return checks at every step."""
    pyspiel.random_sim_test(spiel_game(preset), num_sims=1, serialize=True, verbose=False)


@pytest.mark.parametrize("preset,k", [(p, 128) for p in preset_names()]
                         + [("zheng-shangyou/pagat", 4), ("sheng-ji/single-deck", 4)])
def test_openspiel_state_is_the_aec_env(preset, k):
    """Played side by side from the same deal with the same ids, the OpenSpiel state and the
    AEC env agree at every step: seat to act, legal ids (MORE included), every seat's
    observation tensor, and the returns; constant- and zero-sum games keep their sum."""
    n = SMALL[preset]
    game = spiel_game(preset, deals=2**31 - 1, max_candidates=k)
    utility = game.get_type().utility
    sums = {pyspiel.GameType.Utility.ZERO_SUM, pyspiel.GameType.Utility.CONSTANT_SUM}
    rng = random.Random(7)
    for episode in range(2):
        env = raw_env(preset, n, max_candidates=k)
        env.reset(seed=100 + episode)
        state = game.new_initial_state()
        assert state.is_chance_node()
        state.apply_action(env.game.seed)
        steps = 0
        while not state.is_terminal():
            seat = state.current_player()
            assert env.agent_selection == f"player_{seat}"
            ob = env.observe(env.agent_selection)
            legal = state.legal_actions()
            assert legal == [int(i) for i in np.flatnonzero(ob["action_mask"])]
            for p in range(n):
                want = env.observe(f"player_{p}")["observation"]
                assert np.array_equal(np.asarray(state.observation_tensor(p)), want)
            assert np.array_equal(np.asarray(state.information_state_tensor(seat)),
                                  ob["observation"])
            action = rng.choice(legal)
            assert state.action_to_string(seat, action) == (env.action_to_move(action)
                                                             or "MORE")
            state.apply_action(action)
            env.step(action)
            steps += 1
        assert env.game.over and steps <= game.max_game_length()
        returns = state.returns()
        assert returns == rewards_of(env.game) == [env.rewards[a] for a in env.possible_agents]
        assert game.min_utility() <= min(returns) <= max(returns) <= game.max_utility()
        if utility in sums:
            assert sum(returns) == pytest.approx(game.utility_sum())


@pytest.mark.parametrize("preset", ["zheng-shangyou/pagat", "zheng-shangyou/winner",
                                    "zheng-fen"])
def test_openspiel_cut_off_hand(preset):
    """A policy that pages with MORE for ever is cut off after ``max_steps`` decisions: the
    state is terminal, with 0 for everyone (an equal share of a constant sum)."""
    game = spiel_game(preset, max_candidates=2, max_steps=40)
    state = game.new_initial_state()
    state.apply_action(0)
    steps = 0
    while not state.is_terminal():
        legal = state.legal_actions()
        state.apply_action(1 if legal == [0, 1] else legal[0])    # MORE where there are pages
        steps += 1
    assert steps == 40 and not state.table.game.over
    n = game.num_players()
    kind = game.get_type().utility
    if kind == pyspiel.GameType.Utility.CONSTANT_SUM:
        assert state.returns() == [game.utility_sum() / n] * n
    else:
        assert state.returns() == [0.0] * n


def test_openspiel_information_state_hides_other_hands():
    """Seat 0's information state (string and tensor) does not change when two other hands
    are swapped; seat 1's does."""
    game = spiel_game("zheng-shangyou/pagat")
    state = game.new_initial_state()
    state.apply_action(3)
    swapped = state.clone()
    hands = swapped.table.game.hands
    hands[1], hands[2] = hands[2], hands[1]
    seat = 0
    assert state.information_state_string(seat) == swapped.information_state_string(seat)
    assert state.observation_tensor(seat) == swapped.observation_tensor(seat)
    assert state.information_state_string(1) != swapped.information_state_string(1)


def test_openspiel_outcome_sampling_mccfr():
    """OpenSpiel's outcome-sampling MCCFR runs on a Sheng ji preset: regrets are stored per
    information state, and the average policy is a distribution over the legal ids."""
    game = spiel_game("sheng-ji/single-deck")
    solver = os_mccfr.OutcomeSamplingSolver(game)
    for _ in range(2):
        solver.iteration()
    assert len(solver._infostates) > 50
    policy = solver.average_policy()
    state = game.new_initial_state()
    state.apply_action(0)
    probs = policy.action_probabilities(state)
    assert sorted(probs) == state.legal_actions()
    assert sum(probs.values()) == pytest.approx(1.0)


@pytest.mark.parametrize("preset", ["zheng-shangyou/pagat", "sheng-ji/single-deck"])
def test_openspiel_ismcts_with_the_world_sampler(preset):
    """OpenSpiel's information-set MCTS plays a hand against uniform random bots, sampling
    worlds with the search bots' sampler (``ShangyouState.resample``): each sample has the
    player's information state, and the hidden cards do vary between samples."""
    game = spiel_game(preset)
    rng = random.Random(0)
    state = game.new_initial_state()
    state.apply_action(11)
    for _ in range(30):                   # into the hand (Sheng ji deals card by card)
        state.apply_action(rng.choice(state.legal_actions()))
    seat = state.current_player()
    samples = [state.resample(seat, rng) for _ in range(6)]
    key = state.information_state_string(seat)
    assert all(s.information_state_string(seat) == key for s in samples)
    assert all(s.legal_actions() == state.legal_actions() for s in samples)
    other = (seat + 1) % game.num_players()
    assert len({tuple(s.table.game.hands[other]) for s in samples}) > 1

    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, np.random.RandomState(0)),
                           uct_c=2.0, max_simulations=4, random_state=np.random.RandomState(1))
    bot.set_resampler(lambda s, p: s.resample(p, rng))
    bots = [bot] + [uniform_random.UniformRandomBot(p, np.random.RandomState(p))
                    for p in range(1, game.num_players())]
    moves = 0
    while not state.is_terminal():
        action = bots[state.current_player()].step(state)
        assert action in state.legal_actions()
        state.apply_action(action)
        moves += 1
    assert moves > 10
    assert state.returns() == rewards_of(state.table.game)


def test_openspiel_rl_environment():
    """OpenSpiel's RL environment (``rl_environment.Environment``) plays a hand: the info
    state is the AEC observation, and the rewards at the end are the hand's."""
    game = spiel_game("zheng-shangyou/owen")
    env = rl_environment.Environment(game, seed=0)
    assert env.observation_spec()["info_state"] == (game.information_state_tensor_size(),)
    assert env.action_spec()["num_actions"] == 128
    rng = np.random.RandomState(0)
    ts = env.reset()
    while not ts.last():
        p = ts.observations["current_player"]
        ts = env.step([rng.choice(ts.observations["legal_actions"][p])])
    assert ts.rewards == rewards_of(env.get_state.table.game)


# ------------------------------------------------------------------------------- RLCard
@pytest.mark.parametrize("preset", preset_names())
def test_rlcard_run_with_random_agents(preset):
    """RLCard's ``env.run`` with its random agents plays a hand of every preset: the state
    dicts have RLCard's keys, the legal ids are the mask's, the raw actions their move texts,
    the payoffs the hand's rewards; the same seed replays the same hand."""
    eid = sy_rlcard.env_id(preset)
    runs = []
    for _ in range(2):
        env = rlcard.make(eid, config={"seed": 5, "game_num_players": SMALL[preset]})
        assert env.num_players == SMALL[preset] and env.num_actions == 128
        env.set_agents([RandomAgent(num_actions=env.num_actions)
                        for _ in range(env.num_players)])
        np.random.seed(1)                 # RandomAgent draws from numpy's global generator
        trajectories, payoffs = env.run(is_training=False)
        assert env.is_over()
        assert list(payoffs) == rewards_of(env.aec.game)
        runs.append(([[a for a in t if isinstance(a, (int, np.integer))] for t in trajectories],
                     list(payoffs)))
        first = trajectories[0][0]
        assert set(first) == {"obs", "legal_actions", "raw_obs", "raw_legal_actions",
                              "action_record"}
        assert isinstance(first["legal_actions"], OrderedDict)
        assert first["obs"].shape == tuple(env.state_shape[0])
        assert first["raw_obs"]["seat"] == 0
    assert runs[0] == runs[1]


def test_rlcard_state_matches_the_aec_env():
    env = sy_rlcard.ShangyouRLCardEnv("zheng-shangyou/pagat",
                                      {"seed": 3, "game_num_players": 3,
                                       "game_max_candidates": 4})
    state, seat = env.reset()
    rng = random.Random(0)
    more = 0
    while not env.is_over():
        ob = env.aec.observe(f"player_{seat}")
        ids = list(state["legal_actions"])
        assert ids == [int(i) for i in np.flatnonzero(ob["action_mask"])]
        assert np.array_equal(state["obs"], ob["observation"].astype(np.float32))
        assert state["raw_legal_actions"] == [env.aec.action_to_move(i) or "MORE" for i in ids]
        i = rng.randrange(len(ids))
        more += state["raw_legal_actions"][i] == "MORE"
        if rng.random() < 0.5:            # an id, or its move text (use_raw agents)
            state, seat = env.step(ids[i])
        else:
            state, seat = env.step(state["raw_legal_actions"][i], raw_action=True)
    assert more > 0                       # K = 4: pages were turned
    assert list(env.get_payoffs()) == rewards_of(env.aec.game)


def test_rlcard_config():
    """Preset options come in ``game_options``; a bad option and ``allow_step_back`` fail at
    once."""
    env = rlcard.make("shangyou-winner", config={"game_num_players": 3, "seed": 1,
                                                 "game_options": {"jokers": True}})
    state, _ = env.reset()
    assert len(state["raw_obs"]["hand"]) == 18           # 54 cards: the jokers are dealt
    with pytest.raises(ValueError, match="nonsense"):
        rlcard.make("shangyou-winner", config={"game_options": {"nonsense": 1}})
    with pytest.raises(ValueError, match="allow_step_back"):
        rlcard.make("shangyou-pagat", config={"allow_step_back": True})


def test_rlcard_dqn_trains():
    """RLCard's DQN agent learns from a few hands (the training loop of RLCard's examples:
    run, reorganize, feed) against random agents: it takes training steps."""
    import torch
    threads = torch.get_num_threads()
    # one thread: PyTorch's worker threads spin on a busy machine (20 times slower there)
    torch.set_num_threads(1)
    try:
        _dqn_trains(torch)
    finally:
        torch.set_num_threads(threads)


def _dqn_trains(torch) -> None:
    torch.manual_seed(0)
    env = rlcard.make("shangyou-pagat", config={"seed": 0, "game_num_players": 3})
    agent = DQNAgent(num_actions=env.num_actions, state_shape=env.state_shape[0],
                     mlp_layers=[32], replay_memory_init_size=16, batch_size=8,
                     train_every=1, device=torch.device("cpu"))
    env.set_agents([agent] + [RandomAgent(num_actions=env.num_actions) for _ in range(2)])
    fed = 0
    for _ in range(3):
        trajectories, payoffs = env.run(is_training=True)
        for ts in reorganize(trajectories, payoffs)[0]:
            agent.feed(ts)
            fed += 1
    assert fed > 16 and agent.train_t > 0
    state, seat = env.reset()
    while seat != 0:
        state, seat = env.step(RandomAgent(env.num_actions).step(state))
    action, info = agent.eval_step(state)
    assert action in state["legal_actions"]


def test_env_does_not_import_the_research_libraries():
    """``import shangyou.env`` works without OpenSpiel or RLCard (they are optional)."""
    code = ("import sys, shangyou.env; "
            "print(any(m in sys.modules for m in ('pyspiel', 'rlcard')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"
