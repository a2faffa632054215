"""Sheng ji in the terminal: what is shown (:class:`ShengJiRenderer`), the words for trumps,
suits and plays, and the help text."""

from __future__ import annotations

from collections import Counter

from rich import box
from rich.console import JustifyMethod, RenderableType
from rich.table import Table
from rich.text import Text

from ..cards import BJ_CODE, CARD_TEXT, SUIT_SYMBOLS, parse
from ..games.sheng_ji.order import LEVEL_RANK, TRUMP, Trump, decompose
from ..games.sheng_ji.tricks import trick_winner
from ..registry import preset_info
from .render import TEAM_NAMES, Renderer, card_text, fmt_value, ordinal, plain_cards


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
        cols: list[tuple[str, JustifyMethod]] = [("", "left"), ("Player", "left")]
        if teams:
            cols.append(("Team", "left"))
        cols += [("Role", "left"), ("Level", "right"), ("Cards", "right"), ("Points won", "right")]
        for col, just in cols:
            t.add_column(col, justify=just)
        decl_team = self.team_index(decl) if teams and decl is not None else None
        for s in range(view["players"]):
            row: list[RenderableType] = [
                ">" if view["to_act"] == s else "",
                Text(self.long_names[s], style="bold" if s == self.human else "")]
            if teams:
                row.append(TEAM_NAMES[self.team_number(s)])
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
            d = self.team_number(decl)
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
                if len(mine) > n:      # many legal follows: the suit's cards one at a time
                    line = Text(f"Choose your {_plural(n, 'card')} of {suit_name(t, suit)} "
                                "one at a time (only cards that can still make a legal "
                                "follow are offered)")
                else:
                    line = Text(f"You are short of {suit_name(t, suit)}: ")
                    if mine:
                        line.append("yours all go in (")
                        line.append_text(self.cards(mine, t))
                        line.append("); ")
                    line.append(f"choose the other {_plural(n - len(mine), 'card')} one at a "
                                "time")
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
            line += f" for {self.team_label(self.team_number(declarer))}"
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
            w = self.team_number(winners[0]) if winners else None
            who = self.team_label(w) if w is not None else self.seats(winners)
            msg = f"{who} wins the {what}!"
        else:
            msg = f"{self.seats(winners)} win the {what}!"
        self.say(Text(msg + (" Well played!" if mine else ""), style="bold green"))

    def help(self) -> None:
        for line in HELP:
            self.say(line)
