"""Puzzles (src/shangyou/puzzles, server/puzzles.py, docs/puzzles.md): the miner is
deterministic for a seed; shipped puzzles rebuild to the seat's view with the solution legal,
and stay best on fresh worlds; the API sends the seat's view and never the solution before an
answer, refuses bad input with its error codes, rates accounts' first answers and guests'."""

from __future__ import annotations

import json
import random
import re
import warnings

import pytest

from shangyou import puzzles as pz
from shangyou.puzzles.mine import clear_best, margin_of, mine_seed, play_values
from shangyou.server.accounts import COOKIE
from shangyou.server.puzzles import find, position_of, public_id
from test_server_host import make_client

with warnings.catch_warnings():
    warnings.simplefilter("ignore")      # starlette prefers httpx2 to httpx
    from fastapi.testclient import TestClient  # noqa: F401

pytestmark = pytest.mark.timeout(300)

# what a puzzle's record holds that must not leave the server before an answer
# (the view itself is the engine's view of the seat, checked below: it holds no other hand)
SECRET = ("solution", "values", "seed", "prefix", "reason", "bot_move", "deep", "verify",
          "index")


# ------------------------------------------------------------------------------ the miner
@pytest.mark.parametrize("family,seed", [("climbing", 1), ("sheng-ji", 1)])
def test_the_miner_is_deterministic_for_a_seed(family, seed):
    a, b = mine_seed(family, seed), mine_seed(family, seed)
    assert a, "this seed's hand has a puzzle"
    assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    for p in a:
        assert p["solution"] in p["values"] and p["verify"]["lead"] >= p["margin"]
        assert p["theme"] in pz.THEMES[family]


def test_sheng_ji_leads_are_mined_in_their_own_pass():
    """A seed's lead pass: deterministic, only leads, each judged among every whole play
    (singles, pairs, tractors: the throws' steps left out), the solution no throw."""
    from shangyou.puzzles.mine import whole_plays
    a, b = mine_seed("sheng-ji", 2, leads=True), mine_seed("sheng-ji", 2, leads=True)
    assert a, "this seed's hand has a lead puzzle"
    assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    for p in a:
        assert p["lead"] is True
        g = pz.rebuild(p)
        raw = g.view(p["seat"])
        assert raw["trick"] == [] and any(m.startswith("throw ") for m in raw["legal_moves"])
        plays = whole_plays(raw)
        assert set(p["values"]) == set(plays) == set(pz.seat_view(p)["legal_moves"])
        assert p["moves"] == len(plays) and not p["solution"].startswith("throw ")
        assert p["verify"]["lead"] >= p["margin"] and p["theme"] in pz.THEMES["sheng-ji"]


def test_the_lead_pass_by_the_command_is_marked_apart_and_counted(tmp_path):
    """``mine --leads`` marks its hands ``leads-SEED`` (the follow pass of the same seed is
    still to do); ``stats`` counts the lead puzzles and the pass's hands apart; a climbing
    family has no lead pass."""
    from shangyou.cli.main import app
    from shangyou.puzzles.mine import done_seeds
    from typer.testing import CliRunner
    run = CliRunner().invoke(app, ["puzzles", "mine", "--family", "sheng-ji", "--leads",
                                   "--seeds", "2", "--out", str(tmp_path), "--quiet"])
    assert run.exit_code == 0, run.output
    assert list(done_seeds("sheng-ji", tmp_path)) == ["leads-2"]
    stats = CliRunner().invoke(app, ["puzzles", "stats", "--out", str(tmp_path), "--json"])
    got = json.loads(stats.output)["sheng-ji"]
    shipped = pz.load("sheng-ji", tmp_path)
    assert got["leads"] == got["puzzles"] == len(shipped) > 0
    assert (got["seeds"], got["lead_passes"]) == (0, 1)
    bad = CliRunner().invoke(app, ["puzzles", "mine", "--family", "climbing", "--leads",
                                   "--out", str(tmp_path)])
    assert bad.exit_code == 2 and "--leads is for --family sheng-ji" in bad.output


def test_a_lead_with_a_safe_throw_weighs_the_throw_too():
    """Where the heuristic holds a throw it calls safe, that throw is played out beside the
    whole plays, in the same worlds."""
    import shangyou
    from shangyou.bots import make_bot
    from shangyou.bots import sheng_ji_heuristic as heur
    from shangyou.puzzles.mine import is_sheng_ji_lead, whole_plays
    g = shangyou.new_game("sheng-ji", players=4, seed=0)
    bots = [make_bot("heuristic", s) for s in range(4)]
    while True:
        v = g.view(g.to_act)
        if is_sheng_ji_lead(v) and heur.throw_plan(heur.Knowledge(v)) is not None:
            break
        g.apply(bots[g.to_act].choose(v))
    values = play_values(pz.position.listed(v), 4, random.Random(0))
    throws = [m for m in values if m.startswith("throw ")]
    assert len(throws) == 1 and len(throws[0].split()) >= 3       # two cards or more
    assert set(values) - set(throws) == set(whole_plays(v))
    assert all(len(x) == 4 for x in values.values())


def test_the_miner_resumes_and_skips_seeds_done(tmp_path):
    from shangyou.puzzles.mine import done_seeds, mine
    first = mine("climbing", range(0, 3), tmp_path)
    again = mine("climbing", range(0, 4), tmp_path)       # seeds 0-2 are done: only 3 runs
    lines = (tmp_path / "climbing.jsonl").read_text().splitlines()
    assert len(lines) == first + again
    assert sorted(done_seeds("climbing", tmp_path)) == ["0", "1", "2", "3"]
    assert len({json.loads(x)["id"] for x in lines}) == len(lines)


def test_a_finished_matchs_log_is_mined_and_rebuilds(tmp_path):
    """A saved match (greedy bots, several hands) mined through the command: its puzzles
    rebuild with new_match to the seat's view, the solution legal; mined twice, once."""
    import shangyou
    from shangyou.bots import make_bot, play_out
    from shangyou.cli.main import app
    from typer.testing import CliRunner
    g = shangyou.new_match("zheng-shangyou/pagat", players=4, seed=12, target=4)
    play_out(g, [make_bot("greedy", s) for s in range(4)])
    (tmp_path / "match.json").write_text(json.dumps(g.log))
    args = ["puzzles", "mine", "--family", "climbing", "--log", str(tmp_path / "match.json"),
            "--out", str(tmp_path), "--quiet"]
    first = CliRunner().invoke(app, args)
    assert first.exit_code == 0, first.output
    again = CliRunner().invoke(app, args)
    assert "0 puzzles added" in again.output
    found = pz.load("climbing", tmp_path)
    assert found and all(p["match"] and p["source"] == "log" for p in found)
    for p in found:
        view = pz.seat_view(p)
        assert p["solution"] in view["legal_moves"] and sorted(view["hand"]) == sorted(p["hand"])
    bad = CliRunner().invoke(app, ["puzzles", "mine", "--family", "climbing", "--log",
                                   str(tmp_path / "climbing.seeds"), "--out", str(tmp_path)])
    assert bad.exit_code == 2 and "neither JSON nor JSON lines" in bad.output


def _shipped():
    return {f: pz.load(f) for f in pz.FAMILIES}


def test_every_family_ships_puzzles():
    for family, puzzles in _shipped().items():
        assert len(puzzles) >= 20, family
        assert {p["theme"] for p in puzzles} <= set(pz.THEMES[family])


def test_every_shipped_puzzle_rebuilds_to_the_seats_view_with_the_solution_legal():
    for family, puzzles in _shipped().items():
        for p in puzzles:
            g = pz.rebuild(p)
            view = g.view(p["seat"])
            assert view["seat"] == p["seat"] and g.to_act == p["seat"]
            assert sorted(view["hand"]) == sorted(p["hand"]), p["id"]
            listed = pz.position.listed(view)["legal_moves"]
            assert p["solution"] in listed, p["id"]
            assert set(p["values"]) == set(listed), p["id"]
            best = max(p["values"], key=lambda m: p["values"][m][0])
            assert best == p["solution"], p["id"]
            # the view holds this seat's hand only: every other card count, no other hand
            assert len(view["hand"]) == view["counts"][p["seat"]]
            # what the API sends of it names nothing of the record's
            assert not set(_walk_keys(position_of(p))) & set(SECRET), p["id"]


def test_shipped_puzzles_stay_best_on_fresh_worlds():
    """A third search, with a seed the miner never used: the solution still leads every
    other play by the family's margin on the mean (the first two puzzles of each family)."""
    for family, puzzles in _shipped().items():
        for p in puzzles[:2]:
            view = pz.seat_view(p)
            values = play_values(view, 96, random.Random(f"test-fresh/{p['id']}"))
            hit = clear_best(values, margin_of(family), 0.0)
            assert hit is not None and hit[0] == p["solution"], (p["id"], hit)


# -------------------------------------------------------------------------------- the API
@pytest.fixture
def api(tmp_path):
    with make_client(tmp_path, puzzle_answers_per_minute_address=1000) as c:
        yield c


def _walk_keys(obj):
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield k
            yield from _walk_keys(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _walk_keys(v)


@pytest.mark.parametrize("family", list(pz.FAMILIES))
def test_next_sends_the_seats_view_and_never_the_solution(api, family):
    r = api.get("/api/puzzles/next", params={"family": family})
    assert r.status_code == 200, r.text
    body = r.json()
    assert set(body) == {"id", "family", "theme", "preset", "players", "seat", "rating",
                         "unit", "view", "plays", "player"}
    assert not set(_walk_keys(body)) & set(SECRET)
    record = find(body["id"])
    assert record is not None and str(record["seed"]) not in body["id"].split("-")
    g = pz.rebuild(record)
    assert body["view"] == json.loads(json.dumps(g.view(record["seat"])))
    assert body["plays"] == pz.position.listed(g.view(record["seat"]))["legal_moves"]
    assert record["solution"] in body["plays"]


def test_an_answer_is_checked_and_shows_the_solution_and_the_reason(api):
    body = api.get("/api/puzzles/next", params={"family": "climbing"}).json()
    record = find(body["id"])
    wrong = next(m for m in body["plays"] if m != record["solution"])
    r = api.post(f"/api/puzzles/{body['id']}/answer", json={"move": wrong})
    assert r.status_code == 200, r.text
    a = r.json()
    assert a["correct"] is False and a["solution"] == record["solution"] and a["move"] == wrong
    assert a["reason"]["text"]["en"] and a["reason"]["text"]["zh"]
    assert a["values"][0]["move"] == record["solution"] and a["loss"] > 0
    assert a["player"]["rated"] and a["player"]["rating"] < a["player"]["before"] == 1500
    r = api.post(f"/api/puzzles/{body['id']}/answer",
                 json={"move": record["solution"], "rated": False})
    assert r.json()["correct"] is True and r.json()["player"] is None


def test_bad_input_is_refused_with_its_code(api):
    body = api.get("/api/puzzles/next", params={"family": "sheng-ji"}).json()
    pid = body["id"]
    cases = [
        (api.get("/api/puzzles/next", params={"family": "chess"}), 422, "bad_request"),
        (api.get("/api/puzzles/next", params={"family": "sheng-ji", "theme": "bombs"}), 422,
         "bad_request"),
        (api.get("/api/puzzles/next", params={"family": "climbing", "rating": -5}), 422, None),
        (api.post("/api/puzzles/sheng-ji-000000000000/answer", json={"move": "pass"}), 404,
         "no_puzzle"),
        (api.post(f"/api/puzzles/{pid}/answer", json={"move": "RJ RJ RJ"}), 422,
         "illegal_move"),
        (api.post(f"/api/puzzles/{pid}/answer", json={"move": body["plays"][0], "x": 1}), 422,
         None),
        (api.post(f"/api/puzzles/{pid}/answer", json={"move": 5}), 422, None),
        (api.post(f"/api/puzzles/{pid}/answer",
                  json={"move": body["plays"][0], "guest": {"mu": 1e9, "sigma": 1}}), 422,
         "bad_request"),
        # a body of another type: refused before the route (422) or by it (415 json_only)
        (api.post(f"/api/puzzles/{pid}/answer", content=json.dumps({"move": "pass"}),
                  headers={"Content-Type": "text/plain"}), (415, 422), None),
        (api.post(f"/api/puzzles/{pid}/answer", json={"move": body["plays"][0]},
                  headers={"Origin": "https://evil.example"}), 403, "cross_origin"),
    ]
    for r, status, code in cases:
        assert r.status_code in (status if isinstance(status, tuple) else (status,)), \
            (r.request.url, r.text)
        if code:
            assert r.json()["code"] == code, r.text
        assert "solution" not in r.text


def test_the_answer_rate_limit(tmp_path):
    with make_client(tmp_path, puzzle_answers_per_minute_address=2,
                     puzzles_per_minute_address=2) as c:
        body = c.get("/api/puzzles/next", params={"family": "climbing"}).json()
        c.get("/api/puzzles/next", params={"family": "climbing"})
        r = c.get("/api/puzzles/next", params={"family": "climbing"})
        assert r.status_code == 429 and r.json()["code"] == "rate_limited"
        for _ in range(2):
            ok = c.post(f"/api/puzzles/{body['id']}/answer", json={"move": body["plays"][0]})
            assert ok.status_code == 200
        r = c.post(f"/api/puzzles/{body['id']}/answer", json={"move": body["plays"][0]})
        assert r.status_code == 429 and r.json()["code"] == "rate_limited"


def test_an_accounts_first_answer_is_rated_once_and_the_puzzle_not_served_again(tmp_path,
                                                                               db_url):
    with make_client(tmp_path, db_url=db_url) as api:
        _account_flow(api)


def _account_flow(api):
    r = api.post("/api/account/signup", json={"username": "Solver", "password": "pw-long-1"})
    cookie = r.cookies[COOKIE]
    api.cookies.clear()
    api.cookies.set(COOKIE, cookie)
    body = api.get("/api/puzzles/next", params={"family": "zheng-fen"}).json()
    assert body["player"] == {"rating": 1500, "attempts": 0, "solved": 0}
    record = find(body["id"])
    a = api.post(f"/api/puzzles/{body['id']}/answer", json={"move": record["solution"]}).json()
    assert a["correct"] and a["player"]["rated"] and a["player"]["rating"] > 1500
    again = api.post(f"/api/puzzles/{body['id']}/answer",
                     json={"move": record["solution"]}).json()
    assert again["player"]["rated"] is False and again["player"]["rating"] == a["player"]["rating"]
    n = len(pz.load("zheng-fen"))
    seen = {api.get("/api/puzzles/next", params={"family": "zheng-fen"}).json()["id"]
            for _ in range(min(10, n - 1))}
    assert body["id"] not in seen
    nxt = api.get("/api/puzzles/next", params={"family": "zheng-fen"}).json()
    assert nxt["player"] == {"rating": a["player"]["rating"], "attempts": 1, "solved": 1}
    # the puzzle's own rating moved (a solve: down) and is served so
    assert a["puzzle_rating"] < record["rating"]
    # an account with puzzle ratings and attempts can be deleted
    r = api.post("/api/account/delete", json={"password": "pw-long-1"})
    assert r.status_code == 200, r.text
    api.cookies.clear()


def test_public_ids_hide_the_seed():
    for family in pz.FAMILIES:
        for p in pz.load(family)[:50]:
            pid = public_id(p)
            assert pid.startswith(family + "-") and find(pid) is p
            assert re.fullmatch(re.escape(family) + r"-[0-9a-f]{12}", pid), pid
