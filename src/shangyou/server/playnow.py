"""Play now: one request for a table of your own, seated, bots in the other seats, started.

``POST /api/play`` takes what ``POST /api/tables`` takes (the game, the number of players,
options, the bots' level, room options) and a name. It creates the table as ``POST /api/tables``
does (the same per-address limits and checks), seats the caller in seat 0 with the table's
host token (the host's own seat, as when a host sits), fills every other seat with a bot of the
level asked (``heuristic`` unless asked otherwise: the strongest built-in level that decides in
milliseconds; ``search`` thinks up to 0.8 s a move) and starts the match, in one go under the
table's lock. The answer is the table and that token: the page says it in ``hello`` and is
seated, with the match under way.

There is no queue of people to wait for: bots take the other seats at once (a person who wants
friends at the table creates one and shares its link). A Play now table is link only unless the
room says ``listed``: bot matches do not fill the lobby's list of open tables.

If the start fails after the seats are taken (the database stops answering), the answer is the
same: the page finds its waiting table, seated and hosted, with bots, and the host's Start.
"""

from __future__ import annotations

import logging

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, field_validator

from . import answers, schemas
from .accounts import COOKIE
from .autoplay import _bot_name
from .model import ActionError

log = logging.getLogger("shangyou.server")

DEFAULT_LEVEL = schemas.DEFAULT_BOT_LEVEL


class PlayNow(BaseModel):
    model_config = ConfigDict(extra="forbid")
    game: StrictStr = Field(max_length=64)
    players: StrictInt | None = Field(default=None, ge=1, le=16)
    options: dict[schemas.OptionKey, schemas.OptionValue] = Field(default_factory=dict,
                                                                  max_length=32)
    bots: schemas.BotLevel = DEFAULT_LEVEL
    room: schemas.RoomOptions = Field(default_factory=lambda: schemas.RoomOptions(listed=False))
    name: StrictStr | None = None

    @field_validator("name", mode="before")
    @classmethod
    def _name(cls, v):
        return None if v is None else schemas.plain_text(v, schemas.NAME_MAX, "name")


class Playing(BaseModel):
    table_id: str
    url: str
    token: str            # the seat's (and host's) token: say it in hello
    seat: int             # always 0
    started: bool         # False: the start failed; the table waits for its host's Start


router = APIRouter()


@router.post("/api/play", response_model=Playing,
             responses={**schemas.ERRORS,
                        503: {"model": schemas.HttpError, "description": "unavailable"}})
async def play_now(body: PlayNow, request: Request):
    """A new table, the caller in seat 0 (its host), bots in every other seat, started."""
    manager = request.app.state.manager
    # a logged-in person plays under their username (and the match is in their history); a
    # guest's typed name that is an account's is marked, as when they sit (accounts.py)
    account = await manager.accounts.account_of_cookie(request.cookies.get(COOKIE))
    made = await answers.new_table(manager, body, request)
    if isinstance(made, JSONResponse):
        return made
    table, token = made
    level = body.bots
    started = False
    try:
        async with table.lock:
            name, account = await manager.accounts.name_for(table, account,
                                                            body.name or "Player 1")
            await manager.accounts.link(table, table.host_hash, account)
            changes = {0: {"name": name, "kind": "human",
                           "token_hash": table.host_hash, "bot_level": None}}
            for s in table.seats[1:]:
                changes[s.index] = {"name": _bot_name(level, s.index), "kind": "bot",
                                    "token_hash": None, "bot_level": level}
            await manager._save_seats(table, changes)
            await manager._start(table, None, schemas.Start(type="start"))   # no socket asked
            started = True
    except ActionError as e:        # the store refused or failed: the table waits
        log.warning("table %s: play now could not start the match: %s", table.id, e)
    return {"table_id": table.id, "url": f"/t/{table.id}", "token": token, "seat": 0,
            "started": started}
