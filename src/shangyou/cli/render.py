"""Everything the terminal game prints: cards, the table, the trick, exchanges, summaries.

Output goes through one rich ``Console``. Colour is off with ``--no-color``, when ``NO_COLOR``
is set, or when stdout is not a terminal; then no ANSI code at all is written (the console has
no colour system, so styles are dropped, not just colours). Markup and highlighting are off, so
card texts such as ``[7H]`` or numbers are printed exactly as given.

Everything is meant to fit an 80-column terminal.
"""

from __future__ import annotations

import os
import sys

from rich import box
from rich.console import Console, JustifyMethod, RenderableType
from rich.table import Table
from rich.text import Text

from ..cards import BJ_CODE, RANK_NAMES, RANK_OF, RJ_CODE, SUIT_SYMBOLS

# suits are indexed D=0, C=1, H=2, S=3 (see cards.py)
_SUIT_STYLE = ("red", "", "red", "")
TEAM_NAMES = "ABCDEFGH"


def color_wanted(no_color_flag: bool, stream=None) -> bool:
    """Colour only on a terminal, without ``--no-color`` and without ``NO_COLOR``."""
    stream = stream if stream is not None else sys.stdout
    if no_color_flag or os.environ.get("NO_COLOR", "") != "":
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def make_console(color: bool, file=None) -> Console:
    """A console that writes plain text (no ANSI codes at all) unless ``color``."""
    kwargs = dict(highlight=False, markup=False, emoji=False, file=file)
    if not color:
        # color_system=None drops every style (bold too), so no escape code is written
        return Console(color_system=None, no_color=True, force_terminal=False, **kwargs)
    return Console(**kwargs)


# ---------------------------------------------------------------------------- cards
def card_text(card: int) -> Text:
    """One card with its suit symbol, coloured: hearts/diamonds red, BJ bold, RJ bold red."""
    if card == BJ_CODE:
        return Text("BJ", style="bold")
    if card == RJ_CODE:
        return Text("RJ", style="bold red")
    suit = card & 3
    return Text(RANK_NAMES[card >> 2] + SUIT_SYMBOLS[suit], style=_SUIT_STYLE[suit])


def cards_text(cards, group: bool = False) -> Text:
    """Cards separated by spaces; with ``group``, two spaces between ranks."""
    out = Text()
    prev = None
    for i, c in enumerate(cards):
        if i:
            out.append("  " if group and RANK_OF[c] != prev else " ")
        out.append_text(card_text(c))
        prev = RANK_OF[c]
    return out


def plain_cards(text: str) -> list[int]:
    """Card ints of a canonical card text (as in views and logs)."""
    from ..cards import parse
    return list(parse(text))


def describe(kind: str, label: str) -> str:
    """A reading in words: ``set of 9s``, ``sequence 5-7``, ``rocket``, ``single 9``."""
    if not label or label == kind or kind == "rocket":
        return kind
    if kind in ("set", "pair", "trip", "quad", "triple", "quartet"):
        return f"{kind} of {label}"
    if kind.startswith("sequence of ") and label.endswith(" " + kind[12:]):
        # Zheng Fen: "sequence of pairs" read "8-J pairs" -> "sequence of pairs 8-J"
        return f"{kind} {label[:-len(kind[12:]) - 1]}"
    return f"{kind} {label}"


def describe_combo(combo) -> str:
    return describe(combo.kind, combo.label)


def ordinal(i: int) -> str:
    """1 -> 1st, 2 -> 2nd, 11 -> 11th."""
    if 10 <= i % 100 <= 20:
        suffix = "th"
    else:
        suffix = {1: "st", 2: "nd", 3: "rd"}.get(i % 10, "th")
    return f"{i}{suffix}"


# --------------------------------------------------------------------- help texts
COMBINATION_HELP = {
    "pagat": [
        "single: any card; 3 < 4 < ... < A < 2 < BJ < RJ",
        "set: 2+ cards of one rank; 2s and jokers are wild for lower ranks; only sets of "
        "the same size compare; at equal rank a pure set beats one with wilds",
        "sequence: 3+ consecutive ranks within 3..A (jokers wild, 2s not unless "
        "twos_in_sequences); one suit beats mixed; same length only",
        "multiple sequence: 2+ cards of each of 3+ consecutive ranks (5 5 6 6 7 7)",
        "no bombs: follow with the same type and number of cards, higher",
    ],
    "owen": [
        "single, pair, trip, full house (trip + pair, by the trip)",
        "straight: 5+ natural cards in a row within 3..A, no wilds",
        "stair: 2+ consecutive pairs; plate: 2+ consecutive trips",
        "2s and jokers are wild in sets, full houses, stairs and plates; natural beats wild",
        "bombs: a quad beats any non-bomb; the rocket (BJ RJ) beats everything",
    ],
    "winner": [
        "single, pair, triple, full house (triple + pair, by the triple)",
        "consecutive pairs / triples: 2+ of them in a row within 3..A",
        "straight: 5+ in a row (option min_straight); A low or high, 2 only low",
        "suits break ties: D < C < H < S",
        "bomb: four of a kind (+ one card) beats any non-bomb; a straight flush beats all",
    ],
    "zheng-fen": [
        "single: any card; 3 < 4 < ... < K < A < 2 < BJ < RJ (the jokers are the top singles)",
        "pair, triple, quartet: cards of one rank",
        "sequence of 3+ pairs, triples or quartets in a row; 2s are high and come after A "
        "(K K A A 2 2 is a sequence, 2 2 3 3 4 4 is not); the top rank decides, then the "
        "length (longer wins)",
        "full house: a triple with two more cards: a pair, two neighbouring cards of one "
        "suit, a 3 and any card, or two counting cards (5, 10, K); only the triple counts",
        "suit sequence: 5+ cards of one suit in a row; top rank, then length",
        "special, beating everything: 5-10-K mixed < 5-10-K of one suit < four 2s",
        "jokers are wild except as singles (there they are the top cards) and in the "
        "special category",
        "follow with a higher play of the same category (or a special); equal plays "
        "do not beat each other",
        "points: each 5 scores 5, each 10 and K 10 (100 in a hand); jokers score nothing",
        "the trick's winner takes its points; when one player is left, the trick is "
        "finished, and that player's tricks and cards go to the first player out",
    ],
}

INPUT_HELP = [
    "Type a suggestion number (2), or the cards to play in any case: 7h 7s, 10h or th, bj rj.",
    "pass or p passes. A play with several readings: add 'as', e.g. 5h 6d bj as 4-6.",
    "Card exchange: type the card (2s) or the full move: give 2S, take 2S, discard 3H, "
    "offer 3H 4D.",
    "Commands: hint (the search bot's move and why, as the web table's Hint gives it), show "
    "(the table again), help, quit or q.",
]


# ------------------------------------------------------------------------ renderer
class Renderer:
    """Prints one game for one viewer (``human`` seat, or None for a replay with open hands)."""

    def __init__(self, console: Console, game, names: list[str], long_names: list[str],
                 human: int | None):
        self.c = console
        self.g = game
        self.rules = game.rules
        self.family = game.rules.family
        self.names = names
        self.long_names = long_names
        self.human = human
        # Zheng Fen: points are won in tricks (view keys won_points, table_points)
        self.trick_points = getattr(game.rules, "scoring", None) == "trick-points"

    # -- small helpers
    def say(self, *parts, style: str | None = None) -> None:
        text = Text()
        for p in parts:
            if isinstance(p, Text):
                text.append_text(p)
            else:
                text.append(str(p))
        if style:
            text.stylize(style)
        self.c.print(text)

    def error(self, message: str) -> None:
        """One line (the terminal may wrap it; no newline is inserted)."""
        self.c.print(Text("! " + message, style="bold red"), soft_wrap=True)

    def blank(self) -> None:
        self.c.print()

    def _verb(self, seat: int, you: str, other: str) -> str:
        return you if seat == self.human else other

    def sorted_hand(self, cards) -> list[int]:
        return sorted(cards, key=self.family.sort_key)

    def team_of(self, seat: int) -> int | None:
        for i, t in enumerate(self.rules.teams or ()):
            if seat in t:
                return i
        return None

    def team_number(self, seat: int) -> int:
        """``seat``'s team, in a preset with teams."""
        i = self.team_of(seat)
        assert i is not None        # where there are teams, every seat is on one
        return i

    def team_label(self, i: int) -> str:
        members = ", ".join(self.names[s] for s in self.rules.teams[i])
        return f"Team {TEAM_NAMES[i]} ({members})"

    # -- headers
    def game_header(self) -> None:
        r, g = self.rules, self.g
        if not g.match:
            length = "one hand"
        elif r.max_hands is not None and r.target is not None:
            length = f"a match of {r.max_hands} hands or to {r.target} points"
        elif r.max_hands is not None:
            length = f"a match of {r.max_hands} hands"
        else:
            length = f"a match to {r.target} points"
        self.say(Text(r.name, style="bold"), f": {r.players} players, {length}; seed {g.seed}")
        if r.options:
            opts = ", ".join(f"{k}={fmt_value(v)}" for k, v in r.options.items()
                             if k != "players")
            self.say(f"Options: {opts}")
        if self.human is not None:
            self.say(f"You are seat {self.human}. Type help at the prompt for how to play.")

    def hand_header(self, view: dict) -> None:
        self.blank()
        n = view["hand_number"]
        self.c.rule(Text(f" Hand {n} ", style="bold"), characters="-")
        self.say(f"Dealer: {self.names[view['dealer']]}")

    # -- the table
    def table(self, view: dict) -> None:
        teams = self.rules.teams
        show_scores = self.rules.scoring != "teams6"  # there only team scores count
        t = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, padding=(0, 1))
        t.add_column("")
        t.add_column("Player")
        if teams:
            t.add_column("Team")
        t.add_column("Cards", justify="right")
        t.add_column("Status")
        won = view.get("won_points") if self.trick_points else None
        if won is not None:
            t.add_column("Won this hand", justify="right")
        if show_scores:
            t.add_column("Score", justify="right")
        last = view.get("last")
        passed = set(view.get("passed") or [])
        finished = view["finished"]
        for s in range(view["players"]):
            marker = ">" if view["to_act"] == s else ""
            if s in finished:
                status = f"out ({ordinal(finished.index(s) + 1)})"
            elif s in passed:
                status = "passed"
            elif last is not None and last["seat"] == s:
                status = "on top"
            else:
                status = ""
            if view["dealer"] == s:
                status = (status + ", dealer") if status else "dealer"
            row: list[RenderableType] = [
                marker, Text(self.long_names[s], style="bold" if s == self.human else "")]
            if teams:
                row.append(TEAM_NAMES[self.team_number(s)])
            row += [str(view["counts"][s]), status]
            if won is not None:
                row.append(str(won[s]))
            if show_scores:
                row.append(str(view["scores"][s]))
            t.add_row(*row)
        self.c.print(t)
        if teams:
            scores = view.get("team_scores") or [0] * len(teams)
            self.say("Team scores: " + "   ".join(
                f"{self.team_label(i)} {scores[i]}" for i in range(len(teams))))
        if won is not None:
            on_table = view.get("table_points") or 0
            self.say(f"On the table: {_points(on_table)} in the trick in progress; "
                     f"{sum(won)} of 100 won so far this hand.")
        target = view.get("target")
        if self.g.match and target is not None:
            self.say(f"Target: {target} points.", style="dim")

    # -- the trick
    def trick(self, view: dict) -> None:
        plays = view.get("trick") or []
        if plays:
            line = Text("Trick: ")
            for i, (seat, text) in enumerate(plays):
                if i:
                    line.append(" | ", style="dim")
                line.append(self.names[seat] + " ")
                if text == "pass":
                    line.append("pass", style="dim")
                else:
                    line.append_text(cards_text(plain_cards(text)))
            self.c.print(line)
        last = view.get("last")
        if last is None:
            who = view["to_act"]
            if who is None:
                return
            if who == self.human:
                self.say("You have the lead: play any combination.")
            else:
                self.say(f"{self.names[who]} has the lead.")
            return
        self.say("To beat: ", cards_text(plain_cards(last["cards"])),
                 f" ({describe(last['kind'], last['reading'])}) "
                 f"by {self.names[last['seat']]}")

    # -- exchanges
    def exchange(self, view: dict) -> None:
        ex = view.get("exchange")
        if not ex:
            return
        n = self.names
        prev = view.get("previous_order") or []

        def place(s):
            return f"{n[s]} ({ordinal(prev.index(s) + 1)})" if s in prev else n[s]

        step, who = ex["step"], view["to_act"]
        self.say(Text("Card exchange", style="bold"), f" (after hand {view['hand_number'] - 1})")
        if ex["kind"] == "pits":
            self.say("  Givers: " + ", ".join(place(s) for s in ex["givers"])
                     + "; takers: " + ", ".join(place(s) for s in ex["takers"]))
            shown = ex.get("shown") or []
            discards = ex.get("discards") or []
            line = Text("  Shown: ")
            line.append_text(cards_text(plain_cards(" ".join(shown))) if shown else Text("-"))
            line.append("   Discarded: ")
            line.append_text(cards_text(plain_cards(" ".join(discards))) if discards
                             else Text("-"))
            self.c.print(line)
            takers = "taker" if len(ex["takers"]) == 1 else "takers"
            givers = "giver" if len(ex["givers"]) == 1 else "givers"
            if step == "show":
                doing = self._verb(who, f"show your highest card (it goes to the {takers})",
                                   "shows their highest card")
            elif step == "discard":
                doing = self._verb(who, f"discard an unwanted card (it goes to the {givers})",
                                   "discards an unwanted card")
            elif discards:
                doing = self._verb(who, "take one of the discarded cards",
                                   "takes one of the discarded cards")
            else:
                doing = self._verb(who, "take one of the shown cards",
                                   "takes one of the shown cards")
        else:
            self.say(f"  Giver: {place(ex['giver'])}; taker: {place(ex['taker'])}. The giver "
                     "hands over their highest card, the taker offers two cards back, the "
                     "giver takes one.")
            offered = ex.get("offered") or []
            if offered:
                self.say("  Offered: ", cards_text(plain_cards(" ".join(offered))))
            doing = {"give": self._verb(who, "give your highest card",
                                        "gives their highest card"),
                     "offer": self._verb(who, "offer two cards", "offers two cards"),
                     "take": self._verb(who, "take one of the offered cards",
                                        "takes one of the offered cards")}.get(step, step)
        if who is not None:
            self.say(f"  Now: {n[who]} {doing}.")

    # -- the human's hand and suggestions
    def hand(self, view: dict) -> None:
        cards = self.sorted_hand(plain_cards(" ".join(view["hand"])))
        line = Text()
        line.append(f"Your hand ({len(cards)}): ", style="bold")
        line.append_text(cards_text(cards, group=True))
        self.c.print(line)

    def suggestions(self, texts: list[str], more: int) -> None:
        if not texts:
            return
        items = [f"{i}) {t}" for i, t in enumerate(texts, 1)]
        limit = min(self.c.width, 80) - 1
        line = ""
        for item in items:  # flow into lines, each item padded to a 10-column grid
            cell = item.ljust(-(-(len(item) + 2) // 10) * 10)
            if line and len(line) + len(item) > limit:
                self.say(line.rstrip())
                line = ""
            line += cell
        if line:
            self.say(line.rstrip())
        if more:
            self.say(f"... {more} more: type cards", style="dim")

    def decision(self, view: dict, texts: list[str], more: int) -> None:
        """Everything shown when the human must decide."""
        self.blank()
        self.table(view)
        if view["phase"] == "exchange":
            self.exchange(view)
        else:
            self.trick(view)
        self.hand(view)
        self.suggestions(texts, more)

    # -- narration
    def move(self, seat: int, move, exchange_kind: str | None = None, taker: int | None = None
             ) -> None:
        name = self.names[seat]
        kind = move.kind
        if kind == "pass":
            self.say(f"{name} {self._verb(seat, 'pass', 'passes')}", style="dim")
            return
        cards = cards_text(self.sorted_hand(move.cards))
        if kind == "play":
            desc = describe_combo(move.combo) if move.combo is not None else ""
            self.say(f"{name} {self._verb(seat, 'play', 'plays')} ", cards,
                     f" ({desc})" if desc else "")
        elif kind == "give":
            if exchange_kind == "offer" and taker is not None:
                self.say(f"{name} {self._verb(seat, 'give', 'gives')} ", cards,
                         f" to {self.names[taker]}")
            else:
                self.say(f"{name} {self._verb(seat, 'show', 'shows')} ", cards)
        else:
            verb = {"take": ("take", "takes"), "discard": ("discard", "discards"),
                    "offer": ("offer", "offers")}.get(kind, (kind, kind + "s"))
            self.say(f"{name} {self._verb(seat, *verb)} ", cards)

    def received(self, seat: int, card: str) -> None:
        self.say(f"{self.names[seat]} {self._verb(seat, 'get', 'gets')} ",
                 cards_text(plain_cards(card)))

    def went_out(self, seat: int, place: int) -> None:
        verb = self._verb(seat, "are", "is")
        self.say(Text(f"{self.names[seat]} {verb} out: {ordinal(place)}!", style="bold"))

    def trick_won(self, seat: int, leader: int | None, points: int | None = None) -> None:
        text = f"All others passed: {self.names[seat]} {self._verb(seat, 'win', 'wins')} the trick"
        if points is not None:
            text += f" ({_points(points)})"
        if leader is not None and leader != seat:
            text += f"; {self.names[leader]} {self._verb(leader, 'lead', 'leads')}"
        self.say(text + ".", style="dim")

    def last_trick_won(self, seat: int, points: int) -> None:
        """Zheng Fen: the trick finished at the end of the hand."""
        self.say(f"{self.names[seat]} {self._verb(seat, 'win', 'wins')} the last trick "
                 f"({_points(points)}).", style="dim")

    def last_holder(self, seat: int) -> None:
        """Zheng Fen: one player still holds cards; the trick in progress is finished first."""
        if seat == self.human:
            self.say("Only you still hold cards: you may still beat the last play, "
                     "then the hand ends.", style="dim")
        else:
            self.say(f"Only {self.names[seat]} still holds cards: they may still beat the "
                     "last play, then the hand ends.", style="dim")

    def drawn_card(self, card: str) -> None:
        self.say("A card is drawn to choose the first leader: ", cards_text(plain_cards(card)))

    # -- summaries
    def hand_summary(self, summary: dict, transfer: dict | None = None) -> None:
        """The end of a hand. ``transfer`` (Zheng Fen, from the narrator): the points of the
        last player's tricks (``tricks``) and of the cards left in their hand (``hand``)."""
        self.blank()
        order = summary["order"]
        self.say(Text(f"Hand {summary['hand']} is over.", style="bold"))
        self.say("Finishing order: " + ", ".join(
            f"{ordinal(i + 1)} {self.names[s]}" for i, s in enumerate(order)))
        if self.trick_points:
            self._transfer_line(order, transfer)
        teams = self.rules.teams
        if self.rules.scoring != "teams6":
            t = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, padding=(0, 1))
            cols: tuple[tuple[str, JustifyMethod], ...] = (
                ("Place", "left"), ("Player", "left"), ("Points", "right"), ("Total", "right"))
            for col, just in cols:
                t.add_column(col, justify=just)
            for i, s in enumerate(order):
                t.add_row(ordinal(i + 1), self.long_names[s], _signed(summary["points"][s]),
                          str(summary["scores"][s]))
            self.c.print(t)
            if self.trick_points:
                self.say(f"Points this hand: {sum(summary['points'])} in all.", style="dim")
        if teams and "team_points" in summary:
            for i in range(len(teams)):
                total = (summary.get("team_scores") or [None] * len(teams))[i]
                self.say(f"{self.team_label(i)}: {_signed(summary['team_points'][i])} this hand"
                         + (f", total {total}" if total is not None else ""))

    def _transfer_line(self, order: list[int], transfer: dict | None) -> None:
        first, last = order[0], order[-1]
        fn, ln = self.names[first], self.names[last]
        if last == self.human:
            whose, their = "your", "your"
        else:
            whose, their = f"{ln}'s", "their"
        if last == self.human:
            ln = "you"
        text = (f"{fn} went out first and {ln} {self._verb(last, 'were', 'was')} last: "
                f"{whose} tricks")
        if transfer is not None:
            text += f" ({_points(transfer['tricks'])})"
        text += f" and the cards left in {their} hand"
        if transfer is not None:
            text += f" ({_points(transfer['hand'])})"
        self.say(text + f" go to {fn if first != self.human else 'you'}.")

    def final(self, result: dict) -> None:
        self.blank()
        self.c.rule(Text(" Final standings ", style="bold"), characters="=")
        g = self.g
        teams = self.rules.teams
        if teams and g.match:
            ts = result.get("team_scores") or []
            for rank, i in enumerate(sorted(range(len(teams)), key=lambda i: -ts[i]), 1):
                self.say(f"{ordinal(rank)}  {self.team_label(i)}: {ts[i]} points")
        last_order = result["order"]
        if g.match:
            seats = sorted(range(g.n), key=lambda s: (-result["scores"][s], last_order.index(s)))
        elif self.trick_points:  # one hand of Zheng Fen: the points taken decide
            seats = sorted(range(g.n), key=lambda s: (-result["points"][s], last_order.index(s)))
        else:
            seats = list(last_order)
        if self.rules.scoring != "teams6" or not g.match:  # teams6: only team scores count
            t = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, padding=(0, 1))
            t.add_column("#")
            t.add_column("Player")
            if self.rules.scoring != "teams6":
                t.add_column("Points" if g.match else "Points this hand", justify="right")
            for rank, s in enumerate(seats, 1):
                row: list[RenderableType] = [
                    ordinal(rank), Text(self.long_names[s],
                                        style="bold" if s == self.human else "")]
                if self.rules.scoring != "teams6":
                    row.append(str(result["scores"][s] if g.match else result["points"][s]))
                t.add_row(*row)
            self.c.print(t)
        if g.match:
            self.say(f"Hands played: {result['hands']}")
        if "winning_team" in result and result["winning_team"] is not None:
            i = result["winning_team"]
            mine = self.human is not None and self.human in teams[i]
            msg = f"{self.team_label(i)} wins the match!" + (" Well played!" if mine else "")
        else:
            w = result.get("winner")
            if self.trick_points and not g.match:
                # the engine names the first player out; in Zheng Fen the most points win
                best = max(result["points"])
                top = [s for s in seats if result["points"][s] == best]
                if len(top) > 1:
                    self.say(Text("Most points this hand, shared: "
                                  + ", ".join(self.names[s] for s in top) + ".", style="bold"))
                    return
                w = top[0]
            if w is None:
                return
            what = "match" if g.match else "hand"
            msg = "You win the " + what + "!" if w == self.human else \
                f"{self.names[w]} wins the {what}."
        self.say(Text(msg, style="bold green"))

    # -- help
    def help(self) -> None:
        for line in INPUT_HELP:
            self.say(line)
        lines = COMBINATION_HELP.get(getattr(self.family, "name", ""), [])
        if lines:
            self.say(Text(f"Combinations in {self.rules.name}:", style="bold"))
            for line in lines:
                self.say("  - " + line)


def _points(v: int) -> str:
    return "1 point" if v == 1 else f"{v} points"


def _signed(v: int) -> str:
    return f"+{v}" if v > 0 else str(v)


def fmt_value(v) -> str:
    """An option value as typed on the command line (true/false/none/number/text)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if v is None:
        return "none"
    return str(v)
