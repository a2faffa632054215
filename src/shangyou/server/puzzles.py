"""Puzzles on the site: ``/puzzles``, the next puzzle, an answer checked and rated.

A puzzle is sent as the seat's view of its position (the engine's ``view(seat)``, the view a
seated player gets at the table) with the whole plays listed; its record's seed, its moves and
its solution never leave the server before an answer (the seed alone would deal every hidden
hand again). A puzzle is named by an opaque id (a hash of its record's key). The server checks
an answer: the solution, the values of every play over the verification's worlds, and the
engine's reason come back with it. Ratings (:mod:`shangyou.puzzles.rating`): an account's
first answer to a puzzle moves its puzzle rating in the family and the puzzle's; a guest's
browser keeps its own rating and sends it with an answer (it moves the puzzle's rating too,
once per answer; nothing of the guest is stored). The routes are listed in
``docs/protocol.md`` (*Puzzles*); their limits and error codes in ``docs/security.md``.
"""

from __future__ import annotations

import hashlib
import logging
import random

import anyio
from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictFloat, StrictInt, StrictStr
from sqlalchemy.exc import IntegrityError

from shangyou import puzzles as pz
from shangyou.bots.reasons import Reason
from shangyou.puzzles import rating as rt
from shangyou.review import UNITS

from . import accountdb as db
from .accounts import _address, _cross_site, _current, _error, _page
from .limits import Buckets
from .schemas import ERRORS
from .store import StoreUnavailable

log = logging.getLogger("shangyou.server")

NEAREST = 20         # the next puzzle is drawn from this many nearest the player's rating
SKIP_MAX = 50        # ids a guest's browser may ask to skip (seen already)


def public_id(record: dict) -> str:
    """The id a puzzle is known by outside: its family and a hash of its record's key (the
    key holds the deal's seed, which would show every hidden hand)."""
    digest = hashlib.sha256(f"shangyou-puzzle/{record['id']}".encode()).hexdigest()[:12]
    return f"{record['family']}-{digest}"


_BY_PUBLIC: dict[str, tuple[tuple, dict[str, dict]]] = {}


def _by_public(family: str) -> dict[str, dict]:
    """``public id -> record`` of the family (made again when its file was read again)."""
    puzzles = pz.load(family)
    held = _BY_PUBLIC.get(family)
    if held is None or held[0] is not puzzles:
        held = _BY_PUBLIC[family] = (puzzles, {public_id(p): p for p in puzzles})
    return held[1]


def find(puzzle_id: str) -> dict | None:
    family = puzzle_id.rsplit("-", 1)[0]
    if family not in pz.FAMILIES:
        return None
    return _by_public(family).get(puzzle_id)


def family_unit(family: str) -> str:
    return UNITS[family]


class Service:
    """The rate limits and the puzzles' ratings as this node last saw them (read from the
    store once per family, then kept up to date by the answers this node rates; another
    node's changes show after a restart: the ratings only order the choice)."""

    def __init__(self, limits, clients, store):
        self.limits, self.clients, self.store = limits, clients, store
        self.next_buckets = Buckets(limits.puzzles_per_minute_address)
        self.answer_buckets = Buckets(limits.puzzle_answers_per_minute_address)
        self.ratings: dict[str, dict[str, tuple[float, float]]] = {}
        self.rng = random.SystemRandom()

    def may(self, buckets: Buckets, request: Request) -> bool:
        address = _address(request)
        return buckets.take(address or "?", self.clients.factor(address))

    async def puzzle_ratings(self, family: str) -> dict[str, tuple[float, float]]:
        if family not in self.ratings:
            try:
                got = await self.store.call_with(db.puzzle_ratings, family)
            except StoreUnavailable:
                got = {}
            self.ratings.setdefault(family, {}).update(got)
        return self.ratings[family]

    def shown_of(self, family: str, record: dict) -> int:
        r = self.ratings.get(family, {}).get(public_id(record))
        return rt.shown(*r) if r else int(record["rating"])


def _service(request: Request) -> Service:
    app = request.app
    svc = getattr(app.state, "puzzles", None)
    if svc is None:
        m = app.state.manager
        svc = app.state.puzzles = Service(m.limits, m.clients, m.store)
    return svc


def _json(content: dict, status: int = 200) -> JSONResponse:
    return JSONResponse(content, status_code=status, headers={"Cache-Control": "no-store"})


def position_of(record: dict) -> dict:
    """What the page shows of a puzzle: the seat's view and the whole plays it may make."""
    g = pz.rebuild(record)
    view = g.view(record["seat"])
    plays = pz.position.listed(view)["legal_moves"]
    return {"view": view, "plays": list(plays)}


# ------------------------------------------------------------------------------- schemas
class GuestRating(BaseModel):
    model_config = ConfigDict(extra="forbid")
    mu: StrictFloat | StrictInt
    sigma: StrictFloat | StrictInt


class AnswerIn(BaseModel):
    """``POST /api/puzzles/{id}/answer``: the play (as the page lists it), and for a guest
    the rating the browser keeps (absent: a new player) and whether this is the first try."""
    model_config = ConfigDict(extra="forbid")
    move: StrictStr = Field(min_length=1, max_length=200)
    guest: GuestRating | None = None
    rated: StrictBool = True


router = APIRouter()


@router.get("/puzzles", include_in_schema=False)
async def puzzles_page():
    return _page("puzzles.html")


@router.get("/api/puzzles/families", responses=ERRORS)
async def families():
    """The families and their themes, with how many puzzles each."""
    out = []
    for family in pz.FAMILIES:
        puzzles = pz.load(family)
        counts: dict[str, int] = {}
        for p in puzzles:
            counts[p["theme"]] = counts.get(p["theme"], 0) + 1
        out.append({"family": family, "puzzles": len(puzzles), "unit": family_unit(family),
                    "themes": [{"theme": t, "puzzles": counts.get(t, 0)}
                               for t in pz.THEMES[family]]})
    return _json({"families": out})


@router.get("/api/puzzles/next", responses=ERRORS)
async def next_puzzle(request: Request,
                      family: str = Query(..., max_length=32),
                      theme: str | None = Query(None, max_length=32),
                      rating: int | None = Query(None, ge=0, le=4000),
                      skip: str | None = Query(None, max_length=SKIP_MAX * 41)):
    """A puzzle of ``family`` (and ``theme``) near the player's rating (an account's own; a
    guest's ``rating``, else 1500), not one the account answered or the guest ``skip``s."""
    svc = _service(request)
    if not svc.may(svc.next_buckets, request):
        return _error(429, "rate_limited", "too many puzzles asked from your address; at most "
                      f"{svc.limits.puzzles_per_minute_address} a minute")
    if family not in pz.FAMILIES:
        return _error(422, "bad_request", f"family must be one of {', '.join(pz.FAMILIES)}")
    if theme is not None and theme not in pz.THEMES[family]:
        return _error(422, "bad_request",
                      f"theme must be one of {', '.join(pz.THEMES[family])}")
    skipped = set(skip.split(",")) if skip else set()
    if len(skipped) > SKIP_MAX:
        return _error(422, "bad_request", f"skip: at most {SKIP_MAX} puzzle ids")
    try:
        account = await _current(request)
    except StoreUnavailable:
        account = None
    player = None
    if account is not None:
        player = await svc.store.call_with(db.puzzle_player, account["id"], family)
        target = rt.shown(player["mu"], player["sigma"])
        skipped |= set(player["done"])
    else:
        target = rating if rating is not None else rt.START
    await svc.puzzle_ratings(family)
    pool = [p for p in pz.load(family)
            if (theme is None or p["theme"] == theme) and public_id(p) not in skipped]
    if not pool:
        return _error(404, "no_puzzle", "no puzzle left of this family and theme")
    pool.sort(key=lambda p: (abs(svc.shown_of(family, p) - target), public_id(p)))
    record = svc.rng.choice(pool[:NEAREST])
    # a rebuild replays up to a hundred moves (a few milliseconds): off the event loop
    pos = await anyio.to_thread.run_sync(position_of, record)
    return _json({"id": public_id(record), "family": family, "theme": record["theme"],
                  "preset": record["preset"], "players": record["players"],
                  "seat": record["seat"], "rating": svc.shown_of(family, record),
                  "unit": family_unit(family), **pos,
                  "player": None if player is None else {
                      "rating": target, "attempts": player["attempts"],
                      "solved": player["solved"]}})


@router.post("/api/puzzles/{puzzle_id}/answer", responses=ERRORS)
async def answer(request: Request, puzzle_id: str, body: AnswerIn):
    """Check a play: right or wrong, the solution, every play's value and spread, the
    engine's reason; the ratings moved (an account's first answer, a guest's rated one)."""
    if (refused := _cross_site(request)) is not None:
        return refused
    svc = _service(request)
    if not svc.may(svc.answer_buckets, request):
        return _error(429, "rate_limited", "too many answers from your address; at most "
                      f"{svc.limits.puzzle_answers_per_minute_address} a minute")
    record = find(puzzle_id) if len(puzzle_id) <= 40 else None
    if record is None:
        return _error(404, "no_puzzle", "no such puzzle")
    family = record["family"]
    try:
        got = await anyio.to_thread.run_sync(pz.answer_of, record, body.move)
    except ValueError:
        return _error(422, "illegal_move", f"{body.move[:40]!r} is not a legal play here")
    guest = None
    if body.guest is not None:
        if not rt.valid(body.guest.mu, body.guest.sigma):
            return _error(422, "bad_request", "guest: mu and sigma out of range")
        guest = (float(body.guest.mu), float(body.guest.sigma))
    account = await _current(request)
    await svc.puzzle_ratings(family)
    rated = None
    if account is not None or body.rated:
        try:
            rated = await svc.store.call_with(
                db.rate_puzzle, public_id(record), family, int(record["rating"]),
                got.correct, account["id"] if account else None, guest)
        except (StoreUnavailable, IntegrityError):
            rated = None        # (the same account's first answer twice at once: one counts)
    player = None
    if rated is not None:
        if rated.get("puzzle"):
            svc.ratings.setdefault(family, {})[public_id(record)] = rated["puzzle"]
        after = rated["player"]
        before = rated.get("player_before", after)
        player = {"rated": rated["rated"], "before": rt.shown(*before),
                  "rating": rt.shown(*after), "mu": round(after[0], 4),
                  "sigma": round(after[1], 4)}
    reason = Reason(record["reason"]["code"], record["reason"]["params"])
    if not got.correct and reason.code == "search_better" and got.loss is not None:
        # the search's gain, told against the play this player chose
        reason = Reason("search_better", dict(reason.params, other=got.move,
                                              gain=f"{got.loss:.2f}"))
    values = sorted(({"move": m, "value": v[0], "spread": v[1]}
                     for m, v in record["values"].items()), key=lambda x: -x["value"])
    return _json({**got.as_dict(), "id": puzzle_id, "theme": record["theme"],
                  "reason": {"code": reason.code, "text": {"en": reason.text("en"),
                                                           "zh": reason.text("zh")}},
                  "values": values, "unit": family_unit(family), "margin": record["margin"],
                  "worlds": record["verify"]["worlds"], "bot_move": record["bot_move"],
                  "player": player, "puzzle_rating": svc.shown_of(family, record)})
