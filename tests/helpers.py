"""Shared helpers for the tests: the preset x player-count matrix and a checked random playout."""

from __future__ import annotations

import json
import random
import sys
import threading
from collections import Counter

import shangyou
from shangyou.cards import deck
from shangyou.engine.moves import PLAY

# (preset, players, options): every preset and every player count it allows
CONFIGS = (
    [("zheng-shangyou/pagat", n, {}) for n in range(3, 9)]
    + [("zheng-shangyou/pagat", 5, {"twos_in_sequences": True}),
       ("zheng-shangyou/pagat", 7, {"decks": 2}), ("zheng-shangyou/pagat", 8, {"decks": 2})]
    + [("zheng-shangyou/pagat-teams", n, {}) for n in (4, 6)]
    + [("zheng-shangyou/winner", n, {}) for n in (3, 4)]
    + [("zheng-shangyou/winner", 4, {"jokers": True, "bomb": "quad",
                                     "straight_needs_higher_rank": True}),
       ("zheng-shangyou/winner", 5, {"decks": 2})]
    + [("zheng-shangyou/owen", n, {}) for n in (2, 3, 4, 6)]
    + [("zheng-fen", n, {}) for n in (3, 4, 5, 6)]
)


def config_id(cfg) -> str:
    name, n, opts = cfg
    extra = ",".join(f"{k}={v}" for k, v in opts.items())
    return f"{name.split('/')[-1]}-{n}p" + (f"-{extra}" if extra else "")


def all_cards(g) -> Counter:
    """Every card the game knows of: hands, played, undealt and in-flight exchange cards."""
    c = Counter()
    for h in g.hands:
        c.update(h)
    for t in g.tricks + [g.trick]:
        for _, combo in t:
            if combo is not None:
                c.update(combo.cards)
    c.update(g.undealt)
    if not g.over:              # won piles hold exactly the cards of the finished tricks
        won, played = Counter(), Counter()
        for w in g.won:
            won.update(w)
        for t in g.tricks:
            for _, combo in t:
                if combo is not None:
                    played.update(combo.cards)
        assert won == played, "a finished trick's cards are not in its winner's pile"
    if g.exchange:
        c.update(g.exchange.get("pool", []) if g.exchange.get("step") == "take" and
                 g.exchange["kind"] == "pits" else [])
        if g.exchange["kind"] == "pits" and g.exchange["step"] != "take":
            c.update(g.exchange["shown"] if g.exchange["step"] == "show" else [])
            c.update(g.exchange["discards"] if g.exchange["step"] == "discard" else [])
    return c


def check_view_hides(g, rng: random.Random) -> None:
    """A seat's view must not change when the other seats' hidden cards are shuffled among them."""
    for seat in range(g.n):
        before = g.view(seat)
        other = [s for s in range(g.n) if s != seat]
        pool = [c for s in other for c in g.hands[s]]
        saved = [list(g.hands[s]) for s in range(g.n)]
        saved_undealt = list(g.undealt)
        pool += g.undealt
        rng.shuffle(pool)
        i = 0
        for s in other:
            k = len(g.hands[s])
            g.hands[s] = sorted(pool[i:i + k])
            i += k
        g.undealt = pool[i:]
        g._legal = None
        try:
            after = g.view(seat)
        finally:
            for s in range(g.n):
                g.hands[s] = saved[s]
            g.undealt = saved_undealt
            g._legal = None
        assert before == after, f"seat {seat}'s view depends on hidden cards"
        json.dumps(before)  # views are plain JSON data


def random_playout(name, players, options, seed, *, deep: bool, match: bool = False,
                   max_steps: int = 20000):
    """Play one random game with invariant checks at every step; return the game."""
    rng = random.Random(seed)
    make = shangyou.new_match if match else shangyou.new_game
    g = make(name, players=players, seed=seed, **options)
    full = Counter(deck(g.rules.decks, g.rules.jokers))
    steps = 0
    while not g.over:
        steps += 1
        assert steps < max_steps, "game did not end"
        moves = g.legal_moves()
        assert moves, "no legal move for the player to act"
        texts = [str(m) for m in moves]
        assert len(set(texts)) == len(texts), f"duplicate legal moves: {texts}"
        if deep:
            seat = g.to_act
            for m, t in zip(moves, texts):
                if m.kind == PLAY:
                    assert all(c in g.hands[seat] for c in m.cards)
                    resolved = g._resolve_play(t)
                    assert resolved.combo.cls == m.combo.cls and \
                        resolved.combo.key == m.combo.key and \
                        resolved.combo.label == m.combo.label and \
                        tuple(sorted(resolved.cards)) == tuple(sorted(m.cards)), (t, m.combo)
                elif m.kind in ("choose", "pick"):      # a step of a choice in steps
                    assert str(g._resolve_step(t)) == t
                else:
                    assert str(g._resolve_exchange(t) if m.kind != "pass" else m) == t
            # a card the player does not hold is refused and nothing changes
            missing = [c for c in full if c not in g.hands[seat]]
            if missing and g.phase == "play":
                snap = g.snapshot()
                bad = shangyou.Cards([rng.choice(missing)])
                try:
                    g.apply(str(bad))
                except shangyou.IllegalMove:
                    pass
                else:
                    raise AssertionError(f"apply accepted {bad}, not held")
                assert g.snapshot() == snap
            if rng.random() < 0.2:
                check_view_hides(g, rng)
            assert all_cards(g) == full, "cards not conserved"
        g.apply(rng.choice(moves))
    return g


def in_threads(fn, seeds: list[int]) -> dict[int, list]:
    """``fn(seed)`` for every seed, each in a thread of its own, all at once, the interpreter
    switching threads as often as it can; the results by seed (an error in any is raised)."""
    got: dict[int, list] = {}
    failures: list[BaseException] = []

    def run(s: int) -> None:
        try:
            got[s] = fn(s)
        except BaseException as e:      # noqa: BLE001 - reported below
            failures.append(e)

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=run, args=(s,)) for s in seeds]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(old)
    assert not failures, failures
    return got
