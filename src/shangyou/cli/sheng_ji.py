"""Sheng ji (Tractor, Zhao Pengyou) in the terminal: what is shown, told and typed.

Sheng ji is a trick-taking game, so it has its own table (levels, trump, declarer and teams,
the opponents' points), its own narration (bids, the kitty, friend calls, tricks, the end of a
hand) and its own input (``pass``/bids during the deal, a card to bury, a friend call, plays).
The play loop is :class:`~.session.PlaySession`'s, with the pieces swapped:

* :class:`ShengJiRenderer` prints; :class:`ShengJiNarrator` tells each move from the game's
  events (hidden cards stay hidden: a bot's buried cards are never shown);
* :func:`parse_sheng_ji_input` reads a line into one or more move texts (typing ``3d 4d``
  while burying buries both; ``kh qh qh`` as a lead plays that throw, the game checks it);
* :func:`order_sheng_ji` orders the numbered suggestions, the most sensible first;
* :class:`ShengJiSession` is the play loop of one human against bots.

The pieces live in their own modules: :mod:`.sheng_ji_render` (the renderer, the words for
trumps and plays, the help), :mod:`.sheng_ji_narrate` (the narrator), :mod:`.sheng_ji_input`
(typing and suggestions); this module holds the session and names them all.
"""

from __future__ import annotations

from ..errors import IllegalMove, NotationError
from .session import MAX_SUGGESTIONS, PROMPT, PlaySession, _tidy, hint_text

from .sheng_ji_input import SJCommand, order_sheng_ji, parse_sheng_ji_input
from .sheng_ji_narrate import ShengJiNarrator
from .sheng_ji_render import HELP, ShengJiRenderer, is_sheng_ji, trump_words

__all__ = ["is_sheng_ji", "ShengJiRenderer", "ShengJiNarrator", "ShengJiSession",
           "parse_sheng_ji_input", "order_sheng_ji", "SJCommand", "HELP", "trump_words"]


# ---------------------------------------------------------------------------- session
class ShengJiSession(PlaySession):
    """One human against bots in Sheng ji. A single legal move (a forced follow, a last card)
    is played for the human; delays follow bot plays, not their silent passes while dealing.
    With ``auto_pass`` the human is asked during the deal only when the bids open to them
    change (a new level card or pair), and passes otherwise."""

    narrator: ShengJiNarrator

    def __init__(self, game, human: int, bots: dict, renderer: ShengJiRenderer,
                 delay: float = 0.0, auto_pass: bool = False, input_fn=input):
        super().__init__(game, human, bots, renderer, delay=delay, auto_pass=auto_pass,
                         input_fn=input_fn)
        self.narrator = ShengJiNarrator(game, renderer, viewer=human)
        self._bids_seen: tuple | None = None

    def _pause_after(self) -> bool:
        # bids and burying flow past; only card plays are worth watching
        return bool(self.g.moves) and self.g.moves[-1][1].kind == "play"

    def human_turn(self) -> str | None:
        g, r = self.g, self.r
        moves = g.legal_moves()
        view = g.view(self.human)
        if self.auto_pass and g.phase == "deal":
            # --auto-pass: while dealing, ask only when the bids open to you change
            bids = (g.hand_number, tuple(str(m) for m in moves if m.kind != "pass"))
            if bids == self._bids_seen:
                g.apply(next(m for m in moves if m.kind == "pass"))
                self.narrator.quiet_pass = True
                return None
            self._bids_seen = bids
        forced = None
        if len(moves) == 1 and g.phase == "play":
            forced = moves[0]
        elif g.phase == "play" and not view["trick"] and len(view["hand"]) == 1:
            forced = next((m for m in moves if m.kind == "play"), None)
        if forced is not None:
            r.say(f"(only one choice: {forced})", style="dim")
            g.apply(forced)
            return None
        ordered = order_sheng_ji(moves, view)
        shown = ordered[:MAX_SUGGESTIONS]
        texts = [str(m) for m in shown]
        more = len(ordered) - len(shown)
        r.decision(view, texts, more)
        while True:
            try:
                line = self.input(PROMPT)
            except EOFError:
                r.blank()
                r.say("No more input: leaving the game.")
                return "eof"
            cmd = parse_sheng_ji_input(line, texts, view)
            if cmd.kind == "empty":
                r.error("type a number, cards, pass (while bidding), or help")
            elif cmd.kind == "error":
                r.error(cmd.text)
            elif cmd.kind == "help":
                r.help()
            elif cmd.kind == "show":
                r.decision(view, texts, more)
            elif cmd.kind == "hint":
                r.say(hint_text(view, self.hint_level, self._hint_seed()))
            elif cmd.kind == "quit":
                return "quit"
            else:
                applied = 0
                for i, text in enumerate(cmd.moves):
                    move = shown[cmd.index] if cmd.index is not None else text
                    if g.over or g.to_act != self.human:
                        r.error(f"only the first {applied} of your moves were needed")
                        break
                    try:
                        g.apply(move)
                    except (IllegalMove, NotationError) as e:
                        r.error(_tidy(str(e), self.human))
                        break
                    applied += 1
                if applied:
                    return None
