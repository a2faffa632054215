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
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

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
        return f"play {n} card{'s' if n > 1 else ''}, as many as were led"
    left = Counter(hand)
    left.subtract(play)
    if any(v < 0 for v in left.values()):
        return "you do not hold those cards"
    suit = trump.suit_of(lead[0])
    mine = suit_cards(trump, hand, suit)
    played = [c for c in play if trump.suit_of(c) == suit]
    if len(mine) <= n:
        if len(played) < len(mine):
            return "you must play all your cards of the suit led"
        return None
    if len(played) < n:
        return "you must follow the suit led"
    want_pairs, want_run = requirement(lead_units)
    if want_run and longest_run(trump, mine) >= want_run and longest_run(trump, played) < want_run:
        return f"you must play a tractor of {want_run} pairs: you hold one"
    need = min(want_pairs, pairs_of(mine))
    if pairs_of(played) < need:
        return f"you must play {need} pair{'s' if need > 1 else ''} of the suit led"
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


def legal_follows(trump: Trump, hand: Sequence[int], lead: Sequence[int],
                  lead_units: Sequence[Unit], limit: int | None = None) -> list[tuple] | None:
    """Every legal follow (sorted card tuples, each multiset once).

    Returns None when the player is short of the suit and the free cards could be chosen in
    more than ``limit`` ways: the game then lets the player pick those cards one at a time.
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
