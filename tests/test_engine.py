"""The engine and the public API: moves, errors, views, logs, matches, exchange, scoring."""

import ast
import copy
import json
import pathlib
import random

import pytest
from hypothesis import given, settings, strategies as st

import shangyou
from shangyou import IllegalMove
from shangyou.bots import make_bot, play_out
from shangyou.cards import parse
from shangyou.games.climbing.game import score_hand
from shangyou.registry import build

SRC = pathlib.Path(shangyou.__file__).parent


def test_public_api_shape():
    g = shangyou.new_game("zheng-shangyou/owen", players=3, seed=7)
    assert g.to_act in range(3) and not g.over and g.result is None
    moves = g.legal_moves()
    assert moves and all(isinstance(str(m), str) for m in moves)
    assert str(g.hand(0)) == " ".join(str(c) for c in g.hand(0))
    assert len(g.hand(0)) == 18 and sum(len(g.hand(s)) for s in range(3)) == 54
    v = g.view(g.to_act)
    assert v["legal_moves"] == [str(m) for m in moves]
    g.apply(moves[0])
    g.apply(str(g.legal_moves()[-1]))
    assert json.loads(json.dumps(g.log))["moves"][0][1] == str(moves[0])


def test_aliases_and_errors():
    assert shangyou.new_game("pits", players=4, seed=1).rules.name == "zheng-shangyou/pagat"
    assert shangyou.new_game("owen", players=2, seed=1).n == 2
    for bad in [dict(players=9), dict(players=2), dict(decks=3), dict(target=0),
                dict(frobnicate=1), dict(twos_in_sequences="maybe")]:
        with pytest.raises(ValueError):
            shangyou.new_game("zheng-shangyou/pagat", seed=1, **bad)
    with pytest.raises(ValueError):
        shangyou.new_game("zheng-shangyou/owen", players=5)
    with pytest.raises(ValueError):
        shangyou.new_match("zheng-shangyou/winner", players=3, decks=2)
    with pytest.raises(ValueError, match="bomb"):
        shangyou.rules("zheng-shangyou/winner", bomb="huge")


def test_seeded_deal_is_reproducible_and_seeds_differ():
    a = shangyou.new_game("pits", players=5, seed=42)
    b = shangyou.new_game("pits", players=5, seed=42)
    c = shangyou.new_game("pits", players=5, seed=43)
    assert a == b and [a.hand(s) for s in range(5)] == [b.hand(s) for s in range(5)]
    assert [a.hand(s) for s in range(5)] != [c.hand(s) for s in range(5)]


def lead_game():
    g = shangyou.new_game("zheng-shangyou/pagat", players=4, seed=3)
    return g, g.to_act


@pytest.mark.parametrize("bad,why", [
    ("7Z", "bad card"), ("", "no cards"), ("pass", "lead"), ("give 3S", "bad card"),
])
def test_illegal_input_leaves_game_unchanged(bad, why):
    g, seat = lead_game()
    snap = g.snapshot()
    with pytest.raises(IllegalMove, match=why):
        g.apply(bad)
    assert g.snapshot() == snap


def test_cards_not_held_not_a_combination_does_not_beat_and_out_of_turn():
    g, seat = lead_game()
    hand = g.hand(seat)
    other = [c for c in parse(" ".join(str(x) for x in shangyou.cards.deck(1))) if c not in hand]
    snap = g.snapshot()
    with pytest.raises(IllegalMove, match="does not hold"):
        g.apply(str(other[0]))
    with pytest.raises(IllegalMove, match="turn"):
        g.apply(g.legal_moves()[0], seat=(seat + 1) % 4)
    low = [c for c in hand if c.rank < 12]
    pair_breaker = [a for a in low for b in low if b.rank - a.rank >= 2][:1]
    if pair_breaker:
        a = pair_breaker[0]
        b = next(c for c in low if c.rank - a.rank >= 2)
        with pytest.raises(IllegalMove, match="not a combination"):
            g.apply(f"{a} {b}")
    assert g.snapshot() == snap
    # lead the highest single; the next player cannot play a lower single on it
    top = max(hand, key=lambda c: c.rank)
    g.apply(str(top))
    nxt = g.to_act
    lower = [c for c in g.hand(nxt) if c.rank <= top.rank]
    snap = g.snapshot()
    if lower:
        with pytest.raises(IllegalMove, match="does not beat"):
            g.apply(str(lower[0]))
    with pytest.raises(IllegalMove):
        g.apply(f"{g.hand(nxt)[0]} as 9-J")
    assert g.snapshot() == snap


def test_apply_accepts_any_selection_of_held_cards_forming_a_legal_play():
    # suits are ignored in sets, so any two held sevens make the same play
    g = shangyou.new_game("zheng-shangyou/pagat", players=4, seed=11)
    seat = g.to_act
    hand = g.hand(seat)
    by_rank = {}
    for c in hand:
        by_rank.setdefault(c.rank, []).append(c)
    pairs = [v for r, v in by_rank.items() if len(v) >= 2 and r < 12]
    assert pairs, "seed 11 gives the leader a pair"
    two = sorted(pairs[0], reverse=True)[:2]  # not the canonical (lowest-suit) cards
    g.apply(f"{two[0].__str__().lower()} {two[1]}")
    assert g.trick[-1][1].cards == tuple(sorted(two))


def test_game_over_refuses_moves():
    g = shangyou.new_game("zheng-shangyou/owen", players=2, seed=5)
    play_out(g, [make_bot("random", 1), make_bot("random", 2)])
    with pytest.raises(IllegalMove, match="over"):
        g.apply("pass")


def test_view_has_only_own_hand():
    g = shangyou.new_game("zheng-shangyou/pagat", players=5, seed=8)
    for s in range(5):
        v = g.view(s)
        assert v["hand"] == [str(c) for c in g.hand(s)]
        assert v["counts"] == [len(g.hand(x)) for x in range(5)]
        assert "seed" not in json.dumps(v) and "undealt" not in v
        assert ("legal_moves" in v) == (s == g.to_act)
    with pytest.raises(ValueError):
        g.view(5)


def test_replay_rebuilds_an_equal_game_and_rejects_bad_logs():
    g = shangyou.new_match("zheng-shangyou/pagat", players=4, seed=21)
    play_out(g, [make_bot("greedy", i) for i in range(4)])
    log = json.loads(json.dumps(g.log))
    assert shangyou.replay(log) == g
    assert shangyou.replay(json.dumps(log)) == g
    bad = dict(log, moves=[[(log["moves"][0][0] + 1) % 4, log["moves"][0][1]]])
    with pytest.raises(ValueError):
        shangyou.replay(bad)
    with pytest.raises(ValueError):
        shangyou.replay({"moves": []})


def test_clone_is_independent():
    g = shangyou.new_game("zheng-shangyou/pagat", players=5, seed=2)
    c = g.clone()
    c.apply(c.legal_moves()[0])
    assert c != g and g.moves == []


@pytest.mark.parametrize("name", shangyou.preset_names())
def test_clone_equals_deepcopy_and_shares_nothing_that_moves(name):
    """``clone()`` copies only what a move can change (``CLONE_*``): from random positions of
    whole matches (exchanges, bids, kitty, hands ending), a clone and a deep copy played on
    with the same random moves stay equal (state, views, legal moves, log) to the end, and
    neither the original nor a second clone moves with them."""
    rng = random.Random(name)
    players = shangyou.preset_info(name)["defaults"]["players"]
    for seed in range(3):
        g = shangyou.new_match(name, players=players, seed=seed)
        for _ in range(rng.randrange(0, 400)):
            if g.over:
                break
            g.apply(rng.choice(g.legal_moves()))
        g.legal_moves()                      # cloned with its listing (token) in place
        before = copy.deepcopy(g)
        c, d, other = g.clone(), copy.deepcopy(g), g.clone()
        assert type(c) is type(g) and c == d and c.log == d.log
        steps = 0
        while not c.over and steps < 300:
            moves = c.legal_moves()
            assert [str(m) for m in moves] == [str(m) for m in d.legal_moves()]
            i = rng.randrange(len(moves))
            c.apply(moves[i])
            d.apply(d.legal_moves()[i])
            seat = rng.randrange(players)
            assert c == d and c.view(seat) == d.view(seat), (name, seed, steps)
            steps += 1
        assert c.log == d.log and c.result == d.result
        assert g == before and g.log == before.log and g.view(0) == before.view(0)
        assert other == before and other.log == before.log
        if not g.over:                       # the original's listed moves still apply to it
            g.apply(g.legal_moves()[0])
            assert other == before


# --- leaders and dealers ---------------------------------------------------------------------
def test_pagat_dealer_leads_and_third_out_deals_next():
    g = shangyou.new_match("zheng-shangyou/pagat", players=5, seed=4)
    assert g.to_act == g.dealer
    bots = [make_bot("random", i) for i in range(5)]
    while g.hand_number == 1:
        g.apply(bots[g.to_act].choose(g.view(g.to_act)))
    assert g.dealer == g.history[0]["order"][2]
    while g.phase == "exchange":
        g.apply(bots[g.to_act].choose(g.view(g.to_act)))
    assert g.to_act == g.dealer


def test_winner_first_lead_is_three_of_diamonds_then_previous_winner():
    g = shangyou.new_match("zheng-shangyou/winner", players=4, seed=6)
    assert parse("3D")[0] in g.hand(g.to_act)
    bots = [make_bot("greedy", i) for i in range(4)]
    while g.hand_number == 1:
        g.apply(bots[g.to_act].choose(g.view(g.to_act)))
    order = g.history[0]["order"]
    assert g.dealer == order[-1]
    assert g.phase == "exchange" and g.to_act == order[-1]  # the loser gives first
    while g.phase == "exchange":
        g.apply(bots[g.to_act].choose(g.view(g.to_act)))
    assert g.to_act == order[0]


def test_winner_three_players_dealer_gets_the_extra_card():
    g = shangyou.new_game("zheng-shangyou/winner", players=3, seed=1)
    counts = [len(g.hand(s)) for s in range(3)]
    assert counts[g.dealer] == 18 and sorted(counts) == [17, 17, 18]


@pytest.mark.parametrize("players,cards", [(2, 26), (3, 18), (4, 13), (6, 9)])
def test_owen_deal_sizes_and_three_of_spades_leads(players, cards):
    for seed in range(5):
        g = shangyou.new_game("zheng-shangyou/owen", players=players, seed=seed)
        assert all(len(g.hand(s)) == cards for s in range(players))
        assert len(g.undealt) == 54 - players * cards
        holder = [s for s in range(players) if parse("3S")[0] in g.hand(s)]
        if holder:
            assert g.to_act == holder[0]
        else:
            low = min(c for s in range(players) for c in g.hand(s))
            assert low in g.hand(g.to_act)


def test_six_player_teams_first_lead_by_drawn_card_then_fifth_leads():
    g = shangyou.new_match("zheng-shangyou/pagat-teams", players=6, seed=9)
    drawn = [e for e in g.events if e["event"] == "drawn card"][0]["card"]
    assert parse(drawn)[0] in g.hand(g.to_act)
    bots = [make_bot("random", i) for i in range(6)]
    while g.hand_number == 1:
        g.apply(bots[g.to_act].choose(g.view(g.to_act)))
    fifth = g.history[0]["order"][4]
    while g.phase == "exchange":
        g.apply(bots[g.to_act].choose(g.view(g.to_act)))
    assert g.to_act == fifth


# --- the pits exchange -----------------------------------------------------------------------
@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_pits_exchange_steps(players):
    g = shangyou.new_match("zheng-shangyou/pagat", players=players, seed=12)
    bots = [make_bot("random", i) for i in range(players)]
    while g.hand_number == 1:
        g.apply(bots[g.to_act].choose(g.view(g.to_act)))
    order = g.history[0]["order"]
    sizes = [len(g.hand(s)) for s in range(players)]
    first, second, last, ntl = order[0], order[1], order[-1], order[-2]
    givers = [last] if players == 3 else [last, ntl]
    takers = [first] if players == 3 else [first, second]
    rank = g.rules.family.card_strength
    for giver in givers:                     # each shows a highest card
        assert g.to_act == giver
        moves = g.legal_moves()
        top = max(rank(c) for c in g.hand(giver))
        assert all(m.kind == "give" and rank(m.cards[0]) == top for m in moves)
        g.apply(moves[-1])
    shown = [parse(c)[0] for c in g.view(first)["exchange"]["shown"]]
    assert g.to_act == first and {m.cards[0] for m in g.legal_moves()} == set(shown)
    g.apply(g.legal_moves()[0])              # first takes one; second gets the other
    for taker in takers:                     # both discard any card
        assert g.to_act == taker
        assert {m.kind for m in g.legal_moves()} == {"discard"}
        g.apply(g.legal_moves()[0])
    assert g.to_act == givers[-1]            # next-to-last chooses among the discards
    g.apply(g.legal_moves()[-1])
    assert g.phase == "play"
    assert [len(g.hand(s)) for s in range(players)] == sizes
    ev = [e["event"] for e in g.events]
    assert ev.count("show") >= len(givers) and ev.count("discard") >= len(takers)


def test_offer_exchange_winner():
    g = shangyou.new_match("zheng-shangyou/winner", players=4, seed=3)
    bots = [make_bot("random", i) for i in range(4)]
    while g.hand_number == 1:
        g.apply(bots[g.to_act].choose(g.view(g.to_act)))
    order = g.history[0]["order"]
    loser, winner = order[-1], order[0]
    highest = max(g.hand(loser))
    assert [str(m) for m in g.legal_moves()] == [f"give {highest}"]
    g.apply(f"give {str(highest).lower()}")
    assert highest in g.hand(winner) and g.to_act == winner
    offer = g.legal_moves()[0]
    assert offer.kind == "offer" and len(offer.cards) == 2
    g.apply(offer)
    assert g.to_act == loser
    assert [c for c in g.view(loser)["exchange"]["offered"]] == [str(c) for c in offer.cards]
    g.apply(f"take {offer.cards[1]}")
    assert offer.cards[1] in g.hand(loser) and g.phase == "play"


# --- scoring ---------------------------------------------------------------------------------
def test_winner_scoring_seed_example():
    rb = build("zheng-shangyou/winner", {"players": 4})
    # North (0) won; East, West, South had 3, 11 and 8 cards left (seed 001's example)
    pts, _ = score_hand(rb, [0, 1, 2, 3], [0, 3, 11, 8], [13, 13, 13, 13])
    assert pts == [33, -3, -22, -8]
    # a player who played no card pays triple
    pts, _ = score_hand(rb, [0, 1, 2, 3], [0, 13, 2, 1], [13, 13, 13, 13])
    assert pts == [39 + 3, -39, -2, -1]


def test_winner_three_player_multipliers():
    rb = build("zheng-shangyou/winner", {"players": 3})
    pts, _ = score_hand(rb, [0, 1, 2], [0, 11, 12], [18, 17, 17])
    assert pts == [11 + 24, -11, -24]
    pts, _ = score_hand(rb, [0, 1, 2], [0, 16, 17], [18, 17, 17])
    assert pts == [32 + 51, -32, -51]


@pytest.mark.parametrize("order,expect", [
    ([0, 1, 2, 3, 4, 5], [3 + 2, 2]),      # A 1st, B 2nd, last is B's: A +2 for not last
    ([0, 2, 4, 1, 3, 5], [10, 0]),         # team A takes 1-2-3
    ([0, 2, 1, 4, 3, 5], [5, 0]),          # A: 1-2, third member 4th
    ([0, 2, 1, 3, 5, 4], [5, 2]),          # A: 1-2, third member last: B +2
    ([1, 2, 3, 5, 0, 4], [2, 3 + 2]),      # seed: a team with 2nd, 3rd, 5th... see below
])
def test_six_player_team_scoring(order, expect):
    rb = build("zheng-shangyou/pagat-teams", {"players": 6})
    _, team = score_hand(rb, order, None, [9] * 6)
    assert team == expect


def test_six_player_seed_example_second_third_fifth():
    # a team placing 2nd, 3rd and 5th scores 4; the other (with 1st) scores 3
    rb = build("zheng-shangyou/pagat-teams", {"players": 6})
    _, team = score_hand(rb, [1, 0, 2, 3, 4, 5], None, [9] * 6)
    assert team == [4, 3]


def test_ties_play_another_hand_and_target_ends_match():
    g = shangyou.new_match("zheng-shangyou/pagat", players=4, seed=1, target=3)
    g.scores = [3, 3, 0, 1]
    assert g._match_winner() is None
    g.scores = [4, 3, 0, 1]
    assert g._match_winner() == 0
    g.scores = [2, 1, 0, 0]
    assert g._match_winner() is None


def test_single_hand_result():
    g = shangyou.new_game("zheng-shangyou/pagat-teams", players=4, seed=2)
    play_out(g, [make_bot("greedy", i) for i in range(4)])
    r = g.result
    assert r["winner"] == r["order"][0] and sum(r["points"]) == 3
    assert r["team_points"] == [r["points"][0] + r["points"][2], r["points"][1] + r["points"][3]]


# --- beats() properties ----------------------------------------------------------------------
PRESETS = ["zheng-shangyou/pagat", "zheng-shangyou/winner", "zheng-shangyou/owen"]


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(PRESETS), st.integers(0, 10**6))
def test_beats_is_never_both_ways_and_never_reflexive(name, seed):
    r = shangyou.rules(name)
    rng = random.Random(seed)
    pack = shangyou.cards.deck(1, jokers=name != "zheng-shangyou/winner")
    plays = []
    for _ in range(2):
        hand = tuple(sorted(rng.sample(pack, 13)))
        leads = r.family.leads(hand)
        plays += rng.sample(leads, min(6, len(leads)))
    for a in plays:
        ta = str(a)
        assert not r.beats(ta, ta) or len(r.combos(ta)) > 1
        assert not a.beats(a)
        for b in plays:
            assert not (a.beats(b) and b.beats(a))


# --- architecture ----------------------------------------------------------------------------
def test_rules_code_does_no_io_and_imports_only_downwards():
    forbidden = {"shangyou.bots", "shangyou.cli", "shangyou.server", "shangyou.env"}
    for path in list((SRC / "games").rglob("*.py")) + [SRC / "cards.py", SRC / "errors.py"]:
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                mod = node.module or ""
                assert not any(f"{f.split('.')[1]}" == mod.split(".")[0] for f in forbidden
                               if node.level >= 2), (path, mod)
                assert not mod.startswith(("shangyou.bots", "shangyou.cli")), (path, mod)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                assert node.func.id not in ("print", "open", "input"), (path, node.func.id)


def test_as_reading_and_ace_of_spades_are_told_apart():
    g = shangyou.new_game("zheng-shangyou/pagat", players=4, seed=3)
    g.hands[g.to_act] = sorted(parse("5H 6D BJ KS AS QS 3C"))
    g._legal = None
    c = g.clone()
    c.apply("5h 6d bj as 4-6")
    assert c.trick[-1][1].label == "4-6"
    c = g.clone()
    c.apply("5h 6d bj")
    assert c.trick[-1][1].label == "5-7"           # default: the highest reading
    c = g.clone()
    c.apply("ks as qs")                             # the ace of spades, not a reading
    assert c.trick[-1][1].label == "Q-A S"         # a single-suited sequence
    with pytest.raises(IllegalMove, match="cannot be read"):
        g.apply("5h 6d bj as 9-J")
    texts = {str(m) for m in g.legal_moves()}
    assert "5H 6D BJ" in texts and "5H 6D BJ as 4-6" in texts


def test_readings_that_look_like_cards():
    # "as" before a reading vs "as" the ace of spades, with an Owen reading ("aces")
    g = shangyou.new_game("zheng-shangyou/owen", players=2, seed=1)
    seat = g.to_act
    g.hands[seat] = sorted(parse("AH 2D 7C 7D 2H 2S"))
    g._legal = None
    c = g.clone()
    c.apply("ah 2d as aces")
    assert c.trick[-1][1].label == "aces" and c.trick[-1][1].cards == tuple(sorted(parse("AH 2D")))
    texts = [str(m) for m in g.legal_moves()]
    assert len(texts) == len(set(texts))
    for t in texts:                    # every listed text resolves to its own move
        r = g._resolve_play(t)
        assert str(r) == t or str(r).split(" as ")[0] == t.split(" as ")[0]


@pytest.mark.parametrize("name,players", [("zheng-shangyou/pagat", 5), ("zheng-fen", 4),
                                          ("sheng-ji", 4), ("sheng-ji/zhao-pengyou", 5)])
def test_public_view_holds_no_private_cards(name, players):
    g = shangyou.new_game(name, players=players, seed=3)
    for _ in range(60):
        if g.over:
            break
        v = g.public_view()
        assert v["seat"] is None
        assert not {"hand", "legal_moves", "pending", "buried"} & set(v)
        json.dumps(v)
        g.apply(g.legal_moves()[0])


# ------------------------------------------------------------------------ bounded memo tables

def test_a_full_memo_table_drops_only_its_oldest_entries():
    from shangyou.engine.memo import make_room
    table = {}
    for i in range(1000):
        make_room(table, 640)
        table[i] = i * i
    assert len(table) <= 640
    assert len(table) > 640 - 640 // 64          # never emptied at once
    assert 999 in table and table[999] == 999 * 999
    assert 0 not in table                          # the oldest went first
    kept = sorted(table)
    assert kept == list(range(kept[0], 1000))      # and only the oldest
    small = {}
    for i in range(5):
        make_room(small, 3)                        # a limit under 64 still drops one at a time
        small[i] = i
    assert list(small) == [2, 3, 4]


def test_a_memo_table_shared_by_threads_makes_room_without_errors():
    """Several threads fill one full table at once, switching as often as the interpreter
    can: one thread's drop of a key another has just dropped, or a change under its listing
    of the oldest keys, is no error (a KeyError here once failed a threaded core test)."""
    from helpers import in_threads

    from shangyou.engine.memo import make_room
    table: dict = {}

    def fill(t: int) -> None:
        for i in range(20_000):
            make_room(table, 640)
            table[(t, i)] = i

    in_threads(fill, [0, 1, 2, 3])      # (an error in any thread fails the test)
    assert len(table) <= 640 + 4          # each thread adds one after its room is made
    assert len(table) >= 640 - 4 * 10     # at most a sixty-fourth dropped by each at once


def test_the_readings_memo_stays_bounded_and_keeps_recent_entries(monkeypatch):
    from shangyou.games.climbing import family as fam_mod
    monkeypatch.setattr(fam_mod, "_READINGS_MAX", 50)
    monkeypatch.setattr(fam_mod, "_READINGS", {})
    g = shangyou.new_game("zheng-shangyou/pagat", players=4, seed=3)
    fam = g.rules.family
    hand = sorted(g.hands[0])
    singles = [(c,) for c in hand] + [(a, b) for a in hand for b in hand if a < b][:80]
    for cards in singles:
        fam.combos(cards)
    assert 45 <= len(fam_mod._READINGS) <= 50
    last = (fam.options_key(), tuple(sorted(singles[-1])))
    assert last in fam_mod._READINGS
