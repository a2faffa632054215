"""First lessons (``/learn``): the courses, a step's position, and the check of a play.

The lessons are data (:mod:`shangyou.lessons`, ``docs/learn.md``); this module only serves
them. ``GET /api/learn`` lists the courses and their steps; ``GET /api/learn/{course}/{step}``
is a step's texts and the learner's view of its position (what the table would show: never
the other hands, never the answer); ``POST /api/learn/{course}/{step}/check`` with
``{"play": "7H 7S"}`` (or ``"pass"``) applies the play to the position and answers whether it
is legal (with the engine's explanation, in English and 中文, when it is not) and whether it is
what the step asks. The learner's progress is kept in the browser.

Every route takes a token from one bucket per address (``learn_requests_per_minute_address``:
429 ``rate_limited``); an unknown course or step is 404 ``not_found``; a body that is not
``{"play": string}`` of at most :data:`PLAY_MAX` characters is 422 ``bad_request``.
"""

from __future__ import annotations

from pathlib import Path

import anyio
from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, JSONResponse
from pydantic import BaseModel, ConfigDict, Field, StrictStr

from shangyou import lessons

from .answers import error
from .limits import Buckets
from .schemas import ERRORS

PLAY_MAX = 200                  # characters of a play's text (a whole hand fits)
STATIC = Path(__file__).resolve().parent.parent / "web" / "static"

router = APIRouter()


class Play(BaseModel):
    model_config = ConfigDict(extra="forbid")
    play: StrictStr = Field(max_length=PLAY_MAX)


def _allowed(request: Request) -> bool:
    """A token from the address's bucket (made on first use, with the server's limits)."""
    manager = request.app.state.manager
    buckets = getattr(request.app.state, "learn_buckets", None)
    if buckets is None:
        buckets = request.app.state.learn_buckets = Buckets(
            manager.limits.learn_requests_per_minute_address)
    address = request.client.host if request.client else None
    return buckets.take(address, manager.clients.factor(address))


def _limited() -> JSONResponse:
    return error(429, "too many lesson requests from this address: wait a little",
                 "rate_limited")


def _step(course: str, step: str) -> dict | None:
    try:
        return lessons.find_step(course, step)
    except KeyError:
        return None


@router.get("/learn", include_in_schema=False)
async def learn_page(request: Request):
    static = getattr(request.app.state, "static_dir", STATIC)    # the app's pages
    f = Path(static) / "learn.html"
    if not f.is_file():
        return error(404, "the lessons page is not installed", "not_found")
    return FileResponse(f, media_type="text/html; charset=utf-8",
                        headers={"Cache-Control": "no-cache"})


@router.get("/api/learn", responses=ERRORS)
async def list_courses(request: Request):
    """Every course: its name, titles and steps (ids and titles)."""
    if not _allowed(request):
        return _limited()
    return {"courses": lessons.courses()}


@router.get("/api/learn/{course}/{step}", responses=ERRORS)
async def get_step(course: str, step: str, request: Request):
    """A step: its texts and the learner's view of its position."""
    if not _allowed(request):
        return _limited()
    s = _step(course, step)
    if s is None:
        return error(404, "no such lesson step", "not_found")
    return await anyio.to_thread.run_sync(lessons.public_step, course, s)


@router.post("/api/learn/{course}/{step}/check", responses=ERRORS)
async def check_play(course: str, step: str, body: Play, request: Request):
    """The engine's judgement of the play in the step's position, and the step's own."""
    if not _allowed(request):
        return _limited()
    s = _step(course, step)
    if s is None:
        return error(404, "no such lesson step", "not_found")
    return await anyio.to_thread.run_sync(lessons.check, s, body.play)
