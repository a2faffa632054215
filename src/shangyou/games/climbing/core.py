"""The compiled core of the climbing games (``_core.c``) and the switch between it and Python.

``_core`` lists the legal plays of the pagat family from a hand's card counts, in C: the same
plays, with the same cards, readings and order as the Python code of
:class:`~shangyou.games.zheng_shangyou.pagat.PagatFamily`, which stays the reference
(``tests/test_core_differential.py`` plays random games with both and compares them). A play
comes back as ``(code, cards)``: ``code`` an int saying what the cards are read as; it becomes a
:class:`~.combo.Combo` here.

``setup.py`` builds the module when a C compiler is there (``pip install``, or ``python setup.py
build_ext --inplace`` in a checkout). Without it the games use the Python code and say so once,
on standard error. ``SHANGYOU_NO_C=1`` in the environment forces the Python code (no notice).
:func:`use` switches at run time (the benchmark and the differential test compare both in one
process).
"""

from __future__ import annotations

import os
import sys

from ...cards import RANK_NAMES, RANK_WORDS, SUIT_NAMES
from .combo import Combo

_core = None
if not os.environ.get("SHANGYOU_NO_C"):
    try:
        from . import _core
    except ImportError:    # pragma: no cover - built without a C compiler
        print("shangyou: the compiled core is not built (no C compiler at install time?); "
              "the climbing games use their Python code, which is slower", file=sys.stderr)

AVAILABLE = _core is not None
ACTIVE = AVAILABLE       # read by the families on every call


def use(active: bool) -> bool:
    """Use the compiled core (when it is built) or the Python code; returns the previous
    setting. ``use(True)`` without the module leaves the Python code on."""
    global ACTIVE
    prev = ACTIVE
    ACTIVE = bool(active) and AVAILABLE
    return prev


# ----------------------------------------------------------------------- pagat plays
K_SINGLE, K_SET, K_SEQ, K_MSEQ = 0, 1, 2, 3
SINGLE_CLS = ("single",)
_META: dict = {}


def _meta(code: int):
    """(kind, cls, key, label) of a play code of ``_core`` (see the layout in _core.c)."""
    got = _META.get(code)
    if got is not None:
        return got
    kind = code & 3
    f1, f2, f3, pure = code >> 2 & 15, code >> 6 & 15, code >> 10 & 255, code >> 18 & 1
    if kind == K_SINGLE:
        got = ("single", SINGLE_CLS, (f1,), RANK_NAMES[f1])
    elif kind == K_SET:
        got = ("set", ("set", f3), (f1, pure), RANK_WORDS[f1])
    elif kind == K_SEQ:
        label = f"{RANK_NAMES[f1]}-{RANK_NAMES[f2]}" + ("" if f3 == 4 else " " + SUIT_NAMES[f3])
        got = ("sequence", ("seq", f2 - f1 + 1), (0 if f3 == 4 else 1, f2, pure), label)
    else:
        got = ("multiple sequence", ("mseq", f2 - f1 + 1, f3), (f2, pure),
               f"{RANK_NAMES[f1]}-{RANK_NAMES[f2]}x{f3}")
    _META[code] = got
    return got


def _combos(plays, singles) -> list[Combo]:
    out = []
    append = out.append
    meta = _META
    for code, cards in plays:
        m = meta.get(code)
        if m is None:
            m = _meta(code)
        if m[1] is SINGLE_CLS:
            append(singles[cards[0]])
        else:
            append(Combo(m[0], m[1], m[2], cards, 0, m[3]))
    return out


_PREV_KIND = {"single": K_SINGLE, "set": K_SET, "seq": K_SEQ, "mseq": K_MSEQ}


def pagat_leads(hand, seq_top: int, singles) -> list[Combo]:
    """PagatFamily.leads in C (``singles``: the family's shared single combos by card)."""
    return _combos(_core.pagat_plays(hand, seq_top, -1, 0, 0, 0, 0), singles)


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
    return _combos(_core.pagat_plays(hand, seq_top, kind, *args), singles)


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
