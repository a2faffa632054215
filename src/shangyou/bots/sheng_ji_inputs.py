"""What the Sheng ji search weighs, as inputs for a re-ranker of its candidates.

The env's features (:mod:`shangyou.env.features`) say what the cards are; the search's values
turn on a few facts a network finds slowly in them: whether a candidate takes the trick, and
whether it keeps it against the seats still to play (counted from the view, as the heuristic
counts: :class:`shangyou.bots.sheng_ji_heuristic.Knowledge`, the cards no seat has shown, the
voids shown), the points the trick carries and who is likely to take them, the trumps and
points still out. A model whose metadata says ``"inputs": "sj-search-1"`` reads these after
the env's position and each candidate's row, in training
(:mod:`shangyou.train.distill`) and in play (:class:`shangyou.bots.learned.LearnedBot`) alike.

Position (``POS`` numbers): trumps outside the hand, trumps in it, points outside, points on the
table, the opponents' points so far, cards left in the hand, whether a partner's play holds the
trick, the seats still to play after this one. Each candidate (``CAND`` numbers): it wins the
trick so far, it keeps it (a sure winner by the count), the seat's side keeps it (the candidate
or a partner's holding play), its points, the trick's points it wins for the side, the points
it gives away (the trick's points with its own, when the side does not keep the trick), trumps
spent, trumps left after it.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from ..cards import parse
from ..games.sheng_ji.order import TRUMP
from ..games.sheng_ji.tricks import trick_winner
from . import sheng_ji_heuristic as heur

NAME = "sj-search-1"
POS = 8
CAND = 9


def _cards(text: str) -> tuple:
    """A candidate's cards (a throw's text: its cards after the word)."""
    words = text.split()
    if words and words[0] in ("throw", "play"):
        words = words[1:]
    return tuple(parse(" ".join(words))) if words else ()


def _points(cards) -> int:
    return sum(heur.points((c,)) for c in cards)


def search_inputs(view: dict, cands: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """``(position, rows)``: the position's ``POS`` numbers and a ``CAND`` row per candidate."""
    pos = np.zeros(POS, np.float32)
    rows = np.zeros((len(cands), CAND), np.float32)
    try:
        k = heur.Knowledge(view)
    except Exception:       # not a play position the heuristic counts: no inputs
        return pos, rows
    t = k.t
    n = k.n
    decks = max(1, k.decks)
    trick = [(s, tuple(parse(text))) for s, text in (view.get("trick") or [])]
    table = sum(_points(cs) for _, cs in trick)
    out_points = sum(_points((c,)) * m for c, m in k.outside.items())
    mine_trumps = sum(1 for c in k.hand if t.is_trump(c))
    mate_holds = False
    if trick:
        w = trick_winner(t, [cs for _, cs in trick])
        if trick[w][0] in k.mates:
            try:
                mate_holds = heur._holds(k, trick, w)
            except Exception:
                mate_holds = False
    after = n - len(trick) - 1
    pos[:] = (k.out_suit[TRUMP] / (18.0 * decks), mine_trumps / (18.0 * decks),
              out_points / (100.0 * decks), table / 40.0,
              float(view.get("opponents_points") or 0) / (40.0 * decks),
              len(k.hand) / 25.0, float(mate_holds), after / 8.0)
    held = Counter(k.hand)
    for i, text in enumerate(cands):
        try:
            cards = _cards(text)
            if not cards:
                continue
            if trick:
                plays = [cs for _, cs in trick] + [cards]
                wins = trick_winner(t, plays) == len(trick)
                keeps = wins and heur._holds(k, trick + [(k.me, cards)], len(trick))
            else:
                wins = True
                suit = t.suit_of(cards[0])
                keeps = k.is_boss(cards) and (suit == TRUMP or not k.ruff_danger(suit))
            side = keeps or (mate_holds and not wins)
            own = _points(cards)
            trumps = sum(1 for c in cards if t.is_trump(c))
            left = Counter(held)
            left.subtract(cards)
            rows[i] = (float(wins), float(keeps), float(side), own / 20.0,
                       (table + own) / 40.0 if side else 0.0,
                       0.0 if side else (table + own) / 40.0, trumps / 4.0,
                       (mine_trumps - trumps) / (18.0 * decks), 0.0)
            rows[i, 8] = float(wins and not keeps)      # takes it for now, may lose it
        except Exception:   # a candidate the count cannot read: its row stays 0
            continue
    return pos, rows
