"""The greedy playout policy of the climbing search, on the engine's move objects: the fallback
of :class:`~shangyou.bots.climbing_playout.PlanPolicy` for families without a plan shape, and
the search's "fast" playout policy."""

from __future__ import annotations

from ..engine.moves import PASS

__all__ = ["fast_policy"]


def fast_policy(g, rng, team_of):
    """A greedy move on the engine's move objects (no text, no views): lead the lowest card
    in its largest play, follow with the cheapest play that beats, keep wild/top cards while the
    hand is long, never beat a partner; when an opponent holds two cards or fewer, follow with
    the highest play and lead no play of their size."""
    moves = g.all_moves()
    if len(moves) == 1:
        return moves[0]
    fam = g.rules.family
    precious = fam.precious
    seat = g.to_act
    hand_size = len(g.hands[seat])
    leading = moves[0].kind != PASS
    counts = [len(h) for h in g.hands]
    mine = team_of.get(seat, seat) if team_of else seat
    # the fewest cards an opponent holds: near the end, stop them rather than save cards
    close = min((k for s, k in enumerate(counts)
                 if k and s != seat and (team_of.get(s, s) if team_of else s) != mine),
                default=99)
    if not leading:
        last = g.last_seat
        if team_of and last is not None and team_of.get(last) == team_of.get(seat):
            return moves[0]
    best = None
    best_cost = None
    for m in moves:
        if m.kind == PASS:
            continue
        cards = m.cards
        if len(cards) == hand_size:
            return m
        spent = 0
        for c in cards:
            if precious(c):
                spent += 1
        tier = m.combo.tier
        if leading:
            # a play of the size the closest opponent holds lets them go out
            cost = (len(cards) == close, spent, tier, cards[0], -len(cards))
        elif close <= 2:
            cost = (0, 0, 0, -cards[-1], cards[0])     # the highest: hardest to beat
        else:
            cost = (0, spent, tier, cards[-1], cards[0])
        if best_cost is None or cost < best_cost:
            best_cost, best = cost, m
    if best is None:
        return moves[0]
    if not leading and close > 2 and (best_cost[1] or best_cost[2]) and \
            hand_size - len(best.cards) > 3:
        return moves[0]        # pass rather than spend wild cards or a bomb early
    return best

