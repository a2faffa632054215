"""The analysis board: the engine (shangyou.analysis), the set-up (shangyou.position) and
``POST /api/analysis`` (docs/analysis.md, docs/protocol.md "Analysis")."""

from __future__ import annotations

import json
import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_server import OPEN, Player, new_table

import shangyou
from shangyou.analysis import MAX_PLAYS, NotAnalysable, analyse
from shangyou.bots import make_bot
from shangyou.games.climbing.steps import every_play
from shangyou.position import BadPosition, view_of
from shangyou.server import create_app
from shangyou.server.limits import Limits

with warnings.catch_warnings():
    warnings.simplefilter("ignore")      # starlette prefers httpx2 to httpx
    from fastapi.testclient import TestClient

pytestmark = pytest.mark.timeout(120)

EARLIER = "3S 3H 3D 3C 4S 4H 4D 4C 6S 6H 6D 6C 7S 7H"       # 14 cards played before
PAGAT = {"game": "zheng-shangyou/pagat", "players": 4, "seat": 0, "hand": "9C 9S",
         "table": {"seat": 2, "cards": "5D 5C"}, "played": EARLIER, "counts": [2, 12, 12, 12]}


def _rows(a):
    return [r["play"] for r in a["rows"]]


# --------------------------------------------------------------------------- the engine
def test_every_legal_play_is_listed_and_going_out_comes_first():
    view = view_of(PAGAT)
    assert view["legal_moves"] == ["pass", "9C 9S"] and view["to_act"] == 0
    assert view["trick"] == [[2, "5D 5C"], [3, "pass"]]
    a = analyse(view, seed=1, seconds=None, max_worlds=8)
    assert a["plays"] == "all" and a["legal"] == 2 and a["worlds"] == 8
    assert _rows(a) == ["9C 9S", "pass"]          # out first: clearly best
    best, other = a["rows"]
    assert best["behind"] == 0 and other["behind"] > 0
    assert best["low"] <= best["mean"] <= best["high"] and best["sd"] >= 0
    assert best["reason"]["code"] == "go_out" and best["heuristic"]
    assert other["reason"]["code"] == "analysis_behind"
    assert "9C 9S" in other["reason"]["text"]["en"] and other["reason"]["text"]["zh"]


def test_the_analysis_is_the_same_for_a_seed_and_lists_only_legal_plays():
    g = shangyou.new_game("zheng-fen", players=4, seed=4)
    view = g.view(g.to_act)
    a = analyse(view, seed=7, seconds=None, max_worlds=6)
    b = analyse(view, seed=7, seconds=None, max_worlds=6)
    a.pop("cpu_seconds"), b.pop("cpu_seconds")
    assert a == b
    legal = every_play(view, g.rules.family)["legal_moves"]
    assert set(_rows(a)) <= set(legal) and len(set(_rows(a))) == a["listed"]
    assert a["legal"] == len(legal)
    if len(legal) > MAX_PLAYS:
        assert a["plays"] == "capped" and a["listed"] == MAX_PLAYS
    means = [r["mean"] for r in a["rows"]]
    assert means == sorted(means, reverse=True)
    assert sum(r["heuristic"] for r in a["rows"]) == 1     # the heuristic's play is weighed


def test_a_sheng_ji_position_lists_the_search_candidates():
    g = shangyou.new_game("sheng-ji", seed=5)
    bots = [make_bot("heuristic", s) for s in range(g.n)]
    while True:
        v = g.view(g.to_act)
        if v["phase"] == "play" and len(v["legal_moves"]) > 2 and not v.get("pending"):
            break
        g.apply(bots[g.to_act].choose(v))
    a = analyse(v, seed=1, seconds=None, max_worlds=4)
    assert a["plays"] == "candidates" and a["unit"] == "levels" and a["worlds"] == 4
    assert set(_rows(a)) <= set(v["legal_moves"]) and a["listed"] >= 2


def test_no_analysis_where_there_is_no_play_to_weigh():
    g = shangyou.new_game("zheng-shangyou/pagat", players=4, seed=1)
    with pytest.raises(NotAnalysable):
        analyse(g.view((g.to_act + 1) % 4))          # not to act: no legal moves
    with pytest.raises(NotAnalysable):
        analyse(view_of({**PAGAT, "hand": "8C 9S"}), seconds=None, max_worlds=4)  # pass only


@pytest.mark.parametrize("change,code", [
    ({"hand": "9C 9C"}, "duplicate_card"),
    ({"hand": "9C 9S", "played": EARLIER + " 9C"}, "duplicate_card"),
    ({"counts": [2, 12, 12, 11]}, "bad_counts"),
    ({"counts": [2, 12, 12]}, "bad_counts"),
    ({"counts": [2, 12, 12, -1]}, "bad_counts"),
    ({"counts": [2, 12, 12, True]}, "bad_counts"),
    ({"counts": [2, 15, 9, 12]}, "bad_counts"),            # more than a deal,
    ({"table": {"seat": 2, "cards": "5D 8C"}}, "bad_table"),
    ({"table": {"seat": 0, "cards": "5D 5C"}}, "bad_table"),
    ({"table": {"seat": 9, "cards": "5D 5C"}}, "bad_seat"),
    ({"hand": "9X"}, "bad_cards"),
    ({"hand": ""}, "bad_hand"),
    ({"game": "chess"}, "bad_game"),
    ({"players": 40}, "bad_options"),
    ({"counts": [2, 0, 14, 14], "played": [[2, EARLIER + " 5H 5S 8C 8D 8H 8S 10C 10D"]]},
     "bad_played"),
])
def test_a_set_up_that_cannot_be_a_position_is_refused_with_its_code(change, code):
    with pytest.raises(BadPosition) as e:
        view_of({**PAGAT, **change})
    assert e.value.code == code and str(e.value)


def test_cards_played_before_are_out_of_every_world_and_a_seat_out_has_finished():
    played = EARLIER + " 5H 5S 7D 7C 8H 8S 8C 8D 9H 9D 10S 10H 10D 10C JS JH JD"
    view = view_of({**PAGAT, "counts": [2, 0, 10, 9], "played": played})
    assert view["finished"] == [1] and view["counts"] == [2, 0, 10, 9]
    gone = " ".join(text for trick in view["played"] for _, text in trick).split()
    assert sorted(gone) == sorted(played.split())
    a = analyse(view, seed=2, seconds=None, max_worlds=4)
    assert _rows(a)[0] == "9C 9S"


# Sheng ji, one pack: seat 1 led the KH, seat 2 (the declarer's partner) holds AH and 3H and
# must follow in hearts; two tricks were played before, the opponents won a 5 in them
SJ = {"game": "sheng-ji/single-deck", "players": 4, "seat": 2, "declarer": 0, "level": "2",
      "trump": "S", "hand": "AH 3H 9C 4D 5S 6S 7S 8S 9S 10S", "trick": [[1, "KH"]],
      "played": "2H 2C 2D 3S 4S 4H 4C 5D", "points": 5}


def test_a_sheng_ji_position_set_up_by_hand_is_analysed():
    view = view_of(SJ)
    assert view["legal_moves"] == ["3H", "AH"]           # must follow hearts
    assert view["counts"] == [10, 9, 10, 10] and view["trump"] == "2S"
    assert view["points_won"][1] + view["points_won"][3] == 5     # the opponents' points
    assert sum(len(tr["plays"]) for tr in view["tricks"]) == 8
    a = analyse(view, seed=1, seconds=None, max_worlds=8)
    assert _rows(a) == ["AH", "3H"]           # the ace takes the king's 10 points
    lead = view_of({**SJ, "trick": [], "trump": None})    # no trump, the seat leads
    assert lead["trump"] == "2" and len(lead["legal_moves"]) > 2


def test_plays_the_sheng_ji_search_weighs_alike_are_all_compared():
    """Seat 2 must follow a pair of kings with two of six small hearts: 15 plays that the
    search groups as one (none wins, none holds points). The board lists all 15, not one
    candidate and not a refusal (it once answered "the seat has one legal play")."""
    view = view_of({"game": "sheng-ji", "players": 4, "seat": 2, "declarer": 0, "level": "2",
                    "trump": "S", "trick": [[1, "KH KH"]],
                    "hand": "3H 4H 6H 7H 8H 9H 3C 4C 6C 7C 8C 9C JC QC AC "
                            "3D 4D 6D 7D 8D 9D JD QD AD 3S"})
    assert len(view["legal_moves"]) == 15
    a = analyse(view, seed=1, seconds=None, max_worlds=4)
    assert (a["plays"], a["legal"], a["listed"]) == ("all", 15, 15)
    assert sorted(_rows(a)) == sorted(view["legal_moves"])


@pytest.mark.parametrize("change,code", [
    ({"hand": "AH AH AH 3H 9C 4D 5S 6S 7S 8S"}, "duplicate_card"),
    ({"trick": [[1, "2H"]]}, "duplicate_card"),          # 2H was played before too
    ({"played": "2H 2C"}, "bad_played"),                 # not the 8 cards of two tricks
    ({"points": 15}, "bad_points"),                      # the earlier cards hold 5
    ({"points": 3}, "bad_points"),
    ({"level": "1"}, "bad_level"),
    ({"trump": "X"}, "bad_trump"),
    ({"declarer": 7}, "bad_seat"),
    ({"trick": [[0, "KH"]]}, "bad_trick"),                # seat 0 does not play before 2
    ({"trick": [[0, "KH"], [1, "QH QH"]]}, "bad_trick"),  # plays of different sizes
    ({"trick": [[1, "KH AC"]]}, "bad_trick"),             # a throw is not set up
    ({"hand": "AH 3H 9C 4D 5S 6S 7S 8S 9S 10S JS QS JH QC", "played": ""}, "bad_hand"),
    ({"calls": ["1 AH"]}, "bad_calls"),                  # fixed teams call no friend
])
def test_a_sheng_ji_set_up_that_cannot_be_a_position_is_refused(change, code):
    with pytest.raises(BadPosition) as e:
        view_of({**SJ, **change})
    assert e.value.code == code, str(e.value)


# Zhao Pengyou, 5 players (two packs, one friend): the declarer (seat 0) called the first AH
# and led the KH; seat 1 holds an AH and must follow hearts
ZP = {"game": "sheng-ji/zhao-pengyou", "players": 5, "seat": 1, "declarer": 0, "level": "2",
      "trump": "S", "hand": "AH 3H 5H 9C 9C 10C JC QC KC AC 3D 4D 6D 7D 8D JD QD KD AD 4S",
      "trick": [[0, "KH"]], "played": "", "points": 0, "calls": ["1 AH"],
      "call_results": [None]}


def _zp_setup(v: dict) -> dict:
    """A Zhao Pengyou view as the page's set-up words it (shengJiFrom in analysis.js)."""
    level = v["level"]
    return {"game": v["game"], "players": v["players"], "seat": v["seat"],
            "declarer": v["declarer"], "level": level, "trump": v["trump"][len(level):] or None,
            "hand": " ".join(v["hand"]), "trick": v["trick"],
            "played": " ".join(c for tr in v["tricks"] for _, c in tr["plays"]),
            "points": v["opponents_points"], "calls": v["calls"],
            "call_results": v["call_results"]}


def test_a_zhao_pengyou_position_set_up_by_hand_is_the_games_own():
    """Six players, three packs, two calls: a real hand played by the bots up to a follow
    after a friend showed; the set-up made of what the seat saw gives the game's legal plays,
    the same friends, opponents' points and counts, and it is analysed."""
    g = shangyou.new_game("sheng-ji/zhao-pengyou", players=6, seed=7)
    bots = [make_bot("heuristic", s) for s in range(6)]
    while True:
        v = g.view(g.to_act)
        if v["phase"] == "play" and v["friends"] and v["trick"] and len(v["legal_moves"]) > 1:
            break
        g.apply(bots[g.to_act].choose(v))
    assert None in v["call_results"] and v["opponents_points"] > 0     # one call still open
    view = view_of(_zp_setup(v))
    assert view["legal_moves"] == v["legal_moves"]
    assert view["friends"] == v["friends"] and view["calls"] == v["calls"]
    assert view["call_results"] == v["call_results"]
    assert view["opponents_points"] == v["opponents_points"] and view["counts"] == v["counts"]
    a = analyse(view, seed=1, seconds=None, max_worlds=4)
    assert a["worlds"] == 4 and set(_rows(a)) <= set(v["legal_moves"])


def test_a_zhao_pengyou_call_answered_on_the_table():
    view = view_of(ZP)
    assert view["legal_moves"] == ["3H", "5H", "AH"] and view["friends"] == []
    assert view["calls"] == ["1 AH"] and view["call_results"] == [None]
    assert view["counts"] == [19, 20, 20, 20, 20]
    # the declarer led the first AH itself: the call is answered, by it, and makes no friend
    led = {**ZP, "hand": ZP["hand"].replace("AH", "KH"), "trick": [[0, "AH"]]}
    assert view_of({**led, "call_results": [0]})["friends"] == []
    # a friend shown by an earlier trick: its points are the declarers'
    earlier = {**ZP, "hand": ZP["hand"].replace(" 4S", ""), "trick": [],
               "played": "AH 10H 3S 4H 5C", "points": 0, "call_results": [2]}
    shown = view_of(earlier)
    assert shown["friends"] == [2] and shown["opponents_points"] == 0
    assert len(shown["legal_moves"]) > 2                      # seat 1 leads
    with pytest.raises(BadPosition) as e:
        view_of({**earlier, "points": 20})           # the earlier cards hold 15 points
    assert e.value.code == "bad_points"
    assert view_of({**earlier, "points": 15, "call_results": [2]})["opponents_points"] == 15


@pytest.mark.parametrize("change,code", [
    ({"calls": []}, "bad_calls"),                      # five players: one call
    ({"calls": ["1 AH", "1 KH"]}, "bad_calls"),
    ({"calls": "1 AH"}, "bad_calls"),
    ({"calls": ["3 AH"]}, "bad_calls"),                # two packs: a first or second copy
    ({"calls": ["1 5S"]}, "bad_calls"),                # a trump
    ({"calls": ["1 2H"]}, "bad_calls"),                # the level's rank is trump
    ({"calls": ["1 BJ"]}, "bad_calls"),
    ({"calls": ["1 XX"]}, "bad_calls"),
    ({"calls": ["AH"]}, "bad_calls"),
    ({"call_results": [None, None]}, "bad_calls"),
    ({"call_results": [9]}, "bad_seat"),
    ({"call_results": [2]}, "bad_calls"),              # no AH was played yet
    ({"hand": ZP["hand"].replace("AH", "KH"), "trick": [[0, "AH"]]}, "bad_calls"),  # answered
    ({"hand": ZP["hand"].replace("AH", "KH"), "trick": [[0, "AH"]], "call_results": [3]},
     "bad_calls"),                                     # by seat 0, on the table
])
def test_a_zhao_pengyou_set_up_that_cannot_be_a_position_is_refused(change, code):
    with pytest.raises(BadPosition) as e:
        view_of({**ZP, **change})
    assert e.value.code == code, str(e.value)


# --------------------------------------------------------------------------------- the API
@pytest.fixture
def client(tmp_path):
    limits = Limits(analysis_seconds=0.05, analyses_per_minute_address=30)
    with TestClient(create_app(data_dir=tmp_path / "data", bot_delay=0, limits=limits)) as c:
        try:
            yield c
        finally:
            while OPEN:
                OPEN.pop().close()


def test_the_api_analyses_a_set_up_and_refuses_bad_ones_changing_nothing(client):
    r = client.post("/api/analysis", json={"position": PAGAT})
    assert r.status_code == 200, r.text
    out = r.json()
    assert out["view"]["hand"] == ["9C", "9S"] and _rows(out["analysis"])[0] == "9C 9S"
    r = client.post("/api/analysis", json={"position": SJ})
    assert r.status_code == 200, r.text
    assert sorted(_rows(r.json()["analysis"])) == ["3H", "AH"]
    r = client.post("/api/analysis", json={"position": ZP})
    assert r.status_code == 200, r.text
    assert r.json()["view"]["calls"] == ["1 AH"]
    assert sorted(_rows(r.json()["analysis"])) == ["3H", "5H", "AH"]
    later = EARLIER + " 5H 5S 7D 7C 8H 8S 8C 8D 9H 9D 10S 10H 10D 10C JS JH JD"
    for played in (later, [[1, later], [3, "QS"]]):     # long strings of cards are taken
        body = {**PAGAT, "counts": [2, 0, 10, 8 if isinstance(played, list) else 9],
                "played": played}
        r = client.post("/api/analysis", json={"position": body})
        assert r.status_code == 200, r.text
        assert r.json()["view"]["finished"] == [1]
    before = (client.get("/api/tables").json(), client.get("/api/matches").json())
    bad = [
        ({"position": {**PAGAT, "hand": "9C 9C"}}, 422, "duplicate_card"),
        ({"position": {**PAGAT, "counts": [2, 1, 1, 1]}}, 422, "bad_counts"),
        ({"position": {**PAGAT, "counts": [2, 20, 8, 8]}}, 422, "bad_counts"),
        ({"position": {**PAGAT, "hand": "9C " * 400}}, 422, "bad_request"),
        ({"position": {**PAGAT, "played": [[1, "3S"]] * 65}}, 422, "bad_request"),
        ({"position": {**PAGAT, "evil": 1}}, 422, "bad_request"),
        ({"position": PAGAT, "match": "x", "step": 0, "seat": 0}, 422, "bad_request"),
        ({"match": "x"}, 422, "bad_request"),
        ({"match": "nope", "step": 0, "seat": 0}, 404, "not_found"),
        ({"position": {**PAGAT, "hand": "8C 9S"}}, 422, "not_analysable"),
        ({"position": {**SJ, "points": 15}}, 422, "bad_points"),
        ({"position": {**SJ, "trick": [[1, "KH"]] * 17}}, 422, "bad_request"),
        ({"position": {**ZP, "call_results": [2]}}, 422, "bad_calls"),
        ({"position": {**ZP, "calls": ["1 AH"] * 5}}, 422, "bad_request"),
        ({"position": {**ZP, "calls": ["1 AH" * 3]}}, 422, "bad_request"),
    ]
    for body, status, code in bad:
        r = client.post("/api/analysis", json=body)
        assert (r.status_code, r.json()["code"]) == (status, code), (body, r.text)
    assert (client.get("/api/tables").json(), client.get("/api/matches").json()) == before


def test_the_api_limits_each_address(tmp_path):
    limits = Limits(analysis_seconds=0.01, analyses_per_minute_address=2)
    with TestClient(create_app(data_dir=tmp_path / "data", bot_delay=0, limits=limits)) as c:
        codes = [c.post("/api/analysis", json={"position": PAGAT}).status_code
                 for _ in range(3)]
        assert codes == [200, 200, 429]
        work = c.app.state.manager.work
        assert work.advice.stats["analysis.done"] == 2         # in the advice lane, its kind
        assert not any(k.startswith("analysis") for k in work.bots.stats)   # never the bots'


def test_a_replay_step_opens_with_that_seats_view_only(client):
    tid = new_table(client, options={"target": 1})
    w = Player(client, tid, "Watcher")
    w.send({"type": "bots"})
    w.next("state")
    w.send({"type": "start"})
    final = w.state_until(lambda s: s["view"] is not None and s["view"]["phase"] == "over")
    mid = final["table"]["match_id"]
    log = client.get(f"/api/matches/{mid}").json()["log"]
    g = shangyou.replay({**log, "moves": []})
    step = None
    for k, (s, text) in enumerate(log["moves"]):
        moves = g.view(s)["legal_moves"]
        if len(moves) > 2 and not moves[0].startswith(("give", "take", "discard", "offer")):
            step, seat = k, s
            break
        g.apply(text)
    assert step is not None
    r = client.post("/api/analysis", json={"match": mid, "step": step, "seat": seat})
    assert r.status_code == 200, r.text
    out = r.json()
    mine = client.get(f"/api/matches/{mid}/step/{step}?seat={seat}").json()["view"]
    assert out["view"] == mine and out["match"] == mid and out["step"] == step
    assert set(out) == {"view", "analysis", "match", "step"}
    # no other seat's hand anywhere in the answer
    text = json.dumps(out)
    views = client.get(f"/api/matches/{mid}/step/{step}?seat=all").json()["views"]
    for o, v in enumerate(views):
        if o != seat and v["hand"]:
            assert json.dumps(v["hand"]) not in text
    assert '"hands"' not in text and '"views"' not in text
    other = (seat + 1) % log["players"]
    r = client.post("/api/analysis", json={"match": mid, "step": step, "seat": other})
    assert (r.status_code, r.json()["code"]) == (422, "not_to_act")


def test_a_match_in_play_is_never_analysed(client):
    tid = new_table(client, options={"target": 50})
    a = Player(client, tid, "Ada")
    a.sit(0)
    a.send({"type": "bots"})
    a.state_until(lambda s: all(x["kind"] != "empty" for x in s["table"]["seats"]))
    a.send({"type": "start"})
    s = a.state_until(lambda s: s["table"].get("match_id"))
    r = client.post("/api/analysis", json={"match": s["table"]["match_id"], "step": 0,
                                           "seat": 1})
    assert (r.status_code, r.json()["code"]) == (404, "not_found")


def test_the_examples_in_the_modules_run():
    import doctest

    import shangyou.analysis
    import shangyou.position
    assert doctest.testmod(shangyou.analysis).failed == 0
    assert doctest.testmod(shangyou.position).failed == 0


def test_a_hand_or_a_play_larger_than_a_deal_is_refused_before_any_work():
    with pytest.raises(BadPosition) as e:
        view_of({**PAGAT, "players": 3, "counts": [2, 19, 17]})
    assert e.value.code == "bad_counts" and "at most 18" in str(e.value)
    with pytest.raises(BadPosition) as e:
        view_of({**PAGAT, "players": 3, "played": "", "counts": [2, 12, 12],
                 "table": {"seat": 1, "cards": " ".join(
            f"{r}{s}" for r in "3456" for s in "SHDC") + " 7S 7H 7D"}})
    assert e.value.code == "bad_table"


_CARD = st.sampled_from(["3S", "9C", "9S", "5D", "5C", "BJ", "RJ", "2H", "AS", "10D", "1X",
                         "", "🂡"])
_CARDS = st.lists(_CARD, max_size=6).map(" ".join)
_ANY = st.none() | st.booleans() | st.integers(-3, 30) | st.text(max_size=4) | _CARDS


@settings(max_examples=150, deadline=None, derandomize=True, database=None)
@given(st.fixed_dictionaries({}, optional={
    "game": st.sampled_from(["zheng-shangyou/pagat", "zheng-fen", "zheng-shangyou/owen",
                             "zheng-shangyou/winner", "sheng-ji", "sheng-ji/single-deck",
                             "sheng-ji/zhao-pengyou", "nope"]) | _ANY,
    "players": st.integers(0, 9) | _ANY,
    "options": st.dictionaries(st.sampled_from(["decks", "target", "jokers", "x"]), _ANY,
                               max_size=2) | _ANY,
    "seat": st.integers(-1, 5) | _ANY,
    "hand": _CARDS | _ANY,
    "table": st.none() | st.fixed_dictionaries({"seat": st.integers(-1, 5) | _ANY,
                                                "cards": _CARDS | _ANY}) | _ANY,
    "played": _CARDS | st.lists(st.tuples(st.integers(-1, 5), _CARDS).map(list),
                                max_size=3) | _ANY,
    "counts": st.lists(st.integers(-1, 20) | _ANY, max_size=6) | _ANY,
    "finished": st.lists(st.integers(-1, 5), max_size=3) | _ANY,
    "level": st.sampled_from(["2", "10", "A", "1"]) | _ANY,
    "trump": st.sampled_from(["S", "H", None, "SS"]) | _ANY,
    "declarer": st.integers(-1, 5) | _ANY,
    "trick": st.lists(st.tuples(st.integers(-1, 5), _CARDS).map(list), max_size=3) | _ANY,
    "points": st.integers(-5, 200) | _ANY,
    "calls": st.lists(st.sampled_from(["1 AH", "2 KC", "1 5S", "9 AH", "1", "1 BJ"]) | _ANY,
                      max_size=3) | _ANY,
    "call_results": st.lists(st.none() | st.integers(-1, 7) | _ANY, max_size=3) | _ANY,
}))
def test_a_hostile_set_up_is_a_view_or_a_bad_position_never_anything_else(setup):
    try:
        view = view_of({**PAGAT, **setup})
    except BadPosition as e:
        assert e.code and str(e)
        return
    assert view["to_act"] == view["seat"] and view["phase"] == "play"
    assert view["legal_moves"]
    try:
        a = analyse(view, seconds=None, max_worlds=2)
    except NotAnalysable:
        assert len(view["legal_moves"]) == 1
    else:
        assert a["worlds"] == 2 and len(a["rows"]) >= 2
