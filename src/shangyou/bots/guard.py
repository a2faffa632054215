"""The safety net every rule-based bot's choice passes through: a bot never stops a game."""

from __future__ import annotations

__all__ = ["guarded"]


def guarded(label: str, rule, view: dict, rng=None, strict: bool = False,
            fallback=None) -> str:
    """``rule(view, moves)``'s move, made safe: a bot must never stop a game. Should the rule
    fail or answer a move that is not legal, ``fallback(view, rng)`` answers instead (if given
    and legal), else a random legal move. ``strict`` (for tests) raises instead."""
    moves = view["legal_moves"]
    if len(moves) == 1:
        return moves[0]
    try:
        move = rule(view, moves)
    except Exception:
        if strict:
            raise
        move = None
    if move in moves:
        return move
    if strict:
        raise AssertionError(f"{label} chose {move!r}, not a legal move")
    if fallback is not None:
        try:
            move = fallback(view, rng)
        except Exception:
            move = None
        if move in moves:
            return move
    return rng.choice(moves) if rng is not None else moves[0]
