"""Rule tests for the pagat family, from the worked examples of seed 000_d95270a3ce94a823.txt
and the pagat decisions of RULES.md; plus a brute-force cross-check of the move generator."""

import itertools
import random
from collections import Counter

import pytest

import shangyou
from shangyou.cards import BJ_CODE, RJ_CODE, deck, parse
from shangyou.games.zheng_shangyou.pagat import PagatFamily

R = shangyou.rules("zheng-shangyou/pagat")


def beats(a, b, rules=R):
    return rules.beats(a, b)


def kinds(cards, rules=R):
    return [(c.kind, c.label) for c in rules.combos(cards)]


# --- sets -----------------------------------------------------------------------------------
def test_seven_two_two_is_three_sevens_beaten_by_natural_then_by_higher():
    assert kinds("7H 2S 2D") == [("set", "sevens")]
    assert beats("7H 2S 2D", "7S 7C 7D")       # natural beats impure at equal rank
    assert beats("7S 7C 7D", "8H 8S BJ")       # a higher set, even impure
    assert not beats("7S 7C 7D", "7H 2S 2D")


def test_impure_sets_of_equal_rank_cannot_beat_each_other():
    plays = ["9H 2S 2D", "9H 2S BJ", "9H 9S 2D", "9H 9S BJ"]
    for a, b in itertools.permutations(plays, 2):
        assert not beats(a, b), (a, b)


def test_two_and_joker_is_an_impure_pair_of_twos():
    assert kinds("2H BJ") == [("set", "twos")]
    assert beats("2H BJ", "2S 2D")
    assert not beats("2S 2D", "2H BJ")


def test_red_joker_stands_for_black_joker():
    assert kinds("BJ RJ") == [("set", "black jokers")]
    assert beats("2S 2D", "BJ RJ")             # a pair of black jokers beats a pair of 2s


def test_sets_only_compare_with_the_same_size():
    assert not beats("7H 7S", "8H 8S 8D")
    assert not beats("7H 7S 7D", "AH AS")


def test_four_fours_with_twos_is_a_set():
    assert kinds("4H 4S 2D 2C") == [("set", "fours")]


def test_singles_ignore_suits():
    assert beats("3S", "4D") and not beats("7S", "7H") and beats("AS", "2D")
    assert beats("2S", "BJ") and beats("BJ", "RJ") and not beats("RJ", "BJ")


def test_all_wild_group_reads_as_its_own_rank():
    assert kinds("2S 2D") == [("set", "twos")]


# --- single sequences ------------------------------------------------------------------------
@pytest.mark.parametrize("cards", ["2H 3S 4D", "QH KS AD 2C", "5H 6S 2D 8C", "6H 7S"])
def test_not_sequences(cards):
    assert all(kind != "sequence" for kind, _ in kinds(cards))
    assert kinds(cards) == []


def test_single_suited_beats_any_mixed_of_same_length():
    assert beats("QC KC AD", "3S 4S 5S")
    assert not beats("3S 4S 5S", "QC KC AD")
    assert beats("3S 4S 5S", "4H 5H 6H")       # only a higher single-suited one beats it
    assert not beats("3S 4S 5S", "JC QD KH")


def test_joker_in_suited_sequence_and_purity():
    assert beats("7C 8C 9S", "6H BJ 8H")       # the joker stands for the 7 of hearts
    assert beats("6H BJ 8H", "6D 7D 8D")       # equal rank: pure beats impure
    assert beats("6H BJ 8H", "7S 8S BJ")       # a higher single-suited one, impure
    assert not beats("6D 7D 8D", "6H BJ 8H")


def test_ambiguous_selection_readings_highest_first():
    readings = R.combos("5H 6D BJ")
    assert [c.label for c in readings] == ["5-7", "4-6"]
    assert beats("4S 5C 6S", "5H 6D BJ")       # read as 5-7


def test_sequences_need_same_length():
    assert not beats("3S 4D 5C", "4S 5D 6C 7H")


def test_twos_in_sequences_option():
    r2 = shangyou.rules("zheng-shangyou/pagat", twos_in_sequences=True)
    assert beats("QS KS AS", "KH AH 2H", rules=r2)
    assert kinds("KH AH 2H") == []             # not a sequence by default


# --- multiple sequences ---------------------------------------------------------------------
@pytest.mark.parametrize("cards", ["6H 6S 6D 7H 7S 7D", "5H 5S 7H 7S 8H 8S",
                                   "7H 7S 8H 8S 8D 9H 9S", "7H 7S 2H 2S 9H 9S"])
def test_not_multiple_sequences(cards):
    assert all(kind != "multiple sequence" for kind, _ in kinds(cards))


def test_multiple_sequence_examples():
    assert kinds("5H 5S 6H 2D 7C BJ") == [("multiple sequence", "5-7x2")]
    assert beats("5H 5S 6H 2D 7C BJ", "5D 5C 6S 6D 7H 7S")   # pure beats impure
    assert beats("5D 5C 6S 6D 7H 7S", "6H BJ 7H 2D 8S 8C")   # higher beats pure
    assert kinds("KH KS AH AS 2D BJ") == [("multiple sequence", "Q-Ax2")]
    assert beats("KH KS AH AS 2D BJ", "QH QS KD KC AD AC")


def test_multiple_sequences_need_same_shape():
    assert not beats("4H 4S 4D 4C 5H 5S 5D 5C 6H 6S 6D 6C",
                     "10H 10S 10D JH JS JD QH QS QD KH KS KD")


def test_twos_may_not_replace_a_whole_rank_but_a_joker_with_a_two_may():
    assert kinds("5H 5S 6H 6S 2D BJ") == [("multiple sequence", "5-7x2"),
                                         ("multiple sequence", "4-6x2")]


# --- beats() conventions ---------------------------------------------------------------------
def test_beats_reads_first_play_highest_and_any_reading_of_second():
    # first play read as 5-7; second may be read as 6-8 to beat it
    assert beats("5H 6D BJ", "6S 7C 8D")
    assert not beats("5H 6D BJ", "4S 5C 6D")


def test_beats_rejects_non_combination_first_play():
    with pytest.raises(ValueError):
        R.beats("3H 5S", "4H")


def test_unknown_option_or_name():
    with pytest.raises(ValueError, match="unknown option"):
        shangyou.rules("zheng-shangyou/pagat", bombs=True)
    with pytest.raises(ValueError, match="unknown game"):
        shangyou.rules("no-such-game")
    assert shangyou.rules("pits").name == "zheng-shangyou/pagat"


# --- brute force: every sub-multiset of a small hand, read independently --------------------
def brute_readings(cards: tuple, twos_in_seq: bool) -> set:
    """Independent reading of exact cards: {(cls, key, label)}."""
    out = set()
    n = len(cards)
    rank = [13 if c == BJ_CODE else 14 if c == RJ_CODE else c >> 2 for c in cards]
    jokers = sum(1 for r in rank if r >= 13)
    twos = sum(1 for r in rank if r == 12)
    if n == 1:
        return {(("single",), (rank[0],), None)}
    # sets
    for r in range(15):
        nat = rank.count(r)
        wild_ok = all(x == r or (x > r and x >= 12) for x in rank)
        if nat >= 1 and wild_ok:
            out.add((("set", n), (r, 1 if nat == n else 0), None))
    top = 12 if twos_in_seq else 11
    # single sequences: naturals are non-jokers, each a distinct rank within the window
    naturals = [c for c in cards if c < BJ_CODE]
    nat_ranks = [c >> 2 for c in naturals]
    if n >= 3 and naturals and len(set(nat_ranks)) == len(nat_ranks) and max(nat_ranks) <= top:
        suited = 1 if len({c & 3 for c in naturals}) == 1 else 0
        for lo in range(0, top - n + 2):
            hi = lo + n - 1
            if all(lo <= r <= hi for r in nat_ranks):
                out.add((("seq", n), (suited, hi, 1 if jokers == 0 else 0), None))
    # multiple sequences
    for m in range(3, 13):
        if n % m or n // m < 2:
            continue
        k = n // m
        for lo in range(0, 12 - m + 1):
            hi = lo + m - 1
            plain = [r for r in rank if r < 12]
            if not all(lo <= r <= hi for r in plain):
                continue
            cnt = Counter(plain)
            if any(cnt[r] > k for r in cnt):
                continue
            zero = sum(1 for r in range(lo, hi + 1) if cnt[r] == 0)
            if zero > jokers:
                continue
            out.add((("mseq", m, k), (hi, 1 if twos + jokers == 0 else 0), None))
    return out


def signature(combo):
    """Rank-level identity of a play: naturals by rank (suit kept only when suited)."""
    suited = combo.cls[0] == "seq" and combo.key[0] == 1
    return canon(combo.cards, suited)


def canon(cards, suited: bool) -> tuple:
    """Suits are irrelevant except in single-suited sequences; jokers stay distinct."""
    return tuple(sorted(c if (c >= BJ_CODE or suited) else (c >> 2) * 4 for c in cards))


@pytest.mark.parametrize("twos_in_seq", [False, True])
def test_leads_match_brute_force(twos_in_seq):
    fam = PagatFamily(twos_in_sequences=twos_in_seq)
    rng = random.Random(5)
    pack = deck(1)
    for trial in range(25):
        hand = tuple(sorted(rng.sample(pack, 9)))
        if trial % 3 == 0:   # make wilds common
            extra = [c for c in (48, 49, 50, 51, BJ_CODE, RJ_CODE) if c not in hand]
            hand = tuple(sorted(hand[:6] + tuple(extra[:3])))
        listed = {(c.cls, c.key, signature(c)) for c in fam.leads(hand)}
        expect = set()
        for size in range(1, len(hand) + 1):
            for sub in set(itertools.combinations(hand, size)):
                for cls, key, _ in brute_readings(sub, twos_in_seq):
                    sig_suited = cls[0] == "seq" and key[0] == 1
                    sig = canon(sub, sig_suited)
                    expect.add((cls, key, sig))
        # mixed sequences: the generator lists a mixed play when some selection is mixed
        assert listed == expect, (parse(list(hand)), sorted(listed ^ expect)[:5])


def test_follows_equal_filtered_leads():
    fam = PagatFamily()
    rng = random.Random(9)
    pack = deck(1)
    for _ in range(60):
        hand = tuple(sorted(rng.sample(pack, 13)))
        other = tuple(sorted(rng.sample(pack, 13)))
        leads = fam.leads(other)
        for prev in rng.sample(leads, min(15, len(leads))):
            a = {(c.cards, c.label, c.key) for c in fam.follows(hand, prev)}
            b = {(c.cards, c.label, c.key) for c in fam.leads(hand) if c.beats(prev)}
            assert a == b, prev


def test_three_of_diamonds_counts_in_a_single_suited_sequence():
    """3D is card 0: the generator once took it for a missing card, so 3D 4D 5D could not be
    led as a sequence at all (and 3D 5D BJ only with the joker as 3)."""
    fam = PagatFamily()
    hand = tuple(sorted(parse("3D 4D 5D")))
    seqs = [(c.key, c.cards, c.label) for c in fam.leads(hand) if c.cls[0] == "seq"]
    assert seqs == [((1, 2, 1), hand, "3-5 D")]
    hand = tuple(sorted(parse("3D 5D BJ")))
    seqs = {(c.key, c.cards) for c in fam.leads(hand) if c.cls[0] == "seq"}
    assert ((1, 2, 0), hand) in seqs                       # BJ as the 4
    assert fam.combos(hand)[0].label == "3-5 D"
