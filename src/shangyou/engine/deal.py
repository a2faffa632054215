"""How cards are dealt: the random source a game draws from, and the record of each deal.

A game's ``seed`` chooses its random source:

* an ``int`` (research, tests, tournaments, golden files): Python's Mersenne Twister,
  ``random.Random(seed)``, exactly as it has always dealt. Small int seeds are *predictable*:
  anyone who sees a few cards can try every seed below 2**31 and find the rest of the deal.
* a **secret**, 64 lowercase hex digits (256 bits; :func:`new_secret`): :class:`DealRandom`,
  a deterministic cryptographic stream. Nobody can predict a card without the secret, and
  anyone given the secret afterwards can recompute every deal (see ``docs/fairness.md``).

Anything else (another string, a float, a bool) is a ``ValueError`` (:func:`check_seed`).

The construction, exactly (enough to re-implement it in any language):

* ``key`` = the 32 bytes the secret's hex digits spell.
* Block ``i`` (i = 0, 1, 2, ...) = ``HMAC-SHA256(key, STREAM_LABEL || i)``, where
  ``STREAM_LABEL`` is the 16 ASCII bytes ``shangyou/deal/v1`` and ``i`` is 8 bytes, big-endian.
  The *stream* is block 0, block 1, ... concatenated (32 bytes each); every draw consumes
  whole bytes from where the previous draw stopped.
* ``getrandbits(k)``: the next ``ceil(k / 8)`` bytes of the stream read as a big-endian
  integer, shifted right to keep its top ``k`` bits (``k = 0`` consumes nothing, gives 0).
* ``randbelow(n)``, ``n >= 1``: with ``k`` the bit length of ``n - 1``, draw
  ``getrandbits(k)`` until the value is below ``n``; return it (rejection sampling: every
  value is exactly equally likely, and each try succeeds with probability above 1/2).
* ``randrange(start, stop, step)``: ``start + step * randbelow(count)`` as Python's.
* ``choice(seq)``: ``seq[randbelow(len(seq))]``.
* ``shuffle(x)``: Fisher-Yates from the end: for ``i`` from ``len(x) - 1`` down to 1,
  ``j = randbelow(i + 1)`` and swap ``x[i]`` and ``x[j]``.
* ``random()``: ``getrandbits(53) / 2**53``.

The commitment to a secret (:func:`commitment`) is the lowercase hex SHA-256 digest of the
ASCII text ``shangyou/commitment/v1:`` followed by the secret's 64 hex digits.

Each dealt hand leaves a :class:`Deal` on the game (``game.deals``): what every seat was dealt
and what no seat was, as sorted cards.
"""

from __future__ import annotations

import hashlib
import hmac
import operator
import random
import secrets
from array import array
from dataclasses import dataclass

from ..cards import CARD_TEXT

STREAM_LABEL = b"shangyou/deal/v1"
COMMITMENT_LABEL = "shangyou/commitment/v1:"
SECRET_HEX_DIGITS = 64
_HEX = frozenset("0123456789abcdef")
_BLOCK = 32


def is_secret(value) -> bool:
    """Is ``value`` a deal secret: a ``str`` of exactly 64 lowercase hex digits?"""
    return isinstance(value, str) and len(value) == SECRET_HEX_DIGITS and _HEX.issuperset(value)


def new_secret() -> str:
    """A fresh secret from the operating system's cryptographic generator (256 bits)."""
    return secrets.token_hex(SECRET_HEX_DIGITS // 2)


def commitment(secret: str) -> str:
    """SHA-256 (lowercase hex) of ``shangyou/commitment/v1:<secret>``: publish it before the
    deal, reveal the secret after; nobody can find the secret from it, nor a second secret
    with the same commitment."""
    if not is_secret(secret):
        raise ValueError(_not_secret(secret))
    return hashlib.sha256((COMMITMENT_LABEL + secret).encode("ascii")).hexdigest()


def check_seed(seed) -> int | str:
    """The seed as a game keeps it (and its log records it): an int, or a secret.

    Integers (numpy's included) become a plain ``int``; a secret stays as given. Anything
    else raises ``ValueError`` saying what a seed may be.
    """
    if isinstance(seed, str):
        if is_secret(seed):
            return seed
        raise ValueError(_not_secret(seed))
    if not isinstance(seed, bool):
        try:
            return operator.index(seed)
        except TypeError:
            pass
    raise ValueError(f"a seed is an int (reproducible research deals) or a secret of "
                     f"{SECRET_HEX_DIGITS} lowercase hex digits, not {type(seed).__name__} "
                     f"{seed!r}")


def random_source(seed: int | str):
    """The random source a checked seed selects: ``random.Random`` for an int,
    :class:`DealRandom` for a secret."""
    return DealRandom(seed) if isinstance(seed, str) else random.Random(seed)


def mt_random(state: bytes) -> random.Random:
    """The ``random.Random`` whose ``getstate()`` holds the 625 words of ``state`` (native
    32-bit: the generator's 624, then the index of the next), as a compiled core hands over a
    generator it seeded and drew from itself (``games/_shuffle.h``, ``seeded_shuffle``)."""
    words = array("I", state)
    if words.itemsize != 4 or len(words) != 625:
        raise ValueError("a generator's state is 625 words of 32 bits")
    r = random.Random.__new__(random.Random)
    r.setstate((3, tuple(words), None))
    return r


def _not_secret(value) -> str:
    if isinstance(value, str):
        shown = value if len(value) <= 80 else value[:77] + "..."
        why = (f"{len(value)} characters" if len(value) != SECRET_HEX_DIGITS
               else "not lowercase hex digits")
        return (f"a seed string must be a secret of {SECRET_HEX_DIGITS} lowercase hex digits; "
                f"{shown!r} has {why}")
    return f"a secret is a str of {SECRET_HEX_DIGITS} lowercase hex digits, not {value!r}"


class DealRandom:
    """The deterministic cryptographic stream of one secret (see the module docstring).

    It offers the part of ``random.Random``'s interface the games use, and ``getstate`` /
    ``setstate`` so a game's clones can share and copy it.

    >>> r = DealRandom("00" * 32)
    >>> cards = list(range(10))
    >>> r.shuffle(cards)
    >>> DealRandom("00" * 32).getrandbits(8) == DealRandom("00" * 32).getrandbits(8)
    True
    """

    __slots__ = ("__weakref__", "_buf", "_counter", "_key", "_pos")

    def __init__(self, secret: str):
        if not is_secret(secret):
            raise ValueError(_not_secret(secret))
        self._key = bytes.fromhex(secret)
        self._counter = 0      # the index of the next block to compute
        self._buf = b""        # the unread part of the stream computed so far
        self._pos = 0          # bytes of _buf already read

    # ------------------------------------------------------------------ the stream
    def _bytes(self, m: int) -> bytes:
        """The next ``m`` bytes of the stream."""
        pos, buf = self._pos, self._buf
        while len(buf) - pos < m:
            buf = buf[pos:] + hmac.digest(
                self._key, STREAM_LABEL + self._counter.to_bytes(8, "big"), "sha256")
            pos = 0
            self._counter += 1
        self._buf, self._pos = buf, pos + m
        return buf[pos:pos + m]

    def getrandbits(self, k: int) -> int:
        """A uniform integer of ``k`` bits (the top ``k`` bits of the next whole bytes)."""
        if k < 0:
            raise ValueError("number of bits must be non-negative")
        if k == 0:
            return 0
        m = (k + 7) >> 3
        return int.from_bytes(self._bytes(m), "big") >> (8 * m - k)

    def randbelow(self, n: int) -> int:
        """A uniform integer in ``[0, n)``, by rejection (no modulo bias)."""
        if n <= 0:
            raise ValueError(f"randbelow needs n >= 1, not {n}")
        k = (n - 1).bit_length()
        while True:
            r = self.getrandbits(k)
            if r < n:
                return r

    # ------------------------------------------------------- random.Random's methods
    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int:
        """Like ``random.randrange``: a uniform member of ``range(start, stop, step)``."""
        if stop is None:
            if start <= 0:
                raise ValueError(f"empty range for randrange({start})")
            return self.randbelow(start)
        if step == 0:
            raise ValueError("zero step for randrange()")
        count = len(range(start, stop, step))
        if count <= 0:
            raise ValueError(f"empty range for randrange({start}, {stop}, {step})")
        return start + step * self.randbelow(count)

    def choice(self, seq):
        """A uniform member of a non-empty sequence."""
        if not len(seq):
            raise IndexError("cannot choose from an empty sequence")
        return seq[self.randbelow(len(seq))]

    def shuffle(self, x: list) -> None:
        """Shuffle ``x`` in place (Fisher-Yates from the end, with :meth:`randbelow`)."""
        randbelow = self.randbelow
        for i in range(len(x) - 1, 0, -1):
            j = randbelow(i + 1)
            x[i], x[j] = x[j], x[i]

    def random(self) -> float:
        """A uniform float in ``[0, 1)`` with 53 random bits."""
        return self.getrandbits(53) / 9007199254740992.0

    # -------------------------------------------------------------------- state
    def getstate(self) -> tuple:
        """Everything that fixes the rest of the stream (it includes the secret)."""
        return (self._key, self._counter, self._buf[self._pos:])

    def setstate(self, state: tuple) -> None:
        self._key, self._counter, self._buf = state
        self._pos = 0

    def copy(self) -> DealRandom:
        """An independent source that draws what this one would draw next."""
        new = DealRandom.__new__(DealRandom)
        new.setstate(self.getstate())
        return new

    def __repr__(self) -> str:       # never shows the secret
        return f"DealRandom(<secret>, block={self._counter})"


@dataclass(frozen=True)
class Deal:
    """One shuffle's cards, as dealt: ``hands[s]`` is what seat ``s`` was dealt and
    ``undealt`` what no seat was (the rest of the pack, or Sheng ji's kitty), each sorted by
    card code. ``hand`` is the game's hand number (a redealt hand is dealt twice)."""

    hand: int
    hands: tuple[tuple[int, ...], ...]
    undealt: tuple[int, ...]

    def to_json(self) -> dict:
        """``{"hand": 1, "hands": [["3C", "3D", ...], ...], "undealt": [...]}``."""
        return {"hand": self.hand, "hands": [[CARD_TEXT[c] for c in h] for h in self.hands],
                "undealt": [CARD_TEXT[c] for c in self.undealt]}
