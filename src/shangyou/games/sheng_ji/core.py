"""The compiled core of Sheng ji (``_core*.c``) and the switch between it and Python.

``_core`` does the hot part of a Sheng ji hand in C (docs/core-sheng-ji.md): the legal moves of
the play phase (leads, throws, follows, the cards of a follow picked one at a time) and of the
bury, as a lazy sequence of moves (``Moves``); the plain moves of those phases (the card added
to a throw or to a follow being picked, a lead with its throw check, a follow, the end of a
trick, a card buried); the draws of the deal up to a seat with a bid, the legal bids, the
deal's passes and bids listed and made; the shuffle. From the bury on it holds the hand's
play state behind the game (``_core_hand.c``: the attributes made again when read, ``flush``).
The Python code of :class:`~.game.ShengJiGame` (with :mod:`.follow`, :mod:`.tricks`,
:mod:`.order`) stays the reference: ``tests/test_sheng_ji_core_differential.py`` plays random
games with both and compares every listing and every state.

``setup.py`` builds the module when a C compiler is there. Without it the game uses the Python
code and says so once, on standard error (:mod:`shangyou.native`); ``SHANGYOU_NO_C=1`` forces
the Python code (no notice); :func:`use` switches at run time.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ...cards import CARD_TEXT, CARDS
from ...engine.moves import Move
from ... import native
from ...native import load, seeds_alike, shuffles_alike
from .order import Unit

# the kinds of game.py (PLAY_K, THROW, COMMIT, PICK, BURY_K, PASS, BID, CALL_K) and the text of
# COMMIT
KINDS = ("play", "throw", "commit", "pick", "bury", "pass", "bid", "call")
COMMIT_TEXT = "play"


def _bind(module) -> None:
    module.bind(Move, Unit, CARDS, CARD_TEXT, KINDS, COMMIT_TEXT)


_core = load("shangyou.games.sheng_ji._core", _bind)
AVAILABLE = _core is not None
ACTIVE = AVAILABLE       # read by the game on every call
if AVAILABLE:
    Sequence.register(_core.Moves)


def _not_built(*args: object) -> None:
    raise RuntimeError("the compiled core is not built")


# ShengJiGame.apply's fast path (``_core_apply.c``): True when it made the move
apply_listed: Callable[..., Any] = _core.apply_listed if AVAILABLE else _not_built
# the legal moves of the play phase and the bury (``_core_moves.c``): a Moves sequence, or
# None where the Python code lists them
list_moves: Callable[..., Any] = _core.moves if AVAILABLE else _not_built
# the deal's draws up to a seat with a bid (True) or to the end of the stock (False)
draw: Callable[..., Any] = _core.draw if AVAILABLE else _not_built
# the deal's record (ShengJiGame._start_hand): dealt(stock, n, first) -> each seat's cards
# sorted (a tuple of tuples), or None where the Python code records it
dealt: Callable[..., Any] = _core.dealt if AVAILABLE else _not_built
# ShengJiGame._bids_for: bids(hand, level_rank, bid, seat) -> [(card, count)] or None
bids: Callable[..., Any] = _core.bids if AVAILABLE else _not_built
# a clone's packing (clone.py): pack_clone(hands, won, stock, seen) -> bytes or None, and
# its lists of cards: card_lists(packed, start, lengths)
pack_clone: Callable[..., Any] = _core.pack_clone if AVAILABLE else _not_built
card_lists: Callable[..., Any] = _core.card_lists if AVAILABLE else _not_built
# the hand held in C (``_core_hand.c``): flush(game, all=True) makes its attributes again
# (True), or says none is held (False); all=False: the hand's, the events, the log and the
# tricks stay held. add_event(game, event): the event recorded after the held ones (True), or
# none held (False)
flush: Callable[..., Any] = _core.flush if AVAILABLE else _not_built
add_event: Callable[..., Any] = _core.add_event if AVAILABLE else _not_built
# ShengJiGame._advance_deal (``_core_ends.c``): advance_deal(game) -> True when a seat has a
# bid to make, False when the deal is over (then ``_end_deal``), None where Python goes on
advance_deal: Callable[..., Any] = _core.advance_deal if AVAILABLE else _not_built
# ShengJiGame._end_hand (``_core_ends.c``): end_hand(game, last_winner, last_units, winning)
# -> None where the Python code (``ends.end_hand``) makes it, False when the game is over,
# True when the next hand is to be dealt
end_hand: Callable[..., Any] = _core.end_hand if AVAILABLE else _not_built
# the search's playout, Sim.run of bots/sheng_ji_search.py (``_core_rollout.c``): the state at
# the hand's end, or None where the Python code plays it
rollout: Callable[..., Any] = _core.rollout if AVAILABLE else _not_built


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


def install_methods(cls: type) -> None:
    """Make ``cls.legal_moves`` and ``cls.apply`` C methods (``_core_methods.c``,
    ``games/_methods.h``) that do what the Python methods do with the core on, without their
    Python frames; the Python methods stay as ``_legal_moves_py`` and ``_apply_py`` (the
    reference, and what the C methods call with the core off). Without the module the class
    keeps its Python methods."""
    setattr(cls, "_legal_moves_py", cls.__dict__["legal_moves"])
    setattr(cls, "_apply_py", cls.__dict__["apply"])
    if AVAILABLE:
        legal_moves, apply = _core.methods(cls)
        setattr(cls, "legal_moves", legal_moves)
        setattr(cls, "apply", apply)
        _core.set_active(ACTIVE)
