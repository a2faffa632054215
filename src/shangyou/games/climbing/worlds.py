"""Worlds for search bots: full climbing-game states that agree with one seat's view.

A seat's view (``ClimbingGame.view``) hides the other hands (and, in Owen, the undealt cards).
:class:`WorldSampler` reads a view once and then builds any number of :class:`ClimbingGame`
states that deal the hidden cards at random but keep everything the seat knows:

* its own hand, every player's card count, the cards played in this hand and the trick in
  progress (with the exact reading of the last play), finishing order, scores and history;
* cards that changed hands face up in this hand's exchange and have not been played since stay
  with the player who holds them (a card on offer stays in the offerer's hand);
* points won (Zheng Fen): the tricks of this hand are public, so every trick's winner keeps its
  cards in the world too.

So ``world.view(seat) == view`` for every sampled world (the test suite checks it). The worlds
are single hands (``match=False``): a playout ends with the hand, and ``world.result`` and
``world.history[-1]`` hold the hand's points. Worlds share nothing mutable with each other.

>>> import random, shangyou
>>> g = shangyou.new_game("zheng-shangyou/pagat", players=4, seed=1)
>>> s = WorldSampler(g.view(g.to_act))
>>> s.sample(random.Random(0)).view(g.to_act) == g.view(g.to_act)
True
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from ...cards import CARDS, deck_counts, from_counts, parse
from ...engine.memo import make_room
from .combo import Combo
from .core import shuffle
from .game import PHASE_EXCHANGE, ClimbingGame

_PLAYED = ("played",)
N_CODES = len(CARDS)


def _cards(text: str) -> tuple:
    """The sorted cards of a play's text, remembered (a bounded memo: every decision of the
    search and of the learned level reads the hand's plays again)."""
    got = _CARDS.get(text)
    if got is None:
        got = tuple(sorted(parse(text)))
        make_room(_CARDS, _CARDS_MAX)
        _CARDS[text] = got
    return got


_CARDS: dict[str, tuple] = {}
_CARDS_MAX = 50_000



class WorldSampler:
    """Everything a view fixes, read once; :meth:`sample` deals the rest at random."""

    def __init__(self, view: dict, rules=None):
        from ...registry import build
        self.view = view
        self.rules = rules if rules is not None else build(view["game"], dict(view["options"]))
        r = self.rules
        fam = r.family
        self.seat = seat = view["seat"]
        self.n = n = view["players"]
        self.counts = list(view["counts"])
        self.hand = sorted(parse(" ".join(view["hand"]))) if view["hand"] else []
        if len(self.hand) != self.counts[seat]:
            raise ValueError("the view's hand does not match its card count")

        # this hand's plays, in order: completed tricks, then the trick in progress
        def read_trick(trick):
            out = []
            for s, text in trick:
                out.append((s, None if text == "pass" else
                            Combo("played", _PLAYED, (), _cards(text))))
            return out
        self.tricks = [read_trick(t) for t in view["played"]]
        self.trick = read_trick(view["trick"])
        last = view["last"]
        self.last = None
        self.last_seat = None
        if last is not None:
            cards = _cards(last["cards"])
            readings = [c for c in fam.combos(cards)
                        if c.label == last["reading"] and c.kind == last["kind"]]
            if not readings:
                raise ValueError(f"the last play {last['cards']} has no reading "
                                 f"{last['reading']!r}")
            self.last = readings[0]
            self.last_seat = last["seat"]
            for i in range(len(self.trick) - 1, -1, -1):   # the trick holds the real reading
                if self.trick[i][1] is not None:
                    self.trick[i] = (self.trick[i][0], self.last)
                    break
        self.passes = 0
        for _, c in reversed(self.trick):
            if c is not None:
                break
            self.passes += 1

        # the exchange: cards in transit and cards known to be in a hand
        self.exchanged = [(a, b, parse(c)[0]) for a, b, c in view.get("exchanged") or []]
        # per card code: copies known to be in each hand, in transit, played
        known = [[0] * N_CODES for _ in range(n)]
        transit = [0] * N_CODES
        left, arrived = [0] * n, [0] * n
        for a, b, c in self.exchanged:
            if a is not None:
                left[a] += 1
                if known[a][c]:
                    known[a][c] -= 1
                transit[c] += 1
            if b is not None:
                arrived[b] += 1
                known[b][c] += 1
                transit[c] -= 1
        ex = view.get("exchange")
        if ex is not None and ex["kind"] == "offer" and ex["step"] == "take":
            # the two cards on offer are still in the offerer's hand
            tk = known[ex["taker"]]
            for c, k in Counter(ex_cards(ex)).items():
                tk[c] = max(tk[c], k)
        played = [0] * N_CODES
        played_by = [0] * n
        self.counts_at_first_out = None
        plays = [(s, c) for t in self.tricks + [self.trick] for s, c in t if c is not None]
        for s, c in plays:
            played_by[s] += len(c.cards)
            ks = known[s]
            for x in c.cards:
                played[x] += 1
                if ks[x]:
                    ks[x] -= 1
        self.dealt_counts = [self.counts[s] + played_by[s] + left[s] - arrived[s]
                             for s in range(n)]
        if view["finished"]:
            cnt = [self.dealt_counts[s] - left[s] + arrived[s] for s in range(n)]
            for s, c in plays:
                cnt[s] -= len(c.cards)
                if cnt[s] == 0:
                    self.counts_at_first_out = list(cnt)
                    break
        self.known = [from_counts(k) if s != seat and any(k) else []
                      for s, k in enumerate(known)]

        # Zheng Fen: each completed trick goes to its last player
        self.won: list[list[int]] = [[] for _ in range(n)]
        for t in self.tricks:
            winner = None
            for s, c in t:
                if c is not None:
                    winner = s
            if winner is not None:
                for s, c in t:
                    if c is not None:
                        self.won[winner].extend(c.cards)

        pool = [k - p - (t if t > 0 else 0) for k, p, t in
                zip(deck_counts(r.decks, r.jokers), played, transit)]   # copies left
        for c in self.hand:
            pool[c] -= 1
        for s in range(n):
            for c in self.known[s]:
                pool[c] -= 1
        if min(pool) < 0:
            raise ValueError("the view names more cards than the pack holds")
        self.pool = from_counts(pool)
        self.need = [0 if s == seat else self.counts[s] - len(self.known[s]) for s in range(n)]
        if any(k < 0 for k in self.need) or sum(self.need) > len(self.pool):
            raise ValueError("the view's card counts do not fit the unseen cards")
        if r.deal_count is None and sum(self.need) != len(self.pool):
            raise ValueError("the view's card counts do not add up to the pack")
        self.exchange = _exchange_state(ex, view) if ex is not None else None

    def sample(self, rng: random.Random | None = None) -> ClimbingGame:
        """One world: the hidden cards dealt at random to the other seats (and the undealt)."""
        return self.build(*self.deal(rng))

    def deal(self, rng: random.Random | None = None) -> tuple[list[list[int]], list[int], int]:
        """A random deal of the hidden cards: (hands, undealt, seed) for :meth:`build`."""
        rng = rng or random.Random()
        pool = list(self.pool)
        shuffle(rng, pool)              # rng.shuffle(pool), in C where the core is on
        hands: list[list[int]] = []
        i = 0
        for s in range(self.n):
            if s == self.seat:
                hands.append(list(self.hand))
            else:
                k = self.need[s]
                h = self.known[s] + pool[i:i + k]
                i += k
                h.sort()
                hands.append(h)
        return hands, pool[i:], rng.randrange(2**31)

    def build(self, hands: list[list[int]], undealt: list[int], seed: int) -> ClimbingGame:
        """The world with these hands (each a sorted list; ``hands[seat]`` is this seat's).
        The lists are copied, so one deal can build several worlds."""
        v = self.view
        g = ClimbingGame.__new__(ClimbingGame)
        g.rules = self.rules
        g._family, g._finish_trick = self.rules.family, self.rules.finish_trick
        g.n = self.n
        g.seed = seed
        g.match = False
        g._rng = random.Random(seed)
        g.hand_number = v["hand_number"]
        g.history = [dict(h) for h in v["history"]]
        g.moves, g.events = [], []
        g.result = None
        g._legal = g._token = None
        g.scores = list(v["scores"])
        if v.get("team_scores"):
            g.team_totals = list(v["team_scores"])
        g.prev_order = list(v["previous_order"]) if v["previous_order"] else None
        g.dealer = v["dealer"]
        g.hands = [list(h) for h in hands]
        g.undealt = list(undealt)
        g.dealt_counts = list(self.dealt_counts)
        g.counts_at_first_out = list(self.counts_at_first_out) \
            if self.counts_at_first_out is not None else None
        g.order = list(v["finished"])
        g.trick = list(self.trick)
        g.tricks = [list(t) for t in self.tricks]
        g.won = [list(w) for w in self.won]
        g.last = self.last
        g.last_seat = self.last_seat
        g.passes = self.passes
        g.exchanged = tuple(self.exchanged)
        ex = _copy_exchange(self.exchange)
        if ex is not None:          # who leads once the exchange is over
            ex["leader"] = v["to_act"] if v["to_act"] is not None else v["dealer"]
        g.exchange = ex
        g.phase = v["phase"]
        g.over = g.phase == "over"
        g.to_act = v["to_act"]
        return g


def ex_cards(ex: dict) -> list[int]:
    return list(parse(" ".join(ex.get("offered") or [])))


def _exchange_state(ex: dict, view: dict) -> dict[str, Any] | None:
    """The engine's exchange record from its public part (see ClimbingGame._begin_exchange)."""
    if view["phase"] != PHASE_EXCHANGE:
        return None
    if ex["kind"] == "pits":
        shown = list(parse(" ".join(ex["shown"])))
        discards = list(parse(" ".join(ex["discards"])))
        out: dict[str, Any] = {"kind": "pits", "givers": list(ex["givers"]),
                               "takers": list(ex["takers"]), "shown": shown,
                               "discards": discards, "step": ex["step"]}
        if ex["step"] == "take":
            if discards and len(discards) == len(ex["takers"]):
                out["discarded"] = True
                out["pool"] = list(discards)
            else:
                out["pool"] = list(shown)
        elif ex["step"] == "discard":
            out["pool"] = []
        return out
    out = {"kind": "offer", "giver": ex["giver"], "taker": ex["taker"], "shown": [],
           "offered": [], "step": ex["step"]}
    if ex["step"] == "take":
        out["pool"] = ex_cards(ex)
    return out


def _copy_exchange(ex: dict | None) -> dict | None:
    if ex is None:
        return None
    return {k: (list(v) if isinstance(v, list) else v) for k, v in ex.items()}
