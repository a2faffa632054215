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
"""

from __future__ import annotations

from ...engine.moves import CHOOSE, PASS, PASS_MOVE, PICK, PLAY, Move

STEP_LIMIT = 400        # more legal moves than this: the play is chosen in steps

_GROUP_TEXT: dict = {}  # (n, kind, label) -> the group's choose text


def list_plays(fam, hand, last, token) -> list[Move]:
    """Every legal move of the play phase for ``hand`` (``pass`` first when following),
    the plays in the family's order: what ``ClimbingGame`` lists and bots expand to."""
    moves = fam.play_moves(hand, last, token)      # the compiled core, where it applies
    if moves is not None:
        return moves
    if last is None:
        return [Move(PLAY, c.cards, c, None, fam, token) for c in fam.leads(hand)]
    out = [PASS_MOVE]
    for c in fam.follows(hand, last):
        out.append(Move(PLAY, c.cards, c, None, fam, token))
    return out


def in_steps(moves: list[str]) -> bool:
    """Do these legal move texts offer the choice of a play in steps?"""
    return any(m.startswith(("choose ", "pick ")) for m in moves)


def every_play(view: dict, family) -> dict:
    """``view`` itself, or where its legal moves are steps of a choice (``choose``, ``pick``) a
    copy whose ``legal_moves`` are every legal play, in the order of ``all_moves()``: a bot
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
    out["legal_moves"] = [str(m) for m in list_plays(family, hand, prev, None)]
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


def step_moves(plays: list[Move], choice: str | None, picked: tuple, token,
               sort_key) -> list[Move]:
    """The moves offered at this step, from the full listing ``plays`` (pass first when
    following, as the listing has it)."""
    out = [m for m in plays[:1] if m.kind == PASS]
    by_group = groups(plays)
    group = by_group.get(choice) if choice is not None else None
    if group is None:
        for text, ms in by_group.items():
            out.append(ms[0] if len(ms) == 1 else Move(CHOOSE, (), None, text, token=token))
        return out
    cands = candidates(group, picked)
    if len(cands) <= STEP_LIMIT:
        return out + cands
    out += [Move(PICK, (c,), token=token)
            for c in sorted(next_picks(cands, picked), key=sort_key)]
    return out
