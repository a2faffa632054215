"""Advice: a bot's move and the reason its own rules gave for it (shangyou.bots.reasons)."""

import random
import re
from collections import Counter

import pytest
from helpers import CONFIGS, config_id

import shangyou
from shangyou.bots import make_bot
from shangyou.bots.reasons import LANGUAGES, TEXTS, Advice, Reason, paired_gain

SHENG_JI = [("sheng-ji", 4, {}), ("sheng-ji/single-deck", 4, {}),
            ("sheng-ji/zhao-pengyou", 5, {})]


def views(name, n, opts, seed, moves=150):
    """Views of a match played by a mix of random and heuristic moves (exchanges included
    when a second hand starts within ``moves``)."""
    g = shangyou.new_match(name, players=n, seed=seed, **opts)
    rng = random.Random(seed)
    heur = make_bot("heuristic", seed)
    out = []
    while not g.over and len(out) < moves:
        v = g.view(g.to_act)
        out.append(v)
        g.apply(heur.choose(v) if rng.random() < 0.5 else rng.choice(v["legal_moves"]))
    return out


@pytest.mark.parametrize("cfg", CONFIGS + SHENG_JI, ids=config_id)
def test_advice_plays_what_choose_plays(cfg):
    name, n, opts = cfg
    codes = Counter()
    for seed in (1,):
        for v in views(name, n, opts, seed):
            move = make_bot("heuristic", 7).choose(v)
            advice = make_bot("heuristic", 7).advise(v)
            assert advice.move == move
            assert advice.by == "heuristic"
            codes[advice.reason.code] += 1
            for lang in LANGUAGES:
                text = advice.reason.text(lang)
                assert text and "?" not in text, (advice.reason, text)
    # the rules' own reasons, not a catch-all
    assert codes["fallback"] == 0
    assert len(codes) >= 4, codes


def test_reason_is_a_value():
    r = Reason("take_points", {"cards": "KH", "points": 10})
    assert r == Reason("take_points", {"cards": "KH", "points": "10"})
    assert r.text("en") == "take the 10 points on the table with KH"
    assert "10" in r.text("zh") and "KH" in r.text("zh")
    assert r.as_dict() == {"code": "take_points", "params": {"cards": "KH", "points": "10"},
                           "text": {"en": r.text("en"), "zh": r.text("zh")}}
    assert Advice("KH", r).as_dict()["by"] == "heuristic"
    with pytest.raises(ValueError, match="unknown reason code 'nonsense'"):
        Reason("nonsense")
    with pytest.raises(ValueError, match="unknown language 'fr'"):
        r.text("fr")


def test_every_reason_has_both_languages():
    for code, texts in TEXTS.items():
        assert len(texts) == len(LANGUAGES) and all(texts), code
        en, zh = texts
        # a field's name, before any plural forms ("{count|card|cards}")
        fields = lambda s: sorted(p.split("}")[0].split("|")[0] for p in s.split("{")[1:])
        # the Chinese text names the same things (units may have their own field)
        assert set(fields(en)) - {"unit"} <= set(fields(zh)) | {"unit"}, code


def test_paired_gain_uses_worlds_both_were_scored_on():
    assert paired_gain([1.0, 2.0, None, 4.0], [0.0, 1.0, 5.0]) == (1.0, 2)
    assert paired_gain([], [1.0]) == (None, 0)


def test_heuristic_reasons_are_true_of_the_position():
    # a climbing lead that empties the hand goes out; a follow behind a partner lets them win
    g = shangyou.new_game("zheng-shangyou/pagat-teams", players=4, seed=3)
    seen = Counter()
    bot = make_bot("heuristic", 1)
    while not g.over:
        v = g.view(g.to_act)
        a = bot.advise(v)
        if a.reason.code == "go_out":
            assert len(a.move.partition(" as ")[0].split()) == len(v["hand"])
        if a.reason.code == "let_partner":
            assert a.move == "pass"
            team = next(t for t in v["teams"] if v["seat"] in t)
            assert v["last"]["seat"] in team
        seen[a.reason.code] += 1
        g.apply(a.move)
    assert seen["go_out"] >= 1


@pytest.mark.parametrize("name,n", [("zheng-shangyou/pagat", 5), ("sheng-ji", 4)])
def test_search_advice_plays_the_search_move(name, n):
    g = shangyou.new_game(name, players=n, seed=11)
    decided = 0
    while not g.over and decided < 6:
        v = g.view(g.to_act)
        if len(v["legal_moves"]) > 1 and v.get("phase", "play") == "play":
            a = make_bot("search:60", 3).advise(v)
            assert a.move == make_bot("search:60", 3).choose(v)
            assert a.by == "search"
            assert a.reason.text("en") and a.reason.text("zh")
            if a.reason.code == "search_better":
                assert float(a.reason.params["gain"]) > 0
            decided += 1
            g.apply(a.move)
        else:
            g.apply(make_bot("heuristic", 1).choose(v))
    assert decided == 6


def test_terminal_hint_names_the_move_and_its_reason():
    from shangyou.cli.session import FALLBACK_NOTES, hint_text
    for name in ("zheng-fen", "sheng-ji"):
        g = shangyou.new_game(name, seed=4)
        v = g.view(g.to_act)
        a = make_bot("heuristic", 1).advise(v)
        assert hint_text(v, "heuristic", 1) == \
            f"Hint (heuristic): {a.move} ({a.reason.text('en')})"
        # the search within its CPU cap: its move may differ run to run, its level may not
        said = re.fullmatch(r"Hint \(search\): (.+?) \((.+)\)", hint_text(v, "search", 2))
        assert said and not any(note in said.group(0) for note in FALLBACK_NOTES.values())
        g.apply(said.group(1))              # legal, or IllegalMove
