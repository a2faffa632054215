"""The ``learned`` level: the shipped model plays legal moves at every pagat table size, beats
random bots, needs numpy but not torch, and its features agree with the env's encoding."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

import shangyou
from shangyou.bots import make_bot, play_out
from shangyou.bots.base import rules_for
from shangyou.bots.learned import DEFAULT_MODEL, LearnedBot, Network, load_model
from shangyou.bots.learned_features import MOVE_DIM, STATE_DIM, features
from shangyou.games.climbing.steps import every_play

ROOT = Path(__file__).resolve().parent.parent
PAGAT = "zheng-shangyou/pagat"


class Checked:
    """A bot whose every move is checked against the view's legal moves."""

    def __init__(self, bot):
        self.bot = bot
        self.decisions = 0

    def choose(self, view):
        move = self.bot.choose(view)
        # a move listed, or where a play is chosen in steps one of every legal play (the game
        # accepts a whole play at every step)
        legal = view["legal_moves"]
        if move not in legal:
            legal = every_play(view, rules_for(view).family)["legal_moves"]
        assert move in legal, (move, view["legal_moves"])
        self.decisions += 1
        return move


def test_the_shipped_model_is_a_small_package_file():
    assert DEFAULT_MODEL.is_file()
    assert DEFAULT_MODEL.stat().st_size <= 20 * 1024 * 1024
    net = load_model(str(DEFAULT_MODEL))
    assert net.w["ws"].shape[0] == STATE_DIM and net.w["wm"].shape[0] == MOVE_DIM
    assert PAGAT in net.meta["games"] and net.meta["hands"] > 0


@pytest.mark.parametrize("players", shangyou.preset_info(PAGAT)["players"])
def test_learned_plays_legal_moves_at_every_table_size(players):
    # a match, so the exchange between hands (made by the heuristic level) comes up too
    g = shangyou.new_match(PAGAT, players=players, seed=11, target=3)
    bots = [Checked(make_bot("learned", seed=s)) for s in range(players)]
    play_out(g, bots)
    assert g.over and sum(b.decisions for b in bots) == len(g.moves)


def test_learned_plays_what_no_model_plays_as_the_heuristic_level():
    """Every preset and size has a shipped model now; the phases the models do not play
    (Sheng ji's bids, here) and the games a given model file does not name are the
    heuristic level's."""
    g = shangyou.new_game("sheng-ji", players=4, seed=2)
    learned, heuristic = make_bot("learned", seed=1), make_bot("heuristic", seed=1)
    view = g.view(g.to_act)
    assert view["phase"] != "play" and not learned.plays(view)
    assert learned.choose(view) == heuristic.choose(view)
    g = shangyou.new_game("zheng-shangyou/owen", players=4, seed=2)
    by_file = make_bot(f"learned:{DEFAULT_MODEL}", seed=1)      # a pagat model
    view = g.view(g.to_act)
    assert not by_file.plays(view)
    assert by_file.choose(view) == make_bot("heuristic", seed=1).choose(view)


def test_each_game_is_played_by_its_shipped_model_or_the_heuristic_level():
    from shangyou.bots.learned import shipped_for, shipped_models
    shipped = shipped_models()
    assert str(DEFAULT_MODEL) in shipped[PAGAT]
    learned = make_bot("learned", seed=1)
    for game in shangyou.preset_names():
        g = shangyou.new_game(game, seed=3)
        # the first play with a choice (the models decide plays; Sheng ji's bids and burying,
        # before it, are the heuristic's)
        heuristic = make_bot("heuristic", seed=2)
        while (len(g.view(g.to_act)["legal_moves"]) == 1
               or g.view(g.to_act).get("phase") != "play"):
            g.apply(heuristic.choose(g.view(g.to_act)))
        view = g.view(g.to_act)
        # (a model that names its table sizes plays only those: the preset's default size)
        assert learned.plays(view) == (shipped_for(game, g.n) is not None), game
        assert learned.choose(view) in view["legal_moves"]


def _points(level: str, deals: int, players: int = 4) -> float:
    """The mean points of ``level`` in a rotating seat against random bots (seeded deals)."""
    total = 0.0
    for d in range(deals):
        g = shangyou.new_game(PAGAT, players=players, seed=1000 + d)
        me = d % players
        bots = [make_bot(level if s == me else "random", seed=d * 10 + s) for s in range(players)]
        play_out(g, bots)
        total += g.result["points"][me]
    return total / deals


def test_learned_beats_random_bots():
    # fair share at 4 players: 3 points / 4 seats = 0.75 a hand
    learned = _points("learned", 40)
    assert learned > 1.2, learned
    assert learned > _points("random", 40) + 0.5


def test_values_rank_the_moves_and_the_bot_plays_the_best():
    g = shangyou.new_game(PAGAT, players=5, seed=4)
    bot = make_bot("learned", seed=0)
    view = g.view(g.to_act)
    values = bot.values(view)
    assert len(values) == len(view["legal_moves"]) and all(np.isfinite(values))
    assert bot.choose(view) == view["legal_moves"][int(np.argmax(values))]


def test_another_model_file_by_parameter_and_by_environment(tmp_path, monkeypatch):
    rng = np.random.default_rng(0)
    net = load_model(str(DEFAULT_MODEL))
    other = Network({k: rng.normal(size=v.shape).astype(np.float32) for k, v in net.w.items()},
                    {"games": [PAGAT], "hands": 1})
    path = tmp_path / "other.npz"
    other.save(path)
    g = shangyou.new_game(PAGAT, players=4, seed=9)
    view = g.view(g.to_act)
    by_param = make_bot(f"learned:{path}", seed=0)
    assert by_param.values(view) == pytest.approx([float(x) for x in other.q(*features(view))])
    monkeypatch.setenv("SHANGYOU_LEARNED_MODEL", str(path))
    assert make_bot("learned", seed=0).values(view) == by_param.values(view)
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a model")
    with pytest.raises(ValueError, match="is not a model of the learned bot"):
        make_bot(f"learned:{bad}")
    with pytest.raises(ValueError, match="no model file"):
        make_bot(f"learned:{tmp_path / 'missing.npz'}")


def test_features_agree_with_the_env_encoding():
    from shangyou.env.encoding import ClimbingEncoder
    for players, seed in ((4, 1), (5, 2), (8, 3)):
        g = shangyou.new_game(PAGAT, players=players, seed=seed)
        enc = ClimbingEncoder(players, 128)
        bots = [make_bot("greedy", seed=s) for s in range(players)]
        steps = 0
        while not g.over:
            seat = g.to_act
            view = g.view(seat)
            obs = enc.encode_bytes(view, None)
            state, rows = features(view)
            for name, at in (("hand", 0), ("played", 69)):
                sl = enc.slices[name]
                assert list(state[at:at + 54]) == list(obs[sl]), (name, steps)
            assert rows.shape == (len(view["legal_moves"]), MOVE_DIM)
            g.apply(bots[seat].choose(view))
            steps += 1


HIDE = textwrap.dedent("""
    import sys
    class Hide:
        def find_spec(self, name, path=None, target=None):
            if name.partition(".")[0] in {"torch", "gymnasium", "pettingzoo"}:
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
    sys.meta_path.insert(0, Hide())
""")


def test_the_learned_bot_needs_numpy_but_not_torch():
    code = HIDE + textwrap.dedent("""
        import shangyou
        from shangyou.bots import make_bot, play_out
        g = shangyou.new_game("zheng-shangyou/pagat", players=5, seed=1)
        play_out(g, [make_bot("learned", seed=s) for s in range(5)])
        assert g.over and "torch" not in sys.modules and "numpy" in sys.modules
        print("ok")
    """)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(ROOT / "src")] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         timeout=120, cwd=ROOT)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr


def test_the_bot_from_a_network_object():
    net = load_model(str(DEFAULT_MODEL))
    bot = LearnedBot(3, network=net)
    g = shangyou.new_game(PAGAT, players=4, seed=5)
    play_out(g, [Checked(bot)] + [make_bot("greedy", seed=s) for s in range(3)])
    assert g.over


def test_a_web_table_of_learned_bots_plays_a_match(tmp_path):
    from fastapi.testclient import TestClient
    from test_server import OPEN, Player, new_table, server_table

    from shangyou.server import create_app
    with TestClient(create_app(data_dir=tmp_path / "data", bot_delay=0)) as client:
        try:
            assert "learned" in client.get("/api/bots").json()["levels"]
            tid = new_table(client, game="zheng-shangyou/pagat", players=4,
                            options={"target": 1}, bots="learned")
            ann = Player(client, tid, "Ann")
            ann.send({"type": "bots", "level": "learned"})
            ann.state_until(lambda s: all(x["kind"] == "bot" for x in s["table"]["seats"]))
            ann.send({"type": "start"})
            final = ann.state_until(lambda s: s["table"]["status"] == "over")
            g = server_table(client, tid).game
            assert g.over and len(g.moves) > 8 and final["move_count"] == len(g.moves)
            assert {s["bot_level"] for s in final["table"]["seats"]} == {"learned"}
        finally:
            while OPEN:
                OPEN.pop().close()


def test_without_numpy_the_level_names_what_to_install():
    code = HIDE.replace('{"torch", "gymnasium", "pettingzoo"}', '{"numpy"}') + textwrap.dedent("""
        from shangyou.bots import make_bot
        try:
            make_bot("learned")
        except ModuleNotFoundError as e:
            print(e.name, "|", e)
    """)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(ROOT / "src")] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         timeout=120, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == ("numpy | the learned bot needs numpy (numpy is missing): "
                                  "pip install 'shangyou[env]'")


def test_a_tournament_with_a_model_file_in_worker_processes(tmp_path):
    from shangyou.tournament import make_config, run_tournament
    path = tmp_path / "model.npz"
    load_model(str(DEFAULT_MODEL)).save(path)
    cfg = make_config(PAGAT, f"learned:{path},random,random,random", seed=4)
    results = run_tournament(cfg, 3, tmp_path / "t", workers=2)
    assert results["hands"] == 12
    by_bot = {b["bot"]: b for b in results["bots"]}
    assert by_bot[f"learned:{path}"]["score"]["mean"] > by_bot["random"]["score"]["mean"]


def test_a_level_keeps_the_case_of_its_parameter():
    from shangyou.bots.base import level_spec
    from shangyou.cli.main import parse_bots
    from shangyou.tournament import make_config
    path = str(DEFAULT_MODEL)
    assert level_spec(f" Learned:{path} ") == f"learned:{path}"
    assert parse_bots(f"LEARNED:{path}", [1, 2]) == {1: f"learned:{path}", 2: f"learned:{path}"}
    assert make_config(PAGAT, f"Learned:{path},Random,random,random", seed=1).bots[:2] == (
        f"learned:{path}", "random")


def test_the_shipped_owen_model_plays_owen_at_every_size():
    """models/owen.npz (a re-ranker distilled from the search at 2 and 3 players, ``"players":
    [2, 3, 4, 6]``: it beats the heuristic at every size, docs/training-owen.md) plays Owen at
    each size the preset allows; "winner" is another file's (models/winner.npz)."""
    from shangyou.bots.learned import MODELS, shipped_models
    owen = "zheng-shangyou/owen"
    assert shipped_models()[owen] == [str(MODELS / "owen.npz")]
    sizes = shangyou.preset_info(owen)["players"]
    assert sorted(load_model(str(MODELS / "owen.npz")).meta["players"]) == sorted(sizes)
    learned = make_bot("learned", seed=1)
    tables = [(owen, n, True) for n in sizes]
    for game, players, plays in tables:
        g = shangyou.new_game(game, players=players, seed=5)
        view = g.view(g.to_act)
        assert learned.plays(view) == plays, (game, players)
        assert learned.choose(view) in view["legal_moves"]


def owen_sizes() -> list[int]:
    from shangyou.bots.learned import MODELS
    return list(load_model(str(MODELS / "owen.npz")).meta["players"])


@pytest.mark.parametrize("players", owen_sizes())
def test_the_shipped_owen_model_plays_legal_moves_at_every_size_it_lists(players):
    """A whole Owen hand at each table size models/owen.npz lists, every seat the learned
    level, every move checked against the legal ones; the model, not the heuristic, decides
    at that size."""
    assert players in shangyou.preset_info("zheng-shangyou/owen")["players"]
    g = shangyou.new_game("zheng-shangyou/owen", players=players, seed=21)
    bots = [Checked(make_bot("learned", seed=s)) for s in range(players)]
    assert bots[0].bot.plays(g.view(g.to_act))
    play_out(g, bots)
    assert g.over and sum(b.decisions for b in bots) == len(g.moves)


def test_the_shipped_sheng_ji_model_plays_sheng_ji_and_single_deck():
    """models/sheng-ji.npz (a re-ranker with a choice target that guides a small search,
    ``"players": [4, 6]``) plays whole hands of Sheng ji at 4 and 6 players and of single deck
    with legal moves (Zhao Pengyou has a file of its own, below)."""
    from shangyou.bots.learned import MODELS, shipped_for, shipped_models
    path = MODELS / "sheng-ji.npz"
    for game in ("sheng-ji", "sheng-ji/single-deck"):
        assert shipped_models()[game] == [str(path)]
        assert all(shipped_for(game, n) == str(path)
                   for n in shangyou.preset_info(game)["players"])
    assert path.stat().st_size <= 20 * 1024 * 1024
    net = load_model(str(path))
    assert net.meta["mode"] == "rerank" and net.meta["inputs"] == "sj-search-1"
    for game, players, seed in (("sheng-ji", 4, 7), ("sheng-ji/single-deck", 4, 8),
                                ("sheng-ji", 6, 9)):
        g = shangyou.new_game(game, players=players, seed=seed)
        bots = [Checked(make_bot("learned", seed=s)) for s in range(players)]
        play_out(g, bots)
        assert g.over and sum(b.decisions for b in bots) == len(g.moves)
    learned = make_bot("learned", seed=1)
    for game, players, plays in (("sheng-ji", 4, True), ("sheng-ji/single-deck", 4, True),
                                 ("sheng-ji", 6, True)):
        g = shangyou.new_game(game, players=players, seed=5)
        while not g.over:
            view = g.view(g.to_act)
            if view["phase"] == "play":
                break
            g.apply(make_bot("heuristic", seed=3).choose(view))
        assert learned.plays(view) == plays, (game, players)
        assert learned.choose(view) in view["legal_moves"]


def test_the_zhao_pengyou_model_plays_the_sizes_it_was_measured_at():
    """models/zhao-pengyou.npz (the Sheng ji 4p re-ranker's weights, ``"players"``: the sizes
    measured) plays whole hands of Zhao Pengyou with legal moves there, its calls and burying
    being the heuristic's; at any other size the heuristic level plays."""
    from shangyou.bots.learned import MODELS, shipped_for, shipped_models
    path = MODELS / "zhao-pengyou.npz"
    zp = "sheng-ji/zhao-pengyou"
    assert shipped_models()[zp] == [str(path)]
    sizes = load_model(str(path)).meta["players"]
    assert 6 in sizes and set(sizes) <= {5, 6, 7}
    assert [shipped_for(zp, n) for n in (5, 6, 7)] == [
        str(path) if n in sizes else None for n in (5, 6, 7)]
    net = load_model(str(path))
    sj = load_model(str(MODELS / "sheng-ji.npz"))
    assert net.meta["mode"] == "rerank" and net.meta["phases"] == ["play"]
    assert net.w.keys() == sj.w.keys() and all(np.array_equal(net.w[k], sj.w[k]) for k in sj.w)
    for seed, players in ((4, 6), (9, sizes[0])):
        g = shangyou.new_game(zp, players=players, seed=seed)
        bots = [Checked(make_bot("learned", seed=s)) for s in range(players)]
        play_out(g, bots)
        assert g.over and sum(b.decisions for b in bots) == len(g.moves)
    learned = make_bot("learned", seed=1)
    for players in (5, 6, 7):
        plays = players in sizes
        g = shangyou.new_game(zp, players=players, seed=5)
        while not g.over:
            view = g.view(g.to_act)
            if view["phase"] == "play" and len(view["legal_moves"]) > 1:
                break
            g.apply(make_bot("heuristic", seed=3).choose(view))
        assert learned.plays(view) == plays, players
        assert learned.choose(view) in view["legal_moves"]


def test_pagat_is_played_by_the_re_rankers_at_their_sizes_and_the_first_model_elsewhere():
    """models/pagat-rerank*.npz (distilled from the search, each naming its ``"players"``) play
    pagat at their table sizes, which are now every size (the 4-player model at 3 and 4, the
    5-player one at 5 to 8: each beat the heuristic there by points and by place, where the
    first model lost to it at 3 and finished later at 6 and 7); models/pagat.npz, of the first
    format, would play any other size and stays the fallback of the list."""
    from shangyou.bots.learned import MODELS, shipped_for, shipped_models
    paths = shipped_models()[PAGAT]
    assert paths[-1] == str(DEFAULT_MODEL) and str(MODELS / "pagat-rerank.npz") in paths
    by_size: dict[int, str] = {}
    for path in paths[:-1]:
        net = load_model(path)
        assert net.meta["mode"] == "rerank" and net.meta["players"]
        assert Path(path).stat().st_size <= 20 * 1024 * 1024
        for n in net.meta["players"]:
            by_size.setdefault(n, path)
    assert by_size[3] == by_size[4] == str(MODELS / "pagat-rerank.npz")
    assert all(by_size[n] == str(MODELS / "pagat-rerank5.npz") for n in (5, 6, 7, 8))
    assert set(by_size) == set(shangyou.preset_info(PAGAT)["players"])
    teams = "zheng-shangyou/pagat-teams"        # the same models, at the team preset's sizes
    assert shipped_for(teams, 4) == by_size[4] and shipped_for(teams, 6) == by_size[6]
    g = shangyou.new_game(teams, players=6, seed=4)
    bots = [Checked(make_bot("learned", seed=s)) for s in range(6)]
    play_out(g, bots)
    assert g.over and sum(b.decisions for b in bots) == len(g.moves)
    learned = make_bot("learned", seed=1)
    for players in shangyou.preset_info(PAGAT)["players"]:
        want = by_size.get(players, str(DEFAULT_MODEL))
        assert shipped_for(PAGAT, players) == want, players
        g = shangyou.new_game(PAGAT, players=players, seed=6)
        view = g.view(g.to_act)
        assert learned.plays(view)
        assert learned._net(view) is load_model(want)
        assert learned.choose(view) in view["legal_moves"]


def test_the_re_rankers_short_way_equals_the_long_one():
    """``Network.q_rerank`` (the first layer's halves summed once) gives what ``q`` gives on
    :func:`rerank_rows`, for every choice of the base row."""
    from shangyou.bots.learned import rerank_rows, shipped_for
    net = load_model(shipped_for(PAGAT, 4))
    rng = np.random.default_rng(3)
    state = rng.random(net.w["ws"].shape[0], dtype=np.float32)
    rows = rng.random((7, net.w["wm"].shape[0] // 2), dtype=np.float32)
    for base in range(len(rows)):
        long = net.q(state, rerank_rows(rows, base))
        assert np.allclose(net.q_rerank(state, rows, base), long, rtol=1e-5, atol=1e-5)
    assert int(np.argmax(net.q_rerank(state, rows))) == int(np.argmax(net.q(state,
                                                                           rerank_rows(rows))))


def test_the_learned_level_pauses_the_garbage_collector_only_during_its_decision(monkeypatch):
    """As the search does: no collection inside a decision (a full one can take a tenth of a
    second in a long-running process), the collector back on after it, also after an error,
    and left off for a caller that runs without it."""
    import gc
    g = shangyou.new_game(PAGAT, players=4, seed=6)
    v = g.view(g.to_act)
    bot = make_bot("learned", seed=1)
    seen = []

    def rerank(net, view):
        seen.append(gc.isenabled())
        if len(seen) == 2:
            raise RuntimeError("boom")
        return view["legal_moves"][-1]
    monkeypatch.setattr(bot, "_rerank", rerank)
    assert gc.isenabled()
    assert bot.choose(v) == v["legal_moves"][-1]
    assert gc.isenabled()
    with pytest.raises(RuntimeError):
        bot.choose(v)
    assert gc.isenabled() and seen == [False, False]
    gc.disable()
    try:
        bot.choose(v)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_the_re_ranker_samples_no_world_for_its_candidates(monkeypatch):
    """Where a pagat seat has more legal moves than candidates, the search adds the playout
    policy's move in one sampled world; the re-ranker's list leaves that out (it costs more
    than the rest of the list) and is otherwise the search's: candidate 0 the heuristic's
    move, then the cheapest plays."""
    import random

    from shangyou.bots import climbing_heuristic
    from shangyou.bots.climbing_search import MAX_CANDIDATES, Search
    views = []
    for seed in range(6):
        g = shangyou.new_game(PAGAT, players=4, seed=seed)
        while not g.over:
            v = g.view(g.to_act)
            if len(v["legal_moves"]) > MAX_CANDIDATES:
                views.append(v)
            g.apply(climbing_heuristic.choose(v))
    assert len(views) >= 20
    differ = 0
    for v in views:
        s = Search(v, random.Random(1))
        s.heuristic_first = True
        base = climbing_heuristic.choose(v)
        full = s.candidates(base, ordered=False)
        short = Search(v, random.Random(1)).candidates(base, ordered=False, sampled=False)
        if len(full) == 1:                  # a play that goes out: the one candidate
            assert short == full
            continue
        assert short[0] == base and len(short) == MAX_CANDIDATES
        assert set(full) - set(short) <= {full[1]}      # at most the world's move differs
        differ += set(full) != set(short)
    assert differ > 0

    def no_world(self):
        raise AssertionError("the re-ranker sampled a world")
    monkeypatch.setattr(Search, "sampler", property(no_world))
    bot = make_bot("learned", seed=1)
    alone = [v for v in views if len(v["finished"]) < 2]    # once two are out it searches
    assert len(alone) >= 20
    for v in alone:
        assert bot.choose(v) in v["legal_moves"]


def heuristic_views(game: str, players: int, seeds):
    """(game, view to act) at every decision of hands played by heuristic bots, one hand a
    seed; the caller decides on the view without moving the game on."""
    for seed in seeds:
        g = shangyou.new_game(game, players=players, seed=seed)
        heur = make_bot("heuristic", seed=seed)
        while not g.over:
            v = g.view(g.to_act)
            yield g, v
            g.apply(heur.choose(v))


def test_a_guided_search_over_a_view_no_world_fits_plays_the_heuristics_move():
    """A view whose card counts no deal of the hidden cards can meet (a constructed state):
    the search cannot weigh, so the guided level plays the heuristic's move, as the search
    level does, instead of failing the decision."""
    import copy
    from shangyou.bots import sheng_ji_search
    from shangyou.bots.learned import MODELS
    from shangyou.env.features import whole_plays
    shipped = load_model(str(MODELS / "sheng-ji.npz"))
    duel = LearnedBot(1, network=Network(shipped.w, {**shipped.meta, "duel_margin": -1e9}))
    g = shangyou.new_game("sheng-ji", players=4, seed=2)
    heur = make_bot("heuristic", seed=2)
    checked = 0
    while not g.over and checked < 5:
        v = g.view(g.to_act)
        w = whole_plays(v)
        if w["phase"] == "play" and not w.get("pending") and len(w["legal_moves"]) > 2 \
                and not w["legal_moves"][0].startswith("pick "):
            bad = copy.deepcopy(v)
            bad["counts"][(v["seat"] + 1) % 4] += 3         # three cards nobody holds
            base = duel._heuristic_move(whole_plays(bad))
            pairs = sheng_ji_search.candidates(whole_plays(bad), w["legal_moves"], base)
            if len(pairs) >= 2:
                with pytest.raises(ValueError):
                    sheng_ji_search.weigh(whole_plays(bad), pairs[:2], duel.rng, iterations=8)
                assert duel.choose(bad) == base
                checked += 1
        g.apply(heur.choose(v))
    assert checked == 5


def test_a_climbing_model_with_a_duel_weighs_its_top_candidate_by_the_climbing_search(
        monkeypatch):
    """``duel_playouts`` in a climbing re-ranker's metadata: the network's best other candidate,
    valued above the heuristic's move by more than ``duel_margin``, is weighed against that
    move by the climbing search over those two moves only (``Search.run``'s ``cands``), with
    the playouts and the CPU cap asked, from the decision's start; its choice is played. Below
    the margin the heuristic's move is played and nothing is searched."""
    from shangyou.bots.climbing_search import Search
    from shangyou.bots.learned import DUEL_CAP_SECONDS, MODELS
    shipped = load_model(str(MODELS / "zheng-fen.npz"))
    runs: list = []
    real_run = Search.run

    def watch(self, iterations, seconds, cands=None, cpu_cap=None):
        runs.append((list(cands or ()), iterations, cpu_cap, self.started))
        return real_run(self, iterations, seconds, cands=cands, cpu_cap=cpu_cap)
    monkeypatch.setattr(Search, "run", watch)
    duel = LearnedBot(1, network=Network(shipped.w, {**shipped.meta, "duel_playouts": 10,
                                                     "duel_margin": -1e9}))
    never = LearnedBot(1, network=Network(shipped.w, {**shipped.meta, "duel_playouts": 10,
                                                      "duel_margin": 1e9, "margin": 1e9}))
    checked = 0
    for g, v in heuristic_views("zheng-fen", 4, range(2)):
        runs.clear()
        move = duel.choose(v)
        assert move in v["legal_moves"] or move in every_play(v, g.rules.family)["legal_moves"]
        if runs:
            (cands, iterations, cap, started), = runs
            assert len(cands) == 2 and iterations == 10 and cap == DUEL_CAP_SECONDS
            assert started == duel._started and move in cands
            runs.clear()
            assert never.choose(v) == cands[0] and runs == []   # the heuristic's move
            checked += 1
    assert checked >= 10


def test_the_winner_models_guide_the_search_at_every_size():
    """models/winner.npz (the pagat 4-player re-ranker's weights) guides a small search at
    the one-pack sizes, 3 and 4, and models/winner5.npz (the 5-player one's) at the two-pack
    sizes, 5 to 8, each size with its playouts: whole hands with legal moves."""
    from shangyou.bots.learned import MODELS, duel_playouts, shipped_for
    winner = "zheng-shangyou/winner"
    for name, weights, sizes in (("winner.npz", "pagat-rerank.npz", [3, 4]),
                                 ("winner5.npz", "pagat-rerank5.npz", [5, 6, 7, 8])):
        path = str(MODELS / name)
        net = load_model(path)
        assert net.meta["players"] == sizes and net.meta["games"] == [winner]
        assert all(0 < duel_playouts(net.meta, n, winner) <= 16 for n in sizes)
        pagat = load_model(str(MODELS / weights))
        assert all(np.array_equal(net.w[k], pagat.w[k]) for k in pagat.w)
        assert [shipped_for(winner, n) for n in sizes] == [path] * len(sizes)
    one = load_model(str(MODELS / "winner.npz")).meta     # two packs at 4: fewer playouts
    assert 0 < duel_playouts(one, 4, winner, 2) < duel_playouts(one, 4, winner, 1)
    assert shangyou.preset_info(winner)["players"] == (3, 4, 5, 6, 7, 8)
    for players, options in ((3, {}), (5, {"decks": 2}), (8, {"decks": 2})):
        g = shangyou.new_game(winner, players=players, seed=3, **options)
        bots = [Checked(make_bot("learned", seed=s)) for s in range(players)]
        play_out(g, bots)
        assert g.over and sum(b.decisions for b in bots) == len(g.moves)


def test_the_zheng_fen_model_guides_the_search_at_every_size():
    """models/zheng-fen.npz plays Zheng Fen at 3 to 6 players, each size with its playouts
    (fewer at 3, where a hand holds more cards): whole hands with legal moves."""
    from shangyou.bots.learned import MODELS, duel_playouts, shipped_for
    path = str(MODELS / "zheng-fen.npz")
    sizes = shangyou.preset_info("zheng-fen")["players"]
    assert [shipped_for("zheng-fen", n) for n in sizes] == [path] * len(sizes)
    meta = load_model(path).meta
    assert all(0 < duel_playouts(meta, n) <= 16 for n in sizes)
    assert duel_playouts(meta, 3) < duel_playouts(meta, 4)
    for players, seed in ((3, 1), (6, 2)):
        g = shangyou.new_game("zheng-fen", players=players, seed=seed)
        bots = [Checked(make_bot("learned", seed=s)) for s in range(players)]
        play_out(g, bots)
        assert g.over and sum(b.decisions for b in bots) == len(g.moves)


def test_the_pagat_models_search_once_two_seats_are_out_and_only_in_pagat(monkeypatch):
    """The shipped pagat re-rankers (4 and 5 players) carry ``duel_after_out`` 2: the guided
    search runs only at decisions where two seats or more have gone out
    (``view["finished"]``), the re-ranker deciding alone before; ``duel_games`` keeps it out
    of pagat-teams, which the same files play."""
    from shangyou.bots.climbing_search import Search
    runs: list = []
    real_run = Search.run

    def watch(self, iterations, seconds, cands=None, cpu_cap=None):
        runs.append(iterations)
        return real_run(self, iterations, seconds, cands=cands, cpu_cap=cpu_cap)
    monkeypatch.setattr(Search, "run", watch)
    bot = LearnedBot(1)
    for game, players, searches in (("zheng-shangyou/pagat", 5, True),
                                    ("zheng-shangyou/pagat", 4, True),
                                    ("zheng-shangyou/pagat-teams", 4, False)):
        before = after = 0
        for g, v in heuristic_views(game, players, range(4)):
            if v["phase"] != "play" or len(v["legal_moves"]) < 2:
                continue
            runs.clear()
            assert bot.choose(v) in v["legal_moves"]
            if len(v["finished"]) >= 2:
                after += bool(runs)
                assert all(n == 16 for n in runs)
            else:
                before += 1
                assert runs == [], (game, v["finished"])
        assert before >= 20, game
        assert (after >= 3) if searches else after == 0, (game, after)


def test_the_climbing_search_over_given_moves_begins_no_world_past_its_cpu_cap():
    """``Search.run(..., cands=..., cpu_cap=...)``: the moves given are weighed, and once the
    decision's CPU time is past the cap no world is begun (the first move stands)."""
    import random as _random
    from shangyou.bots.climbing_search import Search
    g = shangyou.new_game("zheng-fen", players=4, seed=2)
    view = every_play(g.view(g.to_act), g.rules.family)
    moves = view["legal_moves"]
    assert len(moves) >= 3
    cands = [moves[-1], moves[0]]
    info: dict = {}
    s = Search(view, _random.Random(1))
    s.info = info
    s.started = time.process_time()
    assert s.run(16, None, cands=cands, cpu_cap=30.0) in cands
    assert set(info["values"]) == set(cands) and info["worlds"] >= 1
    late: dict = {}
    s = Search(view, _random.Random(1))
    s.info = late
    s.started = time.process_time() - 10.0          # ten CPU seconds ago
    assert s.run(16, None, cands=cands, cpu_cap=0.25) == cands[0]
    assert late["stop"] == "cap" and late["worlds"] == 0


def test_duel_playouts_reads_one_count_or_a_count_per_table_size_from_a_models_file(tmp_path):
    """A model file keeps ``duel_playouts`` as one count or as a count per size (JSON keys are
    strings); a size not named, or outside ``duel_players``, does not search."""
    from shangyou.bots.learned import MODELS, duel_playouts
    shipped = load_model(str(MODELS / "zhao-pengyou.npz"))
    path = tmp_path / "m.npz"
    Network(shipped.w, {**shipped.meta, "duel_playouts": {"5": 64, "6": 32, "7": 32},
                        "duel_players": None}).save(str(path))
    meta = load_model(str(path)).meta
    assert [duel_playouts(meta, n) for n in (4, 5, 6, 7, 8)] == [0, 64, 32, 32, 0]
    assert [duel_playouts({"duel_playouts": 16}, n) for n in (4, 5)] == [16, 16]
    assert duel_playouts({"duel_playouts": 16, "duel_players": [5]}, 4) == 0
    assert duel_playouts({"duel_playouts": {"4": 8}, "duel_players": [5]}, 4) == 0
    assert duel_playouts({}, 4) == 0
    games = {"duel_playouts": {"5": 16}, "duel_games": ["zheng-shangyou/pagat"]}
    assert duel_playouts(games, 5, "zheng-shangyou/pagat") == 16
    assert duel_playouts(games, 5, "zheng-shangyou/pagat-teams") == 0
    assert duel_playouts(games, 5) == 0
    packs = {"duel_playouts": {"4": 16, "4x2": 6}}      # a size and a pack count first
    assert [duel_playouts(packs, 4, None, d) for d in (1, 2, None)] == [16, 6, 16]


def test_a_sheng_ji_model_with_a_duel_weighs_its_top_candidates_by_the_search(monkeypatch):
    """``duel_playouts`` in a Sheng ji re-ranker's metadata: the candidates the network values
    above the heuristic's move by more than ``duel_margin`` (its ``duel_top`` best) are weighed
    against that move by the search (``sheng_ji_search.weigh``, the heuristic's move first,
    under a CPU cap from the decision's start), and the search's choice is played; with none
    above the margin, or at a table size outside ``duel_players``, the heuristic's move is
    played and nothing is searched."""
    from shangyou.bots import sheng_ji_search
    from shangyou.bots.learned import DUEL_CAP_SECONDS, MODELS, rerank_features
    from shangyou.env.features import whole_plays
    shipped = load_model(str(MODELS / "sheng-ji.npz"))
    weighed: list[tuple[list[str], int]] = []
    real_weigh = sheng_ji_search.weigh

    def watch(view, cands, rng, iterations=None, cpu_start=None, cpu_cap=None):
        weighed.append(([m for m, _ in cands], iterations, cpu_cap))
        assert cpu_start is not None and cpu_start <= time.process_time()
        return real_weigh(view, cands, rng, iterations, cpu_start=cpu_start, cpu_cap=cpu_cap)
    monkeypatch.setattr(sheng_ji_search, "weigh", watch)
    duel = LearnedBot(1, network=Network(shipped.w, {**shipped.meta, "duel_playouts": 12,
                                                     "duel_top": 2, "duel_margin": -1e9}))
    never = LearnedBot(1, network=Network(shipped.w, {**shipped.meta, "duel_playouts": 12,
                                                      "duel_margin": 1e9}))
    elsewhere = LearnedBot(1, network=Network(shipped.w, {
        **shipped.meta, "duel_playouts": 12, "duel_margin": -1e9, "duel_players": [5, 6]}))
    by_size = LearnedBot(1, network=Network(shipped.w, {     # a count per table size
        **shipped.meta, "duel_playouts": {"4": 10, "5": 64}, "duel_margin": -1e9}))
    not_this_size = LearnedBot(1, network=Network(shipped.w, {
        **shipped.meta, "duel_playouts": {"5": 64, "6": 32}, "duel_margin": -1e9}))
    checked = 0
    for _, v in heuristic_views("sheng-ji", 4, range(3)):
        w = whole_plays(v)
        if w["phase"] == "play" and not w.get("pending") and len(w["legal_moves"]) > 2 \
                and not w["legal_moves"][0].startswith("pick "):
            base = duel._heuristic_move(w)
            pairs = sheng_ji_search.candidates(w, w["legal_moves"], base)
            if len(pairs) >= 3:
                state, rows = rerank_features(w, [m for m, _ in pairs], shipped.meta["inputs"])
                q = shipped.q_rerank(state, rows)
                top2 = sorted(range(1, len(pairs)), key=lambda i: -(q[i] - q[0]))[:2]
                weighed.clear()
                move = duel.choose(v)
                assert weighed == [([pairs[0][0]] + [pairs[i][0] for i in top2], 12,
                                    DUEL_CAP_SECONDS)]
                assert move in [pairs[0][0]] + [pairs[i][0] for i in top2]
                weighed.clear()
                assert never.choose(v) == never._heuristic_move(w) and weighed == []
                elsewhere.choose(v)                 # a size it does not duel at
                not_this_size.choose(v)
                assert weighed == []
                by_size.choose(v)
                assert weighed == [([pairs[0][0], pairs[top2[0]][0]], 10, DUEL_CAP_SECONDS)]
                weighed.clear()
                checked += 1
    assert checked >= 10
