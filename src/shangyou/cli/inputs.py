"""What the human types at the prompt, turned into a command or a move text.

Pure functions, no I/O, so they are easy to test:

* :func:`parse_input` reads one line: a suggestion number, cards (any case, ``10h``/``th``,
  suit symbols), ``pass``/``p``, an explicit reading (``5h 6d bj as 4-6``), exchange moves
  (``give 2S`` or just ``2s`` when the step is a give/take/discard), or a command
  (``help``/``h``/``?``, ``hint``, ``show``, ``quit``/``q``).
* :func:`order_suggestions` sorts legal moves cheapest first for the numbered list.

The game itself still judges every move (``game.apply`` raises ``IllegalMove``); this module
only gives clearer messages for what it can see without the rules (bad cards, cards not held,
numbers out of range, the wrong number of cards for an exchange step).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from ..cards import CARD_TEXT, Cards, parse
from ..errors import NotationError

EXCHANGE_KINDS = ("give", "take", "discard", "offer")
# words accepted for each exchange kind ("show" is what the pits exchange calls giving)
_KIND_WORDS = {"give": "give", "show": "give", "take": "take", "discard": "discard",
               "offer": "offer"}
_COMMANDS = {"help": "help", "h": "help", "?": "help", "hint": "hint", "show": "show",
             "table": "show", "quit": "quit", "q": "quit", "exit": "quit"}
_PASS_WORDS = ("pass", "p")


@dataclass(frozen=True)
class Command:
    """One parsed line. ``kind``: move, help, hint, show, quit, empty or error.

    For ``move``, ``text`` is the move text to give to ``game.apply`` (canonical cards) and
    ``index`` the 0-based suggestion number when the move was picked by number. For ``error``,
    ``text`` is the one-line message to show.
    """

    kind: str
    text: str = ""
    index: int | None = None


def exchange_kind(legal: list) -> str | None:
    """The exchange step the legal moves (texts or moves) belong to, or None in play."""
    if not legal:
        return None
    first = legal[0].kind if hasattr(legal[0], "kind") else str(legal[0]).split(None, 1)[0]
    return first if first in EXCHANGE_KINDS else None


def split_reading(tokens: list[str]) -> tuple[list[str], str | None]:
    """Split ``5h 6d bj as 4-6`` into the card tokens and the reading.

    ``as`` is also the ace of spades, so a line that parses wholly as cards has no reading;
    otherwise the last ``as`` with only cards before it starts the reading.
    """
    if _all_cards(tokens):
        return tokens, None
    for i in range(len(tokens) - 2, 0, -1):
        if tokens[i].lower() == "as" and _all_cards(tokens[:i]):
            return tokens[:i], " ".join(tokens[i + 1:])
    return tokens, None


def _canonical_token(token: str) -> str:
    """A card token in canonical form; ``as`` and reading words unchanged."""
    if token.lower() == "as":
        return "as"
    try:
        return str(parse(token)[0])
    except (NotationError, IndexError):
        return token


def _all_cards(tokens: list[str]) -> bool:
    try:
        parse(" ".join(tokens))
    except NotationError:
        return False
    return True


def parse_input(line: str, suggestions: list[str], step: str | None = None,
                hand: list[int] | None = None) -> Command:
    """Read one input line at a decision.

    ``suggestions``: the numbered move texts shown (1-based on screen); ``step``: the exchange
    step (give/take/discard/offer, see :func:`exchange_kind`) or None when playing;
    ``hand``: the player's cards, to say "you don't hold 7H" before the game is asked.
    """
    text = line.strip()
    if not text:
        return Command("empty")
    low = text.lower()
    if low in _COMMANDS:
        return Command(_COMMANDS[low])
    if low.isascii() and low.isdigit():
        n = int(low)
        if not suggestions:
            return Command("error", "there are no numbered suggestions now; type the cards")
        if not 1 <= n <= len(suggestions):
            return Command("error", f"no suggestion {n}: choose 1 to {len(suggestions)}, "
                                    "or type the cards")
        return Command("move", suggestions[n - 1], n - 1)
    if low in _PASS_WORDS:
        if step is not None:
            return Command("error", f"you cannot pass during the card exchange: "
                                    f"{_exchange_hint(step)}")
        return Command("move", "pass")
    tokens = text.replace(",", " ").split()
    if not tokens:
        return Command("error", "no cards given; type cards like 7h 7s, or pass")
    if step is None and tokens[0].lower() in ("choose", "pick"):
        # a step of the choice of a play among very many (games/climbing/steps.py)
        return Command("move", " ".join([tokens[0].lower()] + tokens[1:]))
    if step is not None:
        return _parse_exchange(tokens, step, hand)
    if any(t.lower() == "as" for t in tokens[1:]) and tokens[-1].lower() != "as":
        # "as" may start a reading or be the ace of spades: the game decides, knowing the
        # readings of the cards
        return Command("move", " ".join(_canonical_token(t) for t in tokens))
    cards_tokens, reading = split_reading(tokens)
    if reading is not None and not reading.strip():
        return Command("error", "say which reading after 'as', e.g. 5h 6d bj as 4-6")
    try:
        cards = parse(" ".join(cards_tokens))
    except NotationError as e:
        return Command("error", str(e))
    missing = _not_held(cards, hand)
    if missing:
        return Command("error", missing)
    move = " ".join(CARD_TEXT[c] for c in sorted(cards))
    if reading is not None:
        move += " as " + reading.strip()
    return Command("move", move)


def _parse_exchange(tokens: list[str], step: str, hand: list[int] | None) -> Command:
    word = _KIND_WORDS.get(tokens[0].lower())
    if word is not None:
        tokens = tokens[1:]
        if not tokens:
            return Command("error", _exchange_hint(step))
        if word != step:
            return Command("error", f"this step is not '{word}': {_exchange_hint(step)}")
    try:
        cards = parse(" ".join(tokens))
    except NotationError as e:
        return Command("error", str(e))
    need = 2 if step == "offer" else 1
    if len(cards) != need:
        return Command("error", f"{'offer two cards' if need == 2 else 'choose one card'}: "
                                f"{_exchange_hint(step)}")
    if step != "take":  # a taken card comes from the table, not the hand
        missing = _not_held(cards, hand)
        if missing:
            return Command("error", missing)
    return Command("move", step + " " + str(Cards(sorted(cards))))


def _exchange_hint(step: str) -> str:
    return {"give": "type the card to give, e.g. 2s (or its number)",
            "take": "type the card to take, e.g. 2s (or its number)",
            "discard": "type the card to discard, e.g. 3h (or its number)",
            "offer": "type the two cards to offer, e.g. 3h 4d (or their number)"}[step]


def _not_held(cards, hand: list[int] | None) -> str | None:
    if hand is None:
        return None
    have = Counter(hand)
    for c, k in Counter(cards).items():
        if have[c] < k:
            if have[c]:
                return f"you hold only {have[c]} x {CARD_TEXT[c]}"
            return f"you don't hold {CARD_TEXT[c]}"
    return None


def order_suggestions(moves: list, family) -> list:
    """Legal moves cheapest first: passes, then by kind of step, number of cards and height.

    Plays: lower tier (bombs last), fewer cards, fewer wild/precious cards, lower top natural
    card. Exchange: ``take`` shows the best card first, the other steps the lowest first.
    """
    def strength(cards) -> list:
        return sorted(family.card_strength(c) for c in cards)

    def key(m):
        if m.kind == "pass":
            return (0,)
        cards = list(m.cards)
        if m.kind == "play":
            combo = m.combo
            naturals = [c for c in cards if not family.precious(c)] or cards
            top = max(family.card_strength(c) for c in naturals)
            return (1, combo.tier if combo is not None else 0, len(cards),
                    sum(1 for c in cards if family.precious(c)), top, strength(cards),
                    tuple(cards), _ints(combo.key) if combo is not None else ())
        if m.kind == "choose":          # a group of plays (steps.py): after the plays, by size
            n = str(m).split()[1]
            return (2, int(n) if n.isdigit() else 0, str(m))
        if m.kind == "take":
            return (1, [-s for s in reversed(strength(cards))], tuple(cards))
        return (1, list(reversed(strength(cards))), tuple(cards))

    return sorted(moves, key=key)


def _ints(key: tuple) -> tuple:
    """The numbers of a combo key (keys of different classes may mix other types)."""
    return tuple(int(k) for k in key if isinstance(k, int))
