"""The plan-aware playout policy of the climbing search (bots/climbing_playout.py)."""

from __future__ import annotations

import random
from collections import Counter

import pytest

import shangyou
from shangyou.bots import climbing_playout, climbing_search
from shangyou.bots.climbing_playout import PlanPolicy, counts_of, plan
from shangyou.games.climbing.worlds import WorldSampler
from helpers import CONFIGS, config_id
from test_bots_climbing import deal_with

CLIMBING = [c for c in CONFIGS if not c[0].startswith("sheng-ji")]
POLICY = PlanPolicy()


def _plan_of(text):
    return plan(tuple(counts_of(shangyou.parse(text))))


def test_plan_keeps_a_sequence_and_a_pair_whole():
    cost, groups = _plan_of("3H 4D 5S 6C 7C 9H 9S")
    assert sorted(groups) == [("q", 0, 4, 1), ("s", 6, 6, 2)]
    assert cost == 2.0


def test_plan_prefers_a_pair_sequence_to_three_pairs():
    cost, groups = _plan_of("5H 5S 6H 6S 7D 7C")
    assert groups == (("m", 2, 4, 2),)
    assert cost < 1.0


def test_plan_counts_top_cards_as_cheap_groups():
    low, _ = _plan_of("4H 9S")
    high, _ = _plan_of("4H 2S")
    joker, _ = _plan_of("4H RJ")
    assert low == 2.0 and joker < high < low


def _move_text(m):
    return " ".join(shangyou.cards.CARD_TEXT[c] for c in m.cards)


def test_policy_leads_its_lowest_group_without_breaking_a_sequence():
    g, s = deal_with("zheng-shangyou/pagat", 5, {0: "4H 4S 5H 6C 9D 9C 9H KS"})
    # 4-5-6 + 4 + 999 + K: the lowest group holding the 4s is the sequence or the single 4;
    # either way the triple nines stay whole and no 2 or joker is spent
    m = POLICY(g, random.Random(1), {})
    assert m in g.legal_moves()
    text = _move_text(m)
    assert "9D" not in text and "KS" not in text
    assert text in ("4H 5H 6C", "4H", "4S", "4H 4S")


def test_policy_goes_out_when_one_play_empties_its_hand():
    g, s = deal_with("zheng-shangyou/pagat", 4, {0: "3H 4D 5H 6H", 1: "7C 8D 9S"})
    g.apply("3H 4D 5H")
    assert _move_text(POLICY(g, random.Random(1), {})) == "7C 8D 9S"


def test_policy_never_beats_its_partner():
    g, s = deal_with("zheng-shangyou/pagat-teams", 4,
                     {0: "5H 9C 10C JC QC KC AC", 2: "4C 4D 6D 8C 10S JD KD"})
    g.apply("5H")
    g.apply("pass")
    assert g.to_act == (s + 2) % 4
    team_of = {0: 0, 2: 0, 1: 1, 3: 1}
    assert POLICY(g, random.Random(1), team_of).kind == "pass"


def test_policy_follows_a_single_without_breaking_its_pair():
    g, s = deal_with("zheng-shangyou/pagat", 4,
                     {0: "4H 7C 8D 10S JS QS", 1: "5C 5D 6S 9H JD QH KH"})
    g.apply("4H")
    m = POLICY(g, random.Random(1), {})
    assert _move_text(m) == "6S"          # the single six, not one of the fives


def test_policy_stops_an_opponent_about_to_go_out():
    g, s = deal_with("zheng-shangyou/pagat", 4, {0: "4H 2C", 1: "6S 9H JD QH KH AH"})
    # the opponent leading holds one card after its single: the follower plays its highest
    g.apply("4H")
    m = POLICY(g, random.Random(1), {})
    assert _move_text(m) == "AH"


def test_policy_leads_a_low_single_for_a_partner_with_one_card():
    g, s = deal_with("zheng-shangyou/pagat-teams", 4,
                     {0: "3H 3S 9C 9D 10H JS QS KC", 2: "8D"})
    team_of = {s: 0, (s + 2) % 4: 0, (s + 1) % 4: 1, (s + 3) % 4: 1}
    assert _move_text(POLICY(g, random.Random(1), team_of)) == "3H"


@pytest.mark.parametrize("cfg", CLIMBING, ids=config_id)
def test_plan_playouts_end_legally_and_keep_every_card(cfg):
    name, n, opts = cfg
    for seed in (5, 6):
        g = shangyou.new_game(name, players=n, seed=seed, **opts)
        v = g.view(g.to_act)
        search = climbing_search.Search(v, random.Random(seed))
        world = search.sampler.sample(search.rng)
        before = Counter(c for h in world.hands for c in h)
        played = Counter()
        steps = 0
        while not world.over:
            move = POLICY(world, search.rng, search.team_of)
            assert move in world.all_moves()      # playouts skip the steps of a choice
            if move.kind != "pass":
                played.update(move.cards)
            world.apply(move)
            steps += 1
        after = Counter(c for h in world.hands for c in h)
        assert after + played == before            # every card either played or still held
        assert steps > n and world.history[-1]["order"]


def test_search_uses_the_plan_policy_by_default():
    g = shangyou.new_game("zheng-shangyou/pagat", players=5, seed=4)
    s = climbing_search.Search(g.view(g.to_act), random.Random(1))
    assert isinstance(s.policy, PlanPolicy)


def test_search_keeps_the_policy_move_as_its_default_candidate(monkeypatch):
    """Candidate 0 (kept unless another is clearly better) is the playout policy's move in a
    sampled world; the heuristic's move comes next."""
    from shangyou.bots import climbing_heuristic
    g = shangyou.new_game("zheng-shangyou/pagat", players=5, seed=4)
    v = g.view(g.to_act)
    heur = climbing_heuristic.choose(v, random.Random(1))
    other = next(m for m in v["legal_moves"] if m != heur)
    s = climbing_search.Search(v, random.Random(1))
    legal = {str(m): m for m in s.sampler.sample(random.Random(2)).legal_moves()}

    def policy(world, rng, team_of):
        return legal[other]
    s.policy = policy
    monkeypatch.setattr(climbing_search, "PLAYOUT_CANDIDATE", "first")
    cands = s.candidates()
    assert cands[0] == other and cands[1] == heur
    monkeypatch.setattr(climbing_search, "PLAYOUT_CANDIDATE", "")
    assert s.candidates()[0] == heur and other not in s.candidates()[:1]


def test_other_families_keep_the_heuristic_move_first(monkeypatch):
    """Outside pagat the policy's move is not made candidate 0: the heuristic's move stays
    first, also where the two differ."""
    from shangyou.bots import climbing_heuristic
    monkeypatch.setattr(climbing_search, "PLAYOUT_CANDIDATE", "first")
    found = 0
    for game in ("zheng-shangyou/winner", "zheng-shangyou/owen", "zheng-fen"):
        g = shangyou.new_game(game, players=4, seed=1)
        while not g.over:
            v = g.view(g.to_act)
            s = climbing_search.Search(v, random.Random(1))
            pm = str(s.policy(s.sampler.sample(random.Random(1)), s.rng, s.team_of))
            assert pm in v["legal_moves"]
            heur = climbing_heuristic.choose(v, random.Random(1))
            if pm != heur:
                found += 1
                assert s.candidates()[0] == heur
                break
            g.apply(heur)
    assert found == 3            # each family has such a position in its first deal


# ------------------------------------------------------------- Owen and Zheng Fen plans
def _planned(shape, text):
    return climbing_playout.planner(climbing_playout.SHAPES[shape])(
        tuple(counts_of(shangyou.parse(text))))


def test_owen_plans_straights_of_five_and_stairs_of_two_pairs():
    # seed 002: a straight needs 5 ranks, a stair 2 consecutive pairs
    assert _planned("owen", "3H 4D 5S 6C 7C")[1] == (("q", 0, 4, 1),)
    assert len(_planned("owen", "3H 4D 5S")[1]) == 3
    assert _planned("owen", "5H 5S 6H 6S")[1] == (("m", 2, 3, 2),)
    # pagat's shape takes 3-card sequences and needs 3 pairs
    assert _planned("pagat", "3H 4D 5S")[1] == (("q", 0, 2, 1),)
    assert len(_planned("pagat", "5H 5S 6H 6S")[1]) == 2


def test_zheng_fen_plans_pair_sequences_up_to_the_two_and_no_single_sequences():
    # seed 004: K K A A 2 2 is a sequence of pairs; a single sequence must be of one suit,
    # which rank counts cannot show, so it is never planned
    assert _planned("zheng-fen", "KH KS AH AS 2H 2S")[1] == (("m", 10, 12, 2),)
    assert len(_planned("zheng-fen", "3H 4H 5H 6H 7H")[1]) == 5


ZF_HANDS = {0: "5H 5S 5D 5C KH KS 3H 3S 4H 4S 6H 6S 7H 7S",
            1: "RJ 8H 8S 9H 9S JH JS QH QS 3D 4D 6D 7D 8D",
            2: "2H 2S BJ 3C 4C 6C 7C 8C 9D 9C 10H 10S JD"}


def test_zheng_fen_policy_spends_a_top_card_to_take_points_it_will_keep():
    # nobody left can beat the red joker (the 5s, which a 5-10-K special needs, are all the
    # leader's, and the four 2s are split), so the follower takes the king's 10 points with it
    g, s = deal_with("zheng-fen", 4, ZF_HANDS)
    g.apply("KH")
    assert _move_text(POLICY(g, random.Random(1), {})) == "RJ"


def test_zheng_fen_policy_keeps_its_top_card_when_the_trick_holds_no_points():
    g, s = deal_with("zheng-fen", 4, ZF_HANDS)
    g.apply("7H")
    assert POLICY(g, random.Random(1), {}).kind == "pass"


def test_zheng_fen_policy_leads_a_group_without_points_first():
    # the lowest group is the single 5 (5 points): the single 6 is led instead
    g, s = deal_with("zheng-fen", 4, {0: "5H 6S 9D 9C JH JS QD QC 2D"})
    assert _move_text(POLICY(g, random.Random(1), {})) == "6S"


def test_owen_and_zheng_fen_plan_a_triple_and_a_pair_as_one_full_house():
    assert _planned("owen", "6H 6S 6D 9H 9S")[1] == (("f", 3, 6, 3),)   # ranks: 0 is the 3
    assert _planned("zheng-fen", "4H 4S 9H 9S 9D")[1] == (("f", 6, 1, 3),)
    assert len(_planned("pagat", "6H 6S 6D 9H 9S")[1]) == 2     # pagat has no full house


def test_owen_policy_leads_a_planned_full_house_whole():
    g, s = deal_with("zheng-shangyou/owen", 4, {0: "3H 3S 3D 8H 8S 9D 10C JD QC KH AS 2H 2S"}, seed=4)
    m = POLICY(g, random.Random(1), {})
    assert m in g.legal_moves() and _move_text(m) == "3D 3H 3S 8H 8S"


# ------------------------------------------------------------------- "winner" plans
def test_winner_plans_straights_of_its_min_straight_option():
    for min_straight, groups in ((5, 3), (3, 1)):
        g = shangyou.new_game("zheng-shangyou/winner", players=4, seed=1, min_straight=min_straight)
        shape = climbing_playout.shape_of(g.rules.family)
        assert shape[0] == min_straight
        got = climbing_playout.planner(shape)(tuple(counts_of(shangyou.parse("3H 4D 5S"))))
        assert len(got[1]) == groups


def test_winner_policy_leads_a_plain_straight_not_its_straight_flush():
    # seed 001: one suit throughout is a straight flush, which beats everything: keep it
    g, s = deal_with("zheng-shangyou/winner", 4,
                     {0: "3H 4H 5H 6H 7H 7S 9D 9C JD JC QC KH AS"}, seed=4)
    m = POLICY(g, random.Random(1), {})
    assert m in g.legal_moves() and m.combo.tier == 0
    assert sorted(climbing_playout.RANK_OF[c] for c in m.cards) == [0, 1, 2, 3, 4]
    assert len({c & 3 for c in m.cards}) == 2
    # pagat keeps leading a single-suited sequence when it has one (it beats a mixed one)
    hand = sorted(shangyou.parse("3H 4H 5H 6H 7H 7S"))
    assert len({c & 3 for c in climbing_playout.group_cards(hand, ("q", 0, 4, 1))}) == 1
