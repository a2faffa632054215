"""The "winner" combination family of Zheng Shangyou (seed 001_d7666c5d40e26a75.txt).

Table tests follow the seed's examples and the rule decisions of RULES.md; property tests check
the family contract on random hands from one or two packs, with and without jokers.
"""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations

import pytest

from shangyou.cards import deck, parse
from shangyou.games.climbing.combo import Combo
from shangyou.games.climbing.family import Family
from shangyou.games.zheng_shangyou.winner import KINDS, WinnerFamily

FAM = WinnerFamily()


def one(text: str, fam: WinnerFamily = FAM) -> Combo:
    """The single reading of the cards in ``text`` (fails if there is none)."""
    found = fam.combos(parse(text))
    assert len(found) == 1, (text, found)
    return found[0]


def none(text: str, fam: WinnerFamily = FAM) -> bool:
    return fam.combos(parse(text)) == []


def ident(combos) -> set:
    return {(c.cards, c.label) for c in combos}


def hand(text: str) -> tuple:
    return tuple(sorted(parse(text)))


# ---------------------------------------------------------------------------- construction

def test_options_and_name():
    assert FAM.name == "winner"
    assert isinstance(FAM, Family)
    with pytest.raises(ValueError):
        WinnerFamily(bomb="rocket")
    with pytest.raises(ValueError):
        WinnerFamily(min_straight=2)
    with pytest.raises(ValueError):
        WinnerFamily(min_straight=14)
    assert FAM.sort_key(parse("AS")[0]) > FAM.sort_key(parse("AD")[0])


# ---------------------------------------------------------------------------- comparisons

BEATS = [
    # (family options, higher play, lower play)
    ({}, "AS", "AD"),                      # seed: ace of spades beats ace of diamonds ...
    ({}, "AD", "KS"),                      # ... which beats the king of spades
    ({}, "2D", "AS"),
    ({}, "KS KC", "KH KD"),                # seed: pair ranked by its highest suit
    ({}, "3S 3D", "3H 3C"),
    ({}, "2D 3C 4H 5S 6D", "AS 2C 3H 4D 5S"),  # 2-3-4-5-6 beats the lowest straight A-2-3-4-5
    ({}, "3D 4D 5D 6D 7C", "2S 3S 4S 5S 6H"),
    ({}, "10D JC QH KS AD", "9S 10H JC QD KS"),  # ace high on top
    ({}, "3D 4C 5H 6S 7H", "3S 4D 5C 6H 7D"),  # same ranks: top card's suit decides
    ({}, "4D 4C 4H 5D 5C", "3S 3C 3H AS AD"),  # full house by the triple, not the pair
    ({}, "9D 9C 9H 9S 3D", "2S"),          # a bomb beats the unbeatable single 2S
    ({}, "9D 9C 9H 9S 3D", "3D 4C 5H 6S 7H"),
    ({}, "9D 9C 9H 9S 3D", "2D 2C 2H AS AD"),
    ({}, "10D 10C 10H 10S 3D", "9D 9C 9H 9S 2S"),  # higher quad wins, kicker irrelevant
    ({}, "3S 4S 5S 6S 7S", "2D 2C 2H 2S AS"),      # straight flush beats any bomb
    ({}, "4H 5H 6H 7H 8H", "3S 4S 5S 6S 7S"),
    ({}, "3H 4H 5H 6H 7H", "3C 4C 5C 6C 7C"),      # equal straight flushes: suit
    ({}, "5D 5C 6D 6C", "3S 3H 4S 4H"),
    ({}, "3D 3C 3H 4D 4C 4S", "3D 3C 3S 4D 4C 4H"),  # consecutive triples: top card decides
    ({}, "KD KC AD AC", "QS QH KS KH"),
    ({"jokers": True}, "BJ", "2S"),
    ({"jokers": True}, "RJ", "BJ"),
    ({"jokers": True}, "BJ BJ", "2S 2H"),
    ({"jokers": True}, "RJ RJ", "BJ BJ"),
    ({"bomb": "quad"}, "3D 3C 3H 3S", "2S 2H"),
    ({"bomb": "quad"}, "4D 4C 4H 4S", "3D 3C 3H 3S"),
    ({"min_straight": 3}, "3D 4C 5H", "AD 2C 3H"),
    ({"straight_needs_higher_rank": True}, "4D 5C 6H 7S 8D", "3S 4S 5H 6H 7S"),
]


@pytest.mark.parametrize("opts,high,low", BEATS)
def test_beats(opts, high, low):
    fam = WinnerFamily(**opts)
    a, b = one(high, fam), one(low, fam)
    assert a.beats(b)
    assert not b.beats(a)


NEITHER = [
    ({}, "3D 4C 5H 6S 7H 8D", "3C 4D 5D 6D 7D"),   # straights of different lengths
    ({}, "3H 4H 5H 6H 7H", "8S 9S 10S JS QS KS"),  # 5- and 6-card straight flushes
    ({}, "3D 3C 4D 4C", "5D 5C 6D 6C 7D 7C"),      # consecutive pairs: same count only
    ({}, "3D 3C 3H 4D 4C 4H", "5D 5C 6D 6C 7D 7C"),
    ({}, "7D 7C", "7D 7C"),
    ({}, "3D 4C 5H 6S 7D", "3S 4D 5C 6H 7D"),      # same ranks, same top suit
    ({}, "KD KC", "KD"),
    ({"straight_needs_higher_rank": True}, "3D 4C 5H 6S 7H", "3S 4D 5C 6H 7D"),
    ({"straight_needs_higher_rank": True}, "3S 4S 5S 6S 7S", "3D 4D 5D 6D 7D"),
]


@pytest.mark.parametrize("opts,x,y", NEITHER)
def test_neither_beats(opts, x, y):
    fam = WinnerFamily(**opts)
    a, b = one(x, fam), one(y, fam)
    assert not a.beats(b)
    assert not b.beats(a)


def test_two_pack_identical_cards_are_equal():
    a = one("7S")
    assert not a.beats(one("7S"))
    pair = one("7S 7S")
    assert pair.kind == "pair" and not pair.beats(one("7H 7S"))
    assert not one("7H 7S").beats(pair)
    assert one("8D 8D").beats(pair)
    # two quads of the same rank compare by their highest card
    assert one("9D 9C 9H 9S 3D").beats(one("9D 9D 9C 9H 4D"))
    assert not one("9D 9C 9H 9S 3D").beats(one("9D 9C 9S 9S 4D"))


# ---------------------------------------------------------------------------- readings

KINDS_OF = [
    ({}, "5H", "single"),
    ({}, "5H 5S", "pair"),
    ({}, "2H 2S 2D", "triple"),
    ({}, "3D 3C 4D 4C", "consecutive pairs"),
    ({}, "QD QC KD KC AD AC", "consecutive pairs"),
    ({}, "3D 3C 3H 4D 4C 4H", "consecutive triples"),
    ({}, "7D 7C 7H 2D 2C", "full house"),
    ({}, "AS 2C 3H 4D 5S", "straight"),
    ({}, "10D JC QH KS AD", "straight"),
    ({}, "9D 9C 9H 9S 3D", "bomb"),
    ({}, "9D 9C 9H 9S 9S", "bomb"),          # two packs: the extra card may share the rank
    ({"jokers": True}, "9D 9C 9H 9S RJ", "bomb"),
    ({}, "AD 2D 3D 4D 5D", "straight flush"),
    ({"bomb": "quad"}, "9D 9C 9H 9S", "bomb"),
    ({"jokers": True}, "BJ BJ", "pair"),
    ({"min_straight": 3}, "QD KC AH", "straight"),
]


@pytest.mark.parametrize("opts,text,kind", KINDS_OF)
def test_kind(opts, text, kind):
    c = one(text, WinnerFamily(**opts))
    assert c.kind == kind == c.label
    assert c.cards == tuple(sorted(c.cards))
    assert c.tier == {"bomb": 1, "straight flush": 2}.get(kind, 0)


NOT_COMBOS = [
    ({}, "KS AD 2C 3H 4D"),        # no wrap round the 2
    ({}, "QS KD AC 2H 3D"),
    ({}, "JD QC KH AS 2D"),        # the 2 is never high
    ({}, "AD AC 2D 2C"),           # 2s are never in consecutive pairs
    ({}, "2D 2C 3D 3C"),
    ({}, "3D 4C 5H 6S"),           # too short
    ({}, "9D 9C 9H 9S"),           # kicker mode: the quad alone is nothing
    ({"bomb": "quad"}, "9D 9C 9H 9S 3D"),  # quad mode: four plus one is nothing
    ({}, "7D 7C 7H 7S 7S 8D"),
    ({}, "3D 3C 4D"),
    ({"bomb": "quad"}, "5D 5C 5H 5D 5C"),  # five of a rank is no full house
    ({"jokers": True}, "BJ RJ"),
    ({"jokers": True}, "JC QH KS AD BJ"),   # jokers are never in a straight
    ({"jokers": True}, "BJ BJ 3D 3C 3H"),  # jokers are never in a full house
    ({"jokers": True}, "2D 2C BJ BJ"),
    ({}, "3D 3C 4D 4C 5D 5C 5H"),  # mixed pairs and a triple
    ({}, "3D 3C 5D 5C"),
    ({"min_straight": 6}, "3D 4C 5H 6S 7H"),
    ({}, "AD 2C 3H 4S 5D 6C 7H 8S 9D 10C JH QS KD AS"),  # both aces: 14 cards
]


@pytest.mark.parametrize("opts,text", NOT_COMBOS)
def test_not_a_combination(opts, text):
    assert none(text, WinnerFamily(**opts))


def test_thirteen_card_straight_is_read_ace_high():
    c = one("AD 2C 3H 4S 5D 6C 7H 8S 9D 10C JH QS KD")
    assert c.kind == "straight" and c.cls == ("straight", 13)
    assert c.key == (1, 0)  # lowest position is the 2; top card is the ace of diamonds
    assert len([x for x in FAM.leads(c.cards) if x.cards == c.cards]) == 1


def test_straight_keys():
    low = one("AS 2C 3H 4D 5S")
    assert low.key == (0, 3)
    assert one("2D 3C 4H 5S 6D").key == (1, 0)
    assert one("10D JC QH KS AD").key == (9, 0)
    assert WinnerFamily(straight_needs_higher_rank=True).combos(parse("10D JC QH KS AD"))[0] \
        .key == (9,)


# ---------------------------------------------------------------------------- listing plays

def test_leads_small_hands():
    assert ident(FAM.leads(hand("7D 7C 7H"))) == ident(
        [one("7D"), one("7C"), one("7H"), one("7D 7C"), one("7D 7H"), one("7C 7H"),
         one("7D 7C 7H")])
    # identical cards of two packs are bound once
    assert Counter(c.kind for c in FAM.leads(hand("7S 7S 7H"))) == {
        "single": 2, "pair": 2, "triple": 1}
    # a bomb per distinct extra card
    leads = FAM.leads(hand("9D 9C 9H 9S 3D 3D 4C"))
    bombs = [c for c in leads if c.kind == "bomb"]
    assert ident(bombs) == ident([one("9D 9C 9H 9S 3D"), one("9D 9C 9H 9S 4C")])
    assert Counter(c.kind for c in leads)["full house"] == 4 * 1  # four triples x one pair
    assert [c for c in WinnerFamily(bomb="quad").leads(hand("9D 9C 9H 9S 3D"))
            if c.kind == "bomb"] == [one("9D 9C 9H 9S", WinnerFamily(bomb="quad"))]


def test_leads_straights_and_flushes():
    h = hand("3D 4D 5D 6D 7D 7C")
    leads = FAM.leads(h)
    assert ident(c for c in leads if c.kind == "straight flush") == ident([one("3D 4D 5D 6D 7D")])
    assert ident(c for c in leads if c.kind == "straight") == ident([one("3D 4D 5D 6D 7C")])


def test_full_house_choices():
    # triples of 8 (4 choices) with a pair of 5 (3 choices) or a pair of 2 (1 choice)
    h = hand("8D 8C 8H 8S 5D 5C 5H 2S 2H")
    fh = [c for c in FAM.leads(h) if c.kind == "full house"]
    # plus triples of 5 (1 choice) with pairs of 8 (6) or of 2 (1)
    assert len(fh) == 4 * 3 + 4 * 1 + 1 * 6 + 1 * 1
    assert len(ident(fh)) == len(fh)


def test_follows_examples():
    h = hand("3D 4C 5H 6S 7H 9D 9C 9H 9S KS")
    got = ident(FAM.follows(h, one("2S")))
    assert got == ident([one("9D 9C 9H 9S " + x) for x in ("3D", "4C", "5H", "6S", "7H", "KS")])
    got = ident(FAM.follows(h, one("3S 4D 5C 6H 7D")))
    assert (one("3D 4C 5H 6S 7H").cards, "straight") in got
    assert ident(FAM.follows(h, one("4S 5S 6S 7S 8S"))) == set()


# ---------------------------------------------------------------------------- properties

CONFIGS = [
    dict(),
    dict(jokers=True),
    dict(bomb="quad"),
    dict(jokers=True, min_straight=3, straight_needs_higher_rank=True),
    dict(min_straight=4, bomb="quad", jokers=True),
]


def random_hands(seed: int, opts: dict, count: int):
    rng = random.Random(seed)
    jokers = opts.get("jokers", False)
    for _ in range(count):
        packs = rng.choice((1, 2))
        cards = deck(packs, jokers)
        rng.shuffle(cards)
        size = rng.choice((5, 8, 13, 13, 17, 20))
        yield tuple(sorted(cards[:size]))


@pytest.mark.parametrize("ci", range(len(CONFIGS)))
def test_contract_on_random_hands(ci):
    opts = CONFIGS[ci]
    fam = WinnerFamily(**opts)
    rng = random.Random(100 + ci)
    hands = list(random_hands(ci, opts, 60))
    pool: list[Combo] = []
    for h in hands:
        leads = fam.leads(h)
        ids = [(c.cards, c.label) for c in leads]
        assert len(ids) == len(set(ids))
        have = Counter(h)
        for c in leads:
            assert c.kind in KINDS and c.label == c.kind
            assert c.cards == tuple(sorted(c.cards))
            assert not Counter(c.cards) - have
            assert not c.beats(c)
            # the listed play is the (only) reading of its cards
            assert fam.combos(c.cards) == [c]
        pool.extend(rng.sample(leads, min(4, len(leads))))
    # prevs of every class, including the rarer ones
    for h in hands:
        pool.extend(c for c in fam.leads(h) if c.kind not in ("single", "pair", "straight")
                    and rng.random() < 0.3)
    for h in hands:
        leads = fam.leads(h)
        for prev in rng.sample(pool, min(25, len(pool))):
            expected = ident(c for c in leads if c.beats(prev))
            got = fam.follows(h, prev)
            assert len(got) == len(ident(got))
            assert ident(got) == expected, (h, prev)
    sample = rng.sample(pool, min(150, len(pool)))
    for a in sample:
        for b in sample:
            assert not (a.beats(b) and b.beats(a))


@pytest.mark.parametrize("ci", range(len(CONFIGS)))
def test_leads_are_exactly_the_combinations_of_the_hand(ci):
    """Brute force on small hands: every sub-multiset that reads as a play is listed."""
    opts = CONFIGS[ci]
    fam = WinnerFamily(**opts)
    for h in random_hands(50 + ci, opts, 40):
        h = h[:8]
        subsets = set()
        for k in range(1, len(h) + 1):
            subsets.update(combinations(h, k))
        expected = set()
        for s in subsets:
            expected |= canonical(fam.combos(s))
        assert canonical(fam.leads(h)) == expected, h


def canonical(combos) -> set:
    """Plain straights are listed once per (positions, top card): compare them by ranks and key."""
    out = set()
    for c in combos:
        if c.kind == "straight":
            out.add((c.cls, c.key, tuple(sorted(x >> 2 for x in c.cards))))
        else:
            out.add((c.cards, c.label))
    return out


@pytest.mark.parametrize("ci", range(len(CONFIGS)))
def test_combos_matches_generic_reading(ci):
    fam = WinnerFamily(**CONFIGS[ci])
    rng = random.Random(7 + ci)
    for h in random_hands(200 + ci, CONFIGS[ci], 40):
        for c in rng.sample(fam.leads(h), min(10, len(fam.leads(h)))):
            assert Family.combos(fam, c.cards) == fam.combos(c.cards)
        for k in (2, 3, 4, 5, 6):
            cards = tuple(rng.sample(h, min(k, len(h))))
            assert Family.combos(fam, cards) == fam.combos(cards)


def test_follows_handles_foreign_tiers():
    h = hand("3D 4D 5D 6D 7D 9C 9D 9H 9S")
    assert ident(FAM.follows(h, Combo("x", ("x",), (0,), (0,), tier=-1))) == ident(FAM.leads(h))
    assert FAM.follows(h, Combo("x", ("x",), (0,), (0,), tier=5)) == []
    got = FAM.follows(h, Combo("set", ("set", 2), (0,), (0, 1), tier=0))
    assert {c.kind for c in got} == {"bomb", "straight flush"}
