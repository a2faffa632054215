"""A cheap seat view for machines: what ``view(seat)`` tells a seat, as card codes and numbers.

``ClimbingGame.view(seat)`` is a JSON-ready dict for people and remote clients: card texts, the
texts of every legal move and of every trick, the score history. A learning environment needs
the same facts, but as numbers, at every step. :meth:`CompactView.compact_view` gives them
without building any text. It holds only what the seat may know (its own hand and the public
table), like ``view``; ``tests/test_env.py`` checks that the environment's observations built
from it equal the ones built from ``view`` over many random positions of every preset.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from .combo import Combo
    from .family import PointFamily
    from .game import Rulebook

_NO_CARDS = bytes(54)


class CompactView:
    """Mixed into :class:`~shangyou.games.climbing.game.ClimbingGame`."""

    # the game's state that a compact view reads (set by ClimbingGame)
    n: int
    rules: Rulebook
    phase: str
    hands: list[list[int]]
    trick: list[tuple[int, Combo | None]]
    tricks: list[list[tuple[int, Combo | None]]]
    last: Combo | None
    last_seat: int | None
    order: list[int]
    won: list[list[int]]
    exchange: dict[str, Any] | None

    #: the fields of :meth:`compact_view`, in order
    COMPACT_FIELDS = ("seat", "phase", "hand", "counts", "played", "last", "last_seat",
                      "passed", "finished", "teams", "won_points", "table_points", "exchange")

    def _memos(self) -> list:
        """The memo of derived facts the views keep (one attribute, made on first use; a clone
        leaves it out): [the texts of the finished tricks (``ClimbingGame._played_texts``),
        the cards played now, the cards of the finished tricks (``_played_counts``)]."""
        memo = self.__dict__.get("_memo")
        if memo is None:
            memo = self._memo = [None, None, None]
        return memo

    def compact_view(self, seat: int) -> tuple:
        """The seat's knowledge as numbers (card codes and seat numbers, see ``cards.py``): a
        tuple in the order of ``COMPACT_FIELDS`` (a tuple, not a dict: it is made at every step
        of a learning environment). ``dict(zip(g.COMPACT_FIELDS, g.compact_view(s)))`` reads it.

        ``seat``; ``phase``; ``hand``: the seat's cards (a sorted tuple); ``counts``: cards
        held per seat; ``played``: 54 bytes, the copies of each card played this hand, the
        current trick included; ``last``: the cards of the play to beat, or None; ``last_seat``;
        ``passed``: seats that passed since the last play; ``finished``: seats out, in order;
        ``teams``: a tuple of seat tuples, or None; ``won_points`` and ``table_points``: card
        points taken and on the table (point games; else None and 0); ``exchange``: None, or a
        dict of its ``step``, ``givers``, ``takers`` and the face-up cards ``shown``."""
        if not 0 <= seat < self.n:
            raise ValueError(f"no seat {seat} at a table of {self.n}")
        trick = self.trick
        last = self.last
        passed = []
        if last is not None and trick and trick[-1][1] is None:
            for s, c in reversed(trick):
                if c is not None:
                    break
                passed.append(s)
        tricks = self.tricks
        # the cards played, current trick included, change only with a play: kept for the
        # passes that follow (same list of tricks, as many finished tricks, same play to beat;
        # a trick never holds the same play object twice, since each play beats the last)
        memo = self._memos()
        now = memo[1]
        if now is not None and now[0] is tricks and now[1] == len(tricks) and now[2] is last:
            played = now[3]
        else:
            cache = memo[2]
            if cache is not None and cache[0] is tricks and cache[1] == len(tricks):
                played = cache[2]
            else:
                played = self._played_counts()
            if trick:
                played = bytearray(played)
                for _, c in trick:
                    if c is not None:
                        for card in c.cards:
                            played[card] += 1
                played = bytes(played)
            memo[1] = (tricks, len(tricks), last, played)
        rules = self.rules
        ex = self.exchange
        won, table = None, 0
        if rules.scoring == "trick-points":
            points = cast("PointFamily", rules.family).points   # a point game's family
            won = [points(w) for w in self.won]
            table = sum(points(c.cards) for _, c in trick if c is not None)
        return (seat, self.phase, tuple(self.hands[seat]), list(map(len, self.hands)), played,
                None if last is None else last.cards, self.last_seat, passed,
                tuple(self.order), rules.teams, won, table,
                None if ex is None else self._public_exchange(ex))

    @staticmethod
    def _public_exchange(ex: dict[str, Any]) -> dict[str, Any]:
        if ex["kind"] == "pits":
            givers, takers = tuple(ex["givers"]), tuple(ex["takers"])
            shown = tuple(ex["shown"]) + tuple(ex["discards"])
        else:
            givers, takers = (ex["giver"],), (ex["taker"],)
            shown = tuple(ex.get("pool", ())) if ex["step"] == "take" else ()
        return {"step": ex["step"], "givers": givers, "takers": takers, "shown": shown}

    def _played_counts(self) -> bytes:
        """Copies of each card in this hand's finished tricks; a trick is counted once (finished
        tricks never change), so the cost per call does not grow with the hand."""
        memo = self._memos()
        owner, done, counts = memo[2] or (None, 0, _NO_CARDS)
        tricks = self.tricks
        if owner is not tricks:               # a new hand (a new list of tricks) began
            done, counts = 0, _NO_CARDS
        if done < len(tricks):
            acc = bytearray(counts)
            for t in tricks[done:]:
                for _, c in t:
                    if c is not None:
                        for card in c.cards:
                            acc[card] += 1
            counts = bytes(acc)
            done = len(tricks)
        memo[2] = (tricks, done, counts)
        return counts
