"""Sheng ji in the terminal: :class:`ShengJiNarrator` tells each move from the game's events
(hidden cards stay hidden: a bot's buried cards are never shown)."""

from __future__ import annotations

from rich.text import Text

from ..games.sheng_ji.order import Trump
from ..games.sheng_ji.tricks import trick_winner
from .render import plain_cards
from .sheng_ji_render import ShengJiRenderer, _plural, _pts


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
            assert t is not None        # cards are played once the trump is named
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
        t = self.t
        assert t is not None            # the trump event just told named it
        cards = sorted(self.kitty, key=lambda c: t.key(c) + (c,))
        r.kitty_cards = cards
        if self.open:
            r.say("The kitty: ", r.cards(cards, t))
