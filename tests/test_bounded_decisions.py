"""Every decision is bounded (docs/bots.md, *Bounded decisions*): in the constructed worst
states of bench/legal_worst.py (two-pack climbing hands with up to millions of plays, the
widest Sheng ji follows and leads) no listing, bot level, hint, review or env step makes more
than LISTING_LIMIT candidates or takes more than 100 MB, and the search stops on its budget.

Memory is Python's own, measured with tracemalloc; the search's CPU time with
time.process_time (the CPU this process spent, whatever the load of the machine)."""

import importlib.util
import pathlib
import random
import sys
import time
import tracemalloc

import pytest

import shangyou
from shangyou.bots import climbing_search
from shangyou.bots.base import make_bot
from shangyou.games.climbing import core
from shangyou.games.climbing.family import READINGS_COUNTED, Family
from shangyou.games.climbing.steps import LISTING_LIMIT, bounded_plays, every_play, in_steps

ROOT = pathlib.Path(__file__).resolve().parents[1]
MEMORY = 100 * 2**20           # bytes a decision may take at its peak (Python's, tracemalloc)
#: the search's CPU cap may be passed by at most one playout and the check after it: 10 %
CAP_MARGIN = 1.10


def _bench(name):
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        spec = importlib.util.spec_from_file_location(name, ROOT / "bench" / f"{name}.py")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return mod
    finally:
        sys.path.remove(str(ROOT / "bench"))


lw = _bench("legal_worst")
dw = _bench("decision_worst")

# the climbing leads with the most plays, and their variants no single play empties
CLIMBING = {label: build for label, build, _ in lw.NAMED if "lead" in label
            and not label.startswith(("sheng-ji", "zhao"))}
CLIMBING.update(dict(dw.EXTRA))
SHENG_JI = {label: build for label, build, _ in lw.NAMED
            if label.startswith("sheng-ji 4 packs 4p: follow a pair tractor")
            or label.startswith("sheng-ji 4 packs 4p: lead, 52 cards: four of each of 3-A")}
HUGE = [label for label in CLIMBING if "36 cards" in label or "27 cards" in label]


def peak(fn):
    """(fn(), the peak of memory it allocated, in bytes)."""
    tracemalloc.start()
    try:
        out = fn()
        return out, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def needs_core():
    if not core.ACTIVE:         # the Python reference lists every play (docs/core.md)
        pytest.skip("the bounds are the compiled core's: built without it")


@pytest.mark.parametrize("label", HUGE)
def test_all_moves_and_every_play_list_at_most_the_listing_limit(label):
    needs_core()
    g = CLIMBING[label]()
    assert in_steps([str(m) for m in g.legal_moves()])    # offered in steps, as before
    moves, mem = peak(g.all_moves)
    assert 100 < len(moves) <= LISTING_LIMIT + 1 and mem < MEMORY
    view = g.view(g.to_act)
    plays, mem = peak(lambda: every_play(view, g.rules.family))
    assert plays["legal_moves"] == [str(m) for m in moves] and mem < MEMORY
    assert plays["by_reading"] is True          # one play per reading: not every play
    # each is a legal whole play, taken by the game at the first step of the choice
    for m in random.Random(1).sample(moves, 20):
        c = g.clone()
        c.apply(str(m))
        assert len(c.hands[g.to_act]) == len(g.hands[g.to_act]) - len(m.cards)
    # every reading is there: the plays differ from the full listing only in which cards
    readings = {(len(m.cards), m.combo.kind, m.combo.label) for m in moves}
    assert len({str(m) for m in moves}) == len(moves) >= len(readings)
    if "27 cards: eight 2s, four jokers, pairs 3-9 and a 10" in label:
        every = g.rules.family.play_moves(g.hands[g.to_act], None, None)
        assert len(every) > 100_000
        assert readings == {(len(m.cards), m.combo.kind, m.combo.label) for m in every}


def test_a_listing_under_the_limit_is_every_play():
    needs_core()
    g = lw._owen_worst()
    fam = g.rules.family
    small = sorted(g.hands[g.to_act])[:12]
    every = [str(m) for m in fam.play_moves(small, None, None)]
    assert 0 < len(every) <= LISTING_LIMIT
    assert [str(m) for m in bounded_plays(fam, small, None, None)] == every


def test_readings_of_many_cards_are_counted_alike():
    """Family.combos of eight cards or more is counted by the core: the same readings, in
    the same order, as the Python reference (the leads of the cards that use them all)."""
    rng = random.Random(5)
    for name, decks in [("zheng-shangyou/pagat", 2), ("zheng-shangyou/owen", None),
                        ("zheng-fen", None), ("zheng-shangyou/winner", 2)]:
        g = shangyou.new_game(name, players=4, seed=1, **({"decks": decks} if decks else {}))
        fam = g.rules.family
        pack = sorted(c for h in g.hands for c in h)
        for _ in range(25):
            cards = tuple(sorted(rng.sample(pack, rng.randint(READINGS_COUNTED, 14))))
            got = sorted(map(repr, fam._readings(cards)))
            assert got == sorted(map(repr, Family._readings(fam, cards)))
        # a play of many cards that is a combination: its readings found, its text made
        for cards in [tuple(sorted(h)) for h in g.hands][:1]:
            assert sorted(map(repr, fam._readings(cards))) == \
                sorted(map(repr, Family._readings(fam, cards)))


LEVELS = ["random", "greedy", "heuristic", "search", "learned"]


@pytest.mark.parametrize("label", list(CLIMBING) + list(SHENG_JI))
def test_every_level_and_hint_decides_within_the_memory_cap(label):
    """Each level's move (and each hint level's advice) is legal, made with at most 100 MB,
    and the climbing search stops on its budget: its iterations, its race, or its CPU cap
    (the whole decision, listing and candidates included, in time.process_time)."""
    build = CLIMBING.get(label) or SHENG_JI[label]
    g = build()
    view = g.view(g.to_act)
    legal = set(view["legal_moves"])
    whole = every_play(view, g.rules.family) if label in CLIMBING else view
    for level in LEVELS:
        move, mem = peak(lambda: make_bot(level, 3).choose(view))
        assert move in legal or move in whole["legal_moves"], (level, move)
        assert mem < MEMORY, (level, mem)
        c = g.clone()
        c.apply(move)                       # the game takes it
    for level in ("heuristic", "search"):
        advice, mem = peak(lambda: make_bot(level, 3).advise(view))
        assert (advice.move in legal or advice.move in whole["legal_moves"]) and mem < MEMORY
    if label in CLIMBING:
        info: dict = {}
        t0 = time.process_time()
        move = climbing_search.choose(view, random.Random(2), info=info, strict=True)
        spent = time.process_time() - t0
        assert info["stop"] in ("race", "cap", "iterations", "one")
        assert spent <= climbing_search.DEFAULT_CAP_SECONDS * CAP_MARGIN


@pytest.mark.parametrize("label", [label for label in CLIMBING if "not out" in label])
def test_the_search_stops_at_its_cpu_cap(label, monkeypatch):
    """With no other bound (iterations without end, no racing) the search stops at its CPU
    cap, counted from the decision's start: the deadline check is reached, a world begun is
    abandoned rather than finished past the cap, and the CPU spent is within 10 %."""
    monkeypatch.setattr(climbing_search, "DEFAULT_ITERATIONS", 10**9)
    monkeypatch.setattr(climbing_search, "DEFAULT_CAP_SECONDS", 0.3)
    monkeypatch.setattr(climbing_search.Search, "race", classmethod(lambda cls, s, alive: alive))
    g = CLIMBING[label]()
    view = g.view(g.to_act)
    info: dict = {}
    t0 = time.process_time()
    move = climbing_search.choose(view, random.Random(4), info=info, strict=True)
    spent = time.process_time() - t0
    assert info["stop"] == "cap" and info["worlds"] >= 1
    assert spent <= 0.3 * CAP_MARGIN
    assert all(len(v) == info["worlds"] for v in info["values"].values())   # whole worlds only
    assert move in every_play(view, g.rules.family)["legal_moves"]


@pytest.mark.parametrize("label", list(CLIMBING) + list(SHENG_JI))
def test_an_env_step_lists_a_bounded_page_of_candidates(label):
    """The env, set in the worst state, pages through at most LISTING_LIMIT + 1 candidates
    (every play, or one per reading past the limit), and its first observation and step
    take at most 100 MB."""
    needs_core()
    g = (CLIMBING.get(label) or SHENG_JI[label])()
    e = dw.env_in_state(g)

    def first():
        obs = e.observe(e.agent_selection)
        return obs, e.pager()
    (obs, pager), mem = peak(first)
    assert 1 <= pager.n <= LISTING_LIMIT + 1 and mem < MEMORY
    assert obs["action_mask"].sum() >= 1
    _, mem = peak(lambda: e.step(int(obs["action_mask"].nonzero()[0][0])))
    assert mem < MEMORY


def test_a_review_judges_a_play_past_the_listing():
    """Past the listing limit the review weighs one play per reading; a play made that is
    not among them (another copy of the same cards) is judged as made, not refused."""
    needs_core()
    from shangyou.review import review_decision
    g = CLIMBING[next(label for label in CLIMBING if "36 cards" in label and "not out" in label)]()
    view = g.view(g.to_act)
    listed = every_play(view, g.rules.family)["legal_moves"]
    pairs = (f"{x} {w}" for x in ("3S", "5H", "QS", "AD") for w in ("2S", "2H", "2D", "BJ"))
    played = next(t for t in pairs if t not in listed and _legal(g, t))
    d, mem = peak(lambda: review_decision(view, played, 0, random.Random(1), seconds=0.3,
                                          max_worlds=8, judge_worlds=8))
    assert d is not None and d.played == played and mem < MEMORY


def _legal(g, text):
    try:
        g.clone().apply(text)
    except ValueError:
        return False
    return True


def test_the_bench_reports_every_level_it_runs(tmp_path, capsys):
    out = tmp_path / "r.json"
    assert dw.main(["--no-named", "--only", "single-deck", "--hands", "1",
                    "--levels", "random,greedy,env step", "--json", str(out)]) == 0
    import json
    rows = json.loads(out.read_text())["rows"]
    assert {r["level"] for r in rows} == {"random", "greedy", "env step"}
    assert all(r["cpu_s"] >= 0 and 0 <= r["peak_mb"] < 100 for r in rows)
    assert "| env step | 0.1 |" in capsys.readouterr().out
