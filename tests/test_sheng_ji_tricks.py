"""Sheng ji tricks and scoring (seed 003_0367b52b0c4da365.txt; RULES.md, Sheng ji section):
the seed's tractor table (7C), its throw-example table, its kitty-multiplier and level tables,
and random property checks of the trick winner.

The seed's text lost the suit symbols of the red suits; where a row names no suit, a red suit
is chosen here (hearts, or diamonds where hearts is already led).
"""

import random
from collections import Counter

import pytest

from shangyou.cards import deck, parse
from shangyou.games.sheng_ji.order import LEVEL_RANK, TRUMP, Trump, Unit, decompose
from shangyou.games.sheng_ji.scoring import (LEVEL_ORDER, level_change, level_name,
                                              next_level, points)
from shangyou.games.sheng_ji.tricks import (is_throw, is_tractor, kitty_multiplier,
                                             lead_suit, match_format, primary_top,
                                             throw_check, trick_winner)

T7C = Trump.parse("7C")


def cs(text):
    return list(parse(text))


def winner(trump, *plays):
    return trick_winner(trump, [cs(p) for p in plays])


# --- the seed's tractor table, dominant 7C ---------------------------------------------------
TRACTOR_TABLE = [
    ("5H 5H 4H 4H", True),                       # plain two-pair tractor
    ("JS JS 10S 10S 9S 9S 8S 8S", True),         # four-pair tractor in a plain suit
    ("5C 5C 4C 4C 3C 3C", True),                 # three pairs in the trump suit
    ("8H 8H 6H 6H", True),                       # the level rank 7 is skipped
    ("7C 7C 7H 7H AC AC", True),                 # AC < off-suit 7 < 7C in trumps
    ("RJ RJ BJ BJ 7C 7C", True),                 # the highest three-pair tractor
    ("10D 10D 8D 8D", False),                    # 9 lies between
    ("9S 9S 8H 8H", False),                      # different suits
    ("7H 7H 6H 6H", False),                      # the 7s are trumps
    ("7C 7C 6C 6C", False),                      # 7C sits above AC, not next to 6C
    ("7S 7S 7H 7H", False),                      # off-suit level cards are equal
    ("2C 2C AS AS", False),                      # trumps with non-trumps
]


@pytest.mark.parametrize("cards,expected", TRACTOR_TABLE)
def test_tractor_table_7c(cards, expected):
    assert is_tractor(T7C, cs(cards)) is expected


@pytest.mark.parametrize("cards,expected", [
    ("9S 9S 8H 8H", None), ("2C 2C AS AS", None), ("7S 7S 7H 7H", TRUMP),
    ("5H 5H 4H 4H", 2), ("7H 7H 6H 6H", None), ("RJ", TRUMP), ("", None)])
def test_lead_suit(cards, expected):
    assert lead_suit(T7C, cs(cards)) == expected


@pytest.mark.parametrize("cards,expected", [
    ("7H 7H BJ BJ", True),                       # no trump: level pair + BJ pair
    ("BJ BJ RJ RJ", True), ("7H 7H 7S 7S", False), ("7H 7H BJ", False),
    ("8H 8H 6H 6H", True), ("8H 8H", False), ("8H 8H 6H 6H 5H 5H 3H 3H", False)])
def test_tractors_no_trump(cards, expected):
    assert is_tractor(Trump.parse("7"), cs(cards)) is expected


def test_seed_three_pair_row_cannot_be_beaten():
    # (7C 7C)(7x 7x)(AC AC): every higher three-pair needs 7C 7C, already played
    lead = cs("7C 7C 7H 7H AC AC")
    units = decompose(T7C, lead)
    lower = match_format(T7C, units, cs("7S 7S AC AC KC KC"))
    assert lower is not None and primary_top(units, lower) < units[0].top
    assert winner(T7C, "7C 7C 7H 7H AC AC", "7S 7S AC AC KC KC") == 0
    assert match_format(T7C, units, cs("RJ RJ BJ BJ 7S 7S")) is None   # 7C 7C missing
    assert winner(T7C, "7C 7C 7H 7H AC AC", "RJ RJ BJ BJ 7S 7S") == 0
    assert winner(T7C, "7C 7C 7H 7H AC AC", "7S 7S 7D 7D AC AC") == 0  # not a tractor


# --- matching a lead's shape ----------------------------------------------------------------
def test_a_pair_serves_as_two_singles_and_a_tractor_as_pairs():
    singles = decompose(T7C, cs("KH QH"))
    assert [u.kind() for u in match_format(T7C, singles, cs("5C 5C"))] == ["single", "single"]
    pairs = decompose(T7C, cs("AH AH 10H 10H"))
    assert [u.kind() for u in pairs] == ["pair", "pair"]
    m = match_format(T7C, pairs, cs("5C 5C 4C 4C"))
    assert [u.kind() for u in m] == ["pair", "pair"] and m[0].top > m[1].top


def test_a_tractor_needs_a_tractor():
    lead = decompose(T7C, cs("5H 5H 4H 4H"))
    assert match_format(T7C, lead, cs("9C 9C 5C 5C")) is None
    assert match_format(T7C, lead, cs("7S 7S 7H 7H")) is None
    m = match_format(T7C, lead, cs("7C 7C 7H 7H"))
    assert m == [Unit(2, 2, 13, tuple(sorted(cs("7C 7C 7H 7H"))))]
    assert match_format(T7C, lead, cs("5C 5C 4C")) is None          # wrong count


def test_matching_backtracks_when_the_highest_choice_blocks_the_rest():
    # three decks: the lead is a triple and a two-pair tractor; the greedy tractor 6-6-5-5
    # would leave no triple, but 5-5-4-4 with 6-6-6 covers the lead
    lead = decompose(T7C, cs("QH QH QH JH JH 10H 10H"))
    assert [(u.width, u.length) for u in lead] == [(2, 2), (3, 1)]
    m = match_format(T7C, lead, cs("6H 6H 6H 5H 5H 4H 4H"))
    assert m is not None
    assert (m[0].width, m[0].length, m[0].top) == (2, 2, T7C.position(parse("5H")[0]))
    assert m[1].cards == tuple(cs("6H 6H 6H"))


# --- the seed's throw examples (dominant 7C; play order West, South, East, North) -----------
def test_throw_kq_stands_when_no_higher_single_is_out():
    assert is_throw(T7C, cs("KH QH"))
    assert throw_check(T7C, cs("KH QH"), [cs("JH 10H 3C"), cs("QH 5S"), cs("2H 9D")]) is None


@pytest.mark.parametrize("holder", ["KH 3S", "AH 3S"])
def test_throw_kq_fails_and_q_is_forced(holder):
    # the other K beats only Q; an A beats both: the smallest beatable unit, Q, is forced
    forced = throw_check(T7C, cs("KH QH"), [cs("4D"), cs(holder), cs("5H")])
    assert forced == Unit(1, 1, T7C.position(parse("QH")[0]), tuple(cs("QH")))


def test_singles_throw_is_won_by_the_highest_single():
    # South ruffs with a trump pair, East with 10C 3C: the highest single decides, East wins
    assert winner(T7C, "KH QH", "5C 5C", "10C 3C", "4H 3H") == 2


KQQ1010 = "KH QH QH 10H 10H"


def test_throw_k_qq_1010_stands_without_a_or_jj():
    assert throw_check(T7C, cs(KQQ1010), [cs("JH 9H 9H"), cs("AS AS"), cs("KH 2H")]) is None


@pytest.mark.parametrize("hands,forced", [
    (["AH 3D", "2H", "4H"], "KH"),                      # South's A: back to the K alone
    (["3D", "JH JH 4S", "4H"], "10H 10H"),              # East's J-J: back to the 10-10
    (["AH 3D", "JH JH", "4H"], "KH"),                   # both: the smallest unit
    (["AH AH", "2H", "4H"], "KH"),                      # A-A beats K and Q-Q: K is smaller
])
def test_throw_k_qq_1010_fails(hands, forced):
    unit = throw_check(T7C, cs(KQQ1010), [cs(h) for h in hands])
    assert unit is not None and unit.cards == tuple(sorted(cs(forced)))


@pytest.mark.parametrize("plays,expected", [
    (["8C 8C 5C 5C JC", "4H 4H 3H 3H 2H", "5H 5H 6H 6H 9H"], 1),        # South ruffs
    (["8C 8C 5C 5C JH", "4H 4H 3H 3H 2H", "5H 5H 6H 6H 9H"], 0),        # not all trump
    (["8C 8C 5C 5C JD", "4H 4H 3H 3H 2H", "5H 5H 6H 6H 9H"], 0),        # not all trump
    (["8C 8C 5C 5C JC", "10C 10C 2C 2C 4C", "5H 5H 6H 6H 9H"], 2),      # higher trump pairs
    (["8C 8C 5C 5C JC", "6C 6C 3C 3C AC", "5H 5H 6H 6H 9H"], 1),        # singles don't count
    (["8C 9C 5C 5C JC", "4H 4H 3H 3H 2H", "5H 5H 6H 6H 9H"], 0),        # trumps, wrong shape
])
def test_throw_k_qq_1010_ruffs(plays, expected):
    assert winner(T7C, KQQ1010, *plays) == expected


def test_equal_trump_pairs_go_to_the_earlier_play():
    # West A-K-K; South 7-7 (off-suit level pair) and 9C; East 7S-7S and AC: equal pairs
    assert winner(T7C, "AH KH KH", "7D 7D 9C", "7S 7S AC", "2H 3H 4H") == 1
    assert winner(T7C, "AH KH KH", "7D 7D 9C", "7C 7C 3C", "2H 3H 4H") == 2


def test_spade_throw_unbeatable_when_both_aces_are_gone():
    lead = "KS QS QS JS JS"
    assert [u.kind() for u in decompose(T7C, cs(lead))] == ["tractor", "single"]
    assert throw_check(T7C, cs(lead), [cs("KS 10S 10S"), cs("9S 9S 8S"), cs("AH AH")]) is None
    assert winner(T7C, lead, "KS 10S 10S 9S 9S", "8S 8S 6S 5S 4S", "2S 3S 3S 4S 4S") == 0
    forced = throw_check(T7C, cs(lead), [cs("AS 2S"), cs("3D"), cs("4D")])
    assert forced.cards == tuple(cs("KS"))
    # a higher tractor of the same shape beats a thrown tractor
    forced = throw_check(T7C, cs("AS JS JS 10S 10S"), [cs("KS KS QS QS"), cs("3D"), cs("4D")])
    assert forced.cards == tuple(sorted(cs("JS JS 10S 10S")))
    assert throw_check(T7C, cs("AS JS JS 10S 10S"), [cs("KS KS 9S 9S"), cs("QS QS")]) is None


def test_single_unit_leads_are_not_throws():
    assert throw_check(T7C, cs("5H 5H 4H 4H"), [cs("AH AH KH KH")]) is None
    assert throw_check(T7C, cs("2H"), [cs("AH")]) is None
    assert not is_throw(T7C, cs("5H 5H 4H 4H"))


def test_trump_throw_is_checked_among_trumps():
    # 7H (off-suit level) is beaten by 7C held elsewhere; AC by any off-suit 7
    lead = cs("7H AC")
    assert throw_check(T7C, lead, [cs("7S")]).cards == tuple(cs("AC"))
    assert throw_check(T7C, lead, [cs("7C")]).cards == tuple(cs("AC"))
    assert throw_check(T7C, lead, [cs("7D AH")]).cards == tuple(cs("AC"))
    assert throw_check(T7C, cs("7H 7H BJ"), [cs("7S 7S")]) is None     # equal, not higher
    assert throw_check(T7C, cs("7H 7H BJ"), [cs("7C 7C")]).cards == tuple(cs("7H 7H"))


# --- the kitty multiplier ---------------------------------------------------------------------
def U(trump, text):
    return decompose(trump, cs(text))


@pytest.mark.parametrize("cards,power,linear", [
    ("AH", 2, 2),                          # single
    ("AH AH", 4, 4),                       # pair: 2**2, 2*2
    ("5H 5H 4H 4H", 8, 6),                 # two-pair tractor: 2**3, 2*3
    ("5H 5H 4H 4H 3H 3H", 16, 8),          # three-pair tractor
    ("AH KH", 2, 3),                       # a combination of singles only: 2 or 3
    ("AH KH KH", 4, 4),                    # a combination with a pair counts the pair
])
def test_kitty_multiplier_table(cards, power, linear):
    units = U(T7C, cards)
    assert kitty_multiplier(T7C, units) == power
    assert kitty_multiplier(T7C, units, mode="power") == power
    assert kitty_multiplier(T7C, units, mode="linear") == linear


def test_kitty_multiplier_counts_the_largest_unit():
    # seed example, dominant rank 9: A-10-10-8-8-5-5-4-4-3-3 counts the 5-5-4-4-3-3 tractor
    t9 = Trump.parse("9S")
    units = U(t9, "AH 10H 10H 8H 8H 5H 5H 4H 4H 3H 3H")
    assert sorted((u.width, u.length) for u in units) == [(1, 1), (2, 2), (2, 3)]
    assert kitty_multiplier(t9, units) == 16
    assert kitty_multiplier(t9, units, mode="linear") == 8
    with pytest.raises(ValueError):
        kitty_multiplier(t9, units, mode="cubic")


# --- points and levels ------------------------------------------------------------------------
def test_points():
    assert points(cs("5H 10S KD 3C BJ RJ")) == 25
    assert points(deck(1)) == 100 and points(deck(2)) == 200


def R(side, levels):
    return {"side": side, "levels": levels, "swap": side == "opponents"}


@pytest.mark.parametrize("p,expected", [
    (-80, R("declarers", 6)), (-45, R("declarers", 5)), (-40, R("declarers", 5)),
    (-35, R("declarers", 4)), (-5, R("declarers", 4)),
    (0, R("declarers", 3)), (5, R("declarers", 2)), (35, R("declarers", 2)),
    (40, R("declarers", 1)), (75, R("declarers", 1)),
    (80, R("opponents", 0)), (115, R("opponents", 0)),
    (120, R("opponents", 1)), (155, R("opponents", 1)),
    (160, R("opponents", 2)), (195, R("opponents", 2)),
    (200, R("opponents", 3)), (235, R("opponents", 3)), (240, R("opponents", 4)),
    (280, R("opponents", 5)),
])
def test_level_table_two_decks(p, expected):
    assert level_change(p) == expected
    assert level_change(p, decks=2) == expected


@pytest.mark.parametrize("p,expected", [
    (-20, R("declarers", 5)), (-5, R("declarers", 4)), (0, R("declarers", 3)),
    (5, R("declarers", 2)), (15, R("declarers", 2)), (20, R("declarers", 1)),
    (35, R("declarers", 1)), (40, R("opponents", 0)), (55, R("opponents", 0)),
    (60, R("opponents", 1)), (80, R("opponents", 2)), (100, R("opponents", 3)),
    (120, R("opponents", 4)),
])
def test_level_table_one_deck_forty_points(p, expected):
    assert level_change(p, decks=1) == expected


def test_level_table_scales_with_decks():
    assert level_change(115, decks=3) == R("declarers", 1)
    assert level_change(120, decks=3) == R("opponents", 0)


L = LEVEL_RANK


@pytest.mark.parametrize("start,steps,must,expected", [
    ("2", 0, (), "2"), ("2", 3, (), "5"), ("9", 2, (), "J"),
    ("9", 2, ("10",), "10"),               # seed: a must-play 10 is not skipped
    ("9", 1, ("10",), "10"), ("10", 2, ("10",), "Q"),   # the start does not hold it back
    ("8", 4, ("J", "10"), "10"), ("K", 3, (), "A"), ("A", 2, (), "A"),
    ("Q", 4, ("A",), "A"),
])
def test_next_level(start, steps, must, expected):
    got = next_level(L[start], steps, [L[m] for m in must])
    assert level_name(got) == expected


def test_level_order():
    assert [level_name(r) for r in LEVEL_ORDER] == ["2", "3", "4", "5", "6", "7", "8", "9",
                                                    "10", "J", "Q", "K", "A"]
    with pytest.raises(ValueError):
        next_level(L["2"], -1)


# --- random properties of the trick winner --------------------------------------------------
def _random_trump(rng):
    return Trump(rng.choice(LEVEL_ORDER), rng.choice([0, 1, 2, 3, None]))


def _random_trick(rng, trump, players=4):
    pool = deck(2)
    rng.shuffle(pool)
    suit = rng.choice(sorted({trump.suit_of(c) for c in pool}))
    in_suit = [c for c in pool if trump.suit_of(c) == suit]
    # favour pairs: draw from the suit's cards twice over
    n = rng.randint(1, min(6, len(in_suit)))
    lead = []
    for c in rng.sample(in_suit, n):
        if len(lead) < n:
            lead.append(c)
        if len(lead) < n and rng.random() < 0.5 and in_suit.count(c) >= 2:
            lead.append(c)
    plays = [lead]
    for _ in range(players - 1):
        mode = rng.random()
        if mode < 0.35:
            src = [c for c in pool if trump.suit_of(c) == suit]
        elif mode < 0.7:
            src = [c for c in pool if trump.suit_of(c) == TRUMP]
        else:
            src = pool
        src = src if len(src) >= n else pool
        play = []
        while len(play) < n:
            c = rng.choice(src)
            play.append(c)
            if len(play) < n and rng.random() < 0.5:
                play.append(c)
        plays.append(play)
    return plays


@pytest.mark.parametrize("seed", range(300))
def test_random_tricks(seed):
    rng = random.Random(seed)
    trump = _random_trump(rng)
    plays = _random_trick(rng, trump)
    w = trick_winner(trump, plays)
    # order of cards within each play does not matter
    shuffled = [rng.sample(p, len(p)) for p in plays]
    assert trick_winner(trump, shuffled) == w
    assert trick_winner(trump, [list(reversed(p)) for p in plays]) == w
    lead_s = lead_suit(trump, plays[0])
    units = decompose(trump, plays[0])
    for i, p in enumerate(plays[1:], start=1):
        s = lead_suit(trump, p)
        if s is None or s not in (lead_s, TRUMP):
            assert w != i
        m = match_format(trump, units, p)
        if m is None:
            assert w != i
        else:
            # the matched units use exactly the play's cards, in valid shapes
            assert Counter(c for u in m for c in u.cards) == Counter(p)
            for lu, mu in zip(units, m):
                assert (mu.width, mu.length) == (lu.width, lu.length)
                if mu.width >= 2:
                    ids = sorted(set(mu.cards), key=trump.position, reverse=True)
                    assert len(ids) == mu.length
                    assert all(mu.cards.count(c) == mu.width for c in ids)
                    tops = [trump.position(c) for c in ids]
                    assert tops == list(range(mu.top, mu.top - mu.length, -1))
                    assert len({trump.suit_of(c) for c in ids}) == 1


@pytest.mark.parametrize("seed", range(100))
def test_random_single_card_tricks_follow_beats_card(seed):
    rng = random.Random(1000 + seed)
    trump = _random_trump(rng)
    plays = [[c] for c in rng.sample(deck(2), 4)]
    best = 0
    for i in range(1, 4):
        if trump.beats_card(plays[i][0], plays[best][0]):
            best = i
    assert trick_winner(trump, plays) == best
