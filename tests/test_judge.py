"""A judge that teaches: an illegal play is refused with the rule it breaks, in words.

Tables of hand-built positions per family (the play, the rule's code, words of its message),
then a random test over every preset: random sets of the player's cards that are no legal
play are refused with a known explanation in English and Chinese, and nothing changes.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

import shangyou
from shangyou import IllegalMove
from shangyou.cards import Cards, parse
from shangyou.games.sheng_ji import core
from shangyou.games.sheng_ji.order import LEVEL_RANK, Trump, decompose
from shangyou.games.why import CLIMBING_CODES, SHENG_JI_CODES, TEXTS, Why
from shangyou.registry import preset_names


def climbing_position(name: str, hand: str, table: str | None, **options):
    """A game of ``name`` whose seat to act holds ``hand``, with ``table`` (the family's
    default reading of those cards, played by the next seat) the play to beat, or the lead."""
    g = shangyou.new_game(name, seed=5, **options)
    seat = g.to_act
    g.hands[seat] = sorted(parse(hand))
    if table is not None:
        combo = g.rules.family.combos(parse(table))[0]
        other = (seat + 1) % g.n
        g.trick = [(other, combo)]
        g.last, g.last_seat, g.passes = combo, other, 0
    g._legal = g._token = None
    return g


def refusal(g, play: str) -> IllegalMove:
    snap = g.snapshot()
    with pytest.raises(IllegalMove) as e:
        g.apply(play)
    assert g.snapshot() == snap
    return e.value


CLIMBING = [
    # preset, options, hand, play on the table (None: leading), play, rule, words
    ("zheng-shangyou/pagat", {}, "8H 10S JD 3C", None, "8H 10S JD", "seq_gap",
     "8 and 10 are not consecutive"),
    ("zheng-shangyou/pagat", {}, "QH KH AH 2H", None, "QH KH AH 2H", "seq_twos",
     "twos may not be in a sequence in this game"),
    ("zheng-shangyou/pagat", {}, "7C 8D 3S", None, "7C 8D", "one_rank",
     "a pair must be cards of one rank"),
    ("zheng-shangyou/pagat", {}, "6C 6D 7C 7D", None, "6C 6D 7C 7D", "run_short",
     "at least 3 consecutive ranks"),
    ("zheng-shangyou/pagat", {}, "7C 7D 2S 2H 9C 9D", None, "7C 7D 2S 2H 9C 9D",
     "rank_natural", "the 8s are all stood for by wild cards"),
    ("zheng-shangyou/pagat", {}, "3C 7S", "9S", "7S", "lower", "play a higher single"),
    ("zheng-shangyou/pagat", {}, "JS 3C", "9S 9H", "JS", "wrong_count",
     "this trick needs 2 cards (set); you played 1"),
    ("zheng-shangyou/pagat", {}, "9C 10H JS", "6D 7D 8D", "9C 10H JS", "mixed_sequence",
     "a single-suited sequence beats any mixed one"),
    ("zheng-shangyou/pagat", {}, "9D 2S 3C", "9S 9H", "9D 2S", "impure",
     "a play without wild cards beats one with them"),
    ("zheng-shangyou/pagat", {}, "9D 9C 3C", "9S 9H", "9D 9C", "equal", "an equal play"),
    ("zheng-shangyou/pagat", {}, "9D 3C", None, "pass", "lead_must_play", "you must play"),
    ("zheng-shangyou/winner", {}, "3D 4C 5H 6S 8D", None, "3D 4C 5H 6S 8D", "seq_gap",
     "6 and 8 are not consecutive"),
    ("zheng-shangyou/winner", {}, "KD AC 2H 3S 4D", None, "KD AC 2H 3S 4D", "seq_wrap",
     "may not turn the corner"),
    ("zheng-shangyou/winner", {}, "7D 7C 7H 7S 3D", None, "7D 7C 7H 7S", "bomb_kicker",
     "four of a kind is a bomb only with one more card"),
    ("zheng-shangyou/winner", {"bomb": "quad"}, "7D 7C 7H 7S 3D", None, "7D 7C 7H 7S 3D",
     "bomb_quad", "four of a kind alone"),
    ("zheng-shangyou/winner", {"jokers": True}, "BJ 7D", None, "BJ 7D", "jokers_limited",
     "jokers play only as singles"),
    ("zheng-shangyou/winner", {}, "2D 2C 3H 3S", None, "2D 2C 3H 3S", "run_twos",
     "twos may not be in consecutive pairs"),
    ("zheng-shangyou/winner", {}, "7H 3D", "7S", "7H", "suit_tie", "♦ < ♣ < ♥ < ♠"),
    ("zheng-shangyou/winner", {}, "KS 3D", "8D 8C 8H 8S 3C", "KS", "bomb_on_table",
     "a bomb can only be beaten by a higher bomb or a straight flush"),
    ("zheng-shangyou/winner", {}, "3D 3C 3H", "5D 5C", "3D 3C 3H", "wrong_count",
     "this trick needs 2 cards (pair); you played 3"),
    ("zheng-shangyou/winner", {}, "3D 4C 5H 6S 7D 8D", "4D 5C 6H 7S 8C", "3D 4C 5H 6S 7D 8D",
     "wrong_length", "a straight only beats a straight of the same length (5 cards)"),
    ("zheng-shangyou/owen", {}, "3S 4D 5C 6H 2S", None, "3S 4D 5C 6H 2S", "seq_wilds",
     "wild cards (2s and jokers) may not be used in a straight"),
    ("zheng-shangyou/owen", {}, "2S BJ", None, "2S BJ", "wild_top",
     "never for a 2 or a joker"),
    ("zheng-shangyou/owen", {}, "5H 5S 7D 7C", None, "5H 5S 7D 7C", "run_gap",
     "a stair needs consecutive ranks, and 5 and 7"),
    ("zheng-shangyou/owen", {}, "9D 2S", "9H 9S", "9D 2S", "impure",
     "a play without wild cards beats one with them"),
    ("zheng-shangyou/owen", {}, "AS 3D", "2D 2C 2H 2S", "AS", "bomb_on_table",
     "a quad can only be beaten by a higher quad or the rocket"),
    ("zheng-fen", {}, "3S 4S 5S 6S 7H", None, "3S 4S 5S 6S 7H", "seq_suit",
     "only when all of one suit"),
    ("zheng-fen", {}, "AH AS 2H 2S 3D 3C", None, "AH AS 2H 2S 3D 3C", "run_past_two",
     "nothing follows the 2"),
    ("zheng-fen", {}, "7H 8H 9H", None, "7H 8H 9H", "seq_short",
     "a suit sequence needs at least 5 cards"),
    ("zheng-fen", {}, "BJ RJ", None, "BJ RJ", "needs_natural",
     "a pair needs at least one natural card"),
    ("zheng-fen", {}, "4H 10H 10S JC BJ", None, "4H 10H 10S JC BJ", "full_house_extra",
     "the two extra cards of a full house"),
    ("zheng-fen", {}, "8D 9D 10D JD QD", "7C 8C 9C 10C JC QC", "8D 9D 10D JD QD",
     "shorter_sequence", "the longer sequence wins"),
    ("zheng-fen", {}, "4D 3C", "5C 10H KS", "4D", "bomb_on_table",
     "a special can only be beaten by a higher special"),
]


@pytest.mark.parametrize("name,options,hand,table,play,code,words", CLIMBING,
                         ids=[f"{c[0]}:{c[4]}" for c in CLIMBING])
def test_climbing_refusals_name_the_rule(name, options, hand, table, play, code, words):
    g = climbing_position(name, hand, table, **options)
    e = refusal(g, play)
    assert e.why is not None and e.why.code == code, (str(e), e.why)
    assert words in str(e), str(e)
    assert str(e) == e.why.text("en")
    zh = e.why.text("zh")
    assert zh and "?" not in zh and "{" not in zh, zh


# ---------------------------------------------------------------------------- Sheng ji
def sheng_ji_position(lead_hand: str, hand: str, trump: str = "7C"):
    """A Sheng ji game in the play phase, trump ``trump``: the seat to act holds
    ``lead_hand``, the next seat ``hand``."""
    g = shangyou.new_game("sheng-ji", seed=4)
    while g.phase != "play":
        g.apply(g.legal_moves()[0])
    t = Trump.parse(trump)
    g.trump, g.level_rank = t, t.level
    leader = g.to_act
    g.hands[leader] = sorted(parse(lead_hand))
    g.hands[(leader + 1) % g.n] = sorted(parse(hand))
    g._legal = g._token = None
    return g


SHENG_JI = [
    # the leader's hand and lead (None: the lead itself is refused), the follower's hand,
    # the play, rule, words
    ("KH 3S", "KH", "3H 4H 5S", "5S", "sj_follow_suit",
     "you must follow the suit led (hearts) while you have hearts: you hold 2"),
    ("KH KH 3S", "KH KH", "3H 3H 4H 5S", "3H 4H", "sj_pairs",
     "the lead holds 1 pair and you hold pairs of hearts: play 1 pair of hearts"),
    ("KH KH QH QH 3S", "KH KH QH QH", "3H 3H 4H 4H 8H 9H", "3H 3H 8H 9H", "sj_tractor",
     "play a tractor (consecutive pairs) of 2 pairs"),
    ("KH 3S", "KH", "3H 4H 5S", "3H 4H", "sj_count", "play 1 card, as many as were led"),
    ("KH KH 3S", "KH KH", "3H 8S 9S", "8S 9S", "sj_play_all",
     "play every card you hold of the suit led (hearts): you hold 1 card"),
    ("KH AS 3D", None, "3H", "KH AS", "sj_lead_suits",
     "a lead must be all of one suit (all trumps count as one suit); you mixed hearts and "
     "spades"),
    ("KH KS 7D", None, "3H", "KS 7D", "sj_lead_suits", "you mixed spades and trumps"),
    ("KH 3S", None, "3H", "pass", "sj_no_pass", "there is no passing"),
]


@pytest.mark.parametrize("lead_hand,lead,hand,play,code,words", SHENG_JI,
                         ids=[c[4] + ":" + c[3] for c in SHENG_JI])
def test_sheng_ji_refusals_name_the_rule(lead_hand, lead, hand, play, code, words):
    g = sheng_ji_position(lead_hand, hand)
    if lead is not None:
        g.apply(lead)
    e = refusal(g, play)
    assert e.why is not None and e.why.code == code, (str(e), e.why)
    assert words in str(e), str(e)
    zh = e.why.text("zh")
    assert zh and "?" not in zh and "{" not in zh, zh


def test_why_texts_have_both_languages_and_the_same_fields():
    import re
    for code, (en, zh) in TEXTS.items():
        assert en and zh, code
        fields = {f.split("|")[0] for f in re.findall(r"\{([\w|]+?)(?:\|[^{}]*)?\}", en)}
        zh_fields = {f.removesuffix("_zh") for f in re.findall(r"\{(\w+)", zh)}
        # a Chinese field is an English one, or the word of one with its article ("a_run")
        assert all(f in fields or "a_" + f in fields or f == "kinds" for f in zh_fields), \
            (code, fields, zh_fields)
    with pytest.raises(ValueError):
        Why("no_such_rule")
    assert Why("sj_count", {"need": 2, "got": 1}).as_dict()["text"]["zh"] == \
        "要出2张，和首家一样多；你出了1张"


# ------------------------------------------------------- random plays of every preset
@pytest.mark.parametrize("name", preset_names())
def test_random_illegal_plays_are_refused_with_a_known_explanation(name):
    """Random sets of the seat's cards that are no legal play: refused with a rule of the
    game (a known code, words in English and Chinese) and the game unchanged."""
    rng = random.Random(name)
    g = shangyou.new_match(name, seed=11)
    sheng_ji = name.startswith("sheng-ji")
    known = SHENG_JI_CODES if sheng_ji else CLIMBING_CODES
    refused: Counter = Counter()
    for step in range(1500):
        if g.over:
            break
        if g.phase == "play" and step % 3 == 0:
            seat = g.to_act
            hand = list(g.hands[seat])
            for c in getattr(g, "pending", ()):
                hand.remove(c)
            for _ in range(4 if hand else 0):
                k = rng.randint(1, min(6, len(hand)))
                play = str(Cards(sorted(rng.sample(hand, k))))
                trial = g.clone()
                try:
                    trial.apply(play)
                    continue                          # a legal play (a lead, a throw…)
                except IllegalMove as e:
                    err = e
                snap = g.snapshot()
                with pytest.raises(IllegalMove):
                    g.apply(play)
                assert g.snapshot() == snap
                assert err.why is not None, (play, str(err))
                assert err.why.code in known, (play, err.why.code)
                assert str(err) == err.why.text("en") and err.why.text("zh")
                refused[err.why.code] += 1
        g.apply(rng.choice(list(g.legal_moves())))
    assert sum(refused.values()) >= 20 and len(refused) >= 3, refused


# -------------------------------------------------------------------- the three decisions
def test_decision_a_joker_stands_for_a_two_when_twos_are_natural_in_sequences():
    """docs/rules/zheng-shangyou.md, *Decisions of the judge* (a)."""
    g = climbing_position("zheng-shangyou/pagat", "KH AH BJ 3C", "QS KS AS",
                          twos_in_sequences=True)
    g.apply("KH AH BJ")                                  # K-A-2 of hearts beats Q-K-A
    assert g.trick[-1][1].label == "K-2 H"
    plain = climbing_position("zheng-shangyou/pagat", "KH AH BJ 3C", "QS KS AS")
    e = refusal(plain, "KH AH BJ")                       # without the option: Q-A only,
    assert e.why is not None and e.why.code == "impure"   # and the pure Q-A of spades wins


def test_decision_b_equal_bombs_of_two_packs_do_not_beat_each_other():
    """docs/rules/zheng-shangyou.md, *Decisions of the judge* (b): the quad's highest card
    decides (its suit breaks the tie); the extra card never counts; the same highest card:
    neither beats the other."""
    r = shangyou.rules("zheng-shangyou/winner", decks=2, players=4)
    # beats(on the table, played)
    assert not r.beats("9S 9H 9C 9D 3C", "9S 9S 9H 9D 3D")    # same highest card (9S)
    assert not r.beats("9S 9H 9C 9D 3C", "9S 9S 9H 9D AS")    # a higher kicker: no matter
    assert r.beats("9H 9H 9C 9D AS", "9S 9H 9C 9D 3D")        # 9S over 9H: the suit
    assert r.beats("9S 9S 9H 9H AS", "10D 10D 10C 10C 3D")    # a higher rank
    g = climbing_position("zheng-shangyou/winner", "9S 9S 9H 9D AS KD", "9S 9H 9C 9D 3C",
                          decks=2, players=4)
    e = refusal(g, "9S 9S 9H 9D AS")
    assert e.why is not None and e.why.code == "equal"


@pytest.mark.parametrize("trump,cards,closed,open_", [
    ("7C", "4H 4H 6H 6H", True, False),      # hearts plain: the 5H's place closes
    ("7H", "4H 4H 6H 6H", True, False),      # hearts trump
    ("5H", "5S 5S BJ BJ", True, False),      # level 5, hearts trump: off-suit 5s and BJ
    ("5C", "5S 5S BJ BJ", False, False),     # the 5C is between them
    ("7C", "4S 4S 6S 6S", False, False),     # other suits keep their 5
    ("7C", "RJ RJ 5H 5H", True, True),       # the red five sits just above the red joker
    ("7", "RJ RJ 5H 5H", True, True),        # no trump too
    ("7C", "6H 6H 8H 8H", True, True),       # the level gap, as ever
])
def test_decision_c_the_red_five_leaves_no_gap(trump, cards, closed, open_):
    """docs/rules/sheng-ji.md, *The red five*: by default (``red_five_gap="closed"``) the
    5♥'s place closes like the level rank's; ``"open"`` keeps the gap."""
    assert shangyou.rules("sheng-ji", red_five=True).is_tractor(cards, trump=trump) is closed
    assert shangyou.rules("sheng-ji", red_five=True, red_five_gap="open").is_tractor(
        cards, trump=trump) is open_
    if not trump.startswith("5"):              # (at level 5 the level rule joins them)
        assert not shangyou.rules("sheng-ji").is_tractor("4H 4H 6H 6H", trump=trump)
    with pytest.raises(ValueError):
        shangyou.rules("sheng-ji", red_five=True, red_five_gap="wide")


def test_decision_c_in_play_a_heart_tractor_across_the_red_five_must_be_followed():
    """A 4♥4♥6♥6♥ tractor led with the red five is a tractor a follower owes."""
    g = shangyou.new_game("sheng-ji", seed=4, red_five=True)
    while g.phase != "play":
        g.apply(g.legal_moves()[0])
    g.trump = Trump(LEVEL_RANK["7"], 1, 1)                # level 7, clubs trump, red five
    g.level_rank = g.trump.level
    leader = g.to_act
    g.hands[leader] = sorted(parse("QH QH JH JH 3S"))
    g.hands[(leader + 1) % g.n] = sorted(parse("4H 4H 6H 6H 9H KH 3D"))
    g._legal = g._token = None
    assert len(decompose(g.trump, parse("4H 4H 6H 6H"))) == 1
    g.apply("QH QH JH JH")
    e = refusal(g, "4H 4H 9H KH")
    assert e.why is not None and e.why.code == "sj_tractor"
    # the compiled core lists the same single follow as the Python code (the same positions)
    listed = {}
    for active in (True, False):
        prev = core.use(active)
        try:
            g._legal = g._token = None
            listed[active] = [str(m) for m in g.legal_moves()]
        finally:
            core.use(prev)
    g._legal = g._token = None
    assert listed[True] == listed[False] == ["4H 4H 6H 6H"], listed
    g.apply("4H 4H 6H 6H")


def test_the_terminal_says_the_rule():
    """The terminal game prints the refusal's explanation (the rule, in words)."""
    from test_cli import _session
    lines: list[str] = []
    g, session, out = _session(lines)                 # seat 0 (the human) leads, pagat
    naturals = [c for c in g.hands[0] if c < 48]
    pair = next((a, b) for a in naturals for b in naturals if a >> 2 != b >> 2)
    lines.append(str(Cards(sorted(pair))))
    assert session.run() == "eof"
    said = " ".join(out.getvalue().split())
    assert "is not a combination: a pair must be cards of one rank" in said, said[-600:]
    assert not g.moves


def test_why_docstring_examples():
    import doctest

    from shangyou.games import why
    assert doctest.testmod(why).failed == 0


def test_burying_a_card_not_held_names_the_rule():
    g = shangyou.new_game("sheng-ji", seed=2)
    while g.phase == "deal":
        g.apply(g.legal_moves()[0])
    seat = g.to_act
    missing = next(c for c in parse("7C 7H 7S 7D 4C 4S") if c not in g.hands[seat])
    before = sorted(g.hands[seat])
    with pytest.raises(IllegalMove) as e:
        g.apply(f"bury {Cards([missing])}")
    assert e.value.why.code == "sj_bury_held" and str(Cards([missing])) in str(e.value)
    assert "扣" in e.value.why.text("zh") and sorted(g.hands[seat]) == before
    assert g.phase == "bury" and not g.buried
