"""The compiled core of the climbing games (``_core.c``) and the switch between it and Python.

``_core`` lists the legal plays of every climbing family (pagat, Owen, Zheng Fen, "winner") from
a hand's card counts, in C: the same plays, with the same cards, readings and order as the
Python code of :class:`~shangyou.games.zheng_shangyou.pagat.PagatFamily`,
:class:`~shangyou.games.zheng_shangyou.owen.OwenFamily`,
:class:`~shangyou.games.zheng_fen.family.ZhengFenFamily` and
:class:`~shangyou.games.zheng_shangyou.winner.WinnerFamily`, which stays the reference
(``tests/test_core_differential.py`` plays random games with both and compares them). A play
is an int ``code`` saying what the cards are read as and the cards; ``_meta`` / ``_owen_meta``
say what a code means, and the module makes the :class:`~.combo.Combo` objects from that (or
gives ``(code, cards)`` pairs, which the tests read). It also plays the search's pagat playouts (:func:`pagat_playout`),
and groups and filters the plays where a seat chooses its play in steps (``Plays.groups``,
``_core_groups.c``; for a family listed in Python :data:`steps_list`, :func:`filter_plays`,
``_core_steps.c``; ``games/climbing/steps.py``).

``setup.py`` builds the module when a C compiler is there (``pip install``, or ``python setup.py
build_ext --inplace`` in a checkout). Without it the games use the Python code and say so once,
on standard error (:mod:`shangyou.native`). ``SHANGYOU_NO_C=1`` in the environment forces the Python code (no notice).
:func:`use` switches at run time (the benchmark and the differential test compare both in one
process).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ...cards import RANK_NAMES, RANK_WORDS, SUIT_NAMES
from ...engine.moves import PASS_MOVE, PLAY, Move
from ... import native
from ...native import load, seeds_alike, shuffles_alike
from .combo import Combo


def _bind(module) -> None:
    module.bind(Combo)      # the plays come back as Combo objects, made in C
    module.bind_move(Move, PLAY, PASS_MOVE)


_core = load("shangyou.games.climbing._core", _bind)
AVAILABLE = _core is not None
ACTIVE = AVAILABLE       # read by the families and the game on every call
if AVAILABLE:
    # the legal moves of a state, the first step's moves of a choice in steps and a chosen
    # group's plays: read-only sequences whose moves are made when asked for
    for _seq in (_core.Plays, _core.Steps, _core.Subset):
        Sequence.register(_seq)


def _not_built(*args: object) -> None:
    raise RuntimeError("the compiled core is not built")


# ClimbingGame.apply's fast path in C (``_core_apply.c``): True when it made the move
apply_listed: Callable[..., Any] = _core.apply_listed if AVAILABLE else _not_built
# ClimbingGame.legal_moves' fast path in C (``_core_apply.c``): listed_moves(game, token), the
# play phase's legal moves as CompiledFamily.play_moves lists them (no choice in steps under
# way), or None: the Python code lists them
listed_moves: Callable[..., Any] = _core.listed_moves if AVAILABLE else _not_built
# ClimbingGame._start_hand's deal in C (``_core_apply.c``): deal_hands(cards, n, first, dealt),
# the hands dealt one card at a time round the table from seat ``first``, each sorted
deal_hands: Callable[..., Any] = _core.deal_hands if AVAILABLE else _not_built
# the game's legal moves in one call, a ``Plays`` sequence (``_core_moves.c``):
# family_moves(spec, family, hand, last, token), ``spec`` from the family's ``core_spec``
family_moves: Callable[..., Any] = _core.moves if AVAILABLE else _not_built


SHUFFLE = AVAILABLE and shuffles_alike(_core)
# random.Random(seed), its randrange(n), then its shuffle(cards), in C (games/_shuffle.h):
# (the draw, the generator's state as bytes), for int seeds 0 <= seed < 2**64
SEEDED = SHUFFLE and seeds_alike(_core)
seeded_shuffle: Callable[..., Any] = _core.seeded_shuffle if AVAILABLE else _not_built


def shuffle(rng, cards: list) -> None:
    """``rng.shuffle(cards)``, in C when the core is on (:func:`shangyou.native.shuffle`)."""
    native.shuffle(_core if ACTIVE and SHUFFLE else None, rng, cards)


def use(active: bool) -> bool:
    """Use the compiled core (when it is built) or the Python code; returns the previous
    setting. ``use(True)`` without the module leaves the Python code on."""
    global ACTIVE
    prev = ACTIVE
    ACTIVE = bool(active) and AVAILABLE
    if AVAILABLE:
        _core.set_active(ACTIVE)
    return prev


def install_methods(cls: type, listing_limit: int, step_limit: int) -> None:
    """Make ``cls.legal_moves`` and ``cls.apply`` C methods (``_core_methods.c``,
    ``games/_methods.h``) that do what the Python methods do with the core on, without their
    Python frames; the Python methods stay as ``_legal_moves_py`` and ``_apply_py`` (the
    reference, and what the C methods call with the core off). Without the module the class
    keeps its Python methods."""
    setattr(cls, "_legal_moves_py", cls.__dict__["legal_moves"])
    setattr(cls, "_apply_py", cls.__dict__["apply"])
    if AVAILABLE:
        legal_moves, apply = _core.methods(cls, listing_limit, step_limit)
        setattr(cls, "legal_moves", legal_moves)
        setattr(cls, "apply", apply)
        _core.set_active(ACTIVE)


# ----------------------------------------------------------------------- pagat plays
K_SINGLE, K_SET, K_SEQ, K_MSEQ = 0, 1, 2, 3
SINGLE_CLS = ("single",)
_META: dict = {}


def _meta(code: int):
    """(kind, cls, key, tier, label) of a pagat play code of ``_core`` (layout in _core.h)."""
    got = _META.get(code)
    if got is not None:
        return got
    kind = code & 3
    f1, f2, f3, pure = code >> 2 & 15, code >> 6 & 15, code >> 10 & 255, code >> 18 & 1
    if kind == K_SINGLE:
        got = ("single", SINGLE_CLS, (f1,), 0, RANK_NAMES[f1])
    elif kind == K_SET:
        got = ("set", ("set", f3), (f1, pure), 0, RANK_WORDS[f1])
    elif kind == K_SEQ:
        label = f"{RANK_NAMES[f1]}-{RANK_NAMES[f2]}" + ("" if f3 == 4 else " " + SUIT_NAMES[f3])
        got = ("sequence", ("seq", f2 - f1 + 1), (0 if f3 == 4 else 1, f2, pure), 0, label)
    else:
        got = ("multiple sequence", ("mseq", f2 - f1 + 1, f3), (f2, pure), 0,
               f"{RANK_NAMES[f1]}-{RANK_NAMES[f2]}x{f3}")
    _META[code] = got
    return got


def pagat_spec(seq_top: int, singles) -> tuple:
    """The ``spec`` of :data:`family_moves` for the pagat family."""
    return (0, seq_top, 0, 0, _meta, _META, singles)


_PREV_KIND = {"single": K_SINGLE, "set": K_SET, "seq": K_SEQ, "mseq": K_MSEQ}


def pagat_leads(hand, seq_top: int, singles) -> list[Combo]:
    """PagatFamily.leads in C (``singles``: the family's shared single combos by card)."""
    return _core.pagat_plays(hand, seq_top, -1, 0, 0, 0, 0, _meta, _META, singles)


def pagat_beat_levels(hands, seq_top: int, prev: Combo, per: int) -> bytes | None:
    """Family.beat_levels for the pagat family in C (one call for every group of ``per``
    hands); None for a play the core does not read (a bomb)."""
    return _core.pagat_beat_levels(hands, seq_top, prev, per)


def pagat_combo(code: int, cards: tuple) -> Combo:
    """The Combo of a pagat play given by its code and cards (as the plays of ``_core``)."""
    kind, cls, key, tier, label = _meta(code)
    return Combo(kind, cls, key, cards, tier, label)


class PagatPlanner:
    """The heuristic bot's plan of pagat hands of one pack in C (``_core_hplan.c``), holding one
    decision's caches: ``hands`` the sampled opponent hands (card codes), ``samples`` sampled
    deals of them (``bots/climbing_heuristic.py`` keeps the reference and names ``params``)."""

    __slots__ = ("core", "combos")

    def __init__(self, hands, samples: int, seq_top: int, params: tuple):
        self.core = _core.HeurPlan([sum(map(_BIT.__getitem__, h)) for h in hands], samples,
                                   seq_top, params)
        self.combos: dict = {}      # (code, cards) -> Combo, for this decision

    def plan(self, hand) -> tuple[float, tuple]:
        """(cost, combos) of a hand (card codes, no card twice)."""
        cost, parts = self.core.plan(sum(map(_BIT.__getitem__, hand)))
        combos = self.combos
        out = []
        for part in parts:
            combo = combos.get(part)
            if combo is None:
                combo = combos[part] = pagat_combo(*part)
            out.append(combo)
        return cost, tuple(out)

    def plain(self, hand, control: float) -> int:
        """The plays of the plan of ``hand`` that cost more than ``control`` (not controls),
        their costs read from the decision's memo in C."""
        _, parts = self.core.plan(sum(map(_BIT.__getitem__, hand)))
        cost = self.core.cost
        return sum(1 for code, cards in parts
                   if cost(code, sum(map(_BIT.__getitem__, cards))) > control)


_BIT = tuple(1 << c for c in range(64))     # a card code's bit in a hand's mask


def pagat_follows(hand, seq_top: int, prev: Combo, singles) -> list[Combo] | None:
    """PagatFamily.follows in C; None for a play that is not of the pagat family."""
    kind = _PREV_KIND.get(prev.cls[0])
    if kind is None or prev.tier:
        return None
    cls, key = prev.cls, prev.key
    if kind == K_SINGLE:
        args = (key[0], 0, 0, 0)
    elif kind == K_SET:
        args = (cls[1], key[0], key[1], 0)
    elif kind == K_SEQ:
        args = (cls[1], key[0], key[1], key[2])
    else:
        args = (cls[1], cls[2], key[0], key[1])
    return _core.pagat_plays(hand, seq_top, kind, *args, _meta, _META, singles)


# ------------------------------------------------------------------------ Owen plays
O_KINDS = ("single", "pair", "trip", "quad", "full house", "straight", "stair", "plate",
           "rocket")
_O_CLS = {"single": ("single",), "pair": ("pair",), "trip": ("trip",), "quad": ("bomb",),
          "full house": ("full house",), "rocket": ("rocket",)}
_O_META: dict = {}


def _owen_meta(code: int):
    """(kind, cls, key, tier, label) of an Owen play code (layout in _core_owen.c)."""
    got = _O_META.get(code)
    if got is not None:
        return got
    kind = O_KINDS[code & 15]
    f1, f2, f3, nat = code >> 4 & 15, code >> 8 & 15, code >> 12 & 15, code >> 16 & 1
    if kind == "single":
        got = (kind, _O_CLS[kind], (f1,), 0, RANK_NAMES[f1])
    elif kind in ("pair", "trip", "quad"):
        got = (kind, _O_CLS[kind], (f1, nat), 1 if kind == "quad" else 0, RANK_WORDS[f1])
    elif kind == "full house":
        got = (kind, _O_CLS[kind], (f1, nat), 0, f"{RANK_WORDS[f1]} over {RANK_WORDS[f2]}")
    elif kind == "straight":
        got = (kind, (kind, f3), (f1,), 0, f"{RANK_NAMES[f2]}-{RANK_NAMES[f1]}")
    elif kind in ("stair", "plate"):
        got = (kind, (kind, f3), (f1, nat), 0, f"{RANK_NAMES[f2]}-{RANK_NAMES[f1]}")
    else:
        got = (kind, _O_CLS[kind], (), 2, "BJ RJ")
    _O_META[code] = got
    return got


OWEN_SPEC = (1, 0, 0, 0, _owen_meta, _O_META, None)     # see family_moves


def owen_leads(hand) -> list[Combo]:
    """OwenFamily.leads in C (ValueError for a card held twice: Owen has one pack)."""
    return _core.owen_plays(hand, -1, 0, 0, 0, _owen_meta, _O_META)


_O_PREV = {("single",): 0, ("pair",): 1, ("trip",): 2, ("bomb",): 3, ("full house",): 4,
           ("rocket",): 8}
_O_RUNS = {"straight": (5, 5), "stair": (6, 2), "plate": (7, 2)}   # kind, fewest ranks


def owen_follows(hand, prev: Combo) -> list[Combo] | None:
    """OwenFamily.follows in C; None for a play the core does not describe."""
    args = _owen_prev(prev)
    return None if args is None else _core.owen_plays(hand, *args, _owen_meta, _O_META)


def _owen_prev(prev: Combo) -> tuple | None:
    """owen_plays' description (kind, arg, key, tier) of the play to beat, or None."""
    cls, key = prev.cls, prev.key
    kind = _O_PREV.get(cls)
    arg = 0
    if kind is None:
        run = _O_RUNS.get(cls[0]) if len(cls) == 2 else None
        if run is None or not isinstance(cls[1], int) or not run[1] <= cls[1] <= 12:
            return None
        kind, arg = run[0], cls[1]
    if kind == 0 or kind == 5:
        k = key[0] if kind == 0 else 2 * key[0]
    elif kind == 8:
        k = 0
    else:
        k = 2 * key[0] + key[1]
    if prev.tier != (1 if kind == 3 else 2 if kind == 8 else 0) or not 0 <= k <= 30:
        return None
    return kind, arg, k, prev.tier


# ------------------------------------------------------------------- Zheng Fen plays
Z_SETS = {2: ("pair", ("pair",)), 3: ("triple", ("triple",)), 4: ("quartet", ("quartet",))}
Z_SEQS = {2: ("sequence of pairs", ("pairs",), "pairs"),
          3: ("sequence of triples", ("triples",), "triples"),
          4: ("sequence of quartets", ("quartets",), "quartets")}
Z_SUITS = ("diamonds", "clubs", "hearts", "spades")
Z_SPECIAL = ("5-10-K", "5-10-K in one suit", "four twos")
_Z_META: dict = {}


def _zf_meta(code: int):
    """(kind, cls, key, tier, label) of a Zheng Fen play code (layout in _core_zf.c)."""
    got = _Z_META.get(code)
    if got is not None:
        return got
    kind = code & 15
    f1, f2, f3 = code >> 4 & 15, code >> 8 & 15, code >> 12 & 15
    if kind == 0:
        got = ("single", SINGLE_CLS, (f1,), 0, RANK_NAMES[f1])
    elif kind <= 3:
        name, cls = Z_SETS[kind + 1]
        got = (name, cls, (f1,), 0, RANK_WORDS[f1])
    elif kind <= 6:
        name, cls, word = Z_SEQS[kind - 2]
        got = (name, cls, (f1, f1 - f2 + 1), 0, f"{RANK_NAMES[f2]}-{RANK_NAMES[f1]} {word}")
    elif kind == 7:
        got = ("full house", ("full house",), (f1,), 0, RANK_WORDS[f1] + " full")
    elif kind == 8:
        got = ("suit sequence", ("suit sequence",), (f1, f1 - f2 + 1), 0,
               f"{RANK_NAMES[f2]}-{RANK_NAMES[f1]} in {Z_SUITS[f3]}")
    else:
        got = ("special", ("special",), (f1,), 1, Z_SPECIAL[f1])
    _Z_META[code] = got
    return got


_Z_PREV = {("single",): 0, ("pair",): 1, ("triple",): 2, ("quartet",): 3, ("pairs",): 4,
           ("triples",): 5, ("quartets",): 6, ("full house",): 7, ("suit sequence",): 8,
           ("special",): 9}


ZF_SPEC = (2, 0, 0, 0, _zf_meta, _Z_META, None)         # see family_moves


def zf_leads(hand) -> list[Combo]:
    """ZhengFenFamily.leads in C (ValueError for a card held twice: one pack)."""
    return _core.zf_plays(hand, -1, 0, 0, _zf_meta, _Z_META)


def zf_follows(hand, prev: Combo) -> list[Combo] | None:
    """ZhengFenFamily.follows in C; None for a play the core does not describe."""
    args = _zf_prev(prev)
    return None if args is None else _core.zf_plays(hand, *args, _zf_meta, _Z_META)


def _zf_prev(prev: Combo) -> tuple | None:
    """zf_plays' description (kind, b0, b1) of the play to beat, or None."""
    kind = _Z_PREV.get(prev.cls)
    key = prev.key
    if kind is None or len(key) != (2 if kind in (4, 5, 6, 8) else 1):
        return None
    b0, b1 = key[0], key[1] if len(key) == 2 else 0
    if not (isinstance(b0, int) and isinstance(b1, int) and -1 <= b0 <= 14 and 0 <= b1 <= 13):
        return None
    return kind, b0, b1


# ---------------------------------------------------------------------- winner plays
W_KINDS = (("single", ("single",)), ("pair", ("pair",)), ("triple", ("triple",)),
           ("consecutive pairs", "pairs"), ("consecutive triples", "triples"),
           ("full house", ("full house",)), ("straight", "straight"), ("bomb", ("bomb",)),
           ("straight flush", "straight flush"))
_W_META: dict = {}


def _winner_meta(code: int):
    """(kind, cls, key, tier, label) of a "winner" play code (layout in _core_winner.c)."""
    got = _W_META.get(code)
    if got is not None:
        return got
    k = code & 15
    a, b, c = code >> 4 & 63, code >> 10 & 15, code >> 14 & 7
    kind, cls = W_KINDS[k]
    if k in (3, 4):
        got = (kind, (cls, b), (a,), 0, kind)
    elif k in (6, 8):
        got = (kind, (cls, b), (a,) if c == 0 else (a, c - 1), 0 if k == 6 else 2, kind)
    else:
        got = (kind, cls, (a,), 1 if k == 7 else 0, kind)
    _W_META[code] = got
    return got


_W_PREV = {("single",): (0, 0), ("pair",): (1, 0), ("triple",): (2, 0),
           ("full house",): (5, 0), ("bomb",): (7, 1)}
_W_RUNS = {"pairs": (3, 0), "triples": (4, 0), "straight": (6, 0), "straight flush": (8, 2)}


def _winner_options(fam) -> tuple:
    return (fam.min_straight, 1 if fam.straight_needs_higher_rank else 0,
            1 if fam.bomb == "quad" else 0)


def winner_spec(fam) -> tuple:
    """The ``spec`` of :data:`family_moves` for a "winner" family."""
    return (3, *_winner_options(fam), _winner_meta, _W_META, None)


def winner_leads(fam, hand) -> list[Combo]:
    """WinnerFamily.leads in C."""
    return _core.winner_plays(hand, *_winner_options(fam), -1, 0, 0, 0, _winner_meta, _W_META)


def winner_follows(fam, hand, prev: Combo) -> list[Combo] | None:
    """WinnerFamily.follows in C; None for a play the core does not describe."""
    args = _winner_prev(fam, prev)
    if args is None:
        return None
    return _core.winner_plays(hand, *_winner_options(fam), *args, _winner_meta, _W_META)


def _winner_prev(fam, prev: Combo) -> tuple | None:
    """winner_plays' description (kind, a, b, c) of the play to beat, or None."""
    cls, key = prev.cls, prev.key
    got = _W_PREV.get(cls)
    b = c = 0
    if got is None:
        got = _W_RUNS.get(cls[0]) if len(cls) == 2 and isinstance(cls[1], int) else None
        if got is None or not 2 <= cls[1] <= 13:
            return None
        b = cls[1]
        if got[0] in (6, 8):
            if len(key) != (1 if fam.straight_needs_higher_rank else 2):
                return None
            c = key[1] + 1 if len(key) == 2 else 0
    kind, tier = got
    if prev.tier != tier or not key or not isinstance(key[0], int) or not 0 <= key[0] <= 53 \
            or not 0 <= c <= 4:
        return None
    return kind, key[0], b, c


def code_of(combo: Combo) -> int:
    """A code of ``_core`` for a pagat combo, as far as following it needs (a single-suited
    sequence gets suit 0: the suit does not change what beats it)."""
    kind, cls, key = combo.cls[0], combo.cls, combo.key
    if kind == "single":
        return key[0] << 2
    if kind == "set":
        return K_SET | key[0] << 2 | cls[1] << 10 | key[1] << 18
    if kind == "seq":
        hi = key[1]
        return K_SEQ | (hi - cls[1] + 1) << 2 | hi << 6 | (0 if key[0] else 4) << 10 | \
            key[2] << 18
    if kind == "mseq":
        hi = key[0]
        return K_MSEQ | (hi - cls[1] + 1) << 2 | hi << 6 | cls[2] << 10 | key[1] << 18
    raise ValueError(f"not a pagat play: {combo!r}")


def pagat_playout(g, team_of: dict, trace: bool = False):
    """Play the hand of ``g`` (a single hand of a pagat preset, in its play phase) out in C with
    the plan-aware playout policy's default settings, without changing ``g``: (the finishing
    order, the moves as (seat, code or None, cards or None) when ``trace``)."""
    last = g.last
    return _core.pagat_playout(
        g.hands, g.to_act, None if last is None else (code_of(last), last.cards),
        g.last_seat, g.passes, g.order,
        [team_of[s] for s in range(g.n)] if team_of else None,
        g.rules.family.seq_top, trace)


# --------------------------------------------------------- plays counted, for the steps
#: ``steps_list(cap, family, hand, last, token)``: the legal moves of the play phase for ``hand``
#: (leads, or ``pass`` and the follows of ``last``) as ``steps.list_plays`` lists them, when
#: there are at most ``cap`` plays (or the family listed them in Python: then however many);
#: for more, the plays counted in C by code (what they are read as) without making each one
#: (``_core_steps.c``): ``(firsts, codes, counts)``, per code its first play (a Move or a
#: Combo), the code and how many plays have it (at least 2 where the count says more than 1).
steps_list: Any = _core.steps_list if AVAILABLE else None


def is_plays(moves) -> bool:
    """Is ``moves`` the core's ``Plays`` sequence (``Plays.groups`` groups it for the steps)?"""
    return AVAILABLE and type(moves) is _core.Plays


def filter_plays(fam, hand, last, token, codes, picked, cap: int):
    """The plays of ``hand`` whose code is one of ``codes`` and that hold the ``picked``
    cards, found in C: (how many, the first ``cap`` of them, as Moves or Combos, per card code
    the most copies of it in any of them)."""
    _core.steps_begin(codes, picked, cap)
    try:
        if fam.play_moves(hand, last, token) is None:
            if last is None:
                fam.leads(hand)
            else:
                fam.follows(hand, last)
    finally:
        total, kept, maxima = _core.steps_end()
    return total, kept, maxima
