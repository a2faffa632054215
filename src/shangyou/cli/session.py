"""The play loop: one human seat against bots, and the narration shared with ``replay``.

The loop is the engine's own (``while not g.over: g.apply(choose(view))``); the human's
``choose`` is a prompt. Every move, the human's included, goes through ``game.apply``, which
checks it completely and leaves the game unchanged when it raises ``IllegalMove``; so a bad
line never changes anything, it just prints one line and prompts again.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Protocol

from ..bots.hint import hint
from ..errors import IllegalMove, NotationError
from .inputs import exchange_kind, order_suggestions, parse_input
from .render import Renderer, plain_cards

MAX_SUGGESTIONS = 30
PROMPT = "Your move> "


class NarratorProtocol(Protocol):
    """What the play loop and ``replay`` ask of a narrator (:class:`Narrator` for climbing
    games, :class:`~.sheng_ji_narrate.ShengJiNarrator` for Sheng ji)."""

    def begin(self) -> None:
        """Tell the start of the game."""

    def before(self) -> dict:
        """The facts the narration of the next move needs, taken before it is made."""

    def after(self, seat: int, pre: dict) -> None:
        """Tell the move ``seat`` just made (``pre``: what :meth:`before` answered)."""


class Narrator:
    """Tells what each move did: plays, passes, players going out, tricks won, exchanges,
    hand summaries. ``viewer`` is the seat whose view is read for public facts (counts,
    finishing order, the trick), so nothing hidden is used."""

    def __init__(self, game, renderer: Renderer, viewer: int = 0,
                 on_play_start: Callable[[], None] | None = None):
        self.g = game
        self.r = renderer
        self.viewer = viewer
        self.on_play_start = on_play_start or (lambda: None)
        self.k = 0  # events already told

    def begin(self) -> None:
        """The first hand: its header, the events of the deal, the open hands (replay)."""
        self.r.hand_header(self.g.view(self.viewer))
        self._events(None, None)
        if self.g.view(self.viewer)["phase"] == "play":
            self.on_play_start()

    def before(self) -> dict:
        """The public facts the narration of the next move needs."""
        v = self.g.view(self.viewer)
        return {"counts": v["counts"], "finished": v["finished"], "last": v["last"],
                "phase": v["phase"], "exchange": v.get("exchange"),
                "hand_number": v["hand_number"],
                "won_points": v.get("won_points"), "table_points": v.get("table_points")}

    def after(self, seat: int, pre: dict) -> None:
        g, r = self.g, self.r
        move = g.moves[-1][1]
        ex = pre["exchange"]
        r.move(seat, move, ex["kind"] if ex else None, ex.get("taker") if ex else None)
        if move.kind == "play" and pre["counts"][seat] == len(move.cards):
            r.went_out(seat, len(pre["finished"]) + 1)
        transfer = None
        if pre["won_points"] is not None and (g.over or g.hand_number != pre["hand_number"]):
            transfer = self._last_trick(seat, move, pre)
        if self._events(seat, move, ex, transfer):
            if not g.over:
                view = g.view(self.viewer)
                r.hand_header(view)
                if view["phase"] == "play":
                    self.on_play_start()
            return
        view = g.view(self.viewer)
        if move.kind == "pass" and not view["trick"] and pre["last"] is not None:
            points = pre["table_points"] if pre["won_points"] is not None else None
            r.trick_won(pre["last"]["seat"], view["to_act"], points)
        if g.rules.finish_trick and move.kind == "play" and view["phase"] == "play":
            holding = [s for s, k in enumerate(view["counts"]) if k]
            if len(holding) == 1 and sum(1 for k in pre["counts"] if k) > 1:
                r.last_holder(holding[0])
        if pre["phase"] == "exchange" and view["phase"] == "play":
            r.say("The exchange is over.")
            self.on_play_start()

    def _last_trick(self, seat, move, pre) -> dict | None:
        """Zheng Fen, when a move ended the hand: tell who won the trick finished with it,
        and work out, for the summary, the points of the last player's tricks and of the
        cards left in their hand (the public points won before the move, the trick, and the
        hand's points, which count both for the first player out)."""
        summary = self.g.history[-1]
        order, points = summary["order"], summary["points"]
        first, last = order[0], order[-1]
        if move.kind == "play":
            winner, trick = seat, pre["table_points"] + self.g.rules.family.points(move.cards)
        elif pre["last"] is not None:
            winner, trick = pre["last"]["seat"], pre["table_points"]
        else:  # pragma: no cover - a hand ends with a play or a pass that ends a trick
            return None
        self.r.last_trick_won(winner, trick)
        won = list(pre["won_points"])
        won[winner] += trick
        hand = points[first] - won[first] - won[last]
        if first == last or hand < 0:  # pragma: no cover - not how the engine scores
            return None
        return {"tricks": won[last], "hand": hand}

    def _events(self, seat, move, ex=None, transfer=None) -> bool:
        """Tell the new events; True when a hand ended."""
        ended = False
        for e in self.g.events[self.k:]:
            kind = e.get("event")
            if kind == "hand over":
                self.r.hand_summary(e, transfer)
                ended = True
            elif kind == "drawn card":
                self.r.drawn_card(e["card"])
            elif kind == "receive":
                if e["seat"] == seat:
                    continue  # the mover took it: already told
                if move is not None and move.kind == "give" and ex and ex["kind"] == "offer":
                    continue  # "X gives 2S to Y" already told
                self.r.received(e["seat"], e["card"])
        self.k = len(self.g.events)
        return ended


class PlaySession:
    """One human (``human`` seat) against ``bots`` ({seat: Bot}) until the game is over.

    ``run`` returns ``"over"``, ``"quit"`` (the human typed quit) or ``"eof"`` (no more input).
    """

    def __init__(self, game, human: int, bots: dict, renderer: Renderer,
                 delay: float = 0.0, auto_pass: bool = False,
                 input_fn: Callable[[str], str] = input):
        self.g = game
        self.human = human
        self.bots = bots
        self.r = renderer
        self.delay = delay
        self.auto_pass = auto_pass
        self.input = input_fn
        self.hint_level = "search"     # the server's level for a table of one person
        self.narrator: NarratorProtocol = Narrator(game, renderer, viewer=human)

    def run(self) -> str:
        g = self.g
        self.r.game_header()
        self.narrator.begin()
        while not g.over:
            seat = g.to_act
            pre = self.narrator.before()
            if seat == self.human:
                outcome = self.human_turn()
                if outcome is not None:
                    return outcome
            else:
                g.apply(self.bots[seat].choose(g.view(seat)))
            self.narrator.after(seat, pre)
            if self.delay and seat != self.human and not g.over and self._pause_after():
                time.sleep(self.delay)
        self.r.final(g.result)
        return "over"

    def _pause_after(self) -> bool:
        """Whether a bot's last move is worth the delay (every move in climbing games)."""
        return True

    def _hint_seed(self) -> int:
        """The search's seed for this decision: the same hint for the same game and move."""
        return ((self.g.seed or 0) * 1_000_003 + len(self.g.moves)) & 0xFFFFFFFF

    # ------------------------------------------------------------------ the human
    def human_turn(self) -> str | None:
        """Prompt until one legal move is applied (None), or quit/eof (the outcome)."""
        g, r = self.g, self.r
        moves = g.legal_moves()
        step = exchange_kind(moves)
        if len(moves) == 1 and (step is not None or (self.auto_pass and moves[0].is_pass)):
            r.say(f"(only one choice: {moves[0]})", style="dim")
            g.apply(moves[0])
            return None
        ordered = order_suggestions(moves, g.rules.family)
        shown = ordered[:MAX_SUGGESTIONS]
        texts = [str(m) for m in shown]
        more = len(ordered) - len(shown)
        view = g.view(self.human)
        r.decision(view, texts, more)
        hand = plain_cards(" ".join(view["hand"]))
        while True:
            try:
                line = self.input(PROMPT)
            except EOFError:
                r.blank()
                r.say("No more input: leaving the game.")
                return "eof"
            cmd = parse_input(line, texts, step, hand)
            if cmd.kind == "empty":
                r.error("type a number, the cards to play, pass, or help")
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
                move = shown[cmd.index] if cmd.index is not None else cmd.text
                try:
                    g.apply(move)
                except (IllegalMove, NotationError) as e:
                    r.error(_tidy(str(e), self.human))
                    continue
                return None


FALLBACK_NOTES = {"time": " (the search ran out of time: the heuristic's advice)",
                  "failed": " (the search failed: the heuristic's advice)"}


def hint_text(view: dict, level: str = "search", seed: int = 0) -> str:
    """The hint for ``view`` in one line, as the web table gives it
    (:func:`shangyou.bots.hint.hint`: the search within its budget, the heuristic where the
    search cannot answer): the level that speaks, the move and the reason."""
    h = hint(view, level, seed)
    note = FALLBACK_NOTES.get(h["fallback"], "")
    return f"Hint ({h['level']}): {h['move']} ({h['reason']['text']['en']}){note}"


def _tidy(message: str, seat: int) -> str:
    """Engine messages speak of seats; at the prompt, "you" is clearer."""
    return message.replace(f"seat {seat} does not", "you do not")
