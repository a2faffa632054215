"""The compiled Sheng ji core (``games/sheng_ji/_core*.c``) against the Python reference.

Lockstep games: two games of the same preset, options and seed, one made with the core on and
one with it off (``core.use``), the same random choice made in both; after every move every
legal-move list (each item's kind, cards and text, in order), the game's whole state (every
attribute but the listing itself and the random source: hands, trick, pending cards, the
lead's units, tricks, cards won, events, penalty points, friends, levels, history, result...),
and at each trick's end the snapshot (in every fourth game every seat's view too), and at the
end all of them, are compared. Every preset, player count and pack count, and the options that reach the play
(``red_five``, ``throw_penalty``, friends, ``kitty_theft``, ``no_bid``, start levels, kitty
sizes); matches too. Then constructed states: follows of huge hands (four packs) to long
throws, walked card by card (``pick``) with both; tractors owed; failed throws. Then the
``Moves`` sequence's list behaviour, and the fallback (``SHANGYOU_NO_C=1``; the module missing).

Without the compiled module the lockstep games compare the Python code with itself.
``SHANGYOU_SJ_CORE_GAMES=N`` plays N games per configuration instead of the default.
"""

from __future__ import annotations

import copy
import os
import pickle
import random
from collections.abc import Sequence

import pytest

from shangyou.errors import IllegalMove
from shangyou.registry import make_game
from shangyou.games.sheng_ji import core
from shangyou.games.sheng_ji.order import decompose

GAMES = int(os.environ.get("SHANGYOU_SJ_CORE_GAMES", "0") or 0)

# (preset, options, games by default: 1,143 hands in all, about 45 s on one busy core)
CONFIGS = [
    ("sheng-ji", {}, 120),
    ("sheng-ji", {"decks": 1}, 100),
    ("sheng-ji", {"decks": 3}, 40),
    ("sheng-ji", {"decks": 4}, 24),
    ("sheng-ji", {"players": 6}, 50),
    ("sheng-ji", {"players": 6, "decks": 1}, 100),
    ("sheng-ji", {"players": 6, "decks": 3}, 30),
    ("sheng-ji", {"players": 6, "decks": 4}, 24),
    ("sheng-ji/single-deck", {}, 120),
    ("sheng-ji/zhao-pengyou", {}, 80),
    ("sheng-ji/zhao-pengyou", {"decks": 3}, 35),
    ("sheng-ji/zhao-pengyou", {"players": 6}, 40),
    ("sheng-ji/zhao-pengyou", {"players": 6, "decks": 2}, 40),
    ("sheng-ji/zhao-pengyou", {"players": 7}, 30),
    ("sheng-ji/zhao-pengyou", {"players": 5, "friends": 2}, 40),
    ("sheng-ji", {"red_five": True, "throw_penalty": 10}, 50),
    ("sheng-ji", {"red_five": True, "start_level": "5", "no_bid": "no-trump"}, 40),
    ("sheng-ji", {"kitty_theft": True, "no_bid": "redeal", "kitty": 12}, 40),
    ("sheng-ji", {"start_level": "A", "jack_hook": True, "kitty_multiplier": "linear"}, 40),
    ("sheng-ji/single-deck", {"throw_penalty": 10, "kitty_theft": True, "red_five": True}, 60),
    ("sheng-ji/zhao-pengyou", {"throw_penalty": 10, "kitty_theft": True, "red_five": True}, 40),
]
MATCHES = [("sheng-ji", {}, 2), ("sheng-ji/single-deck", {"must_play_ranks": "5 10"}, 2),
           ("sheng-ji/zhao-pengyou", {"throw_penalty": 10}, 1)]

SKIP_STATE = ("_legal", "_token", "_rng_obj", "_tricks_cache", "moves", "events", "tricks")


def _items(moves) -> list:
    return [(m.kind, tuple(m.cards), str(m)) for m in moves]


def _on(active: bool) -> None:
    core.use(active)


class Pair:
    """Two games in lockstep: ``a`` made with the core (when built), ``b`` with Python."""

    held = 0                                 # states checked while the core held the hand

    def __init__(self, name: str, options: dict, seed, match: bool = False):
        _on(True)
        self.a = make_game(name, dict(options), seed, match=match)
        _on(False)
        self.b = make_game(name, dict(options), seed, match=match)
        self.seen = 0
        self.kinds: dict = {}
        self.check()

    def listing(self) -> tuple[Sequence, list]:
        _on(True)
        la = self.a.legal_moves()
        _on(False)
        lb = self.b.legal_moves()
        assert _items(la) == _items(lb), (self.b.phase, self.b.moves[-3:])
        assert len(la) == len(lb) and list(la) == list(lb)
        return la, lb

    def apply(self, i: int, la, lb) -> None:
        seat = self.b.to_act
        _on(True)
        self.a.apply(la[i], seat)
        _on(False)
        self.b.apply(lb[i], seat)
        k = (self.b.phase, lb[i].kind)
        self.kinds[k] = self.kinds.get(k, 0) + 1

    def check_state(self) -> None:
        a, b = self.a, self.b
        if "hands" not in a.__dict__:
            # the hand held in C (``_st``): asking for one attribute makes them all again
            # (a clone's packed attributes are made so too)
            self.held += "_lazy" not in a.__dict__
            a.hands
        da = {k: v for k, v in a.__dict__.items() if k not in SKIP_STATE}
        db = {k: v for k, v in b.__dict__.items() if k not in SKIP_STATE}
        assert da.keys() == db.keys()
        for k in db:
            assert da[k] == db[k], (k, da[k], db[k])
        for k in type(b).__slots__:          # the deal's record and the levels (slots)
            if k != "_st" and k not in SKIP_STATE:     # (``_st``: the hand held in C)
                assert getattr(a, k, None) == getattr(b, k, None), k
        # the logs only grow: compare what is new
        for k in ("moves", "events", "tricks"):
            xa, xb = getattr(a, k), getattr(b, k)
            assert len(xa) == len(xb), k
        for (sa, ma), (sb, mb) in zip(a.moves[self.seen:], b.moves[self.seen:]):
            assert (sa, str(ma)) == (sb, str(mb))
        assert a.events[-8:] == b.events[-8:]
        assert a.tricks[-2:] == b.tricks[-2:]
        self.seen = len(b.moves)

    def check(self, views: bool = False) -> None:
        a, b = self.a, self.b
        self.check_state()
        _on(True)
        sa = a.snapshot()
        seats = range(a.n) if views or b.over else []
        va = [a.view(s) for s in seats]
        _on(False)
        assert sa == b.snapshot()
        assert va == [b.view(s) for s in seats]

    def play(self, rng: random.Random, light: bool = False, views: bool = True) -> None:
        """Random moves to the end: the whole state after every move; the snapshot (and with
        ``views`` every seat's view, with its legal moves) at the end of every trick
        (``light``, matches: of every hand); everything at the end."""
        while not self.b.over:
            la, lb = self.listing()
            i = rng.randrange(len(lb))
            tricks, hands = len(self.b.tricks), self.b.hand_number
            self.apply(i, la, lb)
            if self.b.over or (self.b.hand_number != hands if light
                               else len(self.b.tricks) != tricks):
                self.check(views=views)
            else:
                self.check_state()
        assert self.a.events == self.b.events and self.a.tricks == self.b.tricks
        assert self.a.result == self.b.result and self.a.history == self.b.history


@pytest.fixture(autouse=True)
def _restore_core():
    prev = core.ACTIVE
    yield
    core.use(prev)


@pytest.mark.parametrize("name,options,games", CONFIGS,
                         ids=[f"{n}-{'-'.join(f'{k}={v}' for k, v in o.items())}"
                              for n, o, _ in CONFIGS])
def test_lockstep_hands(name, options, games):
    kinds: dict = {}
    held = 0
    for seed in range(GAMES or games):
        p = Pair(name, options, seed)
        p.play(random.Random(seed * 7 + 1), views=seed % 4 == 0)
        for k, v in p.kinds.items():
            kinds[k] = kinds.get(k, 0) + v
        held += p.held
    # the games reached the moves the core makes, and states the core held in C
    assert kinds.get(("play", "play"), 0) > 0 and kinds.get(("play", "throw"), 0) > 0
    assert held > 0 or not core.AVAILABLE


def test_attribute_set_while_held_keeps_its_value():
    """An attribute set while the core holds the hand keeps the value set; the others are
    made again from the held state, and the game plays on in lockstep."""
    p = Pair("sheng-ji", {}, 11)
    rng = random.Random(11)
    while p.b.phase != "play" or not p.b.trick:
        la, lb = p.listing()
        p.apply(rng.randrange(len(lb)), la, lb)
    _on(True)
    p.a.legal_moves()
    assert "hands" not in p.a.__dict__ or not core.AVAILABLE        # held
    new = [list(reversed(h)) for h in p.b.hands]
    p.a.hands = new                          # set, not read, while held
    p.b.hands = [list(h) for h in new]
    assert p.a.hands is new
    assert p.a.trick == p.b.trick and p.a.won == p.b.won and p.a.events == p.b.events
    p.check_state()
    p.play(rng, views=False)


HELD = [("sheng-ji", {}, 30), ("sheng-ji/zhao-pengyou", {"players": 6}, 20),
        ("sheng-ji", {"decks": 3, "throw_penalty": 10, "red_five": True}, 12),
        ("sheng-ji/zhao-pengyou", {"kitty_theft": True, "friends": 2, "players": 5}, 12)]


@pytest.mark.parametrize("name,options,games", HELD)
def test_hand_held_in_c_over_many_moves(name, options, games):
    """The core's game played with nothing read for a random number of moves (so the hand
    stays held in C, ``_core_hand.c``, its records growing), then its whole state compared;
    its listings compared at every move. Asked for in turn: an attribute, a pickle, a clone,
    a view."""
    spans = 0
    for seed in range(games):
        p = Pair(name, options, 500 + seed)
        rng = random.Random(seed)
        quiet = 0
        while not p.b.over:
            la, lb = p.listing()
            p.apply(rng.randrange(len(lb)), la, lb)
            quiet -= 1
            if quiet > 0 and not p.b.over:
                continue
            spans += core.AVAILABLE and "hands" not in p.a.__dict__ and \
                "_lazy" not in p.a.__dict__
            how = rng.randrange(4)
            if how == 1:                     # a pickle makes the attributes first
                p.a = pickle.loads(pickle.dumps(p.a))
            elif how == 2:                   # so does a clone, which plays on for the original
                p.a = p.a.clone()
            elif how == 3:
                _on(True)
                va = p.a.view(p.a.to_act or 0)
                _on(False)
                assert va == p.b.view(p.b.to_act or 0)
            if how != 2:                     # (the clone is compared after its next span)
                p.check_state()
            quiet = rng.randrange(1, 40)
        assert p.a.events == p.b.events and p.a.moves == p.b.moves or \
            [(s, str(m)) for s, m in p.a.moves] == [(s, str(m)) for s, m in p.b.moves]
        assert p.a.events == p.b.events and p.a.tricks == p.b.tricks
        assert p.a.result == p.b.result and p.a.history == p.b.history
    assert spans > 0 or not core.AVAILABLE


@pytest.mark.parametrize("name,options,games", MATCHES)
def test_lockstep_matches(name, options, games):
    for seed in range(games):
        p = Pair(name, options, 1000 + seed, match=True)
        p.play(random.Random(seed), light=True)
        assert p.b.hand_number >= 1


def test_secret_seeds():
    """A secret seed deals with DealRandom (no C shuffle): the same games."""
    for i in range(4):
        p = Pair("sheng-ji", {}, f"{i:064x}")
        p.play(random.Random(i))


def test_sampled_worlds():
    """Games built by the search's world sampler (worlds.py: no __init__, cards.Card objects
    in the bid, the deal part-way), from views of random hands in every phase, played out in
    lockstep."""
    from shangyou.games.sheng_ji.worlds import sample_world
    phases: dict = {}
    for seed in range(24):
        name, options = [("sheng-ji", {}), ("sheng-ji/zhao-pengyou", {"kitty_theft": True}),
                         ("sheng-ji/single-deck", {"red_five": True})][seed % 3]
        _on(False)
        g = make_game(name, dict(options), seed, match=False)
        rng = random.Random(seed)
        for _ in range([rng.randrange(0, 3), rng.randrange(3, 12), rng.randrange(10, 120)][
                seed % 4 % 3]):
            if g.over:
                break
            g.apply(rng.choice(g.legal_moves()))
        if g.over:
            continue
        view = g.view(g.to_act)
        phases[g.phase] = phases.get(g.phase, 0) + 1
        pair = Pair.__new__(Pair)
        pair.a = sample_world(view, random.Random(seed), g.rules)
        pair.b = sample_world(view, random.Random(seed), g.rules)
        pair.seen = 0
        pair.kinds = {}
        pair.play(random.Random(seed + 1), views=False)
    assert len(phases) >= 3, phases


# ------------------------------------------------------------------ constructed states
def _play_phase(name: str, options: dict, seed: int):
    """A game of the preset at the first lead of its play phase (core off)."""
    _on(False)
    g = make_game(name, dict(options), seed, match=False)
    rng = random.Random(seed)
    while g.phase != "play":
        g.apply(rng.choice(g.legal_moves()))
    return g


def _install(g, hands, lead_seat: int, lead: tuple) -> None:
    g.hands = [list(h) for h in hands]
    for c in lead:                       # the lead is played
        g.hands[lead_seat].remove(c)
    g.trick = [(lead_seat, tuple(sorted(lead)))]
    g.lead_units = decompose(g.trump, g.trick[0][1])
    g.pending = []
    g.to_act = (lead_seat + 1) % g.n
    g._legal = None
    g._token = None


def _walk(g, rng: random.Random) -> int:
    """Play the constructed trick to its end in lockstep (core / Python); the pick steps."""
    pair = Pair.__new__(Pair)
    _on(False)
    pair.a, pair.b = g.clone(), g
    pair.seen = len(g.moves)
    pair.kinds = {}
    picks = 0
    while pair.b.trick:
        la, lb = pair.listing()
        i = rng.randrange(len(lb))
        picks += lb[i].kind == "pick"
        pair.apply(i, la, lb)
        pair.check()
    return picks


def test_huge_follows_are_picked_card_by_card():
    """Four packs: a throw of trump singles to hands of 40 trumps has thousands of follows;
    the follow is then picked one card at a time, with the same cards offered."""
    picks = 0
    for seed in range(12):
        g = _play_phase("sheng-ji", {"decks": 4}, seed)
        t = g.trump
        rng = random.Random(seed)
        trumps = [c for c in range(54) if t.is_trump(c)] * 4
        plain = [c for c in range(52) if not t.is_trump(c)] * 4
        rng.shuffle(trumps)
        rng.shuffle(plain)
        size = len(g.hands[0])
        hands, lead_seat = [], g.to_act
        for s in range(g.n):                  # many trumps each, as far as they go
            k = min(len(trumps), rng.randrange(size // 2, size + 1))
            hands.append(sorted(trumps[:k] + plain[:size - k]))
            trumps, plain = trumps[k:], plain[size - k:]
        lead = tuple(sorted(set(hands[lead_seat]) & {c for c in range(54) if t.is_trump(c)}))
        lead = lead[:rng.randrange(3, 9)]
        if len(lead) < 3:
            continue
        picks += _walk_after(g, hands, lead_seat, lead, rng)
    assert picks > 0


def _walk_after(g, hands, lead_seat, lead, rng) -> int:
    _install(g, hands, lead_seat, lead)
    return _walk(g, rng)


def test_tractors_owed():
    """Leads of tractors (and throws holding one) to hands with pairs and tractors."""
    for seed in range(20):
        g = _play_phase("sheng-ji", {"decks": 3 if seed % 2 else 2}, seed)
        t = g.trump
        rng = random.Random(seed)
        suit = rng.choice(sorted({4 if t.is_trump(c) else c & 3 for c in range(54)}))
        cards = [c for c in range(54) if (4 if t.is_trump(c) else c & 3) == suit]
        lead_seat = g.to_act
        by_pos = sorted(cards, key=t.position)
        start = rng.randrange(max(1, len(by_pos) - 3))
        run = by_pos[start:start + rng.randrange(2, 4)]
        lead = tuple(x for c in run for x in (c, c))
        if rng.random() < 0.4:
            lead += (by_pos[-1],)
        hands = [list(h) for h in g.hands]
        for s in range(g.n):
            if s != lead_seat:
                extra = [c for c in cards for _ in range(2)]
                rng.shuffle(extra)
                hands[s] = hands[s][:len(hands[s]) // 2] + extra[:len(hands[s]) // 2]
        hands[lead_seat] = list(lead) + hands[lead_seat][len(lead):]
        _install(g, hands, lead_seat, lead)
        # the lead as the trick holds it: decompose may keep the throw; the trick goes on
        _walk(g, rng)


def test_throws_checked_and_failed():
    """Throws built card by card, then committed: the check against the other hands (a
    failed throw plays the forced unit, with the penalty), in lockstep."""
    failed = 0
    for seed in range(40):
        opts = {"throw_penalty": 10} if seed % 2 else {}
        g = _play_phase("sheng-ji" if seed % 3 else "sheng-ji/zhao-pengyou", opts, seed)
        rng = random.Random(seed)
        pair = Pair.__new__(Pair)
        pair.a, pair.b = g.clone(), g
        pair.seen = len(g.moves)
        pair.kinds = {}
        while not pair.b.over:
            la, lb = pair.listing()
            kinds = [m.kind for m in lb]
            if "throw" in kinds and rng.random() < 0.8:       # keep building the throw
                throws = [i for i, k in enumerate(kinds) if k == "throw"]
                i = rng.choice(throws) if (not pair.b.pending or rng.random() < 0.7) \
                    else kinds.index("commit")
            else:
                i = rng.randrange(len(lb))
            pair.apply(i, la, lb)
            pair.check()
        failed += sum(e["event"] == "failed throw" for e in pair.b.events)
    assert failed > 0


def test_single_leads_followed_in_every_suit():
    """A single led of every kind (a plain card, a level card, a joker, the red five) to
    hands holding many, one or none of its suit: the follows listed (without the general
    follow search in C) and the trick played out, in lockstep."""
    presets = [("sheng-ji", {}), ("sheng-ji", {"red_five": True, "decks": 3}),
               ("sheng-ji/single-deck", {}), ("sheng-ji/zhao-pengyou", {"decks": 3})]
    voids = 0
    for seed in range(24):
        name, opts = presets[seed % len(presets)]
        g = _play_phase(name, opts, seed)
        t, rng = g.trump, random.Random(seed)
        lead_seat = g.to_act
        suit_of = [4 if t.is_trump(c) else c & 3 for c in range(54)]
        led = rng.choice([c for c in range(54) if c != 10 or opts.get("red_five")])
        hands = [list(h) for h in g.hands]
        for s in range(g.n):
            if s == lead_seat:
                hands[s][0] = led
            elif s % 3 == 1:                  # none of the suit: any card follows
                pool = [c for c in range(54) if suit_of[c] != suit_of[led]]
                hands[s] = sorted(rng.choice(pool) for _ in hands[s])
                voids += 1
            elif s % 3 == 2:                  # one card of the suit
                hands[s] = [c for c in hands[s] if suit_of[c] != suit_of[led]]
                hands[s] = hands[s][1:] + [rng.choice(
                    [c for c in range(54) if suit_of[c] == suit_of[led]])]
        _install(g, hands, lead_seat, (led,))
        _walk(g, rng)
    assert voids > 0


def test_leads_from_hands_of_multiples():
    """The leads listed (singles, pairs, triples, tractors of every width, then a throw per
    card) from hands full of runs of pairs and triples, three and four packs, every suit."""
    for seed in range(16):
        decks = 3 + seed % 2
        g = _play_phase("sheng-ji", {"decks": decks}, seed)
        t, rng = g.trump, random.Random(seed)
        seat = g.to_act
        size = len(g.hands[seat])
        cards = [c for c in range(54)]
        rng.shuffle(cards)
        hand: list[int] = []
        for c in cards:                       # runs of 1 to ``decks`` copies of a card
            hand += [c] * min(rng.randrange(1, decks + 1), size - len(hand))
        g.hands[seat] = sorted(hand)
        g.trick, g.pending = [], []          # (the first lead: lead_units as it is)
        g._legal = g._token = None
        pair = Pair.__new__(Pair)
        pair.a, pair.b = g.clone(), g
        pair.seen, pair.kinds = len(g.moves), {}
        la, lb = pair.listing()
        assert any(len(m.cards) >= 4 and m.kind == "play" for m in lb) or seed % 4
        for _ in range(2 * g.n):              # a few moves on from there
            if pair.b.over:
                break
            pair.apply(rng.randrange(len(lb)), la, lb)
            pair.check()
            la, lb = pair.listing()


# ---------------------------------------------------------------------- the sequence
def test_moves_sequence_behaves_as_a_list():
    g = _play_phase("sheng-ji", {}, 5)
    _on(True)
    g._legal = None
    moves = g.legal_moves()
    if not core.AVAILABLE:                 # without the module: the Python list, as before
        assert type(moves) is list and g.legal_moves() is not g._legal
        return
    assert type(moves) is core._core.Moves and isinstance(moves, Sequence)
    assert g.legal_moves() is moves                    # listed once
    # each item made once: the first asked for (held alone), then others (in an array)
    k = len(moves) // 2
    first = moves[k]
    assert moves[k] is first and moves[-1] is moves[len(moves) - 1] and moves[k] is first
    as_list = list(moves)
    assert as_list[k] is first
    assert moves == as_list and as_list == moves and not (moves != as_list)
    assert moves[0] is moves[0] and moves[-1] == as_list[-1]
    assert moves[1:4] == as_list[1:4] and moves[::-2] == as_list[::-2]
    assert moves + [1] == as_list + [1]
    assert list(reversed(moves)) == as_list[::-1]
    assert moves.index(as_list[3]) == 3 and moves.count(as_list[3]) == 1
    assert as_list[2] in moves and str(as_list[2]) in moves and "nothing" not in moves
    assert repr(moves) == repr(as_list)
    assert pickle.loads(pickle.dumps(moves)) == as_list and copy.copy(moves) == as_list
    with pytest.raises(IndexError):
        moves[len(moves)]
    with pytest.raises(TypeError):
        moves["x"]
    with pytest.raises(ValueError):
        moves.index("nothing")
    with pytest.raises(TypeError):
        hash(moves)


def test_apply_listed_leaves_the_rest_to_python():
    g = _play_phase("sheng-ji", {}, 9)
    _on(True)
    if not core.AVAILABLE:                 # without the module: nothing of it is used
        with pytest.raises(RuntimeError):
            core.apply_listed(g, g.legal_moves()[0], None)
        return
    moves = g.legal_moves()
    before = g.snapshot()
    other = (g.to_act + 1) % g.n
    assert core.apply_listed(g, moves[0], other) is False          # another seat
    assert core.apply_listed(g, str(moves[0]), None) is False      # a text
    g2 = g.clone()
    stale = moves[0]
    g._legal = None                                                # an earlier listing
    g.legal_moves()
    assert core.apply_listed(g, stale, None) is False
    assert core.apply_listed(object(), stale, None) is False       # no game
    assert g.snapshot() == before and g2.snapshot() == before
    with pytest.raises(TypeError):
        core.apply_listed(g)
    assert core.list_moves(object(), None) is None


# ------------------------------------------------------------------------- fallback
def test_a_state_the_core_cannot_read_is_dealt_by_python():
    """A hand holding something that is no card: the core draws nothing, the Python code
    deals on (no endless loop), as it does without the core."""
    p = Pair("sheng-ji", {}, 11)
    for g in (p.a, p.b):
        g.hands[(g.to_act + 1) % g.n].append("x")
    if core.AVAILABLE:
        assert core.draw(p.a) is False and len(p.a.stock) == len(p.b.stock)
    rng = random.Random(3)
    while p.b.phase == "deal":
        la, lb = p.listing()
        p.apply(rng.randrange(len(lb)), la, lb)
        p.check_state()
    assert not p.b.stock


def test_bad_input_changes_nothing():
    """The module's functions given what they cannot read: None / False, or TypeError."""
    assert core.SHUFFLE == core.AVAILABLE       # the C shuffle deals as this Python does
    if not core.AVAILABLE:
        return
    m = core._core
    g = _play_phase("sheng-ji", {}, 4)
    _on(True)
    before = g.snapshot()
    assert m.moves(object(), None) is None and m.draw(object()) is False
    assert m.bids([1, "x"], 3, None, 0) is None and m.bids([1], 13, None, 0) is None
    assert m.bids([12, 12, 52, 52], 3, None, 0) == [(12, 1), (12, 2), (52, 2)]
    trump, g.trump = g.trump, "7H"               # a trump it cannot read: Python lists
    assert m.moves(g, object()) is None
    assert m.apply_listed(g, "7H", None) is False
    g.trump = trump
    assert g.snapshot() == before
    for bad in [(), (1, 2), (None, [1])]:
        with pytest.raises(TypeError):
            m.shuffle(*bad)
    with pytest.raises(TypeError):
        m.bind(int, int, (), [], (), "play")
    with pytest.raises(TypeError):
        m.moves(g)


@pytest.mark.skipif(not core.AVAILABLE, reason="the compiled core is not built")
def test_friend_calls_and_last_tricks_made_in_c():
    """A play that fulfils a friend call (the friend's event before the play's) and the hand's
    last play (its trick's end and the scoring, by ``_end_hand``) are made by the core's
    ``apply_listed`` (it answers True), and the game made with the Python code agrees."""
    reveals = lasts = 0
    for seed in range(8):
        pair = Pair("sheng-ji/zhao-pengyou", {"players": 6}, seed, match=seed % 2 == 1)
        rng = random.Random(seed)
        hand = pair.b.hand_number
        while not pair.b.over and pair.b.hand_number == hand:
            la, lb = pair.listing()
            i = rng.randrange(len(lb))
            seat, friends, phase = pair.b.to_act, len(pair.b.friends), pair.b.phase
            _on(True)
            made = core.apply_listed(pair.a, la[i], seat)
            if not made:
                pair.a.apply(la[i], seat)
            _on(False)
            pair.b.apply(lb[i], seat)
            if phase == "play" and len(pair.b.friends) > friends:
                assert made and any(e["event"] == "friend" for e in pair.b.events[-6:])
                reveals += 1
            if pair.b.over or pair.b.hand_number != hand:
                assert made and pair.b.history[-1]["hand"] == hand
                lasts += 1
            pair.check()
    assert reveals >= 4 and lasts == 8


@pytest.mark.skipif(not core.AVAILABLE, reason="the compiled core is not built")
def test_friend_calls_listed_and_made_on_the_held_hand():
    """Zhao Pengyou's calls are listed and made while the core holds the hand (from the bury
    to the first lead, nothing read in between): the listing is the Python code's, item for
    item, the call made from a stale or another listing is refused or left to Python, and the
    whole state agrees once the play begins, at 5, 6 and 7 seats and with 2 friends."""
    held = 0
    for seed in range(24):
        opts = [{"players": 6}, {"players": 5, "friends": 2}, {"players": 7, "decks": 3},
                {"players": 6, "decks": 2}][seed % 4]
        pair = Pair("sheng-ji/zhao-pengyou", opts, 700 + seed, match=seed % 3 == 0)
        rng = random.Random(seed)
        while pair.b.phase != "bury" and not pair.b.over:
            la, lb = pair.listing()
            pair.apply(rng.randrange(len(lb)), la, lb)
        pair.check()
        while pair.b.phase in ("bury", "call"):
            la, lb = pair.listing()
            if pair.b.phase == "call":
                held += "hands" not in pair.a.__dict__
                assert all(m.kind == "call" for m in la) and len(la) == len(lb)
                stale = la[0]
            pair.apply(rng.randrange(len(lb)), la, lb)
        assert pair.b.phase == "play"
        assert "hands" not in pair.a.__dict__          # still held at the first lead
        la, lb = pair.listing()
        with pytest.raises(IllegalMove):
            pair.a.apply(stale)                         # a call of the call phase's listing
        pair.check()
        assert pair.a.calls == pair.b.calls and len(pair.b.calls) == pair.b.rules.friends
        pair.play(rng, views=False)
    assert held >= 24


@pytest.mark.skipif(not core.AVAILABLE, reason="the compiled core is not built")
def test_a_game_over_on_the_held_hand():
    """The last trick scored on the held hand: the game is over with its hand still held
    (nothing read), it lists no move and refuses one, and its whole state is the Python
    code's once read."""
    for seed in range(6):
        name, opts = [("sheng-ji/zhao-pengyou", {"players": 6}), ("sheng-ji", {})][seed % 2]
        pair = Pair(name, opts, 900 + seed)
        rng = random.Random(seed)
        while not pair.b.over:
            la, lb = pair.listing()
            pair.apply(rng.randrange(len(lb)), la, lb)
        assert "hands" not in pair.a.__dict__ and pair.a.over   # still held, and over
        _on(True)
        assert list(pair.a.legal_moves()) == []
        with pytest.raises(IllegalMove):
            pair.a.apply("pass")
        pair.check(views=True)
        assert pair.a.result == pair.b.result and pair.a.history == pair.b.history


def test_moves_held_elsewhere_never_change():
    """The core reuses a `Move` (and a listing's token) only where nothing else holds it:
    moves a caller keeps (those of a game's log, and items listed but not played) keep their
    kind, cards, text and token while other games are played, and no later listing has the
    token of a kept move."""
    rng = random.Random(5)
    kept: list = []
    for seed in range(12):
        _on(True)
        g = make_game("sheng-ji/zhao-pengyou", {"players": 6}, 300 + seed, match=False)
        held_tokens = {id(m.token) for m, _ in kept}        # (alive: the kept moves hold them)
        while not g.over:
            moves = g.legal_moves()
            assert id(moves[0].token) not in held_tokens    # a kept move's token is not reused
            if seed % 3 == 0 and len(moves) > 1:
                kept.append((moves[len(moves) - 1], None))     # listed, not played
            g.apply(moves[rng.randrange(len(moves))])
        if seed % 2 == 0:
            kept.extend((m, None) for _, m in g.moves)        # the log kept past the game
        kept = [(m, seen or (m.kind, tuple(m.cards), str(m), m.token)) for m, seen in kept]
        del g
    assert len(kept) > 500
    for m, seen in kept:
        assert (m.kind, tuple(m.cards), str(m), m.token) == seen


@pytest.mark.skipif(not core.AVAILABLE, reason="the compiled core is not built")
def test_deal_record_made_in_c():
    """``core.dealt`` (the deal's record: what each seat draws from the stock's end, in turn
    from ``first``, sorted) gives the cards the Python slicing and ``sorted`` give, for
    ``Card`` objects and plain ints alike; a stock holding something that is no card is left
    to the Python code (None)."""
    from shangyou.cards import CARDS, deck
    rng = random.Random(5)
    for packs in (1, 2, 4):
        for n in (3, 4, 5, 6, 7):
            stock = deck(packs)[:rng.randrange(40, 54 * packs)]
            rng.shuffle(stock)
            first = rng.randrange(n)
            order = stock[::-1]
            want = tuple(tuple(sorted(order[(s - first) % n::n])) for s in range(n))
            got = core.dealt(stock, n, first)
            assert got == want
            assert all(type(c) is type(CARDS[0]) for h in got for c in h)
            assert core.dealt([int(c) for c in stock], n, first) == want
    assert core.dealt([CARDS[3], 54], 2, 0) is None
    assert core.dealt([CARDS[3], "3C"], 2, 0) is None
    assert core.dealt((CARDS[3],), 2, 0) is None          # (a list only)


def test_bid_text_written_in_c():
    """A listed bid made by the core logs its text (``bid_log``) as ``str(move)`` gives it,
    and the move then says the same text; the bids of the core's deal and the Python's agree
    (every bid of 40 deals of 4 and 6 players, one to three packs)."""
    bids = 0
    for seed in range(40):
        n, packs = (4, 6)[seed % 2], 1 + seed % 3
        games = []
        for on in (True, False):
            core.use(on)
            try:
                games.append(make_game("sheng-ji", {"players": n, "decks": packs}, seed,
                                       match=False))
            finally:
                core.use(True)
        g, ref = games
        rng = random.Random(seed)
        while g.phase == "deal":
            moves = g.legal_moves()
            mv = moves[rng.randrange(len(moves))]
            core.use(False)
            try:
                ref.apply(str(mv))
            finally:
                core.use(True)
            g.apply(mv)
            if mv.kind == "bid":
                bids += 1
                assert g.bid_log[-1] == (g.moves[-1][0], str(mv))
                assert str(mv) == "bid " + " ".join(str(c) for c in mv.cards)
        assert g.bid_log == ref.bid_log and g.bid == ref.bid
    assert bids > 20


@pytest.mark.skipif(not core.AVAILABLE, reason="the compiled core is not built")
def test_two_calls_met_by_one_play_in_the_order_of_the_copies():
    """Two friend calls on the same card, the second copy called first: one seat leads both
    copies as a pair. The core finds the calls met per call and orders them by the copy
    that meets them (the first copy's call first), as the Python code's walk over the cards
    does: the friend's event names the first copy, and both games agree throughout."""
    from shangyou.cards import CARD_TEXT
    met = 0
    for seed in range(60):
        pair = Pair("sheng-ji/zhao-pengyou", {"players": 5, "friends": 2}, 4100 + seed)
        rng = random.Random(seed)
        while pair.b.phase != "call" and not pair.b.over:
            la, lb = pair.listing()
            pair.apply(rng.randrange(len(lb)), la, lb)
        if pair.b.over:
            continue
        declarer = pair.b.to_act
        doubles = [(s, c) for s in range(5) if s != declarer for c in set(pair.b.hands[s])
                   if pair.b.hands[s].count(c) == 2 and
                   any(str(m) == f"call 1 {CARD_TEXT[c]}" for m in pair.b.legal_moves())]
        if not doubles:
            continue
        holder, card = doubles[0]
        for ordinal in (2, 1):
            la, lb = pair.listing()
            i = [str(m) for m in lb].index(f"call {ordinal} {CARD_TEXT[card]}")
            pair.apply(i, la, lb)
        while not pair.b.over and pair.b.phase == "play" and len(pair.b.call_results) < 2:
            la, lb = pair.listing()
            both = [i for i, m in enumerate(lb) if m.kind == "play" and m.cards == (card, card)]
            pair.apply(both[0] if both and pair.b.to_act == holder else
                       rng.randrange(len(lb)), la, lb)
            pair.check()
        if len(pair.b.call_results) == 2 and pair.b.moves[-1][1].cards == (card, card):
            friend = [e for e in pair.b.events if e["event"] == "friend"]
            assert friend[-1]["call"] == f"1 {CARD_TEXT[card]}" and friend[-1]["seat"] == holder
            assert list(pair.a.call_results) == list(pair.b.call_results) == [1, 0]
            met += 1
    assert met >= 3
