"""The compiled core (games/climbing/_core.c) against the Python reference of each family it
covers: random games played with both in lockstep, every legal-move list, every state and
every score compared; hands far larger than a deal gives; the fallback without the module.

Without the compiled module (not built, or ``SHANGYOU_NO_C=1``) the lockstep games compare the
Python code with itself and the fallback tests still run. ``--core-games N`` (or
``SHANGYOU_CORE_GAMES``) plays N games per configuration instead of the default few.
"""

from __future__ import annotations

import os
import random

import pytest

import shangyou
from shangyou.cards import deck, parse
from shangyou.games.climbing import core
from shangyou.games.climbing.steps import groups
from shangyou.games.zheng_shangyou.pagat import PagatFamily


# (preset, players, options) of every preset, player count and pack count the core covers
PAGAT = (
    [("zheng-shangyou/pagat", n, {"decks": d, "twos_in_sequences": t})
     for n in range(3, 9) for d in (1, 2) for t in (False, True)]
    + [("zheng-shangyou/pagat-teams", n, {"twos_in_sequences": t})
       for n in (4, 6) for t in (False, True)]
)
OWEN = [("zheng-shangyou/owen", n, {}) for n in (2, 3, 4, 6)]
ZHENG_FEN = [("zheng-fen", n, {}) for n in (3, 4, 5, 6)]
WINNER = (
    [("zheng-shangyou/winner", n, {}) for n in (3, 4)]
    + [("zheng-shangyou/winner", n, {"decks": 2}) for n in (4, 5, 6, 7, 8)]
    + [("zheng-shangyou/winner", 4, {"jokers": True, "bomb": "quad",
                                     "straight_needs_higher_rank": True}),
       ("zheng-shangyou/winner", 3, {"jokers": True, "min_straight": 3}),
       ("zheng-shangyou/winner", 8, {"decks": 2, "jokers": True, "min_straight": 3}),
       ("zheng-shangyou/winner", 6, {"decks": 2, "bomb": "quad", "min_straight": 7,
                                     "straight_needs_higher_rank": True})])
DEFAULT_GAMES = 25            # single hands per configuration; a match besides (see below)


def _cid(cfg) -> str:
    name, n, opts = cfg
    return f"{name.split('/')[-1]}-{n}p-" + ",".join(f"{k}={v}" for k, v in opts.items())


@pytest.fixture(scope="module")
def games(request) -> int:
    n = request.config.getoption("--core-games")
    if n is None:
        n = int(os.environ.get("SHANGYOU_CORE_GAMES", "0") or 0)
    return n or DEFAULT_GAMES


def full(combo) -> tuple:
    """Everything a combo is: kind, class, key, cards, tier and reading."""
    return (combo.kind, combo.cls, combo.key, tuple(combo.cards), combo.tier, combo.label)


def move_fields(m) -> tuple:
    """What a move is; for a step of a choice in steps (``choose``, ``pick``), its text."""
    return (m.kind, tuple(m.cards), None if m.combo is None else full(m.combo),
            str(m) if m.combo is None else None)


def state(g) -> tuple:
    """The whole state, beyond ``snapshot()``: the play to beat, its seat, the passes, every
    finished trick's plays, the counts when the first player went out, the listing forgotten
    after a move (the compiled core's apply changes all of these in place)."""
    def plays(trick):
        return [(s, None if c is None else full(c)) for s, c in trick]
    return (g.snapshot(), None if g.last is None else full(g.last), g.last_seat, g.passes,
            plays(g.trick), [plays(t) for t in g.tricks], g.counts_at_first_out, g.over,
            g.phase, g._legal is None, g._token is None, [list(w) for w in g.won])


class Lockstep:
    """Two games of one seed: one asks the core, the other the Python code."""

    def __init__(self, name, players, opts, seed, match):
        make = shangyou.new_match if match else shangyou.new_game
        with_core(False)
        self.py = make(name, players=players, seed=seed, **opts)
        with_core(True)
        self.c = make(name, players=players, seed=seed, **opts)
        self.states = 0

    def legal(self):
        with_core(False)
        a = self.py.legal_moves()
        with_core(True)
        b = self.c.legal_moves()
        # the core's listing is a Plays sequence (a list in an exchange); while a play is
        # chosen in steps, the first step's moves (Steps: the listing grouped in C), a chosen
        # group's plays (Subset: the listing filtered in C) or a list of picks: its length,
        # then every item, made one by one from the codes
        assert len(b) == len(a), self.where()
        assert [move_fields(m) for m in b] == [move_fields(m) for m in a], self.where()
        if core.AVAILABLE and self.c.phase == "play":
            m = core._core
            assert type(b) is m.Plays or self.c._grouping is not None and \
                type(b) in (m.Steps, m.Subset, list), self.where()
        self.states += 1
        return a, b

    def step(self, rng) -> None:
        a, b = self.legal()
        i = rng.randrange(len(a))
        with_core(False)
        self.py.apply(a[i])
        with_core(True)
        self.c.apply(b[i])        # a plain play or pass: made by the core's apply (in C)
        assert state(self.c) == state(self.py), self.where()
        assert self.c.scores == self.py.scores

    def where(self) -> str:
        g = self.py
        return (f"seat {g.to_act} holding {parse(g.hands[g.to_act])} "
                f"against {g.last!r}" if g.to_act is not None else "game over")


def with_core(on: bool) -> None:
    core.use(on)


@pytest.fixture(autouse=True)
def _restore_core():
    prev = core.ACTIVE
    yield
    core.use(prev)


@pytest.mark.parametrize("cfg", PAGAT + OWEN + ZHENG_FEN + WINNER, ids=_cid)
def test_lockstep_random_hands(cfg, games):
    name, players, opts = cfg
    states = 0
    for seed in range(games):
        ls = Lockstep(name, players, opts, 7919 * seed + players, match=False)
        rng = random.Random(seed)
        while not ls.py.over:
            ls.step(rng)
        assert ls.c.result == ls.py.result
        states += ls.states
    assert states >= games * 10


@pytest.mark.parametrize("cfg", [c for c in PAGAT if c[2].get("decks", 1) == 1
                                 and not c[2]["twos_in_sequences"]]
                         + OWEN + ZHENG_FEN + WINNER[:3], ids=_cid)
def test_lockstep_match(cfg):
    """A whole short match: exchanges, later hands' leaders, match scores."""
    name, players, opts = cfg
    # a target two hands need at least: 10 team points a hand in pagat-teams 6p, 100 card
    # points in Zheng Fen
    target = 12 if name.endswith("teams") and players == 6 else 101 if name == "zheng-fen" \
        else 3
    more = {"hands": 3, "target": None} if name.endswith("winner") else {"target": target}
    ls = Lockstep(name, players, {**opts, **more}, 31 + players, match=True)
    rng = random.Random(players)
    while not ls.py.over:
        ls.step(rng)
    assert ls.py.hand_number >= 2
    assert ls.c.result == ls.py.result and ls.c.history == ls.py.history


def _leading(name, players, opts, hand):
    g = shangyou.new_game(name, players=players, seed=1, **opts)
    while g.phase != "play":
        g.apply(g.legal_moves()[0])
    g.hands[g.to_act] = sorted(hand)
    g.last = None
    g._legal = None
    return g


@pytest.mark.parametrize("cfg,hands,run", [
    (("zheng-shangyou/pagat", 3, {"decks": 2}), 8, (5, 7)),
    (("zheng-shangyou/pagat", 4, {"decks": 2, "twos_in_sequences": True}), 6, (5, 7)),
    (("zheng-shangyou/owen", 2, {}), 6, (8, 11))],
    ids=lambda x: _cid(x) if isinstance(x, tuple) and len(x) == 3 else
    f"ranks{x[0]}-{x[1] - 1}" if isinstance(x, tuple) else f"{x}hands")
def test_steps_of_large_hands_alike(cfg, hands, run):
    """Leads of large hands chosen in steps (the core groups its listing and filters it for
    a chosen group and the picked cards, Python lists the plays and groups them): the same
    moves offered at every step of random walks, down to the play, which is one of
    all_moves()."""
    name, players, opts = cfg
    rng = random.Random(11)
    pack = deck(opts.get("decks", 1), True)
    wild = [c for c in pack if c >= 48]            # 2s and jokers: many plays
    rest = [c for c in pack if c < 48]
    stepped = picked = 0
    for _ in range(hands):
        lo = rng.randrange(0, 12 - run[1] + 1)      # pairs or more of a run of ranks, wilds
        pairs = [c for r in range(lo, lo + rng.randrange(*run))
                 for c in rng.sample([c for c in rest if c >> 2 == r], rng.choice((2, 2, 3)))]
        others = [c for c in rest if c not in pairs]
        hand = pairs + rng.sample(wild, rng.randrange(min(len(wild), 5), min(len(wild), 10) + 1)) \
            + rng.sample(others, rng.randrange(0, 4))
        with_core(False)
        py = _leading(name, players, opts, hand)
        with_core(True)
        c = _leading(name, players, opts, hand)
        with_core(False)
        sizes = {t: len(ms) for t, ms in groups(py.all_moves(limit=None)).items()}
        for walk in range(3):
            a, b = py.clone(), c.clone()
            while True:
                with_core(False)
                ma = a.legal_moves()
                with_core(True)
                mb = b.legal_moves()
                assert [move_fields(m) for m in mb] == [move_fields(m) for m in ma], \
                    f"{parse(hand)} after {[str(m) for _, m in a.moves[-3:]]}"
                steps = [j for j, m in enumerate(ma) if m.kind in ("choose", "pick")]
                i = rng.choice(steps) if steps and rng.random() < 0.9 else rng.randrange(len(ma))
                if walk == 0 and ma[i].kind == "choose":       # the largest group first
                    i = max(steps, key=lambda j: sizes.get(str(ma[j]), 0))
                if ma[i].kind not in ("choose", "pick"):
                    assert str(ma[i]) in {str(m) for m in b.all_moves(limit=None)}
                    break
                stepped += 1
                picked += ma[i].kind == "pick"
                with_core(False)
                a.apply(ma[i])
                with_core(True)
                b.apply(mb[i])
    assert stepped >= 8 and picked >= 3


def _compare_hand(fam, hand: tuple, rng, follows: int = 6) -> int:
    """Leads of ``hand`` and follows of it against random plays of other hands: equal in
    both; returns how many lists were compared."""
    hand = tuple(sorted(hand))
    with_core(True)
    c = [full(x) for x in fam.leads(hand)]
    py = [full(x) for x in fam.leads_py(hand)]
    assert c == py, f"leads of {parse(hand)}"
    n = 1
    for _ in range(follows):
        k = rng.randrange(1, min(len(hand), 12) + 1)
        other = tuple(sorted(rng.sample(hand, k)))
        plays = fam.leads_py(other)
        if not plays:
            continue
        prev = rng.choice(plays)
        c = [full(x) for x in fam.follows(hand, prev)]
        py = [full(x) for x in fam.follows_py(hand, prev)]
        assert c == py, f"follows of {parse(hand)} on {prev!r}"
        n += 1
    return n


@pytest.mark.parametrize("twos", [False, True])
def test_pagat_large_hands_from_several_packs(twos):
    """Hands of two to four packs, of 10 to 40 cards: the deals never give so many."""
    fam = PagatFamily(twos_in_sequences=twos)
    rng = random.Random(5 + twos)
    n = 0
    for i in range(60):
        packs = 2 + i % 3
        cards = deck(packs, True)
        hand = rng.sample(cards, rng.randrange(10, 26 if packs < 4 else 20))
        n += _compare_hand(fam, hand, rng)
    assert n > 300


def test_owen_random_hands_and_follows():
    """Owen hands of 5 to 27 cards of its one pack, and follows of every kind of play."""
    fam = shangyou.rules("zheng-shangyou/owen").family
    rng = random.Random(11)
    cards = deck(1, True)
    n = 0
    for _ in range(150):
        n += _compare_hand(fam, rng.sample(cards, rng.randrange(5, 28)), rng, follows=10)
    assert n > 1000


def test_zheng_fen_random_hands_and_follows():
    """Zheng Fen hands of 5 to 27 cards of its one pack, and follows of every kind of play."""
    fam = shangyou.rules("zheng-fen").family
    rng = random.Random(13)
    cards = deck(1, True)
    n = 0
    for _ in range(150):
        n += _compare_hand(fam, rng.sample(cards, rng.randrange(5, 28)), rng, follows=10)
    assert n > 1000


@pytest.mark.parametrize("opts", [{}, {"bomb": "quad", "straight_needs_higher_rank": True},
                                  {"min_straight": 3}], ids=str)
def test_winner_hands_of_one_to_four_packs(opts):
    """"winner" hands of one to four packs (jokers too), and follows of every kind of play."""
    from shangyou.games.zheng_shangyou.winner import WinnerFamily
    fam = WinnerFamily(jokers=True, **opts)
    rng = random.Random(17)
    n = 0
    for i in range(80):
        cards = deck(1 + i % 4, True)
        n += _compare_hand(fam, rng.sample(cards, rng.randrange(5, 30)), rng, follows=10)
    assert n > 500


def test_owen_two_player_worst_hand():
    """26 cards: pairs 3-Q, all four 2s and both jokers: 14,637 leads, equal in both."""
    fam = shangyou.rules("zheng-shangyou/owen").family
    hand = tuple(sorted(parse("3S 3H 4S 4H 5S 5H 6S 6H 7C 7S 8C 8S 9S 9H 10S 10H JS JH QS QH "
                              "2D 2C 2H 2S BJ RJ")))
    with_core(True)
    py = fam.leads_py(hand)
    assert len(py) == 14_637
    assert [full(x) for x in fam.leads(hand)] == [full(x) for x in py]


def test_owen_duplicate_cards_fall_back_to_python():
    fam = shangyou.rules("zheng-shangyou/owen").family
    hand = tuple(sorted(parse("7H 7H 8H 9H")))
    with_core(True)
    if core.AVAILABLE:
        with pytest.raises(ValueError):
            core._core.owen_plays(hand, -1, 0, 0, 0)
    assert [full(x) for x in fam.leads(hand)] == [full(x) for x in fam.leads_py(hand)]


@pytest.mark.parametrize("twos", [False, True])
def test_pagat_beat_levels_as_the_reference(twos):
    """The heuristic's question, can each sampled hand beat a play with or without its 2s and
    jokers (``Family.beat_levels``), answered by the core in one call: equal to the Python
    reference over hands of one to four packs and plays of every kind, bombs left to Python."""
    from shangyou.games.climbing.family import Family
    fam = PagatFamily(twos_in_sequences=twos)
    rng = random.Random(23 + twos)
    compared = 0
    seen: set[int] = set()
    for i in range(400):
        cards = deck(1 + i % 4, True)
        hands = [tuple(sorted(rng.sample(cards, rng.randrange(0, 28)))) for _ in range(6)]
        other = tuple(sorted(rng.sample(cards, rng.randrange(1, 16))))
        with_core(False)
        plays = fam.leads(other)
        prev = rng.choice(plays)
        per = (1, 2, 3, 6)[i % 4]
        want = Family.beat_levels(fam, hands, prev, per)
        assert len(want) == 6 // per
        if per == 1:        # each hand on its own: the group's level is the best of its hands
            for p in (2, 3):
                assert list(Family.beat_levels(fam, hands, prev, p)) == \
                    [max(want[j * p:(j + 1) * p]) for j in range(6 // p)]
        with_core(True)
        got = fam.beat_levels(hands, prev, per)
        assert got == want, f"{parse(other)}: {prev.cls} {prev.key}"
        if core.AVAILABLE and not prev.tier:
            assert core.pagat_beat_levels(hands, fam.seq_top, prev, per) == want
            compared += len(hands)
        seen.update(want)
    assert seen == {0, 1, 2}
    assert compared > 1500 or not core.AVAILABLE
    if core.AVAILABLE:          # bad input: a clear error, and None for a lead's reading
        bl = core._core.pagat_beat_levels
        with pytest.raises(ValueError):
            bl([(54,)], 11, plays[0], 1)
        with pytest.raises(ValueError):
            bl([(1, 2)], 13, plays[0], 1)
        with pytest.raises(ValueError):
            bl([(1, 2)], 11, plays[0], 0)
        with pytest.raises(TypeError):
            bl([(1, 2)], 11)
        with pytest.raises(TypeError):
            bl(5, 11, fam.leads((4,))[0], 1)
        assert bl([(1, 2)], 11, "not a combo", 1) is None


def _heuristic_views(game: str, players: int, opts: dict, hands: int, seed: int) -> list:
    from shangyou.bots import climbing_heuristic
    from shangyou.env.features import whole_plays
    out = []
    for hand in range(hands):
        g = shangyou.new_game(game, players=players, seed=seed + hand, **opts)
        rng = random.Random(hand)
        while not g.over:
            v = whole_plays(g.view(g.to_act))
            out.append(v)
            g.apply(climbing_heuristic.choose(v, rng) if hand % 2 else rng.choice(v["legal_moves"]))
    return out


@pytest.mark.parametrize("cfg", [("zheng-shangyou/pagat", n, {"twos_in_sequences": t})
                                 for n, t in ((3, False), (4, False), (5, True), (6, False))]
                         + [("zheng-shangyou/pagat-teams", 4, {})], ids=_cid)
def test_heuristic_plan_in_c_as_the_reference(cfg):
    """The heuristic's plan in C (``HeurPlan``, pagat of one pack) against its Python reference:
    over every decision of random and heuristic hands, the same move, the same plan of the
    seat's hand and of what each play would leave (cost, parts, plays that are not controls),
    the same nodes searched."""
    from shangyou.bots import climbing_heuristic as ch
    name, players, opts = cfg
    views = _heuristic_views(name, players, opts, 8, 4100 + players)
    planned = 0
    try:
        for v in views:
            moves = []
            plans = []
            for compiled in (True, False):
                ch.COMPILED_PLAN = compiled
                moves.append(ch.choose(v, random.Random(1), strict=True))
                h = ch.Heuristic(v)
                if not h.hand or "pass" in v["legal_moves"][:1] and len(v["legal_moves"]) == 1:
                    plans.append(None)
                    continue
                assert (h.planner() is not None) == (compiled and core.ACTIVE)
                parts = [h.plan(h.hand)]
                plain = [h.plain_plays(h.hand)]       # the re-ranker's inputs count them
                for m in v["legal_moves"][:6]:
                    if m != "pass" and not m.startswith(("give", "take", "discard", "offer")):
                        rest = ch._remove(h.hand, ch.move_cards(m))
                        parts.append(h.plan(rest))
                        plain.append(h.plain_plays(rest))
                nodes = h._planner.core.nodes if h._planner else h._nodes
                plans.append(([(c, [(x.kind, x.cls, x.key, x.cards, x.tier, x.label)
                                    for x in p]) for c, p in parts], nodes, plain))
            assert moves[0] == moves[1], v["legal_moves"]
            assert plans[0] == plans[1], v["hand"]
            planned += plans[0] is not None
    finally:
        ch.COMPILED_PLAN = True
    assert planned > 150


def test_heuristic_plan_leads_and_costs_in_c():
    """``HeurPlan.leads`` is ``steps.bounded_leads`` (hands of 11 to 27 cards: past 256 leads
    one per code) and ``HeurPlan.cost`` is ``Heuristic.combo_cost``, on random one-pack hands;
    bad input is refused."""
    from shangyou.games.climbing.steps import bounded_leads
    if not core.AVAILABLE:
        return
    with_core(True)
    fam = PagatFamily()
    rng = random.Random(31)
    cards = deck(1, True)
    params = (0.25, 0.8, 0.5, 6, 150, 256, 10)
    bounded = 0
    for _ in range(120):
        hand = tuple(sorted(rng.sample(cards, rng.randrange(1, 28))))
        rest = [c for c in cards if c not in hand]
        rng.shuffle(rest)
        hands = [tuple(sorted(rest[i * 6:(i + 1) * 6])) for i in range(6)]
        hp = core._core.HeurPlan([sum(1 << c for c in h) for h in hands], 3, 11, params)
        want = bounded_leads(fam, hand, 256)
        got = hp.leads(sum(1 << c for c in hand))
        assert [(core.pagat_combo(code, cs).cls, core.pagat_combo(code, cs).key, cs)
                for code, cs in got] == [(c.cls, c.key, tuple(c.cards)) for c in want]
        bounded += len(want) == 256
        for c in want[:20]:
            levels = Family_levels(fam, hands, c)
            beaten = sum(1.0 if x == 2 else 0.5 if x == 1 else 0.0 for x in levels)
            p = beaten / 3
            cost = 0.25 + 0.75 * p
            prec = sum(1 for x in c.cards if x >= 48)
            if p > 0 and prec and prec < len(c.cards):
                cost += 0.8 * prec
            code = next(code for code, cs in got if cs == tuple(c.cards)
                        and core.pagat_combo(code, cs).label == c.label)
            assert hp.cost(code, sum(1 << x for x in c.cards)) == cost
    assert bounded > 10
    HP = core._core.HeurPlan
    for bad in (([1 << 54], 1, 11, params), ([1], 2, 11, params), ([1], 1, 13, params),
                ([1], 0, 11, params), ([1], 1, 11, params[:3]),
                ([1], 1, 11, (0.25, 0.8, 0.5, 0, 150, 256, 10))):
        with pytest.raises((ValueError, TypeError)):
            HP(*bad)
    hp = HP([1], 1, 11, params)
    with pytest.raises(ValueError):
        hp.plan(1 << 60)
    with pytest.raises(ValueError):
        hp.cost(-1, 1)
    with pytest.raises(TypeError):
        hp.cost(1)


def Family_levels(fam, hands, combo) -> bytes:
    from shangyou.games.climbing.family import Family
    return Family.beat_levels(fam, hands, combo, 2)


WORST = "3D 3C 4D 4C 5D 5C 6D 6C 7D 7C 8D 8C 9D 9C 10D 2D 2D 2C 2C 2H 2H 2S 2S BJ BJ RJ RJ"


def test_pagat_two_pack_worst_hand():
    """27 cards of two packs with eight 2s and four jokers: 100,044 leads, all equal."""
    hand = tuple(sorted(parse(WORST)))
    assert len(hand) == 27
    fam = PagatFamily()
    with_core(True)
    c = fam.leads(hand)
    py = fam.leads_py(hand)
    assert len(py) == 100_044
    assert [full(x) for x in c] == [full(x) for x in py]
    # and following the longest multiple sequence and a long single sequence
    for prev in (max(py, key=lambda x: (x.cls[0] == "mseq", len(x.cards))),
                 max(py, key=lambda x: (x.cls[0] == "seq", len(x.cards)))):
        assert [full(x) for x in fam.follows(hand, prev)] == \
            [full(x) for x in fam.follows_py(hand, prev)]


def test_too_many_copies_fall_back_to_python():
    """More copies of a card than four packs: the core refuses, the Python code answers."""
    hand = tuple(sorted(parse("7H " * 5 + "8H 9H")))
    fam = PagatFamily()
    with_core(True)
    if core.AVAILABLE:
        with pytest.raises(ValueError):
            core._core.pagat_plays(hand, 11, -1, 0, 0, 0, 0)
    assert [full(x) for x in fam.leads(hand)] == [full(x) for x in fam.leads_py(hand)]


def test_bad_input_is_refused():
    if not core.AVAILABLE:
        assert core.use(True) is False and core.ACTIVE is False
        return
    plays = core._core.pagat_plays
    for bad in ((54,), (-1,), ("7H",)):
        with pytest.raises((ValueError, TypeError)):
            plays(bad, 11, -1, 0, 0, 0, 0)
    with pytest.raises(ValueError):
        plays((1, 2), 13, -1, 0, 0, 0, 0)
    with pytest.raises(ValueError):
        plays((1, 2), 11, 4, 0, 0, 0, 0)
    with pytest.raises(TypeError):
        plays((1, 2), 11)


def test_dealing_shuffles_as_python_does():
    """The core's shuffle deals exactly as random.Random.shuffle (the golden logs depend on it)."""
    from shangyou.games.climbing.core import shuffle
    with_core(True)
    for seed in range(200):
        n = seed % 230
        a, b = list(range(n)), list(range(n))
        random.Random(seed).shuffle(a)
        shuffle(random.Random(seed), b)
        assert a == b
    assert core.SHUFFLE == core.AVAILABLE


def test_bad_input_to_every_family_is_refused():
    if not core.AVAILABLE:
        return
    m = core._core
    hand = tuple(sorted(parse("3H 4H 5H 6H 7H")))
    with pytest.raises(ValueError):
        m.owen_plays(hand, 9, 0, 0, 0)
    with pytest.raises(ValueError):
        m.zf_plays(hand, 10, 0, 0)
    with pytest.raises(ValueError):
        m.winner_plays(hand, 2, 0, 0, -1, 0, 0, 0)          # min_straight below 3
    with pytest.raises(ValueError):
        m.winner_plays(hand, 5, 0, 0, 9, 0, 0, 0)
    with pytest.raises(ValueError):
        m.winner_plays((54,), 5, 0, 0, -1, 0, 0, 0)
    with pytest.raises(TypeError):
        m.zf_plays(hand, -1, 0, 0, len)                    # half of the Combo arguments
    with pytest.raises(ValueError):                         # a seat out of range
        m.pagat_playout([list(hand), [1, 2]], 5, None, None, 0, [], None, 11, False)
    with pytest.raises(ValueError):                         # a play code out of range
        m.pagat_playout([list(hand), [1, 2]], 0, (1 << 30, (1,)), 1, 0, [], None, 11, False)
    with pytest.raises(ValueError):                         # a finished seat holding cards
        m.pagat_playout([list(hand), [1, 2]], 0, None, None, 0, [1], None, 11, False)
    with pytest.raises(TypeError):
        m.bind(int)                                         # no Combo slots


# ------------------------------------------------------------------------- playouts
PLAYOUT_CONFIGS = [("zheng-shangyou/pagat", 5, {}), ("zheng-shangyou/pagat", 3, {}),
                   ("zheng-shangyou/pagat", 8, {"decks": 2}),
                   ("zheng-shangyou/pagat", 4, {"decks": 2, "twos_in_sequences": True}),
                   ("zheng-shangyou/pagat-teams", 4, {}), ("zheng-shangyou/pagat-teams", 6, {})]


def _reading(meta) -> tuple:
    kind, cls, key, _tier, label = meta
    return (kind, cls, key, label)


def _move_of(seat, m) -> tuple:
    if m.kind == "pass":
        return (seat, None, None)
    c = m.combo
    return (seat, (c.kind, c.cls, c.key, c.label), tuple(m.cards))


@pytest.mark.parametrize("cfg", PLAYOUT_CONFIGS, ids=_cid)
def test_search_playouts_move_for_move(cfg, games):
    """Worlds of the search, from positions of heuristic self-play, each played out by the
    Python playout policy and by the core: the same moves, the same order, the same value."""
    from shangyou.bots import climbing_heuristic, climbing_search
    from shangyou.bots.climbing_playout import PlanPolicy, core_playout
    name, players, opts = cfg
    policy = PlanPolicy()
    compared = 0
    big = opts.get("decks") == 2           # long hands: the Python playouts are slow
    for d in range(max(1, games // (25 if big else 6))):
        g = shangyou.new_game(name, players=players, seed=900 + d, **opts)
        rng = random.Random(d)
        k = 0
        while not g.over:
            v = g.view(g.to_act)
            if k % (5 if big else 3) == 0 and len(v["legal_moves"]) > 1:
                search = climbing_search.Search(v, rng)
                for _ in range(3):
                    world = search.sampler.sample(rng)
                    twin = world.clone()
                    with_core(False)
                    assert core_playout(world, policy, search.team_of) is None
                    start = len(world.moves)
                    value = search.playout(world)
                    if not core.AVAILABLE:
                        continue
                    with_core(True)
                    order, trace = core.pagat_playout(twin, search.team_of, trace=True)
                    assert order == world.history[-1]["order"]
                    assert [(s, None if c is None else _reading(core._meta(c)), cards)
                            for s, c, cards in trace] == \
                        [_move_of(s, m) for s, m in world.moves[start:]]
                    assert search.playout(twin) == value
                    assert not twin.moves[start:]        # the core leaves the world as it was
                    compared += 1
            k += 1
            with_core(False)
            g.apply(climbing_heuristic.choose(v, rng))
    assert compared > 10 or not core.AVAILABLE


def test_plan_matches_python():
    from shangyou.bots.climbing_playout import plan
    if not core.AVAILABLE:
        return
    rng = random.Random(3)
    cards = deck(2, True)
    for _ in range(400):
        hand = rng.sample(cards, rng.randrange(1, 30))
        counts = [0] * 15
        for c in hand:
            counts[min(c >> 2, 13) if c < 53 else 14] += 1
        assert core._core.plan(counts) == plan(tuple(counts))


@pytest.mark.skipif(not core.AVAILABLE, reason="the compiled core is not built")
@pytest.mark.parametrize("name,players", [("zheng-shangyou/pagat", 5), ("zheng-shangyou/owen", 2),
                                          ("zheng-shangyou/winner", 4), ("zheng-fen", 4)])
def test_first_deal_seeded_in_c_as_in_python(name, players):
    """A climbing game of an int seed 0 <= seed < 2**64 draws its dealer and is shuffled by the
    core's generator (``seeded_shuffle``, kept as its state until the game draws again), any
    other seed by Python's; either way the deal, the leader and the generator's state are
    those of the core off, in a match's later hands too."""
    for seed in (0, 3, 2**40 + 1, 2**64 - 1, 2**64, -2, "cd" * 32):
        on = shangyou.new_match(name, players=players, seed=seed)
        prev = core.use(False)
        try:
            off = shangyou.new_match(name, players=players, seed=seed)
        finally:
            core.use(prev)
        assert (type(on._rng_obj) is bytes) == (type(seed) is int and 0 <= seed < 2**64)
        assert (on.dealer, on.hands, on.to_act, on.deals) == \
            (off.dealer, off.hands, off.to_act, off.deals), (name, seed)
        assert on._rng.getstate() == off._rng.getstate()
        pick = random.Random(str(seed))
        while on.hand_number == 1 and not on.over:     # the first hand, the same moves
            move = str(pick.choice(list(on.legal_moves())))
            on.apply(move)
            prev = core.use(False)
            try:
                off.apply(move)
            finally:
                core.use(prev)
        assert on.hand_number == off.hand_number == 2
        assert (on.hands, on.deals, on.to_act) == (off.hands, off.deals, off.to_act)
        assert on._rng.getstate() == off._rng.getstate()
