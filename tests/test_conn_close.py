"""A socket told to close (``moved``, say) gets its close frame even when its handler stops
reading at once: :meth:`Conn.finish` lets the writer send what was queued and the close, instead
of cancelling it (a handler that returns first has its connection dropped without a close frame,
and the client would back off instead of moving at once)."""

from __future__ import annotations

import pytest
from fastapi import FastAPI, WebSocket
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from shangyou.server.conn import Conn

pytestmark = pytest.mark.timeout(120)    # (a close that never comes: the client would wait)


def app_closing_at_once(n: int, code: int) -> FastAPI:
    app = FastAPI()

    @app.websocket("/ws")
    async def socket(ws: WebSocket):
        await ws.accept()
        conn = Conn(ws)
        conn.start()
        for i in range(n):
            conn.send({"type": "state", "i": i})
        conn.error("moved", "this server is stopping; reconnecting to another")
        conn.close(code)
        await conn.finish()             # the handler's reading is over: it returns next

    return app


@pytest.mark.parametrize("queued", [0, 1, 50])
def test_a_close_told_before_the_handler_returns_reaches_the_client(queued):
    with TestClient(app_closing_at_once(queued, 1012)) as client:
        with client.websocket_connect("/ws") as ws:
            got = [ws.receive_json() for _ in range(queued + 1)]
            with pytest.raises(WebSocketDisconnect) as closed:
                ws.receive_json()
    assert [m["i"] for m in got[:-1]] == list(range(queued))
    assert got[-1]["code"] == "moved"
    assert closed.value.code == 1012
