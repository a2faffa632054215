"""The inputs of the ``learned`` level's network, read from the env's observation: one pipeline
for the environments, the trainer (:mod:`shangyou.train`) and the bot. Numpy only.

The network scores ``Q(position, move)`` (Deep Monte-Carlo with action features, as DouZero):

* the **position** is the env observation of the seat (:mod:`shangyou.env.encoding`: the
  ``ClimbingEncoder`` or ``ShengJiEncoder`` head, every part before the candidates, built by the
  view path :meth:`~shangyou.env.encoding.Encoder.encode_bytes`), with each per-seat part padded
  from the table's ``n`` seats to :data:`MAX_SEATS` so one network serves every table size,
  scaled to about 0..1, and followed by the table size (one-hot), the pack count, and the rank
  counts (15 ranks, 3 .. red joker) of the hand and of the cards played;
* each **move** is the env's candidate row of that move (:data:`~shangyou.env.encoding.CAND_WIDTH`:
  card counts, kind, reading number or friend-call number; :func:`candidate_rows`, the same bytes
  as :meth:`~shangyou.env.encoding.Encoder.fill_candidates`, tested) followed by the hand the move
  leaves (card counts, rank counts, cards left, empty) and the move's rank counts.

Every kind of decision is a move in the one loop (``to_act``, ``legal_moves``, ``apply``): plays
and passes, the exchange between climbing hands, Sheng ji's bids, burying, friend calls, throws.
Two families have their own layout (:data:`FAMILIES`): ``climbing`` (every Zheng Shangyou preset
and Zheng Fen) and ``sheng-ji`` (Sheng ji, single deck, Zhao Pengyou).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from .encoding import CAND_WIDTH, CODE, KIND_INDEX, KINDS, N_CARDS, parse_move

MAX_SEATS = 8
MIN_SEATS = 2
N_RANKS = 15
FORMAT = "env-1"                  # the ``features`` entry of a model's metadata
FAMILIES = ("climbing", "sheng-ji")
#: the phases whose decisions a family's model makes (the trainer plays single hands: the
#: exchange between the hands of a climbing match is left to the heuristic level)
PHASES = {"climbing": ("play",), "sheng-ji": ("deal", "bury", "call", "play")}

# card code (rank * 4 + suit, then the two jokers) -> rank 0 .. 14
RANK_MATRIX = np.zeros((N_CARDS, N_RANKS), dtype=np.float32)
RANK_MATRIX[np.arange(52), np.arange(52) // 4] = 1.0
RANK_MATRIX[52, 13] = RANK_MATRIX[53, 14] = 1.0

# how an observation part is scaled (int8 counts to about 0..1); others: 1
_SCALES = {"counts": 1 / 16, "finished": 1 / 8, "won_points": 1 / 10, "table_points": 1 / 10,
           "trick_order": 1 / 4, "points_won": 1 / 10, "levels": 1 / 13,
           "opponents_points": 1 / 20, "penalty_points": 1 / 10}
# the kinds of move whose cards leave the hand
_SPENDS = frozenset(("play", "bury", "give", "discard", "offer"))

MOVE_DIM = CAND_WIDTH + N_CARDS + N_RANKS + 2 + N_RANKS
#: Sheng ji's rule-derived additions (see :func:`_sheng_ji_extras`)
SJ_STATE = 13
SJ_MOVE = 12


def family_of(game: str) -> str:
    """``climbing`` or ``sheng-ji``: which layout a preset's positions take."""
    return "sheng-ji" if str(game).startswith("sheng-ji") else "climbing"


def _encoder_class(family: str):
    if family == "sheng-ji":
        from .sheng_ji_encoding import ShengJiEncoder
        return ShengJiEncoder
    from .climbing_encoding import ClimbingEncoder
    return ClimbingEncoder


def _head_parts(family: str, n: int) -> list[tuple[str, int]]:
    return _encoder_class(family)(n, 1).parts()


@lru_cache(maxsize=4)
def _per_seat(family: str) -> frozenset:
    """The parts whose size is the table size (padded to MAX_SEATS)."""
    a, b = dict(_head_parts(family, 3)), dict(_head_parts(family, 4))
    return frozenset(k for k in a if a[k] != b[k])


@lru_cache(maxsize=4)
def _padded_layout(family: str) -> tuple[list[tuple[str, int]], int]:
    per = _per_seat(family)
    parts = [(name, MAX_SEATS if name in per else size)
             for name, size in _head_parts(family, 3)]
    return parts, sum(s for _, s in parts)


def state_dim(family: str) -> int:
    """Length of a position vector of the family."""
    return (_padded_layout(family)[1] + (MAX_SEATS - MIN_SEATS + 1) + 1 + 2 * N_RANKS
            + (SJ_STATE if family == "sheng-ji" else 0))


def move_dim(family: str) -> int:
    """Length of a move row of the family."""
    return MOVE_DIM + (SJ_MOVE if family == "sheng-ji" else 0)


class _Map:
    """Where each byte of a table size's observation head goes in the padded vector, and
    its scale; and an encoder of that size (reset before each use: its caches assume one
    game)."""

    def __init__(self, family: str, n: int):
        self.enc = _encoder_class(family)(n, 1)
        self.head = self.enc.slices["page"].start
        per = _per_seat(family)
        dst: list[int] = []
        scale: list[float] = []
        at = 0
        for name, size in self.enc.parts():
            width = MAX_SEATS if name in per else size
            dst.extend(range(at, at + size))
            scale.extend([_SCALES.get(name, 1.0)] * size)
            at += width
        self.dst = np.asarray(dst, dtype=np.intp)
        self.scale = np.asarray(scale, dtype=np.float32)
        self.hand = self.enc.slices["hand"]
        self.played = self.enc.slices["played"]


@lru_cache(maxsize=32)
def _map(family: str, n: int) -> _Map:
    return _Map(family, n)


def observation_head(view: dict) -> np.ndarray:
    """The env observation of the view's seat without candidates (int8), by the view path."""
    m = _map(family_of(view["game"]), view["players"])
    m.enc.reset()
    return np.frombuffer(m.enc.encode_bytes(view, None), dtype=np.int8)[:m.head]


def state_vector(view: dict) -> np.ndarray:
    """The position vector (:func:`state_dim` of the family) of the view's seat."""
    family = family_of(view["game"])
    n = view["players"]
    m = _map(family, n)
    m.enc.reset()
    obs = np.frombuffer(m.enc.encode_bytes(view, None), dtype=np.int8)[:m.head]
    size = _padded_layout(family)[1]
    out = np.zeros(state_dim(family), dtype=np.float32)
    out[m.dst] = obs * m.scale
    out[size + min(max(n, MIN_SEATS), MAX_SEATS) - MIN_SEATS] = 1.0
    at = size + MAX_SEATS - MIN_SEATS + 1
    out[at] = ((view.get("options") or {}).get("decks") or 1) / 3.0
    at += 1
    out[at:at + N_RANKS] = obs[m.hand].astype(np.float32) @ RANK_MATRIX
    out[at + N_RANKS:at + 2 * N_RANKS] = obs[m.played].astype(np.float32) @ RANK_MATRIX
    if family == "sheng-ji":
        out[at + 2 * N_RANKS:] = _sheng_ji_extras(view)[0]
    return out


def candidate_rows(texts: list[str]) -> np.ndarray:
    """The env's candidate row of each move text (int8, ``len(texts) x CAND_WIDTH``): card
    counts, kind, and the extra entry (a friend call's number; for plays of the same cards
    under several readings, 0, 1, 2 ... in list order), as
    :meth:`~shangyou.env.encoding.Encoder.fill_candidates` writes them for a page."""
    rows = np.zeros((len(texts), CAND_WIDTH), dtype=np.int8)
    seen: dict[tuple, int] = {}
    extra_at = N_CARDS + len(KINDS)
    for i, text in enumerate(texts):
        kind, cards, extra, _ = parse_move(text)
        for c in cards:
            rows[i, c] += 1
        rows[i, N_CARDS + KIND_INDEX[kind]] = 1
        if kind == "play":
            extra = seen.get(cards, -1) + 1
            seen[cards] = extra
        rows[i, extra_at] = extra
    return rows


def move_rows(view: dict, moves: list[str] | None = None) -> np.ndarray:
    """One row (``MOVE_DIM``) per move (default: the view's legal moves)."""
    if moves is None:
        moves = view["legal_moves"]
    cand = candidate_rows(moves)
    cards = cand[:, :N_CARDS].astype(np.float32)
    spends = np.array([parse_move(t)[0] in _SPENDS for t in moves], dtype=np.float32)
    hand = np.zeros(N_CARDS, dtype=np.float32)
    for t in view["hand"]:
        hand[CODE[t]] += 1.0
    after = np.maximum(hand[None, :] - cards * spends[:, None], 0.0)
    left = after.sum(axis=1, keepdims=True)
    parts = [cand.astype(np.float32), after, after @ RANK_MATRIX, left / 20.0,
             (left == 0).astype(np.float32), cards @ RANK_MATRIX]
    if family_of(view["game"]) == "sheng-ji":
        parts.append(_sheng_ji_extras(view, cards, after)[1])
    return np.concatenate(parts, axis=1)


def whole_plays(view: dict) -> dict:
    """``view``, or where a climbing play is chosen in steps (``choose``, ``pick``:
    games/climbing/steps.py) a copy listing every legal play instead: the network scores whole
    plays, and the game accepts a whole play at every step."""
    from ..games.climbing.steps import every_play, in_steps
    if family_of(view.get("game", "")) == "sheng-ji" or \
            not in_steps(view.get("legal_moves") or []):
        return view
    from ..bots.base import rules_for
    return every_play(view, rules_for(view).family)


def features(view: dict, moves: list[str] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``(state, rows)``: the position and one row per move (default: every legal move in
    the view's order)."""
    return state_vector(view), move_rows(view, moves)


def dims(family: str) -> tuple[int, int]:
    """``(state, move)`` widths of the family's network inputs."""
    return state_dim(family), move_dim(family)


# Sheng ji: what a card is under the hand's trump (a network learns it slowly from card codes)
_SJ_RANKS = ("3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2")
_SJ_POINTS = np.zeros(N_CARDS, dtype=np.float32)
_SJ_POINTS[8:12] = 5.0                      # the 5s
_SJ_POINTS[28:32] = 10.0                    # the 10s
_SJ_POINTS[40:44] = 10.0                    # the kings


@lru_cache(maxsize=64)
def _sj_tables(level: str, trump: str | None) -> tuple[np.ndarray, np.ndarray]:
    """Per card code: its suit for following (0..3 = D C H S, 4 = trump) and its strength
    (0..16: plain cards by rank, then off-suit level cards, the level card of the trump suit,
    the jokers)."""
    lv = _SJ_RANKS.index(level) if level in _SJ_RANKS else -1
    suit = trump[-1] if trump and trump[-1] in "DCHS" and trump != level else None
    ts = "DCHS".index(suit) if suit else -1
    eff = np.zeros(N_CARDS, dtype=np.int64)
    strength = np.zeros(N_CARDS, dtype=np.float32)
    for c in range(52):
        r, s_ = divmod(c, 4)
        if r == lv:
            eff[c], strength[c] = 4, 14.0 if s_ == ts else 13.0
        else:
            eff[c], strength[c] = (4 if s_ == ts else s_), float(r)
    eff[52], strength[52] = 4, 15.0
    eff[53], strength[53] = 4, 16.0
    onehot = np.zeros((N_CARDS, 5), dtype=np.float32)
    onehot[np.arange(N_CARDS), eff] = 1.0
    return onehot, strength


def _sheng_ji_extras(view: dict, cards=None, after=None):
    """``(state extras, move extras)`` of a Sheng ji position: the suit led (or trump) and the
    hand's cards per suit, the trick's points, whether the seat's side wins the trick so far
    and with what; per move: cards, points, trumps, cards of the suit led, all of it, highest
    and lowest strength, whether it beats the trick's best play so far (read from each play's
    first card: an estimate), trumps, points and void suits left, pairs."""
    onehot, strength = _sj_tables(view["level"], view.get("trump"))
    hand = np.zeros(N_CARDS, dtype=np.float32)
    for t in view["hand"]:
        hand[CODE[t]] += 1.0
    st = np.zeros(SJ_STATE, dtype=np.float32)
    trick = view.get("trick") or []
    led: int | None = None
    best_eff: int | None = None
    best = 0.0
    winner: int | None = None
    tpoints = 0.0
    for who, text in trick:
        codes = parse_move(text)[1]
        if not codes:
            continue
        tpoints += float(_SJ_POINTS[list(codes)].sum())
        e = int(np.argmax(onehot[codes[0]]))
        top = float(max(strength[c] for c in codes))
        if led is None:
            led, best, best_eff, winner = e, top, e, who
        elif (e == best_eff and top > best) or (best_eff != 4 and e == 4 and
                                                 all(onehot[c, 4] for c in codes)):
            best, best_eff, winner = top, e, who
    if led is not None:
        st[led] = 1.0
    st[5:10] = (hand @ onehot) / 12.0
    st[10] = tpoints / 30.0
    seat = view["seat"]
    mine = {seat}
    for t in view.get("teams") or ():
        if seat in t:
            mine = set(t)
    if winner is not None:
        st[11] = 1.0 if winner in mine else 0.0
        st[12] = best / 16.0
    if cards is None:
        return st, None
    k = len(cards)
    mv = np.zeros((k, SJ_MOVE), dtype=np.float32)
    n_cards = cards.sum(axis=1)
    mv[:, 0] = n_cards / 4.0
    mv[:, 1] = (cards @ _SJ_POINTS) / 20.0
    per_suit = cards @ onehot
    mv[:, 2] = per_suit[:, 4] / 4.0
    if led is not None:
        mv[:, 3] = per_suit[:, led] / 4.0
        mv[:, 4] = (per_suit[:, led] == n_cards) & (n_cards > 0)
    has = cards > 0
    smax = np.where(has, strength[None, :], -1.0).max(axis=1)
    smin = np.where(has, strength[None, :], 99.0).min(axis=1)
    mv[:, 5] = np.maximum(smax, 0.0) / 16.0
    mv[:, 6] = np.where(n_cards > 0, smin, 0.0) / 16.0
    if led is not None:
        first = np.where(has, np.arange(N_CARDS)[None, :], N_CARDS).min(axis=1)
        for i in range(k):
            if n_cards[i] == 0:
                continue
            e = int(np.argmax(onehot[first[i]]))
            all_trump = per_suit[i, 4] == n_cards[i]
            mv[i, 7] = float((e == best_eff and smax[i] > best) or
                             (best_eff != 4 and all_trump and e == 4))
    left = after @ onehot
    mv[:, 8] = left[:, 4] / 12.0
    mv[:, 9] = (after @ _SJ_POINTS) / 50.0
    mv[:, 10] = (left[:, :4] == 0).sum(axis=1) / 4.0
    mv[:, 11] = (cards >= 2).sum(axis=1) / 2.0
    return st, mv


def rewards_of(game) -> list[float]:
    """Per seat reward of a finished game.

    Climbing games: the seat's points from the hand result (``result["points"]``), or its
    team's points where the preset scores teams. Sheng ji: the levels the seat's side goes up
    (+) or the other side goes up (-)."""
    res = game.result
    n = game.n
    if "last" in res and "change" in res["last"]:                      # Sheng ji
        last = res["last"]
        change = last["change"]
        side = set(last["declarers"] if change["side"] == "declarers" else last["opponents"])
        lv = float(change["levels"])
        return [lv if s in side else -lv for s in range(n)]
    teams = res.get("teams")
    if teams and "team_points" in res:
        tp = res["team_points"]
        return [float(tp[i]) for s in range(n) for i, t in enumerate(teams) if s in t]
    if teams and "team_scores" in res:
        ts = res["team_scores"]
        return [float(ts[i]) for s in range(n) for i, t in enumerate(teams) if s in t]
    return [float(p) for p in res["points"]]
