"""The climbing-game state machine: deal, exchange, play, score, next hand, match end.

One class drives every Zheng Shangyou preset (and is meant to drive Zheng Fen too): what
differs between presets is data in a :class:`Rulebook` (the combination family, who leads, how
cards are exchanged, how hands are scored). The loop is the same for bots, the terminal game,
the server and RL environments::

    while not g.over:
        g.apply(choose(g.view(g.to_act)))

Every decision is a :class:`~shangyou.engine.moves.Move`. ``apply`` validates completely before
it changes anything, so an illegal move raises :class:`~shangyou.errors.IllegalMove` and leaves the
game as it was.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from ...cards import CARD_TEXT, Cards, deck, parse
from ...engine.base import GameBase, new_seed
from ...engine.deal import check_seed, random_source
from ...engine.moves import CHOOSE, PASS, PASS_MOVE, PICK, PLAY, Move
from ...errors import IllegalMove, NotationError
from ..why import Why
from . import core, exchange, explain
from .combo import Combo
from .core import shuffle
from .exchange import PHASE_EXCHANGE, without
from .family import Family, PointFamily
from .observe import CompactView
from .rare import (
    COUNTS_AT_FIRST_OUT, DEFAULTS, DEALT_COUNTS, EXCHANGE, MATCH, PREV_ORDER, SCORES, TEAM_TOTALS,
    rare_attributes, rare_record, set_rare)
from .scoring import score_hand
from .steps import (
    LISTING_LIMIT,
    STEP_LIMIT,
    Grouping,
    current_grouping,
    every_listed_play,
    play_phase_moves,
    resolve_step,
)

PHASE_PLAY, PHASE_OVER = "play", "over"


@dataclass(frozen=True)
class Rulebook:
    """Everything a climbing preset decides, as data (see ``docs/rules/``)."""

    name: str
    players: int
    family: Family
    decks: int = 1
    jokers: bool = True
    deal_count: int | None = None          # cards per player; None: deal the whole pack
    first_leader: str = "dealer"           # "dealer" | "random-card" | "holder:<card>"
    later_leader: str = "dealer"           # "dealer" | "place:<i>" (0 = first out)
    next_dealer: str = "place:2"           # "place:<i>", -1 = last
    exchange: str | None = None            # None | "pits" | "offer"
    scoring: str = "places"                # "places" | "teams6" | "cards-left"
    place_points: tuple = (2, 1)
    teams: tuple | None = None             # seats per team; scores summed per team
    target: int | None = 11
    max_hands: int | None = None           # a match of a fixed number of hands
    finish_trick: bool = False             # when one player holds cards: end now, or finish the
    #                                        trick in progress first (Zheng Fen)
    options: dict = field(default_factory=dict)  # the user's options, for the log

    def sort_key(self, card: int):
        return self.family.sort_key(card)


@rare_attributes
class ClimbingGame(CompactView, GameBase):
    """One hand (``match=False``) or a whole match of a climbing preset."""

    PRIVATE_VIEW_KEYS = ("hand", "legal_moves", "choice", "picked")
    # see GameBase.clone; tricks: a finished trick's list never changes again; the full listing
    # of plays and the grouping of the steps go with the listed moves (replaced, never changed);
    # the finishing order and the events are replaced when they grow; a clone shares each hand
    # and each seat's cards won (``hands``, ``won``: it copies the outer lists), which the Python
    # code replaces rather than changes, and the compiled core changes in place only where no
    # other game holds them (_core_apply.c, own_list); ``_rare``:
    # the record of the attributes that change a few times a hand (rare.py), replaced on change
    # (the exchange's dict too: exchange.make); ``_memo``: derived facts for the views (observe.py);
    # the log: ``moves``
    CLONE_SHARED = GameBase.CLONE_SHARED | {"last", "_plays", "_grouping", "picked", "order",
                                            "events", "_rare", "_log_chunks"}
    CLONE_FLAT = frozenset({"_log", "trick", "tricks", "hands", "won"})
    CLONE_DROP = frozenset({"_memo"})

    # What a move reads and changes is held in slots, not in the instance dict: the compiled
    # core reads and writes them at their offsets (``_core_apply.c``) where a dict costs a
    # lookup each (about a tenth of a move), and Python reads a slot on its fastest path. The
    # dict keeps the rest (INSTANCE_KEYS), ``_legal`` and ``_token`` among them (the shared
    # ``games/_methods.h`` reads them there). ``over``, ``choice``, ``picked`` and
    # ``_grouping`` start set (``__new__``); ``_family`` and ``_finish_trick`` are the rules'
    # (``__init__``), which the core reads at every listing and play.
    __slots__ = ("rules", "n", "to_act", "phase", "last", "last_seat", "passes", "hands",
                 "trick", "tricks", "won", "order", "_log", "_grouping", "choice", "picked",
                 "over", "_family", "_finish_trick")

    #: the record's length and where it keeps ``counts_at_first_out``: the compiled core sets
    #: it when a player goes out (``_core_apply.c``)
    _core_rare = (len(DEFAULTS), COUNTS_AT_FIRST_OUT)

    def __new__(cls, *args: Any, **kwargs: Any) -> ClimbingGame:
        self = object.__new__(cls)
        self.over = False
        self.choice = None
        self.picked = ()
        self._grouping = None
        return self

    # seed, match, result, scores, history, team_totals, prev_order, dealt_counts, undealt,
    # counts_at_first_out, exchange and exchanged are properties kept in ``_rare`` (rare.py)
    _rare: tuple
    if TYPE_CHECKING:
        scores: list[int]
        team_totals: Sequence[int]
        prev_order: list[int] | None
        dealt_counts: list[int]
        undealt: Sequence[int]
        counts_at_first_out: list[int] | None
        exchange: dict[str, Any] | None
        # cards that changed hands in this hand's exchange, all face up: (from, to, card),
        # from/to None for the cards on offer in between
        exchanged: tuple[tuple[int | None, int | None, int], ...]

    def __init__(self, rules: Rulebook, seed: int | str | None = None, match: bool = True):
        # what GameBase.__init__ sets, with the record's fields (seed, match, history, result,
        # scores, team totals) made as one tuple rather than set one property call at a time
        self.rules = rules
        self.n = n = rules.players
        checked = new_seed() if seed is None else check_seed(seed)
        self._rare = rare_record(
            seed=checked, match=match, history=[], result=None, scores=[0] * n,
            team_totals=[0] * len(rules.teams) if rules.teams else DEFAULTS[TEAM_TOTALS])
        # (the attributes set in INSTANCE_KEYS' order)
        cards = None
        if core.ACTIVE and core.SEEDED and type(checked) is int and 0 <= checked < 1 << 64:
            # the generator seeded, the dealer drawn and the cards shuffled in C: the same
            # draws as below; the generator kept as its state until it draws again
            cards = deck(rules.decks, rules.jokers)
            dealer, self._rng_obj = core.seeded_shuffle(checked, n, cards)
        else:
            self._rng_obj = random_source(checked)
        self.deals = ()
        self.hand_number = 0
        self._log_chunks = ()
        self._log = []
        self.events = []
        self._legal = None
        self._token = None
        self._family = rules.family
        self._finish_trick = rules.finish_trick
        self.dealer = dealer if cards is not None else self._rng.randrange(n)
        self._start_hand(cards)

    def clone(self) -> ClimbingGame:
        tail = self._log
        if tail:                      # the log so far becomes a chunk both games share
            self._log_chunks = self._log_chunks + (tuple(tail),)
            self._log = []
        new = super().clone()         # the instance dict; then the slots, by the same rules
        for slot, flat in _SLOT_COPY:
            try:
                v = slot.__get__(self)
            except AttributeError:    # not set (deleted): left unset in the clone too
                continue
            slot.__set__(new, v[:] if flat else v)
        return new

    # ------------------------------------------------------------------ public API
    #: the log's chunks shared with clones (tuples), before this game's own ``_log``
    _log_chunks: tuple[tuple[tuple[int, Move], ...], ...] = ()
    _log: list[tuple[int, Move]]

    @property
    def moves(self) -> list[tuple[int, Move]]:
        """The log: (seat, move) of every move made, in order (a new list). Kept as the chunks
        a clone shares with its original (``_log_chunks``: the log as it was at each clone)
        and this game's own moves since (``_log``, which each move appends to, in C too), so a
        clone copies no part of it."""
        chunks = self._log_chunks
        if not chunks:
            return list(self._log)
        out = [m for chunk in chunks for m in chunk]
        out += self._log
        return out

    @moves.setter
    def moves(self, moves: Sequence[tuple[int, Move]]) -> None:
        self._log_chunks = ()
        self._log = list(moves)

    def _moved(self, seat: int, move) -> None:
        self._log.append((seat, move))
        self._legal = None
        self._token = None

    # ``over`` is a plain attribute (read on every step of every loop: a slot), True exactly
    # when the phase is PHASE_OVER: False from ``__new__``, set in ``_end_hand``.
    over: bool
    #: the group of plays chosen (its ``choose`` text) and the cards picked so far, while a
    #: play is chosen in steps (``steps.py``); None and () otherwise (slots)
    choice: str | None
    picked: tuple
    #: (token, every legal move of the play phase) where the moves listed with that token are
    #: steps of a choice (otherwise the moves listed are every legal move)
    _plays: tuple | None = None
    #: (seat, hand, play to beat, steps.Grouping) while the play is chosen in steps (a slot)
    _grouping: tuple | None

    def hand(self, seat: int) -> Cards:
        return Cards(self.hands[seat])

    def legal_moves(self) -> Sequence[Move]:
        """The moves offered now: every legal move, or past :data:`~.steps.STEP_LIMIT` legal
        plays the steps of the choice (``choose``, ``pick``: see ``steps.py``). A list, or the
        compiled core's read-only sequence (``Plays``: each Move made when it is asked for)."""
        moves = self._legal
        if moves is None:
            tok = self._token = object()
            listed = core.listed_moves(self, tok, LISTING_LIMIT) if core.ACTIVE else None
            if listed and len(listed) <= STEP_LIMIT:
                self._legal = listed   # the play phase listed in C in one call (core.md)
                return listed
            moves = self._legal = self._legal_rest(tok, listed)
        return list(moves) if type(moves) is list else moves

    def _legal_rest(self, tok: object, listed: Any) -> Sequence[Move]:
        """The legal moves the core did not list (``listed``: what it gave, None or False)."""
        if self.phase == PHASE_PLAY:
            return play_phase_moves(self, tok, listed)
        if self.phase == PHASE_EXCHANGE:
            return self._exchange_moves()
        return []

    def all_moves(self, limit: int | None = LISTING_LIMIT) -> list[Move]:
        """The legal moves in one list, without the steps of ``legal_moves`` (for the search's
        playouts and the environments); each may be applied. Every legal move where there are
        at most ``limit`` plays (default :data:`~.steps.LISTING_LIMIT`); past that, one play
        per reading (``steps.bounded_plays``: never millions). ``limit=None``: every legal
        move, however many (the reference the tests compare with; a two-pack hand has up to
        millions)."""
        listed = self._legal if self._legal is not None else self.legal_moves()
        plays = every_listed_play(self, limit) if self.phase == PHASE_PLAY else None
        return list(listed if plays is None else plays)

    def _steps(self) -> Grouping | None:
        """The grouping of the plays kept while this seat chooses in steps (same hand, same
        play to beat), or None (``steps.current_grouping``)."""
        return current_grouping(self)

    def apply(self, move: Move | str, seat: int | None = None) -> None:
        """Make a move for the seat to act (``seat``, if given, must be that seat)."""
        if core.ACTIVE and core.apply_listed(self, move, seat):
            return            # a listed play or a pass, nothing more after it: made in C
        self._apply_rest(move, seat)

    def _apply_rest(self, move: Move | str, seat: int | None) -> None:
        """``apply`` past the core's fast path (it made nothing)."""
        tok = self._token                 # not None exactly when moves are listed
        if (seat is None or seat == self.to_act) and (
                (tok is not None and getattr(move, "token", None) is tok)
                or (move is PASS_MOVE and self.last is not None and self.phase == PHASE_PLAY)):
            # one of the moves just listed for this state, or a pass when there is a play to
            # beat: known legal (and the game is not over)
            seat = self.to_act
            assert seat is not None and isinstance(move, Move)  # a listed move, or PASS_MOVE
            if self.phase == PHASE_PLAY:
                if move.kind is CHOOSE or move.kind is PICK:
                    self._do_step(move)
                else:
                    self._do_play(seat, move)
            else:
                self._do_exchange(seat, move)
            self._log.append((seat, move))
            self._legal = self._token = None
            return
        seat = self._check_turn(seat)
        if self.phase == PHASE_PLAY:
            if self._listed(move):
                mv = move  # one of the moves just listed: already known legal
            elif move is PASS_MOVE and self.last is not None:
                mv = PASS_MOVE  # passing is legal whenever there is a play to beat
            else:
                mv = self._resolve_step(move) or self._resolve_play(move)
            if mv.kind == CHOOSE or mv.kind == PICK:
                self._do_step(mv)
            else:
                self._do_play(seat, mv)
        else:
            mv = move if self._listed(move) else self._resolve_exchange(move)
            self._do_exchange(seat, mv)
        self._moved(seat, mv)

    # -------------------------------------------------------------------- dealing
    def _start_hand(self, cards: list | None = None) -> None:
        """A new hand; ``cards``: the cards shuffled already (the first hand's, in C)."""
        r = self.rules
        self.hand_number += 1
        if cards is None:
            cards = deck(r.decks, r.jokers)
            shuffle(self._rng, cards)       # rng.shuffle, in C where it can be
        n = self.n
        # one card at a time round the table from the dealer: the k-th card dealt goes to seat
        # (dealer + k) % n, so seat s gets every n-th card from position (s - dealer) % n
        dealt = len(cards) if r.deal_count is None else min(len(cards), r.deal_count * n)
        hands: list[list[int]] = core.deal_hands(cards, n, self.dealer, dealt) if core.ACTIVE \
            else [sorted(cards[(s - self.dealer) % n:dealt:n]) for s in range(n)]
        undealt = cards[dealt:]
        self.hands = hands
        self._dealt(hands, undealt, hands_sorted=True)
        # the deal's record, unchanged through the hand: the cards nobody was dealt, how many
        # each seat was dealt (the exchange and the first player out are set as they happen)
        set_rare(self, undealt=undealt, dealt_counts=[len(h) for h in hands],
                 counts_at_first_out=None, exchange=None, exchanged=())
        self.order: list[int] = []
        self.trick: list[tuple[int, Combo | None]] = []
        self.tricks: list[list[tuple[int, Combo | None]]] = []
        self.won: list[list[int]] = [[] for _ in range(self.n)]   # cards of the tricks won
        self.last: Combo | None = None
        self.last_seat: int | None = None
        self.passes = 0
        leader = self._choose_leader(cards, dealt)
        # ``exchanged``: cards that changed hands in this hand's exchange, all face up: (from,
        # to, card), from/to None for the cards on offer in between (a tuple, replaced)
        if self.hand_number > 1 and self.rules.exchange and self._rare[PREV_ORDER]:
            self._begin_exchange(leader)
        else:
            self._begin_play(leader)

    def _choose_leader(self, cards: Sequence[int], dealt: int) -> int:
        """The seat to lead the hand; the first ``dealt`` of ``cards`` were dealt, in order."""
        r = self.rules
        how = r.first_leader if self.hand_number == 1 else r.later_leader
        if how == "dealer":
            return self.dealer
        if how.startswith("place:"):
            assert self.prev_order is not None   # a later hand: the last one's order is known
            return self.prev_order[int(how[6:])]
        if how == "random-card":
            first_seen: dict[int, int] = {}      # card -> the seat it was first dealt to
            for k in range(dealt):
                first_seen.setdefault(cards[k], (self.dealer + k) % self.n)
            # a card is drawn from the pack before the deal and put back; its holder leads
            drawn = self._rng.choice(deck(r.decks, r.jokers))
            self.events = self.events + [{"event": "drawn card", "card": CARD_TEXT[drawn]}]
            return first_seen[drawn]
        if how.startswith("holder:"):
            wanted = _HOLDER_CARD.get(how)
            if wanted is None:
                wanted = _HOLDER_CARD[how] = parse(how[7:])[0]
            dealt_cards = cards[:dealt]
            if wanted not in dealt_cards:
                # the card was not dealt: the holder of the lowest dealt card leads
                wanted = min(dealt_cards)
            # the seat its first dealt copy went to
            return (self.dealer + dealt_cards.index(wanted)) % self.n
        raise ValueError(f"unknown leader rule {how!r}")

    def _begin_play(self, leader: int) -> None:
        self.phase = PHASE_PLAY
        if self._rare[EXCHANGE] is not None:
            self.exchange = None
        self.to_act = self._next_with_cards(leader, include_self=True)

    # -------------------------------------------------------------------- exchange
    # the exchange of cards between hands (pagat's pits, Owen's offer): exchange.py
    def _begin_exchange(self, leader: int) -> None:
        exchange.begin(self, leader)

    def _exchange_moves(self) -> list[Move]:
        return exchange.moves(self)

    def _resolve_exchange(self, move: Move | str) -> Move:
        return exchange.resolve(self, move)

    def _do_exchange(self, seat: int, mv: Move) -> None:
        exchange.make(self, seat, mv)

    # ------------------------------------------------------------------------ play
    def _next_with_cards(self, seat: int, include_self: bool = False) -> int:
        n = self.n
        s = seat if include_self else (seat + 1) % n
        if self.hands[s]:
            return s
        for _ in range(n):
            if self.hands[s]:
                return s
            s = (s + 1) % n
        return seat  # pragma: no cover - a hand always ends before nobody holds cards

    def _resolve_step(self, move: Move | str) -> Move | None:
        """A ``choose`` or ``pick`` move checked (IllegalMove if it is not legal now), or None
        for any other move (``steps.resolve_step``)."""
        return resolve_step(self, move)

    def _do_step(self, mv: Move) -> None:
        """A step of the choice of a play: the seat to act stays."""
        if mv.kind == CHOOSE:
            self.choice = str(mv)
            self.picked = ()
        else:
            self.picked = tuple(sorted(self.picked + mv.cards))

    def _resolve_play(self, move: Move | str) -> Move:
        if isinstance(move, Move):
            if move.kind == PASS:
                return self._check_pass()
            if move.kind != PLAY or move.combo is None:
                raise IllegalMove(f"{move} is not a play; it is the {self.phase} phase")
            combo = move.combo
            self._check_held(move.cards)
            self._check_combo(combo)
            return move if move.family is not None else Move(PLAY, combo.cards, combo, None,
                                                              self.rules.family)
        text = str(move).strip()
        if text.lower() == "pass":
            return self._check_pass()
        cards, label = self._split_reading(text)
        if not cards:
            raise IllegalMove("no cards given; type cards like '7H 7S' or 'pass'")
        self._check_held(cards)
        readings = self.rules.family.combos(cards)
        if not readings:
            raise self._refuse(explain.not_combination(self.rules.family, cards))
        if label is not None:
            readings = [c for c in readings if c.label.lower() == label.lower()]
            if not readings:
                raise IllegalMove(f"{Cards(cards)} cannot be read as {label!r}")
        legal = [c for c in readings if self.last is None or c.beats(self.last)]
        if not legal:
            if self.last is not None:
                raise self._refuse(explain.not_beating(self.rules.family, readings, self.last))
            raise IllegalMove(f"{Cards(cards)} cannot be led")  # pragma: no cover
        return Move(PLAY, cards, legal[0], None, self.rules.family)

    def _split_reading(self, text: str) -> tuple[tuple, str | None]:
        """``"cards"`` or ``"cards as reading"``. Labels such as ``As`` (aces) look like cards
        and ``as`` is also the ace of spades, so the split is taken only when the part after
        the last ``as`` is a reading of the cards before it."""
        low = text.lower()
        cut = low.rfind(" as ")
        first_cut = cut
        while cut >= 0:
            label = text[cut + 4:].strip()
            try:
                cards = tuple(sorted(parse(text[:cut])))
            except NotationError:
                cards = None
            if cards and any(c.label.lower() == label.lower()
                             for c in self.rules.family.combos(cards)):
                return cards, label
            cut = low.rfind(" as ", 0, cut)
        try:
            return tuple(sorted(parse(text))), None
        except NotationError as e:
            if first_cut >= 0:
                try:
                    cards = tuple(sorted(parse(text[:first_cut])))
                except NotationError:
                    raise IllegalMove(str(e)) from None
                raise IllegalMove(f"{Cards(cards)} cannot be read as "
                                  f"{text[first_cut + 4:].strip()!r}") from None
            raise IllegalMove(str(e)) from None

    def _check_pass(self) -> Move:
        if self.last is None:
            raise self._refuse(Why("lead_must_play", {}))
        return PASS_MOVE

    def _check_held(self, cards: tuple) -> None:
        assert self.to_act is not None               # the play phase
        hand = list(self.hands[self.to_act])
        for c in cards:
            try:
                hand.remove(c)
            except ValueError:
                raise IllegalMove(f"seat {self.to_act} does not hold {CARD_TEXT[c]}"
                                  + (" (that many times)" if c in self.hands[self.to_act] else "")
                                  ) from None

    def _check_combo(self, combo: Combo) -> None:
        readings = self.rules.family.combos(combo.cards)
        if not any(r.label == combo.label and r.key == combo.key and r.cls == combo.cls
                   for r in readings):
            if not readings:
                raise self._refuse(explain.not_combination(self.rules.family, combo.cards))
            raise IllegalMove(f"{Cards(combo.cards)} cannot be played as {combo.describe()}")
        if self.last is not None and not combo.beats(self.last):
            raise self._refuse(explain.not_beating(self.rules.family, [combo], self.last))

    @staticmethod
    def _refuse(why) -> IllegalMove:
        """The refusal of a play for a rule of the game (``games/why.py``)."""
        return IllegalMove(why.text("en"), why=why)

    def _describe(self, combo: Combo) -> str:
        return f"{Cards(combo.cards)} ({combo.describe()})"

    def _do_play(self, seat: int, mv: Move) -> None:
        if self._grouping is not None:      # the choice in steps is over
            self._grouping = None
            self.choice = None
            self.picked = ()
        if mv.kind == PASS:
            self.trick.append((seat, None))
            self.passes += 1
            assert self.last_seat is not None         # a pass answers a play
            # seats holding cards, other than the last player's (a seat out of cards is in
            # ``order``, and only those)
            others = self.n - len(self.order) - (1 if self.hands[self.last_seat] else 0)
            if self.passes >= others:
                self._end_trick()
            else:
                self.to_act = self._next_with_cards(seat)
            return
        self.hands[seat] = hand = without(self.hands[seat], mv.cards)
        self.trick.append((seat, mv.combo))
        self.last = mv.combo
        self.last_seat = seat
        self.passes = 0
        if not hand:
            self.order = self.order + [seat]      # replaced, never changed: clones share it
            if self._rare[COUNTS_AT_FIRST_OUT] is None:
                set_rare(self, counts_at_first_out=[len(h) for h in self.hands])
            holding = [s for s in range(self.n) if self.hands[s]]
            if len(holding) <= 1:
                if not self.rules.finish_trick:
                    self.order = self.order + holding
                    self.tricks.append(self.trick)
                    self.trick = []
                    self._end_hand()
                    return
                if not holding:       # the last holder beat the trick with their last cards
                    self._end_trick()
                    return
        elif self.rules.finish_trick and \
                not any(self.hands[s] for s in range(self.n) if s != seat):
            self._end_trick()         # nobody is left to answer: the trick is complete
            return
        self.to_act = self._next_with_cards(seat)

    def _end_trick(self) -> None:
        winner = self.last_seat
        assert winner is not None                    # a trick ends with a play
        self.tricks.append(self.trick)
        won = list(self.won[winner])          # a new list: a clone may share the old one
        for _, combo in self.trick:
            if combo is not None:
                won.extend(combo.cards)
        self.won[winner] = won
        self.trick = []
        self.last = None
        self.passes = 0
        self.last_seat = None
        if self.n - len(self.order) <= 1:   # only reached when the rules finish the trick
            holding = [s for s in range(self.n) if self.hands[s]]
            self.order = self.order + [s for s in holding if s not in self.order]
            self._end_hand()
            return
        self.to_act = self._next_with_cards(winner, include_self=True)

    # --------------------------------------------------------------------- scoring
    def _end_hand(self) -> None:
        r = self._rare
        points, team_points = score_hand(self.rules, self.order, r[COUNTS_AT_FIRST_OUT],
                                         r[DEALT_COUNTS], self.won, self.hands)
        # scores, totals, history, events: replaced, never changed in place (clones share them),
        # the first three in the record of rare attributes (set at once: rare.py)
        scores = [a + b for a, b in zip(r[SCORES], points)]
        summary = {"hand": self.hand_number, "order": list(self.order), "points": points,
                   "scores": list(scores)}
        if self.rules.teams:
            assert team_points is not None
            totals = [a + b for a, b in zip(r[TEAM_TOTALS], team_points)]
            summary["team_points"] = team_points
            summary["team_scores"] = list(totals)
            set_rare(self, team_totals=totals)
        set_rare(self, scores=scores, history=self.history + [summary],
                 prev_order=list(self.order))
        self.events = self.events + [{"event": "hand over", **summary}]
        match = r[MATCH]
        winner = self._match_winner() if match else None
        if not match or winner is not None:
            self.phase = PHASE_OVER
            self.over = True
            self.to_act = None
            self.result = self._final_result(summary, winner)
            return
        nd = self.rules.next_dealer
        self.dealer = self.order[int(nd[6:])] if nd.startswith("place:") else self.dealer
        self._start_hand()

    def team_scores(self) -> list[int] | None:
        if not self.rules.teams:
            return None
        return list(self.team_totals)

    def _match_winner(self):
        """The winning seat (or team index), or None to play on."""
        r = self.rules
        totals = self.team_scores() if r.teams else self.scores
        done = False
        if r.target is not None and max(totals) >= r.target:
            done = True
        if r.max_hands is not None and self.hand_number >= r.max_hands:
            done = True
        if not done:
            return None
        best = max(totals)
        leaders = [i for i, t in enumerate(totals) if t == best]
        if len(leaders) > 1:
            return None  # a tie plays another hand
        return leaders[0]

    def _final_result(self, summary: dict, winner) -> dict:
        res = {"order": list(self.order), "points": summary["points"],
               "scores": list(self.scores), "hands": self.hand_number}
        if self.rules.teams:
            res["team_scores"] = self.team_scores()
            res["teams"] = [list(t) for t in self.rules.teams]
        if self.match:
            if self.rules.teams:
                res["winning_team"] = winner
                res["winners"] = list(self.rules.teams[winner])
            else:
                res["winner"] = winner
                res["winners"] = [winner]
        elif self.rules.scoring == "trick-points":   # one hand of a point game: most points
            pts = summary["points"]
            best = max(pts)
            res["winners"] = [s for s in range(self.n) if pts[s] == best]
            res["winner"] = res["winners"][0] if len(res["winners"]) == 1 else None
        else:
            res["winner"] = self.order[0]
            if self.rules.teams:
                tp = summary["team_points"]
                res["team_points"] = tp
        return res

    # ----------------------------------------------------------------------- views
    def view(self, seat: int) -> dict[str, Any]:
        """What ``seat`` may know: its own hand, public counts, plays and exchanged cards."""
        if not 0 <= seat < self.n:
            raise ValueError(f"no seat {seat} at a table of {self.n}")
        v: dict[str, Any] = {
            "game": self.rules.name, "players": self.n, "seat": seat, "phase": self.phase,
            "options": dict(self.rules.options),
            "hand_number": self.hand_number, "dealer": self.dealer, "to_act": self.to_act,
            "hand": [CARD_TEXT[c] for c in self.hands[seat]],
            "counts": [len(h) for h in self.hands],
            "trick": [[s, "pass" if c is None else _play_text(c)] for s, c in self.trick],
            "last": None if self.last is None else {
                "seat": self.last_seat, "cards": _play_text(self.last),
                "kind": self.last.kind, "reading": self.last.label},
            "passed": self._passed_since_last_play(),
            "played": [list(map(list, t)) for t in self._played_texts()],
            "finished": list(self.order),
            "scores": list(self.scores),
            "target": self.rules.target,
            "previous_order": list(self.prev_order) if self.prev_order else None,
            "exchanged": self._exchanged_for(seat),
        }
        if self.rules.teams:
            v["teams"] = [list(t) for t in self.rules.teams]
            v["team_scores"] = self.team_scores()
        if self.rules.scoring == "trick-points":
            points = cast(PointFamily, self.rules.family).points   # a point game's family
            v["won_points"] = [points(w) for w in self.won]     # tricks taken are public
            v["table_points"] = sum(points(c.cards) for _, c in self.trick if c is not None)
        if self.exchange is not None:
            ex = self.exchange
            pub = {"kind": ex["kind"], "step": ex["step"]}
            if ex["kind"] == "pits":
                pub.update(givers=ex["givers"], takers=ex["takers"],
                           shown=[CARD_TEXT[c] for c in ex["shown"]],
                           discards=[CARD_TEXT[c] for c in ex["discards"]])
            else:
                pub.update(giver=ex["giver"], taker=ex["taker"],
                           offered=[CARD_TEXT[c] for c in ex.get("pool", [])]
                           if ex["step"] == "take" else [])
            v["exchange"] = pub
        if self.result is not None:
            v["result"] = self.result
        v["history"] = [dict(h) for h in self.history]
        if seat == self.to_act:
            v["legal_moves"] = [str(m) for m in self.legal_moves()]
            if self.choice is not None:
                v["choice"] = self.choice
                v["picked"] = [CARD_TEXT[c] for c in self.picked]
        return v

    def _played_texts(self) -> list:
        """(seat, text) of every finished trick of this hand; a trick's texts are made once
        (finished tricks never change), so a view costs little late in a hand."""
        memo = self._memos()
        got = memo[0]
        cache: list
        if got is None or got[0] is not self.tricks:   # a new hand (a new list of tricks)
            cache = []
            memo[0] = (self.tricks, cache)
        else:
            cache = got[1]
        for t in self.tricks[len(cache):]:
            cache.append([(s, "pass" if c is None else _play_text(c)) for s, c in t])
        return cache

    def _passed_since_last_play(self) -> list[int]:
        """Seats that passed after the last play of the current trick (sorted)."""
        passed = set()
        for s, c in reversed(self.trick):
            if c is not None:
                break
            passed.add(s)
        return sorted(passed)

    def _exchanged_for(self, seat: int) -> list:
        """This hand's exchange as every seat saw it: every exchange is played face up (the
        pits exchange of seed 000; the give-and-offer exchange of seed 001, whose cards are
        shown to everyone: see docs/rules/zheng-shangyou.md)."""
        return [[a, b, CARD_TEXT[c]] for a, b, c in self.exchanged]

    # ------------------------------------------------------------------ equality
    def snapshot(self) -> dict:
        """The whole state as plain data (for equality and debugging; not a view)."""
        return {"hands": [list(h) for h in self.hands], "phase": self.phase,
                "to_act": self.to_act, "scores": list(self.scores),
                "teams": self.team_scores(), "order": list(self.order),
                "hand_number": self.hand_number, "dealer": self.dealer,
                "trick": [(s, None if c is None else (c.cards, c.label)) for s, c in self.trick],
                "won": [sorted(w) for w in self.won],
                "tricks": len(self.tricks), "result": self.result,
                "history": self.history, "undealt": list(self.undealt),
                "moves": [(s, str(m)) for s, m in self.moves],
                **({"choice": self.choice, "picked": list(self.picked)}
                   if self.choice is not None else {})}


# Every attribute name a game's __dict__ may hold, in one order. CPython (3.11) keeps the
# attributes of a class's instances in one key table shared by all of them (8 bytes a value an
# instance) only for the names the table holds, at most 30, and lets the table take a new name
# less and less readily as instances are made: a name first set late in a process (a choice in
# steps, say, after thousands of clones) makes that instance's dict a full one of its own
# (1.6 KB). So the names go into the table now, once, before any game exists.
# The slots hold the rest (``ClimbingGame.__slots__``).
INSTANCE_KEYS = (
    "_rare", "_rng_obj", "deals", "hand_number", "_log_chunks", "events", "_legal", "_token",
    "dealer", "_memo", "_plays")
_probe = object.__new__(ClimbingGame)
for _name in INSTANCE_KEYS:
    object.__setattr__(_probe, _name, None)
del _probe, _name
# (slot, copied as a flat list?) for ClimbingGame.clone: a slot in CLONE_FLAT gets a new list
# of the same items; every other is shared (numbers, strings, None, and values replaced,
# never changed in place: see CLONE_SHARED)
_SLOT_COPY = tuple((ClimbingGame.__dict__[name], name in ClimbingGame.CLONE_FLAT)
                   for name in ClimbingGame.__slots__)

# legal_moves and apply without their Python frames where the core is built (the Python
# methods above stay the reference: _legal_moves_py, _apply_py)
core.install_methods(ClimbingGame, LISTING_LIMIT, STEP_LIMIT)


def _play_text(combo: Combo) -> str:
    text = _TEXTS.get(combo.cards)
    if text is None:
        text = " ".join([CARD_TEXT[c] for c in combo.cards])
        if len(_TEXTS) < 100_000:
            _TEXTS[combo.cards] = text
    return text


_TEXTS: dict[tuple, str] = {}     # the notation of a play's cards, memoised
_HOLDER_CARD: dict[str, int] = {}  # "holder:<card>" -> the card (a rule's text, memoised)
