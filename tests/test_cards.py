"""Card notation (RULES.md, 'Common to all games'): parse, print, round trip, errors."""

import pytest
from hypothesis import given, strategies as st

from shangyou import NotationError
from shangyou.cards import CARDS, Card, Cards, deck, parse, parse_card

ALL = [str(c) for c in CARDS]


def test_every_card_prints_canonically_and_parses_back():
    assert len(ALL) == 54 and len(set(ALL)) == 54
    for c in CARDS:
        assert parse_card(str(c)) == c


@pytest.mark.parametrize("token,canonical", [
    ("7h", "7H"), ("10s", "10S"), ("Ts", "10S"), ("t♠", "10S"), ("q♥", "QH"), ("2d", "2D"),
    ("a♣", "AC"), ("bj", "BJ"), ("Rj", "RJ"), ("K♦", "KD"), ("jc", "JC")])
def test_input_is_case_insensitive_with_symbols(token, canonical):
    assert str(parse_card(token)) == canonical


@pytest.mark.parametrize("bad", ["1H", "11S", "7X", "XJ", "H7", "", "10", "JJ", "7HH", "♠"])
def test_malformed_tokens_are_named(bad):
    with pytest.raises(NotationError) as e:
        parse(f"3S {bad} 4D") if bad else parse_card(bad)
    assert repr(bad) in str(e.value)


def test_error_names_first_bad_token_in_a_play():
    with pytest.raises(NotationError, match="'8Z'"):
        parse("7H 8Z 9Q")


def test_rank_and_suit_and_order():
    c = parse_card("QS")
    assert c.rank == 9 and c.suit == 3 and not c.is_joker
    bj, rj = parse_card("BJ"), parse_card("RJ")
    assert bj.is_joker and bj.suit is None and bj.rank == 13 and rj.rank == 14
    # int order: rank, then suit D < C < H < S
    assert parse_card("3D") < parse_card("3S") < parse_card("4D") < parse_card("2S") < bj < rj


@pytest.mark.parametrize("packs", [1, 2, 3, 4])
def test_decks(packs):
    d = deck(packs)
    assert len(d) == 54 * packs
    assert all(d.count(c) == packs for c in CARDS)
    assert len(deck(packs, jokers=False)) == 52 * packs
    with pytest.raises(ValueError):
        deck(5)


@given(st.lists(st.sampled_from(ALL), max_size=30))
def test_round_trip(tokens):
    cards = parse(" ".join(tokens))
    assert str(cards) == " ".join(tokens)
    assert parse(str(cards)) == cards
    assert isinstance(cards, Cards) and all(isinstance(c, Card) for c in cards)


@given(st.lists(st.sampled_from(ALL), min_size=1, max_size=10), st.data())
def test_any_case_and_symbols_parse_the_same(tokens, data):
    sym = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
    mangled = []
    for t in tokens:
        if t not in ("BJ", "RJ") and data.draw(st.booleans()):
            t = t[:-1] + sym[t[-1]]
        if data.draw(st.booleans()):
            t = t.lower()
        if t.startswith("10") and data.draw(st.booleans()):
            t = "T" + t[2:]
        mangled.append(t)
    assert str(parse(" ".join(mangled))) == " ".join(tokens)


@given(st.text(max_size=12))
def test_garbage_never_crashes_other_than_notation_error(text):
    try:
        parse(text)
    except NotationError:
        pass


@pytest.mark.parametrize("packs,jokers", [(1, True), (2, True), (3, False)])
def test_deck_counts_and_back(packs, jokers):
    from collections import Counter

    from shangyou.cards import deck_counts, from_counts
    counts = deck_counts(packs, jokers)
    assert Counter(deck(packs, jokers)) == Counter({c: k for c, k in enumerate(counts) if k})
    assert from_counts(counts) == sorted(deck(packs, jokers))
    left = list(counts)
    left[0] -= packs + 1                # more taken than the pack holds: no card, no error
    left[5] -= 1
    want = sorted(deck(packs, jokers))
    want = [c for c in want if c != 0]
    want.remove(5)
    got = from_counts(left)
    assert got == want and all(type(c) is Card for c in got)
