"""A position set up by hand (the analysis board's set-up): checked, and made into a seat's view.

A set-up is plain data, hostile until checked (it comes from a browser):

``game``, ``players``, ``options``
    the preset, the number of players and its options (as for a new game);
``seat``
    whose position it is (that seat is to act);
``hand``
    that seat's cards (``"3H 4H 4S"``);
``table``
    the play to beat, ``{"seat": s, "cards": "7H 7S", "reading": optional}`` (every seat
    between that one and ``seat`` has passed), or None: ``seat`` leads;
``played``
    the cards played earlier in this hand: a string of cards, given to the seats so that the
    numbers dealt to each come out as even as they can; or ``[[seat, "cards"], ...]``: who
    played what. Each seat's earlier plays count as one trick that it won (Zheng Fen: the
    points in them are its points won);
``counts``
    the cards left in each seat's hand (``counts[seat]`` is the hand's size whatever is given),
    none more than a deal (the game's ``deal_count``, or the pack shared by the players); the
    unseen cards (the pack less the hand, the table and the cards played) are dealt to
    the other seats by these numbers in every sampled world: they must add up to the unseen
    cards (Owen, which leaves cards undealt: at most that many);
``finished``
    optional: the seats out of cards, in the order they went out (default: those with
    ``counts`` 0, by seat number).

Sheng ji (Zhao Pengyou included) takes other fields, see :func:`_sheng_ji_view`. :func:`view_of` answers the seat's view, the same as a game's view (the
world sampler of the search bots builds a world from it, whose own view is returned: so the
legal plays are the game's), or raises :class:`BadPosition` with a code and a message.

>>> v = view_of({"game": "zheng-shangyou/pagat", "players": 4, "seat": 0,
...              "hand": "6H 6S 9C", "table": {"seat": 2, "cards": "5D 5C"},
...              "played": "3S 3H 3D 3C 4S 4H 4D 4C 7S 7H 7D 7C 8S 8H",
...              "counts": [3, 12, 12, 11]})
>>> v["legal_moves"], v["trick"], v["to_act"]
(['pass', '6H 6S'], [[2, '5D 5C'], [3, 'pass']], 0)
"""

from __future__ import annotations

import random
from collections import Counter

import shangyou

from .cards import CARD_TEXT, NotationError, deck, parse
from .registry import preset_names

MAX_CARDS = 216         # four packs: the most cards a set-up may name in all


class BadPosition(ValueError):
    """A set-up that is not a possible position; ``code`` says which check failed."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code


def _cards(text, what: str) -> list[int]:
    if text is None:
        return []
    if not isinstance(text, str) or len(text) > 4 * MAX_CARDS:
        raise BadPosition("bad_cards", f"{what}: a string of cards, like '3H 4S'")
    try:
        return sorted(parse(text))
    except (NotationError, ValueError) as e:
        raise BadPosition("bad_cards", f"{what}: {e}") from None


def _seat(x, n: int, what: str) -> int:
    if not isinstance(x, int) or isinstance(x, bool) or not 0 <= x < n:
        raise BadPosition("bad_seat", f"{what} must be a seat 0..{n - 1}")
    return x


def view_of(setup: dict) -> dict:
    """The view of ``setup``'s seat (see the module's docstring); :class:`BadPosition` when
    the set-up cannot be a position of the game."""
    game = setup.get("game")
    if not isinstance(game, str) or game not in preset_names():
        raise BadPosition("bad_game", f"unknown game {str(game)[:40]!r}")
    options = setup.get("options") or {}
    if not isinstance(options, dict) or not all(isinstance(k, str) for k in options):
        raise BadPosition("bad_options", "options: an object of the game's options")
    players = setup.get("players")
    if players is not None and (not isinstance(players, int) or isinstance(players, bool)):
        raise BadPosition("bad_options", "players: a number of players")
    try:
        template = shangyou.new_game(game, players=players, seed=0, **options)
    except (TypeError, ValueError) as e:
        raise BadPosition("bad_options", str(e)[:200]) from None
    n, rules = template.n, template.rules
    if game.startswith("sheng-ji"):
        return _sheng_ji_view(setup, template)
    seat = _seat(setup.get("seat"), n, "seat")
    hand = _cards(setup.get("hand"), "hand")
    if not hand:
        raise BadPosition("bad_hand", "the hand is empty")
    table = setup.get("table")
    on_table: tuple[int, list[int]] | None = None
    want = None                 # the reading the play to beat is read as (None: its first)
    if table is not None:
        if not isinstance(table, dict):
            raise BadPosition("bad_table", "table: {seat, cards} or null")
        tseat = _seat(table.get("seat"), n, "table.seat")
        if tseat == seat:
            raise BadPosition("bad_table", "the play to beat is your own: everyone passed, "
                              "you lead (give no table)")
        tcards = _cards(table.get("cards"), "table.cards")
        if not tcards:
            raise BadPosition("bad_table", "the play to beat has no cards")
        on_table = (tseat, tcards)
        want = table.get("reading")

    counts = setup.get("counts")
    if not isinstance(counts, list) or len(counts) != n or not all(
            isinstance(c, int) and not isinstance(c, bool) and 0 <= c <= MAX_CARDS
            for c in counts):
        raise BadPosition("bad_counts", f"counts: {n} numbers of cards, one a seat")
    counts = list(counts)
    counts[seat] = len(hand)

    # the earlier plays, by seat
    played = setup.get("played")
    by_seat: list[list[int]] = [[] for _ in range(n)]
    loose: list[int] = []
    if isinstance(played, list):
        if len(played) > 4 * n:
            raise BadPosition("bad_played", "played: too many entries")
        for item in played:
            if not (isinstance(item, (list, tuple)) and len(item) == 2):
                raise BadPosition("bad_played", "played: [[seat, cards], ...] or a string")
            by_seat[_seat(item[0], n, "played seat")] += _cards(item[1], "played")
    elif played is None or isinstance(played, str):
        loose = _cards(played, "played")
    else:
        raise BadPosition("bad_played", "played: [[seat, cards], ...] or a string")

    # every card at most as often as the packs hold it
    pack: Counter[int] = Counter(deck(rules.decks, rules.jokers))
    named: Counter[int] = Counter(hand) + Counter(loose)
    for cs in by_seat:
        named.update(cs)
    if on_table is not None:
        named.update(on_table[1])
    if sum(named.values()) > MAX_CARDS:
        raise BadPosition("too_many_cards", "more cards than the packs hold")
    for c, k in named.items():
        if k > pack[c]:
            packs = "pack" if rules.decks == 1 else f"{rules.decks} packs"
            raise BadPosition("duplicate_card", f"{CARD_TEXT[c]} is named {k} times; the "
                              f"{packs} of this game hold{'s' if rules.decks == 1 else ''} "
                              f"{pack[c]}")
    # no hand larger than a deal: the most cards one seat is dealt
    deal = getattr(rules, "deal_count", None) or -(-sum(pack.values()) // n)
    if len(hand) > deal or max(counts) > deal:
        raise BadPosition("bad_counts", f"a hand of this game holds at most {deal} cards")
    if on_table is not None and len(on_table[1]) > deal:
        raise BadPosition("bad_table", f"a play of this game has at most {deal} cards")
    last = None
    if on_table is not None:
        tseat, tcards = on_table
        readings = rules.family.combos(tcards)
        if want is not None:
            readings = [c for c in readings if c.label == want]
        if not readings:
            raise BadPosition("bad_table", f"{' '.join(CARD_TEXT[c] for c in tcards)} is not "
                              "a combination of this game" + (f" read as {str(want)[:40]!r}"
                                                              if want is not None else ""))
        last = (tseat, tcards, readings[0])
    unseen = sum(pack.values()) - sum(named.values())
    others = sum(counts) - len(hand)
    dealt_all = getattr(rules, "deal_count", None) is None
    if others > unseen or (dealt_all and others != unseen):
        raise BadPosition("bad_counts", f"the other seats hold {others} cards by the counts, "
                          f"but {unseen} cards are unseen" +
                          ("" if dealt_all else " (at most that many)"))

    finished = setup.get("finished")
    out = [s for s in range(n) if counts[s] == 0]
    if finished is not None:
        if not isinstance(finished, list) or sorted(
                _seat(s, n, "finished") for s in finished) != out:
            raise BadPosition("bad_finished", "finished: the seats with no cards left, in "
                              "the order they went out")
        out = list(finished)
    if len(out) >= n - 1:
        raise BadPosition("bad_counts", "the hand is over: at most one seat holds cards")

    if loose:          # even out the numbers dealt: the seats with fewest so far take cards
        dealt = [counts[s] + len(by_seat[s]) + (len(last[1]) if last and last[0] == s else 0)
                 for s in range(n)]
        for c in loose:
            s = min(range(n), key=lambda x: (dealt[x], x))
            by_seat[s].append(c)
            dealt[s] += 1
    for s in out:
        if not by_seat[s] and not (last is not None and last[0] == s):
            raise BadPosition("bad_played", f"seat {s} is out of cards but played none")

    view = template.view(seat)
    view.pop("exchange", None)
    view.pop("legal_moves", None)
    first = sorted(range(n), key=lambda s: (out.index(s) if s in out else n, s))
    view.update({
        "phase": "play", "to_act": seat, "hand": [CARD_TEXT[c] for c in hand],
        "counts": counts, "finished": out, "exchanged": [], "history": [],
        "previous_order": None,
        "played": [[[s, " ".join(CARD_TEXT[c] for c in sorted(by_seat[s]))]]
                   for s in first if by_seat[s]],
    })
    if last is None:
        view.update(trick=[], last=None, passed=[])
    else:
        tseat, tcards, combo = last
        trick: list[list] = [[tseat, " ".join(CARD_TEXT[c] for c in tcards)]]
        s = (tseat + 1) % n
        while s != seat:
            if counts[s]:
                trick.append([s, "pass"])
            s = (s + 1) % n
        view.update(trick=trick, passed=sorted(int(p) for p, _ in trick[1:]),
                    last={"seat": tseat, "cards": trick[0][1], "kind": combo.kind,
                          "reading": combo.label})
    from .games.climbing.worlds import WorldSampler
    try:
        world = WorldSampler(view, rules).sample(random.Random(0))
    except ValueError as e:
        raise BadPosition("bad_position", str(e)[:200]) from None
    return world.view(seat)


def _sheng_ji_view(setup: dict, template) -> dict:
    """A Sheng ji play-phase view from a set-up: ``seat``, ``hand``, ``level`` ("2".."A"),
    ``trump`` (a suit letter, or None: no trump), ``declarer`` (a seat: its team declares),
    ``trick`` (the plays on the table so far, ``[[seat, "cards"], ...]`` from the leader on;
    the seat after the last is ``seat``; empty or None: ``seat`` leads), ``played`` (every
    card of the earlier tricks, a string) and ``points`` (the points the opponents have won).
    Zhao Pengyou also takes ``calls`` (the declarer's friend calls, ``["1 AS", "2 KH"]``: the
    first ace of spades played, the second king of hearts; as many as the game calls) and
    ``call_results`` (for each call the seat that played the called card, or None while the
    call is open; a call the declarer answered itself makes no friend): the friends are the
    seats that answered a call, the opponents the rest but the declarer.

    Approximations: the earlier tricks are made up (each seat one card a trick, point cards
    grouped so that the opponents' tricks hold ``points``), and no void or missing pair is
    inferred from them (only from the trick on the table); the kitty is unseen, also by the
    declarer; the plays on the table are not checked against the follow rules."""
    from .games.sheng_ji.order import LEVEL_RANK, Trump, decompose
    from .games.sheng_ji.scoring import points as card_points
    from .games.sheng_ji.worlds import WorldSampler
    n, rules = template.n, template.rules
    seat = _seat(setup.get("seat"), n, "seat")
    declarer = _seat(setup.get("declarer"), n, "declarer")
    level = str(setup.get("level"))[:3].upper()
    if level not in LEVEL_RANK:
        raise BadPosition("bad_level", "level: a rank 2..A")
    suit = setup.get("trump")
    if suit is not None and (not isinstance(suit, str) or suit.upper() not in "SHDC"
                             or len(suit) != 1):
        raise BadPosition("bad_trump", "trump: a suit letter S, H, D or C, or null (no trump)")
    shown = Trump.parse(level + (suit.upper() if suit else ""))
    trump = Trump(shown.level, shown.suit)
    hand = _cards(setup.get("hand"), "hand")
    if not hand:
        raise BadPosition("bad_hand", "the hand is empty")
    base = (54 * rules.decks - rules.kitty) // n
    if len(hand) > base:
        raise BadPosition("bad_hand", f"a hand of this game holds at most {base} cards")
    trick_in = setup.get("trick") or []
    if not isinstance(trick_in, list) or len(trick_in) >= n:
        raise BadPosition("bad_trick", f"trick: at most {n - 1} plays [[seat, cards], ...]")
    trick: list[tuple[int, list[int]]] = []
    for i, item in enumerate(trick_in):
        if not (isinstance(item, (list, tuple)) and len(item) == 2):
            raise BadPosition("bad_trick", "trick: [[seat, cards], ...]")
        s = _seat(item[0], n, "trick seat")
        if s != (seat - len(trick_in) + i) % n:
            raise BadPosition("bad_trick", "trick: the plays go round from the leader to "
                              "the seat before yours")
        cs = _cards(item[1], "trick cards")
        if not cs or (trick and len(cs) != len(trick[0][1])):
            raise BadPosition("bad_trick", "trick: every play has as many cards as the lead")
        trick.append((s, cs))
    if trick:
        if len(trick[0][1]) > len(hand):
            raise BadPosition("bad_trick", "the lead has more cards than your hand")
        if len(decompose(trump, trick[0][1])) != 1:
            raise BadPosition("bad_trick", "the lead: one single, pair, triple or tractor "
                              "of one suit (a throw is not set up)")
    played = _cards(setup.get("played"), "played")
    done = base - len(hand)                     # earlier tricks (each seat one card a trick)
    if len(played) != n * done:
        raise BadPosition("bad_played", f"played: every card of the earlier tricks: {n} x "
                          f"{done} = {n * done} cards for a hand of {len(hand)}, not "
                          f"{len(played)}")
    pack: Counter[int] = Counter({c: rules.decks for c in range(54)})
    named = Counter(hand) + Counter(played)
    for _, cs in trick:
        named.update(cs)
    for c, k in named.items():
        if k > pack[c]:
            raise BadPosition("duplicate_card", f"{CARD_TEXT[c]} is named {k} times; the "
                              f"packs of this game hold {pack[c]}")
    calls: list[tuple[int, int]] = []
    results: list[int | None] = []
    if rules.teams is None:                     # Zhao Pengyou: the calls and the friends
        calls, results = _calls(setup, rules, trump, n, Counter(played), trick)
    elif setup.get("calls") or setup.get("call_results"):
        raise BadPosition("bad_calls", "calls: only Zhao Pengyou calls friends")
    friends: list[int] = []
    for who in results:
        if who is not None and who != declarer and who not in friends:
            friends.append(who)
    opp = setup.get("points", 0)
    if not isinstance(opp, int) or isinstance(opp, bool) or opp < 0 or opp % 5:
        raise BadPosition("bad_points", "points: the opponents' points, a multiple of 5")
    # the earlier tricks: the opponents' point cards, then the declarers', padded to tricks
    pts = [c for c in played if card_points([c])]
    plain = [c for c in played if not card_points([c])]
    reach: dict[int, list[int]] = {0: []}       # points -> point cards making them
    for c in pts:
        for p, cs in list(reach.items()):
            reach.setdefault(p + card_points([c]), cs + [c])
    if opp not in reach:
        raise BadPosition("bad_points", f"the earlier cards cannot make {opp} points "
                          f"(they hold {card_points(played)})")
    theirs = list(reach[opp])
    ours = list((Counter(pts) - Counter(theirs)).elements())
    pad = (-len(theirs)) % n
    if pad > len(plain):
        raise BadPosition("bad_points", "too few cards without points to make up the tricks")
    theirs += plain[:pad]
    plain = plain[pad:]
    if rules.teams is None:
        defenders = [s for s in range(n) if s != declarer and s not in friends]
    else:
        defenders = [s for s in range(n) if s % 2 != declarer % 2]
    tricks = []
    won = [0] * n
    for side, cards in ((defenders[0], theirs), (declarer, plain + ours)):
        for i in range(0, len(cards), n):
            chunk = cards[i:i + n]
            won[side] += card_points(chunk)
            tricks.append({"plays": [[(side + j) % n, CARD_TEXT[c]]
                                     for j, c in enumerate(chunk)], "winner": side})
    counts = [len(hand) - (len(trick[0][1]) if any(s == x for x, _ in trick) else 0)
              for s in range(n)]
    view = template.view(seat)
    for key in ("legal_moves", "pending", "buried", "kitty_taken"):
        view.pop(key, None)
    view.update({
        "phase": "play", "to_act": seat, "hand": [CARD_TEXT[c] for c in hand],
        "counts": counts, "level": level, "levels": [level] * n, "trump": str(trump),
        "bid": None,
        "declarer": declarer, "trick": [[s, " ".join(CARD_TEXT[c] for c in cs)]
                                        for s, cs in trick],
        "tricks": tricks, "points_won": won, "opponents_points": opp, "history": [],
        "pending": [], "setup": True,
    })
    if rules.teams is None:
        view.update({"calls": [f"{o} {CARD_TEXT[c]}" for o, c in calls],
                     "call_results": results, "friends": friends})
    try:
        world = WorldSampler(view, rules).sample(random.Random(0))
    except (ValueError, AssertionError) as e:
        raise BadPosition("bad_position", str(e)[:200]) from None
    view["legal_moves"] = world.view(seat)["legal_moves"]
    return view


def _calls(setup: dict, rules, trump, n: int, played: Counter,
           trick: list[tuple[int, list[int]]]) -> tuple[list[tuple[int, int]], list[int | None]]:
    """Zhao Pengyou's friend calls of a set-up, checked: ``[(ordinal, card)]`` and who
    answered each (None: open). A call names a plain card (no joker, no trump) and which of
    its copies (1 up to the packs); an open call's copy has not been played yet (the copies
    in the earlier tricks and on the table are fewer), an answered one's has, and where it
    was played in the trick on the table, it was by the seat that answered."""
    raw = setup.get("calls")
    if not isinstance(raw, list) or len(raw) != rules.friends:
        raise BadPosition("bad_calls", f"calls: the declarer's {rules.friends} friend "
                          "call(s), like '1 AS' (the first ace of spades played)")
    calls: list[tuple[int, int]] = []
    for text in raw:
        parts = text.split() if isinstance(text, str) and len(text) <= 8 else []
        if len(parts) != 2 or parts[0] not in [str(o) for o in range(1, rules.decks + 1)]:
            raise BadPosition("bad_calls", f"a call is a copy 1..{rules.decks} and a card, "
                              "like '1 AS'")
        try:
            card = parse(parts[1])
        except (NotationError, ValueError):
            raise BadPosition("bad_calls", f"a call names a card: {parts[1][:8]!r}") from None
        if len(card) != 1 or card[0] >= 52 or trump.is_trump(card[0]):
            raise BadPosition("bad_calls", "a call names one plain card: no joker, no trump")
        if (int(parts[0]), card[0]) in calls:
            raise BadPosition("bad_calls", "the same card is called twice")
        calls.append((int(parts[0]), card[0]))
    got = setup.get("call_results")
    results = [None] * len(calls) if got is None else got
    if not isinstance(results, list) or len(results) != len(calls):
        raise BadPosition("bad_calls", "call_results: for each call the seat that answered "
                          "it, or null")
    results = [None if r is None else _seat(r, n, "call_results") for r in results]
    on_table = [(s, c) for s, cs in trick for c in cs]
    for (o, c), who in zip(calls, results):
        seen = played[c] + sum(1 for _, x in on_table if x == c)
        name = CARD_TEXT[c]
        if who is None and seen >= o:
            raise BadPosition("bad_calls", f"{seen} {name} were played: the call '{o} "
                              f"{name}' was answered (say by whom)")
        if who is not None and seen < o:
            raise BadPosition("bad_calls", f"only {seen} {name} were played: the call "
                              f"'{o} {name}' is still open")
        if who is not None and played[c] < o:       # the copy called is on the table
            by = [s for s, x in on_table if x == c][o - played[c] - 1]
            if by != who:
                raise BadPosition("bad_calls", f"the call '{o} {name}' was answered on the "
                                  f"table, by seat {by}")
    return calls, results
