"""The features of the ``learned`` level: one vector for a seat's position and one row per
legal move, read from the seat's view (what any bot gets) with numpy only.

The model scores ``Q(position, move)``: the points the seat may expect from the hand when it
makes the move (Deep Monte-Carlo, see ``docs/training.md``). The same functions feed the
training (:mod:`shangyou.train`) and the bot, so the two cannot drift apart.

Card features follow the env's encoding (:mod:`shangyou.env.encoding`): 54 card counts in card
code order (``rank * 4 + suit``, then the jokers), with seats relative to the one who acts (0 =
itself, 1 = next to act after it, ...). To these they add rank counts (15 ranks, 3 .. RJ), the
cards nobody has shown yet, and what each move is read as (its kind, class and key under the
family's rules, :meth:`~shangyou.games.climbing.family.Family.combos`), plus the hand a move
leaves. Tables of 3 to 8 seats share one layout (seats past the table's size are zeros).
"""

from __future__ import annotations

import numpy as np

from ..cards import CARD_TEXT, RANK_OF
from .base import rules_for

N_CARDS = 54
N_RANKS = 15
MAX_SEATS = 8
MIN_SEATS = 3
CODE = {t: i for i, t in enumerate(CARD_TEXT)}
KINDS = ("pass", "single", "set", "sequence", "multiple sequence")   # other kinds: one entry

RANK_MATRIX = np.zeros((N_CARDS, N_RANKS), dtype=np.float32)
RANK_MATRIX[np.arange(N_CARDS), RANK_OF] = 1.0
# the rank counts of one pack (4 of 3 .. 2, one of each joker)
PACK_RANKS = RANK_MATRIX.sum(axis=0)

# a move's fixed part: card counts, rank counts, kind (KINDS + other), cards / 10, key (3),
# tier, the reading's place among the readings of the same cards, precious cards spent
PLAY_DIM = N_CARDS + N_RANKS + len(KINDS) + 1 + 1 + 3 + 1 + 1 + 1
# plus the hand it leaves: rank counts, cards / 20, empty (the seat goes out)
MOVE_DIM = PLAY_DIM + N_RANKS + 2
SEAT_FEATURES = 4            # per relative seat: cards / 13, out, passed, made the play to beat
STATE_DIM = (2 * (N_CARDS + N_RANKS) + N_RANKS + PLAY_DIM + 1 + MAX_SEATS * SEAT_FEATURES
             + (MAX_SEATS - MIN_SEATS + 1) + 1)

_PLAYS: dict = {}            # (family options, move text) -> fixed part of the move


def _codes(text: str) -> tuple[int, ...]:
    return tuple(CODE[t] for t in text.split())


def play_vector(family, text: str) -> np.ndarray:
    """The fixed part of a move (or of the play to beat): what its cards are read as. Memoised
    per family options and text; do not change the answer."""
    key = (family.options_key(), text)
    hit = _PLAYS.get(key)
    if hit is not None:
        return hit
    v = np.zeros(PLAY_DIM, dtype=np.float32)
    if text == "pass":
        v[N_CARDS + N_RANKS] = 1.0
    else:
        cards_text, _, label = text.partition(" as ")
        codes = _codes(cards_text)
        for c in codes:
            v[c] += 1.0
            v[N_CARDS + RANK_OF[c]] += 1.0
        readings = family.combos(codes)
        at, combo = 0, None
        for i, r in enumerate(readings):
            if (not label and i == 0) or r.label == label:
                at, combo = i, r
                break
        o = N_CARDS + N_RANKS
        if combo is not None:
            kind = KINDS.index(combo.kind) if combo.kind in KINDS else len(KINDS)
            v[o + kind] = 1.0
            nums = [x for x in combo.key if isinstance(x, int)][:3]
            for j, x in enumerate(nums):
                v[o + len(KINDS) + 2 + j] = x / 14.0
            v[o + len(KINDS) + 5] = combo.tier
        else:
            v[o + len(KINDS)] = 1.0            # not a combination the family knows
        v[o + len(KINDS) + 1] = len(codes) / 10.0
        v[o + len(KINDS) + 6] = at
        v[o + len(KINDS) + 7] = sum(1 for c in codes if family.precious(c))
    if len(_PLAYS) > 200_000:
        _PLAYS.clear()
    _PLAYS[key] = v
    return v


def whole_plays(view: dict) -> dict:
    """``view``, or where a climbing play is chosen in steps (``choose``, ``pick``:
    games/climbing/steps.py) a copy listing every legal play instead: the network scores whole
    plays, and the game accepts a whole play at every step."""
    from ..games.climbing.steps import every_play, in_steps
    if str(view.get("game", "")).startswith("sheng-ji") or \
            not in_steps(view.get("legal_moves") or []):
        return view
    return every_play(view, rules_for(view).family)


def is_play_decision(view: dict) -> bool:
    """A climbing game's play phase: every legal move is a play of cards or a pass (the
    exchange between hands and other games' decisions are not)."""
    if view.get("phase") != "play" or "trick" not in view:
        return False
    word = view["legal_moves"][0].split(" ", 1)[0]
    return word == "pass" or word in CODE


def features(view: dict, moves: list[str] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``(state, rows)``: the position (``STATE_DIM``) and one row per move (``MOVE_DIM``;
    default: every legal move in the view's order) of a play decision."""
    family = rules_for(view).family
    if moves is None:
        moves = view["legal_moves"]
    n = view["players"]
    seat = view["seat"]
    decks = (view.get("options") or {}).get("decks", 1) or 1
    hand = np.zeros(N_CARDS, dtype=np.float32)
    for t in view["hand"]:
        hand[CODE[t]] += 1.0
    played = np.zeros(N_CARDS, dtype=np.float32)
    for trick in view["played"]:
        for _, text in trick:
            if text != "pass":
                for c in _codes(text.partition(" as ")[0]):
                    played[c] += 1.0
    for _, text in view["trick"]:
        if text != "pass":
            for c in _codes(text.partition(" as ")[0]):
                played[c] += 1.0
    hand_r = hand @ RANK_MATRIX
    played_r = played @ RANK_MATRIX
    unseen_r = PACK_RANKS * decks - hand_r - played_r
    last = view["last"]
    if last is not None:
        text = last["cards"]
        readings = family.combos(_codes(text))
        for i, r in enumerate(readings):
            if i > 0 and r.label == last.get("reading"):
                text = f"{text} as {r.label}"
                break
        last_v = play_vector(family, text)
    else:
        last_v = np.zeros(PLAY_DIM, dtype=np.float32)
    seats = np.zeros((MAX_SEATS, SEAT_FEATURES), dtype=np.float32)
    for i, c in enumerate(view["counts"]):
        seats[(i - seat) % n, 0] = c / 13.0
    for i in view["finished"]:
        seats[(i - seat) % n, 1] = 1.0
    for i in view["passed"]:
        seats[(i - seat) % n, 2] = 1.0
    if last is not None:
        seats[(last["seat"] - seat) % n, 3] = 1.0
    size = np.zeros(MAX_SEATS - MIN_SEATS + 1, dtype=np.float32)
    size[min(max(n, MIN_SEATS), MAX_SEATS) - MIN_SEATS] = 1.0
    state = np.concatenate([hand, hand_r, played, played_r, unseen_r, last_v,
                            [1.0 if last is None else 0.0], seats.ravel(), size,
                            [len(view["hand"]) / 20.0]]).astype(np.float32)
    fixed = np.stack([play_vector(family, m) for m in moves])
    after = hand - fixed[:, :N_CARDS]
    left = after.sum(axis=1, keepdims=True)
    rows = np.concatenate([fixed, after @ RANK_MATRIX, left / 20.0,
                           (left == 0).astype(np.float32)], axis=1)
    return state, rows
