"""Worlds for search: a Sheng ji state rebuilt from one seat's view plus sampled hidden cards.

A search bot sees only its view. To look ahead it needs full game states that agree with that
view: :func:`sample_world` deals the cards the seat cannot see (the other hands, the stock
while dealing, the kitty unless the seat is burying it) at random, consistently with what the
view shows, and builds a :class:`~.game.ShengJiGame` directly (no replay, no deep copy). The
world plays one hand (``match=False``): a search scores the hand, not the match.

What the view constrains and the sampler respects:

* hand sizes (``counts``), the cards played in every trick, the seat's own hand and pending
  throw or pick, the kitty size, the cards buried so far and the kitty as taken (shown to the player
  burying);
* voids: a seat that played fewer cards of the led effective suit than were led holds none
  of that suit (trumps are one suit) from then on;
* the winning bid: its cards were shown, so the bidder still holds them unless it has played
  them since (or, as the player who took the kitty, buried them).

* pairs: a seat that followed a lead asking for pairs with fewer pairs of the led suit than
  asked holds no pair of that suit (met by dealing again, up to ``PAIR_TRIES`` times).

Not used (a sampled world may contradict them; the view stays equal): a follower's missing
tractors, and what a failed or successful throw reveals.

``world.view(seat) == view`` for the seat the world was sampled for (tests check this for
every preset and phase).
"""

from __future__ import annotations

import random
from collections import Counter
from functools import lru_cache

from ...cards import parse
from .follow import pairs_of, requirement
from .game import BURY, DEAL, PLAY, ShengJiGame
from .order import LEVEL_RANK, Trump, decompose, red_five_code
from .presets import build

__all__ = ["sample_world", "voids_of", "no_pairs_of", "rules_of", "WorldSampler"]

PAIR_TRIES = 20


@lru_cache(maxsize=64)
def _rules(game: str, options: tuple):
    return build(game, dict(options))


def rules_of(view: dict):
    """The preset's rules from a view's game name and options."""
    return _rules(view["game"], tuple(sorted((view.get("options") or {}).items())))


def _parse(text: str) -> tuple:
    return tuple(parse(text)) if text else ()


def voids_of(trump: Trump, n: int, tricks: list, trick: list) -> list[set[int]]:
    """Effective suits each seat has shown void in (parsed plays: [(seat, cards)] per trick)."""
    voids: list[set[int]] = [set() for _ in range(n)]
    for plays in list(tricks) + ([trick] if trick else []):
        if not plays:
            continue
        lead = plays[0][1]
        suit = trump.suit_of(lead[0])
        for seat, cards in plays[1:]:
            if sum(1 for c in cards if trump.suit_of(c) == suit) < len(lead):
                voids[seat].add(suit)
    return voids


def no_pairs_of(trump: Trump, n: int, tricks: list, trick: list) -> list[set[int]]:
    """Effective suits in which each seat has shown it holds no pair (parsed plays).

    A lead asking for pairs (a pair, a tractor, a throw with pairs) must be followed with as
    many pairs of the led suit as it holds, up to the number asked; a follower who gave fewer
    held no more: it has no pair of that suit left (cards only leave a hand)."""
    out: list[set[int]] = [set() for _ in range(n)]
    for plays in list(tricks) + ([trick] if trick else []):
        if not plays:
            continue
        lead = plays[0][1]
        need, _ = requirement(decompose(trump, lead))
        if not need:
            continue
        suit = trump.suit_of(lead[0])
        for seat, cards in plays[1:]:
            if pairs_of([c for c in cards if trump.suit_of(c) == suit]) < need:
                out[seat].add(suit)
    return out


class WorldSampler:
    """Parses a view once; :meth:`sample` then builds as many worlds as wanted."""

    def __init__(self, view: dict, rules=None):
        self.view = view
        r = self.rules = rules if rules is not None else rules_of(view)
        self.seat = seat = view["seat"]
        n = self.n = r.players
        self.phase = view["phase"]
        self.level_rank = LEVEL_RANK[view["level"]]
        self.trump: Trump | None
        if view.get("trump"):
            shown = Trump.parse(view["trump"])
            self.trump = Trump(shown.level, shown.suit,
                               red_five_code(r.red_five, r.red_five_gap))
        else:
            self.trump = None
        self.hand = list(_parse(" ".join(view["hand"])))
        self.pending = list(_parse(" ".join(view.get("pending") or []))) \
            if view.get("to_act") == seat else []
        self.tricks = [{"plays": [(s, _parse(c)) for s, c in tr["plays"]], "winner": tr["winner"]}
                       for tr in view.get("tricks") or []]
        self.trick = [(s, _parse(c)) for s, c in view.get("trick") or []]
        played: Counter = Counter()
        for tr in self.tricks:
            for _, cs in tr["plays"]:
                played.update(cs)
        for _, cs in self.trick:
            played.update(cs)
        self.played = played
        self.counts = list(view["counts"])
        total = 54 * r.decks
        self.base = (total - r.kitty) // n            # a hand after the deal
        self.declarer: int | None = view.get("declarer")
        self.to_act: int | None = view.get("to_act")
        # where the kitty is, and what this seat knows of it
        self.known_buried = list(_parse(" ".join(view.get("buried") or [])))
        phase = self.phase
        self.theft = False
        self.owner = self.declarer
        drawn = sum(self.counts)
        if phase == DEAL:
            self.stock_size = total - r.kitty - drawn
            self.kitty_hidden = r.kitty
            self.buried_hidden = 0
        elif phase == BURY:
            self.stock_size = 0
            over = [s for s in range(n) if self.counts[s] > self.base]
            if over:                                   # burying in progress
                self.owner = over[0]
                self.buried_count = r.kitty - (self.counts[self.owner] - self.base)
            else:                                      # burying done: the theft round
                self.theft = True
                self.owner = seat if "buried" in view else self._guess_owner(view)
                self.buried_count = r.kitty
            if self.owner == seat:
                self.buried_hidden = 0
            else:
                self.buried_hidden = self.buried_count
            self.kitty_hidden = 0
        else:
            self.stock_size = 0
            # the player who buried the kitty sees it in its view for the whole hand
            self.kitty_hidden = 0 if "buried" in view else r.kitty
            if "buried" in view:
                self.owner = seat
            elif self.owner == seat or self.owner is None:
                # not this seat's kitty (a thief buried it last): the last bidder's, else any
                bid = view.get("bid") or {}
                other = bid.get("seat") if isinstance(bid, dict) else None
                self.owner = other if other not in (None, seat) else (seat + 1) % n
            self.buried_hidden = 0
        # hidden cards: the packs less what this seat sees
        pool = Counter({c: r.decks for c in range(54)})
        pool.subtract(played)
        pool.subtract(self.hand)
        pool.subtract(self.known_buried)
        if any(v < 0 for v in pool.values()):
            raise ValueError("the view shows more copies of a card than the packs hold")
        self.pool = sorted(pool.elements())
        # slots: other seats' hands, then the kitty (or buried cards), then the stock
        self.slots: list[tuple[str, int, int]] = []          # (kind, seat or -1, size)
        for s in range(n):
            if s != seat:
                self.slots.append(("hand", s, self.counts[s]))
        hidden_k = self.kitty_hidden or self.buried_hidden
        if hidden_k:
            self.slots.append(("kitty", -1, hidden_k))
        if self.stock_size:
            self.slots.append(("stock", -1, self.stock_size))
        if sum(sz for _, _, sz in self.slots) != len(self.pool):
            raise ValueError(f"view inconsistent: {len(self.pool)} hidden cards for slots "
                             f"{self.slots}")
        # constraints
        t = self.trump
        # a set-up by hand (shangyou.position) makes its earlier tricks up: nothing is
        # inferred from them
        seen = [] if view.get("setup") else [tr["plays"] for tr in self.tricks]
        self.voids = voids_of(t, n, seen, self.trick) \
            if t is not None and phase == PLAY else [set() for _ in range(n)]
        self.forced: list[tuple[int, int, int]] = []      # (slot index, card, copies)
        bid = view.get("bid")
        if bid is not None and bid["seat"] != seat:
            b = bid["seat"]
            cards = _parse(bid["cards"])
            c = cards[0]
            gone = sum(cs.count(c) for tr in self.tricks for s, cs in tr["plays"] if s == b)
            gone += sum(cs.count(c) for s, cs in self.trick if s == b)
            need = len(cards) - gone
            idx = [i for i, (kind, s, _) in enumerate(self.slots) if kind == "hand" and s == b]
            may_bury = phase != DEAL and (b == self.owner or r.kitty_theft)
            if need > 0 and idx and not (may_bury and self.slots[-1][0] == "kitty"):
                i = idx[0]
                if t is None or t.suit_of(c) not in self.voids[b]:
                    self.forced.append((i, c, need))
        if self.trump is not None:
            self.suit_of = [self.trump.suit_of(c) for c in range(54)]
        else:
            self.suit_of = [0] * 54
        self.forbidden: list[set[int]] = []
        for kind, s, _ in self.slots:
            self.forbidden.append(set(self.voids[s]) if kind == "hand" else set())
        self.constrained = any(self.forbidden)
        # suits in which a seat has shown it holds no pair (checked by redealing)
        self.no_pairs = no_pairs_of(t, n, seen, self.trick) \
            if t is not None and phase == PLAY else [set() for _ in range(n)]
        self.pair_checks = [(i, suit) for i, (kind, s, _) in enumerate(self.slots)
                            if kind == "hand" for suit in sorted(self.no_pairs[s])
                            if suit not in self.voids[s]]

    def _guess_owner(self, view) -> int | None:
        # the theft round after a theft: the thief (the current bidder) owns the kitty;
        # the view cannot tell a thief from an ordinary bidder, so prefer the declarer
        return self.declarer

    # ---------------------------------------------------------------- dealing the hidden cards
    def deal(self, rng: random.Random) -> list[list[int]]:
        """One assignment of the hidden cards to the slots (lists, in slot order).

        Voids and the bid's cards are built in; the no-pair suits are met by dealing again
        (up to ``PAIR_TRIES`` deals; then the last deal stands)."""
        out = self._deal(rng)
        if self.pair_checks:
            for _ in range(PAIR_TRIES - 1):
                if self.pairs_ok(out):
                    break
                out = self._deal(rng)
        return out

    def pairs_ok(self, parts: list[list[int]]) -> bool:
        """Does a deal leave no pair where a seat has shown it holds none?"""
        suit_of = self.suit_of
        for i, suit in self.pair_checks:
            seen = set()
            for c in parts[i]:
                if suit_of[c] == suit:
                    if c in seen:
                        return False
                    seen.add(c)
        return True

    def _deal(self, rng: random.Random) -> list[list[int]]:
        sizes = [sz for _, _, sz in self.slots]
        out: list[list[int]] = [[] for _ in self.slots]
        pool = list(self.pool)
        for i, c, k in self.forced:
            for _ in range(min(k, sizes[i])):
                if c in pool:
                    pool.remove(c)
                    out[i].append(c)
                    sizes[i] -= 1
        if not self.constrained:
            rng.shuffle(pool)
            j = 0
            for i, sz in enumerate(sizes):
                out[i].extend(pool[j:j + sz])
                j += sz
            return out
        suit_of = self.suit_of
        forb = self.forbidden
        hard = [c for c in pool if any(suit_of[c] in f for f in forb)]
        easy = [c for c in pool if not any(suit_of[c] in f for f in forb)]
        rng.shuffle(hard)
        # supply per suit of the cards still to place (hard ones), for Hall's condition
        supply = Counter(suit_of[c] for c in hard)
        cap = list(sizes)
        easy_left = len(easy)
        for c in hard:
            s = suit_of[c]
            allowed = [i for i in range(len(cap)) if cap[i] > 0 and s not in forb[i]]
            rng.shuffle(allowed)
            allowed.sort(key=lambda i: -cap[i] * rng.random())
            placed = False
            supply[s] -= 1
            for i in allowed:
                cap[i] -= 1
                if self._feasible(supply, cap, easy_left):
                    out[i].append(c)
                    placed = True
                    break
                cap[i] += 1
            if not placed:          # should not happen for a consistent view
                i = max(range(len(cap)), key=lambda i: cap[i])
                cap[i] -= 1
                out[i].append(c)
        rng.shuffle(easy)
        j = 0
        for i in range(len(cap)):
            out[i].extend(easy[j:j + cap[i]])
            j += cap[i]
        return out

    def _feasible(self, supply: Counter, cap: list[int], easy_left: int) -> bool:
        """Hall's condition: every set of suits fits in the slots that may take them."""
        suits = [s for s, k in supply.items() if k > 0]
        forb = self.forbidden
        for mask in range(1, 1 << len(suits)):
            chosen = [suits[b] for b in range(len(suits)) if mask >> b & 1]
            need = sum(supply[s] for s in chosen)
            room = sum(cap[i] for i in range(len(cap))
                       if any(s not in forb[i] for s in chosen))
            if need > room:
                return False
        return True

    # ---------------------------------------------------------------- building the game
    def sample(self, rng: random.Random) -> ShengJiGame:
        """A full game state consistent with the view, the hidden cards dealt at random."""
        return self.build(self.deal(rng), rng)

    def build(self, parts: list[list[int]], rng: random.Random) -> ShengJiGame:
        """The game state for one deal of the hidden cards (:meth:`deal`); building it again
        from the same parts and an equally seeded ``rng`` gives an equal state."""
        r = self.rules
        n = self.n
        g = ShengJiGame.__new__(ShengJiGame)
        g.rules = r
        g.n = n
        g.seed = rng.randrange(2**31)
        g.match = False
        g.over = False
        g._rng = random.Random(g.seed)
        v = self.view
        g.hand_number = v.get("hand_number", 1)
        g.history = [dict(h) for h in v.get("history") or []]
        g.moves = []
        g.events = []
        g.result = None
        g._legal = None
        g._token = None
        g.levels = [LEVEL_RANK[x] for x in v["levels"]]
        g.declarer = self.declarer
        g.level_rank = self.level_rank
        g.trump = self.trump
        bid = v.get("bid")
        if bid is None:
            g.bid = None
        else:
            cs = _parse(bid["cards"])
            g.bid = {"seat": bid["seat"], "card": cs[0], "count": len(cs)}
        g.bid_log = []
        hands: list[list[int]] = [[] for _ in range(n)]
        hands[self.seat] = list(self.hand)
        kitty: list[int] = []
        stock: list[int] = []
        for (kind, s, _), cards in zip(self.slots, parts):
            if kind == "hand":
                hands[s] = list(cards)
            elif kind == "kitty":
                kitty = list(cards)
            else:
                stock = list(cards)
        g.hands = hands
        g.stock = stock
        g.final_round = None
        g.theft_round = None
        g.kitty_owner = None
        g.buried = []
        g.kitty_taken = []
        g.kitty = []
        g.to_bury = r.kitty
        phase = self.phase
        drawn = sum(self.counts)
        if phase == DEAL:
            to_act = self.to_act
            assert to_act is not None, "somebody acts while the cards are dealt"
            g.kitty = sorted(kitty)
            first_known = self.declarer
            if stock:
                g.next_draw = (to_act + 1) % n
                g.starter = (to_act - drawn + 1) % n
            else:
                g.next_draw = (to_act + 1) % n
                if self.declarer is None:
                    g.starter = rng.randrange(n)
                else:
                    g.starter = (to_act - drawn + 1) % n
                first = first_known if first_known is not None else g.starter
                order = [(first + i) % n for i in range(n)]
                last_drawer = (first - 1) % n
                if to_act == last_drawer and rng.random() < 0.5:
                    g.final_round = None
                else:
                    g.final_round = order[order.index(to_act) + 1:]
        else:
            g.next_draw = 0
            g.starter = self.declarer if self.declarer is not None else 0
            g.kitty_owner = self.owner
            if phase == BURY:
                buried = list(self.known_buried) if self.owner == self.seat else kitty
                g.buried = buried
                # the kitty as taken is only known to (and only shown to) the seat burying it
                g.kitty_taken = list(_parse(" ".join(v.get("kitty_taken") or [])))
                if self.theft:
                    owner = self.owner
                    assert owner is not None, "the theft round comes after the kitty is taken"
                    g.kitty = sorted(buried)
                    order = [(owner + i) % n for i in range(1, n)]
                    g.theft_round = order[order.index(self.to_act) + 1:] \
                        if self.to_act in order else []
            else:
                if self.owner == self.seat and not kitty:
                    kitty = list(self.known_buried)
                g.kitty = sorted(kitty)
                g.buried = list(self.known_buried) if self.owner == self.seat else list(kitty)
        g.calls = []
        for text in v.get("calls") or []:
            o, card = text.split()
            g.calls.append((int(o), parse(card)[0]))
        g.call_results = {i: s for i, s in enumerate(v.get("call_results") or []) if s is not None}
        g.friends = list(v.get("friends") or [])
        g.seen_counts = Counter(self.played) if r.friends else Counter()
        g.won = [[] for _ in range(n)]
        for tr in self.tricks:
            for _, cs in tr["plays"]:
                g.won[tr["winner"]].extend(cs)
        g.trick = [(s, cs) for s, cs in self.trick]
        g.tricks = [{"plays": list(tr["plays"]), "winner": tr["winner"]} for tr in self.tricks]
        if self.trick:
            assert self.trump is not None, "cards are played once the trump is fixed"
            g.lead_units = decompose(self.trump, self.trick[0][1])
        else:
            g.lead_units = None
        g.pending = list(self.pending)
        g.penalty_points = v.get("penalty_points", 0)
        g.phase = phase
        g.to_act = self.to_act
        g.leader = self.declarer
        return g


def sample_world(view: dict, rng: random.Random, rules=None) -> ShengJiGame:
    """One world (a :class:`ShengJiGame` playing out this hand) consistent with ``view``."""
    return WorldSampler(view, rules).sample(rng)
