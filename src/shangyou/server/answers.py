"""What the HTTP routes share: the JSON error answer, and making a table from a request."""

from __future__ import annotations

from typing import TYPE_CHECKING

from fastapi import Request
from fastapi.responses import JSONResponse

from .model import Refused
from .schemas import HTTP_CODES

if TYPE_CHECKING:
    from .model import Table
    from .tables import TableManager


def error(status: int, message: str, code: str | None = None) -> JSONResponse:
    """An error as every route answers one: ``{"code", "detail", "message"}``."""
    return JSONResponse(status_code=status,
                        content={"code": code or HTTP_CODES.get(status, "error"),
                                 "detail": message, "message": message})


async def new_table(manager: TableManager, body, request: Request
                    ) -> tuple[Table, str] | JSONResponse:
    """A waiting table made from a create body (``POST /api/tables``, ``POST /api/play``):
    the table and its host token, or the error to answer (the same limits and checks)."""
    address = request.client.host if request.client else None
    try:
        return await manager.create_table(
            body.game, body.players, dict(body.options), body.bots,
            room=body.room.model_dump(exclude_none=True), address=address)
    except Refused as e:
        return error(e.status, e.message, e.code)
    except ValueError as e:
        return error(422, str(e), "bad_option")
