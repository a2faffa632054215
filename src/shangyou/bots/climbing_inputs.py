"""What the climbing heuristic weighs, as inputs for a re-ranker of the search's candidates.

The env's features (:mod:`shangyou.env.features`) say what the cards are; whether a play will
be beaten, and how many leads the hand left behind needs, are facts a small network finds only
slowly in card counts. The heuristic (:class:`shangyou.bots.climbing_heuristic.Heuristic`)
already answers both for its own decision: it splits the hand into a plan of plays and judges
each play's chance to be beaten on a few sampled deals of the unseen cards (in C for pagat).
A model whose metadata says ``"inputs": "climb-heur-1"`` reads these numbers after the env's
position and each candidate's row, in training (:mod:`shangyou.train.distill`) and in play
(:class:`shangyou.bots.learned.LearnedBot`) alike. The heuristic's samples are seeded by the
view's unseen cards, so the numbers are the same whoever asks.

Position (``POS`` numbers): the hand's plan cost, its plays, its plain plays (those that are
not controls), the fewest cards an opponent holds, opponents with at most two cards, whether a
partner made the play to beat. Each candidate (``CAND`` numbers): the chance it is beaten (with
2s and jokers counted as the heuristic counts them), it is a control, its cost in the plan,
the plan cost of the hand it leaves, that plan's plays and plain plays, how far it is from the
hand's best split (the heuristic's ``off_plan``), the leads it saves (``gain``), 2s and jokers
spent, it is one of the plan's plays, it empties the hand.
"""

from __future__ import annotations

import numpy as np

from .climbing_heuristic import CONTROL_COST, Heuristic, _remove, cards_of, decide

NAME = "climb-heur-1"
POS = 6
CAND = 11


def heuristic_inputs(view: dict, cands: list[str], h: Heuristic | None = None) \
        -> tuple[np.ndarray, np.ndarray]:
    """``(position, rows)``: the position's ``POS`` numbers and a ``CAND`` row per candidate.
    ``h``: the heuristic's object that chose the move for this very view
    (:func:`~shangyou.bots.climbing_heuristic.decide`), when the caller has it; else the
    heuristic decides here first. Its plan search has a node budget per decision, so a plan
    depends on what was asked before: asked in the same order, the numbers are the same."""
    none = (np.zeros(POS, np.float32), np.zeros((len(cands), CAND), np.float32))
    try:
        if h is None:
            h = decide(view)[1] or Heuristic(view)
        hand = h.hand
        if not hand:
            return none
        total, plan = h.plan(hand)
        plain = h.plain_plays(hand)
        opp = [h.counts[s] for s in h.opponents()]
        last = view.get("last")
        head = [total / 5.0, len(plan) / 5.0, plain / 5.0,
                min(min(opp, default=13), 13) / 13.0, sum(1 for c in opp if c <= 2),
                1.0 if last and last.get("seat") in h.partners else 0.0]
        in_plan = {tuple(c.cards) for c in plan}
        precious = h.fam.precious
        out = []
        for m in cands:
            if m == "pass":
                out.append([0.0, 0.0, 0.0] + head[:3] + [0.0] * 5)
                continue
            cards = cards_of(m)
            combo = h.combo_of(m)
            cost = h.combo_cost(combo)
            rest = _remove(hand, cards)
            rest_cost, rest_plan = h.plan(rest)
            out.append([h.beaten(combo),
                        1.0 if cost <= CONTROL_COST else 0.0, cost,
                        rest_cost / 5.0, len(rest_plan) / 5.0, h.plain_plays(rest) / 5.0,
                        rest_cost + min(cost, 1.0) - total, total - rest_cost,
                        sum(1 for c in cards if precious(c)),
                        1.0 if tuple(sorted(cards)) in in_plan else 0.0,
                        0.0 if rest else 1.0])
        return (np.array(head, np.float32),
                np.array(out, np.float32).reshape(len(cands), CAND))
    except Exception:       # not a position the heuristic plans: no inputs
        return none
