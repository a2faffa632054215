"""Provably fair deals: check a finished game's log against the commitment made before it.

Before a live match the server draws a secret (:func:`new_secret`), publishes its
:func:`commitment` and deals from the secret (``shangyou.new_match(name, seed=secret)``).
When the match is over it publishes the log, secret included, with the commitment and the
record of every deal (:func:`published_log`). Anyone can then check it (:func:`verify`, or
``shangyou verify LOG``):

* the seed is a secret and its commitment is the one published before the deal;
* the log replays from that secret, every move legal;
* the deals the replay makes are, hand by hand and seat by seat, the published ones;
* the moves are the ones played: their running hash (:func:`moves_chain`) ends at the log's
  ``"moves_hash"``, and passes through any hash a player saw during the match (every
  ``state`` the server sends carries the hash of the moves so far).

The log's fields: ``"seed"``, the secret (64 lowercase hex digits); ``"commitment"``, its
SHA-256 commitment (64 lowercase hex digits); ``"deals"``, a list with one entry per shuffle
in order, ``{"hand": 1, "hands": [["3C", "5D", ...], ...], "undealt": [...]}`` (cards in
notation, each list sorted by card; ``undealt`` is the rest of the pack, or Sheng ji's
kitty); ``"moves_hash"``, the running hash of all the moves (64 lowercase hex digits). See
``docs/fairness.md`` for the construction and how to check a deal by hand.

>>> import shangyou
>>> from shangyou.bots import make_bot, play_out
>>> g = shangyou.new_game("zheng-shangyou/pagat", players=4, seed=new_secret())
>>> _ = play_out(g, [make_bot("random", seed=s) for s in range(4)])
>>> verify(published_log(g)).ok
True
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections import Counter
from dataclasses import dataclass, field

from .engine.deal import commitment, is_secret, new_secret

__all__ = ["HandCheck", "MovesChain", "VerifyReport", "commitment", "deal_record", "is_secret",
           "move_hash", "moves_chain", "moves_start", "new_secret", "published_log", "verify"]

MOVES_PREFIX = "shangyou/moves/v1:"


# ------------------------------------------------------------------------ the moves' hash
def _mac(secret) -> hmac.HMAC:
    """The chain's HMAC, keyed with the deal secret's 32 bytes (the empty key for a game
    without a secret); copied for each message, so the key is set up once per chain."""
    return hmac.new(bytes.fromhex(secret) if is_secret(secret) else b"", digestmod=hashlib.sha256)


def _step(mac: hmac.HMAC, previous: str, seat, text) -> str:
    m = mac.copy()
    m.update(f"{previous}:{int(seat)}:{text}".encode("utf-8"))
    return m.hexdigest()


def moves_start(secret: str | None) -> str:
    """``h_0``, the hash of no moves yet: HMAC-SHA256, keyed with the deal secret, of
    ``"shangyou/moves/v1:"`` and the match's commitment (the empty text without a secret), so
    that one match's chain never passes for another's."""
    own = commitment(secret) if secret is not None and is_secret(secret) else ""
    m = _mac(secret)
    m.update((MOVES_PREFIX + own).encode("ascii"))
    return m.hexdigest()


def move_hash(secret: str | None, previous: str, seat: int, text: str) -> str:
    """``h_k`` from ``h_{k-1}`` and move ``k``: HMAC-SHA256, keyed with the deal secret, of the
    UTF-8 text ``"<h_{k-1} in hex>:<seat>:<move text>"``, the move as the log stores it
    (``str(move)``; it comes last, so the text is unambiguous). Keyed, because the players see
    every ``h_k`` during the match: a plain hash of a hidden move (a Sheng ji ``bury 3D``)
    would give it away to anyone who tries the few moves it could be."""
    return _step(_mac(secret), previous, seat, text)


def moves_chain(secret: str | None, moves) -> list[str]:
    """Every hash of the chain, ``[h_0, h_1, ..., h_n]``, for ``moves`` as ``(seat, text)``
    of the match dealt from ``secret``.

    >>> chain = moves_chain("00" * 32, [(0, "3D"), (1, "pass")])
    >>> len(chain), chain[2] == move_hash("00" * 32, chain[1], 1, "pass")
    (3, True)
    """
    mac, out = _mac(secret), [moves_start(secret)]
    for seat, text in moves:
        out.append(_step(mac, out[-1], seat, text))
    return out


@dataclass
class MovesChain:
    """A match's chain kept up to date as moves are made: :meth:`update` costs one hash per
    new move, and copes with a move taken back (the server undoes a move it could not store)
    by checking the moves it hashed last against the game's."""

    secret: str | None = None
    hashes: list[str] = field(default_factory=list)     # h_0 ... h_n
    moves: list[tuple[int, str]] = field(default_factory=list)
    mac: hmac.HMAC | None = None

    def update(self, secret: str | None, moves) -> str:
        """The hash of ``moves`` (a game's ``moves``: ``(seat, move)`` pairs) of the match
        dealt from ``secret``."""
        if secret != self.secret or not self.hashes:
            self.secret, self.mac = secret, _mac(secret)
            self.hashes, self.moves = [moves_start(secret)], []
        n = len(moves)
        keep = min(n, len(self.moves))
        # taken back: the kept moves past the game's, or a kept move the game no longer has
        while keep and (self.moves[keep - 1][0] != moves[keep - 1][0]
                        or self.moves[keep - 1][1] != str(moves[keep - 1][1])):
            keep -= 1
        del self.moves[keep:]
        del self.hashes[keep + 1:]
        assert self.mac is not None
        for seat, mv in moves[keep:]:
            self.moves.append((seat, str(mv)))
            self.hashes.append(_step(self.mac, self.hashes[-1], seat, mv))
        return self.hashes[-1]


def deal_record(game) -> list[dict]:
    """Every deal of ``game`` so far, as JSON-able data (the log's ``"deals"``)."""
    return [d.to_json() for d in game.deals]


def published_log(game) -> dict:
    """The log to publish when ``game`` is over: ``game.log`` (the seed in it) with the
    ``"deals"`` and, for a secret seed, the ``"commitment"``. Publish it only after the match:
    the seed tells every card."""
    log = dict(game.log)
    own = commitment(game.seed) if is_secret(game.seed) else None
    if own is not None:
        log["commitment"] = own
    log["deals"] = deal_record(game)
    log["moves_hash"] = moves_chain(game.seed if own else None, log["moves"])[-1]
    return log


@dataclass(frozen=True)
class HandCheck:
    """One shuffle of the replay against the published record.

    ``seats[s]`` is True when seat ``s``'s published cards are the ones the secret deals,
    False when they differ and None when nothing was published to compare (the same for
    ``undealt``); ``reasons`` says what differs.
    """

    index: int
    hand: int | None
    seats: tuple[bool | None, ...]
    undealt: bool | None
    reasons: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.reasons

    @property
    def label(self) -> str:
        """``hand 3`` (or ``deal 3``, counting shuffles, when the hand number is unknown)."""
        return f"hand {self.hand}" if self.hand is not None else f"deal {self.index + 1}"

    def line(self) -> str:
        """One line for a person: what matched, or what differs."""
        head = self.label
        if self.reasons:
            return f"{head}: " + "; ".join(self.reasons)
        if all(s is None for s in self.seats) and self.undealt is None:
            return f"{head}: dealt from the secret (no published record to compare)"
        return (f"{head}: seats 0-{len(self.seats) - 1} and the undealt cards match the "
                "published deal")


@dataclass(frozen=True)
class VerifyReport:
    """What :func:`verify` found: ``general`` problems (the secret, the commitment, the
    replay) and one :class:`HandCheck` per shuffle. ``ok`` exactly when nothing failed."""

    general: tuple[str, ...]
    hands: tuple[HandCheck, ...]
    commitment: str | None       # the commitment the log's secret gives (None: no secret)
    moves: int                   # moves replayed, each legal
    over: bool                   # whether the replayed game is finished
    moves_hash: str | None = None   # the chain's last hash over the log's moves
    seen: tuple[tuple[str, int | None], ...] = ()   # each hash a player saw, its move count

    @property
    def problems(self) -> tuple[str, ...]:
        """Every failed check, most fundamental first (the hands' as ``hand 3: ...``)."""
        return self.general + tuple(f"{h.label}: {r}" for h in self.hands for r in h.reasons)

    @property
    def ok(self) -> bool:
        return not self.general and all(h.ok for h in self.hands)

    @property
    def reason(self) -> str | None:
        """The first problem, or None."""
        return self.problems[0] if self.problems else None

    def lines(self) -> list[str]:
        """The report as lines of text, one per hand (what ``shangyou verify`` prints)."""
        out = [f"commitment: {self.commitment}" if self.commitment
               else "commitment: none (the seed is not a secret)",
               f"moves: {self.moves} replayed, each legal"
               + (" (the game is over)" if self.over else " (the game is not over)")]
        if self.moves_hash:
            out.append(f"moves hash: {self.moves_hash}")
        out += [f"moves hash seen after move {k}: in the chain" for _, k in self.seen
                if k is not None]
        out += [h.line() for h in self.hands]
        if self.ok:
            out.append("verified: every deal follows from the committed secret, and the "
                       "moves are the ones the hash chain binds")
        else:
            out += [f"problem: {p}" for p in self.general]
            out.append(f"NOT verified: {self.reason}")
        return out


def verify(log: dict | str, commitment: str | None = None,
           moves_hash: str | list[str] | tuple[str, ...] | None = None) -> VerifyReport:
    """Check a finished game's log: its seed is a secret whose commitment is ``commitment``
    (or, if None, the log's own ``"commitment"``), it replays with every move legal, if it
    carries ``"deals"`` the replay deals exactly those cards, hand by hand, and the running
    hash of its moves ends at its ``"moves_hash"``. ``moves_hash``: a hash a player saw in a
    ``state`` during the match (or several), each of which the chain must pass through; the
    form ``"K:HEX"`` also says after how many moves it was seen."""
    if isinstance(log, str):
        try:
            log = json.loads(log)
        except json.JSONDecodeError as e:
            return _failed(f"the log is not JSON: {e}")
    if not isinstance(log, dict) or "game" not in log or "moves" not in log:
        return _failed("not a shangyou game log (needs 'game', 'seed', 'options', 'moves')")
    problems: list[str] = []
    secret = log.get("seed")
    own = _check_commitment(secret, commitment, log.get("commitment"), problems)
    game, moves = _replay(log, problems)
    complete = isinstance(log["moves"], list) and moves == len(log["moves"])
    hands = _compare_deals(log, game, complete, problems)
    final, seen = _check_moves_hash(log, moves_hash, problems)
    return VerifyReport(tuple(problems), hands, own, moves, bool(game is not None and game.over),
                        final, seen)


def _check_moves_hash(log: dict, seen_given, problems: list[str]) -> tuple[str | None, tuple]:
    """(d): the moves' running hash against the log's ``"moves_hash"`` and the hashes a player
    saw; (the chain's last hash, ((hash seen, its move count), ...))."""
    moves = log["moves"]
    if not isinstance(moves, list) or not all(
            isinstance(m, (list, tuple)) and len(m) == 2 and isinstance(m[0], int)
            for m in moves):
        problems.append("the moves hash cannot be computed: 'moves' is not a list of "
                        "[seat, move]")
        return None, ()
    chain = moves_chain(log.get("seed"), moves)
    final = chain[-1]
    stated = log.get("moves_hash")
    if stated is None:
        problems.append("the log states no 'moves_hash', so nothing shows these are all the "
                        "moves, as they were played")
    elif not _is_digest(stated):
        problems.append(f"the log's moves_hash {stated!r} is not 64 hex digits")
    elif _norm(stated) != final:
        where = _index(chain, _norm(stated))
        problems.append(
            f"the moves do not hash to the log's moves_hash {_norm(stated)[:16]}…: "
            + (f"that is the hash after move {where} of {len(moves)}, so moves were added"
               if where is not None else
               f"their chain ends at {final[:16]}… (moves {len(moves)}): the log was cut "
               "short, or a move was changed"))
    out = []
    if isinstance(seen_given, str):
        seen_given = [seen_given]
    for item in seen_given or ():
        k, hexed = _parse_seen(item)
        if hexed is None:
            problems.append(f"the moves hash given, {item!r}, is not 64 hex digits "
                            "(or K:HEX)")
            continue
        where = _index(chain, hexed)
        if k is not None and (k > len(moves) or chain[k] != hexed):
            problems.append(
                f"the moves hash seen after move {k}, {hexed[:16]}…, is not this log's "
                + (f"(the log has only {len(moves)} moves: it was cut short)"
                   if k > len(moves) else f"({chain[k][:16]}…): a move up to {k} was changed"))
        elif where is None:
            problems.append(f"the moves hash seen, {hexed[:16]}…, is nowhere in this log's "
                            "chain: the log was cut short, or a move was changed")
        else:
            out.append((hexed, where))
    return final, tuple(out)


def _index(chain: list[str], digest: str) -> int | None:
    try:
        return chain.index(digest)
    except ValueError:
        return None


def _parse_seen(item) -> tuple[int | None, str | None]:
    """``"HEX"`` or ``"K:HEX"`` (the count of moves it was seen after) -> (K, hex) or
    (None, None) when it is neither."""
    if not isinstance(item, str):
        return None, None
    k, _, hexed = item.strip().rpartition(":")
    if k and not k.isdigit():
        return None, None
    if not _is_digest(hexed):
        return None, None
    return (int(k) if k else None), _norm(hexed)


def _failed(problem: str) -> VerifyReport:
    return VerifyReport((problem,), (), None, 0, False)


def _check_commitment(secret, given: str | None, logged, problems: list[str]) -> str | None:
    """(a): the secret and its commitment; returns the secret's commitment (None if none)."""
    own = commitment(secret) if is_secret(secret) else None
    if own is None:
        problems.append(f"the seed {secret!r} is not a secret of 64 lowercase hex digits, so "
                        "nothing was committed (an int seed is a research deal, predictable)")
    expected = given if given is not None else logged
    if expected is None:
        problems.append("no commitment to check against: give the one published before the "
                        "deal, or a log with 'commitment'")
    elif not _is_digest(expected):
        problems.append(f"the commitment {expected!r} is not 64 hex digits (a SHA-256 digest)")
    elif own is not None and own != _norm(expected):
        problems.append(f"the secret's commitment is {own}, not the published {expected}")
    if given is not None and logged is not None and _norm(given) != _norm(logged):
        problems.append(f"the log's own commitment {logged} is not the given {given}")
    return own


def _norm(digest) -> str:
    return digest.strip().lower() if isinstance(digest, str) else repr(digest)


def _is_digest(value) -> bool:
    """A SHA-256 digest in hex (either case, spaces around allowed)."""
    text = _norm(value)
    return isinstance(value, str) and len(text) == 64 and all(c in "0123456789abcdef"
                                                               for c in text)


def _replay(log: dict, problems: list[str]):
    """(b): the game rebuilt move by move; (game or None, moves applied)."""
    import shangyou
    options = dict(log.get("options") or {})
    options["players"] = log.get("players", options.get("players"))
    make = shangyou.new_match if log.get("match", False) else shangyou.new_game
    try:
        g = make(log["game"], seed=log.get("seed"), **options)
    except ValueError as e:
        problems.append(f"the log does not start a game: {e}")
        return None, 0
    moves = log["moves"]
    if not isinstance(moves, list):
        problems.append("the log's 'moves' is not a list")
        return g, 0
    for i, entry in enumerate(moves):
        try:
            seat, text = entry
        except (TypeError, ValueError):
            problems.append(f"move {i} is not [seat, move]: {entry!r}")
            return g, i
        if g.over:
            problems.append(f"move {i} ({text!r}) comes after the end of the game")
            return g, i
        if g.to_act != seat:
            problems.append(f"move {i} ({text!r}) is by seat {seat}, but seat {g.to_act} is "
                            "to act")
            return g, i
        try:
            g.apply(str(text))
        except ValueError as e:          # IllegalMove, or text that is no card notation
            problems.append(f"move {i} ({text!r}) by seat {seat} is illegal: {e}")
            return g, i
    return g, len(moves)


def _compare_deals(log: dict, game, complete: bool,
                   problems: list[str]) -> tuple[HandCheck, ...]:
    """(c): the replay's deals against the published ``"deals"``, one check per shuffle
    (``complete``: the replay applied every move of the log)."""
    dealt = deal_record(game) if game is not None else []
    n = game.n if game is not None else 0
    if "deals" not in log:
        return tuple(HandCheck(i, d["hand"], (None,) * n, None) for i, d in enumerate(dealt))
    published = log["deals"]
    if not isinstance(published, list):
        problems.append("the log's 'deals' is not a list")
        return ()
    checks = []
    for i in range(max(len(published), len(dealt))):
        mine = dealt[i] if i < len(dealt) else None
        theirs = published[i] if i < len(published) else None
        checks.append(_compare_one(i, theirs, mine, n, complete))
    return tuple(checks)


def _compare_one(i: int, theirs, mine: dict | None, n: int, complete: bool) -> HandCheck:
    if mine is None:
        hand = theirs.get("hand") if isinstance(theirs, dict) else None
        reason = ("published, but the replay deals no such hand" if complete
                  else "not checked: the replay stopped before this hand")
        return HandCheck(i, hand, (None,) * n, None, (reason,))
    hand = mine["hand"]
    if theirs is None:
        return HandCheck(i, hand, (None,) * n, None,
                         ("dealt by the secret, but missing from the published deals",))
    if not (isinstance(theirs, dict) and isinstance(theirs.get("hands"), list)
            and isinstance(theirs.get("undealt"), list)):
        return HandCheck(i, hand, (None,) * n, None,
                         ("the published entry is not {'hand', 'hands', 'undealt'}",))
    reasons = []
    if theirs.get("hand") != hand:
        reasons.append(f"published as hand {theirs.get('hand')!r}, but it is hand {hand}")
    if len(theirs["hands"]) != n:
        reasons.append(f"published {len(theirs['hands'])} seats' cards, the table has {n}")
        return HandCheck(i, hand, (None,) * n, None, tuple(reasons))
    seats = []
    for s in range(n):
        why = _differ(theirs["hands"][s], mine["hands"][s])
        seats.append(why is None)
        if why:
            reasons.append(f"seat {s} {why}")
    why = _differ(theirs["undealt"], mine["undealt"])
    if why:
        reasons.append(f"undealt {why}")
    return HandCheck(i, hand, tuple(seats), why is None, tuple(reasons))


def _differ(published, dealt: list[str]) -> str | None:
    """None if ``published`` holds the cards ``dealt`` (in any order), else what differs."""
    if not isinstance(published, list) or not all(isinstance(c, str) for c in published):
        return "was published as something other than a list of cards"
    a, b = Counter(published), Counter(dealt)
    if a == b:
        return None
    extra = sorted((a - b).elements())
    lacks = sorted((b - a).elements())
    parts = []
    if extra:
        parts.append(f"{' '.join(extra)} published but not dealt")
    if lacks:
        parts.append(f"{' '.join(lacks)} dealt but not published")
    return "differs from the secret's deal: " + ", ".join(parts)
