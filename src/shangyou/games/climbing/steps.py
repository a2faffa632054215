"""The choice of a play in steps, where a seat has very many legal plays (docs/rules/zheng-shangyou.md,
*Choosing a play in steps*; docs/protocol.md).

With more than :data:`STEP_LIMIT` legal moves, ``legal_moves()`` does not list every play:

1. **By rank.** The plays are grouped by what they are played as (number of cards, kind and
   reading: ``choose 6 multiple sequence 3-5x2``), whichever physical cards make them. A group
   of one play is offered as that play; ``pass`` stays offered where it is legal.
2. **Cards.** After ``choose ...``, the plays of that group are listed when there are at most
   :data:`STEP_LIMIT` of them; otherwise cards are picked one at a time (``pick 2H``), each a
   card that some play of the group still holds beside the cards picked so far, until the plays
   left fit under the limit and are listed. ``pass`` stays offered.

A whole play (or ``pass``) is accepted at every step, so logs of plays typed at once replay,
and a ``choose`` of another group is accepted while choosing (a change of mind; it is not listed).
The full listing stays available to the engine's own users (search playouts, the environments):
:meth:`ClimbingGame.all_moves`.

Where the compiled core makes the plays (``core.py``), no step makes every play as an object:
the game's ``Plays`` listing is grouped in C in one pass (``Plays.groups``,
:meth:`Grouping.of_listing`): the first step's moves are the core's ``Steps`` sequence (each
move made when asked for), and after a ``choose`` the plays of that group holding the picked
cards are found in that listing (``Steps.select``: a ``Subset`` sequence, or the cards to
pick next). Where a family lists in Python, ``core.steps_list`` counts the plays by code and
keeps the first of each, and :func:`~.core.filter_plays` generates them again, keeping those
of the chosen group. The Python way (no core, or a play the core does not describe) lists
every play and groups them: it is the reference the core is tested against
(``tests/test_climbing_steps.py``, ``tests/test_core_differential.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...engine.moves import CHOOSE, PASS_MOVE, PICK, PLAY, Move
from ...errors import IllegalMove
from . import core

STEP_LIMIT = 400        # more legal moves than this: the play is chosen in steps
# more legal plays than this: the core does not list them for a decision (it would take more
# than a millisecond or so: two-pack hands have up to millions), it counts them in steps
LISTING_LIMIT = 4096
SMALL_HAND = 10         # bounded_leads lists a hand this small whole

_GROUP_TEXT: dict = {}  # (n, kind, label) -> the group's choose text


def list_plays(fam, hand, last, token) -> Sequence[Move]:
    """Every legal move of the play phase for ``hand`` (``pass`` first when following),
    the plays in the family's order: what ``ClimbingGame.all_moves`` lists and bots weigh
    (a list, or the compiled core's read-only ``Plays`` sequence)."""
    moves = fam.play_moves(hand, last, token)      # the compiled core, where it applies
    if moves is not None:
        return moves
    if last is None:
        return [Move(PLAY, c.cards, c, None, fam, token) for c in fam.leads(hand)]
    out = [PASS_MOVE]
    for c in fam.follows(hand, last):
        out.append(Move(PLAY, c.cards, c, None, fam, token))
    return out


def bounded_plays(fam, hand, last, token, limit: int = LISTING_LIMIT) -> Sequence[Move]:
    """The legal moves of the play phase for ``hand`` as :func:`list_plays` lists them when
    there are at most ``limit`` plays; past that, ``pass`` first when following, then one
    play per code, what a play is read as (kind, size, reading: the first play of each code
    in the family's order), at most ``limit`` of them. What :meth:`ClimbingGame.all_moves`,
    :func:`every_play` and so every bot and the environments weigh: a two-pack hand has up
    to millions of plays, and none of them is ever listed whole (the compiled core counts
    them, ``core.steps_list``: about a millisecond). The plays a representative stands for
    differ from it only in which physical cards make the same reading (which copies of a
    card in two packs, a wild card or a natural one, the suits of a plain sequence); the
    game still accepts each of them, typed or chosen in steps. Without the compiled core
    (and for a follow the core leaves to Python) every play is listed, the Python reference,
    and past ``limit`` thinned to the first play of each group (size, kind and reading)."""
    return _bounded(fam, hand, last, token, limit)[0]


def _bounded(fam, hand, last, token, limit: int) -> tuple[Sequence[Move], bool]:
    """(:func:`bounded_plays`, whether it is one play per reading rather than every play)."""
    if core.ACTIVE and core.steps_list is not None:
        try:
            got = core.steps_list(limit, fam, hand, last, token)
        except ValueError:                      # a hand the core refuses
            got = None
        if type(got) is tuple:
            out = [PASS_MOVE] if last is not None else []
            for f in got[0][:limit]:
                out.append(f if isinstance(f, Move) else _move(f, fam, token))
            return out, True
    else:
        got = None
    moves = got if got is not None else list_plays(fam, hand, last, token)
    if len(moves) - (last is not None) <= limit:
        return moves, False
    thinned: list[Move] = [PASS_MOVE] if last is not None else []
    seen: set[tuple] = set()
    for m in moves:
        c = m.combo
        if c is None:
            continue
        key = (len(c.cards), c.kind, c.label)
        if key not in seen and len(seen) < limit:
            seen.add(key)
            thinned.append(m)
    return thinned, True


def bounded_leads(fam, hand, limit: int = LISTING_LIMIT) -> list:
    """``fam.leads(hand)`` (Combos) when the hand has at most ``limit`` leads; past that one
    lead per code, as :func:`bounded_plays` (for the heuristic's plan of a hand, which asks
    the leads of many parts of it). A hand of at most :data:`SMALL_HAND` cards is listed
    whole without counting first (its leads are at most its sub-multisets' readings: few)."""
    if len(hand) > SMALL_HAND and core.ACTIVE and core.steps_list is not None:
        try:
            listed = fam.play_moves(hand, None, None, limit)
            got = core.steps_list(limit, fam, hand, None, None) if listed is False else None
        except ValueError:                      # a hand the core refuses
            got = None
        if type(got) is tuple:
            return [getattr(f, "combo", f) for f in got[0][:limit]]
    return fam.leads(hand)


def in_steps(moves: list[str]) -> bool:
    """Do these legal move texts offer the choice of a play in steps?"""
    return any(m.startswith(("choose ", "pick ")) for m in moves)


def every_play(view: dict, family) -> dict:
    """``view`` itself, or where its legal moves are steps of a choice (``choose``, ``pick``) a
    copy whose ``legal_moves`` are the whole plays of :func:`bounded_plays` (every legal
    play, up to :data:`LISTING_LIMIT` of them), in the order of ``all_moves()``: a bot
    weighs them all and answers one whole play, which the game accepts at every step."""
    moves = view.get("legal_moves") or []
    if not in_steps(moves):
        return view
    from ...cards import parse
    hand = sorted(parse(" ".join(view["hand"])))
    last = view.get("last")
    prev = None
    if last:
        readings = family.combos(sorted(parse(last["cards"])))
        prev = next((c for c in readings if c.label == last["reading"]), readings[0])
    out = dict(view)
    plays, by_reading = _bounded(family, hand, prev, None, LISTING_LIMIT)
    out["legal_moves"] = [str(m) for m in plays]
    if by_reading:
        out["by_reading"] = True        # one play per reading: other plays are legal too
    return out


def group_text(combo) -> str:
    """The ``choose`` text of the group of a play: ``choose <cards> <kind> <reading>``."""
    n = len(combo.cards)
    key = (n, combo.kind, combo.label)
    text = _GROUP_TEXT.get(key)
    if text is None:
        text = f"choose {n} {combo.describe()}"
        if len(_GROUP_TEXT) < 100_000:
            _GROUP_TEXT[key] = text
    return text


def groups(plays: list[Move]) -> dict[str, list[Move]]:
    """The plays (no pass) by group text, groups in order of their first play."""
    by_key: dict = {}
    for m in plays:
        c = m.combo
        if c is None:
            continue
        key = (len(c.cards), c.kind, c.label)
        got = by_key.get(key)
        if got is None:
            by_key[key] = [m]
        else:
            got.append(m)
    return {group_text(ms[0].combo): ms for ms in by_key.values()}


def _contains(cards: tuple, need: dict) -> bool:
    count = cards.count
    for c, k in need.items():
        if count(c) < k:
            return False
    return True


def candidates(group: list[Move], picked: tuple) -> list[Move]:
    """The plays of a group that hold every picked card (with its multiplicity)."""
    if not picked:
        return group
    need: dict = {}
    for c in picked:
        need[c] = need.get(c, 0) + 1
    return [m for m in group if _contains(m.cards, need)]


def next_picks(cands: list[Move], picked: tuple) -> list[int]:
    """The cards that some candidate holds beyond the cards picked."""
    seen: set = set()
    for m in cands:
        seen.update(m.cards)
    need: dict = {}
    for c in picked:
        need[c] = need.get(c, 0) + 1
    for c, k in need.items():
        if c in seen and not any(m.cards.count(c) > k for m in cands):
            seen.discard(c)
    return sorted(seen)


class Group:
    """One group of plays: its first play, whether it has more, and what finds the rest:
    its index in the core's grouping (``Steps``), the core's codes, or (the Python way) the
    plays themselves."""

    __slots__ = ("codes", "first", "index", "many", "plays")

    def __init__(self, first, many: bool, codes: list | None, plays: list | None,
                 index: int | None = None):
        self.first = first      # a Move or a Combo
        self.many = many
        self.codes = codes
        self.plays = plays
        self.index = index


class Grouping:
    """The plays of one state (a hand, and the play to beat) by group, where there are more
    than :data:`STEP_LIMIT` legal moves: what the steps are chosen from. Kept by the game
    while its seat chooses (the hand and the play to beat do not change meanwhile).
    Made from the core's ``Plays`` (:meth:`of_listing`), it keeps the core's ``Steps``
    (``top``: the moves of the first step, made when asked for, with the listing's token;
    each group's plays found from it) and makes ``groups`` when first asked."""

    __slots__ = ("_groups", "fam", "hand", "last", "token", "top")
    top: Any                      # the core's Steps (the first step's moves), or None
    token: object

    def __init__(self, fam, hand, last, groups: dict[str, Group] | None):
        self.fam, self.hand, self.last = fam, hand, last
        self._groups = groups
        self.top = self.token = None

    @property
    def groups(self) -> dict[str, Group]:
        got = self._groups
        if got is None:
            top = self.top
            assert top is not None                      # made by of_listing
            texts, firsts, counts = top.info()
            got = self._groups = {
                t: Group(top[i] if n == 1 else None, n > 1, None, None, g)
                for g, (t, n) in enumerate(zip(texts, counts))
                for i in (g + (self.last is not None),)}
        return got

    def group(self, text: str) -> Group | None:
        """The group of this ``choose`` text, or None (without making every group)."""
        if self._groups is None and self.top is not None:
            found = self.top.find(text)
            if found is None:
                return None
            g, n = found
            return Group(self.top[g + (self.last is not None)] if n == 1 else None, n > 1,
                         None, None, g)
        return self.groups.get(text)

    # a grouping is never changed once made (its groups, made when first asked, are the same
    # whenever made): copies share it; pickled, it is grouped again in Python (the core's
    # Steps would come back as a plain list of moves)
    def __copy__(self) -> Grouping:
        return self

    def __deepcopy__(self, memo) -> Grouping:
        return self

    def __reduce__(self):
        return _regrouped, (self.fam, self.hand, self.last)

    @classmethod
    def of_listing(cls, fam, hand, last, plays, token) -> Grouping:
        """The grouping of the core's ``Plays`` of this state, made in C in one pass
        (``Plays.groups``, a ``Steps``; the reference is :meth:`of_plays`): no play is
        counted again and no move made until it is asked for."""
        texts = fam.__dict__.get("_step_texts")
        if texts is None or len(texts) > 100_000:
            texts = fam._step_texts = {}
        g = cls(fam, hand, last, None)
        g.top, g.token = plays.groups(texts, _text_of_move, CHOOSE), token
        return g

    @classmethod
    def of_codes(cls, fam, hand, last, firsts, codes, counts) -> Grouping:
        by_text: dict[str, Group] = {}
        for first, code, n in zip(firsts, codes, counts):
            combo = first.combo if isinstance(first, Move) else first
            text = group_text(combo)
            got = by_text.get(text)
            if got is None:
                by_text[text] = Group(first, n > 1, [code], None)
            else:
                got.many = True
                got.codes.append(code)      # type: ignore[union-attr]
        return cls(fam, hand, last, by_text)

    @classmethod
    def of_plays(cls, fam, hand, last, plays: list[Move]) -> Grouping:
        return cls(fam, hand, last, {t: Group(ms[0], len(ms) > 1, None, ms)
                                     for t, ms in groups(plays).items()})

    def candidates(self, group: Group, picked: tuple,
                   token) -> tuple[int, Sequence[Move], list[int]]:
        """(how many plays of ``group`` hold the ``picked`` cards; those plays when at most
        :data:`STEP_LIMIT`, a list, or from the core's ``Steps`` the whole step's moves, a
        ``Subset`` with ``pass`` first when following; the cards to pick next otherwise)."""
        fam = self.fam
        if group.plays is not None:
            cands = candidates(group.plays, picked)
            if len(cands) <= STEP_LIMIT:
                return len(cands), [_move(m.combo, fam, token) for m in cands], []
            return len(cands), [], next_picks(cands, picked)
        if group.index is not None:               # the core's Steps: the listing filtered
            total, moves, maxima = self.top.select(group.index, picked, STEP_LIMIT, token)
            if moves is not None:
                return total, moves, []
        else:
            total, kept, maxima = core.filter_plays(
                fam, self.hand, self.last, token, group.codes, picked, STEP_LIMIT)
            if total <= STEP_LIMIT:
                return total, [m if isinstance(m, Move) else _move(m, fam, token)
                               for m in kept], []
        have = [0] * 54
        for c in picked:
            have[c] += 1
        return total, [], [c for c in range(54) if maxima[c] > have[c]]


def _regrouped(fam, hand, last) -> Grouping:
    """The grouping of a state made in Python (an unpickled :class:`Grouping`)."""
    moves = list(list_plays(fam, hand, last, None))
    return Grouping.of_plays(fam, hand, last, moves[1:] if last is not None else moves)


def _text_of_move(move: Move) -> str:
    return group_text(move.combo)


def _move(combo, fam, token) -> Move:
    return Move(PLAY, combo.cards, combo, None, fam, token)


def first_step(fam, hand, last, token, listed=None) -> Sequence[Move] | Grouping:
    """Every legal move of the play phase (a list), at most :data:`STEP_LIMIT`; or for more,
    their grouping. ``listed``: what ``core.steps_list`` answered for this state, if asked."""
    if listed is None and core.ACTIVE:
        listed = core.steps_list(STEP_LIMIT - (last is not None), fam, hand, last, token)
    if type(listed) is tuple:
        return Grouping.of_codes(fam, hand, last, *listed)
    moves = listed if listed is not None else list_plays(fam, hand, last, token)
    if len(moves) <= STEP_LIMIT:
        return moves
    return Grouping.of_plays(fam, hand, last, list(moves[1:] if last is not None else moves))


def step_moves(grouping: Grouping, choice: str | None, picked: tuple, token,
               sort_key) -> Sequence[Move]:
    """The moves offered at this step (pass first when following): a list, or one of the
    core's read-only sequences (``Steps``, ``Subset``)."""
    out = [PASS_MOVE] if grouping.last is not None else []
    group = grouping.group(choice) if choice is not None else None
    if group is None:
        if grouping.top is not None and grouping.token is token:
            return grouping.top         # the core's Steps: each move made when asked for
        fam = grouping.fam
        for text, g in grouping.groups.items():
            if g.many:
                out.append(Move(CHOOSE, (), None, text, token=token))
            else:
                first = g.first
                out.append(_move(first.combo if isinstance(first, Move) else first, fam, token))
        return out
    n, plays, picks = grouping.candidates(group, picked, token)
    if n <= STEP_LIMIT:
        return out + plays if type(plays) is list else plays    # a Subset: pass included
    out += [Move(PICK, (c,), token=token) for c in sorted(picks, key=sort_key)]
    return out


def resolve_step(game, move) -> Move | None:
    """A ``choose`` or ``pick`` move for ``game`` checked (IllegalMove if it is not legal now),
    or None for any other move. Any group's ``choose`` is legal while the play is chosen in
    steps (a change of mind); a ``pick`` only as listed."""
    kind = move.kind if isinstance(move, Move) else str(move).strip().partition(" ")[0].lower()
    if kind != CHOOSE and kind != PICK:
        return None
    text = " ".join(str(move).split())
    low = text.lower()
    listed = game.legal_moves()
    for m in listed:
        if m.kind == kind and str(m).lower() == low:
            return m
    grouping = game._steps()
    if kind == CHOOSE and grouping is not None:
        for t in grouping.groups:
            if t.lower() == low:
                return Move(CHOOSE, (), None, t)
    if not any(m.kind == kind for m in listed):
        raise IllegalMove(f"{text!r}: there is no {kind} step now; play cards"
                          + (" or pass" if game.last is not None else ""))
    raise IllegalMove(f"{text!r} is not a legal {kind} now; legal: "
                      + ", ".join(str(m) for m in listed[:12] if m.kind == kind)
                      + (" ..." if len(listed) > 12 else ""))


def current_grouping(game) -> Grouping | None:
    """The grouping of the plays ``game`` keeps while its seat to act chooses in steps (same
    seat, same hand, same play to beat), or None."""
    got = game._grouping
    if got is None or got[0] != game.to_act or got[2] is not game.last or \
            got[1] != tuple(game.hands[game.to_act]):
        return None
    return got[3]


def play_phase_moves(game, token, listed=None) -> Sequence[Move]:
    """The moves ``game`` offers in its play phase: every legal move, or past
    :data:`STEP_LIMIT` legal plays the steps of the choice (its grouping kept on the game).
    With the compiled core, every legal move is its ``Plays`` sequence (no Move made until
    one is asked for) when there are at most :data:`STEP_LIMIT`. ``listed``: what
    ``core.listed_moves`` answered for this state with ``token``, if it listed it (False:
    more than :data:`LISTING_LIMIT` plays, which the core then counts by group instead)."""
    seat = game.to_act
    assert seat is not None                      # the play phase has a seat to act
    grouping = None if game._grouping is None else current_grouping(game)
    if grouping is None:
        fam, hand, last = game.rules.family, game.hands[seat], game.last
        got: Any = None               # a Grouping, or what core.steps_list answers
        if core.ACTIVE:
            if listed is None:
                listed = fam.play_moves(hand, last, token, LISTING_LIMIT)
            if listed is False:                  # past LISTING_LIMIT: counted, not listed
                listed = None
            if listed is not None and len(listed) <= STEP_LIMIT:
                return listed
            if listed is not None and core.is_plays(listed):
                try:
                    got = Grouping.of_listing(fam, hand, last, listed, token)
                except OverflowError:
                    got = None
        if core.ACTIVE and got is None:
            got = core.steps_list(STEP_LIMIT - (last is not None), fam, hand, last, token)
        if not isinstance(got, Grouping) and (type(got) is not list or len(got) > STEP_LIMIT):
            got = first_step(fam, hand, last, token, got)
        if not isinstance(got, Grouping):
            return got
        grouping = got
        game._grouping = (seat, tuple(hand), last, grouping)
    return step_moves(grouping, game.choice, game.picked, token, game.rules.family.sort_key)


def every_listed_play(game, limit: int | None = LISTING_LIMIT) -> list[Move] | None:
    """The legal plays of ``game``'s play phase in one list while its seat chooses in steps,
    :func:`bounded_plays` (``limit`` None: every play, however many; made once per listing
    and limit, kept with its token), or None when the moves listed are all."""
    if game._grouping is None or current_grouping(game) is None:
        return None
    seat = game.to_act
    assert seat is not None
    plays = game._plays
    if plays is None or plays[0] is not game._token or plays[2:] != (limit,):
        fam, hand, last = game.rules.family, game.hands[seat], game.last
        listed = list_plays(fam, hand, last, game._token) if limit is None else \
            bounded_plays(fam, hand, last, game._token, limit)
        plays = game._plays = (game._token, list(listed), limit)
    return plays[1]
