"""The climbing games' heuristic and search bots, and the worlds the search samples."""

from __future__ import annotations

import random
from collections import Counter

import pytest

import shangyou
from shangyou.bots import climbing_heuristic, climbing_search, make_bot
from shangyou.games.climbing import core
from shangyou.games.climbing.worlds import WorldSampler
from helpers import CONFIGS, config_id

CLIMBING = [c for c in CONFIGS if not c[0].startswith("sheng-ji")]


def deal_with(name, players, hands: dict, seed=3, **options):
    """A first hand where the seat to act + i holds ``hands[i]``; the other seats share the
    rest of the pack (Owen's undealt cards stay undealt), so no card is missing or doubled."""
    g = shangyou.new_game(name, players=players, seed=seed, **options)
    lead = g.to_act
    wanted = {(lead + i) % players: sorted(shangyou.parse(t)) for i, t in hands.items()}
    pool = Counter(c for h in g.hands for c in h)
    for h in wanted.values():
        pool.subtract(h)
    assert all(v >= 0 for v in pool.values())
    rest = sorted(pool.elements())
    random.Random(seed).shuffle(rest)
    others = [s for s in range(players) if s not in wanted]
    for s in range(players):
        if s in wanted:
            g.hands[s] = wanted[s]
        else:
            g.hands[s] = sorted(rest[others.index(s)::len(others)])
    g.dealt_counts = [len(h) for h in g.hands]
    g._legal = None
    return g, lead


# ---------------------------------------------------------------------- legality
@pytest.mark.parametrize("cfg", CLIMBING, ids=config_id)
def test_heuristic_and_search_always_answer_a_legal_move(cfg):
    """Two hands of a match (so exchanges too), strict mode: any internal error fails."""
    name, n, opts = cfg
    rng = random.Random(7)
    g = shangyou.new_match(name, players=n, seed=11, **opts)
    rand = make_bot("random", seed=1)
    decisions = 0
    while not g.over and g.hand_number <= 2:
        s = g.to_act
        v = g.view(s)
        if s % 3 == 0:
            m = climbing_heuristic.choose(v, rng, strict=True)
        elif s % 3 == 1 and len(g.moves) % 4 == 0:
            m = climbing_search.choose(v, rng, iterations=8, strict=True)
        else:
            m = rand.choose(v)
        # a move offered, or where the play is chosen in steps a whole legal play
        assert m in v["legal_moves"] or m in map(str, g.all_moves()), (m, v["legal_moves"][:5])
        decisions += 1
        g.apply(m)
    assert decisions > 10


def test_bot_levels_play_climbing_matches_through_the_registry():
    g = shangyou.new_match("zheng-shangyou/pagat-teams", players=4, seed=2, target=2)
    bots = [make_bot("heuristic", seed=0), make_bot("search:4", seed=1),
            make_bot("heuristic", seed=2), make_bot("greedy", seed=3)]
    while not g.over:
        s = g.to_act
        g.apply(bots[s].choose(g.view(s)))
    assert g.result["winners"]


def test_heuristic_falls_back_to_a_legal_move_on_a_strange_view():
    g = shangyou.new_game("zheng-shangyou/pagat", players=4, seed=1)
    v = g.view(g.to_act)
    v["game"] = "no-such-game"                      # the rules cannot be found
    with pytest.raises(Exception):
        climbing_heuristic.choose(v, None, strict=True)
    assert climbing_heuristic.choose(dict(v, game="zheng-shangyou/pagat"), None) \
        in v["legal_moves"]
    assert climbing_search.choose(v, random.Random(0), iterations=4) in v["legal_moves"]


# ------------------------------------------------------------------------ worlds
@pytest.mark.parametrize("cfg", CLIMBING, ids=config_id)
def test_every_sampled_world_gives_the_same_view(cfg):
    """Random positions over three hands of a match (exchange steps included), for the seat to
    act and another seat: each sampled world shows them exactly their view, keeps the known
    cards in place, and plays on to the end of the hand."""
    name, n, opts = cfg
    rng = random.Random(5)
    checked = exchanges = 0
    for seed in range(2):
        g = shangyou.new_match(name, players=n, seed=seed, **opts)
        rand = make_bot("random", seed=seed)
        step = 0
        while not g.over and g.hand_number <= 3:
            if step % 3 == 0 or g.phase == "exchange":
                for seat in {g.to_act, (g.to_act + 1) % n}:
                    v = g.view(seat)
                    if not v["hand"]:
                        continue
                    sampler = WorldSampler(v)
                    for _ in range(2):
                        w = sampler.sample(rng)
                        assert w.view(seat) == v
                        # every card is somewhere, once
                        assert Counter(c for h in w.hands for c in h) + \
                            Counter(w.undealt) + _played(w) + _in_transit(w) == \
                            Counter(c for h in g.hands for c in h) + Counter(g.undealt) + \
                            _played(g) + _in_transit(g)
                        for s2, known in enumerate(sampler.known):
                            assert not Counter(known) - Counter(w.hands[s2])
                        checked += 1
                        exchanges += g.phase == "exchange"
                    if step % 9 == 0:      # the world is a live game: play it out
                        while not w.over:
                            w.apply(rng.choice(w.legal_moves()))
                        assert w.result is not None
            g.apply(rand.choose(g.view(g.to_act)))
            step += 1
    assert checked > 20
    if g.rules.exchange:
        assert exchanges > 0


def _played(g) -> Counter:
    c = Counter()
    for t in g.tricks + [g.trick]:
        for _, combo in t:
            if combo is not None:
                c.update(combo.cards)
    return c


def _in_transit(g) -> Counter:
    c = Counter()
    for a, b, card in getattr(g, "exchanged", []):
        if a is not None:
            c[card] += 1
        if b is not None:
            c[card] -= 1
    return +c


def test_worlds_keep_the_cards_seen_in_the_exchange():
    """After a pits exchange every world gives the first player the card it took (while it
    still holds it), and the last player the card it got back."""
    for seed in range(20):
        g = shangyou.new_match("zheng-shangyou/pagat", players=4, seed=seed)
        rand = make_bot("random", seed=seed)
        while g.hand_number < 2:
            g.apply(rand.choose(g.view(g.to_act)))
        while g.phase == "exchange":
            g.apply(rand.choose(g.view(g.to_act)))
        first, last = g.prev_order[0], g.prev_order[-1]
        received = [(b, card) for a, b, card in g.exchanged if b is not None]
        onlooker = next(s for s in range(4) if s not in (first, last))
        sampler = WorldSampler(g.view(onlooker))
        for _ in range(5):
            w = sampler.sample(random.Random(seed))
            for seat, card in received:
                if card in g.hands[seat] and seat != onlooker:
                    assert card in w.hands[seat]
        assert {first, last} <= {b for b, _ in received}
        return
    pytest.fail("no exchange reached")  # pragma: no cover


def test_world_rejects_an_impossible_view():
    g = shangyou.new_game("zheng-shangyou/pagat", players=4, seed=1)
    v = g.view(g.to_act)
    v["counts"] = list(v["counts"])
    v["counts"][(g.to_act + 1) % 4] += 3
    with pytest.raises(ValueError):
        WorldSampler(v)


# ---------------------------------------------------------------- rules of thumb
def test_heuristic_leads_its_lowest_combination():
    g, s = deal_with("zheng-shangyou/pagat", 4, {0: "3H 3S 7D 8C 9S QH KD"})
    assert climbing_heuristic.choose(g.view(s), None, strict=True) == "3H 3S"


def test_heuristic_leads_a_whole_sequence_rather_than_breaking_it():
    g, s = deal_with("zheng-shangyou/pagat", 5, {0: "4H 4S 5H 6C 9D 9C 9H"})
    assert climbing_heuristic.choose(g.view(s), None, strict=True) == "4H 5H 6C"


def _sequence_on_the_table():
    """Seat to act + 1 holds 7C 8D 9S (a mixed sequence) and faces a mixed 3-5 sequence."""
    g, s = deal_with("zheng-shangyou/pagat", 4, {0: "3H 4D 5H 6H", 1: "7C 8D 9S"})
    g.apply("3H 4D 5H")
    v = g.view(g.to_act)
    assert "7C 8D 9S" in v["legal_moves"] and len(v["legal_moves"]) > 1
    return v


def test_heuristic_goes_out_when_one_play_empties_its_hand():
    v = _sequence_on_the_table()
    assert climbing_heuristic.choose(v, None, strict=True) == "7C 8D 9S"


def test_heuristic_does_not_overtake_its_partner():
    g, s = deal_with("zheng-shangyou/pagat-teams", 4,
                     {0: "5H 9C 10C JC QC KC AC", 2: "4C 4D 6D 8C 10S JD KD"})
    g.apply("5H")
    g.apply("pass")
    v = g.view(g.to_act)
    assert g.to_act == (s + 2) % 4 and len(v["legal_moves"]) > 1
    assert climbing_heuristic.choose(v, None, strict=True) == "pass"


def test_heuristic_keeps_its_bomb_for_later():
    g, s = deal_with("zheng-shangyou/winner", 4,
                     {0: "5H 9C 10D JS QS KS AS 3S 4S 7S 8S JD QD",
                      1: "4C 9D 9H 9S 8D 6S JC QH KD 3C 5C 7C 10C"})
    g.apply("5H")
    v = g.view(g.to_act)
    move = climbing_heuristic.choose(v, None, strict=True)
    assert move in v["legal_moves"]
    assert not ("9D" in move and "9S" in move)       # not the four nines


def test_heuristic_does_not_lead_points_in_zheng_fen():
    g, s = deal_with("zheng-fen", 4, {0: "5H 6S 6D 9D KC KD 3C 4C 8H 9H JC QC AD 2S"})
    move = climbing_heuristic.choose(g.view(s), None, strict=True)
    assert not any(c in move.split() for c in ("5H", "KC", "KD"))


def test_search_takes_the_move_that_goes_out():
    v = _sequence_on_the_table()
    assert climbing_search.choose(v, random.Random(1), iterations=16, strict=True) == "7C 8D 9S"


def test_search_budget_in_seconds_is_kept():
    import time
    g = shangyou.new_game("zheng-shangyou/pagat", players=5, seed=4)
    v = g.view(g.to_act)
    t = time.perf_counter()
    move = climbing_search.choose(v, random.Random(2), seconds=0.2, strict=True)
    assert move in v["legal_moves"]
    assert time.perf_counter() - t < 2.0


def test_default_search_level_stops_at_its_cpu_cap(monkeypatch):
    # Owen with 2 players lists thousands of plays: 600 playouts take several seconds of CPU,
    # so only the cap (CPU time, from the decision's start) keeps the default level short
    import time
    monkeypatch.setattr(climbing_search, "DEFAULT_CAP_SECONDS", 0.2)
    g = shangyou.new_game("zheng-shangyou/owen", players=2, seed=3)
    v = g.view(g.to_act)
    plays = [str(m) for m in g.all_moves()]
    assert len(plays) > 1000 and len(v["legal_moves"]) < len(plays)    # offered in steps
    t = time.process_time()
    move = climbing_search.choose(v, random.Random(1), strict=True)
    assert move in plays
    assert time.process_time() - t < 0.2 + 0.3


def test_search_pauses_the_garbage_collector_only_during_its_decision(monkeypatch):
    import gc
    g = shangyou.new_game("zheng-shangyou/pagat", players=4, seed=6)
    v = g.view(g.to_act)
    seen = []

    def run(self, iterations, seconds):
        seen.append(gc.isenabled())
        if len(seen) in (2, 3):
            raise RuntimeError("boom")
        return v["legal_moves"][-1]
    monkeypatch.setattr(climbing_search.Search, "run", run)
    assert gc.isenabled()
    assert climbing_search.choose(v, random.Random(1)) == v["legal_moves"][-1]
    assert gc.isenabled()
    # an error inside the search: the heuristic answers, and the collector is back on
    assert climbing_search.choose(v, random.Random(1)) in v["legal_moves"]
    assert gc.isenabled()
    with pytest.raises(RuntimeError):
        climbing_search.choose(v, random.Random(1), strict=True)
    assert gc.isenabled()
    assert seen[:3] == [False, False, False]
    gc.disable()                      # a caller that runs with the collector off keeps it off
    try:
        climbing_search.choose(v, random.Random(1))
        assert not gc.isenabled()
    finally:
        gc.enable()


@pytest.mark.parametrize("cfg", CLIMBING, ids=config_id)
def test_playout_policy_plays_only_legal_moves_to_the_end(cfg):
    name, n, opts = cfg
    g = shangyou.new_game(name, players=n, seed=5, **opts)
    sampler = WorldSampler(g.view(g.to_act))
    world = sampler.sample(random.Random(1))
    search = climbing_search.Search(g.view(g.to_act), random.Random(1))
    steps = 0
    while not world.over:
        move = climbing_search.fast_policy(world, search.rng, search.team_of)
        assert move in world.legal_moves()
        world.apply(move)
        steps += 1
    assert steps > n and world.history[-1]["order"]


def test_search_overrules_the_heuristic_only_on_clear_evidence():
    base = [0.0] * 20
    noisy = [3.0, -3.0] * 10                     # mean 0: no evidence
    slightly = [0.2 if i % 2 else -0.1 for i in range(20)]   # small but steady gain
    clear = [1.0] * 19 + [0.0]                     # better on almost every deal
    assert climbing_search.Search.pick([base, noisy]) == 0
    assert climbing_search.Search.pick([base, noisy, slightly]) == 2
    assert climbing_search.Search.pick([base, noisy, slightly, clear]) == 3
    assert climbing_search.Search.pick([base, [-1.0] * 20]) == 0


def test_race_drops_only_challengers_clearly_behind_candidate_0():
    base = [0.0] * 16
    behind = [-1.0] * 15 + [0.0]                  # worse on almost every deal
    noisy = [3.0, -3.0] * 8                       # no evidence either way: stays
    ahead = [0.5] * 16
    slightly_behind = [-0.1 if i % 2 else 0.05 for i in range(16)]   # within 2 SE: stays
    race = climbing_search.Search.race
    assert race([base, behind, noisy, ahead], [0, 1, 2, 3]) == [0, 2, 3]
    assert race([base, behind], [0, 1]) == [0]
    assert race([base, slightly_behind], [0, 1]) == [0, 1]
    # only the candidates still racing are looked at; candidate 0 is always kept
    assert race([base, behind, noisy, ahead], [0, 3]) == [0, 3]


def _scripted_search(monkeypatch, worth):
    """A pagat position searched with playout values ``worth(candidate, world_number)``;
    answers (the move, the candidates, playouts per candidate)."""
    g = shangyou.new_game("zheng-shangyou/pagat", players=4, seed=6)
    v = g.view(g.to_act)
    s = climbing_search.Search(v, random.Random(1))
    cands = s.candidates()
    index = {m: i for i, m in enumerate(v["legal_moves"])}
    by_index = {index[m]: c for c, m in enumerate(cands)}
    calls = [0] * len(cands)

    def value(self, deal, move_index):
        c = by_index[move_index]
        calls[c] += 1
        return worth(c, calls[c])
    monkeypatch.setattr(climbing_search.Search, "value", value)
    monkeypatch.setattr(climbing_search.Search, "candidates", lambda self: list(cands))
    move = climbing_search.Search(v, random.Random(1)).run(600, None)
    return move, cands, calls


def test_search_stops_once_no_challenger_can_overrule(monkeypatch):
    # every challenger loses on every world: all drop out at the first race (8 worlds)
    move, cands, calls = _scripted_search(monkeypatch, lambda c, w: 1.0 if c == 0 else -1.0)
    assert len(cands) > 2
    assert move == cands[0]
    assert calls == [climbing_search.RACE_FIRST] * len(cands)


def test_search_races_on_while_a_challenger_is_level_or_ahead(monkeypatch):
    # candidate 2 ties candidate 0 until world 20, then wins: it races on and is chosen; the
    # others drop out at the first race
    worth = lambda c, w: {0: 0.0, 2: 0.0 if w <= 20 else 1.0}.get(c, -1.0)   # noqa: E731
    move, cands, calls = _scripted_search(monkeypatch, worth)
    k = len(cands)
    worlds = -(-600 // k)                       # 600 playouts: ceil(600 / k) worlds
    assert move == cands[2]
    assert calls[0] == calls[2] == worlds
    assert all(calls[c] == climbing_search.RACE_FIRST for c in range(k) if c not in (0, 2))


def test_team_playouts_count_a_won_hand_above_its_points():
    g = shangyou.new_game("zheng-shangyou/pagat-teams", players=4, seed=8)
    v = g.view(g.to_act)
    search = climbing_search.Search(v, random.Random(3))
    mine = search.team_of[v["seat"]]
    seen = set()
    for _ in range(12):
        world = search.sampler.sample(search.rng)
        twin = world.clone()
        u = search.playout(world)             # in the compiled core when it is built
        prev = core.use(False)                # the Python playout of the same world
        try:
            assert search.playout(twin) == u
        finally:
            core.use(prev)
        tp = twin.history[-1]["team_points"]
        diff = tp[mine] - tp[1 - mine]
        assert diff != 0
        seen.add(diff > 0)
        # the team's points difference, one point more for a won hand, and the place bonus
        assert abs(u - diff - (climbing_search.WIN_BONUS if diff > 0 else
                               -climbing_search.WIN_BONUS)) <= climbing_search.PLACE_BONUS
    assert seen == {True, False}


def test_search_level_without_a_budget_uses_the_climbing_default():
    import time
    from shangyou.bots.search import SearchBot
    assert make_bot("search").default and not make_bot("search:400").default
    assert make_bot("search").iterations == 200           # the level's name for Sheng ji
    g = shangyou.new_game("zheng-shangyou/pagat", players=4, seed=6)
    v = g.view(g.to_act)
    # the default cap counts CPU time (wall-clock time grows with the machine's load)
    t = time.process_time()
    move = SearchBot(seed=1).choose(v)
    assert move in v["legal_moves"]
    assert time.process_time() - t < climbing_search.DEFAULT_CAP_SECONDS + 1.0


# ---------------------------------------------------------------------- strength
def _one_against_field(name, players, bot, field, deals, **opts):
    """Mean score of ``bot``'s seat per hand, the bot rotated through every seat of each
    deal (duplicate deals), the other seats played by ``field``."""
    total = 0.0
    for deal in range(deals):
        for seat in range(players):
            g = shangyou.new_game(name, players=players, seed=1000 + deal, **opts)
            bots = [make_bot(bot if s == seat else field, seed=deal * 10 + s)
                    for s in range(players)]
            while not g.over:
                s = g.to_act
                g.apply(bots[s].choose(g.view(s)))
            total += g.result["points"][seat]
    return total / (deals * players)


def test_heuristic_scores_far_above_random():
    """Heuristic against three random bots in pagat 4p (8 duplicate deals, 32 hands): a fair
    share is 0.75 points a hand and a random seat gets about 0.45 in such a table; the
    heuristic gets about 1.6 (docs/bots-climbing.md; this seeded sample: printed on failure)."""
    mean = _one_against_field("zheng-shangyou/pagat", 4, "heuristic", "random", 8)
    assert mean > 1.2, mean
