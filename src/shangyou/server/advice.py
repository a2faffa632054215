"""Hints: a bot's advice to a seated person on their own turn (docs/protocol.md, "Hints").

The advice is computed from the asker's own view only (what they could know), by the
search bot (under a second of CPU; the heuristic where the search cannot answer in time:
:func:`shangyou.bots.hint.hint`) or the heuristic bot (a few milliseconds), in the advice
lane's worker process (:mod:`shangyou.server.budget`: never in the bots' way), outside the
table's lock, so the table goes on meanwhile. Each hint passes the budget of :class:`Hints`.
The room option ``hints`` says which, or ``off``; left unset it resolves when asked:
``search`` while at most one seat is held by a person, ``off`` once two or more are, so
hints never decide a game between people unless the host allowed them.

The last hint given to each seat is remembered (its state version, move and level): a move
the seat then makes in that version, the same move, is stored as having followed the hint
(the move's ``actor``, ``hint:s`` or ``hint:h``), and the review says so at that move
(docs/review.md, *The hint and the review*).

At the bury (Sheng ji, Zhao Pengyou) the page chooses the cards to bury before sending any,
so a hint may name the cards already chosen (``bury``): the advice is then for the turn after
them (worked out on a copy of the game; the cards must be buryable in turn, else ``illegal``),
so hints followed one after another fill the choice. Such a hint is for a later step than the
state's move, so it is not remembered as followed.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections import Counter
from typing import NoReturn

from shangyou.bots.hint import hint

from . import views
from .budget import Busy, Dropped, Lane
from .limits import Buckets, Clients, Limits
from .model import ActionError, Table

log = logging.getLogger("shangyou.server")

FOLLOWED = {"search": "hint:s", "heuristic": "hint:h"}     # the move's actor, by level


def hint_mode(table: Table) -> str:
    """``"off"``, ``"heuristic"`` or ``"search"``: the room option, or its default now."""
    mode = table.room.get("hints")
    if mode is None:
        return "search" if table.humans() <= 1 else "off"
    return mode


def advise_in_worker(level: str, seed: int, view: dict) -> dict:
    """The hint as a plain dict (:func:`shangyou.bots.hint.hint`, in a worker process)."""
    return hint(view, level, seed)


def same_move(a: str, b: str) -> bool:
    """Whether two texts name the same move (the cards of a play in any order)."""
    return a == b or sorted(a.split()) == sorted(b.split())


class Hints:
    """The hints' budget (``docs/security.md``, *Limits*): at most ``hints_in_flight_seat``
    being worked out for one seat (counted by table and seat, not by socket: a new socket of
    the same seat finds it counted), token buckets a minute per seat, table and address, and
    the advice lane's bounded queue (:class:`~shangyou.server.budget.Lane`)."""

    def __init__(self, limits: Limits, clients: Clients, lane: Lane) -> None:
        self.limits = limits
        self.clients = clients              # for an address's allowance factor
        self.lane = lane
        self.per_seat = Buckets(limits.hints_per_minute_seat)
        self.per_table = Buckets(limits.hints_per_minute_table)
        self.per_address = Buckets(limits.hints_per_minute_address)
        self.in_flight: Counter[tuple[str, int]] = Counter()
        self.in_flight_by: Counter[str] = Counter()     # by address
        self.peak = 0                       # the most hints ever in flight for one seat
        self.stats: Counter[str] = Counter()    # answered, and refused by code
        # the last hint answered to each seat: (table, seat) -> (version, move, level)
        self.given: dict[tuple[str, int], tuple[int, str, str]] = {}

    def gave(self, table_id: str, seat: int, version: int, move: str, level: str) -> None:
        """Remember the hint answered to ``seat`` for state ``version``."""
        key = (table_id, seat)
        self.given.pop(key, None)
        self.given[key] = (version, move, level)
        while len(self.given) > self.limits.hints_remembered:
            del self.given[next(iter(self.given))]

    def followed(self, table_id: str, seat: int | None, version: int,
                 move: str) -> str | None:
        """The actor to store with ``seat``'s move ``move`` in state ``version``: ``hint:s``
        or ``hint:h`` when it is the move the seat's last hint gave for that state, else
        None. The seat's hint is forgotten either way (it was for this turn)."""
        if seat is None:
            return None
        given = self.given.pop((table_id, seat), None)
        if given is None or given[0] != version or not same_move(given[1], move):
            return None
        return FOLLOWED.get(given[2])

    def admit(self, table: Table, seat: int, address: str | None) -> tuple[str, int, str]:
        """Count a hint for ``seat`` as in flight, or raise :class:`ActionError`
        (``rate_limited``, ``busy``) changing nothing."""
        key = (table.id, seat)
        where = address or "?"
        lim = self.limits
        factor = self.clients.factor(address)
        if self.in_flight[key] >= lim.hints_in_flight_seat:
            self.refuse("rate_limited", "a hint for your seat is being worked out already")
        if self.in_flight_by[where] >= lim.hints_in_flight_address * factor:
            self.refuse("rate_limited", f"{lim.hints_in_flight_address} hints from your "
                        "address are being worked out already")
        if self.lane.full("hint"):
            self.refuse("busy", f"{lim.hint_queue} hints wait for the server already; "
                         "try again later")
        buckets = ((self.per_seat, key, 1, "for your seat"),
                   (self.per_table, table.id, 1, "at this table"),
                   (self.per_address, where, factor, "from your address"))
        for bucket, k, f, per in buckets:
            if not bucket.ready(k, f):
                self.refuse("rate_limited", f"more than {bucket.per_minute:g} hints a minute "
                             f"{per}; try again later")
        for bucket, k, f, _ in buckets:
            bucket.take(k, f)
        self.in_flight[key] += 1
        self.in_flight_by[where] += 1
        self.peak = max(self.peak, self.in_flight[key])
        return key + (where,)

    def release(self, ticket: tuple[str, int, str]) -> None:
        """The hint of ``ticket`` (what :meth:`admit` answered) is no longer in flight."""
        table_id, seat, where = ticket
        self.in_flight[table_id, seat] -= 1
        if self.in_flight[table_id, seat] <= 0:
            del self.in_flight[table_id, seat]
        self.in_flight_by[where] -= 1
        if self.in_flight_by[where] <= 0:
            del self.in_flight_by[where]

    def refuse(self, code: str, message: str) -> NoReturn:
        self.stats[code] += 1
        raise ActionError(code, message)


def _after_chosen(g, seat: int, bury: list[str]) -> dict:
    """``seat``'s view once the ``bury`` cards are buried, on a copy of the game (the cards
    chosen on the page and not sent yet), or :class:`ActionError`."""
    if g.phase != "bury":
        raise ActionError("illegal", "cards to bury are named only while burying")
    copy = g.clone()
    for card in bury:
        try:
            copy.apply(f"bury {card}")
        except ValueError as e:                 # IllegalMove, NotationError
            raise ActionError("illegal", f"cannot bury {card!r} here: {e}") from None
        if copy.over or copy.to_act != seat or copy.phase != "bury":
            raise ActionError("illegal", "those cards fill the kitty already: nothing to hint")
    return copy.view(seat)


async def answer_hint(manager, table: Table, conn, bury: list[str] | None = None) -> None:
    """Answer ``{"type": "hint"}`` to ``conn`` alone, or raise :class:`ActionError`. The
    advice is worked out in the advice lane, outside the table's lock, while this socket's
    other messages (a move) go on. ``bury``: the cards chosen to bury and not sent yet."""
    g = table.game
    if table.status != "playing" or g is None or g.over:
        raise ActionError("not_playing", "no match is being played at this table")
    seat = conn.seat
    if seat is None:
        raise ActionError("not_seated", "you hold no seat at this table (spectator)")
    mode = hint_mode(table)
    if mode == "off":
        why = "the host turned hints off" if table.room.get("hints") == "off" else \
            "hints are off while two or more people play (the host may allow them)"
        raise ActionError("hints_off", why)
    if g.to_act != seat:
        raise ActionError("not_your_turn", f"it is seat {g.to_act}'s turn, not yours "
                          f"(seat {seat})")
    view = _after_chosen(g, seat, bury) if bury else g.view(seat)
    hints: Hints = manager.hints
    key = hints.admit(table, seat, conn.address)
    version = table.version
    seed = secrets.randbits(32)

    def wanted() -> bool:            # at its turn: somebody still waits for this one
        return not conn.closed and table.version == version
    try:
        job = hints.lane.submit(advise_in_worker, mode, seed, view, kind="hint", wanted=wanted)
    except Busy:
        hints.release(key)
        hints.refuse("busy", "too many hints wait for the server; try again later")
    except BaseException:
        hints.release(key)
        raise
    task = asyncio.create_task(_answer(hints, key, job, table, conn, view, seed, version,
                                       remember=not bury),
                               name=f"hint-{table.id}-{seat}")
    _TASKS.add(task)
    task.add_done_callback(_TASKS.discard)


_TASKS: set = set()        # hints being worked out (kept referenced until done)


async def _answer(hints: Hints, key, job: asyncio.Future, table: Table, conn, view: dict,
                  seed: int, version: int, remember: bool = True) -> None:
    try:
        advice = await job
    except asyncio.CancelledError:
        raise
    except Dropped:
        hints.stats["stale"] += 1
        _error(conn, "stale", "the table moved on before your hint's turn came")
        return
    except Exception:
        # the worker died twice, or the bot failed: the heuristic answers, here
        log.exception("table %s: the hint for seat %s failed", table.id, key[1])
        advice = dict(hint(view, "heuristic", seed), fallback="failed")
    finally:
        hints.release(key)
    hints.stats["answered"] += 1
    if advice.get("fallback"):
        hints.stats[f"fallback.{advice['fallback']}"] += 1
    if not conn.closed and remember:
        hints.gave(table.id, key[1], version, advice["move"], advice["level"])
    _send(conn, advice, version)


def _error(conn, code: str, message: str) -> None:
    if not conn.closed:
        conn.error(code, message)


def _send(conn, advice: dict, version: int) -> None:
    if not conn.closed:
        conn.send_text(views.dumps({"type": "hint", **advice, "version": version}))
