"""What every game's state machine shares: seed and log, replay equality, clone, public view.

A game subclasses :class:`GameBase`, calls ``super().__init__`` and implements ``view(seat)``,
``snapshot()``, ``legal_moves()`` and ``apply()``; ``PRIVATE_VIEW_KEYS`` names the view keys
that belong to one seat only (``public_view`` drops them).
"""

from __future__ import annotations

import copy
import random
from typing import Any

from ..errors import IllegalMove

LOG_FORMAT = "shangyou-log/1"


class GameBase:
    PRIVATE_VIEW_KEYS: tuple[str, ...] = ("hand", "legal_moves")

    def __init__(self, rules, seed: int | None, match: bool):
        self.rules = rules
        self.n = rules.players
        self.seed = seed if seed is not None else random.randrange(2**31)
        self.match = match
        self._rng = random.Random(self.seed)
        self.hand_number = 0
        self.history: list[dict] = []          # summaries of finished hands
        self.moves: list[tuple[int, Any]] = []  # the log: (seat, move)
        self.events: list[dict] = []           # what happened, for the UI and the log
        self.result: dict | None = None
        self._legal: list | None = None        # moves listed for the current state
        self._token: object | None = None      # identifies them (see ``apply``'s fast path)

    def _check_turn(self, seat: int | None) -> int:
        """The seat to act; IllegalMove if the game is over or ``seat`` is not that seat."""
        if self.over:
            raise IllegalMove("the game is over")
        if seat is not None and seat != self.to_act:
            raise IllegalMove(f"it is seat {self.to_act}'s turn, not seat {seat}'s")
        return self.to_act

    def _listed(self, move) -> bool:
        """Is ``move`` one of the moves just listed for this state (so known legal)?"""
        return self._legal is not None and getattr(move, "token", None) is self._token

    def _moved(self, seat: int, move) -> None:
        """Record a move made and forget the moves listed for the previous state."""
        self.moves.append((seat, move))
        self._legal = None
        self._token = None

    @property
    def log(self) -> dict:
        """The JSON log: seed, options and moves rebuild the game (``shangyou.replay``)."""
        return {"format": LOG_FORMAT, "game": self.rules.name, "players": self.n,
                "seed": self.seed, "match": self.match, "options": dict(self.rules.options),
                "moves": [[s, str(m)] for s, m in self.moves]}

    def snapshot(self) -> dict:  # pragma: no cover - abstract
        raise NotImplementedError

    def view(self, seat: int) -> dict[str, Any]:  # pragma: no cover - abstract
        raise NotImplementedError

    def public_view(self) -> dict[str, Any]:
        """What a spectator may know: a seat's view without any seat's private cards."""
        v = self.view(0)
        for key in self.PRIVATE_VIEW_KEYS:
            v.pop(key, None)
        v["seat"] = None
        return v

    def __eq__(self, other) -> bool:
        return type(other) is type(self) and self.rules.name == other.rules.name and \
            self.snapshot() == other.snapshot()

    __hash__ = None  # mutable

    def clone(self):
        return copy.deepcopy(self)
