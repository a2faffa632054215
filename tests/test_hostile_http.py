"""Hostile clients over HTTP.

Every operation of the app's OpenAPI document is driven by schemathesis with valid and invalid
data: no answer is a server error, invalid data is refused with a 4xx, and every answer matches
the document. Invalid create-table bodies create nothing. Then explicit attacks: a 100 MB
chunked body against a real server process, bodies nested thousands of levels deep, absurd
option values, out-of-range pagination, a burst of table creations from one address.

What the attacks expect: every HTTP error body is ``{"code", "detail", "message"}``; a body over
16 KiB is 413 (``too_big``) whatever its transfer encoding, read no further than that; a nested
body is 422 (``bad_request``), never 500; an option no match could ever finish (a target of
10**30 points, 10**9 hands) is 422; ``GET /api/tables`` is a page (``tables``, ``total``,
``offset``, ``limit`` 1..100); one address creates at most 10 tables a minute (then 429,
``rate_limited``).
"""

from __future__ import annotations

import json
import select
import socket
import warnings

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    response_schema_conformance,
    status_code_conformance,
)

from shangyou.registry import resolve
from shangyou.server import create_app
from shangyou.server.limits import Limits

with warnings.catch_warnings():
    warnings.simplefilter("ignore")      # starlette prefers httpx2 to httpx
    from fastapi.testclient import TestClient

pytestmark = pytest.mark.timeout(120)

OWEN2 = {"game": "zheng-shangyou/owen", "players": 2, "options": {"target": 2}, "bots": "greedy"}
MAX_BODY = 16 * 1024
ERROR_KEYS = {"code", "detail", "message"}


# -------------------------------------------------------------------------------- the app
def roomy_limits() -> Limits:
    """Limits on the number of tables far above what these tests reach (they all come from
    one address); body, message, socket and time limits keep their defaults."""
    return Limits(tables_per_minute=10 ** 6, waiting_per_address=10 ** 6, waiting_total=10 ** 6)


def hostile_app(data_dir, **kwargs):
    """The app as the hostile tests run it: no bot delay, roomy creation limits if any."""
    limits = roomy_limits()
    if limits is not None:
        kwargs.setdefault("limits", limits)
    return create_app(data_dir=data_dir, bot_delay=0, **kwargs)


@pytest.fixture
def client(tmp_path):
    """A client of a fresh app whose lifespan runs (the table manager exists) while the test
    runs; an exception in the app is answered 500, as a real server would, not raised."""
    with TestClient(hostile_app(tmp_path / "data"), raise_server_exceptions=False) as c:
        yield c


def table_total(client) -> int:
    """The number of open tables the lobby lists, as a plain list or a page with a total."""
    r = client.get("/api/tables")
    assert r.status_code == 200, r.text
    body = r.json()
    return body["total"] if isinstance(body, dict) else len(body)


# ------------------------------------------------------------------ schemathesis, every operation
# The document is read from an app that is never started (its store is never opened): the
# requests go to a started app of each test through Starlette's TestClient, whose lifespan this
# file controls, instead of schemathesis' own ASGI client, which would start a second lifespan
# on the same app and keep it until the interpreter exits.
schema = schemathesis.openapi.from_dict(create_app(db_url="sqlite://").openapi())
schema.config.generation.update(
    modes=[schemathesis.GenerationMode.POSITIVE, schemathesis.GenerationMode.NEGATIVE])
# invalid data may also be refused as too big (a generated body can pass 16 KiB): 413 too_big
schema.config.checks.negative_data_rejection.expected_statuses.append("413")

FUZZ = settings(max_examples=100, deadline=None, derandomize=True, database=None,
                suppress_health_check=list(HealthCheck))


def send(client: TestClient, case):
    """Send a schemathesis case through the TestClient; its response."""
    kw = case.as_transport_kwargs(base_url="http://testserver")
    if "json" in kw:
        content = json.dumps(kw["json"]).encode()
    else:
        content = kw.get("data")
        if isinstance(content, str):
            content = content.encode()
    return client.request(kw["method"], kw["url"], headers=kw.get("headers") or None,
                          params=kw.get("params") or None, content=content)


@schema.parametrize()
@FUZZ
def test_no_operation_answers_a_server_error(case, client):
    """Valid and invalid data for every operation: never a 5xx, invalid data always a 4xx."""
    r = send(client, case)
    case.validate_response(r, checks=[not_a_server_error, negative_data_rejection])


@schema.parametrize()
@FUZZ
def test_every_answer_matches_the_openapi_document(case, client):
    """Status codes, content types and bodies, error answers included, are the ones the
    OpenAPI document declares (422 bodies are ``{"code", "detail", "message"}``, not
    FastAPI's default list of errors)."""
    r = send(client, case)
    case.validate_response(r, checks=[status_code_conformance, content_type_conformance,
                                      response_schema_conformance])


# ------------------------------------------------------- invalid create-table bodies change nothing
_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text()
_json = st.recursive(_scalars, lambda kids: st.lists(kids, max_size=4)
                     | st.dictionaries(st.text(max_size=8), kids, max_size=4), max_leaves=12)
_not_int = st.none() | st.booleans() | st.floats(allow_nan=False) | st.text(max_size=8) \
    | st.lists(st.integers(), max_size=2)


def _valid_table_body():
    return st.fixed_dictionaries({"game": st.sampled_from(["owen", "zheng-shangyou/owen"]),
                                  "players": st.sampled_from([2, 3, 4, 6])})


@st.composite
def invalid_create_bodies(draw):
    """A create-table body that must be refused: one defect on a body that is otherwise valid,
    or JSON that is no such body at all, or not JSON."""
    body = draw(_valid_table_body())
    defect = draw(st.sampled_from([
        "not_object", "no_game", "game_type", "game_unknown", "extra_key", "players_type",
        "players_range", "options_type", "option_unknown", "option_value", "bots", "room_key",
        "room_value", "not_json", "huge_int"]))
    if defect == "not_object":
        return json.dumps(draw(_json.filter(lambda v: not isinstance(v, dict))))
    if defect == "not_json":
        return draw(st.binary(max_size=64).filter(lambda b: not _is_json(b)))
    if defect == "no_game":
        del body["game"]
    elif defect == "game_type":
        body["game"] = draw(_not_int.filter(lambda v: not isinstance(v, str)) | st.integers())
    elif defect == "game_unknown":
        body["game"] = draw(st.text(max_size=70).filter(_unknown_game))
    elif defect == "extra_key":
        key = draw(st.text(min_size=1, max_size=12).filter(
            lambda k: k not in ("game", "players", "options", "bots", "room")))
        body[key] = draw(_json)
    elif defect == "players_type":
        body["players"] = draw(_not_int.filter(lambda v: v is not None))
    elif defect == "players_range":
        body["players"] = draw(st.integers().filter(lambda n: n not in (2, 3, 4, 6)))
    elif defect == "options_type":
        body["options"] = draw(_json.filter(lambda v: not isinstance(v, dict)))
    elif defect == "option_unknown":
        key = draw(st.text(min_size=1, max_size=12).filter(lambda k: k not in ("target",
                                                                              "players")))
        body["options"] = {key: draw(_json)}
    elif defect == "option_value":
        body["options"] = {"target": draw(_not_int.filter(lambda v: v is not None)
                                          | st.integers(max_value=0))}
    elif defect == "bots":
        body["bots"] = draw(_json.filter(
            lambda v: v not in ("random", "greedy", "heuristic", "search", "learned")))
    elif defect == "room_key":
        body["room"] = {draw(st.text(min_size=1, max_size=10).filter(
            lambda k: k not in ("turn_timer", "grace", "listed"))): 1}
    elif defect == "room_value":
        key = draw(st.sampled_from(["turn_timer", "grace"]))
        body["room"] = {key: draw(_not_int | st.integers(max_value=-1)
                                  | st.integers(min_value=3601))}
    elif defect == "huge_int":
        body[draw(st.sampled_from(["players", "game", "bots"]))] = 10 ** draw(
            st.integers(19, 4000))
    return json.dumps(body)


def _unknown_game(name: str) -> bool:
    try:
        resolve(name)
    except (ValueError, KeyError, TypeError):
        return True
    return False


def _is_json(data: bytes) -> bool:
    try:
        json.loads(data)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return False
    return True


def test_invalid_create_bodies_are_refused_and_create_nothing(client):
    new = client.post("/api/tables", json=OWEN2)
    assert new.status_code == 200, new.text
    before = table_total(client)
    matches = client.get("/api/matches").json()
    codes: set[int] = set()

    @settings(max_examples=150, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(body=invalid_create_bodies())
    def refused(body):
        r = client.post("/api/tables", content=body,
                        headers={"content-type": "application/json"})
        assert 400 <= r.status_code < 500, (body, r.status_code, r.text)
        codes.add(r.status_code)

    refused()
    assert table_total(client) == before
    assert client.get("/api/matches").json() == matches
    assert 422 in codes
    # the server still creates tables afterwards
    assert client.post("/api/tables", json=OWEN2).status_code == 200
    assert table_total(client) == before + 1


# ------------------------------------------------------------------------------ nested bodies
NESTED = {
    "balanced 8000 deep": '{"game": ' + "[" * 8000 + "]" * 8000 + "}",
    "unterminated 10000 deep": '{"game": ' + "[" * 10_000,
    "objects 2500 deep": '{"game": "owen", "options": ' + '{"a":' * 2500 + "1"
                         + "}" * 2500 + "}",
    "top-level array 8000 deep": "[" * 8000 + "]" * 8000,
}


@pytest.mark.parametrize("body", list(NESTED.values()), ids=list(NESTED))
def test_deeply_nested_body_answers_4xx(client, body):
    assert len(body.encode()) <= MAX_BODY
    before = table_total(client)
    r = client.post("/api/tables", content=body, headers={"content-type": "application/json"})
    assert 400 <= r.status_code < 500, (r.status_code, r.text[:200])
    assert table_total(client) == before


# ------------------------------------------------------------------------------- error bodies
def test_error_bodies_carry_code_detail_and_message(client):
    """Every HTTP error answer is ``{"code", "detail", "message"}`` with the documented code."""
    cases = [
        (client.post("/api/tables", json={**OWEN2, "game": "no-such-game"}), 422,
         {"bad_option", "bad_request"}),
        (client.post("/api/tables", json={**OWEN2, "options": {"colour": 1}}), 422,
         {"bad_option"}),
        (client.post("/api/tables", json={**OWEN2, "bots": "genius"}), 422,
         {"bad_option", "bad_request"}),
        (client.post("/api/tables", content=NESTED["balanced 8000 deep"],
                     headers={"content-type": "application/json"}), 422, {"bad_request"}),
        (client.post("/api/tables", content=b"{not json",
                     headers={"content-type": "application/json"}), 422, {"bad_request"}),
        (client.post("/api/tables", content=b"x" * (MAX_BODY + 1),
                     headers={"content-type": "application/json"}), 413, {"too_big"}),
    ]
    for r, status, codes in cases:
        assert r.status_code == status, (r.status_code, r.text[:200])
        body = r.json()
        assert ERROR_KEYS <= set(body), body
        assert body["code"] in codes, body
        assert isinstance(body["detail"], str) and body["detail"]
        assert isinstance(body["message"], str) and body["message"]
    for r in (client.get("/api/matches/nope"), client.get("/api/matches/nope/step/0")):
        assert r.status_code == 404
        assert ERROR_KEYS <= set(r.json()), r.json()


# ---------------------------------------------------------------------------- absurd options
@pytest.mark.parametrize("body", [
    {"game": "zheng-shangyou/owen", "players": 2, "options": {"target": 10 ** 30}},
    {"game": "zheng-fen", "players": 4, "options": {"target": 10 ** 30}},
    {"game": "zheng-shangyou/winner", "players": 4, "options": {"hands": 10 ** 9}},
], ids=["owen target 10**30", "zheng-fen target 10**30", "winner hands 10**9"])
def test_absurd_option_values_answer_422(client, body):
    before = table_total(client)
    r = client.post("/api/tables", json=body)
    assert r.status_code == 422, (r.status_code, r.text)
    assert table_total(client) == before


# ---------------------------------------------------------------------------------- pagination
def test_table_list_is_paginated_and_refuses_nothing_with_a_5xx(client):
    ids = [client.post("/api/tables", json=OWEN2).json()["table_id"] for _ in range(3)]
    page = client.get("/api/tables", params={"offset": 0, "limit": 2}).json()
    assert isinstance(page, dict), page
    assert page["total"] == 3 and page["offset"] == 0 and page["limit"] == 2
    assert len(page["tables"]) == 2
    rest = client.get("/api/tables", params={"offset": 2, "limit": 2}).json()
    assert [t["table_id"] for t in page["tables"] + rest["tables"]] == ids[::-1]   # newest first
    assert all(t["listed"] is True for t in page["tables"])
    for params in ({"limit": 0}, {"limit": 101}, {"limit": -1}, {"limit": 10 ** 30},
                   {"offset": -1}, {"offset": 10 ** 30}, {"limit": "x"}, {"offset": "1e3"},
                   {"limit": ""}):
        r = client.get("/api/tables", params=params)
        assert r.status_code in (200, 422), (params, r.status_code)
        if r.status_code == 200:
            assert 1 <= r.json()["limit"] <= 100 and r.json()["offset"] >= 0, (params, r.json())
        else:
            assert ERROR_KEYS <= set(r.json())


# ------------------------------------------------------------------- a 100 MB chunked body
def test_chunked_body_over_16k_answers_413(client):
    """Without Content-Length the body is counted as it arrives: over 16 KiB is 413 (the
    TestClient sends the chunks at once; the real server below checks that it stops early)."""
    def chunks():
        yield b'{"game": "'
        for _ in range(64):
            yield b"a" * 16 * 1024
        yield b'"}'

    before = table_total(client)
    r = client.post("/api/tables", content=chunks(), headers={"content-type": "application/json"})
    assert r.status_code == 413, (r.status_code, r.text[:200])
    assert table_total(client) == before


def _vm_kib(pid: int, key: str) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    raise AssertionError(f"no {key} for process {pid}")


def _chunked_upload(port: int, total: int, chunk: int = 64 * 1024) -> tuple[bytes, int]:
    """POST a chunked body of ``total`` bytes (no Content-Length), stopping as soon as the
    server answers or closes; (what the server answered, the body bytes it was sent)."""
    head = (f"POST /api/tables HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
            "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n").encode()
    piece = b'{"game": "' + b"a" * (chunk - 10)
    frame = f"{len(piece):x}\r\n".encode() + piece + b"\r\n"
    sent = 0
    answer = b""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall(head)
        s.setblocking(False)
        out = frame
        while b"\r\n\r\n" not in answer:
            # a stall of 30 s (nothing read, nothing written) ends the upload: it is a failure
            readable, writable, _ = select.select([s], [s] if out else [], [], 30)
            if readable:
                try:
                    data = s.recv(65536)
                except (ConnectionResetError, BlockingIOError):
                    data = b""
                if not data:
                    break
                answer += data
            elif writable:
                try:
                    out = out[s.send(out):]
                except (BrokenPipeError, ConnectionResetError):
                    # the server has answered and closed: its answer may already wait in our
                    # receive queue, which a select made before it arrived did not show: write
                    # no more, read on
                    out = b""
                    continue
                if not out and sent < total:
                    sent += len(piece)
                    out = frame if sent < total else b"0\r\n\r\n"     # then the last chunk
            else:
                break
    return answer, sent


def test_chunked_100mb_body_is_cut_off_with_413(tmp_path):
    """A body without Content-Length is read only up to the limit: a real server (uvicorn)
    answers 413 long before 100 MB arrive, and its memory (its peak resident size) does not
    grow by the body."""
    from test_server_restart import Server, free_port

    server = Server(free_port(), tmp_path / "data")
    try:
        server.post("/api/tables", OWEN2)         # warm: the routes and the store are loaded
        base = _vm_kib(server.proc.pid, "VmHWM")
        total = 100 * 1024 * 1024
        answer, sent = _chunked_upload(server.port, total)
        grown = _vm_kib(server.proc.pid, "VmHWM") - base
        status = answer.split(b"\r\n", 1)[0]
        assert status.startswith(b"HTTP/1.1 413"), (status, sent)
        # the answer came while the socket buffers held at most a few MB of the body
        assert sent <= total // 4, f"{sent} bytes of the body were sent before the answer"
        assert grown < 50 * 1024, f"peak memory grew by {grown} KiB"
        assert server.get("/healthz") == {"ok": True}
    finally:
        server.kill()


# ---------------------------------------------------------------- creations from one address
def test_table_creation_is_rate_limited_per_address(tmp_path):
    """The default limits: the 11th table from one address within a minute is refused (429,
    ``rate_limited``) and not created. (Ten creations take a fraction of that minute.)"""
    with TestClient(create_app(data_dir=tmp_path / "data", bot_delay=0),
                    raise_server_exceptions=False) as c:
        for _ in range(10):
            assert c.post("/api/tables", json=OWEN2).status_code == 200
        r = c.post("/api/tables", json=OWEN2)
        assert r.status_code == 429, (r.status_code, r.text)
        assert r.json()["code"] == "rate_limited" and ERROR_KEYS <= set(r.json())
        assert table_total(c) == 10
