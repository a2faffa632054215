"""The research environments: PettingZoo API and seed tests for every preset, the action
encoding as a bijection, observations built from the seat's view only, the Gymnasium wrapper."""

from __future__ import annotations

import random
import warnings
import zlib

import numpy as np
import pytest

from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test

import shangyou
from shangyou import env as sy_env
from shangyou.env.aec import encoder_for
from shangyou.env import encoding
from shangyou.env.encoding import CAND_WIDTH, KINDS, N_CARDS, TextPager, parse_move

# every preset at its default table, plus the other table sizes of the climbing games
ENV_CONFIGS = [(name, None) for name in shangyou.preset_names()] + [
    ("zheng-shangyou/pagat", 3), ("zheng-shangyou/pagat", 8), ("zheng-shangyou/pagat-teams", 6),
    ("zheng-shangyou/winner", 3), ("zheng-shangyou/owen", 2), ("zheng-fen", 6),
    ("sheng-ji/zhao-pengyou", 6)]


def cid(cfg):
    name, n = cfg
    return name.replace("/", "-") + ("" if n is None else f"-{n}p")


def quiet(fn, *args, **kwargs):
    """Run a PettingZoo test, hiding its warning about dict observations (it whitelists the
    names of its own environments); any other warning fails."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn(*args, **kwargs)
    other = [str(w.message) for w in caught
             if "not a NumPy array" not in str(w.message)
             and "probably should be gymnasium.spaces.box" not in str(w.message)]
    assert not other, other


@pytest.mark.parametrize("cfg", ENV_CONFIGS, ids=cid)
def test_pettingzoo_api_and_seed(cfg):
    name, n = cfg
    quiet(api_test, sy_env.env(name, players=n), num_cycles=1000)
    quiet(seed_test, lambda: sy_env.env(name, players=n), num_cycles=200)


def play_random_episode(e, rng):
    """Random legal ids through the AEC loop; returns (steps, cumulative reward per agent)."""
    total = {a: 0.0 for a in e.possible_agents}
    steps = 0
    for agent in e.agent_iter():
        obs, reward, term, trunc, info = e.last()
        total[agent] += reward
        if term or trunc:
            e.step(None)
            continue
        mask = obs["action_mask"]
        assert mask.dtype == np.int8 and mask.shape == (e.unwrapped.max_candidates,)
        ids = np.flatnonzero(mask)
        assert len(ids) > 0, "the agent to act always has a legal id"
        assert e.observation_space(agent).contains(obs)
        e.step(int(ids[rng.randrange(len(ids))]))
        steps += 1
    return steps, total


@pytest.mark.parametrize("cfg", ENV_CONFIGS, ids=cid)
def test_many_episodes(cfg):
    name, n = cfg
    e = sy_env.env(name, players=n)
    rng = random.Random(5)
    episodes = 12 if name.startswith("sheng-ji") else 25
    for ep in range(episodes):
        e.reset(seed=ep)
        game = e.unwrapped.game
        steps, total = play_random_episode(e, rng)
        assert game.over and not e.agents
        expect = sy_env.rewards_of(game)
        assert [total[a] for a in e.possible_agents] == expect
        assert steps == len(game.log["moves"])      # no pages at the default size here
        # the same seed replays the same hand
        replay = shangyou.replay(game.log)
        assert replay == game


def test_rewards_follow_the_result():
    e = sy_env.raw_env("zheng-shangyou/pagat", players=5)
    e.reset(seed=3)
    play_random_episode(e, random.Random(1))
    res = e.game.result
    rewards = sy_env.rewards_of(e.game)
    assert rewards[res["order"][0]] == 2.0 and rewards[res["order"][1]] == 1.0
    assert sum(rewards) == 3.0
    e = sy_env.raw_env("zheng-shangyou/pagat-teams", players=4)
    e.reset(seed=3)
    play_random_episode(e, random.Random(1))
    r = sy_env.rewards_of(e.game)
    assert r[0] == r[2] and r[1] == r[3] and sorted({r[0], r[1]}) == sorted(
        e.game.result["team_points"])
    e = sy_env.raw_env("sheng-ji/single-deck")
    e.reset(seed=3)
    play_random_episode(e, random.Random(1))
    r = sy_env.rewards_of(e.game)
    last = e.game.result["last"]
    assert r[0] == r[2] == -r[1] == -r[3]
    assert abs(r[0]) == last["change"]["levels"]


def walk_states(e, rng, limit=400):
    """Yield the env at each decision of a random episode (the caller inspects, we step)."""
    e.reset(seed=rng.randrange(1000))
    for _ in range(limit):
        if e.game.over:
            return
        yield e
        ids = np.flatnonzero(e.observe(e.agent_selection)["action_mask"])
        if e.pager().pages > 1:
            ids = ids[:-1]            # a move, not MORE: the next state starts on page 0
        e.step(int(ids[rng.randrange(len(ids))]))


@pytest.mark.parametrize("k", [4, 128])
@pytest.mark.parametrize("name", ["zheng-shangyou/pagat", "zheng-shangyou/owen", "sheng-ji",
                                  "zheng-shangyou/winner"])
def test_action_encoding_is_a_bijection(name, k):
    """At every decision: the ids (through MORE pages) reach every legal move text exactly
    once, ``move_to_actions`` inverts ``action_to_move``, and forbidden ids raise."""
    e = sy_env.raw_env(name, players=2 if name.endswith("owen") else None, max_candidates=k)
    rng = random.Random(11)
    paged = 0
    for _ in range(3):
        for env in walk_states(e, rng):
            legal = sorted(str(m) for m in every_move(env.game))
            pager = env.pager()
            seen = []
            for page in range(pager.pages):
                assert pager.page == page
                mask = env.observe(env.agent_selection)["action_mask"]
                for i in np.flatnonzero(mask):
                    text = env.action_to_move(int(i))
                    if text is None:
                        assert i == k - 1 and pager.pages > 1
                        continue
                    seen.append(text)
                    assert env.move_to_actions(text)[-1] == i
                    assert len(env.move_to_actions(text)) == page + 1
                for bad in (int(i) for i in np.flatnonzero(mask == 0)):
                    with pytest.raises(ValueError):
                        env.action_to_move(bad)
                if pager.pages > 1:
                    env.step(k - 1)                 # MORE: same agent, same game
                    assert env.pager() is pager
            paged += pager.pages > 1
            assert pager.page == 0                  # the pages wrap round
            assert sorted(seen) == legal and len(set(seen)) == len(seen)
    if k == 4:
        assert paged > 0, "the small page size must have exercised MORE"


def every_move(game):
    """The moves the environments page through: a climbing game's every legal move (they do
    not choose plays in steps), Sheng ji's legal moves."""
    return getattr(game, "all_moves", game.legal_moves)()


def reading_rank(game):
    """The reference order of several readings of the same cards, from the texts and the
    family's list of readings (default first): what the fast candidate order must give."""
    family = getattr(game.rules, "family", None)

    def rank(text):
        kind, cards, _, label = parse_move(text)
        if kind != "play" or not hasattr(family, "combos"):
            return 0
        labels = [c.label for c in family.combos(cards)]
        return labels.index(label) if label else 0
    return rank


@pytest.fixture(params=["c", "python"])
def obs_path(request, monkeypatch):
    """Both ways of writing climbing observations: the C helpers (``_fastobs``) and the Python
    reference they must equal."""
    if request.param == "python":
        monkeypatch.setattr(encoding, "_fastobs", None)
    else:
        assert encoding._fastobs is not None, "the C helpers are not built (pip install -e .)"
    return request.param


@pytest.mark.parametrize("k", [128, 5])
@pytest.mark.parametrize("name, players, match", [
    (name, None, False) for name in shangyou.preset_names()] + [
    ("zheng-shangyou/pagat", 3, True), ("zheng-shangyou/owen", 2, False),
    ("zheng-shangyou/winner", 4, True), ("zheng-shangyou/pagat-teams", 6, True)])
def test_fast_observation_equals_the_view_encoding(name, players, match, k, obs_path):
    """The environments encode from ``compact_view`` and ``Move`` objects (climbing games); the
    reference encodes from ``view(seat)`` and the legal move texts. Every seat's observation,
    the mask and every id's move agree at every decision of random hands (MORE pages
    included), so the fast path shows a seat nothing its view does not."""
    e = sy_env.raw_env(name, players=players, max_candidates=k, match=match)
    ref = encoder_for(e.preset, e.players, k)
    rng = random.Random(zlib.crc32(f"{name} {players} {k}".encode()))
    e.reset(seed=rng.randrange(1000))
    decisions = seats = ties = 0
    while decisions < (120 if k == 5 or players == 2 else 400):
        g = e.game
        if g.over:
            for seat in range(g.n):     # the final table, as every seat sees it
                o = e.observe(e.possible_agents[seat])
                assert (o["observation"] == ref.encode(g.view(seat), None)).all()
                assert not o["action_mask"].any()
            e.reset()
            continue
        texts = [str(m) for m in every_move(g)]
        pager = TextPager(texts, k, reading_rank(g))
        pager.page = e.pager().page
        ties += len({parse_move(t)[1] for t in texts}) < len(texts)
        for seat in range(g.n):
            o = e.observe(e.possible_agents[seat])
            mine = seat == g.to_act
            expect = ref.encode(g.view(seat), pager if mine else None)
            assert o["observation"].dtype == np.int8
            assert (o["observation"] == expect).all(), (g.log, seat)
            if mine:
                assert (o["action_mask"] == pager.mask()).all()
                for i in np.flatnonzero(pager.mask()):
                    assert e.action_to_move(int(i)) == pager.decode(int(i))
            seats += 1
        decisions += 1
        ids = np.flatnonzero(e.observe(e.agent_selection)["action_mask"])
        e.step(int(ids[rng.randrange(len(ids))]))
    assert seats >= decisions * 2
    if name in ("zheng-shangyou/pagat", "zheng-shangyou/owen") and k == 128:
        assert ties > 0, "several readings of the same cards must have been exercised"


def test_paging_passes_the_api_test():
    quiet(api_test, sy_env.env("zheng-shangyou/pagat", players=4, max_candidates=3),
          num_cycles=2000)
    quiet(seed_test, lambda: sy_env.env("zheng-shangyou/pagat", players=4, max_candidates=3),
          num_cycles=300)


def test_move_texts_parse():
    assert parse_move("pass")[:2] == ("pass", ())
    assert parse_move("5H 6D BJ as 4-6") == ("play", (10, 12, 52), 0, "4-6")
    assert parse_move("call 2 AS")[:3] == ("call", (47,), 2)
    assert parse_move("throw KH")[:2] == ("throw", (42,))
    assert parse_move("play")[0] == "commit"
    assert CAND_WIDTH == N_CARDS + len(KINDS) + 1


@pytest.mark.parametrize("name", ["zheng-shangyou/pagat", "zheng-shangyou/pagat-teams",
                                  "zheng-fen", "sheng-ji", "sheng-ji/zhao-pengyou"])
def test_observation_slices(name):
    e = sy_env.raw_env(name)
    sl = e.observation_slices
    covered = sorted((s.start, s.stop) for s in sl.values())
    assert covered[0][0] == 0 and covered[-1][1] == e.observation_space("player_0")[
        "observation"].shape[0]
    assert all(a[1] == b[0] for a, b in zip(covered, covered[1:])), "slices tile the vector"
    rng = random.Random(2)
    for i, env in enumerate(walk_states(e, rng)):
        if i % 7:
            continue
        seat = env.game.to_act
        obs = env.observe(env.agent_selection)["observation"]
        hand = np.zeros(N_CARDS, np.int8)
        for c in env.game.hands[seat]:
            hand[c] += 1
        assert (obs[sl["hand"]] == hand).all()
        assert obs[sl["counts"]][0] == len(env.game.hands[seat])
        cand = obs[sl["candidates"]].reshape(e.max_candidates, CAND_WIDTH)
        texts = env.pager().page_texts()
        for row, text in zip(cand, texts):
            kind, cards, _, _ = parse_move(text)
            assert row[N_CARDS + KINDS.index(kind)] == 1
            assert row[:N_CARDS].sum() == len(cards)
        assert not cand[len(texts):].any()


@pytest.mark.parametrize("name", ["zheng-shangyou/pagat", "zheng-fen", "sheng-ji"])
def test_observation_hides_other_hands(name):
    """Swapping cards between two other seats' hands leaves a seat's observation unchanged;
    changing its own hand changes it."""
    e = sy_env.raw_env(name)
    rng = random.Random(4)
    checked = 0
    for i, env in enumerate(walk_states(e, rng, limit=300)):
        g = env.game
        if i % 5 or g.phase not in ("play",):
            continue
        seat = g.to_act
        others = [s for s in range(g.n) if s != seat and g.hands[s]]
        if len(others) < 2:
            continue
        a, b = others[:2]
        ca, cb = g.hands[a][0], g.hands[b][-1]
        if ca == cb:
            continue
        before = env.observe(env.agent_selection)["observation"].copy()
        twin = g.clone()
        ha, hb = list(twin.hands[a]), list(twin.hands[b])   # new lists: a clone shares hands
        ha.remove(ca)
        hb.remove(cb)
        twin.hands[a], twin.hands[b] = sorted(ha + [cb]), sorted(hb + [ca])
        e2 = sy_env.raw_env(name)
        e2.reset(seed=0)
        e2.game = twin
        after = e2.observe(e.agent_selection)["observation"]
        assert (before == after).all()
        checked += 1
    assert checked >= 3


@pytest.mark.parametrize("name", shangyou.preset_names())
def test_single_agent_check_env(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(sy_env.single_agent(name, seat=1, opponents="random"),
                  skip_render_check=True)


def test_single_agent_plays_against_bots():
    e = sy_env.single_agent("zheng-shangyou/pagat", seat=2, opponents="greedy")
    rng = random.Random(0)
    results = []
    for ep in range(6):
        obs, info = e.reset(seed=ep)
        trace = []
        done = False
        while not done:
            assert e.aec.game.to_act == 2
            ids = np.flatnonzero(obs["action_mask"])
            a = int(ids[rng.randrange(len(ids))])
            trace.append(a)
            obs, reward, done, trunc, info = e.step(a)
        assert reward == sy_env.rewards_of(e.aec.game)[2]
        results.append((trace, reward))
        # the same seed and the same ids replay the same episode
        obs, _ = e.reset(seed=ep)
        for a in trace:
            obs, reward2, done, _, _ = e.step(a)
        assert done and reward2 == reward
    obs, _ = e.reset(seed=1)
    bad = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    _, r, done, _, info = e.step(bad)
    assert done and r == -1.0 and info["illegal"]


def test_single_agent_refuses_what_is_not_an_id():
    """Not an id: an error, never a silent loss; strict mode: a forbidden id is an error too."""
    e = sy_env.single_agent("zheng-shangyou/pagat", seat=0, opponents="greedy")
    obs, _ = e.reset(seed=3)
    legal = int(np.flatnonzero(obs["action_mask"])[0])
    for bad in (float(legal), legal + 0.7, np.float32(legal), "0", None, True):
        with pytest.raises(TypeError):
            e.step(bad)
    for out in (-1, int(e.action_space.n), 10**9):
        with pytest.raises(ValueError, match="outside the action space"):
            e.step(out)
    # nothing above changed the episode: the legal id still plays
    _, _, _, _, info = e.step(np.int64(legal))
    assert "illegal" not in info
    strict = sy_env.single_agent("zheng-shangyou/pagat", seat=0, opponents="greedy",
                                 strict=True)
    obs, _ = strict.reset(seed=1)
    forbidden = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    with pytest.raises(ValueError):
        strict.step(forbidden)
    # the refused id changed nothing: a legal one still plays
    ok = int(np.flatnonzero(obs["action_mask"])[0])
    strict.step(ok)


def test_bad_arguments():
    with pytest.raises(ValueError):
        sy_env.make("no-such-game")
    with pytest.raises(ValueError):
        sy_env.make("zheng-shangyou/pagat", players=12)
    with pytest.raises(ValueError):
        sy_env.single_agent("zheng-shangyou/pagat", seat=9)
    with pytest.raises(ValueError):
        sy_env.single_agent("zheng-shangyou/pagat", opponents="grandmaster")


def test_render_text():
    e = sy_env.raw_env("zheng-shangyou/pagat", render_mode="ansi")
    e.reset(seed=1)
    text = e.render()
    seat = e.game.to_act
    assert "to act: p%d" % seat in text
    assert " ".join(e.game.view(seat)["hand"]) in text


@pytest.mark.parametrize("name", ["zheng-shangyou/pagat", "zheng-shangyou/winner", "zheng-fen",
                                  "sheng-ji/single-deck"])
def test_batch_sim_matches_single_envs(name, obs_path):
    """Game i of a batch is the single env reset with seed+i: same ids, same observations,
    masks, seats and rewards, through the end of a hand and into the next."""
    from shangyou.env.batch import BatchSim
    n = 3
    sim = BatchSim(name, n_games=n, seed=40, max_candidates=16)
    singles = [sy_env.raw_env(name, max_candidates=16) for _ in range(n)]
    for i, e in enumerate(singles):
        e.reset(seed=40 + i)
    rng = np.random.default_rng(0)
    ends = 0
    for _ in range(300):
        obs, mask, seat = sim.observe()
        for i, e in enumerate(singles):
            assert seat[i] == e.game.to_act
            o = e.observe(e.agent_selection)
            assert (o["observation"] == obs[i]).all() and (o["action_mask"] == mask[i]).all()
        acts = sim.random_actions(rng)
        _, _, _, rewards, done = sim.step(acts)
        for i, e in enumerate(singles):
            e.step(int(acts[i]))
            if e.game.over:
                assert done[i] and list(rewards[i]) == sy_env.rewards_of(e.game)
                e.reset()
                ends += 1
            else:
                assert not done[i] and not rewards[i].any()
    assert ends >= 1
    with pytest.raises(ValueError):
        sim.step(np.full(n, -1))
    mask = sim.observe()[1]
    acts = sim.random_actions(rng)
    acts[0] = int(np.flatnonzero(mask[0] == 0)[0])
    before = [e.game.log["moves"] for e in sim.envs]
    with pytest.raises(ValueError, match="game 0"):
        sim.step(acts)
    assert [e.game.log["moves"] for e in sim.envs] == before, "no game moved"
    with pytest.raises(ValueError):
        sim.step([0] * (n + 1))


@pytest.mark.parametrize("name, options", [("zheng-shangyou/pagat", {"target": 3}),
                                           ("zheng-shangyou/winner", {"hands": 2})])
def test_match_episodes_cross_exchanges(name, options):
    """``match=True``: one episode is a whole match, exchanges between hands included."""
    e = sy_env.env(name, match=True, **options)
    quiet(api_test, e, num_cycles=5000)
    e.reset(seed=8)
    game = e.unwrapped.game
    steps, total = play_random_episode(e, random.Random(3))
    assert game.over and game.hand_number >= 2
    assert any(m[1].split()[0] in ("give", "take", "discard", "offer")
               for m in game.log["moves"])
    assert [total[a] for a in e.possible_agents] == sy_env.rewards_of(game)


def test_raw_env_refuses_a_forbidden_id_without_change():
    e = sy_env.raw_env("zheng-shangyou/pagat")
    e.reset(seed=2)
    before = (e.agent_selection, e.game.log["moves"], dict(e._cumulative_rewards))
    mask = e.observe(e.agent_selection)["action_mask"]
    with pytest.raises(ValueError):
        e.step(int(np.flatnonzero(mask == 0)[0]))
    assert (e.agent_selection, e.game.log["moves"], dict(e._cumulative_rewards)) == before


def test_c_helpers_equal_python_and_refuse_bad_input():
    """``_fastobs.head`` / ``rows`` against their Python references on hand-made positions
    (wild readings, repeated cards, passes, seats out), and clear errors for bad input."""
    from shangyou.engine.moves import Move
    fast = encoding._fastobs
    assert fast is not None, "the C helpers are not built (pip install -e .)"
    enc = encoding.ClimbingEncoder(5, 8)
    o_cand = enc.offsets["candidates"]
    played = bytes(range(54))
    args = (2, (0, 0, 13, 53), played, (7, 7), 4, [0, 1], (3,), [4, 13, 0, 9, 2],
            bytes((1, 0, 1, 0, 1)), enc._tail_following["play"], b"\x01\x02")
    a, b = bytearray(enc.size), bytearray(enc.size)
    assert fast.head(a, 0, *args) == o_cand
    enc._head_py(b, 0, *args)
    assert a == b
    moves = [Move("pass"), Move("play", (5,)), Move("play", (5, 53)), Move("play", (5, 53)),
             Move("play", (5, 53)), Move("play", (6, 53)), Move("give", (9,))]
    a, b = bytearray(enc.size), bytearray(enc.size)
    fast.rows(a, o_cand, moves, CAND_WIDTH, encoding._KIND_AT, encoding._EXTRA)
    encoding._rows_py(b, o_cand, moves)
    assert a == b and a[o_cand + 4 * CAND_WIDTH + encoding._EXTRA] == 2
    bad_head = [
        ((ValueError, "card code"), dict(hand=(54,))),
        ((ValueError, "card code"), dict(last=(-1,))),
        ((ValueError, "no seat"), dict(passed=[5])),
        ((ValueError, "no seat"), dict(finished=(7,))),
        ((ValueError, "played"), dict(played=bytes(53))),
        ((TypeError, "tail"), dict(tail="x")),
        ((ValueError, "does not fit"), dict(at=enc.size - 10)),
    ]
    names = ("at", "seat", "hand", "played", "last", "last_seat", "passed", "finished",
             "counts", "partners", "tail", "page")
    for (exc, text), change in bad_head:
        kw = dict(zip(names, (0,) + args))
        kw.update(change)
        with pytest.raises(exc, match=text):
            fast.head(bytearray(enc.size), *kw.values())
    with pytest.raises(BufferError):
        fast.head(b"read-only", 0, *args)
    with pytest.raises(ValueError, match="unknown kind"):
        fast.rows(bytearray(enc.size), o_cand, [Move("dance", (1,))], CAND_WIDTH,
                  encoding._KIND_AT, encoding._EXTRA)
    with pytest.raises(ValueError, match="card code"):
        fast.rows(bytearray(enc.size), o_cand, [Move("play", (99,))], CAND_WIDTH,
                  encoding._KIND_AT, encoding._EXTRA)
    with pytest.raises(ValueError, match="do not fit"):
        fast.rows(bytearray(enc.size), enc.size - CAND_WIDTH + 1, [Move("pass")], CAND_WIDTH,
                  encoding._KIND_AT, encoding._EXTRA)
    with pytest.raises(AttributeError):
        fast.rows(bytearray(enc.size), o_cand, ["pass"], CAND_WIDTH, encoding._KIND_AT,
                  encoding._EXTRA)


@pytest.mark.parametrize("name, players", [("zheng-shangyou/pagat", 5), ("zheng-shangyou/owen", 2),
                                           ("zheng-fen", 4)])
def test_c_sort_equals_python_sort(name, players):
    """``_fastobs.sort_moves`` sorts shuffled legal moves exactly as ``_sort_moves_py`` does
    and finds the same runs of plays of the same cards; a move of an unknown kind leaves the
    list as it was."""
    from shangyou.engine.moves import Move
    fast = encoding._fastobs
    assert fast is not None, "the C helpers are not built (pip install -e .)"
    rng = random.Random(7)
    runs_seen = 0
    for seed in range(6):
        g = shangyou.new_game(name, players=players, seed=seed)
        while not g.over:
            moves = every_move(g)
            a = list(moves)
            rng.shuffle(a)
            b = list(a)
            runs = fast.sort_moves(a, encoding.KIND_INDEX)
            assert [tuple(r) for r in runs] == encoding._sort_moves_py(b)
            assert [id(m) for m in a] == [id(m) for m in b]
            runs_seen += len(runs)
            g.apply(rng.choice(moves))
    if name != "zheng-fen":
        assert runs_seen > 0
    a = [Move("play", (3,)), Move("pass"), Move("dance", (1,))]
    before = list(a)
    with pytest.raises(ValueError, match="unknown kind"):
        fast.sort_moves(a, encoding.KIND_INDEX)
    assert a == before
    with pytest.raises(ValueError, match="card code"):
        fast.sort_moves([Move("play", (3,)), Move("play", (60,))], encoding.KIND_INDEX)


def always_more(mask):
    """The id a policy that always pages picks: MORE when the page has it, else the first."""
    return len(mask) - 1 if mask[-1] and mask[:-1].sum() else int(np.flatnonzero(mask)[0])


def test_always_more_is_truncated_in_the_aec_env():
    assert sy_env.raw_env().max_steps == sy_env.DEFAULT_MAX_STEPS
    e = sy_env.env("zheng-shangyou/pagat", max_candidates=2, max_steps=40)
    e.reset(seed=3)
    steps = 0
    for agent in e.agent_iter():
        obs, reward, term, trunc, info = e.last()
        if term or trunc:
            assert trunc and not term and reward == 0 and info == {"max_steps": 40}
            e.step(None)
            continue
        e.step(always_more(obs["action_mask"]))
        steps += 1
    assert steps == 40 and not e.unwrapped.game.over and e.agents == []
    e.reset(seed=3)                  # a new episode counts from 0 again
    assert e.unwrapped.num_steps == 0 and not any(e.truncations.values())
    quiet(api_test, sy_env.env("zheng-shangyou/pagat", max_candidates=3, max_steps=9),
          num_cycles=100)
    for bad in (0, -1, 2.5, True, "9"):
        with pytest.raises(ValueError, match="max_steps"):
            sy_env.raw_env(max_steps=bad)


def test_always_more_is_truncated_in_the_single_agent_env():
    e = sy_env.single_agent("zheng-shangyou/pagat", opponents="random", max_candidates=2,
                            max_steps=25)
    assert sy_env.single_agent().max_steps == sy_env.DEFAULT_MAX_STEPS
    obs, _ = e.reset(seed=4)
    for step in range(1, 26):
        obs, reward, term, trunc, info = e.step(always_more(obs["action_mask"]))
        if term:
            pytest.fail("the always-MORE policy ended a hand")
        if trunc:
            break
    assert step == 25 and trunc and reward == 0.0 and info == {"max_steps": 25}
    with pytest.raises(RuntimeError, match="reset"):
        e.step(0)
    obs, _ = e.reset(seed=4)         # the limit counts per episode
    _, _, term, trunc, _ = e.step(always_more(obs["action_mask"]))
    assert not trunc and not term
    # no limit: a sensible policy ends its hands
    e = sy_env.single_agent("zheng-shangyou/pagat", opponents="random", max_steps=None)
    obs, _ = e.reset(seed=1)
    term = trunc = False
    while not (term or trunc):
        obs, _, term, trunc, _ = e.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert term and not trunc


def test_batch_sim_truncates_at_max_steps():
    from shangyou.env.batch import BatchSim
    sim = BatchSim("zheng-shangyou/pagat", n_games=3, seed=0, max_candidates=2, max_steps=6,
                   observe=False)
    for step in range(1, 7):
        acts = [always_more(m) for m in sim.observe()[1]]
        *_, rewards, done = sim.step(acts)
        assert not rewards.any()
        assert done.all() == (step == 6) and sim.truncated.all() == (step == 6)
    assert (sim.episode_steps == 0).all() and (sim.episodes == 0).all()
    sim.step([always_more(m) for m in sim.observe()[1]])
    assert not sim.truncated.any() and (sim.episode_steps == 1).all()


def test_gymnasium_make_and_vector_envs():
    import gymnasium
    from gymnasium.vector import SyncVectorEnv
    ids = sy_env.gym_ids()
    assert set(ids.values()) == set(shangyou.preset_names())
    assert "shangyou/pagat-v0" in ids and "shangyou/sheng-ji-zhao-pengyou-v0" in ids
    for env_id, preset in ids.items():
        g = gymnasium.make(env_id, opponents="random")
        assert g.unwrapped.aec.preset == preset and g.spec.id == env_id
        obs, _ = g.reset(seed=0)
        g.step(int(np.flatnonzero(obs["action_mask"])[0]))
    g = gymnasium.make("shangyou/zheng-fen-v0", players=5, seat=2, max_steps=7)
    assert (g.unwrapped.aec.players, g.unwrapped.seat, g.unwrapped.max_steps) == (5, 2, 7)
    # a vector env over the single-agent wrapper: a hand that ends starts the next one
    n = 3
    vec = SyncVectorEnv([lambda i=i: sy_env.single_agent("zheng-shangyou/pagat", seat=i,
                                                         opponents="random") for i in range(n)])
    made = gymnasium.make_vec("shangyou/pagat-v0", num_envs=n, vectorization_mode="sync",
                              opponents="random")
    for v in (vec, made):
        obs, _ = v.reset(seed=5)
        assert obs["observation"].shape == (n, vec.single_observation_space["observation"]
                                            .shape[0])
        rng = np.random.default_rng(0)
        ended = np.zeros(n, bool)
        for _ in range(400):
            masks = obs["action_mask"]
            acts = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])
            obs, reward, term, trunc, _ = v.step(acts)
            assert not trunc.any() and not reward[~term].any()
            ended |= term
            if ended.all():
                break
        assert ended.all()
        v.close()


def test_single_agent_opponents_bots_policies_and_self_play():
    from shangyou.bots import make_bot
    from shangyou.bots.base import GreedyBot

    class First:                       # a bot object of another package: no base class
        calls = 0

        def choose(self, view):
            First.calls += 1
            return view["legal_moves"][0]

    seen = []

    def policy(obs):                   # a policy on observations: self-play or a snapshot
        seen.append(obs["observation"].shape)
        ids = np.flatnonzero(obs["action_mask"])
        return int(ids[-2] if len(ids) > 1 else ids[0])    # the last id but MORE

    e = sy_env.single_agent("zheng-shangyou/pagat", seat=0, max_candidates=8,
                            opponents={1: First(), 2: policy, 3: GreedyBot,
                                       4: make_bot("random", 1)})
    for ep in range(3):
        obs, _ = e.reset(seed=ep)
        term = trunc = False
        while not (term or trunc):
            obs, _, term, trunc, _ = e.step(policy(obs))
        assert term and e.aec.game.over
    assert First.calls > 0 and seen and all(s == e.observation_space["observation"].shape
                                            for s in seen)
    # self-play: every other seat plays the learner's policy (list form, learner's entry unused)
    e = sy_env.single_agent("zheng-shangyou/pagat", seat=1, players=4,
                            opponents=[policy, None, policy, policy])
    obs, _ = e.reset(seed=3)
    term = False
    while not term:
        obs, _, term, trunc, _ = e.step(policy(obs))
        assert not trunc
    # an opponent policy that pages for ever is cut off by max_steps
    e = sy_env.single_agent("zheng-shangyou/pagat", max_candidates=2, max_steps=30, seat=4,
                            opponents=lambda obs: always_more(obs["action_mask"]))
    with pytest.raises(RuntimeError, match="paged"):
        e.reset(seed=0)
    e = sy_env.single_agent("zheng-shangyou/pagat", opponents=lambda obs: 127, seat=4)
    with pytest.raises(ValueError, match="seat 0 chose 127"):
        e.reset(seed=0)
    for bad in (42, {1: "greedy"}, ["greedy"] * 3):
        with pytest.raises(ValueError, match="opponent"):
            sy_env.single_agent("zheng-shangyou/pagat", opponents=bad)
