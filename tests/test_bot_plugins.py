"""Bots from other packages: a distribution with a ``shangyou.bots`` entry point becomes a
level in every process (the CLI, the tournament and its worker processes)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from shangyou.bots import Bot, BotProtocol, make_bot

ROOT = Path(__file__).resolve().parent.parent

PLUGIN = '''
from shangyou.bots import Bot


class FirstBot(Bot):
    """Always the first legal move."""

    name = "first-move"

    def choose(self, view):
        return view["legal_moves"][0]


class Broken:
    def __init__(self, seed):
        pass
'''


@pytest.fixture(scope="module")
def plugin_path(tmp_path_factory) -> Path:
    """A folder on sys.path holding an installed-looking distribution with two bots."""
    root = tmp_path_factory.mktemp("plugin")
    (root / "first_move_bot.py").write_text(PLUGIN)
    info = root / "first_move_bot-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: first-move-bot\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        "[shangyou.bots]\nfirst-move = first_move_bot:FirstBot\n"
        "broken = first_move_bot:Broken\ngreedy = first_move_bot:FirstBot\n")
    return root


def run(plugin_path: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "src"), str(plugin_path)]))
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env,
                          timeout=240, cwd=ROOT)


def test_an_entry_point_bot_is_a_level(plugin_path):
    code = textwrap.dedent("""
        import warnings
        from shangyou.bots import known_levels, make_bot, BotProtocol
        import shangyou
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            levels = known_levels()
        assert "first-move" in levels and "broken" in levels, levels
        assert any("'greedy' is a built-in level" in str(w.message) for w in caught)
        assert type(make_bot("greedy")).__name__ == "GreedyBot"    # built-ins win
        bot = make_bot("first-move", seed=1)
        assert isinstance(bot, BotProtocol)
        g = shangyou.new_game("zheng-shangyou/pagat", seed=2)
        view = g.view(g.to_act)
        assert bot.choose(view) == view["legal_moves"][0]
        for bad, text in (("broken", "no choose"), ("first-move:9", "takes no parameter")):
            try:
                make_bot(bad)
            except ValueError as e:
                assert text in str(e), e
            else:
                raise AssertionError(bad)
        print("ok")
    """)
    out = run(plugin_path, "-c", code)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr


def test_an_entry_point_bot_plays_a_tournament_with_workers(plugin_path, tmp_path):
    out = run(plugin_path, "-m", "shangyou", "tournament", "--game", "zheng-shangyou/pagat",
              "--bots", "first-move,greedy,random,random", "--deals", "2", "--workers", "2",
              "--seed", "1", "--out", str(tmp_path / "t"), "--no-progress")
    assert out.returncode == 0, out.stderr
    lines = (tmp_path / "t" / "deals.jsonl").read_text().splitlines()
    assert json.loads(lines[0])["config"]["bots"][0] == "first-move" and len(lines) == 3


def test_the_bot_protocol():
    class Plain:
        def choose(self, view):
            return view["legal_moves"][0]

    assert isinstance(Plain(), BotProtocol) and isinstance(make_bot("random"), BotProtocol)
    assert isinstance(make_bot("greedy"), Bot) and not isinstance(object(), BotProtocol)


def test_a_tournament_takes_bot_objects_classes_and_policies(tmp_path):
    from shangyou.bots.base import GreedyBot
    from shangyou.tournament.runner import make_config, run

    class Plain:
        def choose(self, view):
            return view["legal_moves"][0]

    extra = {"plain": Plain(), "Mine": GreedyBot, "last": lambda view: view["legal_moves"][-1]}
    cfg = make_config("zheng-shangyou/pagat", "plain,mine,last,greedy", seed=1, players=4,
                      extra_bots=extra)
    records = run(cfg, 2, tmp_path / "a", workers=1, progress=False, extra_bots=extra)
    assert len(records) == 2 and all(len(r["hands"]) == 4 for r in records)
    with pytest.raises(ValueError, match="picklable"):
        run(cfg, 3, tmp_path / "b", workers=2, progress=False, extra_bots=extra)
    # a bot class defined in a module travels to worker processes
    cfg = make_config("zheng-shangyou/pagat", "mine,greedy,random,random", seed=1,
                      extra_bots={"mine": GreedyBot})
    records = run(cfg, 2, tmp_path / "c", workers=2, progress=False,
                  extra_bots={"mine": GreedyBot})
    assert len(records) == 2
    with pytest.raises(ValueError):
        make_config("zheng-shangyou/pagat", "mine,greedy,random,random", seed=1,
                    extra_bots={"mine": 42})


def test_the_web_server_offers_an_entry_point_bot(plugin_path, tmp_path):
    """The server's levels (GET /api/bots, the lobby's and the table's choices) include the
    entry point's; a table takes it, and the worker-process function plays with it."""
    import socket
    import time
    import urllib.error
    import urllib.request

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "src"), str(plugin_path)]))
    proc = subprocess.Popen([sys.executable, "-m", "shangyou.server", "--port", str(port),
                             "--data", str(tmp_path)], env=env, cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"

    def call(path, body=None):
        req = urllib.request.Request(base + path, method="POST" if body else "GET",
                                     data=json.dumps(body).encode() if body else None,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                return r.status, json.loads(r.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read())

    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, "the server exited"
            try:
                if call("/healthz")[1].get("ok"):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        status, body = call("/api/bots")
        assert status == 200
        assert body["levels"] == ["random", "greedy", "heuristic", "search", "learned", "broken",
                                  "first-move"]
        status, body = call("/api/tables", {"game": "zheng-shangyou/pagat",
                                            "bots": "first-move"})
        assert status == 200 and body["table_id"], body
        status, body = call("/api/tables", {"game": "zheng-shangyou/pagat", "bots": "nobody"})
        assert 400 <= status < 500
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    out = run(plugin_path, "-c", textwrap.dedent("""
        import shangyou
        from shangyou.server.autoplay import FAST_LEVELS, _choose_in_worker
        g = shangyou.new_game("zheng-shangyou/pagat", seed=5)
        view = g.view(g.to_act)
        assert "first-move" not in FAST_LEVELS        # it thinks in a worker process
        assert _choose_in_worker("first-move", 1, view) == view["legal_moves"][0]
        print("ok")
    """))
    assert out.stdout.strip() == "ok", out.stderr
