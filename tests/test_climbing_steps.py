"""Choosing a play in steps where a seat has very many legal plays (games/climbing/steps.py;
docs/rules/zheng-shangyou.md, *Choosing a play in steps*)."""

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import shangyou
from shangyou.bots import make_bot
from shangyou.bots.learned_features import whole_plays
from shangyou.cards import parse
from shangyou.errors import IllegalMove
from shangyou.games.climbing import core
from shangyou.engine.moves import PASS_MOVE
from shangyou.games.climbing.steps import (
    LISTING_LIMIT,
    STEP_LIMIT,
    candidates,
    groups,
    in_steps,
    next_picks,
)
from shangyou.review import review_log

WORST = ("2S 2S 2H 2H 2D 2D 2C 2C BJ BJ RJ RJ 3S 3H 4S 4H 5S 5H 6S 6H 7S 7H 8S 8H 9S 9H 10S")


def leading(name, players, hand, **opts):
    g = shangyou.new_game(name, players=players, seed=1, **opts)
    while g.phase != "play":
        g.apply(g.legal_moves()[0])
    g.hands[g.to_act] = sorted(parse(hand))
    g.last = None
    g._legal = None
    return g


_BIG: list = []


def big_follow(seed=0):
    """A two-pack pagat state (3 players) with steps offered and a play to beat (a clone of
    the one found first)."""
    if not _BIG:
        _BIG.append(_find_big_follow(seed))
    return _BIG[0].clone()


def _find_big_follow(seed):
    rng = random.Random(seed)
    for s in range(seed, seed + 200):
        g = shangyou.new_game("zheng-shangyou/pagat", players=3, decks=2, seed=s)
        while not g.over:
            if g.last is not None and len(g.all_moves(limit=None)) > STEP_LIMIT and \
                    len(g.all_moves(limit=None)) < 3000:
                return g
            g.apply(rng.choice(g.all_moves(limit=None)))
    raise AssertionError("no such state")


def texts(moves):
    return [str(m) for m in moves]


def test_the_worst_hand_is_offered_by_groups():
    g = leading("zheng-shangyou/pagat", 4, WORST, decks=2)
    plays = g.all_moves(limit=None)
    offered = texts(g.legal_moves())
    assert len(plays) > 100_000 and len(offered) < 500
    by_group = groups(plays)
    # each group of several plays is one choose move, a group of one play is that play
    assert offered == [t if len(ms) > 1 else str(ms[0]) for t, ms in by_group.items()]
    assert "choose 16 multiple sequence 3-10x2" in offered
    assert sum(len(ms) for ms in by_group.values()) == len(plays)
    v = g.view(g.to_act)
    assert v["legal_moves"] == offered and "choice" not in v


def test_a_decision_never_lists_more_than_the_listing_limit():
    """Past LISTING_LIMIT plays the core lists nothing for a decision (False) and the game
    counts the plays by group instead: the 36-card three-player hand, millions of plays, is
    offered in steps as the 27-card one is."""
    g = leading("zheng-shangyou/pagat", 4, WORST, decks=2)
    fam, hand = g.rules.family, g.hands[g.to_act]
    tok = object()
    if not core.ACTIVE:             # the Python reference lists every play (docs/core.md)
        assert fam.play_moves(hand, None, tok, LISTING_LIMIT) is None
        return
    assert fam.play_moves(hand, None, tok, LISTING_LIMIT) is False
    assert core.listed_moves(g, tok, LISTING_LIMIT) is False
    every = fam.play_moves(hand, None, tok)
    assert len(every) > 100_000                         # without a limit: every play
    assert len(fam.play_moves(hand, None, tok, len(every))) == len(every)
    assert fam.play_moves(hand, None, tok, len(every) - 1) is False
    small = shangyou.new_game("zheng-shangyou/pagat", players=4, seed=3)
    while small.phase != "play":
        small.apply(small.legal_moves()[0])
    h = small.hands[small.to_act]
    assert list(fam.play_moves(h, None, tok, LISTING_LIMIT)) == list(fam.play_moves(h, None, tok))
    huge = ("2S 2S 2H 2H 2D 2D 2C 2C BJ BJ RJ RJ 3S 3H 4S 4H 5S 5H 6S 6H 7S 7H 8S 8H 9S 9H "
            "10S 10H JS JH QS QH KS KH AS AH")
    g3 = leading("zheng-shangyou/pagat", 3, huge, decks=2)
    offered = texts(g3.legal_moves())
    assert STEP_LIMIT < len(offered) < 600 and "choose 24 multiple sequence 3-Ax2" in offered
    g3.apply("choose 24 multiple sequence 3-Ax2")
    assert 0 < len(g3.legal_moves()) <= STEP_LIMIT


def test_a_small_listing_is_not_in_steps():
    g = shangyou.new_game("zheng-shangyou/pagat", players=4, seed=3)
    assert g.legal_moves() == g.all_moves(limit=None) and len(g.all_moves(limit=None)) <= STEP_LIMIT
    with pytest.raises(IllegalMove, match="no choose step"):
        g.apply("choose 2 set 7s")


def walk(g, rng):
    """Random steps until the seat to act plays or passes; the move made."""
    seat = g.to_act
    while True:
        m = rng.choice(g.legal_moves())
        g.apply(str(m))
        if m.kind not in ("choose", "pick"):
            assert g.to_act != seat or g.over or m.kind == "pass" or g.last is None
            return m
        assert g.to_act == seat and len(g.legal_moves()) <= max(STEP_LIMIT, 500)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**6))
def test_any_steps_end_in_a_legal_play(seed):
    g0 = big_follow()
    legal = set(texts(g0.all_moves(limit=None)))
    g = g0.clone()
    move = walk(g, random.Random(seed))
    assert str(move) in legal
    assert g.choice is None and g.picked == ()


def reach(g, target):
    """Choose the group of ``target`` and pick its cards until it is listed; then play it."""
    group = next(t for t, ms in groups(g.all_moves(limit=None)).items()
                 if any(m is target for m in ms))
    if str(target) in texts(g.legal_moves()):
        g.apply(str(target))
        return 0
    g.apply(group)
    steps = 1
    while str(target) not in texts(g.legal_moves()):
        left = list(target.cards)
        for c in g.picked:
            left.remove(c)
        offered = texts(g.legal_moves())
        pick = next(m for m in offered if m.startswith("pick ")
                    and parse(m[5:])[0] in left)
        g.apply(pick)
        steps += 1
        assert steps < 40
    g.apply(str(target))
    return steps


@pytest.mark.parametrize("where", ["worst lead", "follow"])
def test_every_play_is_reachable_by_steps(where):
    g0 = leading("zheng-shangyou/pagat", 4, WORST, decks=2) if where == "worst lead" \
        else big_follow()
    plays = [m for m in g0.all_moves(limit=None) if m.kind == "play"]
    rng = random.Random(5)
    stepped = 0
    if where == "worst lead":
        big = groups(plays)["choose 16 multiple sequence 3-10x2"]
        targets = [big[-1], rng.choice(big)]
    else:
        targets = [plays[0], plays[-1]] + rng.sample(plays, 40)
    for target in targets:
        g = g0.clone()
        seat = g.to_act
        steps = reach(g, target)
        # the worst lead's groups are too large to list: cards are picked
        stepped += steps > (1 if where == "worst lead" else 0)
        assert g.moves[-1][1] == target and g.trick[-1] == (seat, target.combo)
    assert stepped


def test_a_whole_play_is_accepted_at_every_step_and_a_choice_may_change():
    g = leading("zheng-shangyou/pagat", 4, WORST, decks=2)
    seat = g.to_act
    g.apply("choose 16 multiple sequence 3-10x2")
    assert g.view(seat)["choice"] == "choose 16 multiple sequence 3-10x2"
    offered = texts(g.legal_moves())
    assert offered and all(m.startswith("pick ") for m in offered)
    g.apply(offered[1])
    assert len(g.picked) == 1 and g.view(seat)["picked"] == [offered[1][5:]]
    # a pick not offered, a group that does not exist: refused, nothing changes
    before = g.snapshot()
    with pytest.raises(IllegalMove):
        g.apply("pick 9C")
    with pytest.raises(IllegalMove):
        g.apply("choose 99 set 7s")
    assert g.snapshot() == before
    pairs = next(t for t in groups(g.all_moves(limit=None)) if t.startswith("choose 2 set "))
    g.apply(pairs)                              # a change of mind: another group
    assert g.choice == pairs and g.picked == ()
    every = {(m.cards, m.combo.label) for m in g.all_moves(limit=None) if m.combo is not None}
    assert all((m.cards, m.combo.label) in every for m in g.legal_moves() if m.kind == "play")
    g.apply("3S 3H 4S 4H 5S 5H")                # a whole play, typed at once
    assert g.choice is None and g.to_act != seat and len(g.trick) == 1
    logged = [str(m) for _, m in g.moves]       # the steps are in the log
    assert logged[-4:] == ["choose 16 multiple sequence 3-10x2", offered[1], pairs,
                           "3H 3S 4H 4H 5H 5S".replace("4H 4H", "4H 4S")]


def test_pass_stays_offered_while_choosing():
    g = big_follow()
    seat = g.to_act
    offered = texts(g.legal_moves())
    assert offered[0] == "pass"
    choose = next(m for m in offered if m.startswith("choose "))
    g.apply(choose)
    assert texts(g.legal_moves())[0] == "pass"
    g.apply("pass")
    assert g.to_act != seat and g.choice is None


def test_the_core_and_python_offer_the_same_steps():
    g = leading("zheng-shangyou/pagat", 3, WORST.replace(" 10S", ""), decks=2)
    prev = core.use(True)
    try:
        with_c = texts(g.legal_moves())
        g.apply("choose 14 multiple sequence 3-9x2")
        steps_c = texts(g.legal_moves())
        h = leading("zheng-shangyou/pagat", 3, WORST.replace(" 10S", ""), decks=2)
        core.use(False)
        assert texts(h.legal_moves()) == with_c
        h.apply("choose 14 multiple sequence 3-9x2")
        assert texts(h.legal_moves()) == steps_c
    finally:
        core.use(prev)


@pytest.mark.parametrize("kinds", [("random", "greedy", "heuristic"),
                                   ("greedy", "random", "random")])
def test_bots_finish_two_pack_pagat_with_steps(kinds):
    g = shangyou.new_game("zheng-shangyou/pagat", players=3, decks=2, seed=2)
    bots = [make_bot(k, seed=s) for s, k in enumerate(kinds)]
    stepped = 0
    while not g.over:
        v = g.view(g.to_act)
        stepped += any(m.startswith(("choose ", "pick ")) for m in v["legal_moves"])
        g.apply(bots[g.to_act].choose(v))
    assert stepped > 0 and g.result is not None
    assert shangyou.replay(g.log) == g


def test_the_learned_level_answers_a_whole_play_where_plays_are_offered_in_steps():
    g = big_follow()
    seat = g.to_act
    view = g.view(seat)
    assert in_steps(view["legal_moves"])
    bot = make_bot("learned", seed=1)
    assert bot.plays(whole_plays(view))
    every = texts(g.all_moves(limit=None))
    move = bot.choose(view)
    assert move in every and len(bot.values(view)) == len(every)
    g.apply(next(m for m in view["legal_moves"] if m.startswith("choose ")))
    mid = bot.choose(g.view(seat))                          # in the middle of a choice
    assert mid in every
    g.apply(mid)
    assert g.to_act != seat and g.choice is None


def test_the_review_judges_the_play_a_choice_ends_in_among_every_play():
    g = big_follow()
    seat = g.to_act
    every = set(texts(g.all_moves(limit=None)))
    g.apply(next(m for m in texts(g.legal_moves()) if m.startswith("choose ")))
    walk(g, random.Random(3))
    steps = [(i, str(m)) for i, (s, m) in enumerate(g.moves) if s == seat
             and m.kind in ("choose", "pick")]
    assert steps
    r = review_log(g.log, seat=seat, max_worlds=4, judge_worlds=4, seconds=None)
    judged = {d.index: d for d in r.decisions}
    assert not any(i in judged for i, _ in steps)         # a step is not a decision
    last = len(g.moves) - 1
    assert g.moves[last][0] == seat and last in judged
    d = judged[last]
    assert d.played == str(g.moves[last][1]) and {d.played, d.best} <= every
    assert r.skipped >= len(steps)


def _step_states(name, players, seeds, **opts):
    """States of random hands (core on) where the seat to act is offered steps."""
    rng = random.Random(7)
    for s in seeds:
        g = shangyou.new_game(name, players=players, seed=s, **opts)
        while not g.over:
            if g.phase == "play" and in_steps(texts(g.legal_moves())):
                yield g
            g.apply(rng.choice(g.all_moves(limit=None)))


@pytest.mark.parametrize("name,players,opts", [("zheng-shangyou/owen", 2, {}),
                                               ("zheng-shangyou/pagat", 3, {"decks": 2})])
def test_the_core_groups_the_listed_plays_as_python_groups_them(name, players, opts):
    """``Plays.groups`` (C, a ``Steps``) against ``groups`` over the same listing: texts in
    order, how many plays each has, its codes, the single plays, the first step's moves, and
    each group's plays holding picked cards (``Steps.select``) against ``candidates`` and
    ``next_picks``."""
    from shangyou.games.climbing.steps import CHOOSE, Grouping, step_moves
    if not core.AVAILABLE:
        return
    core.use(True)
    seen = 0
    for g in _step_states(name, players, range(6), **opts):
        fam, hand, last = g.rules.family, g.hands[g.to_act], g.last
        plays = fam.play_moves(hand, last, object())
        assert core.is_plays(plays) and len(plays) > STEP_LIMIT
        listing = list(plays)
        ref = groups(listing[1:] if last is not None else listing)
        top = plays.groups({}, steps_text, CHOOSE)
        gtexts, firsts, counts = top.info()
        assert gtexts == list(ref)
        assert len(top) == len(ref) + (last is not None)
        assert texts(top[1 if last is not None else 0:]) == [
            t if len(ms) > 1 else str(ms[0]) for t, ms in ref.items()]
        assert (top[0] is PASS_MOVE) == (last is not None)
        assert top == list(top) and top[-1] is top[-1]
        assert counts == [len(ms) for ms in ref.values()]
        assert [listing[i] for i in firsts] == [ms[0] for ms in ref.values()]
        assert all(top[g + (last is not None)] is listing[i]
                   for g, (i, n) in enumerate(zip(firsts, counts)) if n == 1)
        all_codes = plays.codes()
        rng = random.Random(seen)
        codes_of: dict = {}
        for c, m in zip(all_codes, listing[1:] if last is not None else listing):
            codes_of.setdefault(steps_text(m), {})[c] = None
        for g, t in enumerate(gtexts):
            assert top.codes(g) == list(codes_of[t])
            assert top.find(t) == (g, counts[g]) and top.find(t + " ") is None
            members = ref[t]
            picked: tuple = ()
            for _ in range(3):        # picks of cards some member holds, as the steps make
                cands = candidates(members, picked)
                step = object()
                n, sub, maxima = top.select(g, picked, STEP_LIMIT, step)
                assert n == len(cands)
                if n <= STEP_LIMIT:
                    assert maxima is None and texts(sub) == \
                        (["pass"] if last is not None else []) + texts(cands)
                    assert all(m.token is step and m.kind == "play"
                               for m in sub[1 if last is not None else 0:][:3])
                else:
                    have = [picked.count(c) for c in range(54)]
                    assert sub is None and [c for c in range(54) if maxima[c] > have[c]] == \
                        next_picks(cands, picked)
                options = sorted({c for m in cands for c in m.cards})
                if not options:
                    break
                picked = tuple(sorted(picked + (rng.choice(options),)))
        tok = object()
        mine = Grouping.of_listing(fam, hand, last, fam.play_moves(hand, last, tok), tok)
        theirs = Grouping.of_plays(fam, hand, last, listing[1:] if last is not None else listing)
        assert texts(step_moves(mine, None, (), tok, fam.sort_key)) == \
            texts(step_moves(theirs, None, (), tok, fam.sort_key))
        assert list(mine.groups) == list(theirs.groups)
        assert [gr.many for gr in mine.groups.values()] == \
            [gr.many for gr in theirs.groups.values()]
        seen += 1
        if seen >= 12:
            break
    assert seen >= 3


def steps_text(move):
    return f"choose {len(move.cards)} {move.combo.describe()}"


def test_the_play_that_ends_a_choice_is_made_in_c_as_python_makes_it():
    """A listed play chosen in steps: ``apply_listed`` makes it and ends the choice, the
    state as the Python code leaves it."""
    if not core.AVAILABLE:
        return
    core.use(True)
    made = 0
    for g in _step_states("zheng-shangyou/owen", 2, range(6)):
        moves = g.legal_moves()
        rng = random.Random(len(moves))
        if rng.random() < 0.5:
            chosen = [m for m in moves if m.kind == "choose"]
            if chosen:
                g.apply(rng.choice(chosen))
                moves = g.legal_moves()
        plays = [m for m in moves if m.kind == "play" and len(m.cards) < len(g.hands[g.to_act])]
        if not plays:
            continue
        move = rng.choice(plays)
        py = g.clone()
        py._token = g._token
        assert core.apply_listed(g, move, None) is True
        core.use(False)
        try:
            py.apply(str(move))
        finally:
            core.use(True)
        assert g._grouping is None and g.choice is None and g.picked == ()
        assert g.snapshot() == py.snapshot() and g.last == py.last and g.to_act == py.to_act
        assert g.moves[-1][1] == py.moves[-1][1]
        made += 1
        if made >= 8:
            break
    assert made >= 3


def test_a_game_choosing_in_steps_copies_and_pickles():
    """A game in the middle of a choice in steps (its grouping kept, the core's where it is
    on): a deep copy, a pickled copy and a clone offer the same moves and make the same
    play."""
    import copy
    import pickle
    done = 0
    for g in _step_states("zheng-shangyou/owen", 2, range(4)):
        chosen = [m for m in g.legal_moves() if m.kind == "choose"]
        if not chosen:
            continue
        g.apply(chosen[-1])
        others = (copy.deepcopy(g), pickle.loads(pickle.dumps(g)), g.clone())   # not listed
        want = texts(g.legal_moves())
        for other in others:
            assert texts(other.legal_moves()) == want and other._grouping is not None
            other.apply(other.legal_moves()[-1])
            assert other.choice is None and other._grouping is None
        done += 1
        if done == 2:
            break
    assert done == 2
