"""A cheap seat view for machines: what ``view(seat)`` tells a seat, as card codes and numbers.

``ClimbingGame.view(seat)`` is a JSON-ready dict for people and remote clients: card texts, the
texts of every legal move and of every trick, the score history. A learning environment needs
the same facts, but as numbers, at every step. :meth:`CompactView.compact_view` gives them
without building any text. It holds only what the seat may know (its own hand and the public
table), like ``view``; ``tests/test_env.py`` checks that the environment's observations built
from it equal the ones built from ``view`` over many random positions of every preset.
"""

from __future__ import annotations

from typing import Any

_NO_CARDS = bytes(54)


class CompactView:
    """Mixed into :class:`~shangyou.games.climbing.game.ClimbingGame`."""

    def compact_view(self, seat: int) -> dict[str, Any]:
        """The seat's knowledge as numbers (card codes, seat numbers; see ``cards.py``):

        ``seat``, ``phase``, ``hand_number``, ``hand`` (the seat's cards, a sorted tuple),
        ``counts`` (cards held per seat), ``played`` (54 bytes: copies of each card played
        this hand, the current trick included), ``last`` (cards of the play to beat, or None),
        ``last_seat``, ``passed`` (seats that passed since the last play), ``finished`` (seats
        out, in order), ``teams`` (tuple of seat tuples, or None), ``won_points`` and
        ``table_points`` (point games, else None and 0) and ``exchange`` (None, or its
        ``step``, ``givers``, ``takers`` and the face-up cards ``shown``)."""
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
        cache = self.__dict__.get("_played_counts_cache")
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
        rules = self.rules
        ex = self.exchange
        cv = {"seat": seat, "phase": self.phase, "hand_number": self.hand_number,
              "hand": tuple(self.hands[seat]), "counts": list(map(len, self.hands)),
              "played": played, "last": None if last is None else last.cards,
              "last_seat": self.last_seat, "passed": passed, "finished": tuple(self.order),
              "teams": rules.teams, "won_points": None, "table_points": 0,
              "exchange": None if ex is None else self._public_exchange(ex)}
        if rules.scoring == "trick-points":
            points = rules.family.points
            cv["won_points"] = [points(w) for w in self.won]
            cv["table_points"] = sum(points(c.cards) for _, c in trick if c is not None)
        return cv

    @staticmethod
    def _public_exchange(ex: dict) -> dict:
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
        owner, done, counts = self.__dict__.get("_played_counts_cache", (None, 0, _NO_CARDS))
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
        self._played_counts_cache = (tricks, done, counts)
        return counts
