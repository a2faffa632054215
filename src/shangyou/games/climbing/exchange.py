"""The exchange of cards between two hands of a match (docs/rules/): pagat's pits (the last
players give their highest cards, the first take them, then discard to them) and Owen's offer
(the loser gives the highest card, the winner offers two, the loser picks one). Functions of the
game, called by :class:`~shangyou.games.climbing.game.ClimbingGame`'s exchange methods."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ...cards import CARD_TEXT, Cards, parse
from ...engine.moves import DISCARD, GIVE, OFFER, TAKE, Move
from ...errors import IllegalMove, NotationError

if TYPE_CHECKING:
    from .game import ClimbingGame


def without(hand: Sequence[int], cards: Sequence[int]) -> list[int]:
    """``hand`` less ``cards`` (each held), a new list: the Python code replaces a hand rather
    than change it, since a clone may share it (the first copy of a card held twice goes, as
    list.remove)."""
    rest = list(hand)
    for c in cards:
        rest.remove(c)
    return rest

PHASE_EXCHANGE = "exchange"


def begin(g: ClimbingGame, leader: int) -> None:
    """The exchange after a hand: who gives, who takes, and who acts first (``leader``: who
    leads the hand once it is over)."""
    order = g.prev_order
    assert order is not None    # an exchange follows a finished hand
    n = g.n
    g.phase = PHASE_EXCHANGE
    if g.rules.exchange == "pits":
        first, last = order[0], order[-1]
        if n <= 3:
            givers, takers = [last], [first]
        else:
            givers, takers = [last, order[-2]], [first, order[1]]
        g.exchange = {"kind": "pits", "givers": givers, "takers": takers,
                      "shown": [], "discards": [], "step": "show", "leader": leader}
        g.to_act = givers[0]
    else:  # "offer": the loser gives the highest card, the winner offers two, loser picks
        g.exchange = {"kind": "offer", "giver": order[-1], "taker": order[0],
                      "shown": [], "offered": [], "step": "give", "leader": leader}
        g.to_act = order[-1]


def highest(g: ClimbingGame, seat: int) -> list[int]:
    """The cards a player may give as their highest (all equal-ranked highest cards)."""
    h = g.hands[seat]
    strength = g.rules.family.card_strength
    top = max(strength(c) for c in h)
    return sorted({c for c in h if strength(c) == top})


def moves(g: ClimbingGame) -> list[Move]:
    """The legal moves of the seat to act in the exchange."""
    ex = g.exchange
    seat = g.to_act
    assert ex is not None and seat is not None   # the exchange phase
    step = ex["step"]
    if step in ("show", "give"):
        return [Move(GIVE, (c,), token=g._token) for c in highest(g, seat)]
    if step == "take":
        return [Move(TAKE, (c,), token=g._token) for c in sorted(set(ex["pool"]))]
    if step == "discard":
        return [Move(DISCARD, (c,), token=g._token) for c in sorted(set(g.hands[seat]))]
    if step == "offer":
        h = sorted(g.hands[seat])
        pairs = set()
        for i in range(len(h)):
            for j in range(i + 1, len(h)):
                pairs.add((h[i], h[j]))
        return [Move(OFFER, p, token=g._token) for p in sorted(pairs)]
    return []


def resolve(g: ClimbingGame, move: Move | str) -> Move:
    """The legal exchange move that ``move`` (a Move or its text) names; IllegalMove if none."""
    text = str(move).strip()
    legal = moves(g)
    for m in legal:
        if str(m) == text:
            return m
    # accept case-insensitive and differently ordered cards
    parts = text.split(None, 1)
    if len(parts) == 2:
        try:
            cards = tuple(sorted(parse(parts[1])))
        except NotationError as e:
            raise IllegalMove(str(e)) from None
        for m in legal:
            if m.kind == parts[0].lower() and tuple(sorted(m.cards)) == cards:
                return m
    want = {m.kind for m in legal}
    raise IllegalMove(f"{text!r} is not a legal {'/'.join(sorted(want))} move now; "
                      f"legal: {', '.join(str(m) for m in legal[:12])}"
                      f"{' ...' if len(legal) > 12 else ''}")


def make(g: ClimbingGame, seat: int, mv: Move) -> None:
    """Make the exchange move ``mv`` of ``seat`` (already checked legal). The exchange's dict
    is replaced, not changed (a clone shares it): a copy is changed, its lists replaced."""
    assert g.exchange is not None                # the exchange phase
    ex = g.exchange = dict(g.exchange)
    c: int = mv.cards[0]                         # every exchange move names its cards
    if ex["kind"] == "pits":
        if ex["step"] == "show":
            _take(g, seat, c)
            _exchanged(g, (seat, None, c))
            ex["shown"] = [*ex["shown"], c]
            _event(g, {"event": "show", "seat": seat, "card": CARD_TEXT[c]})
            if len(ex["shown"]) < len(ex["givers"]):
                g.to_act = ex["givers"][len(ex["shown"])]
            else:
                ex["step"], ex["pool"] = "take", list(ex["shown"])
                g.to_act = ex["takers"][0]
        elif ex["step"] == "take" and "discarded" not in ex:
            ex["pool"] = list(without(ex["pool"], (c,)))
            receive(g, seat, c)
            if ex["pool"]:  # the second taker gets the other card
                receive(g, ex["takers"][1], ex["pool"].pop())
            ex["step"] = "discard"
            g.to_act = ex["takers"][0]
        elif ex["step"] == "discard":
            _take(g, seat, c)
            _exchanged(g, (seat, None, c))
            ex["discards"] = [*ex["discards"], c]
            _event(g, {"event": "discard", "seat": seat, "card": CARD_TEXT[c]})
            if len(ex["discards"]) < len(ex["takers"]):
                g.to_act = ex["takers"][len(ex["discards"])]
            else:
                ex["discarded"] = True
                ex["step"], ex["pool"] = "take", list(ex["discards"])
                # the next-to-last chooses first, the last gets the other
                g.to_act = ex["givers"][-1]
        else:  # taking a discard
            ex["pool"] = list(without(ex["pool"], (c,)))
            receive(g, seat, c)
            if ex["pool"]:
                receive(g, ex["givers"][0], ex["pool"].pop())
            g._begin_play(ex["leader"])
    else:
        if ex["step"] == "give":
            _take(g, seat, c)
            _exchanged(g, (seat, None, c))
            _event(g, {"event": "give", "seat": seat, "card": CARD_TEXT[c]})
            receive(g, ex["taker"], c)
            ex["step"] = "offer"
            g.to_act = ex["taker"]
        elif ex["step"] == "offer":
            ex["pool"] = list(mv.cards)
            _event(g, {"event": "offer", "seat": seat, "cards": str(Cards(mv.cards))})
            ex["step"] = "take"
            g.to_act = ex["giver"]
        else:
            _take(g, ex["taker"], c)
            _exchanged(g, (ex["taker"], None, c))
            receive(g, seat, c)
            g._begin_play(ex["leader"])


def receive(g: ClimbingGame, seat: int, c: int) -> None:
    _exchanged(g, (None, seat, c))
    g.hands[seat] = sorted((*g.hands[seat], c))
    _event(g, {"event": "receive", "seat": seat, "card": CARD_TEXT[c]})


# the log of the exchange and the events: replaced, never changed in place (a clone shares them)
def _exchanged(g: ClimbingGame, what: tuple) -> None:
    g.exchanged = g.exchanged + (what,)


def _event(g: ClimbingGame, event: dict) -> None:
    g.events = g.events + [event]


def _take(g: ClimbingGame, seat: int, c: int) -> None:
    """The card leaves the seat's hand (a new list: a clone may share the old one)."""
    g.hands[seat] = without(g.hands[seat], (c,))
