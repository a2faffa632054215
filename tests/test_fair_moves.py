"""The moves' running hash (docs/fairness.md, *The moves' hash*): it binds a published log to
the moves that were played, so that ``verify`` fails on a log cut short or with a move changed,
and every ``state`` the server sends carries the hash of the moves so far."""

from __future__ import annotations

import copy
import json
import random

import pytest
from typer.testing import CliRunner

import shangyou
from shangyou.bots import make_bot, play_out
from shangyou.cli.main import app as cli
from shangyou.fairness import (MovesChain, commitment, move_hash, moves_chain, moves_start,
                               published_log, verify)
from test_server import Player, app, client, new_table  # noqa: F401  (fixtures)

pytestmark = pytest.mark.timeout(120)

SECRET = "5e" * 32
# (preset, players, options): short matches of every family
GAMES = [("zheng-shangyou/owen", 2, {"target": 2}), ("zheng-shangyou/pagat", 3, {"target": 2}),
         ("zheng-fen", 3, {"target": 100}), ("sheng-ji/single-deck", 4, {})]


def test_the_chain_is_the_documented_construction():
    """h_0 = HMAC-SHA256(secret, "shangyou/moves/v1:" + commitment); h_k = HMAC-SHA256(secret,
    "<h_{k-1} hex>:<seat>:<move text>") (the recipe docs/fairness.md gives for a shell)."""
    import hashlib
    import hmac
    key, c = bytes.fromhex(SECRET), commitment(SECRET)
    h0 = hmac.new(key, f"shangyou/moves/v1:{c}".encode(), hashlib.sha256).hexdigest()
    assert moves_start(SECRET) == h0
    h1 = hmac.new(key, f"{h0}:2:10S 10H".encode(), hashlib.sha256).hexdigest()
    assert move_hash(SECRET, h0, 2, "10S 10H") == h1
    assert moves_chain(SECRET, [(2, "10S 10H"), (3, "pass")]) == [
        h0, h1, move_hash(SECRET, h1, 3, "pass")]
    assert moves_start(None) != h0 and move_hash(SECRET, h0, 1, "10S 10H") != h1
    # without the secret, a hash tells nothing: not the plain SHA-256 of the same text
    assert h1 != hashlib.sha256(f"{h0}:2:10S 10H".encode()).hexdigest()
    assert move_hash("ab" * 32, h0, 2, "10S 10H") != h1


def test_the_kept_chain_follows_moves_taken_back():
    chain = MovesChain()
    moves = [(0, "3D"), (1, "pass"), (0, "4D")]
    assert chain.update("ab" * 32, moves) == moves_chain("ab" * 32, moves)[-1]
    undone = moves[:2] + [(0, "5D")]        # the last move taken back, another one made
    assert chain.update("ab" * 32, undone) == moves_chain("ab" * 32, undone)[-1]
    assert chain.update("ab" * 32, moves[:1]) == moves_chain("ab" * 32, moves[:1])[-1]
    assert chain.update("cd" * 32, moves) == moves_chain("cd" * 32, moves)[-1]   # a new match


def _legal_other_last_move(log: dict) -> tuple[int, str]:
    """A move other than the log's last one, legal where it was made (index, text)."""
    g = shangyou.replay({**log, "moves": log["moves"][:-1]})
    for k in range(len(log["moves"]) - 1, 0, -1):
        g = shangyou.replay({**log, "moves": log["moves"][:k]})
        others = [str(m) for m in g.legal_moves() if str(m) != log["moves"][k][1]]
        if others:
            return k, others[0]
    raise AssertionError("no choice anywhere in the match")


@pytest.mark.parametrize("name,n,opts", GAMES[:3], ids=[g[0] for g in GAMES[:3]])
def test_verify_fails_on_a_cut_log_and_on_a_changed_move(name, n, opts):
    g = shangyou.new_match(name, players=n, seed=SECRET, **opts)
    play_out(g, [make_bot("random", seed=s) for s in range(n)])
    log = json.loads(json.dumps(published_log(g)))
    chain = moves_chain(log["seed"], log["moves"])
    assert log["moves_hash"] == chain[-1]
    report = verify(log)
    assert report.ok, report.problems
    assert report.moves_hash == chain[-1] and f"moves hash: {chain[-1]}" in report.lines()
    half = len(log["moves"]) // 2
    seen = f"{half}:{chain[half]}"
    assert verify(log, moves_hash=[seen, chain[-1]]).ok
    assert verify(log, moves_hash=chain[half]).seen == ((chain[half], half),)

    # cut in half, the log's final hash kept: the chain does not end there
    cut = dict(log, moves=log["moves"][:half])
    report = verify(cut)
    assert not report.ok
    assert any("the log was cut short, or a move was changed" in p for p in report.problems)
    # cut, and the hash restated for the cut log: the player's last hash finds it out
    cut["moves_hash"] = chain[half]
    assert f"the moves hash seen, {chain[-1][:16]}…, is nowhere in this log's chain: the log " \
        "was cut short, or a move was changed" in verify(cut, moves_hash=chain[-1]).problems
    assert any("it was cut short" in p for p in
               verify(cut, moves_hash=f"{len(chain) - 1}:{chain[-1]}").problems)
    assert not verify({k: v for k, v in log.items() if k != "moves_hash"}).ok

    # one move changed for another legal one: the replay is fine, the chain is not
    k, other = _legal_other_last_move(log)
    changed = copy.deepcopy(log)
    changed["moves"] = log["moves"][:k] + [[log["moves"][k][0], other]]
    report = verify(changed)
    assert not report.ok and report.moves == k + 1
    assert any(p.startswith("the moves do not hash to the log's moves_hash") for p in
               report.problems), report.problems
    changed["moves_hash"] = moves_chain(log["seed"], changed["moves"])[-1]
    assert verify(changed).ok                        # a forger restating the hash ...
    assert not verify(changed, moves_hash=f"{k + 1}:{chain[k + 1]}").ok   # ... is caught


def test_cli_verify_takes_the_hash_a_player_saw(tmp_path):
    g = shangyou.new_match("zheng-shangyou/owen", players=2, seed=SECRET, target=2)
    play_out(g, [make_bot("random", seed=s) for s in range(2)])
    log = published_log(g)
    chain = moves_chain(SECRET, log["moves"])
    f = tmp_path / "m.json"
    f.write_text(json.dumps(log))
    run = CliRunner().invoke
    res = run(cli, ["verify", str(f), "--moves-hash", chain[-1], "--moves-hash", f"3:{chain[3]}"])
    assert res.exit_code == 0, res.output
    assert f"moves hash seen after move {len(chain) - 1}: in the chain" in res.output
    f.write_text(json.dumps(dict(log, moves=log["moves"][:-2],
                                 moves_hash=chain[-3])))
    res = run(cli, ["verify", str(f), "--moves-hash", chain[-1]])
    assert res.exit_code == 1 and "NOT verified: the moves hash seen" in res.output
    res = run(cli, ["verify", str(f), "--moves-hash", "nothex"])
    assert res.exit_code == 1 and "is not 64 hex digits" in res.output


@pytest.mark.parametrize("name,n,opts", GAMES, ids=[g[0] for g in GAMES])
def test_every_state_carries_the_hash_of_the_moves_so_far(client, name, n, opts):  # noqa: F811
    """A table of bots plays (to the end, or 150 moves of Sheng ji); every state a watcher
    gets has the chain's hash at its move count, and the published log verifies with the
    last one."""
    tid = new_table(client, game=name, players=n, options=opts)
    w = Player(client, tid, "Watcher")
    w.send({"type": "bots", "level": "random"})
    w.next("state")
    w.send({"type": "start"})
    states = [w.state_until(lambda s: s["table"]["status"] == "playing")]
    full = name != "sheng-ji/single-deck"
    while not (states[-1]["view"]["phase"] == "over" if full
               else states[-1]["move_count"] >= 150):
        states.append(w.next("state"))
    table = client.app.state.manager.tables[tid]
    moves = [(s, str(m)) for s, m in table.game.moves]
    chain = moves_chain(table.secret, moves)
    assert commitment(table.secret) == states[0]["table"]["commitment"]
    counts = [s["move_count"] for s in states]
    assert counts == sorted(counts) and counts[0] == 0
    assert counts[-1] == len(moves) if full else counts[-1] >= 150
    assert len(set(counts)) > counts[-1] // 2       # a state for most moves, at least
    for s in states:
        assert s["moves_hash"] == chain[s["move_count"]], s["move_count"]
    if not full:
        w.close()
        return
    log = client.get(f"/api/matches/{states[-1]['table']['match_id']}").json()["log"]
    assert log["moves_hash"] == states[-1]["moves_hash"] == chain[-1]
    mid = states[len(states) // 2]
    assert verify(log, moves_hash=[states[-1]["moves_hash"],
                                   f"{mid['move_count']}:{mid['moves_hash']}"]).ok
    v = client.get(f"/api/matches/{states[-1]['table']['match_id']}/verify").json()
    assert v["ok"] and any(line.startswith("moves hash:") for line in v["lines"])
    w.close()


def test_the_shell_recipe_in_the_docs_is_the_chain():
    import os
    import re
    import subprocess
    from pathlib import Path
    doc = (Path(__file__).resolve().parent.parent / "docs" / "fairness.md").read_text()
    section = doc[doc.index("## The moves' hash"):]
    block = re.search(r"```bash\n(.*?)```", section, re.S).group(1)
    out = subprocess.run(["bash", "-c", block + 'echo "$H"'], capture_output=True, text=True,
                         env={**os.environ, "SECRET": SECRET, "COMMITMENT": commitment(SECRET)},
                         check=True).stdout.strip()
    assert out == moves_chain(SECRET, [(0, "3D 3C")])[1]
