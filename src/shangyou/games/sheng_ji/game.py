"""The Sheng ji state machine: deal with bids, kitty, friends, tricks, scoring, levels, match.

Phases (each decision is a move; see docs/rules/sheng-ji.md for the rules and decisions):

* ``deal``: cards are drawn one at a time, starting with the declarer (first hand: a random
  seat). After each draw, the player who drew may bid (``bid 7H``, ``bid 7H 7H``, ``bid BJ BJ``)
  or ``pass``, when they have a bid that would be legal. After the last card every player in
  turn gets a last chance to bid.
* ``bury``: the declarer takes the kitty and buries as many cards, one at a time (``bury 3D``);
  while burying, its view alone says which cards came from the kitty (``kitty_taken``).
  With ``kitty_theft`` the others may then overcall in turn and bury again (炒地皮).
* ``call`` (Zhao Pengyou): the declarer names friends, one at a time (``call 1 AS``: whoever
  plays the first A♠ of the hand becomes a friend; if that is the declarer or a friend already,
  the call is used up).
* ``play``: tricks. A lead is one unit (``7H``, ``7H 7H``, ``8H 8H 6H 6H``) or a throw built card by
  card (``throw KH``, ``throw QH``, ..., then ``play``); any play may also be applied whole. A
  follow is a whole play (``9S 9S``); when there are more than ``FOLLOW_LIMIT`` legal follows,
  the cards are picked one at a time (``pick 3D``), each pick one that can still be completed
  to a legal follow (short of the suit: only the free cards are picked).
* ``over`` after the match: a side at level A wins a hand as declarers.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from ...cards import BJ_CODE, CARD_TEXT, RJ_CODE, Cards, deck, parse
from ...engine.base import GameBase
from ...engine.deal import random_source
from .clone import ShengJiClone
from ...engine.moves import Move
from ...errors import IllegalMove, NotationError
from . import core
from ..why import SUIT_WORDS, SUIT_ZH, refuse
from .follow import legal_follows, next_cards, why_not_follow
from .listing import (BID, BURY_K, CALL_K, COMMIT, FOLLOW_LIMIT, PASS, PICK, PLAY_K, THROW,
                      CallMoves, call_items, lead_units)
from .order import LEVELS, SJ_RANK, Trump, Unit, decompose, red_five_code
from .scoring import points
from .ends import end_hand
from .tricks import lead_suit, throw_check, trick_winner

DEAL, BURY, CALL, PLAY, OVER = "deal", "bury", "call", "play", "over"
_TRUMPS: dict = {}       # (level, suit, red_five, red_five_gap) -> Trump (ShengJiGame._trump)


@dataclass(frozen=True)
class ShengJiRules:
    """A Sheng ji preset as data."""

    name: str
    players: int
    decks: int
    kitty: int
    friends: int = 0                     # Zhao Pengyou: friends the declarer calls
    teams: tuple | None = None           # fixed partnerships (Tractor); None: Zhao Pengyou
    kitty_multiplier: str = "power"      # "power": 2^(n+1); "linear": 2(n+1)
    throw_penalty: int = 0               # points per failed throw (0 or 10)
    no_bid: str = "kitty-card"           # "kitty-card" | "no-trump" | "redeal"
    kitty_theft: bool = False
    jack_hook: bool = False
    red_five: bool = False
    red_five_gap: str = "closed"         # "closed": 4H and 6H are neighbours; "open"
    must_play: tuple = ()                # rank indices that must be played
    start_level: int = 12                # rank index of the starting level (12 = 2)
    options: dict = field(default_factory=dict)

    @property
    def family(self):  # so shared code (bots, CLI) can ask for points and card order
        return _FamilyShim(self)


class _FamilyShim:
    """The small part of the climbing-family interface generic code uses."""

    def __init__(self, rules: ShengJiRules):
        self.rules = rules

    def points(self, cards) -> int:
        return points(cards)

    def card_strength(self, c: int) -> int:
        return SJ_RANK[c >> 2] if c < BJ_CODE else 13 + (c == RJ_CODE)

    def precious(self, c: int) -> bool:
        return c >= BJ_CODE

    def sort_key(self, c: int):
        return c


class ShengJiGame(ShengJiClone):
    """One hand (``match=False``) or a match to A of a Sheng ji preset."""

    PRIVATE_VIEW_KEYS = ("hand", "legal_moves", "pending", "buried", "kitty_taken")
    # The hand's deal and kitty record, the levels, ``seed``, ``match`` (set by GameBase),
    # ``over``, ``theft_round``, the views' memo and ``to_act`` (which the core writes at every
    # move, at its offset) are slots beside the instance dict: the
    # dict keeps 26 keys (a clone's ``_lazy`` the 27th), under CPython's 30 for a dict that
    # shares its keys with the class, so a clone's dict is 8 bytes a value instead of a
    # 1.6 KB table (docs/benchmarks-single.md)
    __slots__ = ("seed", "match", "levels", "starter", "level_rank", "_kitty_as_dealt", "kitty",
                 "bid", "bid_log", "next_draw", "_drawn_by", "final_round", "buried",
                 "kitty_owner", "kitty_taken", "to_bury", "leader", "over", "theft_round",
                 "_tricks_cache", "_st", "to_act")
    # ``_st``: the hand's play state while the core holds it (``_core_hand.c``): then the
    # hands, the trick, the pending cards, the cards won, the tricks, the events, the log and
    # the listing are not in the dict; asking for any makes them all again (clone.py)
    # see GameBase.clone; the hands, the cards won, the stock, the cards seen, the log, the
    # events and the tricks go into ``_lazy`` (see clone)
    # (``result``: made whole when the game ends, which nothing changes after; ``calls`` and
    # ``history``: replaced when they grow)
    CLONE_SHARED = GameBase.CLONE_SHARED | {"trump", "_lazy", "result", "calls", "history"}
    CLONE_FLAT = (GameBase.CLONE_FLAT - {"moves", "events", "history"}) | {
        "friends", "lead_units", "pending", "trick"}
    CLONE_DICTS = frozenset({"call_results"})
    CLONE_DROP = frozenset({"hands", "won", "moves", "events", "tricks", "seen_counts",
                            "stock"})

    def __init__(self, rules: ShengJiRules, seed: int | None = None, match: bool = True):
        super().__init__(rules, seed, match, rng=False)
        self.over = False
        self.theft_round = None
        self.levels = [rules.start_level] * self.n      # per player (teams move together)
        self.declarer: int | None = None                # None until the first hand's bidding
        s = self.seed
        if core.ACTIVE and core.SEEDED and type(s) is int and 0 <= s < 1 << 64:
            # the generator seeded, the first to draw drawn and the cards shuffled in C: the
            # same draws as below; the generator kept as its state until it draws again
            cards = deck(rules.decks)
            self.starter, self._rng_obj = core.seeded_shuffle(s, self.n, cards)
            self._start_hand(cards)
        else:
            self._rng_obj = r = random_source(s)
            self.starter = r.randrange(self.n)          # first to draw
            self._start_hand()

    # ------------------------------------------------------------------ public API
    # ``over`` is a plain attribute (read on every step of every loop), True exactly when the
    # phase is OVER: set with the phase in ``_end_hand``
    over: bool

    def hand(self, seat: int) -> Cards:
        return Cards(sorted(self.hands[seat], key=self.sort_key))

    def sort_key(self, c: int):
        t = self.trump_for_display()
        return t.key(c) + (c,)

    def trump_for_display(self) -> Trump:
        return self.trump if self.trump is not None else self._trump(None)

    def _trump(self, suit: int | None) -> Trump:
        r = self.rules        # (a Trump is frozen: one per context, shared by every game)
        key = (self.level_rank, suit, r.red_five, r.red_five_gap)
        t = _TRUMPS.get(key)
        if t is None:
            t = _TRUMPS[key] = Trump(self.level_rank, suit,
                                     red_five_code(r.red_five, r.red_five_gap))
        return t

    def _fixed_trump(self) -> Trump:
        """The trump once the deal is over (it is set when the deal ends, before the bury)."""
        t = self.trump
        assert t is not None, "the trump is fixed when the deal ends"
        return t

    def legal_moves(self) -> Sequence[Move]:
        """A list, or the compiled core's read-only ``Moves`` (each Move made when asked for)."""
        legal = self._legal
        if legal is None:
            self._token = tok = object()
            if core.ACTIVE and self.phase in (PLAY, BURY, DEAL):   # the core's Moves, or None
                legal = core.list_moves(self, tok)
            if legal is None:
                legal = self._legal_rest(tok, None)
            self._legal = legal
        return list(legal) if type(legal) is list else legal   # Moves cannot be changed

    def _legal_rest(self, tok: object, listed: None) -> Sequence[Move]:
        """The legal moves the core did not list (the token ``tok`` is ``self._token``)."""
        return self._list_moves()

    def apply(self, move: Move | str, seat: int | None = None) -> None:
        if core.ACTIVE and core.apply_listed(self, move, seat):
            return
        self._apply_rest(move, seat)

    def _apply_rest(self, move: Move | str, seat: int | None) -> None:
        """``apply`` past the core's fast path (it made nothing)."""
        seat = self._check_turn(seat)
        if isinstance(move, Move) and self._listed(move):
            mv = move
        else:
            mv = self._resolve(str(move).strip())
        self._do(seat, mv)
        self._moved(seat, mv)

    def _event(self, event: dict) -> None:
        """``events.append(event)``; where the core holds the hand's events (``_core_hand.c``)
        it records it after them instead, so they are not made for it."""
        if not (core.AVAILABLE and core.add_event(self, event)):
            self.events.append(event)

    # --------------------------------------------------------------------- dealing
    def _start_hand(self, cards: list | None = None) -> None:
        """A new hand; ``cards``: the cards shuffled already (the first hand's, in C)."""
        if core.AVAILABLE:
            core.flush(self)         # (what the core held of the hand before: made again)
        r = self.rules
        self.hand_number += 1
        if cards is None:
            cards = deck(r.decks)
            core.shuffle(self._rng, cards)
        self._kitty_as_dealt: tuple[int, ...] = tuple(cards[:r.kitty])
        self.kitty: list[int] = sorted(self._kitty_as_dealt)
        self.stock: list[int] = cast("list[int]", cards[r.kitty:])   # drawn from the end
        self.hands: list[list[int]] = [[] for _ in range(self.n)]
        self.level_rank = self.levels[self.declarer] if self.declarer is not None \
            else r.start_level
        self.trump: Trump | None = None
        self.bid: dict | None = None         # {"seat", "card", "count"}
        self.bid_log: list[tuple[int, str]] = []
        self.next_draw = self.starter if self.declarer is None else self.declarer
        # the draw order is fixed now (bids never change who draws next): the k-th card drawn,
        # stock[-1 - k], goes to seat (next_draw + k) % n, so the deal is recorded at once
        first = self.next_draw
        held = core.dealt(self.stock, self.n, first) if core.ACTIVE else None
        if held is not None:                 # (each hand sorted, in C)
            self._dealt(held, self.kitty, hands_sorted=True)
        else:
            order = self.stock[::-1]
            self._dealt([order[(s - first) % self.n::self.n] for s in range(self.n)],
                        self.kitty)
        self.final_round: list[int] | None = None
        self.buried: list[int] = []
        self.kitty_owner: int | None = None
        self.kitty_taken: list[int] = []     # the kitty as the seat burying now took it
        self.calls: list[tuple[int, int]] = []       # (ordinal, card)
        self.friends: list[int] = []
        self.call_results: dict[int, int] = {}       # call index -> seat that played it
        self.seen_counts: Counter = Counter.__new__(Counter)  # (Counter() less its __init__)
        self.won: list[list[int]] = [[] for _ in range(self.n)]
        self.trick: list[tuple[int, tuple]] = []
        self.tricks: list[dict] = []
        self.lead_units: list[Unit] | None = None    # the units of the trick's lead
        self.pending: list[int] = []          # the current player's picked cards
        self.penalty_points = 0               # failed throws, added to the opponents' points
        self.phase = DEAL
        self.to_act = None
        self._advance_deal()

    def _draw(self) -> None:
        seat = self.next_draw
        self.hands[seat].append(self.stock.pop())
        self.next_draw = (seat + 1) % self.n
        self._drawn_by = seat

    def _advance_deal(self) -> None:
        """Draw until somebody has a bid to make (they act), or the deal is done."""
        acts = core.advance_deal(self) if core.ACTIVE else None      # (in C: _core_ends.c)
        if acts is not None:
            if not acts:
                self._end_deal()
            return
        self._advance_deal_py()

    def _advance_deal_py(self) -> None:
        """``_advance_deal`` where the core does not draw (the reference; the core's apply of
        a bid or a pass calls ``core.advance_deal`` itself, then this where it answers None)."""
        while True:
            if self.stock:
                if core.ACTIVE and core.draw(self):      # the draws up to a bid, in C
                    return
                if self.stock:                   # (unless the core could not read the state)
                    self._draw()
                    if self._bids_for(self._drawn_by):
                        self.to_act = self._drawn_by
                        return
                continue
            if self.final_round is None:
                first = self.starter if self.declarer is None else self.declarer
                self.final_round = [(first + i) % self.n for i in range(self.n)]
            while self.final_round:
                seat = self.final_round.pop(0)
                if self._bids_for(seat):
                    self.to_act = seat
                    return
            self._end_deal()
            return

    def _bids_for(self, seat: int) -> list[tuple[int, int]]:
        """Legal bids of ``seat``: (card, count); the card is a level card or a joker."""
        if core.ACTIVE:
            got = core.bids(self.hands[seat], self.level_rank, self.bid, seat)
            if got is not None:
                return got
        counts = Counter(self.hands[seat])
        cur = self.bid
        out = []
        for s in range(4):
            c = self.level_rank * 4 + s
            for k in range(1, counts[c] + 1):
                out.append((c, k))
        for j in (BJ_CODE, RJ_CODE):
            for k in range(2, counts[j] + 1):
                out.append((j, k))
        if cur is None:
            return out
        strength = _bid_strength(cur["card"], cur["count"])
        legal = []
        for c, k in out:
            if cur["seat"] == seat:       # the winning bidder may only reinforce
                if c == cur["card"] and k > cur["count"]:
                    legal.append((c, k))
            elif _bid_strength(c, k) > strength:
                legal.append((c, k))
        return legal

    def _end_deal(self) -> None:
        r = self.rules
        if self.bid is None:
            if r.no_bid == "redeal":
                self._event({"event": "redeal", "hand": self.hand_number})
                self.hand_number -= 1
                self._start_hand()
                return
            if r.no_bid == "no-trump":
                self.trump = self._trump(None)
            else:   # the first kitty card that is not a joker names the suit
                plain = [c for c in self.kitty if c < BJ_CODE]
                first = self._kitty_order()[0] if plain else None
                self.trump = self._trump(None if first is None else first & 3)
            if self.declarer is None:
                self.declarer = self.starter
            self._event({"event": "no bid", "trump": str(self.trump)})
        else:
            c = self.bid["card"]
            self.trump = self._trump(None if c >= BJ_CODE else c & 3)
            if self.declarer is None:
                self.declarer = self.bid["seat"]
                self.level_rank = self.levels[self.declarer]
        self._event({"event": "trump", "trump": str(self.trump), "declarer": self.declarer})
        self._give_kitty(self.declarer)

    def _kitty_order(self) -> list[int]:
        """The kitty's plain cards as they lie, for "the first card" (no bid). With a secret
        seed that is the order the shuffle left them in; an int seed keeps its historical
        rule, a fixed shuffle of the seed and hand number (so old logs replay unchanged)."""
        if isinstance(self.seed, str):
            return [c for c in self._kitty_as_dealt if c < BJ_CODE]
        order = [c for c in self.kitty if c < BJ_CODE]
        random.Random(self.seed * 7 + self.hand_number).shuffle(order)
        return order

    def _give_kitty(self, seat: int) -> None:
        self.hands[seat].extend(self.kitty)
        self.kitty_owner = seat
        self.kitty_taken = list(self.kitty)
        self.kitty = []
        self.to_bury = self.rules.kitty
        self.buried = []
        self.phase = BURY
        self.to_act = seat

    # ------------------------------------------------------------------ move lists
    def _list_moves(self) -> Sequence[Move]:
        tok = self._token
        seat = self.to_act
        if seat is None:                         # the game is over: nobody acts
            return []
        if self.phase == DEAL:
            moves = [Move(PASS, (), None, "pass", token=tok)]
            for c, k in self._bids_for(seat):
                moves.append(Move(BID, (c,) * k, None, None, token=tok))
            return moves
        if self.phase == BURY:
            if self.theft_round is not None:
                moves = [Move(PASS, (), None, "pass", token=tok)]
                for c, k in self._bids_for(seat):
                    moves.append(Move(BID, (c,) * k, None, None, token=tok))
                return moves
            return [Move(BURY_K, (c,), token=tok) for c in sorted(set(self.hands[seat]),
                                                                   key=self.sort_key)]
        if self.phase == CALL:
            return CallMoves(call_items(self._fixed_trump(), self.rules.decks), tok)
        if self.phase == PLAY:
            return self._play_moves(seat, tok)
        return []

    def _callable(self) -> list[tuple[int, int]]:
        return [(c, o) for c, o, _ in call_items(self._fixed_trump(), self.rules.decks)]

    def _play_moves(self, seat: int, tok) -> list[Move]:
        hand = self.hands[seat]
        t = self._fixed_trump()
        if not self.trick:                       # leading
            if self.pending:                     # a throw being built
                s = t.suit_of(self.pending[0])
                left = Counter(hand)
                left.subtract(self.pending)
                moves = [Move(COMMIT, (), None, "play", token=tok)]
                moves += [Move(THROW, (c,), token=tok) for c in sorted(
                    (c for c, k in left.items() if k > 0 and t.suit_of(c) == s),
                    key=self.sort_key)]
                return moves
            moves = [Move(PLAY_K, u, None, None, token=tok) for u in self._lead_units(hand)]
            moves += [Move(THROW, (c,), token=tok) for c in sorted(set(hand), key=self.sort_key)]
            return moves
        lead = self.trick[0][1]
        units = self._trick_lead_units()
        plays = None if self.pending else legal_follows(t, hand, lead, units, limit=FOLLOW_LIMIT)
        if plays is None:            # choosing the cards one at a time
            cards = next_cards(t, hand, lead, units, self.pending)
            return [Move(PICK, (c,), token=tok) for c in sorted(cards, key=self.sort_key)]
        return [Move(PLAY_K, p, None, None, token=tok) for p in plays]

    def _lead_units(self, hand) -> list[tuple]:
        key = {c: self.sort_key(c) for c in set(hand)}       # each card's key once
        return sorted(lead_units(self._fixed_trump(), hand, self.rules.decks),
                      key=lambda u: (len(u), [key[c] for c in u]))

    # ------------------------------------------------------------------ resolving
    def _resolve(self, text: str) -> Move:
        word = text.partition(" ")[0].lower()
        if self.phase == PLAY and word not in ("throw", "pick", "play", "pass"):
            # cards played: checked directly, without listing every legal follow first
            try:
                return self._resolve_play(tuple(parse(text)))
            except NotationError as e:
                raise IllegalMove(str(e)) from None
        legal = self._legal if self._legal is not None else self.legal_moves()
        for m in legal:
            if str(m) == text:
                return m
        low = text.lower()
        word, _, rest = text.partition(" ")
        try:
            if self.phase == PLAY and word.lower() not in ("throw", "pick", "play", "pass"):
                return self._resolve_play(tuple(parse(text)))
            if word.lower() in (BID, BURY_K, THROW, PICK):
                cards = tuple(sorted(parse(rest)))
                for m in legal:
                    if m.kind == word.lower() and tuple(sorted(m.cards)) == cards:
                        return m
            if word.lower() == CALL_K:
                o, _, card = rest.partition(" ")
                cards = parse(card)
                for m in legal:
                    if m.kind == CALL_K and str(m) == f"call {o} {cards}":
                        return m
        except NotationError as e:
            raise IllegalMove(str(e)) from None
        if low == "pass" and self.phase == PLAY:
            raise refuse("sj_no_pass")
        if self.phase == BURY and self.theft_round is None and word.lower() == BURY_K:
            held = parse(rest)          # a card not in the hand (the notation was checked)
            if len(held) == 1:
                raise refuse("sj_bury_held", card=str(held))
        kinds = sorted({m.kind for m in legal})
        raise IllegalMove(f"{text!r} is not a legal move now ({self.phase} phase); legal: "
                          + ", ".join(str(m) for m in legal[:10])
                          + (" ..." if len(legal) > 10 else "") + f" [{'/'.join(kinds)}]")

    def _resolve_play(self, cards: tuple) -> Move:
        seat = self.to_act
        assert seat is not None, "apply checked the turn: somebody acts"
        t = self._fixed_trump()
        if not cards:
            raise IllegalMove("no cards given")
        left = Counter(self.hands[seat])
        left.subtract(self.pending)
        left.subtract(cards)
        if any(v < 0 for v in left.values()):
            raise IllegalMove(f"seat {seat} does not hold {Cards(cards)}")
        if not self.trick:
            if self.pending:
                raise refuse("sj_finish_throw")
            if lead_suit(t, cards) is None:
                suits = sorted({t.suit_of(c) for c in cards})
                raise refuse("sj_lead_suits", suits=" and ".join(SUIT_WORDS[s] for s in suits),
                             suits_zh="和".join(SUIT_ZH[s] for s in suits))
            return Move(PLAY_K, tuple(sorted(cards)))
        lead = self.trick[0][1]
        play = tuple(sorted(tuple(self.pending) + cards))
        why = why_not_follow(t, self.hands[seat], lead, self._trick_lead_units(), play)
        if why is not None:
            raise IllegalMove(why.text("en"), why=why)
        return Move(PLAY_K, tuple(sorted(cards)))

    # ---------------------------------------------------------------------- doing
    def _do(self, seat: int, mv: Move) -> None:
        if self.phase == DEAL:
            self._do_bid(seat, mv)
            if self.phase == DEAL:
                self._advance_deal()
        elif self.phase == BURY:
            self._do_bury(seat, mv)
        elif self.phase == CALL:
            # (replaced, not changed: clones share the list)
            self.calls = self.calls + [(int(str(mv).split()[1]), mv.cards[0])]
            self._event({"event": "call", "seat": seat, "call": str(mv)[5:]})
            if len(self.calls) >= self.rules.friends:
                self._begin_play()
        else:
            self._do_play(seat, mv)

    def _do_bid(self, seat: int, mv: Move) -> None:
        if mv.kind == PASS:
            return
        c, k = mv.cards[0], len(mv.cards)
        self.bid = {"seat": seat, "card": c, "count": k}
        self.bid_log.append((seat, str(mv)))
        self._event({"event": "bid", "seat": seat, "bid": str(Cards(mv.cards))})

    def _do_bury(self, seat: int, mv: Move) -> None:
        if self.theft_round is not None:
            if mv.kind == PASS:
                self._next_thief()
                return
            self._do_bid(seat, mv)
            c = mv.cards[0]
            self.trump = self._trump(None if c >= BJ_CODE else c & 3)
            self._event({"event": "kitty theft", "seat": seat, "trump": str(self.trump)})
            self.kitty = list(self.buried)
            self.theft_round = None
            self._give_kitty(seat)
            return
        c = mv.cards[0]
        self.hands[seat].remove(c)
        self.buried.append(c)
        if len(self.buried) < self.to_bury:
            return
        self.kitty = sorted(self.buried)
        self._event({"event": "buried", "seat": seat})
        if self.rules.kitty_theft:
            self.theft_round = [(seat + i) % self.n for i in range(1, self.n)]
            self._next_thief()
            return
        self._after_kitty()

    theft_round: list[int] | None
    _tricks_cache: tuple[list, list]       # (the tricks list, their texts): _trick_texts

    def _next_thief(self) -> None:
        while self.theft_round:
            s = self.theft_round.pop(0)
            if self._bids_for(s):
                self.to_act = s
                return
        self.theft_round = None
        self._after_kitty()

    def _after_kitty(self) -> None:
        if self.rules.friends:
            self.phase = CALL
            self.to_act = self.declarer
        else:
            self._begin_play()

    def _begin_play(self) -> None:
        self.phase = PLAY
        self.to_act = self.declarer
        self.leader = self.declarer

    def team_of(self, seat: int) -> str:
        """"declarers" or "opponents" (Zhao Pengyou: friends revealed so far)."""
        if self.rules.teams:
            team = [t for t in self.rules.teams if self.declarer in t][0]
            return "declarers" if seat in team else "opponents"
        return "declarers" if seat == self.declarer or seat in self.friends else "opponents"

    def _sides(self) -> tuple[list[int], list[int]]:
        """The seats of the declarers and of the opponents (each ascending), as ``team_of``
        says, asked once."""
        if self.rules.teams:
            inside = [t for t in self.rules.teams if self.declarer in t][0]
        else:
            inside = {self.declarer, *self.friends}
        decl: list[int] = []
        opp: list[int] = []
        for s in range(self.n):
            (decl if s in inside else opp).append(s)
        return decl, opp

    def _do_play(self, seat: int, mv: Move) -> None:
        t = self._fixed_trump()
        if mv.kind == THROW:
            self.pending.append(mv.cards[0])
            return
        if mv.kind == PICK:
            self.pending.append(mv.cards[0])
            lead = self.trick[0][1]
            suit = t.suit_of(lead[0])
            mine = [c for c in self.hands[seat] if t.suit_of(c) == suit]
            if len(mine) > len(lead):            # the cards of the suit, chosen one by one
                if len(self.pending) < len(lead):
                    return
                cards = tuple(sorted(self.pending))
            else:                                # short: the free cards, the suit's go in
                if len(self.pending) + len(mine) < len(lead):
                    return
                cards = tuple(sorted(tuple(mine) + tuple(self.pending)))
        elif mv.kind == COMMIT:
            cards = tuple(sorted(self.pending))
        else:
            cards = tuple(sorted(tuple(self.pending) + tuple(mv.cards)))
        self.pending = []
        if not self.trick:
            cards = self._lead(seat, cards)
        for c in cards:
            self.hands[seat].remove(c)
        self.trick.append((seat, cards))
        self._note_friends(seat, cards)
        self._event({"event": "play", "seat": seat, "cards": str(Cards(cards))})
        if len(self.trick) < self.n:
            self.to_act = (seat + 1) % self.n
            return
        self._end_trick()

    def _lead(self, seat: int, cards: tuple) -> tuple:
        """Check a throw against the other hands; a failed throw plays the forced unit."""
        t = self._fixed_trump()
        units = decompose(t, cards)
        if len(units) > 1:
            others = [self.hands[s] for s in range(self.n) if s != seat]
            forced = throw_check(t, cards, others)
            if forced is not None:
                self._event({"event": "failed throw", "seat": seat,
                                    "tried": str(Cards(cards)),
                                    "forced": str(Cards(forced.cards))})
                if self.rules.throw_penalty:
                    sign = 1 if self.team_of(seat) == "declarers" else -1
                    self.penalty_points += sign * self.rules.throw_penalty
                cards = tuple(sorted(forced.cards))
                units = decompose(t, cards)
        self.lead_units = units
        return cards

    def _trick_lead_units(self) -> list[Unit]:
        """The units of the current trick's lead (set when the lead is played)."""
        units = self.lead_units
        assert units is not None, "a trick's lead sets its units"
        return units

    def _note_friends(self, seat: int, cards: tuple) -> None:
        if not self.rules.friends:
            return
        for c in cards:
            self.seen_counts[c] += 1
            for i, (o, fc) in enumerate(self.calls):
                if fc == c and self.seen_counts[c] == o and i not in self.call_results:
                    self.call_results[i] = seat
                    if seat != self.declarer and seat not in self.friends:
                        self.friends.append(seat)
                        self._event({"event": "friend", "seat": seat,
                                            "call": f"{o} {CARD_TEXT[fc]}"})

    def _end_trick(self) -> None:
        t = self._fixed_trump()
        plays = [cards for _, cards in self.trick]
        w = trick_winner(t, plays)
        winner = self.trick[w][0]
        for _, cards in self.trick:
            self.won[winner].extend(cards)
        self.tricks.append({"plays": [(s, c) for s, c in self.trick], "winner": winner})
        self._event({"event": "trick", "winner": winner,
                            "points": points(c for _, cs in self.trick for c in cs)})
        last_lead_units = self._trick_lead_units()
        self.trick = []
        self.lead_units = None
        if any(self.hands):
            self.to_act = winner
            return
        self._end_hand(winner, last_lead_units, plays[w])

    # --------------------------------------------------------------------- scoring
    def _end_hand(self, last_winner: int, last_units: list[Unit], winning_play: tuple) -> None:
        """The scoring, the levels, the result or the next hand: ``ends.end_hand`` (in C
        where the core is on, ``_core_ends.c``)."""
        nxt = core.end_hand(self, last_winner, last_units, winning_play) if core.ACTIVE \
            else None
        if nxt is None:
            end_hand(self, last_winner, last_units, winning_play)
        elif nxt:
            self._start_hand()

    # ----------------------------------------------------------------------- views
    def view(self, seat: int) -> dict[str, Any]:
        if not 0 <= seat < self.n:
            raise ValueError(f"no seat {seat} at a table of {self.n}")
        t = self.trump
        v: dict[str, Any] = {
            "game": self.rules.name, "players": self.n, "seat": seat, "phase": self.phase,
            "options": dict(self.rules.options), "hand_number": self.hand_number,
            "to_act": self.to_act, "hand": [CARD_TEXT[c] for c in self.hand(seat)],
            "counts": [len(h) for h in self.hands],
            "level": LEVELS[SJ_RANK[self.level_rank]],
            "levels": [LEVELS[SJ_RANK[x]] for x in self.levels],
            "trump": None if t is None else str(t),
            "bid": None if self.bid is None else {
                "seat": self.bid["seat"], "cards": str(Cards((self.bid["card"],)
                                                              * self.bid["count"]))},
            "declarer": self.declarer, "kitty_size": self.rules.kitty,
            "trick": [[s, str(Cards(c))] for s, c in self.trick],
            "tricks": [{"plays": [[s, text] for s, text in plays], "winner": winner}
                       for plays, winner in self._trick_texts()],
            "points_won": [points(w) for w in self.won],
            "opponents_points": sum(points(self.won[s]) for s in range(self.n)
                                    if self.declarer is not None and
                                    self.team_of(s) == "opponents"),
            "calls": [f"{o} {CARD_TEXT[c]}" for o, c in self.calls],
            "call_results": [self.call_results.get(i) for i in range(len(self.calls))],
            "friends": list(self.friends),
            "penalty_points": self.penalty_points,
            "teams": [list(x) for x in self.rules.teams] if self.rules.teams else None,
            "history": [dict(h) for h in self.history],
        }
        if seat == self.kitty_owner and self.phase in (BURY, CALL, PLAY):
            # the player who buries the kitty knows what they buried, for the whole hand
            v["buried"] = [CARD_TEXT[c] for c in self.buried]
            if self.phase == BURY and self.theft_round is None:
                # while burying: which cards came from the kitty (a page marks them)
                v["kitty_taken"] = [CARD_TEXT[c] for c in sorted(self.kitty_taken)]
        if seat == self.to_act:
            v["pending"] = [CARD_TEXT[c] for c in self.pending]
            v["legal_moves"] = [str(m) for m in self.legal_moves()]
        if self.phase == OVER:
            v["result"] = self.result
        return v

    def _trick_texts(self) -> list:
        """(plays as (seat, text), winner) of every finished trick of this hand, each made
        once (finished tricks never change)."""
        owner: list | None
        cache: list
        owner, cache = getattr(self, "_tricks_cache", (None, []))
        if owner is not self.tricks:          # a new hand (a new list of tricks) began
            cache = []
            self._tricks_cache = (self.tricks, cache)
        for tr in self.tricks[len(cache):]:
            cache.append(([(s, str(Cards(c))) for s, c in tr["plays"]], tr["winner"]))
        return cache

    # ------------------------------------------------------------------ equality
    def snapshot(self) -> dict:
        return {"hands": [sorted(h) for h in self.hands], "phase": self.phase,
                "to_act": self.to_act, "levels": list(self.levels), "declarer": self.declarer,
                "trump": None if self.trump is None else str(self.trump),
                "kitty": sorted(self.kitty), "won": [sorted(w) for w in self.won],
                "trick": list(self.trick), "hand_number": self.hand_number,
                "history": self.history, "result": self.result, "pending": list(self.pending),
                "moves": [(s, str(m)) for s, m in self.moves]}


# legal_moves and apply without their Python frames where the core is built (the Python
# methods above stay the reference: _legal_moves_py, _apply_py)
core.install_methods(ShengJiGame)


def _bid_strength(card: int, count: int) -> tuple[int, int]:
    """More cards win; at equal count jokers beat suits and RJ beats BJ."""
    tier = 2 if card == RJ_CODE else 1 if card == BJ_CODE else 0
    return (count, tier)
