"""The compiled core's legal moves and moves made (games/climbing/_core_moves.c,
_core_apply.c): the ``Plays`` sequence behaves as the list the Python code makes, the play
to beat is read in C exactly where core.py reads it, and ``apply_listed`` makes the plain
plays and passes as ClimbingGame.apply does and leaves everything else, unchanged, to it.

The random games of every preset with and without the core, compared state by state, are in
test_core_differential.py (``Lockstep``); these tests need the module (without it they check
that nothing of it is used).
"""

from __future__ import annotations

import copy
import pickle
import random
from collections.abc import Sequence

import pytest

import shangyou
from shangyou.cards import deck, parse
from shangyou.engine.moves import PASS_MOVE, Move
from shangyou.errors import IllegalMove
from shangyou.games.climbing import core
from shangyou.games.climbing.combo import Combo
from shangyou.games.climbing.family import play_move


@pytest.fixture(autouse=True)
def _core_on():
    prev = core.use(True)
    yield
    core.use(prev)


def fields(m) -> tuple:
    c = m.combo
    return (m.kind, tuple(m.cards), None if c is None else
            (c.kind, c.cls, c.key, tuple(c.cards), c.tier, c.label))


def _state(g) -> str:
    """The game's whole state as text: its instance dict and its slots (``__slots__``)."""
    return repr((g.__dict__, [getattr(g, name, "<unset>") for name in type(g).__slots__]))


def following_state(name: str = "zheng-shangyou/pagat", players: int = 4, seed: int = 2):
    """A game whose seat to act has a play to beat and several ways to beat it."""
    rng = random.Random(seed)
    g = shangyou.new_game(name, players=players, seed=seed)
    while True:
        moves = g.legal_moves()
        if g.last is not None and len(moves) > 3:
            return g
        g.apply(moves[-1] if g.last is None else rng.choice(moves))


def test_without_the_module_nothing_of_it_is_used():
    if core.AVAILABLE:
        assert core.apply_listed is core._core.apply_listed
        return
    assert not core.ACTIVE
    with pytest.raises(RuntimeError):
        core.apply_listed(None, None, None)
    g = shangyou.new_game("zheng-shangyou/pagat", players=4, seed=1)
    assert type(g.legal_moves()) is list


def test_plays_behave_as_the_list_of_the_same_moves():
    if not core.AVAILABLE:
        return
    g = following_state()
    moves = g.legal_moves()
    Plays = core._core.Plays
    assert type(moves) is Plays and isinstance(moves, Sequence)
    assert g.legal_moves() is moves                       # listed once per state
    core.use(False)
    ref = g.clone()
    ref._legal = ref._token = None
    as_list = ref.legal_moves()
    core.use(True)
    assert type(as_list) is list and len(moves) == len(as_list) > 3
    n = len(moves)
    assert moves[0] is PASS_MOVE and moves.codes() and len(moves.codes()) == n - 1
    check_as_list(moves, as_list)


def check_as_list(moves, as_list) -> None:
    """One of the core's lazy sequences of moves (``Plays``, ``Steps``, ``Subset``) against
    the list of the same moves: every operation of a read-only list."""
    n = len(moves)
    assert isinstance(moves, Sequence) and n == len(as_list) > 3
    assert [fields(m) for m in moves] == [fields(m) for m in as_list]
    assert moves[1] is moves[1] and moves[-1] is moves[n - 1]   # each made once
    assert [fields(m) for m in moves[1:3]] == [fields(m) for m in as_list[1:3]]
    assert type(moves[::2]) is list and len(moves[::-1]) == n
    assert [str(m) for m in reversed(moves)] == [str(m) for m in reversed(as_list)]
    assert moves == as_list and as_list == moves and (moves != as_list) is False
    assert moves != as_list[:-1] and moves != tuple(as_list)
    assert str(moves[2]) in moves and "3H 3H 3H 3H 3H" not in moves
    assert moves.index(str(moves[2])) == 2
    assert moves.count("pass") == as_list.count("pass") == ("pass" in moves)
    with pytest.raises(ValueError):
        moves.index("no such move")
    for bad in (n, -n - 1, 10**30):
        with pytest.raises(IndexError):
            moves[bad]
    with pytest.raises(TypeError):
        moves["1"]
    with pytest.raises(TypeError):
        hash(moves)
    with pytest.raises(TypeError):
        moves[0] = PASS_MOVE
    assert repr(moves) == repr(as_list)
    assert (moves + [PASS_MOVE])[-1] is PASS_MOVE and len(moves + []) == n
    for copied in (pickle.loads(pickle.dumps(moves)), copy.copy(moves), copy.deepcopy(moves)):
        assert type(copied) is list and [str(m) for m in copied] == [str(m) for m in moves]
    assert [type(m) for m in moves] == [Move] * n


def test_the_steps_of_a_choice_behave_as_the_lists_of_the_same_moves():
    """Past STEP_LIMIT plays: the first step's moves (``Steps``) and a chosen group's
    (``Subset``) against the lists the Python code offers at the same steps; ``select``,
    ``find``, ``codes`` and ``groups`` refuse bad input."""
    if not core.AVAILABLE:
        return
    from shangyou.games.climbing.steps import CHOOSE, STEP_LIMIT
    rng = random.Random(3)
    checked = set()
    for seed in range(40):
        g = shangyou.new_game("zheng-shangyou/owen", players=2, seed=seed)
        while not g.over and len(checked) < 2:
            moves = g.legal_moves()
            chosen = [m for m in moves if m.kind == "choose"]
            kind = type(moves).__name__
            if kind in ("Steps", "Subset") and (kind == "Subset" or chosen) and \
                    kind not in checked and len(moves) > 3:
                core.use(False)
                ref = g.clone()
                ref._legal = ref._token = ref._grouping = None     # grouped in Python
                as_list = ref.legal_moves()
                core.use(True)
                assert type(as_list) is list
                check_as_list(moves, as_list)
                checked.add(kind)
            g.apply(rng.choice(chosen) if chosen and "Subset" not in checked
                    else rng.choice(moves))
        if len(checked) == 2:
            break
    assert checked == {"Steps", "Subset"}
    fam = shangyou.rules("zheng-shangyou/owen", players=2).family
    hand = tuple(sorted(parse("3S 3H 4S 4H 5S 5H 6S 6H 7C 7S 8C 8S 9S 9H 10S 10H JS JH QS QH "
                              "2D 2C 2H 2S BJ RJ")))
    plays = fam.play_moves(hand, None, object())
    top = plays.groups({}, lambda m: f"choose {len(m.cards)} {m.combo.describe()}", CHOOSE)
    assert len(top) > STEP_LIMIT // 4 and top.find(123) is None
    for bad in ((), ({}, str, 1), ([], str, CHOOSE), ({}, None, CHOOSE)):
        with pytest.raises(TypeError):
            plays.groups(*bad)
    with pytest.raises(TypeError):                          # text_of must give a str
        plays.groups({}, lambda m: 1, CHOOSE)
    for bad in ((-1, (), 9, None), (len(top), (), 9, None)):
        with pytest.raises(IndexError):
            top.select(*bad)
    for bad in ((0, (54,), 9, None), (0, (-1,), 9, None)):
        with pytest.raises(ValueError):
            top.select(*bad)
    for bad in ((0, [], 9, None), (0, ("3H",), 9, None), (0, ())):
        with pytest.raises(TypeError):
            top.select(*bad)
    with pytest.raises(IndexError):
        top.codes(len(top))
    n, sub, most = top.select(0, (), 0, None)               # more than the cap: the maxima
    assert n >= 1 and sub is None and len(most) == 54


def test_the_play_phase_is_listed_in_c_where_python_would_list_it():
    """``listed_moves``: the family's listing of the seat to act in one call; None (nothing
    listed) outside the play phase, while a choice in steps is under way, for a family
    without its spec and for a hand the core refuses."""
    if not core.AVAILABLE:
        return
    g = following_state()
    tok = object()
    got = core.listed_moves(g, tok)
    fam = g.rules.family
    assert got == fam.play_moves(g.hands[g.to_act], g.last, object())
    assert all(m.token is tok for m in got[1:])
    phase, g.phase = g.phase, "exchange"
    assert core.listed_moves(g, tok) is None
    g.phase = phase
    g._grouping = ("a choice", "under way")
    assert core.listed_moves(g, tok) is None
    del g._grouping
    spec = fam.__dict__.pop("_core_spec")
    try:
        assert core.listed_moves(g, tok) is None
    finally:
        fam._core_spec = spec
    g.hands[g.to_act] = g.hands[g.to_act] + [600]          # a card the core refuses
    assert core.listed_moves(g, tok) is None
    with pytest.raises(TypeError):
        core.listed_moves(g)
    assert core.listed_moves(None, tok) is None and core.listed_moves(1, tok) is None


def test_a_listed_move_is_made_and_logged_as_before():
    if not core.AVAILABLE:
        return
    g = following_state()
    moves = g.legal_moves()
    m = moves[2]
    twin = g.clone()                                        # shares the listing (its token)
    g.apply(m)
    assert g.moves[-1] == (twin.to_act, m) and g._legal is None and g._token is None
    core.use(False)
    twin.apply(str(m))                                      # the Python path, from the text
    core.use(True)
    assert g.snapshot() == twin.snapshot()
    with pytest.raises(IllegalMove):                        # the listing is gone with its state
        g.apply(m)


def test_apply_listed_makes_plain_moves_and_leaves_the_rest():
    """In C: a listed play that leaves cards in the hand, a pass (ending the trick or not), a
    play that empties the hand while the hand goes on (the seat joins the finishing order).
    Left to the Python code, changing nothing: a player out that ends the hand, a move not
    just listed, another seat, a text, the exchange, the end of the game."""
    if not core.AVAILABLE:
        return
    apply_listed = core.apply_listed
    made = {"play": 0, "pass": 0, "end of trick": 0, "out": 0}
    left = 0
    rng = random.Random(4)
    for seed in range(30):
        g = shangyou.new_game("zheng-shangyou/pagat", players=5, seed=seed)
        while not g.over:
            moves = g.legal_moves()
            m = rng.choice(moves)
            before = g.snapshot(), g.passes, g.last_seat, len(g.tricks)
            assert not apply_listed(g, str(m), None)        # texts: the Python code
            assert not apply_listed(g, m, (g.to_act + 1) % g.n)
            assert (g.snapshot(), g.passes, g.last_seat, len(g.tricks)) == before
            seat = g.to_act
            out = not m.is_pass and len(m.cards) == len(g.hands[seat])
            ends = out and sum(1 for s in range(g.n) if s != seat and g.hands[s]) <= 1
            first_out = g.counts_at_first_out is None
            tricks = len(g.tricks)
            if apply_listed(g, m, seat):
                assert not ends
                made["pass" if m.is_pass else "play"] += 1
                made["end of trick"] += len(g.tricks) > tricks
                assert g.moves[-1][1] is m and g._legal is None
                if out:
                    made["out"] += 1
                    assert g.hands[seat] == [] and g.order[-1] == seat and g.to_act != seat
                    assert (g.counts_at_first_out == [len(h) for h in g.hands]) if first_out \
                        else g.counts_at_first_out[seat] > 0
            else:
                assert ends and (g.snapshot(), g.passes) == before[:2]
                left += 1
                g.apply(m)
        assert not apply_listed(g, PASS_MOVE, None)         # over
    assert min(made.values()) > 60 and left == 30
    # a move of an earlier listing, the exchange, objects that are no game
    g = following_state()
    old = g.legal_moves()[1]
    g.apply(g.legal_moves()[0])
    g.legal_moves()
    assert not apply_listed(g, old, None)
    m = shangyou.new_match("zheng-shangyou/pagat", players=4, seed=3)
    while m.phase != "exchange":
        m.apply(random.Random(1).choice(m.legal_moves()))
    assert not apply_listed(m, m.legal_moves()[0], None) and m.phase == "exchange"
    for other in (1, "game", object(), []):
        assert not apply_listed(other, PASS_MOVE, None)
    with pytest.raises(TypeError):
        apply_listed(g, PASS_MOVE)


def test_a_broken_state_is_left_to_the_python_code():
    """State the core cannot read (a seat out of range, a hand that is no list, a card that
    is no int): apply_listed answers False and changes nothing."""
    if not core.AVAILABLE:
        return
    for spoil in ("to_act", "hands", "trick", "card"):
        g = following_state()
        m = g.legal_moves()[1]
        if spoil == "to_act":
            g.to_act = g.n + 3
        elif spoil == "hands":
            g.hands[g.to_act] = tuple(g.hands[g.to_act])
        elif spoil == "trick":
            g.trick = tuple(g.trick)
        else:
            g.hands[g.to_act] = [str(c) for c in g.hands[g.to_act]]
        before = _state(g)
        assert not core.apply_listed(g, m, None)
        assert _state(g) == before


# the play to beat, read in C (core_*_prev) where core.py reads it in Python
def _python_reading(fam, hand, prev):
    """The follows of ``prev`` as core.py lists them, reading the play in Python (None: it does
    not describe the play; an exception: it cannot read it either)."""
    name = fam.name
    if name == "pagat":
        from shangyou.games.zheng_shangyou.pagat import _SINGLE_COMBOS
        return core.pagat_follows(hand, fam.seq_top, prev, _SINGLE_COMBOS)
    if name == "owen":
        return core.owen_follows(hand, prev)
    if name == "winner":
        return core.winner_follows(fam, hand, prev)
    return core.zf_follows(hand, prev)


ODD_COMBOS = [
    Combo("single", ("single",), (3.5,), (1,), 0, "x"),
    Combo("single", ("single",), (True,), (1,), 0, "x"),
    Combo("pair", ("pair",), (5,), (20, 21), 0, "x"),
    Combo("pair", ("pair",), (5, 1, 2), (20, 21), 0, "x"),
    Combo("straight", ("straight", 4), (7,), (1, 5, 9, 13), 0, "x"),
    Combo("stair", ("stair", 13), (7, 1), (1,), 0, "x"),
    Combo("stair", ("stair", "2"), (7, 1), (1,), 0, "x"),
    Combo("bomb", ("bomb",), (5, 1), (20, 21, 22, 23), 0, "x"),
    Combo("rocket", ("rocket",), (), (52, 53), 2, "x"),
    Combo("rocket", ("rocket",), (), (52, 53), 1, "x"),
    Combo("special", ("special",), (1,), (1,), 1, "x"),
    Combo("pairs", ("pairs",), (9, 3), (1,), 0, "x"),
    Combo("pairs", ("pairs",), (9,), (1,), 0, "x"),
    Combo("suit sequence", ("suit sequence",), (15, 3), (1,), 0, "x"),
    Combo("straight flush", ("straight flush", 5), (20, 2), (1,), 2, "x"),
    Combo("straight flush", ("straight flush", 5), (20,), (1,), 2, "x"),
    Combo("straight", ("straight", 5), (20, 2), (1,), 0, "x"),
    Combo("straight", ("straight", 14), (20, 2), (1,), 0, "x"),
    Combo("set", ("set", 3), (5, 1), (20, 21, 22), 0, "x"),
    Combo("set", ("set", 3), (5, 1), (20, 21, 22), 1, "x"),
    Combo("mseq", ("mseq", 2, 2), (5, 1), (1,), 0, "x"),
    Combo("seq", ("seq", 5), (0, 9, 1), (1,), 0, "x"),
    Combo("odd", (), (), (1,), 0, "x"),
    Combo("odd", ("single", 1, 2), (1,), (1,), 0, "x"),
]


@pytest.mark.parametrize("preset, players, opts", [
    ("zheng-shangyou/pagat", 4, {}), ("zheng-shangyou/owen", 2, {}), ("zheng-fen", 4, {}),
    ("zheng-shangyou/winner", 4, {}),
    ("zheng-shangyou/winner", 4, {"jokers": True, "bomb": "quad",
                                  "straight_needs_higher_rank": True})],
    ids=["pagat", "owen", "zheng-fen", "winner", "winner-options"])
def test_the_play_to_beat_is_read_where_python_reads_it(preset, players, opts):
    """Every lead of random hands as the play to beat: the core lists the pass and the
    follows, the same as the Python code. Odd combos: the core lists them only where core.py
    describes the play too (else the game asks ``family.follows``), and then the same."""
    if not core.AVAILABLE:
        return
    fam = shangyou.rules(preset, players=players, **opts).family
    spec = fam.core_spec()
    rng = random.Random(8)
    cards = deck(1, True)
    token = object()
    compared = odd = 0
    for _ in range(25):
        hand = tuple(sorted(rng.sample(cards, rng.randrange(6, 20))))
        other = tuple(sorted(rng.sample(cards, rng.randrange(3, 14))))
        for prev in list(fam.leads_py(other)) + ODD_COMBOS:
            got = core.family_moves(spec, fam, hand, prev, token)
            if prev.label != "x":                        # a real play: always read in C
                assert got is not None, repr(prev)
            try:
                want = _python_reading(fam, hand, prev)
            except (IndexError, TypeError, ValueError):
                want = None
            if got is None:
                odd += 1
                continue
            assert want is not None, repr(prev)
            assert got[0] is PASS_MOVE
            assert [fields(m) for m in got[1:]] == [fields(play_move(c)) for c in want], \
                repr(prev)
            if prev.label != "x":    # (an impossible play may be followed otherwise in Python)
                assert [fields(m) for m in got[1:]] == \
                    [fields(play_move(c)) for c in fam.follows_py(hand, prev)], repr(prev)
            compared += 1
    assert compared > 200 and odd > 0


def test_bad_input_to_moves_is_refused():
    if not core.AVAILABLE:
        return
    moves = core.family_moves
    fam = shangyou.rules("zheng-shangyou/owen").family
    spec = fam.core_spec()
    hand = tuple(sorted(parse("3H 4H 5H 6H 7H")))
    tok = object()
    for bad_spec in ((1, 0, 0), [1, 0, 0, 0] + list(spec[4:]), (9,) + spec[1:],
                     ("1",) + spec[1:], spec[:6] + ([],), spec[:4] + (1,) + spec[5:],
                     spec[:5] + ([],) + spec[6:]):
        with pytest.raises((TypeError, ValueError)):
            moves(bad_spec, fam, hand, None, tok)
    with pytest.raises(TypeError):
        moves(spec, fam, hand, None)
    for bad_hand in ((54,), ("3H",), 5):
        with pytest.raises((TypeError, ValueError)):
            moves(spec, fam, bad_hand, None, tok)
    with pytest.raises(ValueError):                      # one pack: no card twice
        moves(spec, fam, (1, 1, 2), None, tok)
    assert len(moves(spec, fam, hand, None, tok)) == len(fam.leads_py(hand))


def test_the_deal_in_c_is_the_python_deal():
    """core.deal_hands deals as ClimbingGame._start_hand's Python code: the same hands, each
    sorted, holding the same card objects, for 1-3 packs, 2-8 seats, any dealer and count;
    anything but a list of cards is refused."""
    if not core.AVAILABLE:
        return
    rng = random.Random(5)
    for _ in range(500):
        cards = deck(rng.randint(1, 3), rng.random() < 0.5)
        rng.shuffle(cards)
        n = rng.randint(2, 8)
        first, dealt = rng.randrange(n), rng.randint(0, len(cards))
        got = core.deal_hands(cards, n, first, dealt)
        want = [sorted(cards[(s - first) % n:dealt:n]) for s in range(n)]
        assert got == want
        assert all(a is b for h, w in zip(got, want) for a, b in zip(h, w))
    for bad in (([1, 2, 54], 2, 0, 3), ([1, "2"], 2, 0, 2), ((1, 2), 2, 0, 2)):
        with pytest.raises(TypeError):
            core.deal_hands(*bad)
    for bad in (([1, 2], 2, 2, 2), ([1, 2], 9, 0, 2), ([1, 2], 2, 0, 3)):
        with pytest.raises(ValueError):
            core.deal_hands(*bad)
