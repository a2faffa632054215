"""Limits that only a real server shows (docs/security.md): connections that never finish
their request headers are closed, a socket that never says hello is closed, a chunked body is
cut off at the limit with the rest never read. The server runs as ``python -m shangyou.server``
with short limits set by ``--limit``."""

from __future__ import annotations

import json
import socket
import time

import pytest

from test_server_restart import Server, free_port

pytestmark = pytest.mark.timeout(90)


@pytest.fixture
def server(tmp_path):
    s = Server(free_port(), tmp_path / "data", "--limit", "header_seconds=1",
               "--limit", "hello_seconds=1", "--limit", "body_seconds=2")
    try:
        yield s
    finally:
        s.kill()


def closed_by_server(sock: socket.socket, within: float = 60.0) -> bool:
    """Read until the server closes the connection (True) or ``within`` seconds pass."""
    sock.settimeout(within)
    try:
        while sock.recv(4096):
            pass
        return True
    except TimeoutError:
        return False
    except ConnectionResetError:
        return True


def read_response(sock: socket.socket) -> bytes:
    """One whole HTTP response with a Content-Length (headers and body)."""
    sock.settimeout(30)
    data = b""
    while b"\r\n\r\n" not in data:
        data += sock.recv(4096)
    head, _, body = data.partition(b"\r\n\r\n")
    length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n")
                  if line.lower().startswith(b"content-length:"))
    while len(body) < length:
        body += sock.recv(4096)
    return head + b"\r\n\r\n" + body


def test_unfinished_headers_are_cut_off(server):
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", server.port)) as slow:
        slow.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")      # and never the blank line
        assert closed_by_server(slow)
    # not at once (a lower bound only: asyncio may fire a timer a little early)
    assert time.monotonic() - started >= 0.5
    with socket.create_connection(("127.0.0.1", server.port)) as idle:
        assert closed_by_server(idle)                              # nothing at all
    # a client that finishes its headers in time is served, also on a kept-alive connection
    with socket.create_connection(("127.0.0.1", server.port)) as ok:
        for _ in range(2):
            ok.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            answer = read_response(ok)
            assert answer.startswith(b"HTTP/1.1 200") and b'{"ok":true}' in answer
    assert server.get("/healthz") == {"ok": True}


def test_silent_socket_and_slow_body(server):
    table = server.post("/api/tables", {"game": "owen", "players": 2})["table_id"]
    with server.ws(table) as ws:
        msg = json.loads(ws.recv(timeout=30))
        assert msg["code"] == "hello_timeout"
        try:
            ws.recv(timeout=30)
            raise AssertionError("the socket stayed open")
        except Exception as e:          # websockets' ConnectionClosed
            assert getattr(getattr(e, "rcvd", None), "code", None) == 4408, e
    with socket.create_connection(("127.0.0.1", server.port)) as slow:
        slow.sendall(b"POST /api/tables HTTP/1.1\r\nHost: x\r\nContent-Type: application/json"
                     b"\r\nTransfer-Encoding: chunked\r\n\r\n1\r\n{\r\n")   # then nothing
        answer = read_response(slow)
        assert answer.startswith(b"HTTP/1.1 408") and b'"code":"too_slow"' in answer
    with socket.create_connection(("127.0.0.1", server.port)) as big:
        big.sendall(b"POST /api/tables HTTP/1.1\r\nHost: x\r\nContent-Type: application/json"
                    b"\r\nTransfer-Encoding: chunked\r\n\r\n")
        chunk = b"%x\r\n%s\r\n" % (1024, b" " * 1024)
        answer = b""
        big.settimeout(30)
        try:
            for _ in range(100 * 1024):              # up to 100 MB, unless cut off first
                big.sendall(chunk)
        except (BrokenPipeError, ConnectionResetError):
            pass
        try:
            answer = read_response(big)
        except ConnectionResetError:
            pass
        assert answer.startswith(b"HTTP/1.1 413") and b'"code":"too_big"' in answer
    assert server.get("/api/tables")["total"] == 1          # the one table made above
