"""Zheng Fen rules (seed 004_226fd5f9fee0f853.txt and RULES.md), through r.combos, r.beats,
r.points; a brute-force cross-check of the move generator; the end of a hand and scoring."""

import itertools
import random
from collections import Counter

import pytest

import shangyou
from shangyou.bots import make_bot, play_out
from shangyou.cards import BJ_CODE, RJ_CODE, deck, parse
from shangyou.games.zheng_fen.family import ZhengFenFamily

R = shangyou.rules("zheng-fen")


def beats(a, b):
    return R.beats(a, b)


def kinds(cards):
    return [(c.kind, c.label) for c in R.combos(cards)]


# --- points ---------------------------------------------------------------------------------
def test_points_example_from_the_issue():
    assert R.points("5H 10S KD 3C") == 25


def test_a_pack_holds_100_points_and_jokers_score_nothing():
    assert R.points(deck(1)) == 100
    assert R.points("BJ RJ") == 0 and R.points("5S 5H 5D 5C") == 20


# --- A: singles ------------------------------------------------------------------------------
def test_singles_order_and_jokers_are_themselves():
    assert beats("AS", "2D") and beats("2D", "BJ") and beats("BJ", "RJ")
    assert not beats("7S", "7H")                  # no suit order: equal cards cannot beat
    assert kinds("BJ") == [("single", "BJ")]


# --- B, C, D: sets with jokers ---------------------------------------------------------------
def test_sets_and_jokers_equal_to_the_card_they_stand_for():
    assert kinds("8S 8H 8D") == [("triple", "eights")]
    assert kinds("8S BJ RJ") == [("triple", "eights")]
    assert not beats("8S 8H 8D", "8C BJ RJ") and not beats("8C BJ RJ", "8S 8H 8D")
    assert beats("8S BJ", "9S 9H") and beats("QS QH QD QC", "KS KH BJ RJ")


def test_two_jokers_alone_are_no_pair():
    assert kinds("BJ RJ") == []


def test_sets_compare_only_with_their_own_category():
    assert not beats("7S 7H", "8S 8H 8D")


# --- E, F, G: sequences of pairs, triples, quartets ------------------------------------------
def test_two_follows_ace_but_not_three():
    assert kinds("2S 2H 3S 3H 4S 4H") == []
    assert kinds("KS KH AS AH 2S 2H") == [("sequence of pairs", "K-2 pairs")]


def test_sequences_compare_by_top_then_length():
    assert beats("4S 4H 5S 5H 6S 6H", "5C 5D 6C 6D 7S 7H")              # higher top
    assert beats("5C 5D 6C 6D 7S 7H", "4S 4H 5S 5H 6S 6H 7C 7D")        # same top, longer
    assert not beats("4S 4H 5S 5H 6S 6H 7C 7D", "5C 5D 6C 6D 7S 7H")
    assert beats("3S 3H 4S 4H 5S 5H 6S 6H 7S 7H", "6C 6D 7C 7D 8S 8H")  # higher top, shorter


def test_sequences_of_triples_and_quartets():
    assert kinds("7S 7H 7D 8S 8H 8D 9S 9H 9D") == [("sequence of triples", "7-9 triples")]
    quartets = "3S 3H 3D 3C 4S 4H 4D 4C 5S 5H 5D BJ"
    assert kinds(quartets) == [("sequence of quartets", "3-5 quartets")]
    assert not beats(quartets, "7S 7H 7D 8S 8H 8D 9S 9H 9D")      # a different category


def test_jokers_fill_sequences():
    assert ("sequence of pairs", "5-7 pairs") in kinds("5S 5H 6S BJ 7S 7H")
    assert kinds("5S 5H BJ RJ 7S 7H") == [("sequence of pairs", "5-7 pairs")]


# --- H: full houses --------------------------------------------------------------------------
@pytest.mark.parametrize("cards", ["5S 5H 5D QS QH",     # triple + pair
                                   "7S 7H 7D AC 2C",     # + two neighbours of one suit
                                   "5S 5H 5D 3S 10H",    # + a three and any card
                                   "JS JH JD 5S KH"])    # + two counting cards
def test_the_four_full_houses(cards):
    assert kinds(cards) == [("full house", cards_rank_word(cards) + " full")]


def cards_rank_word(cards):
    from collections import Counter as C
    from shangyou.cards import RANK_WORDS
    r = C(c.rank for c in parse(cards)).most_common(1)[0][0]
    return RANK_WORDS[r]


@pytest.mark.parametrize("cards", ["7S 7H 7D AC 2D", "7S 7H 7D 9C QD", "7S 7H 7D 4C 6D"])
def test_not_full_houses(cards):
    assert kinds(cards) == []


def test_full_houses_rank_by_triple_only():
    assert beats("5S 5H 5D QS QH", "6S 6H 6D 3C 4D")
    assert not beats("9S 9H 9D AS AH", "9C BJ RJ 3C 6D")     # equal: 9-joker-joker-3-6
    assert not beats("9C BJ RJ 3C 6D", "9S 9H 9D AS AH")


# --- I: suit sequences -----------------------------------------------------------------------
def test_suit_sequences():
    assert kinds("JS QS KS AS 2S") == [("suit sequence", "J-2 in spades")]
    assert beats("7D 8D 9D 10D JD", "8H 9H 10H JH QH")
    assert beats("8H 9H 10H JH QH", "7C 8C 9C 10C JC QC")    # same top, longer
    assert not beats("8H 9H 10H JH QH", "9C 10C JC QC KS")   # not one suit: nothing


# --- J: specials -----------------------------------------------------------------------------
def test_specials_order_and_they_beat_everything():
    mixed, suited, twos = "5H 10S KD", "5C 10C KC", "2S 2H 2D 2C"
    assert beats(mixed, suited) and beats(suited, twos) and beats(mixed, twos)
    assert not beats(suited, mixed) and not beats(twos, suited)
    assert not beats(mixed, "5S 10D KH")                      # equal specials
    for big in ["RJ", "AS AH", "QS QH QD QC", "JS QS KS AS 2S", "9S 9H 9D AS AH",
                "KS KH AS AH 2S 2H"]:
        assert beats(big, mixed)
        assert not beats(mixed, big)


def test_jokers_never_in_specials():
    assert all(kind != "special" for kind, _ in kinds("5H 10S BJ"))
    assert kinds("2S 2H 2D BJ") == [("quartet", "twos")]
    assert kinds("2S 2H 2D 2C") == [("special", "four twos"), ("quartet", "twos")]


# --- brute force ----------------------------------------------------------------------------
def brute(cards: tuple) -> set:
    """Independent reading of exact cards: {(cls, key, label-free)}."""
    out = set()
    n = len(cards)
    nat = [c for c in cards if c < BJ_CODE]
    nj = n - len(nat)
    ranks = Counter(c >> 2 for c in nat)
    if n == 1:
        c = cards[0]
        return {(("single",), (13 if c == BJ_CODE else 14 if c == RJ_CODE else c >> 2,))}
    if nj == 0 and n == 3 and sorted(ranks) == [2, 7, 10]:
        out.add((("special",), (1 if len({c & 3 for c in nat}) == 1 else 0,)))
    if nj == 0 and n == 4 and ranks == {12: 4}:
        out.add((("special",), (2,)))
    if 2 <= n <= 4 and len(ranks) == 1:
        out.add(({2: ("pair",), 3: ("triple",), 4: ("quartet",)}[n], (next(iter(ranks)),)))
    for k in (2, 3, 4):
        if n % k or n // k < 3 or not nat:
            continue
        m = n // k
        for lo in range(0, 13 - m + 1):
            hi = lo + m - 1
            if all(lo <= r <= hi and ranks[r] <= k for r in ranks):
                out.add(({2: ("pairs",), 3: ("triples",), 4: ("quartets",)}[k], (hi, m)))
    if n >= 5 and nat and len({c & 3 for c in nat}) == 1 and len(ranks) == len(nat):
        for lo in range(0, 13 - n + 1):
            hi = lo + n - 1
            if all(lo <= r <= hi for r in ranks):
                out.add((("suit sequence",), (hi, n)))
    if n == 5:
        for tri in itertools.combinations(range(5), 3):
            t = [cards[i] for i in tri]
            rest = [cards[i] for i in range(5) if i not in tri]
            tn = {c >> 2 for c in t if c < BJ_CODE}
            if len(tn) != 1:
                continue
            a, b = rest
            if a >= BJ_CODE or b >= BJ_CODE:
                ok = True
            else:
                ra, rb = a >> 2, b >> 2
                ok = (ra == rb or 0 in (ra, rb) or ({ra, rb} <= {2, 7, 10})
                      or (abs(ra - rb) == 1 and a & 3 == b & 3))
            if ok:
                out.add((("full house",), (next(iter(tn)),)))
    return out


def test_leads_match_brute_force():
    fam = ZhengFenFamily()
    rng = random.Random(11)
    pack = deck(1)
    for trial in range(30):
        hand = tuple(sorted(rng.sample(pack, 9)))
        if trial % 2 == 0 and BJ_CODE not in hand:
            hand = tuple(sorted(hand[:8] + (BJ_CODE,)))
        listed = {(c.cls, c.key) for c in fam.leads(hand)}
        expect = set()
        for size in range(1, len(hand) + 1):
            for sub in itertools.combinations(hand, size):
                expect |= brute(sub)
        assert listed == expect, (parse(list(hand)), sorted(listed ^ expect)[:6])
        # every listed play reads back as itself
        for c in fam.leads(hand):
            assert (c.cls, c.key) in brute(c.cards), c


def test_every_distinct_play_is_listed_at_rank_level():
    """Each sub-multiset that forms a play appears, up to suits where suits do not matter."""
    fam = ZhengFenFamily()
    rng = random.Random(3)
    for _ in range(10):
        hand = tuple(sorted(rng.sample(deck(1), 8)))
        listed = {(c.cls, c.key, rank_sig(c.cards, c.cls)) for c in fam.leads(hand)}
        for size in range(1, 6):
            for sub in itertools.combinations(hand, size):
                for cls, key in brute(sub):
                    if cls == ("full house",):
                        continue      # suit-bound neighbours make rank signatures ambiguous
                    assert (cls, key, rank_sig(sub, cls)) in listed, (parse(list(sub)), cls)


def rank_sig(cards, cls):
    if cls in (("suit sequence",), ("special",)):
        return tuple(sorted(cards))
    return tuple(sorted(c if c >= BJ_CODE else c >> 2 for c in cards))


def test_follows_equal_filtered_leads():
    fam = ZhengFenFamily()
    rng = random.Random(4)
    for _ in range(50):
        hand = tuple(sorted(rng.sample(deck(1), 13)))
        other = tuple(sorted(rng.sample(deck(1), 13)))
        leads = fam.leads(other)
        for prev in rng.sample(leads, min(12, len(leads))):
            a = {(c.cards, c.label, c.key) for c in fam.follows(hand, prev)}
            b = {(c.cards, c.label, c.key) for c in fam.leads(hand) if c.beats(prev)}
            assert a == b, prev


# --- the game: leads, end of hand, scoring ----------------------------------------------------
def test_first_hand_three_of_hearts_leads_then_previous_first():
    g = shangyou.new_match("zheng-fen", players=4, seed=5)
    assert parse("3H")[0] in g.hand(g.to_act)
    bots = [make_bot("random", seed=s) for s in range(4)]
    while g.hand_number == 1:
        g.apply(bots[g.to_act].choose(g.view(g.to_act)))
    first = g.history[0]["order"][0]
    assert g.to_act == first and g.dealer == first     # leads and takes the first card


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_all_cards_dealt(players):
    g = shangyou.new_game("zheng-fen", players=players, seed=1)
    sizes = sorted(len(g.hand(s)) for s in range(players))
    assert sum(sizes) == 54 and sizes[-1] - sizes[0] <= 1


def test_last_trick_is_finished_and_last_players_cards_go_to_first():
    g = shangyou.new_game("zheng-fen", players=3, seed=2)
    # a hand-made ending: seat 0 is out first; seats 1 and 2 hold a card each
    g.hands = [[], sorted(parse("9S KH")), sorted(parse("10D"))]
    g.order = [0]
    g.won = [sorted(parse("5S 5H")), [], sorted(parse("KS"))]
    g.tricks, g.trick, g.last, g.last_seat, g.passes = [], [], None, None, 0
    g.to_act = 2
    g._legal = None
    g.apply("10D")             # seat 2 goes out: only seat 1 holds cards
    assert not g.over and g.to_act == 1
    assert {str(m) for m in g.legal_moves()} == {"pass", "KH"}
    g.apply("KH")              # the last player may still beat it; the trick is then complete
    assert g.over
    assert g.result["order"] == [0, 2, 1]
    # seat 1 won the last trick (10D KH = 20) but is last: those 20 and its 9S go to seat 0
    assert g.result["points"] == [10 + 20, 0, 10]
    assert sum(g.result["points"]) == 10 + 20 + 10


def test_last_player_passing_ends_the_hand():
    g = shangyou.new_game("zheng-fen", players=3, seed=2)
    g.hands = [[], sorted(parse("9S 3H")), sorted(parse("10D"))]
    g.order = [0]
    g.won = [[], [], []]
    g.tricks, g.trick, g.last, g.last_seat, g.passes = [], [], None, None, 0
    g.to_act = 2
    g._legal = None
    g.apply("10D")
    g.apply("pass")
    assert g.over and g.result["points"] == [0, 0, 10]


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_every_hand_scores_100(players):
    g = shangyou.new_match("zheng-fen", players=players, seed=players)
    play_out(g, [make_bot("greedy" if s % 2 else "random", seed=s) for s in range(players)])
    for h in g.history:
        assert sum(h["points"]) == 100
        assert h["points"][h["order"][-1]] == 0
    assert max(g.scores) >= 500 and g.scores.count(max(g.scores)) == 1
    assert g.result["winner"] == g.scores.index(max(g.scores))


def test_target_option():
    assert shangyou.new_match("zheng-fen", players=4, seed=1, target=1000).rules.target == 1000
    with pytest.raises(ValueError):
        shangyou.new_match("zheng-fen", players=7)
    with pytest.raises(ValueError):
        shangyou.new_match("zheng-fen", players=4, decks=2)
