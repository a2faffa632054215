"""The end of a Sheng ji hand (``ShengJiGame._end_hand``): the opponents' points, the kitty
and its multiplier, the penalty, the level change and the levels, the summary (``history``,
the "hand over" event), the next declarer, and the result when the game is over.

This is the reference; ``_core_ends.c`` (``core.end_hand``) does the same in C where the core
is on (docs/core-sheng-ji.md), and ``tests/test_sheng_ji_ends_core.py`` compares them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...cards import Cards
from .order import LEVELS, SJ_RANK, Unit
from .scoring import level_change, next_level, points
from .tricks import kitty_multiplier

if TYPE_CHECKING:
    from .game import ShengJiGame

OVER = "over"
ACE_RANK = 11


def end_hand(self: ShengJiGame, last_winner: int, last_units: list[Unit],
             winning_play: tuple) -> None:
    r = self.rules
    t = self._fixed_trump()
    declarer = self.declarer
    assert declarer is not None, "a hand is played once its declarer is known"
    decl, opp = self._sides()
    won = sum(points(self.won[s]) for s in opp)
    kitty_pts = points(self.kitty)
    bonus = 0
    mult = 0
    if last_winner in opp and kitty_pts:
        mult = kitty_multiplier(t, last_units, r.kitty_multiplier)
        bonus = kitty_pts * mult
    total = won + bonus + self.penalty_points
    change = level_change(total, r.decks)
    old_levels = list(self.levels)
    hook = False
    if r.jack_hook and last_winner in opp:
        lvl = self.level_rank
        if lvl in (8, ACE_RANK) and all(len(cs) == 1 and (cs[0] >> 2) == lvl
                                        for cs in [winning_play]):
            hook = True
    if change["side"] == "declarers":
        for s in decl:
            self.levels[s] = next_level(self.levels[s], change["levels"], r.must_play)
    else:
        for s in opp:
            self.levels[s] = next_level(self.levels[s], change["levels"], r.must_play)
    if hook:   # J hooks the declarers back to 2, A (the "needle") back to J
        back = 12 if self.level_rank == 8 else 8
        for s in decl:
            self.levels[s] = back
        self._event({"event": "hook", "back_to": LEVELS[SJ_RANK[back]]})
    won_game = change["side"] == "declarers" and self.level_rank == ACE_RANK and not hook
    winners_side = decl if change["side"] == "declarers" else opp
    summary = {"hand": self.hand_number, "declarer": self.declarer, "trump": str(t),
               "declarers": decl, "opponents": opp, "points": won,
               "kitty_points": kitty_pts, "kitty_multiplier": mult, "kitty_bonus": bonus,
               "penalty": self.penalty_points, "total": total, "change": change,
               "levels_before": [LEVELS[SJ_RANK[x]] for x in old_levels],
               "levels": [LEVELS[SJ_RANK[x]] for x in self.levels],
               "kitty": str(Cards(self.kitty)), "friends": list(self.friends)}
    self.history = self.history + [summary]     # (replaced: clones share the list)
    self._event({"event": "hand over", **summary})
    # next declarer: the next seat after the declarer on the winning side
    nxt = declarer
    for i in range(1, self.n + 1):
        s = (declarer + i) % self.n
        if s in winners_side:
            nxt = s
            break
    if not self.match or won_game:
        self.phase = OVER
        self.over = True
        self.to_act = None
        self.result = {"hands": self.hand_number, "levels": summary["levels"],
                       "last": summary,
                       "winners": sorted(decl) if won_game or change["side"] == "declarers"
                       else sorted(opp)}
        if won_game:
            self.result["match_winners"] = sorted(decl)
        return
    self.declarer = nxt
    self._start_hand()
