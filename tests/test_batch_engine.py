"""The batch engine in C (``env/batch_engine.py``, ``games/climbing/_core_batch.c``) against the
Python environments it replaces: the AEC env (every seat's decisions, the BatchSim mode) and
the Gymnasium single env with random opponents (the vector env's rows), byte for byte."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import gymnasium
import numpy as np
import pytest

from shangyou import env as sy_env
from shangyou.env import batch_engine
from shangyou.env.aec import ShangyouAEC
from shangyou.env.batch_engine import BatchEngine
from shangyou.env.vector import ShangyouVectorEnv
from test_vec_env import _ids, _row_info

pytestmark = pytest.mark.skipif(not batch_engine.available(),
                                reason="the compiled core is not built, or SHANGYOU_NO_C is set "
                                       "(test_without_the_engine_the_python_rows_play checks "
                                       "that path in every run)")

PRESETS = [
    ("zheng-shangyou/pagat", {"players": 5}),
    ("zheng-shangyou/pagat", {"players": 3}),
    ("zheng-shangyou/pagat", {"players": 4, "twos_in_sequences": True}),
    ("zheng-shangyou/pagat", {"players": 8}),
    ("zheng-shangyou/pagat-teams", {"players": 4}),
    ("zheng-shangyou/pagat-teams", {"players": 6}),     # a drawn card's holder leads; teams6
    ("zheng-shangyou/owen", {"players": 4}),            # 13 cards each, 3S's holder leads
    ("zheng-shangyou/owen", {"players": 2}),
    ("zheng-shangyou/winner", {"players": 4}),          # 52 cards, 3D's holder, cards left
    ("zheng-shangyou/winner", {"players": 3, "min_straight": 3, "bomb": "quad",
                               "straight_needs_higher_rank": True, "jokers": True}),
    ("zheng-fen", {"players": 4}),                      # card points, tricks finished
    ("zheng-fen", {"players": 6}),
    # two packs: a card held twice, plays of copies; every leader and scoring above
    ("zheng-shangyou/pagat", {"players": 6, "decks": 2}),     # 18 cards each
    ("zheng-shangyou/winner", {"players": 5, "decks": 2, "jokers": True}),
    ("zheng-shangyou/winner", {"players": 8, "decks": 2, "bomb": "quad", "min_straight": 3}),
]


class _AecRow:
    """One row of the reference: a ShangyouAEC env stepped through its public API, the next
    hand dealt as soon as one ends or is cut off at ``max_steps`` (the engine's aec mode)."""

    def __init__(self, preset, seed, max_steps, **kw):
        self.env = ShangyouAEC(preset, max_steps=None, **kw)
        self.env.reset(seed=seed)
        self.max_steps = max_steps
        self.steps = 0

    def decision(self):
        e = self.env
        agent = e.agent_selection
        o = e.observe(agent)
        return o["observation"], o["action_mask"], e.agent_seat[agent]

    def step(self, a: int):
        e = self.env
        e.step(a)
        self.steps += 1
        rewards, done, trunc = None, False, False
        if all(e.terminations.values()):
            rewards = [e.rewards[p] for p in e.possible_agents]
            done = True
            e.reset()
            self.steps = 0
        if self.max_steps is not None and self.steps >= self.max_steps:
            done = trunc = True
            e.reset()
            self.steps = 0
        return rewards, done, trunc


@pytest.mark.parametrize("preset, kw", PRESETS)
def test_aec_mode_equals_the_aec_env(preset, kw):
    """Every seat's observation, mask and seat, every reward and flag of random games equal
    the AEC env's over thousands of steps and many seeds (pages with a small K, truncation;
    hands handed to Python at decisions past a lowered listing limit, then back to C)."""
    readings = escapes = copies = 0
    for k, max_steps, n, steps, seed, limit in ((128, None, 12, 400, 100, 4096),
                                                (6, 30, 6, 300, 900, 4096),
                                                (16, 25, 6, 200, 50, 8)):
        eng = BatchEngine(preset, n_envs=n, seed=seed, max_candidates=k, max_steps=max_steps,
                          _listing_limit=limit, **kw)
        ref = [_AecRow(preset, seed + i, max_steps, max_candidates=k, **kw) for i in range(n)]
        rng = np.random.default_rng(seed)
        seen = {"done": 0, "trunc": 0, "pages": 0}
        pages_at = eng.observation_slices["page"].start
        for t in range(steps):
            obs, mask, seat = eng.observe()
            for i, r in enumerate(ref):
                o, m, s = r.decision()
                assert seat[i] == s, (t, i)
                assert np.array_equal(mask[i], m), (t, i)
                assert np.array_equal(obs[i], o), (t, i, np.flatnonzero(obs[i] != o))
            seen["pages"] += int(np.count_nonzero(obs[:, pages_at + 1] > 1))
            cand = obs[:, eng.observation_slices["candidates"]].reshape(n, k, -1)
            readings += int(np.count_nonzero(cand[:, :, -1]))     # the reading ordinal
            copies += int(np.count_nonzero(obs[:, eng.observation_slices["hand"]] == 2))
            actions = _ids(rng, mask)
            _, _, _, rewards, done = eng.step(actions)
            for i, r in enumerate(ref):
                want, d, tr = r.step(int(actions[i]))
                assert (done[i], eng.truncated[i]) == (d, tr), (t, i)
                assert list(rewards[i]) == (want or [0.0] * eng.players), (t, i)
            seen["done"] += int(done.sum())
            seen["trunc"] += int(eng.truncated.sum())
        assert seen["done"] >= n                   # every row dealt again
        if max_steps:
            assert seen["trunc"] > 0
        if k < 10:
            assert seen["pages"] > 0               # MORE was offered and taken
        if limit < 4096:
            assert eng.escapes > 0                 # hands went to Python and came back
        escapes += eng.escapes
    if preset == "zheng-shangyou/pagat" and kw["players"] == 3:
        assert readings > 0                        # plays of the same cards, by reading
    if kw.get("decks") == 2:
        assert copies > 0                          # a card held twice was seen
    if preset == "zheng-shangyou/owen" and kw["players"] == 2:
        # two-player Owen leads of more than 4,096 plays: listed in Python as the env lists
        # them (one play per reading), the rows back in C after those hands
        assert escapes > 2


def _vec(env_id, n, **kw):
    return gymnasium.make_vec(env_id, num_envs=n, vectorization_mode="vector_entry_point",
                              **kw)


@pytest.mark.parametrize("env_id, kwargs, illegal", [
    ("shangyou/pagat-v0", {"opponents": "random"}, 0.0),
    ("shangyou/pagat-v0", {"opponents": "random", "players": 3, "max_candidates": 8,
                           "max_steps": 12, "seat": 1}, 0.05),   # pages, truncation, illegal
    ("shangyou/pagat-teams-v0", {"opponents": ["random"] * 4, "seat": 3}, 0.02),
    ("shangyou/pagat-teams-v0", {"opponents": "random", "players": 6, "seat": 4}, 0.0),
    ("shangyou/owen-v0", {"opponents": "random", "max_candidates": 16}, 0.02),
    ("shangyou/winner-v0", {"opponents": "random", "seat": 2}, 0.0),
    ("shangyou/zheng-fen-v0", {"opponents": "random", "players": 5, "seat": 1}, 0.02),
    ("shangyou/pagat-v0", {"opponents": "random", "players": 6, "decks": 2}, 0.02),
    ("shangyou/winner-v0", {"opponents": "random", "players": 5, "decks": 2, "seat": 3}, 0.0),
])
def test_vector_rows_equal_single_envs(env_id, kwargs, illegal):
    """The vector env on the engine: every row's observation, mask, reward, flags and info
    equal an independent single env's, with next-step autoreset, over many hands."""
    n = 8
    vec = _vec(env_id, n, threads=2, **kwargs)
    assert isinstance(vec, ShangyouVectorEnv) and vec.engine is not None
    singles = [gymnasium.make(env_id, **kwargs) for _ in range(n)]
    obs, infos = vec.reset(seed=40)
    ref = [e.reset(seed=40 + i)[0] for i, e in enumerate(singles)]
    done = [False] * n
    rng = np.random.default_rng(3)
    ends = {"term": 0, "trunc": 0, "illegal": 0}
    in_python = kwargs.get("players") == 3     # random opponents meet leads of 400+ plays
    for t in range(3000):
        if t >= 250 and (not in_python or vec._py):
            break                                 # (3p: stop while a row plays in Python)
        assert vec.observation_space.contains(obs)
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
    assert ends["term"] >= n
    if kwargs.get("max_steps"):
        assert ends["trunc"] > 0
    if illegal:
        assert ends["illegal"] > 0
    if in_python:
        # random opponents met leads of more than 400 plays: those episodes were replayed
        # and finished in Python, then the rows went back to C
        assert vec.escapes > 0 and vec._py
    # reset() without a seed: the next hand of each row's stream, as the single env deals it
    # (a row playing in Python included)
    obs, _ = vec.reset()
    for i, e in enumerate(singles):
        assert np.array_equal(obs["observation"][i], e.reset()[0]["observation"]), i


def _run(threads: int, mode: str, steps: int = 300) -> list:
    eng = BatchEngine("zheng-shangyou/pagat", n_envs=37, seed=5, threads=threads, mode=mode,
                      players=5)
    out = []
    for _ in range(steps):
        eng.step(eng.random_actions())
        out.append((eng.obs.copy(), eng.mask.copy(), eng.rewards.copy(),
                    eng.terminated.copy(), eng.truncated.copy()))
    return out


@pytest.mark.parametrize("mode", ["aec", "single"])
def test_threads_one_and_two_give_the_same_rows(mode):
    one, two = _run(1, mode), _run(2, mode)
    for t, (a, b) in enumerate(zip(one, two)):
        for x, y in zip(a, b):
            assert np.array_equal(x, y), t
    assert sum(int(step[3].sum()) for step in one) > 0      # hands ended and were dealt again


def test_threads_can_change_and_the_engine_goes_away():
    eng = BatchEngine("zheng-shangyou/pagat", n_envs=5, seed=1, threads=2)
    eng.step(eng.random_actions())
    eng.threads = 1
    eng.step(eng.random_actions())
    eng.threads = 3
    eng.step(eng.random_actions())
    with pytest.raises(ValueError, match="threads"):
        eng.threads = 0
    del eng                                  # the workers stop and are joined


def test_bad_input():
    eng = BatchEngine("zheng-shangyou/pagat", n_envs=3, seed=2)
    before = eng.obs.copy()
    acts = eng.random_actions().copy()
    acts[1] = 127                            # not legal (no page has 127 candidates here)
    with pytest.raises(ValueError, match="illegal action 127 in game 1"):
        eng.step(acts)
    assert np.array_equal(eng.obs, before)   # nothing moved
    with pytest.raises(ValueError, match="need 3 actions"):
        eng.step(np.zeros(2, np.int64))
    with pytest.raises(ValueError, match="one seed per row"):
        eng.reset([1, 2])
    with pytest.raises(TypeError):
        eng.reset([1.5, 2, 3])
    with pytest.raises(ValueError, match="below 2\\*\\*64"):
        eng.reset([2**64, 2, 3])
    # what the engine does not play: the Python path is used
    for preset, kw in (("zheng-shangyou/pagat", {"decks": 3, "players": 6}),
                       ("zheng-shangyou/pagat", {"target": 5, "players": 2})):
        assert batch_engine.config(preset, **kw) is None, preset
        with pytest.raises(ValueError, match="does not play"):
            BatchEngine(preset, n_envs=1, **kw)
    assert _vec("shangyou/pagat-v0", 2).engine is None               # greedy opponents
    assert _vec("shangyou/pagat-v0", 2, opponents="random", engine="python").engine is None
    with pytest.raises(ValueError, match="does not play"):
        _vec("shangyou/pagat-v0", 2, opponents="random", engine="c", match=True)
    v = _vec("shangyou/pagat-v0", 2, opponents="random")
    v.reset(seed=0)
    with pytest.raises(TypeError):
        v.step(np.full(2, 0.5))
    with pytest.raises(ValueError, match="outside the action space"):
        v.step(np.array([0, 128]))


def test_large_seeds_deal_as_python():
    """random.Random(seed) takes any int: seeds of two 32-bit words, and negative ones (abs),
    deal as the AEC env deals them."""
    for seed in (2**40 + 3, 2**63 + 12345, -7):
        eng = BatchEngine("zheng-shangyou/pagat", n_envs=1, seed=None, players=5)
        eng.reset([seed])
        e = sy_env.make("zheng-shangyou/pagat", players=5)
        e.reset(seed=seed)
        o = e.observe(e.agent_selection)
        assert np.array_equal(eng.obs[0], o["observation"]), seed


def test_without_the_engine_the_python_rows_play():
    """``SHANGYOU_NO_C=1``: no engine; the vector env plays its Python rows, the same rows."""
    code = textwrap.dedent("""
        import gymnasium, numpy as np
        import shangyou.env
        from shangyou.env import batch_engine
        from shangyou.env.batch_engine import BatchEngine
        assert not batch_engine.available()
        assert batch_engine.config("zheng-shangyou/pagat") is None
        try:
            BatchEngine("zheng-shangyou/pagat")
        except ValueError as e:
            assert "not built" in str(e)
        else:
            raise AssertionError("an engine without the core")
        v = gymnasium.make_vec("shangyou/pagat-v0", num_envs=3, opponents="random")
        assert v.engine is None and len(v.envs) == 3
        s = gymnasium.make("shangyou/pagat-v0", opponents="random")
        obs, _ = v.reset(seed=4)
        ref, _ = s.reset(seed=4)
        done = False
        for t in range(60):
            assert np.array_equal(obs["observation"][0], ref["observation"]), t
            a = np.array([int(np.flatnonzero(m)[0]) if m.any() else 0
                          for m in obs["action_mask"]])
            obs, r, term, trunc, _ = v.step(a)
            if done:
                ref, _ = s.reset()
            else:
                ref = s.step(int(a[0]))[0]
            done = bool(term[0] or trunc[0])
        print("ok")
    """)
    env = {**os.environ, "SHANGYOU_NO_C": "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr


def _same_infos(a: dict, b: dict) -> bool:
    if a.keys() != b.keys():
        return False
    for key in a:
        x, y = a[key], b[key]
        if isinstance(x, dict):
            if not (isinstance(y, dict) and _same_infos(x, y)):
                return False
        elif not (x.dtype == y.dtype and x.shape == y.shape
                  and all(p == q for p, q in zip(x.tolist(), y.tolist()))):
            return False
    return True


@pytest.mark.parametrize("env_id, players", [("shangyou/pagat-v0", 5),
                                             ("shangyou/pagat-teams-v0", 4),
                                             ("shangyou/pagat-teams-v0", 6)])
def test_results_batched_as_gymnasium_batches_them(env_id, players):
    """The hands' results are batched in one pass: the same arrays, types and masks as
    ``VectorEnv._add_info`` row by row."""
    vec = _vec(env_id, 16, opponents="random", max_steps=30, players=players)
    obs, _ = vec.reset(seed=3)
    rng = np.random.default_rng(0)
    checked = 0
    for _ in range(200):
        obs, _, terms, truncs, infos = vec.step(_ids(rng, obs["action_mask"]))
        if "result" not in infos:
            continue
        want: dict = {}
        for i in range(16):
            info = _row_info(infos, i)
            if info:
                want = vec._add_info(want, info, i)
        assert _same_infos(infos, want)
        checked += 1
    assert checked > 10


def test_one_step_at_a_time():
    """A step releases the GIL: a call from another Python thread meanwhile is refused, and
    the steps that do run give the rows of one thread."""
    import threading
    eng = BatchEngine("zheng-shangyou/pagat", n_envs=2048, seed=6, players=5, threads=2)
    ref = BatchEngine("zheng-shangyou/pagat", n_envs=2048, seed=6, players=5)
    acts = eng.random_actions().copy()
    refused, done = [], threading.Event()

    def other():
        while not done.is_set():
            try:
                eng.random_actions(np.zeros(2048, np.int64))
            except RuntimeError as e:
                refused.append(str(e))

    t = threading.Thread(target=other)
    t.start()
    try:
        for _ in range(60):
            eng.step(acts)
            ref.step(acts)
            assert np.array_equal(eng.obs, ref.obs)
            acts = ref.random_actions().copy()
    finally:
        done.set()
        t.join()
    assert all("another thread" in r for r in refused)


def test_rows_in_python_check_their_ids_first():
    """A row whose hand went to Python (here: past a listing limit of 4) checks its id in
    Python, still before any row moves."""
    eng = BatchEngine("zheng-shangyou/pagat", n_envs=4, seed=8, players=5, _listing_limit=4)
    assert eng.escapes > 0 and eng._py
    i = min(eng._py)
    before = eng.obs.copy()
    acts = eng.random_actions().copy()
    acts[i] = int(np.flatnonzero(eng.mask[i] == 0)[0])
    with pytest.raises(ValueError, match=f"illegal action {acts[i]} in game {i}"):
        eng.step(acts)
    assert np.array_equal(eng.obs, before)
