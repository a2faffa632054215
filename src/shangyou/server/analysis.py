"""The analysis board: ``GET /analysis`` (the page) and ``POST /api/analysis`` (docs/protocol.md,
*Analysis*; the engine: :mod:`shangyou.analysis`, the set-up: :mod:`shangyou.position`).

A request names a position in one of two ways: a step of a **finished** match and a seat
(``match``, ``step``, ``seat``: that seat's view after ``step`` moves, what the replay shows
from its point of view, nothing more; a table still in play is never analysed), or a set-up
(``position``). The answer is the seat's view and the engine's table of plays.

The work runs in the advice lane (:mod:`shangyou.server.budget`) as its own kind,
``analysis``, after every hint and review decision that waits and never in the bots' lane; at
most ``Limits.analysis_queue`` wait (more: 503 ``busy``). One address asks at most
``Limits.analyses_per_minute_address`` a minute (429 ``rate_limited``). Each analysis has
``Limits.analysis_seconds`` of CPU for its worlds (:data:`shangyou.analysis.MAX_WORLDS` at
most, :data:`~shangyou.analysis.MIN_WORLDS` at least) and at most
:data:`~shangyou.analysis.MAX_PLAYS` plays, so the answer is bounded too.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, JSONResponse
from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr

from . import schemas
from .answers import error
from .budget import Busy, Dropped
from .limits import Buckets

log = logging.getLogger("shangyou.server")
STATIC = Path(__file__).resolve().parent.parent / "web" / "static"
CARDS_MAX = 800          # characters of one string of cards (four packs, spaced)
CardText = Annotated[StrictStr, Field(max_length=CARDS_MAX)]


class TablePlay(BaseModel):
    model_config = ConfigDict(extra="forbid")
    seat: StrictInt = Field(ge=0, le=15)
    cards: StrictStr = Field(min_length=1, max_length=CARDS_MAX)
    reading: StrictStr | None = Field(default=None, max_length=64)


class Position(BaseModel):
    """A set-up (:mod:`shangyou.position`)."""
    model_config = ConfigDict(extra="forbid")
    game: StrictStr = Field(max_length=64)
    players: StrictInt | None = Field(default=None, ge=1, le=16)
    options: dict[schemas.OptionKey, schemas.OptionValue] = Field(default_factory=dict,
                                                                  max_length=32)
    seat: StrictInt = Field(ge=0, le=15)
    hand: CardText
    table: TablePlay | None = None
    played: CardText | Annotated[list[tuple[StrictInt, CardText]], Field(max_length=64)] = ""
    counts: list[StrictInt] | None = Field(default=None, max_length=16)
    finished: list[StrictInt] | None = Field(default=None, max_length=16)
    # Sheng ji (shangyou.position._sheng_ji_view)
    level: StrictStr | None = Field(default=None, max_length=2)
    trump: StrictStr | None = Field(default=None, max_length=1)
    declarer: StrictInt | None = Field(default=None, ge=0, le=15)
    trick: Annotated[list[tuple[StrictInt, CardText]], Field(max_length=16)] | None = None
    points: StrictInt = Field(default=0, ge=0, le=10_000)
    # Zhao Pengyou: the friend calls ("1 AS") and who answered each (null: open)
    calls: list[Annotated[StrictStr, Field(max_length=8)]] | None = Field(default=None,
                                                                           max_length=4)
    call_results: list[StrictInt | None] | None = Field(default=None, max_length=4)


class AnalysisIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    match: StrictStr | None = Field(default=None, min_length=1, max_length=32)
    step: StrictInt | None = Field(default=None, ge=0, le=100_000)
    seat: StrictInt | None = Field(default=None, ge=0, le=15)
    position: Position | None = None
    seed: StrictInt = Field(default=0, ge=0, le=2**31 - 1)


class Rejected(Exception):
    """A position the engine does not analyse: ``code`` and the message, answered as 422."""

    def __init__(self, code: str, message: str):
        super().__init__(code, message)         # both in args: it is pickled back from a worker
        self.code, self.message = code, message

    def __str__(self) -> str:
        return self.message


def analyse_in_worker(source: tuple, seed: int, seconds: float) -> dict:
    """In a worker: the view of ``source`` (``("position", setup)`` or ``("step", log, k,
    seat)``) and its analysis; :class:`Rejected` for a position that is not one."""
    import shangyou
    from shangyou.analysis import NotAnalysable, analyse
    from shangyou.position import BadPosition, view_of
    try:
        if source[0] == "position":
            view = view_of(source[1])
        else:
            _, match_log, k, seat = source
            options = {key: tuple(v) if isinstance(v, list) else v
                       for key, v in (match_log.get("options") or {}).items()}
            g = shangyou.new_match(match_log["game"], players=match_log["players"],
                                   seed=match_log["seed"], **options)
            for _, text in match_log["moves"][:k]:
                g.apply(text)
            if g.to_act != seat:
                raise Rejected("not_to_act", f"seat {seat} is not to act at step {k}"
                               + ("" if g.to_act is None else f" (seat {g.to_act} is)"))
            view = g.view(seat)
        return {"view": view, "analysis": analyse(view, seed, seconds)}
    except BadPosition as e:
        raise Rejected(e.code, str(e)) from None
    except NotAnalysable as e:
        raise Rejected("not_analysable", str(e)) from None
    except Rejected:
        raise
    except Exception as e:      # hostile input the checks above did not foresee: refused
        log.warning("analysis of %s refused: %r", source[0], e)
        raise Rejected("bad_position", f"not a position of this game: {str(e)[:200]}") \
            from None


router = APIRouter()


@router.get("/analysis", include_in_schema=False)
async def analysis_page():
    return FileResponse(STATIC / "analysis.html", media_type="text/html; charset=utf-8",
                        headers={"Cache-Control": "no-cache"})


def _buckets(request: Request) -> Buckets:
    state = request.app.state
    got = getattr(state, "analysis_buckets", None)
    if got is None:
        got = state.analysis_buckets = Buckets(
            state.manager.limits.analyses_per_minute_address)
    return got


@router.post("/api/analysis",
             responses={**schemas.ERRORS, 503: {"model": schemas.HttpError,
                                                "description": "busy (or unavailable)"}})
async def post_analysis(body: AnalysisIn, request: Request) -> Any:
    """A position (a set-up, or a finished match's step and seat) and the engine's table of
    its plays (docs/protocol.md, *Analysis*)."""
    manager = request.app.state.manager
    limits = manager.limits
    address = request.client.host if request.client else None
    if not _buckets(request).take(address or "?", manager.clients.factor(address)):
        return error(429, f"at most {limits.analyses_per_minute_address} analyses a minute "
                     "from one address; try again later", "rate_limited")
    by_step = (body.match, body.step, body.seat)
    if body.position is not None:
        if any(x is not None for x in by_step):
            return error(422, "give a position or a match, step and seat, not both",
                         "bad_request")
        source: tuple = ("position", body.position.model_dump())
    elif body.match is not None and body.step is not None and body.seat is not None:
        m = await manager.store.call("match", body.match)
        if m is None or m["finished_at"] is None:
            # a match in play is never analysed (its hands are secret): as if it were not
            return error(404, "no such finished match", "not_found")
        if body.seat >= m["players"]:
            return error(422, f"seat must be 0..{m['players'] - 1}", "bad_request")
        if body.step > len(m["moves"]):
            return error(422, f"step {body.step} is out of range 0..{len(m['moves'])}",
                         "bad_request")
        match_log = {"game": m["game"], "players": m["players"], "seed": m["seed"],
                     "options": m["options"], "moves": m["moves"]}
        source = ("step", match_log, body.step, body.seat)
    else:
        return error(422, "give a position, or a match, a step and a seat", "bad_request")
    lane = manager.work.advice
    try:
        out = await lane.run(analyse_in_worker, source, body.seed, limits.analysis_seconds,
                             kind="analysis")
    except Busy:
        return error(503, "too many analyses wait already; try again shortly", "busy")
    except Dropped:                                          # pragma: no cover - never asked
        return error(503, "the analysis was dropped; try again", "busy")
    except Rejected as e:
        return error(422, str(e), e.code)
    if source[0] == "step":
        out["match"], out["step"] = body.match, body.step
    return JSONResponse(out, headers={"Cache-Control": "no-store"})
