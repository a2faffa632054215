"""Finished matches step by step, for the replay page (``GET /api/matches/{id}/step/{k}``).

Only finished matches are replayed (their logs, seed included, are public then). A few recently
viewed matches keep a game positioned at the last step asked for, so stepping forward costs one
move; stepping back replays the log from the deal (about 0.1 ms a move).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any, overload

import shangyou


class ReplayEntry:
    def __init__(self, log: dict):
        self.log = log
        self.lock = threading.Lock()
        self.game: Any = None              # the match after the first ``pos`` moves
        self.pos = 0
        self.deals: list | None = None        # the published record of every deal
        self.verified: dict | None = None     # the server's check of the published log

    def fresh(self):
        log = self.log
        return shangyou.new_match(log["game"], players=log["players"], seed=log["seed"],
                                  **(log.get("options") or {}))

    def build(self, k: int, build):
        """``build(game)`` with the game after the first ``k`` moves (see
        :func:`views.replay_step`)."""
        with self.lock:
            return build(self.at(k))

    def at(self, k: int):
        """The game after the first ``k`` moves (call with ``lock`` held; do not keep it)."""
        if self.game is None or k < self.pos:
            self.game, self.pos = self.fresh(), 0
        moves = self.log["moves"]
        while self.pos < k:
            self.game.apply(moves[self.pos][1])
            self.pos += 1
        return self.game


class ReplayCache:
    def __init__(self, size: int = 16):
        self.size = size
        self._lock = threading.Lock()
        self._entries: OrderedDict[str, ReplayEntry] = OrderedDict()

    @overload
    def entry(self, match_id: str) -> ReplayEntry | None: ...

    @overload
    def entry(self, match_id: str, log: dict) -> ReplayEntry: ...

    def entry(self, match_id: str, log: dict | None = None) -> ReplayEntry | None:
        """The match's entry: the one kept, else (with ``log``) a new one, else None."""
        with self._lock:
            e = self._entries.get(match_id)
            if e is None and log is not None:
                e = self._entries[match_id] = ReplayEntry(log)
                while len(self._entries) > self.size:
                    self._entries.popitem(last=False)
            if e is not None:
                self._entries.move_to_end(match_id)
            return e
