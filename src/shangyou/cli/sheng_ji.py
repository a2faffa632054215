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
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from rich import box
from rich.table import Table
from rich.text import Text

from ..bots import sheng_ji as sjbot
from ..cards import BJ_CODE, CARD_TEXT, SUIT_SYMBOLS, parse
from ..errors import IllegalMove, NotationError
from ..registry import preset_info
from ..games.sheng_ji.order import LEVEL_RANK, TRUMP, Trump, decompose
from ..games.sheng_ji.tricks import trick_winner
from .inputs import _COMMANDS, _PASS_WORDS
from .render import TEAM_NAMES, Renderer, card_text, fmt_value, ordinal, plain_cards
from .session import MAX_SUGGESTIONS, PROMPT, PlaySession, _tidy, hint_text

__all__ = ["is_sheng_ji", "ShengJiRenderer", "ShengJiNarrator", "ShengJiSession",
           "parse_sheng_ji_input", "order_sheng_ji", "SJCommand", "HELP"]


def is_sheng_ji(game) -> bool:
    return str(getattr(game.rules, "name", "")).startswith("sheng-ji")


def trump_of(view: dict) -> Trump:
    """The trump context of a view; before the trump is named, the level with no suit."""
    if view.get("trump"):
        return Trump.parse(view["trump"])
    return Trump(LEVEL_RANK[view["level"]], None)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _pts(n: int) -> str:
    return "1 point" if n == 1 else f"{n} points"


def trump_words(trump: str) -> str:
    """``"7C"`` -> ``Level 7, trump ♣``; ``"7"`` -> ``Level 7, no trump``."""
    t = Trump.parse(trump)
    level = str(t)[:-1] if t.suit is not None else str(t)
    if t.suit is None:
        return f"Level {level}, no trump"
    return f"Level {level}, trump {SUIT_SYMBOLS[t.suit]}"


def suit_name(t: Trump, suit: int) -> str:
    return "trumps" if suit == TRUMP else SUIT_SYMBOLS[suit]


def unit_words(t: Trump, cards) -> str:
    """A lead in words: single, pair, triple, tractor of 3 pairs, or throw (pair + 2 singles)."""
    units = decompose(t, cards)

    def one(u) -> str:
        if u.length >= 2:
            what = {2: "pairs", 3: "triples"}.get(u.width, f"{u.width}-tuples")
            return f"tractor of {u.length} {what}"
        return {1: "single", 2: "pair", 3: "triple"}.get(u.width, f"{u.width} of a kind")

    if len(units) == 1:
        return one(units[0])
    return "throw: " + " + ".join(one(u) for u in units)


# ------------------------------------------------------------------------- help text
HELP = [
    "Sheng ji in short:",
    "  - Sides: the declarer (and partner, or the friends called in Zhao Pengyou) against the "
    "opponents. Each side (player, in Zhao Pengyou) has a level, 2 up to A; the hand is "
    "played at the declarer's level.",
    "  - Trumps: both jokers, every card of the level rank, and every card of the trump suit "
    "(none in no trump). From low to high: trump suit 2..A without the level rank, the level "
    "cards of other suits (all equal), the level card of the trump suit, BJ, RJ. All trumps "
    "count as one suit.",
    "  - Deal: cards are dealt one at a time; show a level card to name its suit trump "
    "(bid 2S), a pair of it to overcall a single (bid 2S 2S), or a joker pair for no trump. "
    "The declarer takes the kitty and buries as many cards.",
    "  - Units: a single, a pair (two identical cards), or a tractor (pairs next to each "
    "other in the suit's order, e.g. 8H 8H 9H 9H; the level rank is skipped). Lead one unit, "
    "or several units of one suit at once (a throw), which works only if no one can beat "
    "any of them in that suit: if someone can, you must play the smallest unit that loses.",
    "  - Following: play as many cards as were led, of the led suit as far as you can; pairs "
    "when pairs were led (if you have pairs in that suit), a tractor for a tractor if you "
    "have one. With none of the suit, play anything: trumps may take the trick.",
    "  - The highest play of the led suit wins, or the highest trump play of the same shape; "
    "on a tie the earlier play wins. The winner leads next.",
    "  - Points: each 5 counts 5, each 10 and K 10 (100 per pack). The opponents collect "
    "points; if they win the last trick, the kitty's points count double (more when that "
    "trick was led with pairs or a tractor). With two packs: under 80 points the declarers "
    "go up 1 to 3 levels and declare again; from 80 the opponents become the declarers, and "
    "from 120 they also go up (the marks scale with the packs: 40 with one).",
    "  - Zhao Pengyou: the declarer calls friends, e.g. call 1 AS: whoever plays the first "
    "A♠ joins the declarer; the sides are known only as friends appear.",
    "Typing: a suggestion number; cards in any case (7h 7h, 10h or th, bj); pass during the "
    "deal; while burying, the card(s) to bury (3d or 3d 4d); call 1 as to call a friend; a "
    "whole lead or follow (kh qh qh leads a throw). Also: hint, show, help, quit.",
]


# ------------------------------------------------------------------------- renderer
class ShengJiRenderer(Renderer):
    """Prints one Sheng ji game for one viewer (``human``; None for a replay, hands open)."""

    def __init__(self, console, game, names: list[str], long_names: list[str],
                 human: int | None):
        super().__init__(console, game, names, long_names, human)
        self.trick_points = False
        self.kitty_cards: list[int] = []        # what the human's hand got from the kitty
        self._deal_hand: Counter | None = None  # the human's hand at the last deal decision

    # -- cards
    def card(self, c: int, t: Trump | None) -> Text:
        """A card; trumps in bold (yellow where the suit is black)."""
        text = card_text(c)
        if t is not None and t.is_trump(c) and c < BJ_CODE:
            text.stylize("bold" if (c & 3) in (0, 2) else "bold yellow")
        return text

    def cards(self, cards, t: Trump | None = None) -> Text:
        out = Text()
        for i, c in enumerate(cards):
            if i:
                out.append(" ")
            out.append_text(self.card(c, t))
        return out

    def sorted_hand(self, cards) -> list[int]:
        t = self.g.trump_for_display()
        return sorted(cards, key=lambda c: t.key(c) + (c,))

    def hand_groups(self, cards, t: Trump) -> Text:
        """Cards by effective suit (two spaces apart), trumps last after a bar."""
        cards = sorted(cards, key=lambda c: t.key(c) + (c,))
        out = Text()
        prev = None
        for c in cards:
            s = t.suit_of(c)
            if prev is not None:
                if s != prev:
                    out.append("  | trumps: " if s == TRUMP else "  ")
                else:
                    out.append(" ")
            elif s == TRUMP:
                out.append("trumps: ")
            out.append_text(self.card(c, t))
            prev = s
        return out

    def name(self, seat: int) -> str:
        return self.names[seat]

    def seats(self, seats) -> str:
        return ", ".join(self.names[s] for s in seats)

    def team_index(self, seat: int) -> int | None:
        for i, team in enumerate(self.rules.teams or ()):
            if seat in team:
                return i
        return None

    def team_label(self, i: int) -> str:
        return f"Team {TEAM_NAMES[i]} ({self.seats(self.rules.teams[i])})"

    def trump_words(self, view: dict) -> str:
        if not view.get("trump"):
            return f"Level {view['level']}, trump not named yet"
        return trump_words(view["trump"])

    # -- headers
    def game_header(self) -> None:
        r, g = self.rules, self.g
        length = "one hand" if not g.match else "a match: the first side to win a hand as " \
                                                 "declarers at level A"
        self.say(Text(r.name, style="bold"),
                 f": {r.players} players, {_plural(r.decks, 'pack')}, kitty {r.kitty}; "
                 f"{length}; seed {g.seed}")
        if r.teams:
            self.say("Partners: " + "; ".join(self.team_label(i) for i in range(len(r.teams))))
        else:
            self.say(f"Partners change every hand: the declarer calls "
                     f"{_plural(r.friends, 'friend')}.")
        defaults = preset_info(r.name)["defaults"]

        def norm(v):
            return str(tuple(v) if isinstance(v, (list, tuple)) else v).upper()

        opts = ", ".join(f"{k}={fmt_value(v)}" for k, v in r.options.items()
                         if k != "players" and norm(v) != norm(defaults.get(k)))
        if opts:
            self.say(f"Options: {opts}")
        if self.human is not None:
            self.say(f"You are seat {self.human}. Type help at the prompt for how to play.")

    def hand_header(self, view: dict) -> None:
        self.blank()
        self.c.rule(Text(f" Hand {view['hand_number']} ", style="bold"), characters="-")
        self._deal_hand = None
        self.kitty_cards = []
        decl = view["declarer"]
        if decl is None:
            self.say(f"Level {view['level']}. Cards are dealt one at a time; the first to "
                     f"show a level card ({view['level']}) names the trump and declares.")
        else:
            self.say(f"Level {view['level']}: {self.name(decl)} "
                     f"{self._verb(decl, 'declare', 'declares')}"
                     + (f" for {self.side_words(view, decl)}" if self.rules.teams else "")
                     + ". Cards are dealt one at a time: show a level card "
                       f"({view['level']}) to name the trump.")

    def side_words(self, view: dict, seat: int) -> str:
        i = self.team_index(seat)
        return self.team_label(i) if i is not None else self.name(seat)

    # -- the table
    def table(self, view: dict) -> None:
        decl = view["declarer"]
        friends = view.get("friends") or []
        teams = self.rules.teams
        t = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, padding=(0, 1))
        cols = [("", "left"), ("Player", "left")] + ([("Team", "left")] if teams else []) + \
            [("Role", "left"), ("Level", "right"), ("Cards", "right"), ("Points won", "right")]
        for col, just in cols:
            t.add_column(col, justify=just)
        decl_team = self.team_index(decl) if teams and decl is not None else None
        for s in range(view["players"]):
            row = [">" if view["to_act"] == s else "",
                   Text(self.long_names[s], style="bold" if s == self.human else "")]
            if teams:
                row.append(TEAM_NAMES[self.team_index(s)])
            if s == decl:
                role = "declarer"
            elif teams:
                role = "partner" if decl_team is not None and \
                    self.team_index(s) == decl_team else ""
            else:
                role = "friend" if s in friends else ""
            row += [role, view["levels"][s], str(view["counts"][s]), str(view["points_won"][s])]
            t.add_row(*row)
        self.c.print(t)
        self.say(Text(self.trump_words(view), style="bold"),
                 f"   (bid: {self.name(view['bid']['seat'])} {view['bid']['cards']})"
                 if view.get("bid") and not view.get("trump") else "")
        if teams:
            self.say("Levels: " + "   ".join(
                f"{self.team_label(i)} {view['levels'][teams[i][0]]}"
                for i in range(len(teams))))
        if decl is not None:
            self.say(self.sides_line(view))
            u = 40 * self.rules.decks     # two bands of 20 points per pack: the take-over mark
            self.say(f"Opponents' points: {view['opponents_points']} "
                     f"(the opponents take over at {u}; kitty not counted yet)")

    def sides_line(self, view: dict) -> str:
        decl = view["declarer"]
        teams = self.rules.teams
        if teams:
            d = self.team_index(decl)
            o = 1 - d if len(teams) == 2 else None
            line = f"Declarer: {self.name(decl)} of {self.team_label(d)}"
            if o is not None:
                line += f"; opponents: {self.team_label(o)}"
            return line + "."
        calls = view.get("calls") or []
        friends = view.get("friends") or []
        line = f"Declarer: {self.name(decl)}"
        if calls:
            line += "; calls: " + ", ".join(self.call_words(c) for c in calls)
            line += "; friends: " + (self.seats(friends) if friends else "none yet") + \
                    f" ({len(friends)} of {len(calls)} found)"
        return line + "."

    def call_words(self, call: str) -> str:
        o, card = call.split()
        c = parse(card)[0]
        return f"{ordinal(int(o))} {CARD_TEXT[c][:-1] + SUIT_SYMBOLS[c & 3]}"

    # -- the trick
    def trick(self, view: dict) -> None:
        t = trump_of(view)
        plays = [(s, plain_cards(text)) for s, text in view.get("trick") or []]
        pending = plain_cards(" ".join(view.get("pending") or [])) if view.get("pending") \
            else []
        if plays:
            line = Text(f"Trick {len(view.get('tricks') or []) + 1}: ")
            for i, (seat, cards) in enumerate(plays):
                if i:
                    line.append(" | ", style="dim")
                line.append(self.name(seat) + " ")
                line.append_text(self.cards(cards, t))
            w = plays[trick_winner(t, [c for _, c in plays])][0]
            line.append(f"   ({self.name(w)} {self._verb(w, 'are', 'is')} winning)", style="dim")
            self.c.print(line)
        who = view["to_act"]
        if who is None:
            return
        if not plays:
            if who == self.human:
                if pending:
                    self.say("Your throw so far: ", self.cards(pending, t),
                             ". Add a card of the suit (its number or throw <card>), or play "
                             "to lead it.")
                else:
                    self.say("You lead: a single, a pair, a tractor, or several units of one "
                             "suit at once (a throw: type them together).")
            else:
                self.say(f"{self.name(who)} leads.")
            return
        if who == self.human:
            lead = plays[0][1]
            suit = t.suit_of(lead[0])
            n = len(lead)
            pairs = "; pairs for pairs" if any(u.width >= 2 for u in decompose(t, lead)) else ""
            self.say(f"Follow with {_plural(n, 'card')}: {suit_name(t, suit)} as far as you "
                     f"can{pairs}.")
            if pending or (view.get("legal_moves") or [""])[0].startswith("pick"):
                mine = [c for c in plain_cards(" ".join(view["hand"])) if t.suit_of(c) == suit]
                line = Text(f"You are short of {suit_name(t, suit)}: ")
                if mine:
                    line.append("yours all go in (")
                    line.append_text(self.cards(mine, t))
                    line.append("); ")
                line.append(f"choose the other {_plural(n - len(mine), 'card')} one at a time")
                if pending:
                    line.append(" (so far: ")
                    line.append_text(self.cards(pending, t))
                    line.append(")")
                self.c.print(line.append(", or type them all."))

    # -- the human's hand and decision
    def hand(self, view: dict) -> None:
        cards = plain_cards(" ".join(view["hand"])) if view["hand"] else []
        line = Text()
        line.append(f"Your hand ({len(cards)}): ", style="bold")
        line.append_text(self.hand_groups(cards, trump_of(view)))
        self.c.print(line)

    def decision(self, view: dict, texts: list[str], more: int) -> None:
        """Everything shown when the human must decide."""
        self.blank()
        phase = view["phase"]
        legal = view.get("legal_moves") or []
        t = trump_of(view)
        if phase == "deal" or (phase == "bury" and "pass" in legal):
            self._bid_prompt(view, legal, t)
        elif phase == "bury":
            buried = plain_cards(" ".join(view.get("buried") or [])) if view.get("buried") \
                else []
            self.say(Text(self.trump_words(view), style="bold"))
            if self.kitty_cards:
                self.say("The kitty gave you: ", self.cards(self.kitty_cards, t))
            self.hand(view)
            left = view["kitty_size"] - len(buried)
            self.say(f"Bury {_plural(left, 'card')}: type a card (or several)"
                     + (f"; buried so far: {self.cards(buried, t)}" if buried else "") + ".")
        elif phase == "call":
            self.say(Text(self.trump_words(view), style="bold"))
            self.hand(view)
            calls = view.get("calls") or []
            self.say(f"Call friend {len(calls) + 1} of {self.rules.friends}: e.g. call 1 AS - "
                     "whoever plays the first A♠ joins you (your own copies count too: "
                     "call 2 AS if you hold one).")
        else:
            self.table(view)
            self.trick(view)
            self.hand(view)
        self.suggestions(texts, more)

    def _bid_prompt(self, view: dict, legal: list[str], t: Trump) -> None:
        hand = Counter(plain_cards(" ".join(view["hand"])))
        bid = view.get("bid")
        if view["phase"] == "deal":
            new = []
            previous = self._deal_hand
            if self._deal_hand is not None:
                new = sorted((hand - self._deal_hand).elements(), key=lambda c: t.key(c) + (c,))
            self._deal_hand = hand
            line = Text(f"Dealing: you hold {_plural(len(view['hand']), 'card')}. "
                        f"Level {view['level']}; ")
            line.append(f"bid so far: {self.name(bid['seat'])} {bid['cards']}" if bid
                        else "no bid yet")
            if new:
                line.append(".  New: ")
                line.append_text(self.cards(new, t))
            elif previous is not None and previous == hand:
                line.append(". The deal is over: a last chance to bid")
            self.c.print(line)
        else:
            self.say(f"Kitty theft: {self.name(view['declarer'])} buried; you may overcall "
                     f"the bid ({bid['cards'] if bid else '-'}) and take the kitty.")
        self.hand(view)
        bids = [m for m in legal if m != "pass"]
        self.say("You may bid: " + ", ".join(bids) + ", or pass")

    def suggestions(self, texts: list[str], more: int) -> None:
        super().suggestions(texts, more if not texts or not texts[0].startswith("call")
                            else 0)
        if more and texts and texts[0].startswith("call"):
            self.say(f"... {more} more: type the call, e.g. call 1 AS", style="dim")

    # -- narration
    def bid_made(self, seat: int, cards: str) -> None:
        c = parse(cards)
        if c[0] >= BJ_CODE:
            what = "no trump"
        else:
            what = f"trump {SUIT_SYMBOLS[c[0] & 3]}"
        self.say(f"{self.name(seat)} {self._verb(seat, 'bid', 'bids')} ", self.cards(c),
                 f" ({what}).")

    def trump_named(self, trump: str, declarer: int, no_bid: bool) -> None:
        prefix = "Nobody bid: the kitty names the trump. " if no_bid else ""
        self.say(Text(prefix + trump_words(trump) + ".", style="bold"))
        line = f"{self.name(declarer)} {self._verb(declarer, 'declare', 'declares')}"
        if self.rules.teams:
            line += f" for {self.team_label(self.team_index(declarer))}"
        self.say(line + f" and {self._verb(declarer, 'take', 'takes')} the kitty "
                        f"({_plural(self.rules.kitty, 'card')}) to bury as many.")

    def play_made(self, seat: int, cards, t: Trump, lead: bool, winning: bool) -> None:
        name = self.name(seat)
        if lead:
            self.say(f"{name} {self._verb(seat, 'lead', 'leads')} ", self.cards(cards, t),
                     f" ({unit_words(t, cards)})")
        else:
            self.say(f"{name} {self._verb(seat, 'play', 'plays')} ", self.cards(cards, t),
                     " (winning)" if winning else "")

    def hand_summary(self, summary: dict, transfer=None) -> None:
        self.blank()
        self.say(Text(f"Hand {summary['hand']} is over.", style="bold"))
        decl, opp = summary["declarers"], summary["opponents"]
        t = Trump.parse(summary["trump"])
        self.say(f"{trump_words(summary['trump'])}; declarer {self.name(summary['declarer'])}. "
                 f"Declarers: {self.seats(decl)}; opponents: {self.seats(opp)}.")
        self.say(f"The opponents won {_pts(summary['points'])} in tricks.")
        kitty = sorted(plain_cards(summary["kitty"]) if summary.get("kitty") else [],
                       key=lambda c: t.key(c) + (c,))
        line = Text("Kitty: ")
        line.append_text(self.cards(kitty, t) if kitty else Text("-"))
        kp, mult = summary["kitty_points"], summary["kitty_multiplier"]
        if mult:
            line.append(f" ({_pts(kp)}); the opponents took the last trick: x{mult} = "
                        f"{_pts(summary['kitty_bonus'])} more.")
        elif kp:
            line.append(f" ({_pts(kp)}); the declarers took the last trick: it does not count.")
        else:
            line.append(" (no points).")
        self.c.print(line)
        if summary.get("penalty"):
            self.say(f"Failed throws: {summary['penalty']:+d} points.")
        ch = summary["change"]
        n = ch["levels"]
        if ch["side"] == "declarers":
            result = f"the declarers hold and go up {_plural(n, 'level')}"
        elif n:
            result = f"the opponents take over and go up {_plural(n, 'level')}"
        else:
            result = "the opponents take over as declarers"
        self.say(Text(f"Total for the opponents: {_pts(summary['total'])}: {result}.",
                      style="bold"))
        before, after = summary["levels_before"], summary["levels"]
        if self.rules.teams:
            parts = []
            for i, team in enumerate(self.rules.teams):
                s = team[0]
                parts.append(f"{self.team_label(i)} {before[s]}"
                             + (f" -> {after[s]}" if after[s] != before[s] else ""))
            self.say("Levels: " + "; ".join(parts) + ".")
        else:
            self.say("Levels: " + ", ".join(
                f"{self.name(s)} {before[s]}" + (f"->{after[s]}" if after[s] != before[s]
                                                 else "") for s in range(len(after))) + ".")

    def next_declarer(self, view: dict) -> None:
        d = view["declarer"]
        self.say(f"Next declarer: {self.name(d)}, at level {view['level']}.")

    def final(self, result: dict) -> None:
        self.blank()
        self.c.rule(Text(" The end ", style="bold"), characters="=")
        g = self.g
        levels = result["levels"]
        if self.rules.teams:
            for i, team in enumerate(self.rules.teams):
                self.say(f"{self.team_label(i)}: level {levels[team[0]]}")
        else:
            self.say("Levels: " + ", ".join(f"{self.name(s)} {levels[s]}"
                                            for s in range(len(levels))))
        if g.match:
            self.say(f"Hands played: {result['hands']}")
        winners = result.get("match_winners") or result.get("winners") or []
        what = "match at level A" if g.match and result.get("match_winners") else "hand"
        mine = self.human is not None and self.human in winners
        if self.rules.teams:
            i = self.team_index(winners[0]) if winners else None
            who = self.team_label(i) if i is not None else self.seats(winners)
            msg = f"{who} wins the {what}!"
        else:
            msg = f"{self.seats(winners)} win the {what}!"
        self.say(Text(msg + (" Well played!" if mine else ""), style="bold green"))

    def help(self) -> None:
        for line in HELP:
            self.say(line)


# ------------------------------------------------------------------------- narrator
class ShengJiNarrator:
    """Tells every move from the game's events; ``viewer``'s view gives the public facts.

    With ``open_hands`` (a replay) the buried cards are told too.
    """

    def __init__(self, game, renderer: ShengJiRenderer, viewer: int = 0,
                 on_play_start=None, open_hands: bool = False):
        self.g = game
        self.r = renderer
        self.viewer = viewer
        self.open = open_hands
        self.on_play_start = on_play_start or (lambda: None)
        self.k = 0           # events told
        self.m = 0           # moves told
        self.trick: list[tuple[int, tuple]] = []
        self.kitty: list[int] = []
        # the trump of the hand being told (the game may already be dealing the next one)
        self.t: Trump | None = game.trump
        self.quiet_pass = False   # the next pass of the human was automatic: not told

    def begin(self) -> None:
        self.r.hand_header(self.g.view(self.viewer))
        self._tell()

    def before(self) -> dict:
        """Before a move: the phase, and the kitty the move may hand over."""
        g = self.g
        # the kitty as it lies (or as buried, for a kitty theft), told only to whoever takes
        # it: the human, or everyone in a replay with open hands
        self.kitty = list(getattr(g, "kitty", []) or []) if g.phase != "play" else []
        return {"phase": g.phase, "hand_number": g.hand_number}

    def after(self, seat: int, pre: dict) -> None:
        self._tell(pre)

    def _tell(self, pre: dict | None = None) -> None:
        g, r = self.g, self.r
        for s, move in g.moves[self.m:]:
            if move.kind == "bury" and (s == r.human or self.open):
                r.say(f"{r.name(s)} {r._verb(s, 'bury', 'buries')} ",
                      r.cards(move.cards, self.t))
            elif move.kind == "pass" and s == r.human and not self.quiet_pass:
                r.say("You pass.", style="dim")
        self.quiet_pass = False
        self.m = len(g.moves)
        phase_before = pre["phase"] if pre else None
        friends: list[dict] = []          # told after the play that makes them friends
        for e in g.events[self.k:]:
            if e.get("event") == "friend":
                friends.append(e)
                continue
            if e.get("event") != "play":
                for f in friends:
                    self._event(f, pre)
                friends = []
            self._event(e, pre)
            for f in friends:
                self._event(f, pre)
            friends = []
        for f in friends:
            self._event(f, pre)
        self.k = len(g.events)
        if not g.over and g.phase == "play" and phase_before not in (None, "play") and \
                not g.tricks and not g.trick:
            self.on_play_start()

    def _event(self, e: dict, pre: dict | None) -> None:
        g, r = self.g, self.r
        kind = e.get("event")
        if kind == "bid":
            r.bid_made(e["seat"], e["bid"])
        elif kind == "redeal":
            r.say("Nobody bid: the cards are shuffled and dealt again.")
        elif kind == "no bid":
            self._no_bid = True
        elif kind == "trump":
            self.t = Trump.parse(e["trump"])
            r.trump_named(e["trump"], e["declarer"], getattr(self, "_no_bid", False))
            self._no_bid = False
            self._kitty(e["declarer"], pre)
        elif kind == "kitty theft":
            self.t = Trump.parse(e["trump"])
            r.say(Text(f"{r.name(e['seat'])} {r._verb(e['seat'], 'overcall', 'overcalls')}: "
                       f"trump {e['trump']}; {r._verb(e['seat'], 'you take', 'they take')} "
                       "the kitty and bury again.", style="bold"))
            self._kitty(e["seat"], pre)
        elif kind == "buried":
            s = e["seat"]
            r.say(f"{r.name(s)} {r._verb(s, 'have', 'has')} buried "
                  f"{_plural(g.rules.kitty, 'card')}.")
        elif kind == "call":
            s = e["seat"]
            r.say(f"{r.name(s)} {r._verb(s, 'call', 'calls')} a friend: whoever plays the "
                  f"{r.call_words(e['call'])} joins {r._verb(s, 'you', 'them')}.")
        elif kind == "failed throw":
            s = e["seat"]
            t = self.t
            r.say(Text(f"{r.name(s)} {r._verb(s, 'try', 'tries')} to throw "
                       f"{r.cards(plain_cards(e['tried']), t)}, but it can be beaten: "
                       f"{r._verb(s, 'you play', 'they play')} "
                       f"{r.cards(plain_cards(e['forced']), t)} instead.", style="bold"))
        elif kind == "play":
            t = self.t
            cards = tuple(plain_cards(e["cards"]))
            self.trick.append((e["seat"], cards))
            lead = len(self.trick) == 1
            winning = not lead and trick_winner(t, [c for _, c in self.trick]) == \
                len(self.trick) - 1
            r.play_made(e["seat"], cards, t, lead, winning)
        elif kind == "friend":
            s = e["seat"]
            r.say(Text(f"{r.name(s)} {r._verb(s, 'play', 'plays')} the "
                       f"{r.call_words(e['call'])}: {r.name(s)} "
                       f"{r._verb(s, 'are', 'is')} a friend of the declarer!",
                       style="bold"))
        elif kind == "trick":
            self.trick = []
            w = e["winner"]
            r.say(f"{r.name(w)} {r._verb(w, 'win', 'wins')} the trick"
                  + (f" ({_pts(e['points'])})" if e["points"] else "") + ".", style="dim")
        elif kind == "hook":
            r.say(Text(f"Hooked! The declarers go back to level {e['back_to']}.",
                       style="bold"))
        elif kind == "hand over":
            self.trick = []
            summary = {k: v for k, v in e.items() if k != "event"}
            r.hand_summary(summary)
            if not g.over:
                view = g.view(self.viewer)
                r.next_declarer(view)
                r.hand_header(view)

    def _kitty(self, seat: int, pre: dict | None) -> None:
        """Remember which cards the kitty gave the human (shown while burying)."""
        r = self.r
        if pre is None or not self.kitty or not (self.open or seat == r.human):
            return
        cards = sorted(self.kitty, key=lambda c: self.t.key(c) + (c,))
        r.kitty_cards = cards
        if self.open:
            r.say("The kitty: ", r.cards(cards, self.t))


# ---------------------------------------------------------------------------- input
@dataclass(frozen=True)
class SJCommand:
    """One line: ``kind`` move (``moves``: texts to apply in turn; ``index`` when picked by
    number), help, hint, show, quit, empty or error (``text``: the message)."""

    kind: str
    moves: tuple = ()
    index: int | None = None
    text: str = ""


def _held_error(cards, hand) -> str | None:
    have = Counter(hand)
    for c, k in Counter(cards).items():
        if have[c] < k:
            return f"you hold only {have[c]} x {CARD_TEXT[c]}" if have[c] else \
                f"you don't hold {CARD_TEXT[c]}"
    return None


def _text(cards) -> str:
    return " ".join(CARD_TEXT[c] for c in cards)


def parse_sheng_ji_input(line: str, suggestions: list[str], view: dict) -> SJCommand:
    """Read one input line at a Sheng ji decision (``view``: the human's view, with its
    ``legal_moves``). Pure: the game still judges every move."""
    text = line.strip()
    if not text:
        return SJCommand("empty")
    low = text.lower()
    if low in _COMMANDS:
        return SJCommand(_COMMANDS[low])
    if low.isascii() and low.isdigit():
        n = int(low)
        if not suggestions:
            return SJCommand("error", text="there are no numbered suggestions now; type cards")
        if not 1 <= n <= len(suggestions):
            return SJCommand("error", text=f"no suggestion {n}: choose 1 to {len(suggestions)}, "
                                           "or type cards")
        return SJCommand("move", (suggestions[n - 1],), n - 1)
    legal = view.get("legal_moves") or []
    phase = view["phase"]
    bidding = phase == "deal" or (phase == "bury" and "pass" in legal)
    if low in _PASS_WORDS:
        if bidding:
            return SJCommand("move", ("pass",))
        return SJCommand("error", text="there is no passing now: " + _what_now(view, legal))
    tokens = text.replace(",", " ").split()
    word = tokens[0].lower()
    hand = plain_cards(" ".join(view["hand"])) if view["hand"] else []
    try:
        if bidding:
            if word == "bid":
                tokens = tokens[1:]
            if not tokens:
                return SJCommand("error", text="bid which card? e.g. bid 2S, or pass")
            cards = sorted(parse(" ".join(tokens)))
            why = _held_error(cards, hand)
            return SJCommand("error", text=why) if why else \
                SJCommand("move", ("bid " + _text(cards),))
        if phase == "bury":
            if word == "bury":
                tokens = tokens[1:]
            cards = list(parse(" ".join(tokens)))
            if not cards:
                return SJCommand("error", text="bury which card? e.g. 3d")
            why = _held_error(cards, hand)
            return SJCommand("error", text=why) if why else \
                SJCommand("move", tuple("bury " + CARD_TEXT[c] for c in cards))
        if phase == "call":
            return _parse_call(tokens, hand, legal)
        if phase == "play":
            return _parse_play(tokens, hand, view, legal)
    except NotationError as e:
        return SJCommand("error", text=str(e))
    return SJCommand("error", text="nothing to do now")


def _what_now(view: dict, legal: list[str]) -> str:
    phase = view["phase"]
    if phase == "bury":
        return "type a card to bury"
    if phase == "call":
        return "call a friend, e.g. call 1 AS"
    if legal and legal[0].startswith("pick"):
        return "type the cards to play, or pick a card by its number"
    return "type the cards to play, or a number"


def _parse_call(tokens: list[str], hand, legal: list[str]) -> SJCommand:
    if tokens[0].lower() == "call":
        tokens = tokens[1:]
    if not tokens:
        return SJCommand("error", text="call which card? e.g. call 1 AS")
    ordinal_ = None
    if len(tokens) >= 2:
        o = tokens[0].lower().rstrip(".").removesuffix("st").removesuffix("nd") \
            .removesuffix("rd").removesuffix("th")
        if not o.isdigit():
            return SJCommand("error", text="say which copy, then the card: e.g. call 2 AS")
        ordinal_ = int(o)
        tokens = tokens[1:]
    cards = parse(" ".join(tokens))
    if len(cards) != 1:
        return SJCommand("error", text="call one card, e.g. call 1 AS")
    c = cards[0]
    if ordinal_ is None:
        ordinal_ = Counter(hand)[c] + 1
    move = f"call {ordinal_} {CARD_TEXT[c]}"
    if legal and move not in legal:
        if not any(m.split()[2] == CARD_TEXT[c] for m in legal):
            return SJCommand("error", text=f"{CARD_TEXT[c]} cannot be called: trumps cannot")
        top = max(int(m.split()[1]) for m in legal if m.split()[2] == CARD_TEXT[c])
        return SJCommand("error", text=f"call the 1st to {ordinal(top)} {CARD_TEXT[c]}")
    return SJCommand("move", (move,))


def _parse_play(tokens: list[str], hand, view: dict, legal: list[str]) -> SJCommand:
    word = tokens[0].lower()
    if word == "play" and len(tokens) == 1:
        if "play" in legal:
            return SJCommand("move", ("play",))
        return SJCommand("error", text="no throw is being built: type the cards to play")
    if word in ("throw", "pick"):
        cards = list(parse(" ".join(tokens[1:])))
        if not cards:
            return SJCommand("error", text=f"{word} which card? e.g. {word} KH")
        why = _held_error(cards + plain_cards(" ".join(view.get("pending") or [])), hand)
        if why:
            return SJCommand("error", text=why)
        return SJCommand("move", tuple(f"{word} {CARD_TEXT[c]}" for c in cards))
    cards = list(parse(" ".join(tokens)))
    pending = plain_cards(" ".join(view.get("pending") or [])) if view.get("pending") else []
    why = _held_error(cards + pending, hand)
    if why:
        return SJCommand("error", text=why)
    if view["trick"] and legal and legal[0].startswith("pick"):
        # short of the suit: the suit's cards go in anyway; accept just the free cards
        t = trump_of(view)
        lead = plain_cards(view["trick"][0][1])
        suit = t.suit_of(lead[0])
        mine = [c for c in hand if t.suit_of(c) == suit]
        if not any(t.suit_of(c) == suit for c in cards) and \
                len(mine) + len(pending) + len(cards) == len(lead):
            cards = mine + cards
    if not view["trick"] and pending:
        # a throw being built: the typed cards are added to it, then it is led
        return SJCommand("move", tuple(f"throw {CARD_TEXT[c]}" for c in cards) + ("play",))
    return SJCommand("move", (_text(sorted(cards)),))


# ----------------------------------------------------------------------- suggestions
def order_sheng_ji(moves: list, view: dict) -> list:
    """The legal moves (Move objects or texts), the most sensible first."""
    texts = [str(m) for m in moves]
    by_text = dict(zip(texts, moves))
    if not texts:
        return []
    t = trump_of(view)
    first = texts[0].split()[0]
    if "pass" in texts:       # bidding: pass first, then the bids, weakest first
        bids = [m for m in texts if m != "pass"]
        bids.sort(key=lambda m: (len(m.split()), parse(m[4:])[0]))
        ordered = ["pass"] + bids
    elif first == "bury":
        cards = {parse(m[5:])[0]: m for m in texts}
        ordered = [cards[c] for c in sjbot.bury_order(view, list(cards))]
    elif first == "call":
        ordered = sjbot.call_order(view, texts)
    elif first == "pick":
        ordered = sorted(texts, key=lambda m: (t.is_trump(parse(m[5:])[0]),
                                               sjbot.card_points(parse(m[5:])[0]) > 0,
                                               t.position(parse(m[5:])[0]), m))
    elif view["trick"]:       # following: the cheapest first (no trumps, no points, low)
        ordered = sorted(texts, key=lambda m: sjbot._cost(t, parse(m)))
    else:                     # leading: singles in hand order, then pairs, tractors, throws
        def key(m):
            if m == "play":
                return (0, 0, ())
            if m.startswith("throw "):
                return (2, 0, t.key(parse(m[6:])[0]))
            cards = parse(m)
            return (1, len(cards), min(t.key(c) for c in cards))
        ordered = sorted(texts, key=key)
    return [by_text[m] for m in ordered]


# ---------------------------------------------------------------------------- session
class ShengJiSession(PlaySession):
    """One human against bots in Sheng ji. A single legal move (a forced follow, a last card)
    is played for the human; delays follow bot plays, not their silent passes while dealing.
    With ``auto_pass`` the human is asked during the deal only when the bids open to them
    change (a new level card or pair), and passes otherwise."""

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
                r.say(hint_text(self.hint_bot, view))
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
