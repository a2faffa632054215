"""The batch engine of Sheng ji in C (``env/sheng_ji_batch.py``,
``games/sheng_ji/_core_batch.c``) against the Python environments it replaces, byte for byte:
the AEC env (every seat's decisions of whole hands: the deal's bids, the bury, Zhao Pengyou's
calls, the play) and
the Gymnasium single env with random opponents (the vector env's rows, infos included)."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

from shangyou.env import batch_engine
from shangyou.env.batch_engine import BatchEngine
from shangyou.env.vector import ShangyouVectorEnv
from test_batch_engine import _AecRow
from test_vec_env import _ids, _row_info

pytestmark = pytest.mark.skipif(not batch_engine.available()
                                or batch_engine.config("sheng-ji") is None,
                                reason="the compiled cores are not built, or SHANGYOU_NO_C is "
                                       "set (the Python rows are the reference)")

# every option the engine takes, each in some configuration
CONFIGS = [
    ("sheng-ji", {"players": 4}),
    ("sheng-ji", {"players": 6}),
    ("sheng-ji/single-deck", {}),
    ("sheng-ji", {"players": 4, "decks": 3, "red_five": True, "throw_penalty": 10}),
    ("sheng-ji", {"players": 4, "no_bid": "no-trump", "kitty_multiplier": "linear",
                  "start_level": "A", "jack_hook": True}),
    ("sheng-ji", {"players": 6, "decks": 4, "no_bid": "redeal", "red_five": True,
                  "red_five_gap": "open", "start_level": "5", "must_play_ranks": "5,10,K"}),
    ("sheng-ji", {"players": 4, "decks": 1, "kitty": 6, "throw_penalty": 10}),
    ("sheng-ji/zhao-pengyou", {"players": 5}),
    ("sheng-ji/zhao-pengyou", {"players": 7, "friends": 3, "throw_penalty": 10}),
    ("sheng-ji", {"players": 4, "kitty_theft": True, "throw_penalty": 10}),
    ("sheng-ji/zhao-pengyou", {"players": 5, "kitty_theft": True, "no_bid": "no-trump"}),
    ("sheng-ji", {"players": 6, "decks": 3, "kitty_theft": True}),
]


def _policy(rng, obs, mask, sl):
    """Random ids, except that once a bid stands the deal's bidders pass: the bids stay weak,
    so that with kitty theft the others often have an overcall after the bury."""
    acts = _ids(rng, mask)
    dealing = obs[:, sl["phase"].start] == 1
    bid = obs[:, sl["bid_cards"]].any(axis=1)
    acts[dealing & bid] = 0                      # "pass": the first candidate of a bid
    return acts


@pytest.mark.parametrize("preset, kw", CONFIGS)
def test_aec_mode_equals_the_aec_env(preset, kw):
    """Every seat's observation, mask and seat, every reward and flag of random hands equal
    the AEC env's (whole hands, then the next; pages of a small K with truncation)."""
    seen = {"done": 0, "trunc": 0, "pages": 0, "picks": 0, "throws": 0, "thefts": 0}
    theft = kw.get("kitty_theft", False)
    for k, max_steps, n, steps, seed in ((128, None, 6, 500, 7), (6, 40, 4, 150, 900)):
        eng = BatchEngine(preset, n_envs=n, seed=seed, max_candidates=k, max_steps=max_steps,
                          **kw)
        ref = [_AecRow(preset, seed + i, max_steps, max_candidates=k, **kw) for i in range(n)]
        rng = np.random.default_rng(seed)
        sl = eng.observation_slices
        for t in range(steps):
            obs, mask, seat = eng.observe()
            for i, r in enumerate(ref):
                o, m, s = r.decision()
                assert seat[i] == s, (t, i)
                assert np.array_equal(mask[i], m), (t, i)
                assert np.array_equal(obs[i], o), (t, i, np.flatnonzero(obs[i] != o))
            seen["pages"] += int(np.count_nonzero(obs[:, sl["page"].start + 1] > 1))
            cand = obs[:, sl["candidates"]].reshape(n, k, -1)
            seen["throws"] += int(np.count_nonzero(cand[:, :, 54 + 9]))
            seen["picks"] += int(np.count_nonzero(cand[:, :, 54 + 11]))
            # a theft round's decision: pass or overcall in the bury
            seen["thefts"] += int(np.count_nonzero((obs[:, sl["phase"].start + 1] == 1)
                                                   & (cand[:, 0, 54] == 1)))
            actions = _policy(rng, obs, mask, sl) if theft else _ids(rng, mask)
            _, _, _, rewards, done = eng.step(actions)
            for i, r in enumerate(ref):
                want, d, tr = r.step(int(actions[i]))
                assert (done[i], eng.truncated[i]) == (d, tr), (t, i)
                assert list(rewards[i]) == (want or [0.0] * eng.players), (t, i)
            seen["done"] += int(done.sum())
            seen["trunc"] += int(eng.truncated.sum())
    assert seen["done"] > 10 and seen["trunc"] > 0 and seen["pages"] > 0
    assert seen["throws"] > 0                   # leads offered throws
    if theft:
        assert seen["thefts"] > 0


def _vec(env_id, n, **kw):
    return gymnasium.make_vec(env_id, num_envs=n, vectorization_mode="vector_entry_point",
                              **kw)


@pytest.mark.parametrize("env_id, kwargs, illegal", [
    ("shangyou/sheng-ji-v0", {"opponents": "random"}, 0.0),
    ("shangyou/sheng-ji-v0", {"opponents": "random", "players": 6, "seat": 3,
                              "max_candidates": 8, "max_steps": 22}, 0.02),
    ("shangyou/sheng-ji-single-deck-v0", {"opponents": ["random"] * 4, "seat": 1,
                                          "throw_penalty": 10, "no_bid": "redeal"}, 0.01),
    ("shangyou/sheng-ji-zhao-pengyou-v0", {"opponents": "random", "players": 6, "seat": 2},
     0.0),
])
def test_vector_rows_equal_single_envs(env_id, kwargs, illegal):
    """The vector env of a Sheng ji id on the engine: every row's observation, mask, reward,
    flags and info (the hand's result) equal an independent single env's, with next-step
    autoreset, over many hands."""
    n = 6
    vec = _vec(env_id, n, threads=2, **kwargs)
    assert isinstance(vec, ShangyouVectorEnv) and vec.engine is not None
    singles = [gymnasium.make(env_id, **kwargs) for _ in range(n)]
    obs, _ = vec.reset(seed=40)
    ref = [e.reset(seed=40 + i)[0] for i, e in enumerate(singles)]
    done = [False] * n
    rng = np.random.default_rng(3)
    ends = {"term": 0, "trunc": 0, "illegal": 0, "result": 0}
    for t in range(160):
        for i in range(n):
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
            ends["result"] += "result" in info
    assert ends["result"] >= n
    if kwargs.get("max_steps"):
        assert ends["trunc"] > 0
    if illegal:
        assert ends["illegal"] > 0
    obs, _ = vec.reset()              # no seed: the next hand of each row's stream
    for i, e in enumerate(singles):
        assert np.array_equal(obs["observation"][i], e.reset()[0]["observation"]), i


@pytest.mark.parametrize("mode", ["aec", "single"])
def test_threads_one_and_two_give_the_same_rows(mode):
    def run(threads):
        eng = BatchEngine("sheng-ji", n_envs=37, seed=5, threads=threads, mode=mode)
        out = []
        for _ in range(300):
            eng.step(eng.random_actions())
            out.append((eng.obs.copy(), eng.mask.copy(), eng.rewards.copy(),
                        eng.terminated.copy()))
        return out
    one, two = run(1), run(2)
    for t, (a, b) in enumerate(zip(one, two)):
        for x, y in zip(a, b):
            assert np.array_equal(x, y), t
    assert sum(int(step[3].sum()) for step in one) > 0      # hands ended and were dealt again


def test_what_the_engine_leaves_to_python():
    """Matches, other opponents, a kitty too big for the engine's hands: the Python rows."""
    huge = {"decks": 4, "kitty": 200}                # 204 cards in the declarer's hand
    assert batch_engine.config("sheng-ji", **huge) is None
    with pytest.raises(ValueError, match="does not play"):
        BatchEngine("sheng-ji", n_envs=1, **huge)
    assert _vec("shangyou/sheng-ji-v0", 2, opponents="random", **huge).engine is None
    assert _vec("shangyou/sheng-ji-v0", 2, opponents="greedy").engine is None
    assert _vec("shangyou/sheng-ji-v0", 2, opponents="random", match=True).engine is None
    with pytest.raises(ValueError, match="does not play"):
        _vec("shangyou/sheng-ji-v0", 2, opponents="random", engine="c", match=True)
    eng = BatchEngine("sheng-ji", n_envs=2, seed=1)
    acts = eng.random_actions().copy()
    acts[0] = 127
    before = eng.obs.copy()
    with pytest.raises(ValueError, match="illegal action 127 in game 0"):
        eng.step(acts)
    assert np.array_equal(eng.obs, before)
    with pytest.raises(ValueError, match="not over"):
        eng.result(0)
