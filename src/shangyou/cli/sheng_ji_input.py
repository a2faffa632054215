"""Sheng ji in the terminal: what is typed. :func:`parse_sheng_ji_input` reads a line into one
or more move texts; :func:`order_sheng_ji` orders the numbered suggestions."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from ..bots import sheng_ji as sjbot
from ..cards import CARD_TEXT, parse
from ..errors import NotationError
from .inputs import _COMMANDS, _PASS_WORDS
from .render import ordinal, plain_cards
from .sheng_ji_render import trump_of


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
