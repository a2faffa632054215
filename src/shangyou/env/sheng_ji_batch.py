"""The Sheng ji side of :class:`~shangyou.env.batch_engine.BatchEngine`: which presets the C
engine (``games/sheng_ji/_core_batch.c``) plays, the numbers it is built from, and the hand
result it gives back as ``ShengJiGame.result``.

The engine plays a whole hand in C, every phase: the deal with its bids, the bury (and the
rounds of kitty theft), Zhao Pengyou's calls of friends, and the play (throws, follows, the
cards picked one at a time past 400 follows, the friends shown as the called cards fall). It
takes ``sheng-ji`` (4 and 6 players, 1 to 4 packs), ``sheng-ji/single-deck`` and
``sheng-ji/zhao-pengyou`` (5 to 7 players) with every option; :func:`config` answers None only
for a hand too big for its buffers (more than 160 cards held at once: a kitty of hundreds).
"""

from __future__ import annotations

import os
from typing import Any

from ..cards import Cards
from ..games.sheng_ji import core as sj_core
from ..games.sheng_ji.order import LEVELS, SJ_RANK, red_five_code
from ..games.sheng_ji.scoring import level_change
from .encoding import CAND_WIDTH
from .sheng_ji_encoding import ShengJiEncoder

Batch: Any = getattr(sj_core._core, "Batch", None) if sj_core.AVAILABLE else None

_NO_BID = {"kitty-card": 0, "no-trump": 1, "redeal": 2}
ACE_RANK = 11


def available() -> bool:
    return Batch is not None and sj_core.ACTIVE and not os.environ.get("SHANGYOU_NO_C")


def config(name: str, rules) -> dict | None:
    """The engine's numbers for a Sheng ji rulebook, or None where it does not play it."""
    n = rules.players
    parity = (tuple(range(0, n, 2)), tuple(range(1, n, 2)))
    if rules.teams is None:            # Zhao Pengyou: the declarer and the friends it calls
        sides_ok = 1 <= rules.friends <= n // 2 and rules.friends < 4
    else:                              # fixed partnerships: every other seat
        sides_ok = not rules.friends and tuple(map(tuple, rules.teams)) == parity
    if (not available() or not sides_ok or not 4 <= n <= 8
            or not 1 <= rules.decks <= 4 or rules.no_bid not in _NO_BID):
        return None
    if (54 * rules.decks - rules.kitty) // n + rules.kitty > 160:
        return None
    must = 0
    for r in rules.must_play:
        must |= 1 << r
    numbers = (rules.decks, rules.kitty, rules.start_level,
               red_five_code(rules.red_five, rules.red_five_gap), rules.throw_penalty,
               _NO_BID[rules.no_bid], int(rules.kitty_multiplier == "linear"),
               int(rules.jack_hook), must, rules.friends, int(rules.kitty_theft))
    return {"preset": name, "players": n, "sheng_ji": True, "numbers": numbers,
            "decks": rules.decks, "start_level": rules.start_level,
            "zhao_pengyou": rules.teams is None}


def layout(enc: ShengJiEncoder) -> tuple:
    o = enc.offsets
    return tuple(o[k] for k in (
        "hand", "played", "trick", "lead", "pending", "buried", "bid_cards", "counts",
        "trick_order", "declarer", "bidder", "friends", "partners", "points_won", "levels", "level",
        "trump_suit", "phase", "opponents_points", "penalty_points", "page",
        "candidates")) + (CAND_WIDTH, enc.size)


def _level(rank: int) -> str:
    return LEVELS[SJ_RANK[rank]]


def result(eng, cfg: dict, i: int) -> dict:
    """``ShengJiGame.result`` of row ``i``'s finished hand (one hand, no match)."""
    got = eng.hand(i)
    if got is None:
        raise ValueError(f"the hand of game {i} is not over")
    (declarer, suit, won, kitty_pts, mult, penalty, total, side_decl, _, level, after, hook,
     kitty, _, friends) = got
    n = cfg["players"]
    if cfg["zhao_pengyou"]:
        decl = [s for s in range(n) if s == declarer or s in friends]
    else:
        decl = [s for s in range(n) if s % 2 == declarer % 2]
    opp = [s for s in range(n) if s not in decl]
    change = level_change(total, cfg["decks"])
    trump = _level(level) + ("" if suit < 0 else "DCHS"[suit])
    summary = {"hand": 1, "declarer": declarer, "trump": trump, "declarers": decl,
               "opponents": opp, "points": won, "kitty_points": kitty_pts,
               "kitty_multiplier": mult, "kitty_bonus": kitty_pts * mult, "penalty": penalty,
               "total": total, "change": change,
               "levels_before": [_level(cfg["start_level"])] * n,
               "levels": [_level(x) for x in after], "kitty": str(Cards(sorted(kitty))),
               "friends": list(friends)}
    won_game = change["side"] == "declarers" and level == ACE_RANK and not hook
    res: dict[str, Any] = {"hands": 1, "levels": summary["levels"], "last": summary,
                           "winners": sorted(decl) if change["side"] == "declarers"
                           else sorted(opp)}
    if won_game:
        res["match_winners"] = sorted(decl)
    return res
