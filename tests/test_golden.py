"""Golden logs: saved matches (greedy bots, fixed seeds) must replay to the saved result.

A rule change that alters any of these games shows up here as a readable diff of the log.
Regenerate deliberately with ``SHANGYOU_UPDATE_GOLDEN=1 pytest tests/test_golden.py``.
"""

import json
import os
import pathlib

import pytest

import shangyou
from shangyou.bots import make_bot, play_out

GOLDEN = pathlib.Path(__file__).parent / "golden"
CASES = [("zheng-shangyou/pagat", 5, {}), ("zheng-shangyou/pagat", 4, {"twos_in_sequences": True}),
         ("zheng-shangyou/pagat-teams", 4, {}), ("zheng-shangyou/pagat-teams", 6, {}),
         ("zheng-shangyou/winner", 3, {}), ("zheng-shangyou/winner", 4, {"jokers": True}),
         ("zheng-shangyou/owen", 2, {}), ("zheng-shangyou/owen", 4, {})]


def case_path(name, n, opts) -> pathlib.Path:
    extra = "".join(f"-{k}" for k in sorted(opts))
    return GOLDEN / f"{name.split('/')[1]}-{n}p{extra}.json"


def play(name, n, opts):
    g = shangyou.new_match(name, players=n, seed=2026, **opts)
    play_out(g, [make_bot("greedy", seed=s) if s % 2 == 0 else make_bot("random", seed=s)
                 for s in range(n)])
    return g


def dump(obj: dict) -> str:
    """JSON with one move (and one hand summary) per line, for readable diffs."""
    log = dict(obj["log"])
    moves = log.pop("moves")
    head = json.dumps(log)[:-1]
    lines = [head + ', "moves": [']
    lines += ["  " + json.dumps(m) + ("," if i < len(moves) - 1 else "") for i, m in
              enumerate(moves)]
    lines.append("]}")
    out = '{"log": ' + "\n".join(lines) + ',\n"result": ' + json.dumps(obj["result"])
    out += ',\n"history": [\n' + ",\n".join("  " + json.dumps(h) for h in obj["history"])
    return out + "\n]}\n"


@pytest.mark.parametrize("name,n,opts", CASES)
def test_golden_log_replays_to_saved_result(name, n, opts):
    path = case_path(name, n, opts)
    if os.environ.get("SHANGYOU_UPDATE_GOLDEN"):
        g = play(name, n, opts)
        path.write_text(dump({"log": g.log, "result": g.result, "history": g.history}))
    assert path.exists(), f"missing golden file {path.name}: run with SHANGYOU_UPDATE_GOLDEN=1"
    saved = json.loads(path.read_text())
    g = shangyou.replay(saved["log"])
    assert g.over
    assert g.result == saved["result"]
    assert g.history == saved["history"]
    assert g.log == saved["log"]
