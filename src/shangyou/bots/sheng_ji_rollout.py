"""The rollout policy of the Sheng ji search (:mod:`shangyou.bots.sheng_ji_search`).

It plays inside a sampled world with that world's perfect information (building a view per
rollout move would cost more than the move). :func:`fast_play` builds the common plays (any
lead, a follow to a single or a pair) straight from the acting seat's hand, on a game or on the
search's bare :class:`~shangyou.bots.sheng_ji_search.Sim`; :func:`policy` chooses among
``legal_moves()`` for the other follows. The rules of thumb are in the search's module
docstring.
"""

from __future__ import annotations

from collections import Counter

from ..cards import BJ_CODE
from ..games.sheng_ji.order import TRUMP
from ..games.sheng_ji.tricks import trick_winner

#: the card points of each card code (5s: 5, 10s and kings: 10)
PTS = [({2: 5, 7: 10, 10: 10}.get(c >> 2, 0) if c < BJ_CODE else 0) for c in range(54)]


def simple_winner(plays, suit_of, pos) -> int:
    """:func:`trick_winner` for a lead of one single or one pair (sorted plays)."""
    lead = plays[0]
    suit = suit_of[lead[0]]
    pair = len(lead) == 2
    best, key = 0, (suit == TRUMP, pos[lead[0]])
    for i in range(1, len(plays)):
        cs = plays[i]
        c = cs[0]
        if pair and cs[1] != c:
            continue
        sc = suit_of[c]
        if sc != suit and sc != TRUMP:
            continue
        k = (sc == TRUMP, pos[c])
        if k > key:
            best, key = i, k
    return best


def fast_play(g, rng):
    t = g.trump
    suit_of, pos, is_trump = tables(t)
    seat = g.to_act
    hand = g.hands[seat]
    if not g.trick:
        return _fast_lead(g, hand, suit_of, pos, rng)
    plays = [cs for _, cs in g.trick]
    lead = plays[0]
    n = len(lead)
    if n > 2 or (n == 2 and lead[0] != lead[1]):
        return None
    suit = suit_of[lead[0]]
    mine = [c for c in hand if suit_of[c] == suit]
    w = simple_winner(plays, suit_of, pos)
    b = plays[w][0]
    best_key = (suit_of[b] == TRUMP, pos[b]) if all(x == b for x in plays[w]) else (True, 99)
    last = len(plays) == g.n - 1
    mate_wins = _team(g, g.trick[w][0], seat) and (
        last or not _can_beat(g, seat, len(plays), suit, n, best_key, suit_of, pos))
    table = sum(PTS[c] for cs in plays for c in cs)

    def beats(c):
        return (suit_of[c] == suit or suit_of[c] == TRUMP) and \
            (suit_of[c] == TRUMP, pos[c]) > best_key

    def cheap(c):
        return (is_trump[c] and suit != TRUMP, PTS[c], pos[c])

    if len(mine) > n:                       # must follow in the suit
        if n == 1:
            opts = sorted(set(mine), key=cheap)
            if mate_wins:
                return (max(opts, key=lambda c: (PTS[c], -pos[c])),)
            c = _take(g, seat, plays, suit, 1, opts, beats, last, table, suit_of, pos)
            if c is not None:
                return (c,)
            return (opts[0],)
        cnt = Counter(mine)
        pairs = sorted((c for c, k in cnt.items() if k >= 2), key=cheap)
        if pairs:
            if mate_wins:
                return (max(pairs, key=lambda c: (PTS[c], -pos[c])),) * 2
            c = _take(g, seat, plays, suit, 2, pairs, beats, last, table, suit_of, pos)
            if c is not None:
                return (c, c)
            return (pairs[0], pairs[0])
        opts = sorted(mine, key=cheap)
        if mate_wins:
            opts = sorted(mine, key=lambda c: (-PTS[c], pos[c]))
        return (opts[0], opts[1])
    # short of the suit: all of it, and free cards
    need = n - len(mine)
    rest = [c for c in hand if suit_of[c] != suit]
    if not need:
        return tuple(mine)
    if not mine and suit != TRUMP and not mate_wins and table >= 5:
        trumps = [c for c in rest if is_trump[c]]
        if n == 1:
            opts = sorted(set(trumps), key=lambda c: pos[c])
        else:
            cnt = Counter(trumps)
            opts = sorted((c for c, k in cnt.items() if k >= 2), key=lambda c: pos[c])
        c = _take(g, seat, plays, suit, n, opts, beats, last, table, suit_of, pos, ruff=True)
        if c is not None:
            return (c,) * n
    if mate_wins:
        rest.sort(key=lambda c: (is_trump[c], -PTS[c], pos[c]))
    else:
        rest.sort(key=lambda c: (is_trump[c], PTS[c], pos[c]))
    return tuple(mine) + tuple(rest[:need])


def _can_beat(g, seat, played, suit, n, best_key, suit_of, pos) -> bool:
    """Can a foe still to play after ``seat`` beat the trick's best single or pair?
    (A rollout plays with the world's perfect information.)"""
    for i in range(1, g.n - played):
        s = (seat + i) % g.n
        if _team(g, s, seat):
            continue
        hand = g.hands[s]
        mine = [c for c in hand if suit_of[c] == suit]
        if len(mine) >= n:
            pool = mine
        elif not mine:
            pool = [c for c in hand if suit_of[c] == TRUMP]
        else:
            continue
        if n == 1:
            if any((suit_of[c] == TRUMP, pos[c]) > best_key for c in pool):
                return True
        else:
            cnt = Counter(pool)
            if any(k >= 2 and (suit_of[c] == TRUMP, pos[c]) > best_key for c, k in cnt.items()):
                return True
    return False


def _take(g, seat, plays, suit, n, opts, beats, last, table, suit_of, pos, ruff=False):
    """The card (of a single, or of a pair) with which to take the trick, or None: among the
    units ``opts`` (cheapest first) that beat the trick, the cheapest no foe still to play
    can beat (adding points when it is safe); failing that, when the trick is rich, the
    cheapest beater (a plain card only: no trump is spent on a trick that will be lost)."""
    win = [c for c in opts if beats(c)]
    if not win:
        return None
    if last:
        safe = win
    else:
        played = len(plays)
        safe = [c for c in win if not _can_beat(g, seat, played, suit, n,
                                                (suit_of[c] == TRUMP, pos[c]), suit_of, pos)]
    if safe:
        if ruff:
            return safe[0]
        return min(safe, key=lambda c: (suit_of[c] == TRUMP and suit != TRUMP, -PTS[c], pos[c]))
    if not ruff and table >= 10 and not (suit_of[win[0]] == TRUMP and suit != TRUMP):
        return win[0]
    return None


def _fast_lead(g, hand, suit_of, pos, rng):
    """The rollout's lead, with the world's perfect information: boss pairs and singles (no
    foe can beat them, none can ruff them) first, points with them; a low card of a suit the
    partner can ruff and no foe can, or in which the partner holds a card above the foes';
    boss trumps to draw the foes' trumps when the side holds more than twice as many;
    otherwise a low single (no points) from a short suit, away from the foes' ruffs."""
    seat = g.to_act
    n = g.n
    # per effective suit: the foes' highest single and pair, the partners' highest card
    ftop1 = [-1] * 5
    ftop2 = [-1] * 5
    mtop1 = [-1] * 5
    ruff1 = [False] * 5            # a foe void in the suit holds a trump
    ruff2 = [False] * 5            # ... a trump pair
    mruff = [False] * 5            # a partner void in the suit holds a trump
    foe_trumps = side_trumps = 0
    for s in range(n):
        if s == seat:
            continue
        lens = [0, 0, 0, 0, 0]
        foe = not _team(g, s, seat)
        seen = set()
        tpair = False
        for c in g.hands[s]:
            su = suit_of[c]
            lens[su] += 1
            p = pos[c]
            if foe:
                if p > ftop1[su]:
                    ftop1[su] = p
                if c in seen:
                    if p > ftop2[su]:
                        ftop2[su] = p
                    if su == TRUMP:
                        tpair = True
                else:
                    seen.add(c)
            elif p > mtop1[su]:
                mtop1[su] = p
        if lens[TRUMP]:
            for su in range(4):
                if not lens[su]:
                    if foe:
                        ruff1[su] = True
                        ruff2[su] = ruff2[su] or tpair
                    else:
                        mruff[su] = True
        if foe:
            foe_trumps = max(foe_trumps, lens[TRUMP])
        else:
            side_trumps += lens[TRUMP]
    cnt = Counter(hand)
    mine = [0, 0, 0, 0, 0]
    for c in hand:
        mine[suit_of[c]] += 1
    side_trumps += mine[TRUMP]
    draw = foe_trumps and side_trumps > 2 * foe_trumps
    best = None
    for c, k in cnt.items():
        suit = suit_of[c]
        p = pos[c]
        pts = PTS[c]
        if suit != TRUMP:
            if k >= 2 and p >= ftop2[suit] and not ruff2[suit]:
                score, play = 70 + p + 2 * pts, (c, c)
            elif p >= ftop1[suit] and not ruff1[suit]:
                score, play = 60 + p + pts, (c,)
            elif not ruff1[suit] and mruff[suit]:
                score, play = 45 + 2 * pts - p, (c,)
            elif not ruff1[suit] and mtop1[suit] > ftop1[suit]:
                score, play = 40 - p - 2 * pts, (c,)
            elif k >= 2 and not ruff2[suit]:
                score, play = 30 + p - 2 * pts, (c, c)
            else:
                score, play = 20 - p - 2 * pts - 1.5 * mine[suit], (c,)
                if ruff1[suit]:
                    score -= 15 + pts
        else:
            if k >= 2 and p >= ftop2[TRUMP]:
                score, play = 45 + p, (c, c)
            elif p >= ftop1[TRUMP]:
                score, play = (55 if draw else 35) - pts, (c,)
            else:
                score, play = (10 + p, (c, c)) if k >= 2 else (-p - 2 * pts, (c,))
        score += rng.random() * 3
        if best is None or score > best[0]:
            best = (score, play)
    return best[1]


_TABLES: dict = {}


def tables(t):
    """Per-card lookup tables for a trump: (effective suit, position, is trump)."""
    tab = _TABLES.get(t)
    if tab is None:
        tab = _TABLES[t] = ([t.suit_of(c) for c in range(54)], [t.position(c) for c in range(54)],
                            [t.is_trump(c) for c in range(54)])
    return tab


def policy(g, moves, rng):
    kind = moves[0].kind
    if kind == "pick":
        return _pick(g, moves)
    if kind == "commit":
        return moves[0]
    if not g.trick:
        return _lead(g, moves, rng)
    return _follow(g, moves)


def _lead(g, moves, rng):
    suit_of, pos, _ = tables(g.trump)
    best = None
    for m in moves:
        if m.kind != "play":
            continue
        u = m.cards
        c0 = u[-1]
        suit = suit_of[c0]
        top = max(pos[c] for c in u)
        if suit != TRUMP:
            if len(u) >= 2:
                score = 50 + 10 * len(u) + top
            elif top >= 10:                      # an ace (or a king at level A)
                score = 40 + top + PTS[c0]
            else:
                score = 20 - top - 2 * PTS[c0]
        else:
            score = (10 + top) if len(u) >= 2 else -top - 2 * PTS[c0]
        score += rng.random() * 3
        if best is None or score > best[0]:
            best = (score, m)
    return best[1]


def _team(g, a: int, b: int) -> bool:
    return g.team_of(a) == g.team_of(b)


def _follow(g, moves):
    t = g.trump
    suit_of, pos, is_trump = tables(t)
    plays = [cs for _, cs in g.trick]
    lead = plays[0]
    seat = g.to_act
    suit = suit_of[lead[0]]
    simple = all(c == lead[0] for c in lead)
    w = trick_winner(t, plays)
    winner = g.trick[w][0]
    last = len(plays) == g.n - 1
    table = sum(PTS[c] for cs in plays for c in cs)
    plain_lead = suit != TRUMP

    def cost(m):
        u = m.cards
        tr = sum(1 for c in u if is_trump[c]) if plain_lead else 0
        return (tr, sum(PTS[c] for c in u), sum(pos[c] for c in u))

    costs = [(cost(m), m) for m in moves]
    if _team(g, winner, seat) and (last or w == 0 or len(plays) >= g.n - 2):
        return min(costs, key=lambda cm: (cm[0][0], -cm[0][1], cm[0][2]))[1]
    if table > 0 or last:
        costs.sort(key=lambda cm: cm[0])
        me = len(plays)
        if simple:
            b = plays[w][0]
            best_key = (suit_of[b] == TRUMP, pos[b])
        for c, m in costs[:12]:
            u = m.cards
            if simple:
                x = u[0]
                sx = suit_of[x]
                wins = all(y == x for y in u) and (sx == suit or sx == TRUMP) and \
                    (sx == TRUMP, pos[x]) > best_key
            else:
                wins = trick_winner(t, plays + [u]) == me
            if wins:
                if c[0] == 0 or table >= 10:
                    return m
                break
        return costs[0][1]
    return min(costs, key=lambda cm: cm[0])[1]


def _pick(g, moves):
    _, pos, is_trump = tables(g.trump)
    return min(moves, key=lambda m: (is_trump[m.cards[0]], PTS[m.cards[0]], pos[m.cards[0]]))
