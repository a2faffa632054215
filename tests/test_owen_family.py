"""Tests of the Owen combination family (seed ``002_13a92ec9c89ba2d9.txt``, RULES.md
``zheng-shangyou/owen``)."""

from __future__ import annotations

import itertools
import random
import time

import pytest

from shangyou.cards import parse
from shangyou.games.climbing.combo import Combo
from shangyou.games.zheng_shangyou.owen import OwenFamily

FAM = OwenFamily()
WILDS = (48, 49, 50, 51, 52, 53)


def readings(text: str) -> list[Combo]:
    return FAM.combos(parse(text))


def one(text: str, label: str | None = None) -> Combo:
    """The reading of ``text`` (the one with ``label`` when given)."""
    found = readings(text)
    if label is not None:
        found = [c for c in found if c.label == label]
    assert found, f"{text!r} has no reading {label or ''}"
    return found[0]


# --------------------------------------------------------------------------- readings

@pytest.mark.parametrize("text, kind, cls, key", [
    ("7H", "single", ("single",), (4,)),
    ("2S", "single", ("single",), (12,)),
    ("BJ", "single", ("single",), (13,)),
    ("RJ", "single", ("single",), (14,)),
    ("7H 7D", "pair", ("pair",), (4, 1)),
    ("7H BJ", "pair", ("pair",), (4, 0)),
    ("7H 2D", "pair", ("pair",), (4, 0)),
    ("2D 2S", "pair", ("pair",), (12, 1)),
    ("7H 7D 7S", "trip", ("trip",), (4, 1)),
    ("7H 2D RJ", "trip", ("trip",), (4, 0)),
    ("2D 2S 2H", "trip", ("trip",), (12, 1)),
    ("8D 8C 8H 3D 3C", "full house", ("full house",), (5, 1)),
    ("3D 4C 5H 6S 7D", "straight", ("straight", 5), (4,)),
    ("10D JC QH KS AD", "straight", ("straight", 5), (11,)),
    ("5D 5C 6D 6C", "stair", ("stair", 2), (3, 1)),
    ("5D 6C 2S BJ", "stair", ("stair", 2), (3, 0)),
    ("5D 5C 5S 6D 6C 6H", "plate", ("plate", 2), (3, 1)),
    ("5D 5C 6D 6C 2S BJ", "plate", ("plate", 2), (3, 0)),
    ("9D 9C 9H 9S", "quad", ("bomb",), (6, 1)),
    ("9D 2C BJ RJ", "quad", ("bomb",), (6, 0)),
    ("2D 2C 2H 2S", "quad", ("bomb",), (12, 1)),
    ("BJ RJ", "rocket", ("rocket",), ()),
])
def test_single_reading(text, kind, cls, key):
    found = readings(text)
    assert len(found) == 1, found
    c = found[0]
    assert (c.kind, c.cls, c.key) == (kind, cls, key)
    assert c.cards == tuple(sorted(parse(text)))
    assert c.tier == {"quad": 1, "rocket": 2}.get(kind, 0)


@pytest.mark.parametrize("text", [
    "2D BJ",              # no natural card: no pair
    "BJ 2D RJ",           # no trip of wilds
    "2D 2S BJ",           # nothing stands for a 2
    "2D 2C 2H BJ",        # nor in a quad
    "7D 8C",              # two ranks
    "3D 4C 5H 6S",        # straight needs five
    "3D 4C 5H 6S BJ",     # no wilds in straights
    "JD QC KH AS 2D",     # 2 is not above A in a straight
    "KD AC 2H 3S 4D",     # no wrap
    "5D 5C 7D 7C",        # stair needs consecutive ranks
    "5D 5C 6D 6C 2S RJ BJ 2D",  # 5-6-7-8 stair: 7 and 8 need naturals
])
def test_no_reading(text):
    assert readings(text) == []


def test_every_rank_of_a_stair_needs_a_natural():
    # 5 6 + four wilds: no 5-7 stair (7 has no natural card), only the plate 5-6
    assert [(c.kind, c.label) for c in readings("5D 6C 2S BJ RJ 2H")] == [("plate", "5-6")]
    # 5 5 6 6 + two wilds: not a stair either (three pairs would need a natural 7)
    assert [(c.kind, c.label) for c in readings("5D 5C 6D 6C 2S BJ")] == [("plate", "5-6")]


def test_rocket_is_never_a_pair():
    assert [c.kind for c in readings("BJ RJ")] == ["rocket"]


def test_full_house_two_readings():
    found = readings("7H 7D 2S BJ 8C")
    assert [c.label for c in found] == ["eights over sevens", "sevens over eights"]
    assert all(c.key[1] == 0 for c in found)
    found = readings("7H 2S 2D 2C 2H")
    assert [c.label for c in found] == ["twos over sevens", "sevens over twos"]
    # 2s over 7s: the pair of 7s holds a substitute, so the whole play is substituted
    assert found[0].key == (12, 0)
    # a trip of 2s over a natural pair is natural; the same cards read the other way are not
    found = readings("2D 2C 2H 3D 3C")
    assert [(c.label, c.key) for c in found] == [("twos over threes", (12, 1)), ("threes over twos", (0, 0))]


def test_labels_unique_among_readings():
    for text in ["7H 7D 2S BJ 8C", "7H 2S 2D 2C 2H", "8D 8C BJ RJ 9S", "3D 3C 2D 2S 2H"]:
        labels = [c.label for c in readings(text)]
        assert len(labels) == len(set(labels))


# --------------------------------------------------------------------------- comparisons

BEATS = [
    # (a, label of a or None, b, label of b or None, a beats b)
    ("7D 7C 7H", None, "7S 7D BJ", None, True),     # natural trip beats wild trip
    ("7S 7D BJ", None, "7D 7C 7H", None, False),
    ("7S 7D BJ", None, "7H 2D 2S", None, False),     # equal substituted trips
    ("7H 2D 2S", None, "7S 7D BJ", None, False),
    ("8D 2D BJ", None, "7D 7C 7H", None, True),      # higher rank first
    ("7D 7C", None, "7H BJ", None, True),
    ("2D 2S", None, "AD AS", None, True),            # 2s are a pair above A
    ("AD AS", None, "2D 2S", None, False),
    ("2D", None, "AS", None, True),
    ("BJ", None, "2D", None, True),
    ("RJ", None, "BJ", None, True),
    ("BJ", None, "RJ", None, False),
    ("7D 7C", None, "7D", None, False),              # different classes
    ("8D 8C 8H 3D 3C", None, "7D 7C 7H AD AC", None, True),   # by the trip
    ("7D 7C 7H AD AC", None, "8D 8C 8H 3D 3C", None, False),
    ("7D 7C 7H 3D 3C", None, "7S 7D BJ AD AC", "sevens over aces", True),  # natural beats wild
    ("7S 7D BJ AD AC", "sevens over aces", "7D 7C 7H 3D 3C", None, False),
    ("7S 7D BJ AD AC", "aces over sevens", "7D 7C 7H 3D 3C", None, True),
    ("2D 2C 2H 3D 3C", None, "AD AC AH KD KC", None, True),
    ("4D 5C 6H 7S 8D", None, "3D 4C 5H 6S 7D", None, True),
    ("4D 5C 6H 7S 8D", None, "4S 5S 6S 7D 8C", None, False),  # equal straights
    ("4D 5C 6H 7S 8D 9C", None, "3D 4C 5H 6S 7D", None, False),  # same length only
    ("3D 4C 5H 6S 7D", None, "4D 5C 6H 7S 8D 9C", None, False),
    ("6D 6C 7D 7C", None, "5D 5C 6S 6H", None, True),
    ("5D 5C 6S 6H", None, "5S 2C 6D 6C", None, True),        # natural stair beats substituted
    ("5S 2C 6D 6C", None, "5D 5C 6S 6H", None, False),
    ("5D 5C 6D 6C 7D 7C", None, "5S 5H 6S 6H", None, False),  # stair lengths differ
    ("5S 5H 6S 6H", None, "3D 3C 4D 4C 5D 5C", None, False),
    ("6D 6C 6H 7D 7C 7H", None, "5S 5D 5H 6S 6H 2D", None, True),
    ("5D 5C 5H 6D 6C 6H 7D 7C 7H", None, "5S 5D 5H 6S 6H 6D", None, False),
    ("5D 5C 6D 6C 2S BJ", None, "5S 5H 6S 6H", None, False),  # plate vs stair
    ("3D 3C 3H 3S", None, "4D 5C 6H 7S 8D", None, True),      # quad beats a straight
    ("3D 3C 3H 3S", None, "AD AC AH KD KC", None, True),      # and a full house
    ("3D 3C 3H 3S", None, "2D 2S", None, True),
    ("4D 4C 4H 4S", None, "3D 3C 3H 3S", None, True),         # higher quad
    ("3D 3C 3H 3S", None, "4D 4C 4H 4S", None, False),
    ("4D 4C 4H 4S", None, "4D 4C 4H 2S", None, True),         # natural quad beats wild quad
    ("4D 4C 4H 2S", None, "4D 4C 4H 4S", None, False),
    ("4D 4C BJ 2S", None, "4D 4C 4H 2S", None, False),        # equal wild quads
    ("5D 2C BJ RJ", None, "4D 4C 4H 4S", None, True),
    ("2D 2C 2H 2S", None, "AD AC AH AS", None, True),
    ("BJ RJ", None, "2D 2C 2H 2S", None, True),               # rocket beats all
    ("2D 2C 2H 2S", None, "BJ RJ", None, False),
    ("BJ RJ", None, "3D", None, True),
    ("AD AC AH AS", None, "RJ", None, True),
    ("7H 7D 2S BJ 8C", "eights over sevens", "7H 7D 2S BJ 8C", "sevens over eights", True),
]


@pytest.mark.parametrize("a, la, b, lb, expected", BEATS)
def test_beats_table(a, la, b, lb, expected):
    assert one(a, la).beats(one(b, lb)) is expected


# --------------------------------------------------------------------------- listing plays

def random_hand(rng: random.Random, lo: int = 9, hi: int = 26, wild_bias: bool = False):
    n = rng.randint(lo, hi)
    if wild_bias:
        k = rng.randint(2, 6)
        wilds = rng.sample(WILDS, k)
        rest = rng.sample(range(48), n - k)
        return sorted(wilds + rest)
    return sorted(rng.sample(range(54), n))


def test_leads_small_hand_exact():
    hand = parse("7D 7C 8H BJ")
    got = {(c.kind, c.label, c.cards) for c in FAM.leads(hand)}
    d7, c7, h8, bj = sorted(hand)
    expected = {
        ("single", "7", (d7,)), ("single", "8", (h8,)), ("single", "BJ", (bj,)),
        ("pair", "sevens", (d7, c7)), ("pair", "sevens", (d7, bj)), ("pair", "eights", (h8, bj)),
        ("trip", "sevens", (d7, c7, bj)),
        ("stair", "7-8", (d7, c7, h8, bj)),
    }
    assert got == expected


def test_wild_in_place_of_natural_is_listed():
    hand = parse("9D 9C 9H 2S BJ RJ")
    trips = {c.cards for c in FAM.leads(hand) if c.kind == "trip"}
    # 9 9 9 / 9 9 + each wild / 9 + each two-wild set
    assert len(trips) == 1 + 3 + 3
    quads = [c for c in FAM.leads(hand) if c.kind == "quad"]
    # 999+w (3), 99+ww (3), 9+2 BJ RJ (1)
    assert len(quads) == 7


def check_leads(hand):
    leads = FAM.leads(hand)
    hs = set(hand)
    seen = set()
    by_rank: dict[int, list[int]] = {}
    for c in hand:
        by_rank.setdefault(c >> 2 if c < 52 else c, []).append(c)
    for lst in by_rank.values():
        lst.sort()
    for combo in leads:
        sig = (combo.cards, combo.label)
        assert sig not in seen, combo
        seen.add(sig)
        assert set(combo.cards) <= hs
        assert len(set(combo.cards)) == len(combo.cards)
        assert list(combo.cards) == sorted(combo.cards)
        # canonical binding: within a rank, the lowest suits are used
        used: dict[int, list[int]] = {}
        for c in combo.cards:
            used.setdefault(c >> 2 if c < 52 else c, []).append(c)
        for r, cs in used.items():
            assert cs == by_rank[r][:len(cs)], combo
        assert not combo.beats(combo)
    return leads


def test_leads_properties_random_hands():
    for seed in range(60):
        rng = random.Random(seed)
        check_leads(random_hand(rng, wild_bias=seed % 2 == 0))


def signature(c: Combo):
    return (c.cards, c.label, c.cls, c.key, c.tier)


def test_follows_equals_filtered_leads():
    rng = random.Random(12345)
    prevs: list[Combo] = []
    for _ in range(40):
        prevs.extend(rng.sample(FAM.leads(random_hand(rng, wild_bias=True)), 10))
    prevs.extend([one("BJ RJ"), one("2D 2C 2H 2S"), one("3D 2C BJ RJ"), one("RJ")])
    for seed in range(40):
        hrng = random.Random(1000 + seed)
        hand = random_hand(hrng, 9, 18, wild_bias=seed % 3 != 0)
        leads = FAM.leads(hand)
        for prev in hrng.sample(prevs, 25) + prevs[-4:]:
            want = [c for c in leads if c.beats(prev)]
            got = FAM.follows(hand, prev)
            assert len(got) == len({signature(c) for c in got})
            assert {signature(c) for c in got} == {signature(c) for c in want}, prev


def test_follows_targeted_classes():
    # every class of a hand rich in wilds, against each of its own leads
    hand = sorted(parse("3D 3C 4D 4H 5S 6D 6C 6H 7S 8D 9C 10H JD 2D 2C BJ RJ"))
    leads = FAM.leads(hand)
    for prev in leads[::7]:
        want = {signature(c) for c in leads if c.beats(prev)}
        assert {signature(c) for c in FAM.follows(hand, prev)} == want


def test_beats_is_antisymmetric():
    rng = random.Random(7)
    pool: list[Combo] = []
    for _ in range(8):
        pool.extend(rng.sample(FAM.leads(random_hand(rng, wild_bias=True)), 40))
    for a in pool:
        assert not a.beats(a)
        for b in pool:
            assert not (a.beats(b) and b.beats(a)), (a, b)


def test_combos_of_each_lead():
    rng = random.Random(99)
    for _ in range(5):
        hand = random_hand(rng, 10, 14, wild_bias=True)
        for c in rng.sample(FAM.leads(hand), 30):
            found = FAM.combos(c.cards)
            assert signature(c) in {signature(x) for x in found}
            labels = [x.label for x in found]
            assert len(labels) == len(set(labels))
            order = [(x.tier, x.key) for x in found]
            assert order == sorted(order, reverse=True)


# --------------------------------------------------------------------------- brute force

def oracle_readings(cards) -> set:
    """Independent classifier: every (cls, key, label) reading of exactly ``cards``."""
    n = len(cards)
    nat = [c >> 2 for c in cards if c < 48]
    n2 = sum(1 for c in cards if 48 <= c < 52)
    jok = sum(1 for c in cards if c >= 52)
    wild = n2 + jok
    ranks = sorted(set(nat))
    names = ["3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2", "BJ", "RJ"]
    words = ["threes", "fours", "fives", "sixes", "sevens", "eights", "nines", "tens", "jacks",
             "queens", "kings", "aces", "twos"]
    out = set()
    if n == 1:
        c = cards[0]
        r = c >> 2 if c < 52 else 13 + (c - 52)
        out.add((("single",), (r,), names[r]))
    if set(cards) == {52, 53}:
        out.add((("rocket",), (), "BJ RJ"))
    if n in (2, 3, 4):
        cls = {2: ("pair",), 3: ("trip",), 4: ("bomb",)}[n]
        if len(ranks) == 1:
            out.add((cls, (ranks[0], int(wild == 0)), words[ranks[0]]))
        if n2 == n:
            out.add((cls, (12, 1), "twos"))
    if n == 5 and len(ranks) <= 2:
        # assign every card to the trip (group 0) or the pair (group 1); a group's rank must be
        # that of one of its natural cards (a natural 3..A, or a 2 in a group of 2s)
        candidates = ranks + [12] * (n2 > 0)
        for a in candidates:
            for b in candidates:
                if a == b:
                    continue
                for assign in itertools.product((0, 1), repeat=5):
                    groups = ([], [])
                    for c, g in zip(cards, assign):
                        groups[g].append(c)
                    if len(groups[0]) != 3:
                        continue
                    ok = True
                    subs = 0
                    for rank, grp in ((a, groups[0]), (b, groups[1])):
                        naturals = 0
                        for c in grp:
                            if c < 48:
                                if c >> 2 != rank:
                                    ok = False
                                naturals += 1
                            elif c < 52:
                                if rank == 12:
                                    naturals += 1
                                else:
                                    subs += 1
                            else:
                                if rank == 12:
                                    ok = False
                                subs += 1
                        if naturals == 0:
                            ok = False
                    if ok:
                        out.add((("full house",), (a, int(subs == 0)),
                                 f"{words[a]} over {words[b]}"))
    if n >= 5 and wild == 0 and len(ranks) == n and ranks[-1] - ranks[0] == n - 1:
        out.add((("straight", n), (ranks[-1],), f"{names[ranks[0]]}-{names[ranks[-1]]}"))
    for k, kind in ((2, "stair"), (3, "plate")):
        m = len(ranks)
        if (m >= 2 and n == k * m and ranks[-1] - ranks[0] == m - 1
                and all(nat.count(r) <= k for r in ranks)):
            out.add(((kind, m), (ranks[-1], int(wild == 0)),
                     f"{names[ranks[0]]}-{names[ranks[-1]]}"))
    return out


def rank_sig(cards):
    return tuple(sorted(c >> 2 if c < 52 else c for c in cards))


def test_leads_match_brute_force():
    rng = random.Random(2024)
    for i in range(80):
        hand = random_hand(rng, 7, 11, wild_bias=i % 4 != 0)
        got = {(rank_sig(c.cards), c.cls, c.key, c.label) for c in FAM.leads(hand)}
        want = set()
        for size in range(1, len(hand) + 1):
            for sub in itertools.combinations(hand, size):
                for cls, key, label in oracle_readings(sub):
                    want.add((rank_sig(sub), cls, key, label))
        assert got == want, (hand, got ^ want)
        assert len(FAM.leads(hand)) == len(got)


# --------------------------------------------------------------------------- timing

def test_worst_hand_timing(capsys):
    rng = random.Random(5)
    worst = 0.0
    worst_hand = None
    hands = [sorted(list(WILDS) + rng.sample(range(48), 7)) for _ in range(40)]
    hands.append(sorted(list(WILDS) + [r * 4 for r in range(3, 10)]))          # 6..Q run
    hands.append(sorted(list(WILDS) + [12, 13, 16, 17, 20, 21, 24]))            # 6 6 7 7 8 8 9
    for hand in hands:
        best = min(_time_leads(hand) for _ in range(3))
        if best > worst:
            worst, worst_hand = best, hand
    with capsys.disabled():
        print(f"\nowen: worst leads() time for four 2s + both jokers + 7 cards: "
              f"{worst * 1000:.3f} ms ({len(FAM.leads(worst_hand))} plays)")


def _time_leads(hand) -> float:
    t = time.perf_counter()
    FAM.leads(hand)
    return time.perf_counter() - t
