"""Sheng ji follows generated directly, and chosen card by card when there are many.

:func:`legal_follows` builds only the plays that meet the follow obligations; the old way,
listing every multiset of the suit and then filtering (:func:`legal_follows_reference`), is the
reference. These tests compare the two over random states of every Sheng ji preset and pack
count, over constructed long suits, and over hypothesis' hands; and check that choosing the
cards one at a time (:func:`next_cards`, the game's ``pick`` moves) reaches exactly the legal
follows.
"""

import random
from collections import Counter

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import shangyou
from shangyou.cards import deck, parse
from shangyou.games.sheng_ji.follow import (
    check_follow,
    follow_needs,
    legal_follows,
    legal_follows_reference,
    next_cards,
)
from shangyou.games.sheng_ji.game import FOLLOW_LIMIT
from shangyou.games.sheng_ji.order import Trump, decompose

CONFIGS = [("sheng-ji", {"players": 4, "decks": d}) for d in (1, 2, 3, 4)] + \
    [("sheng-ji", {"players": 6, "decks": d}) for d in (2, 3, 4)] + \
    [("sheng-ji/single-deck", {"players": 4})] + \
    [("sheng-ji/zhao-pengyou", {"players": p, "decks": d}) for p in (5, 6, 7) for d in (2, 3)]


def reachable(trump, hand, lead, units, chosen=(), memo=None) -> set:
    """Every play that choosing the cards one at a time can end in (:func:`next_cards`)."""
    memo = set() if memo is None else memo
    out: set = set()
    key = tuple(sorted(chosen))
    if key in memo:
        return out
    memo.add(key)
    mine, n, _, _ = follow_needs(trump, hand, lead, units)
    short = len(mine) <= n
    if short and len(chosen) + len(mine) == n:
        return {tuple(sorted(tuple(mine) + key))}
    if not short and len(chosen) == n:
        return {key}
    for c in next_cards(trump, hand, lead, units, chosen):
        out |= reachable(trump, hand, lead, units, chosen + (c,), memo)
    return out


def compare(trump, hand, lead, units, steps_up_to=2000) -> int:
    """Assert the direct and the reference generators agree (and, for sets up to
    ``steps_up_to``, that card-by-card choosing reaches the same plays); the set's size."""
    ref = legal_follows_reference(trump, hand, lead, units)
    assert legal_follows(trump, hand, lead, units) == ref       # the same plays, same order
    capped = legal_follows(trump, hand, lead, units, limit=FOLLOW_LIMIT)
    assert capped == (None if len(ref) > FOLLOW_LIMIT else ref)
    if len(ref) <= steps_up_to:
        assert reachable(trump, hand, lead, units) == set(ref)
    return len(ref)


# ----------------------------------------------------------------------- game states
@pytest.mark.parametrize("name,opts", CONFIGS, ids=[f"{n}-{o}" for n, o in CONFIGS])
def test_direct_follows_equal_the_reference_in_random_games(name, opts):
    """Every follow decision of random hands (random bids, burials, leads and throws)."""
    rng = random.Random(7)
    decisions = 0
    for seed in range(3):
        g = shangyou.new_game(name, seed=seed, **opts)
        while not g.over:
            if g.phase == "play" and g.trick and not g.pending:
                hand = g.hands[g.to_act]
                lead = g.trick[0][1]
                size = compare(g.trump, hand, lead, g.lead_units, steps_up_to=300)
                decisions += 1
                kinds = {m.kind for m in g.legal_moves()}
                assert kinds == ({"pick"} if size > FOLLOW_LIMIT else {"play"})
            moves = g.legal_moves()
            assert len(moves) <= max(FOLLOW_LIMIT, 54 * opts.get("decks", 2) * 2)
            g.apply(rng.choice(moves))
    assert decisions > 20


def long_suit_state(rng: random.Random):
    """A follower holding many cards of the suit led, and a lead rich in tuples and runs."""
    decks = rng.choice([1, 2, 3, 4])
    t = Trump(rng.randrange(13), rng.choice([None, 0, 1, 2, 3]), rng.random() < 0.2)
    cards = deck(decks)
    rng.shuffle(cards)
    s = rng.choice([x for x in range(5) if any(t.suit_of(c) == x for c in range(54))])
    pool = [c for c in cards if t.suit_of(c) == s]
    lead_n = rng.randint(1, min(10, len(pool) - 2))
    lead = pool[:lead_n]
    if rng.random() < 0.6:                     # tuples at neighbouring positions: tractors
        counts = Counter(pool)
        width = rng.choice([2, 2, 3, 4][:decks])
        lead = []
        for c in sorted(counts, key=t.position, reverse=True):
            if counts[c] >= width and len(lead) + width <= lead_n:
                lead += [c] * width
        lead = lead or pool[:1]
    lead = tuple(sorted(lead))
    rest = Counter(pool)
    rest.subtract(lead)
    mine = sorted(rest.elements(), key=t.position)
    start = rng.randrange(max(1, len(mine) - 4))
    mine = mine[start:start + rng.randint(1, 18)]
    others = [c for c in cards if t.suit_of(c) != s]
    others = others[:max(0, len(lead) - len(mine)) + rng.randint(0, 5)]
    return t, tuple(mine + others), lead


def test_direct_follows_equal_the_reference_on_long_suits():
    rng = random.Random(2024)
    sizes = [compare(*st_, decompose(st_[0], st_[2])) for st_ in
             (long_suit_state(rng) for _ in range(400))]
    assert max(sizes) > FOLLOW_LIMIT and min(sizes) >= 1


def test_four_packs_thirty_three_cards_of_the_suit_are_picked_card_by_card():
    """The worst case named in issue 24: 33 spades against a throw of three triples."""
    t = Trump.parse("2C")
    lead = tuple(sorted(parse("AS AS AS KS KS KS QS QS QS")))
    left = Counter(parse(" ".join(r + "S" for r in "3 4 5 6 7 8 9 10 J Q K A".split())) * 4)
    left.subtract(lead)
    hand = tuple(sorted(left.elements())[:33])
    units = decompose(t, lead)
    ref = legal_follows_reference(t, hand, lead, units)
    assert len(ref) == 873 and legal_follows(t, hand, lead, units, limit=FOLLOW_LIMIT) is None
    first = next_cards(t, hand, lead, units, ())
    assert 1 <= len(first) <= len(set(hand))
    # any path of picks ends in a legal follow, and only legal follows are reachable
    assert reachable(t, hand, lead, units) == set(ref)


# ----------------------------------------------------------------------- hypothesis
SUIT_CARDS = st.lists(st.sampled_from(list(parse("3S 4S 5S 6S 8S 9S QS KS AS 7S 7H 7C"))),
                      min_size=1, max_size=14)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(["7S", "7H", "7", "AS"]), SUIT_CARDS, SUIT_CARDS,
       st.lists(st.sampled_from(list(parse("3D 4D KH BJ RJ"))), max_size=4),
       st.randoms(use_true_random=False))
def test_property_picks_reach_exactly_the_legal_follows(trump, lead_cards, mine, others, rnd):
    t = Trump.parse(trump)
    counts = Counter(mine)
    suit = t.suit_of(lead_cards[0])
    lead = tuple(sorted(c for c in lead_cards if t.suit_of(c) == suit))
    hand = tuple(c for c in mine if counts[c] <= 4) + tuple(others)
    assume(len(hand) >= len(lead))          # a hand holds at least as many cards as led
    units = decompose(t, lead)
    ref = legal_follows_reference(t, hand, lead, units)
    assert ref and legal_follows(t, hand, lead, units) == ref
    assert all(check_follow(t, hand, lead, units, p) is None for p in ref)
    # a random walk of picks always ends in a legal follow
    chosen: tuple = ()
    mine_, n, _, _ = follow_needs(t, hand, lead, units)
    need = n - len(mine_) if len(mine_) <= n else n
    for _ in range(need):
        options = next_cards(t, hand, lead, units, chosen)
        assert options
        chosen += (rnd.choice(options),)
    play = tuple(sorted(chosen + (tuple(mine_) if len(mine_) <= n else ())))
    assert check_follow(t, hand, lead, units, play) is None
    # and every legal follow can be picked in any order
    if ref and len(mine_) > n:
        target = list(rnd.choice(ref))
        rnd.shuffle(target)
        for i, c in enumerate(target):
            assert c in next_cards(t, hand, lead, units, tuple(target[:i]))


# ----------------------------------------------------------------------- through the game
def long_suit_game():
    """Four packs, level 2, clubs trump: seat 0 has led three triples of spades and seat 1,
    holding 33 spades, is to follow (873 legal follows: more than FOLLOW_LIMIT)."""
    g = shangyou.new_game("sheng-ji", seed=3, decks=4)
    while g.phase != "play":
        g.apply(g.legal_moves()[0])
    t = g.trump = Trump.parse("2C")
    lead = tuple(sorted(parse("AS AS AS KS KS KS QS QS QS")))
    left = Counter(parse(" ".join(r + "S" for r in "3 4 5 6 7 8 9 10 J Q K A".split())) * 4)
    left.subtract(lead)
    spades = sorted(left.elements())
    rest = [c for c in deck(4) if t.suit_of(c) != 3]
    g.hands = [list(lead) + rest[:43], spades[:33] + rest[43:62], spades[33:] + rest[62:108],
               rest[108:160]]
    g.kitty = rest[160:]
    g.declarer, g.leader, g.to_act = 0, 0, 0
    g.won = [[] for _ in range(4)]
    g._legal = None
    g.apply("AS AS AS KS KS KS QS QS QS")
    assert g.trick == [(0, lead)] and g.to_act == 1
    return g, lead


def test_a_long_suit_follow_is_picked_card_by_card_in_the_game():
    g, lead = long_suit_game()
    t, hand = g.trump, list(g.hands[1])
    ref = legal_follows_reference(t, hand, lead, g.lead_units)
    rng = random.Random(5)
    target = list(rng.choice(ref))
    rng.shuffle(target)
    for i, c in enumerate(target):
        moves = g.legal_moves()
        assert {m.kind for m in moves} == {"pick"} and len(moves) <= len(set(hand))
        text = f"pick {shangyou.cards.CARD_TEXT[c]}"
        assert text in [str(m) for m in moves]
        g.apply(text)
        if i < len(target) - 1:
            assert g.to_act == 1 and sorted(g.pending) == sorted(target[:i + 1])
            assert g.view(1)["pending"]
    assert g.trick[1] == (1, tuple(sorted(target))) and g.pending == [] and g.to_act == 2


def test_a_whole_follow_is_still_accepted_where_cards_are_picked():
    """Logs made when every long-suit follow was listed whole still replay."""
    g, lead = long_suit_game()
    hand = list(g.hands[1])
    play = legal_follows_reference(g.trump, hand, lead, g.lead_units)[-1]
    with pytest.raises(shangyou.IllegalMove):
        g.apply(" ".join(shangyou.cards.CARD_TEXT[c] for c in sorted(hand)[:9]))
    g.apply(" ".join(shangyou.cards.CARD_TEXT[c] for c in play))
    assert g.trick[1] == (1, play) and g.to_act == 2


def test_after_some_picks_the_rest_may_be_typed_whole():
    g, lead = long_suit_game()
    text = shangyou.cards.CARD_TEXT
    ref = legal_follows_reference(g.trump, list(g.hands[1]), lead, g.lead_units)
    target = ref[100]
    for c in target[:3]:
        g.apply(f"pick {text[c]}")
    wrong = [c for c in g.hands[1] if c not in target and g.trump.suit_of(c) == 3][:6]
    assert tuple(sorted(target[:3] + tuple(wrong))) not in ref
    with pytest.raises(shangyou.IllegalMove):          # nine cards, but not a legal follow
        g.apply(" ".join(text[c] for c in wrong))
    g.apply(" ".join(text[c] for c in target[3:]))
    assert g.trick[1] == (1, target) and g.pending == []


def test_a_pick_that_cannot_be_completed_is_refused():
    g, lead = long_suit_game()
    t = g.trump
    # the lead (a tractor of three triples) asks for a tractor of three pairs, which seat 1
    # holds: after six different cards, the three left must pair three of them
    assert follow_needs(t, g.hands[1], lead, g.lead_units)[2:] == (3, 3)
    singles = sorted({c for c in g.hands[1] if t.suit_of(c) == 3}, key=t.position)
    for c in singles[:6]:
        g.apply(f"pick {shangyou.cards.CARD_TEXT[c]}")
    offered = {m.cards[0] for m in g.legal_moves()}
    assert offered and offered <= set(singles[:6])
    with pytest.raises(shangyou.IllegalMove):
        g.apply(f"pick {shangyou.cards.CARD_TEXT[singles[6]]}")


@pytest.mark.parametrize("level", ["greedy", "heuristic", "search"])
def test_bots_pick_a_long_suit_follow_card_by_card(level):
    """Each bot level answers the picks with legal moves (strictly: no fallback) and the
    play it ends in is a legal follow; then the hand plays to its end."""
    from shangyou.bots import (
        make_bot,
        play_out,
        sheng_ji,
        sheng_ji_heuristic,
        sheng_ji_search,
    )
    choose = {"greedy": sheng_ji.choose, "heuristic": sheng_ji_heuristic.choose,
              "search": lambda v, rng, strict: sheng_ji_search.choose(
                  v, rng, iterations=4, strict=strict)}[level]
    g, lead = long_suit_game()
    hand = list(g.hands[1])
    rng = random.Random(1)
    while g.to_act == 1:
        view = g.view(1)
        move = choose(view, rng, strict=True)
        assert move in view["legal_moves"] and move.startswith("pick ")
        g.apply(move)
    play = g.trick[1][1]
    assert check_follow(g.trump, hand, lead, g.lead_units, play) is None
    play_out(g, [make_bot("greedy", seed=s) for s in range(4)])
    assert g.over
