"""Sheng ji: follow obligations, throws, bidding, kitty, friends, scoring, and random playouts.

Rule sources: seed 003_0367b52b0c4da365.txt and RULES.md; decisions in docs/rules/sheng-ji.md.
"""

import copy
import json
import random
from collections import Counter

import pytest

import shangyou
from shangyou import IllegalMove
from shangyou.cards import BJ_CODE, RJ_CODE, deck, parse
from shangyou.games.sheng_ji.follow import check_follow, legal_follows
from shangyou.games.sheng_ji import core
from shangyou.games.sheng_ji.game import ShengJiGame
from shangyou.games.sheng_ji.order import Trump, decompose
from shangyou.games.sheng_ji.scoring import points

T7C = Trump.parse("7C")


def follows(hand, lead, trump=T7C):
    lead = tuple(sorted(parse(lead)))
    return {tuple(sorted(p)) for p in legal_follows(trump, tuple(parse(hand)), lead,
                                                       decompose(trump, lead))}


def ok(hand, lead, play, trump=T7C):
    lead = tuple(sorted(parse(lead)))
    return check_follow(trump, tuple(parse(hand)), lead, decompose(trump, lead),
                        tuple(parse(play))) is None


def P(text):
    return tuple(sorted(parse(text)))


# --- follow obligations ----------------------------------------------------------------------
def test_pair_led_must_follow_with_a_pair_when_held():
    hand = "9H 9H 4H KH 3S"
    assert follows(hand, "5H 5H") == {P("9H 9H")}
    assert not ok(hand, "5H 5H", "9H 4H")


def test_pair_inside_a_tractor_must_be_played_for_a_pair_lead():
    hand = "9H 9H 8H 8H 4H"
    assert follows(hand, "JH JH") == {P("9H 9H"), P("8H 8H")}


def test_pair_led_without_pairs_any_two_of_the_suit():
    hand = "9H 8H 4H 3S 3S"
    assert follows(hand, "5H 5H") == {P("9H 8H"), P("9H 4H"), P("8H 4H")}


def test_tractor_led_tractor_held_must_be_played():
    hand = "9H 9H 8H 8H 4H 4H 3H"
    assert follows(hand, "JH JH 10H 10H") == {P("9H 9H 8H 8H")}


def test_tractor_led_only_pairs_held_must_play_pairs():
    hand = "9H 9H 5H 5H 3H 2S"
    assert follows(hand, "JH JH 10H 10H") == {P("9H 9H 5H 5H")}
    hand = "9H 9H 5H 3H 4S"          # one pair: that pair and any other heart
    assert follows(hand, "JH JH 10H 10H") == {P("9H 9H 5H 3H")}


def test_tractor_led_nothing_held_any_cards_of_the_suit():
    hand = "9H 6H 5H 3H 4S"
    assert follows(hand, "JH JH 10H 10H") == {P("9H 6H 5H 3H")}
    hand = "KH 9H 6H 5H 3H"
    assert len(follows(hand, "JH JH 10H 10H")) == 5        # any 4 of the 5 hearts


def test_short_of_the_suit_plays_all_of_it_then_anything():
    hand = "9H 3S 4S 4D"
    got = follows(hand, "JH JH")
    assert got == {P("9H 3S"), P("9H 4S"), P("9H 4D")}
    assert not ok(hand, "JH JH", "3S 4S")


def test_void_plays_anything():
    hand = "3S 4S 4D"
    assert follows(hand, "JH") == {P("3S"), P("4S"), P("4D")}


def test_trumps_are_one_suit_when_following():
    # level 7, clubs trump: 7H and BJ are trumps; a trump lead must be followed with trumps
    hand = "7H BJ 3C AS AS"
    assert follows(hand, "2C") == {P("7H"), P("BJ"), P("3C")}
    assert not ok(hand, "2C", "AS")


def test_wrong_card_count_refused():
    assert not ok("9H 9H 8H", "5H 5H", "9H")


# --- throws through the game -----------------------------------------------------------------
def rigged(seed=1, **opts):
    """A 4-player game in the play phase with hands we choose (trump 7C, seat 0 to lead)."""
    g = shangyou.new_game("sheng-ji", seed=seed, **opts)
    while g.phase != "play":
        g.apply(g.legal_moves()[0])
    g.trump = T7C
    g.declarer = 0
    g.to_act = 0
    g.trick = []
    g.won = [[] for _ in range(4)]
    g._legal = None
    return g


def test_throw_fails_when_a_partner_holds_a_higher_unit():
    g = rigged()
    g.hands = [list(P("KH QH 3S")), list(P("4S 5S 6S")), list(P("AH 8S 9S")),
               list(P("10S JS QS"))]
    g.apply("KH QH")                 # the partner (seat 2) holds AH: the throw fails
    assert g.trick[0] == (0, P("QH"))  # both singles can be beaten (by AH): the smaller, QH
    assert any(e["event"] == "failed throw" for e in g.events)


def test_throw_fails_when_an_opponent_holds_a_higher_pair():
    g = rigged()
    g.hands = [list(P("AH KH KH 3S")), list(P("QH QH AH 5S")), list(P("4S 8S 9S 9D")),
               list(P("10S JS QS 6D"))]
    g.apply("AH KH KH")              # seat 1 holds AH: no single beats AH... but QQ < KK
    assert g.trick[0] == (0, P("AH KH KH"))
    g2 = rigged()
    g2.hands = [list(P("AH QH QH 3S")), list(P("KH KH 4H 5S")), list(P("4S 8S 9S 9D")),
                list(P("10S JS QS 6D"))]
    g2.apply("AH QH QH")             # seat 1 (an opponent) holds KH KH over QH QH
    assert g2.trick[0] == (0, P("QH QH"))


def test_throw_that_nobody_can_beat_stands():
    g = rigged()
    g.hands = [list(P("AH KH 3S")), list(P("4S 5S 6S")), list(P("QH 8S 9S")),
               list(P("10S JS QS"))]
    g.apply("AH KH")
    assert g.trick[0] == (0, P("AH KH"))


def test_throw_penalty_option():
    g = rigged(throw_penalty=10)
    g.hands = [list(P("KH QH 3S")), list(P("4S 5S 6S")), list(P("AH 8S 9S")),
               list(P("10S JS QS"))]
    g.apply("KH QH")
    assert g.penalty_points == 10     # the declarer's throw failed: 10 to the opponents


def test_a_lead_must_be_one_suit():
    g = rigged()
    g.hands[0] = list(P("KH QS 3S"))
    snap = g.snapshot()
    with pytest.raises(IllegalMove, match="one suit"):
        g.apply("KH QS")
    assert g.snapshot() == snap


def test_no_passing_and_not_held():
    g = rigged()
    with pytest.raises(IllegalMove):
        g.apply("pass")
    missing = [c for c in deck(1) if c not in g.hands[0]]
    with pytest.raises(IllegalMove, match="does not hold"):
        g.apply(str(parse([missing[0]])))


# --- bidding ---------------------------------------------------------------------------------
def test_bids_overcall_and_reinforce():
    g = shangyou.new_game("sheng-ji", seed=3)
    seat = 1
    g.hands[seat] = list(P("2H 2H 2S BJ BJ"))
    g.bid = None
    bids = {(c, k) for c, k in g._bids_for(seat)}
    assert (parse("2H")[0], 1) in bids and (parse("2H")[0], 2) in bids
    assert (BJ_CODE, 2) in bids and (BJ_CODE, 1) not in bids
    g.bid = {"seat": 0, "card": parse("2S")[0], "count": 1}
    bids = set(g._bids_for(seat))
    assert (parse("2H")[0], 1) not in bids      # a single does not overcall a single
    assert (parse("2H")[0], 2) in bids and (BJ_CODE, 2) in bids
    g.bid = {"seat": seat, "card": parse("2S")[0], "count": 1}
    assert set(g._bids_for(seat)) == set()      # the winner may only reinforce 2S (one held)
    g.hands[seat].append(parse("2S")[0])
    assert set(g._bids_for(seat)) == {(parse("2S")[0], 2)}
    g.bid = {"seat": 0, "card": BJ_CODE, "count": 2}
    g.hands[seat] += [RJ_CODE, RJ_CODE]
    assert set(g._bids_for(seat)) == {(RJ_CODE, 2)}   # RJ pair beats BJ pair


def play_hand(g, rng):
    while not g.over:
        hn = g.hand_number
        g.apply(rng.choice(g.legal_moves()))
        if g.hand_number != hn:
            return


def test_deal_kitty_and_bury():
    g = shangyou.new_game("sheng-ji", seed=5)
    rng = random.Random(5)
    while g.phase == "deal":
        g.apply(rng.choice(g.legal_moves()))
    assert g.phase == "bury" and g.to_act == g.declarer
    assert len(g.hands[g.declarer]) == 33 and all(len(g.hands[s]) == 25
                                                  for s in range(4) if s != g.declarer)
    for _ in range(8):
        assert all(m.kind == "bury" for m in g.legal_moves())
        g.apply(g.legal_moves()[0])
    assert g.phase == "play" and len(g.kitty) == 8 and len(g.hands[g.declarer]) == 25


def test_no_bid_trump_from_kitty_or_no_trump():
    for policy in ("kitty-card", "no-trump"):
        g = shangyou.new_game("sheng-ji", seed=2, no_bid=policy)
        while g.phase == "deal":
            g.apply("pass")
        assert g.bid is None
        assert (g.trump.suit is None) == (policy == "no-trump") or policy == "kitty-card"
        assert g.declarer == g.starter


# --- scoring through whole hands ---------------------------------------------------------------
@pytest.mark.parametrize("name,players", [("sheng-ji", 4), ("sheng-ji/single-deck", 4),
                                          ("sheng-ji/zhao-pengyou", 5),
                                          ("sheng-ji/zhao-pengyou", 6),
                                          ("sheng-ji/zhao-pengyou", 7)])
def test_random_hands_account_for_every_point(name, players, playouts):
    for seed in range(max(6, playouts // 10)):
        g = shangyou.new_game(name, players=players, seed=seed)
        full = Counter(deck(g.rules.decks))
        rng = random.Random(seed)
        while not g.over:
            seen = Counter()
            for h in g.hands:
                seen.update(h)
            seen.update(g.stock)
            seen.update(g.kitty)
            seen.update(g.buried if g.phase == "bury" else [])
            for w in g.won:
                seen.update(w)
            for _, cs in g.trick:
                seen.update(cs)
            assert seen == full, "cards not conserved"
            moves = g.legal_moves()
            texts = [str(m) for m in moves]
            assert moves and len(set(texts)) == len(texts)
            if g.phase == "play" and g.trick and moves[0].kind == "play":
                lead = g.trick[0][1]
                for m in moves:     # every listed follow obeys the obligations
                    assert check_follow(g.trump, g.hands[g.to_act], lead, g.lead_units,
                                        m.cards) is None
            g.apply(rng.choice(moves))
        last = g.result["last"]
        total_won = sum(points(w) for w in g.won)
        assert total_won + points(g.kitty) == 100 * g.rules.decks
        opp = sum(points(g.won[s]) for s in last["opponents"])
        assert last["points"] == opp
        assert last["total"] == opp + last["kitty_bonus"] + last["penalty"]
        assert shangyou.replay(json.loads(json.dumps(g.log))) == g


def test_zhao_pengyou_friend_joins_when_the_called_card_is_played():
    g = shangyou.new_game("sheng-ji/zhao-pengyou", players=5, seed=4)
    rng = random.Random(1)
    while g.phase != "call":
        g.apply(rng.choice(g.legal_moves()))
    assert g.to_act == g.declarer
    moves = [str(m) for m in g.legal_moves()]
    assert all(m.startswith("call ") for m in moves)
    # call the first copy of a card the declarer does not hold
    target = next(m for m in moves if m.endswith(" 1") is False and
                  parse(m.split()[2])[0] not in g.hands[g.declarer] and m.split()[1] == "1")
    g.apply(target)
    card = parse(target.split()[2])[0]
    assert g.phase == "play" and g.calls == [(1, card)]
    while not g.over and not g.friends:
        g.apply(rng.choice(g.legal_moves()))
    if g.friends:
        friend = g.friends[0]
        assert friend != g.declarer and g.team_of(friend) == "declarers"


def test_level_table_through_a_hand_summary():
    g = shangyou.new_match("sheng-ji", seed=9)
    rng = random.Random(9)
    play_hand(g, rng)
    h = g.history[0]
    decl = h["declarers"]
    change = h["change"]
    before, after = h["levels_before"], h["levels"]
    side = decl if change["side"] == "declarers" else h["opponents"]
    order = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
    for s in side:
        assert order.index(after[s]) == min(12, order.index(before[s]) + change["levels"])
    # next declarer: the partner if the declarers held, else the next seat
    expect = (h["declarer"] + (2 if change["side"] == "declarers" else 1)) % 4
    assert g.declarer == expect


def test_match_ends_when_declarers_win_at_ace():
    g = shangyou.new_match("sheng-ji", seed=11, start_level="A")
    rng = random.Random(2)
    while not g.over:
        g.apply(rng.choice(g.legal_moves()))
    last = g.history[-1]
    assert last["change"]["side"] == "declarers" and last["levels_before"][last["declarer"]] == "A"
    assert g.result["match_winners"] == sorted(last["declarers"])


def test_views_do_not_depend_on_hidden_cards():
    """Shuffling the other hands, the stock and the kitty leaves every seat's view unchanged."""
    g = shangyou.new_game("sheng-ji", seed=6)
    rng = random.Random(6)
    steps = 0
    while not g.over and steps < 400:
        steps += 1
        if steps % 7 == 0:
            for seat in range(4):
                before = g.view(seat)
                saved = ([list(h) for h in g.hands], list(g.stock), list(g.kitty))
                # the player who buried the kitty knows it for the rest of the hand
                hidden_kitty = not (g.phase in ("bury", "call", "play")
                                    and seat == g.kitty_owner)
                others = [s for s in range(4) if s != seat]
                pool = [c for s in others for c in g.hands[s]] + g.stock
                pool += g.kitty if hidden_kitty else []
                rng.shuffle(pool)
                i = 0
                for s in others:
                    k = len(g.hands[s])
                    g.hands[s] = pool[i:i + k]
                    i += k
                g.stock = pool[i:i + len(g.stock)]
                i += len(g.stock)
                if hidden_kitty:
                    g.kitty = pool[i:]
                g._legal = None
                after = g.view(seat)
                g.hands, g.stock, g.kitty = saved
                g._legal = None
                assert before == after, (seat, g.phase)
        g.apply(rng.choice(g.legal_moves()))


def test_presets_and_options():
    assert shangyou.new_game("tractor", seed=1).rules.name == "sheng-ji"
    g = shangyou.new_game("sheng-ji/single-deck", seed=1)
    assert g.rules.decks == 1 and g.rules.kitty == 6
    for name, n, kitty in [("sheng-ji/zhao-pengyou", 5, 8), ("sheng-ji/zhao-pengyou", 6, 6),
                           ("sheng-ji/zhao-pengyou", 7, 8)]:
        g = shangyou.new_game(name, players=n, seed=1)
        assert g.rules.kitty == kitty and (54 * g.rules.decks - kitty) % n == 0
    with pytest.raises(ValueError):
        shangyou.new_game("sheng-ji", kitty_multiplier="cubic")
    with pytest.raises(ValueError):
        shangyou.new_game("sheng-ji", players=5)
    with pytest.raises(ValueError):
        shangyou.new_game("sheng-ji", must_play_ranks=["Z"])


def test_red_five_option_makes_the_five_of_hearts_the_top_trump():
    plain = shangyou.rules("sheng-ji")
    red = shangyou.rules("sheng-ji", red_five=True)
    assert plain.trick_winner(["RJ", "5H"], trump="7C") == 0
    assert red.trick_winner(["RJ", "5H"], trump="7C") == 1
    assert red.trick_winner(["AH", "5H"], trump="7C") == 1         # a trump now, not a heart
    assert red.is_tractor("5H 5H RJ RJ", trump="7C")
    assert red.points("5H") == 5


def test_kitty_theft_lets_a_stronger_bid_take_the_kitty():
    g = shangyou.new_game("sheng-ji", seed=7, kitty_theft=True)
    while g.phase == "deal":
        g.apply("pass")
    decl = g.declarer
    for _ in range(8):
        g.apply(g.legal_moves()[0])
    assert g.phase == "bury" and g.to_act != decl, "seed 7: another player can overcall"
    thief = g.to_act
    bid = next(m for m in g.legal_moves() if m.kind == "bid")
    g.apply(bid)
    assert g.to_act == thief and len(g.hands[thief]) == 25 + 8 and g.phase == "bury"
    assert g.declarer == decl                       # the declarer does not change
    assert str(g.trump)[-1] == str(bid).split()[1][-1] or g.trump.suit is None


def test_redeal_policy_deals_again():
    g = shangyou.new_game("sheng-ji", seed=2, no_bid="redeal")
    while g.phase == "deal" and g.bid is None and not any(e["event"] == "redeal"
                                                          for e in g.events):
        g.apply("pass")
    assert any(e["event"] == "redeal" for e in g.events)
    assert g.hand_number == 1


@pytest.mark.parametrize("core_on", [True, False])
@pytest.mark.parametrize("name,options", [("sheng-ji", {}), ("sheng-ji/zhao-pengyou", {}),
                                          ("sheng-ji", {"kitty_theft": True})])
def test_clone_in_every_phase_keeps_the_slots_apart(name, options, core_on):
    """The deal's record and the levels are slots (``ShengJiGame.__slots__``), which a clone
    copies while dealing and burying and shares afterwards, and a clone holds the hands, the
    cards won, the log and the events packed until asked for: clones made in every phase of
    a match (and clones of them) equal the original, and each, played on to the match's end
    with its own random moves, leaves the original, every slot included, as a deep copy of
    it, and a clone and a deep copy played alike end alike, slot for slot. With the compiled
    core (which unpacks a clone before it reads it) and without."""
    prev = core.use(core_on)
    try:
        _clones_in_every_phase(name, options)
    finally:
        core.use(prev)


def _clones_in_every_phase(name, options):
    rng = random.Random(7)
    # (a views' memo; the hand held in C)
    slots = [k for k in ShengJiGame.__slots__ if k not in ("_tricks_cache", "_st")]
    g = shangyou.new_match(name, players=4 if name == "sheng-ji" else 5, seed=3, **options)
    phases = Counter()
    for _ in range(700):
        if g.over:
            break
        if phases[g.phase] < 3 and rng.random() < 0.2:
            phases[g.phase] += 1
            before = copy.deepcopy(g)
            c, d = g.clone(), copy.deepcopy(g)
            assert "_lazy" in c.__dict__ and "hands" not in c.__dict__   # packed until asked
            cc = c.clone()                   # a clone of a clone not yet asked: shares it
            assert cc.__dict__["_lazy"] is c.__dict__["_lazy"]
            for k in slots:
                assert getattr(c, k, None) == getattr(g, k, None), k
            assert c.hands == g.hands and c.won == g.won and c.moves == g.moves
            assert c.events == g.events and c.seen_counts == g.seen_counts
            assert "_lazy" not in c.__dict__ and cc == g and cc.log == g.log
            steps = 0
            while not c.over and steps < 400:
                i = rng.randrange(len(c.legal_moves()))
                c.apply(c.legal_moves()[i])
                d.apply(d.legal_moves()[i])
                steps += 1
            assert c == d and c.log == d.log
            for k in slots:
                assert getattr(c, k, None) == getattr(d, k, None), k
                assert getattr(g, k, None) == getattr(before, k, None), k
            assert g == before and g.view(g.to_act or 0) == before.view(g.to_act or 0)
        g.apply(rng.choice(g.legal_moves()))
    assert {"deal", "bury", "play"} <= set(phases), phases
