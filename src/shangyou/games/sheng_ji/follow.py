"""Follow obligations of Sheng ji: which plays may follow a lead (docs/rules/sheng-ji.md).

With N the number of cards led and S the lead's effective suit (all trumps are one suit):

1. Play exactly N cards.
2. **Short of the suit** (N or fewer cards of S): play all your cards of S, and any other cards
   for the rest.
3. **Otherwise** play N cards of S, and
   a. *pairs*: at least as many pairs as the lead has (a tractor of n pairs counts n), or all
      the pairs you hold in S if you hold fewer; pairs inside your tractors and triples count;
   b. *tractor*: if the lead holds a tractor and you hold one at least as long as the lead's
      longest, your play must contain a tractor of that length.
   The remaining cards are any cards of S.

A "pair" here is two identical cards (with three or four packs, a triple holds one pair): the
obligations of RULES.md, stated for the common two-pack game and applied as such to more packs.

:func:`check_follow` says why a play may not follow. :func:`legal_follows` lists the legal
follows, generated directly (never more work than the plays it returns, up to a limit); past
the limit the game has the cards picked one at a time, :func:`next_cards` giving the cards that
can still be completed to a legal follow (:func:`completable`). :func:`legal_follows_reference`
lists every multiset of the suit and filters it: the slow reference of the tests and benches.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from ..why import SUIT_WORDS, SUIT_ZH, Why
from .order import Trump, Unit


def requirement(lead_units: Sequence[Unit]) -> tuple[int, int]:
    """(pairs the lead asks for, length of its longest tractor or 0)."""
    pairs = sum(u.length * (u.width // 2) for u in lead_units)
    tractor = max((u.length for u in lead_units if u.length >= 2 and u.width >= 2), default=0)
    return pairs, tractor


def pairs_of(cards) -> int:
    return sum(n // 2 for n in Counter(cards).values())


def longest_run(trump: Trump, cards) -> int:
    """Length of the longest tractor (consecutive positions, each with a pair) in ``cards``."""
    positions = sorted({trump.position(c) for c, n in Counter(cards).items() if n >= 2})
    best = run = 0
    prev = None
    for p in positions:
        run = run + 1 if prev is not None and p == prev + 1 else 1
        prev = p
        best = max(best, run)
    return best if best >= 2 else 0


def suit_cards(trump: Trump, hand, suit: int) -> list[int]:
    return [c for c in hand if trump.suit_of(c) == suit]


def check_follow(trump: Trump, hand: Sequence[int], lead: Sequence[int],
                 lead_units: Sequence[Unit], play: Sequence[int]) -> str | None:
    """Why ``play`` may not follow ``lead`` from ``hand`` (None: it may)."""
    n = len(lead)
    if len(play) != n:
        return str(why_not_follow(trump, hand, lead, lead_units, play))
    left = Counter(hand)
    left.subtract(play)
    if any(v < 0 for v in left.values()):
        return "you do not hold those cards"
    why = why_not_follow(trump, hand, lead, lead_units, play)
    return None if why is None else str(why)


def why_not_follow(trump: Trump, hand: Sequence[int], lead: Sequence[int],
                   lead_units: Sequence[Unit], play: Sequence[int]) -> Why | None:
    """The rule by which ``play`` (cards of ``hand``) may not follow ``lead``: a
    :class:`~shangyou.games.why.Why` naming it and the case (the suit, the cards held of it,
    the pairs or the tractor owed), or None: it may."""
    n = len(lead)
    if len(play) != n:
        return Why("sj_count", {"need": n, "got": len(play)})
    suit = trump.suit_of(lead[0])
    words = {"suit": SUIT_WORDS[suit], "suit_zh": SUIT_ZH[suit]}
    mine = suit_cards(trump, hand, suit)
    played = [c for c in play if trump.suit_of(c) == suit]
    if len(mine) <= n:
        if len(played) < len(mine):
            return Why("sj_play_all", {**words, "held": len(mine), "played": len(played)})
        return None
    if len(played) < n:
        return Why("sj_follow_suit", {**words, "held": len(mine), "need": n})
    want_pairs, want_run = requirement(lead_units)
    if want_run and longest_run(trump, mine) >= want_run and longest_run(trump, played) < want_run:
        return Why("sj_tractor", {**words, "length": want_run})
    need = min(want_pairs, pairs_of(mine))
    if pairs_of(played) < need:
        return Why("sj_pairs", {**words, "want": want_pairs, "need": need,
                                "played": pairs_of(played)})
    return None


def _multisets(types: list[tuple[int, int]], k: int, i: int = 0):
    """Every sub-multiset of size k of ``types`` ([(card, count)]) as tuples, from index i."""
    if k == 0:
        yield ()
        return
    if i >= len(types):
        return
    rest = sum(c for _, c in types[i:])
    if rest < k:
        return
    card, count = types[i]
    for take in range(min(count, k), -1, -1):
        for tail in _multisets(types, k - take, i + 1):
            yield (card,) * take + tail


def follow_needs(trump: Trump, hand: Sequence[int], lead: Sequence[int],
                 lead_units: Sequence[Unit]) -> tuple[list[int], int, int, int]:
    """(the hand's cards of the led suit, cards to play, pairs owed, tractor length owed).

    The pairs and the tractor owed are those of rule 3 (``0``: none owed); they bind only when
    the hand holds more cards of the suit than were led."""
    n = len(lead)
    mine = suit_cards(trump, hand, trump.suit_of(lead[0]))
    if len(mine) <= n:
        return mine, n, 0, 0
    want_pairs, want_run = requirement(lead_units)
    need_run = want_run if want_run and longest_run(trump, mine) >= want_run else 0
    return mine, n, min(want_pairs, pairs_of(mine)), need_run


def legal_follows(trump: Trump, hand: Sequence[int], lead: Sequence[int],
                  lead_units: Sequence[Unit], limit: int | None = None) -> list[tuple] | None:
    """Every legal follow (sorted card tuples, each multiset once), or None when there are
    more than ``limit``: the game then lets the player choose the cards one at a time
    (:func:`next_cards`).

    The follows are generated directly: only the multisets that meet the obligations are
    built, a branch being cut as soon as no completion of it can meet them (the set is that
    of :func:`legal_follows_reference`, in the same order). The work is proportional to the
    number of follows returned, at most ``limit + 1`` of them.
    """
    mine, n, need_pairs, need_run = follow_needs(trump, hand, lead, lead_units)
    if len(mine) <= n:
        suit = trump.suit_of(lead[0])
        others = [c for c in hand if trump.suit_of(c) != suit]
        types = sorted(Counter(others).items())
        out = []
        for free in _multisets(types, n - len(mine)):
            out.append(tuple(sorted(tuple(mine) + free)))
            if limit is not None and len(out) > limit:
                return None
        return out
    return _suit_follows(trump, Counter(mine), n, need_pairs, need_run, limit)


class _TooMany(Exception):
    pass


def _suit_follows(trump: Trump, counts: Counter, n: int, need_pairs: int, need_run: int,
                  limit: int | None) -> list[tuple] | None:
    """The n-card sub-multisets of ``counts`` (one effective suit) holding ``need_pairs``
    pairs and, if ``need_run``, a tractor of that many pairs; None if more than ``limit``.

    A depth-first walk over the card identities in order of position. At the end of every
    position it checks, exactly and in constant time, that the cards still to choose can meet
    both obligations: enough cards and pairs are left (suffix sums), and the tractor, if not
    yet played, can still be made, by extending the run of paired positions just played or
    by a run wholly in the positions to come."""
    types = sorted(counts, key=lambda c: (trump.position(c), c))
    T = len(types)
    pos = [trump.position(c) for c in types]
    hi = [counts[c] for c in types]
    tot = [0] * (T + 1)              # cards left from type i on
    psuf = [0] * (T + 1)             # pairs left from type i on
    for i in range(T - 1, -1, -1):
        tot[i] = tot[i + 1] + hi[i]
        psuf[i] = psuf[i + 1] + hi[i] // 2
    ends = [i + 1 == T or pos[i + 1] != pos[i] for i in range(T)]   # last type of a position
    L = need_run
    caprun = [0] * (T + 1)           # paired positions in a row from type i's position on
    fresh = [False] * (T + 1)        # a run of L such positions lies wholly from type i's on
    if L:
        able = {p for p, h in zip(pos, hi) if h >= 2}
        run_from: dict[int, int] = {}
        for p in sorted(able, reverse=True):
            run_from[p] = run_from.get(p + 1, 0) + 1
        for i in range(T - 1, -1, -1):
            caprun[i] = run_from.get(pos[i], 0)
            fresh[i] = caprun[i] >= L or fresh[i + 1]
    order = sorted(range(T), key=lambda i: types[i])     # card order, for the output
    take = [0] * T
    found: list[tuple] = []
    P = need_pairs

    def emit() -> None:
        found.append(tuple(-take[i] for i in order))
        if limit is not None and len(found) > limit:
            raise _TooMany

    def walk(i: int, k: int, pairs: int, run: int, last: int, paired: bool, done: bool):
        # type i is next; ``paired``: its position already holds a pair among the types taken
        hmax = hi[i] if hi[i] < k else k
        nxt = i + 1
        end = ends[i]
        for t in range(hmax, -1, -1):
            k2 = k - t
            p2 = pairs + (t >> 1)
            if tot[nxt] < k2 or p2 + min(psuf[nxt], k2 >> 1) < P:
                continue
            take[i] = t
            if not end:
                walk(nxt, k2, p2, run, last, paired or t >= 2, done)
                continue
            r, d = run, done
            if L and not d:
                if paired or t >= 2:
                    r = run + 1 if run and last == pos[i] - 1 else 1
                    d = r >= L
                else:
                    r = 0
                if not d:
                    ok = fresh[nxt] and k2 >= 2 * L
                    if not ok and r and nxt < T and pos[nxt] == pos[i] + 1:
                        ok = caprun[nxt] >= L - r and k2 >= 2 * (L - r)
                    if not ok:
                        continue
            if k2 == 0:
                for j in range(nxt, T):
                    take[j] = 0
                emit()
                continue
            walk(nxt, k2, p2, r, pos[i], False, d)
        take[i] = 0

    try:
        walk(0, n, 0, 0, -2, False, not L)
    except _TooMany:
        return None
    found.sort()
    out = []
    for key in found:
        play: list[int] = []
        for i, neg in zip(order, key):
            if neg:
                play.extend([types[i]] * -neg)
        out.append(tuple(play))
    return out


def legal_follows_reference(trump: Trump, hand: Sequence[int], lead: Sequence[int],
                  lead_units: Sequence[Unit], limit: int | None = None) -> list[tuple] | None:
    """Every legal follow, found by listing every multiset of the suit and keeping those
    that meet the obligations: the slow reference :func:`legal_follows` is tested against.

    Returns None when the player is short of the suit and the free cards could be chosen in
    more than ``limit`` ways.
    """
    n = len(lead)
    suit = trump.suit_of(lead[0])
    mine = suit_cards(trump, hand, suit)
    if len(mine) <= n:
        others = [c for c in hand if trump.suit_of(c) != suit]
        types = sorted(Counter(others).items())
        out = []
        for free in _multisets(types, n - len(mine)):
            out.append(tuple(sorted(tuple(mine) + free)))
            if limit is not None and len(out) > limit:
                return None
        return out
    want_pairs, want_run = requirement(lead_units)
    need_run = want_run if want_run and longest_run(trump, mine) >= want_run else 0
    need_pairs = min(want_pairs, pairs_of(mine))
    types = sorted(Counter(mine).items())
    out = []
    for play in _multisets(types, n):
        if need_pairs and pairs_of(play) < need_pairs:
            continue
        if need_run and longest_run(trump, play) < need_run:
            continue
        out.append(tuple(sorted(play)))
    return out


# ------------------------------------------------------------------------- card by card
def next_cards(trump: Trump, hand: Sequence[int], lead: Sequence[int],
               lead_units: Sequence[Unit], chosen: Sequence[int]) -> list[int]:
    """The cards (each identity once) that may be chosen next when a follow is chosen one
    card at a time, ``chosen`` being the cards chosen so far.

    Short of the suit, the suit's cards all go in anyway and ``chosen`` are the free cards:
    any other card of the hand may be chosen. Otherwise ``chosen`` are cards of the suit, and
    a card may be chosen when the cards chosen with it can still be completed to a legal
    follow (:func:`completable`): the last card chosen completes one."""
    mine, n, need_pairs, need_run = follow_needs(trump, hand, lead, lead_units)
    left = Counter(hand)
    left.subtract(chosen)
    if len(mine) <= n:
        suit = trump.suit_of(lead[0])
        return [c for c, k in left.items() if k > 0 and trump.suit_of(c) != suit]
    hi = Counter(mine)
    lo = Counter(chosen)
    out = []
    for c, h in hi.items():
        if lo[c] >= h:
            continue
        lo[c] += 1
        if completable(trump, hi, lo, n, need_pairs, need_run):
            out.append(c)
        lo[c] -= 1
    return out


def completable(trump: Trump, hi: Counter, lo: Counter, n: int, need_pairs: int,
                need_run: int) -> bool:
    """Is there a play of ``n`` cards holding ``lo`` (a sub-multiset of ``hi``) and taken
    from ``hi``, with ``need_pairs`` pairs and, if ``need_run``, a tractor that long?

    Adding cards never breaks an obligation, so it is enough to find the most pairs the
    remaining cards can make: each card that completes an odd count makes a pair, then each
    two cards; a tractor fixes some of them first (at each position of a window of
    ``need_run`` positions the cheapest identity is raised to a pair)."""
    base = sum(lo.values())
    if base > n:
        return False
    extra = n - base
    pairs0 = odd = cap2 = 0
    cost_at: dict[int, int] = {}
    for c, h in hi.items():
        low = lo.get(c, 0)
        if low > h:
            return False
        pairs0 += low >> 1
        o = 1 if low & 1 and low < h else 0
        odd += o
        cap2 += (h - low - o) >> 1
        if need_run and h >= 2:
            cost = 0 if low >= 2 else 2 - low
            p = trump.position(c)
            if cost < cost_at.get(p, 3):
                cost_at[p] = cost

    def most_pairs(f1: int, f0: int) -> int:
        # f1 positions raised from one card (1 card each), f0 from none (2 cards each)
        e = extra - f1 - 2 * f0
        if e < 0:
            return -1
        a = min(odd - f1, e)
        return pairs0 + f1 + f0 + a + min((e - a) >> 1, cap2 - f0)

    if not need_run:
        return most_pairs(0, 0) >= need_pairs
    L = need_run
    for start in cost_at:
        if start - 1 in cost_at:
            continue                     # not the start of a run of paired positions
        run = []
        p = start
        while p in cost_at:
            run.append(cost_at[p])
            p += 1
        if len(run) < L:
            continue
        f1 = run[:L].count(1)
        f0 = run[:L].count(2)
        for j in range(L, len(run) + 1):
            if most_pairs(f1, f0) >= need_pairs:
                return True
            if j == len(run):
                break
            f1 += (run[j] == 1) - (run[j - L] == 1)
            f0 += (run[j] == 2) - (run[j - L] == 2)
    return False
