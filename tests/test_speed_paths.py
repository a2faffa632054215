"""Facts the engine's faster paths rely on (the playout, golden and family tests check the
paths themselves: same plays, same order, same views)."""

from __future__ import annotations

import random

import pytest

import shangyou
from shangyou.games.zheng_shangyou.pagat import PagatFamily


@pytest.mark.parametrize("name", ["zheng-shangyou/pagat", "zheng-shangyou/owen", "zheng-fen",
                                  "zheng-shangyou/winner"])
def test_a_single_card_has_one_reading(name):
    """Move texts skip the reading check for single cards (``may_be_ambiguous``)."""
    fam = shangyou.rules(name).family
    for c in range(54):
        assert len(fam.combos((c,))) <= 1


@pytest.mark.parametrize("twos", [False, True])
def test_pagat_plays_without_jokers_have_one_reading(twos):
    """pagat's ``may_be_ambiguous`` is False for plays without jokers; on random hands every
    such play has exactly one reading, and the move text never carries ``as``."""
    fam = PagatFamily(twos_in_sequences=twos)
    rng = random.Random(7)
    checked = 0
    for _ in range(60):
        hand = sorted(rng.sample(range(54), 18))
        for combo in fam.leads(hand):
            if combo.cards[-1] < 52:
                assert len(fam.combos(combo.cards)) == 1, combo
                checked += 1
            else:
                assert fam.may_be_ambiguous(combo) == (len(combo.cards) > 1)
    assert checked > 1000


def test_memoised_readings_are_copies():
    fam = PagatFamily()
    cards = tuple(sorted(shangyou.parse("5H 6D BJ")))
    first = fam.combos(cards)
    first.clear()
    assert [c.label for c in fam.combos(cards)] == ["5-7", "4-6"]
    assert fam.default_label(cards) == "5-7"
