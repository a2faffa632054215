"""The Gymnasium vector env (``make_vec(id, vectorization_mode="vector_entry_point")``): row
``i`` is the single env reset with ``seed + i`` and autoreset at the next step."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode, VectorEnv

from shangyou import env as sy_env
from shangyou.bots.base import RandomBot
from shangyou.env.vector import ShangyouVectorEnv

N = 4


def _vec(env_id, **kwargs):
    return gymnasium.make_vec(env_id, num_envs=N, vectorization_mode="vector_entry_point",
                              **kwargs)


def _ids(rng, masks, illegal=0.0):
    """One random legal id per row (a row with an all-zero mask: 0); with probability
    ``illegal`` a forbidden id instead, where the row has one."""
    out = []
    for m in masks:
        legal = np.flatnonzero(m)
        bad = np.flatnonzero(m == 0)
        if len(bad) and (not len(legal) or rng.random() < illegal):
            out.append(int(rng.choice(bad)) if len(legal) else 0)
        else:
            out.append(int(rng.choice(legal)))
    return np.array(out, np.int64)


def _row_info(infos: dict, i: int) -> dict:
    """Row ``i``'s info, rebuilt from Gymnasium's batched infos (``key`` and ``_key``;
    a dict value is batched key by key)."""
    out = {}
    for key, value in infos.items():
        if not key.startswith("_") and infos[f"_{key}"][i]:
            out[key] = _row_info(value, i) if isinstance(value, dict) else value[i]
    return out


def test_every_id_has_the_vector_entry_point():
    for env_id in sy_env.gym_ids():
        assert gymnasium.spec(env_id).vector_entry_point == \
            "shangyou.env.vector:ShangyouVectorEnv"
    v = gymnasium.make_vec("shangyou/zheng-fen-v0", num_envs=2)    # Gymnasium's default mode
    assert type(v) is ShangyouVectorEnv
    assert type(gymnasium.make_vec("shangyou/zheng-fen-v0", num_envs=2,
                                   vectorization_mode="sync")) is gymnasium.vector.SyncVectorEnv


@pytest.mark.parametrize("env_id, kwargs, steps, illegal", [
    ("shangyou/pagat-v0", {"opponents": "random"}, 300, 0.0),
    ("shangyou/pagat-v0", {"opponents": "greedy", "players": 3, "max_candidates": 8,
                           "max_steps": 12, "seat": 1}, 200, 0.05),   # pages, truncation
    ("shangyou/zheng-fen-v0", {"opponents": "random"}, 200, 0.02),    # illegal ids
    ("shangyou/sheng-ji-v0", {"opponents": "random"}, 300, 0.0),
    ("shangyou/sheng-ji-zhao-pengyou-v0", {"opponents": "greedy"}, 150, 0.0),
])
def test_rows_equal_single_envs(env_id, kwargs, steps, illegal):
    """Same seeds, same ids: every row's observation, mask, reward, flags and info equal those
    of an independent ``gymnasium.make(id)`` with next-step autoreset, across many hands."""
    vec = _vec(env_id, **kwargs)
    assert isinstance(vec, ShangyouVectorEnv) and isinstance(vec, VectorEnv)
    assert vec.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP
    singles = [gymnasium.make(env_id, **kwargs) for _ in range(N)]
    assert vec.single_observation_space == singles[0].observation_space
    assert vec.single_action_space == singles[0].action_space
    obs, infos = vec.reset(seed=7)
    assert infos == {}
    ref = [e.reset(seed=7 + i)[0] for i, e in enumerate(singles)]
    done = [False] * N
    rng = np.random.default_rng(3)
    ends = {"term": 0, "trunc": 0, "illegal": 0}
    for t in range(steps):
        assert vec.observation_space.contains(obs)
        for i in range(N):
            assert np.array_equal(obs["observation"][i], ref[i]["observation"]), (t, i)
            assert np.array_equal(obs["action_mask"][i], ref[i]["action_mask"]), (t, i)
        actions = _ids(rng, obs["action_mask"], illegal)
        obs, rewards, terms, truncs, infos = vec.step(actions)
        for i, e in enumerate(singles):
            if done[i]:
                ref[i], info = e.reset()
                r, term, trunc = 0.0, False, False
            else:
                ref[i], r, term, trunc, info = e.step(int(actions[i]))
            assert (rewards[i], terms[i], truncs[i]) == (r, term, trunc), (t, i)
            assert _row_info(infos, i) == info, (t, i)
            done[i] = term or trunc
            ends["term"] += term
            ends["trunc"] += trunc
            ends["illegal"] += "illegal" in info
    assert ends["term"] >= N                     # every row went through its autoresets
    if kwargs.get("max_steps"):
        assert ends["trunc"] > 0
    if illegal:
        assert ends["illegal"] > 0


def test_same_as_sync_vector_env():
    """Gymnasium's own SyncVectorEnv over the same id gives the same batches and infos."""
    kwargs = {"opponents": "random", "max_steps": 20}
    vec = _vec("shangyou/owen-v0", **kwargs)
    sync = gymnasium.make_vec("shangyou/owen-v0", num_envs=N, vectorization_mode="sync",
                              **kwargs)
    a, _ = vec.reset(seed=11)
    b, _ = sync.reset(seed=11)
    rng = np.random.default_rng(0)
    for t in range(150):
        for key in ("observation", "action_mask"):
            assert np.array_equal(a[key], b[key]), (t, key)
        actions = _ids(rng, a["action_mask"], 0.02)
        a, ra, ta, ua, ia = vec.step(actions)
        b, rb, tb, ub, ib = sync.step(actions)
        assert np.array_equal(ra, rb) and np.array_equal(ta, tb) and np.array_equal(ua, ub)
        assert ia.keys() == ib.keys()
        for key in ia:
            assert list(ia[key]) == list(ib[key]), (t, key)


def test_seeds_reset_mask_and_errors():
    vec = _vec("shangyou/pagat-v0", opponents="random")
    first, _ = vec.reset(seed=[5, 6, 7, 8])
    again, _ = vec.reset(seed=5)
    assert np.array_equal(first["observation"], again["observation"])
    other, _ = vec.reset(seed=6)
    assert not np.array_equal(first["observation"][0], other["observation"][0])
    assert np.array_equal(first["observation"][1], other["observation"][0])
    # a reset of some rows leaves the others as they were
    rng = np.random.default_rng(1)
    stepped, *_ = vec.step(_ids(rng, other["action_mask"]))
    part, _ = vec.reset(seed=5, options={"reset_mask": np.array([True, False, False, True])})
    assert np.array_equal(part["observation"][0], first["observation"][0])
    assert np.array_equal(part["observation"][1:3], stepped["observation"][1:3])
    # copies by default: a kept batch does not change under the next step
    kept = part["observation"].copy()
    vec.step(_ids(rng, part["action_mask"]))
    assert np.array_equal(part["observation"], kept)
    with pytest.raises(ValueError, match="need 4 actions"):
        vec.step(np.zeros(3, np.int64))
    with pytest.raises(TypeError):
        vec.step(np.full(N, 0.5))
    with pytest.raises(ValueError, match="one seed per row"):
        vec.reset(seed=[1, 2])
    with pytest.raises(ValueError, match="num_envs"):
        ShangyouVectorEnv(0)


def test_gymnasium_vector_wrappers():
    """Gymnasium's vector wrappers accept it (they check the autoreset mode)."""
    from gymnasium.wrappers.vector import RecordEpisodeStatistics
    vec = RecordEpisodeStatistics(_vec("shangyou/sheng-ji-single-deck-v0", opponents="random"))
    obs, _ = vec.reset(seed=0)
    rng = np.random.default_rng(2)
    episodes = 0
    for _ in range(400):
        obs, rewards, terms, truncs, infos = vec.step(_ids(rng, obs["action_mask"]))
        if "episode" in infos:
            episodes += int(infos["_episode"].sum())
    assert episodes > 0
    vec.close()


class _ViewRandom(RandomBot):
    """The random level through its view (a subclass: the single env's shortcut for
    ``RandomBot`` itself does not apply)."""


@pytest.mark.parametrize("env_id, players", [("shangyou/pagat-v0", 3), ("shangyou/owen-v0", 2),
                                             ("shangyou/zheng-fen-v0", None),
                                             ("shangyou/sheng-ji-v0", None),
                                             ("shangyou/sheng-ji-zhao-pengyou-v0", None)])
def test_random_opponents_shortcut_plays_as_the_bot(env_id, players):
    """The single env plays ``opponents="random"`` from the game's listing, without a view;
    the bot choosing from its view makes the same moves."""
    fast = gymnasium.make(env_id, opponents="random", players=players).unwrapped
    slow = gymnasium.make(env_id, opponents=_ViewRandom, players=players).unwrapped
    rng = np.random.default_rng(5)
    hands = 0
    for seed in range(3):
        a, _ = fast.reset(seed=seed)
        b, _ = slow.reset(seed=seed)
        while True:
            assert np.array_equal(a["observation"], b["observation"])
            assert fast.aec.game.history == slow.aec.game.history
            action = int(rng.choice(np.flatnonzero(a["action_mask"])))
            a, ra, ta, ua, _ = fast.step(action)
            b, rb, tb, ub, _ = slow.step(action)
            assert (ra, ta, ua) == (rb, tb, ub)
            if ta or ua:
                hands += ta
                break
    assert hands == 3
