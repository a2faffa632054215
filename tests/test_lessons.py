"""The first lessons (``shangyou.lessons``, ``/learn``): every step of every course is a
consistent position with a play that passes it and plays that do not, each refusal explained;
the API serves the steps without the answer, checks plays, refuses bad input and limits an
address."""

from __future__ import annotations

from collections import Counter

import pytest

from shangyou import lessons
from shangyou.cards import parse
from shangyou.games.why import TEXTS
from test_server_host import make_client

pytestmark = pytest.mark.timeout(120)

STEPS = [(name, s) for name in lessons.COURSES for s in lessons.load(name)["steps"]]
TEXT_KEYS = ("title", "text", "task", "hint", "well")


def test_courses_cover_both_games_and_the_required_topics():
    ids = {name: [s["id"] for s in lessons.load(name)["steps"]] for name in lessons.COURSES}
    for name, got in ids.items():
        # the first courses are full ones, the variants' (Owen's rules) short ones
        assert len(got) == len(set(got)) >= (4 if name == "owen" else 8), (name, got)
    assert {"wild", "natural", "straight", "bombs"} <= set(ids["owen"])
    assert {"order", "suits", "pairs", "pair-run", "full-house", "straight", "low-straight",
            "bomb", "straight-flush", "out"} <= set(ids["winner"])
    assert {lessons.load(n)["preset"] for n in lessons.COURSES} >= {
        "zheng-shangyou/pagat", "zheng-shangyou/owen", "zheng-shangyou/winner"}
    assert lessons.find_step("sheng-ji", "kitty")["pass"]["goal"] == "bury"
    assert {"order", "pairs", "sequence", "pass", "out"} <= set(ids["zheng-shangyou"])
    assert {"follow", "trumps", "level", "pairs", "tractor", "throw", "points", "levels",
            "kitty", "friend"} <= set(ids["sheng-ji"])
    assert {"points", "sets", "full-house", "special", "jokers"} <= set(ids["zheng-fen"])


@pytest.mark.parametrize("name,step", STEPS, ids=[f"{n}:{s['id']}" for n, s in STEPS])
def test_every_step_is_a_position_with_a_passing_play_and_wrong_ones(name, step):
    for key in TEXT_KEYS:
        assert step[f"{key}_en"].strip() and step[f"{key}_zh"].strip(), (step["id"], key)
    goal = step["pass"]
    assert goal["goal"] in lessons.GOALS
    bury = goal["goal"] == "bury"
    view = lessons.position_view(step)
    # the learner's view: seat 0 to play (or to bury the kitty it took), the hand as written,
    # the others' cards unseen
    assert view["seat"] == 0 and view["to_act"] == 0
    assert view["phase"] == ("bury" if bury else "play")
    assert Counter(parse(" ".join(view["hand"]))) == Counter(parse(step["position"]["hand"]))
    assert view["counts"][0] == len(view["hand"])
    assert "hands" not in view and ("legal_moves" not in view or bury)
    if bury:        # the kitty's cards are in the hand, marked
        assert len(view["kitty_taken"]) == view["kitty_size"] and view["trick"] == []
    shown = lessons.learner_view(step)
    assert Counter(shown["hand"]) == Counter(view["hand"]) and "legal_moves" not in shown
    assert [(p, sorted(c.split())) for p, c in shown["trick"]] == \
        [(p, sorted(c.split())) for p, c in view["trick"]]
    assert shown["counts"] == view["counts"]
    g = lessons.position_game(step)
    assert sorted(g.hands[0]) == sorted(parse(step["position"]["hand"]))
    assert g.to_act == 0
    assert goal["examples"] and goal["wrong"]
    for play in goal["examples"]:
        r = lessons.check(step, play)
        after = r.pop("view")
        assert r == {"legal": True, "ok": True, "well": {"en": step["well_en"],
                                                         "zh": step["well_zh"]}}, (play, r)
        # the view after the play: the learner's, the cards gone from the hand
        assert after["seat"] == 0 and "hands" not in after
        if bury:    # all of the kitty buried, none of what the step says to keep
            assert after["phase"] == "play" and sorted(after["buried"]) == sorted(play.split())
        assert len(after["hand"]) == len(view["hand"]) - (0 if play == "pass" else
                                                          len(play.split()))
    refused = 0
    for play in goal["wrong"]:
        r = lessons.check(step, play)
        assert r["ok"] is False, play
        if r["legal"]:
            assert r["hint"] == {"en": step["hint_en"], "zh": step["hint_zh"]}
        else:
            # the engine's judge explains it, in both languages
            refused += 1
            assert r["why"] is not None, (play, r)
            assert r["why"]["code"] in TEXTS
            assert r["why"]["text"]["en"] == r["message"]
            assert r["why"]["text"]["zh"] and "?" not in r["why"]["text"]["en"]
    assert refused, f"{step['id']}: no wrong play shows the judge's explanation"


def test_the_position_is_the_same_every_time():
    _, step = STEPS[0]
    a, b = lessons.position_game(step), lessons.position_game(step)
    assert a.hands == b.hands


@pytest.fixture
def client(tmp_path):
    with make_client(tmp_path, learn_requests_per_minute_address=30) as c:
        yield c


def test_learn_api(client):
    page = client.get("/learn")
    assert page.status_code == 200 and 'src="/static/learn.js"' in page.text
    # the page obeys the site's policy: its security headers, no inline script or style
    assert "script-src 'self'" in page.headers["content-security-policy"]
    assert "<script>" not in page.text and "style=" not in page.text
    assert 'href="/learn"' in client.get("/").text
    courses = client.get("/api/learn").json()["courses"]
    assert [c["name"] for c in courses] == list(lessons.COURSES)
    first = courses[0]["steps"][0]["id"]
    r = client.get(f"/api/learn/zheng-shangyou/{first}")
    assert r.status_code == 200
    body = r.json()
    assert body["view"]["hand"] and body["text_zh"]
    assert "pass" not in body and "hint_en" not in body      # never the answer
    step = lessons.find_step("zheng-shangyou", first)
    ok = client.post(f"/api/learn/zheng-shangyou/{first}/check",
                     json={"play": step["pass"]["examples"][0]}).json()
    assert ok["legal"] and ok["ok"]
    bad = client.post("/api/learn/zheng-shangyou/order/check", json={"play": "QD"}).json()
    assert bad["legal"] is False and bad["why"]["code"] == "lower"
    assert "管不上" in bad["why"]["text"]["zh"]
    # cards not held, or not cards at all: refused with the engine's message, not an error
    nope = client.post("/api/learn/zheng-shangyou/order/check", json={"play": "RJ"}).json()
    assert nope["legal"] is False and nope["why"] is None and "RJ" in nope["message"]
    junk = client.post("/api/learn/zheng-shangyou/order/check", json={"play": "<b>x"}).json()
    assert junk["legal"] is False
    # unknown courses and steps, hostile bodies
    assert client.get("/api/learn/chess/order").json()["code"] == "not_found"
    assert client.get("/api/learn/zheng-shangyou/nope").status_code == 404
    for body in ({"play": 7}, {"play": "x" * 201}, {"play": "AC", "more": 1}, {}):
        r = client.post("/api/learn/zheng-shangyou/order/check", json=body)
        assert r.status_code == 422, body
    # the per-address limit (30 a minute here): refused with rate_limited once spent
    codes = [client.get("/api/learn").status_code for _ in range(40)]
    assert 429 in codes
    r = client.get("/api/learn")
    assert r.status_code == 429 and r.json()["code"] == "rate_limited"


def test_what_the_steps_say_is_what_the_engine_does():
    """The texts' claims, checked on the state after the passing play."""
    friend = lessons.check(lessons.find_step("sheng-ji", "friend"), "AH")["view"]
    assert friend["friends"] == [0]                  # playing the called card makes a friend
    points = lessons.check(lessons.find_step("sheng-ji", "points"), "KC")["view"]
    assert points["tricks"][-1]["winner"] == 2 and points["points_won"][2] == 10
    throw = lessons.check(lessons.find_step("sheng-ji", "throw"), "AC AC KC")["view"]
    assert sorted(throw["trick"][0][1].split()) == ["AC", "AC", "KC"]     # the throw stood
    out = lessons.check(lessons.find_step("zheng-shangyou", "out"), "QH QD")["view"]
    assert out["hand"] == [] and out["finished"][0] == 0                # first out
