"""Hostile clients over the WebSocket.

Generated messages (any JSON value, near misses of every client message, raw bytes, invalid
UTF-8, text that is not JSON, values nested thousands of levels deep) are sent to live tables:
before ``hello``, by the one seated player of a waiting table, by a spectator of it, and by a
player of a running match. A message the protocol refuses is answered with one ``error`` of a
documented code (never ``server_error``) to its sender only; the table's version and state are
what they were (seen by the server, by a client that connects afterwards, and by the others,
whose next message is the next real one); the server logs no traceback. Deeply nested messages
are refused as bad messages and count toward the flood close (1008 after 400 refusals in a row).

Host controls (``test_host_token_...``): the creator's client holds the table's host token;
only it may fill seats, start, kick, swap, change options, hand over the host role or close
the table; anyone else (a seated player, a spectator, a forged token) gets ``not_host`` and
changes nothing. Sockets (``test_socket_...``): a browser's cross-site ``Origin`` is refused
before the socket opens, and one address holds at most 32 sockets.
"""

from __future__ import annotations

import json
import logging
import warnings

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from test_hostile_http import hostile_app
from test_server import OPEN, Player, snapshot

from shangyou.server import create_app, schemas

with warnings.catch_warnings():
    warnings.simplefilter("ignore")      # starlette prefers httpx2 to httpx
    from fastapi.testclient import TestClient
    from starlette.testclient import WebSocketDenialResponse
    from starlette.websockets import WebSocketDisconnect

pytestmark = pytest.mark.timeout(120)

OWEN2 = {"game": "zheng-shangyou/owen", "players": 2, "options": {"target": 2}, "bots": "greedy"}
OWEN3 = {**OWEN2, "players": 3}
# the codes a refusal may carry: the protocol's, and those of the host controls and limits
HOST_CODES = ("not_host", "kicked", "closed", "hello_timeout", "too_many_sockets", "bad_origin",
              "too_many_tables", "bad_option")
DOCUMENTED = (set(schemas.ERROR_CODES) | set(HOST_CODES)) - {"server_error"}
HOST_TYPES = ("kick", "swap", "options", "host", "close", "ready_check")
FLOOD_CLOSE = 400


@pytest.fixture
def client(tmp_path, caplog):
    """A started app without a rate limit to speak of (the messages here come faster than
    people type); afterwards, the server must have logged no traceback and no error."""
    caplog.set_level(logging.WARNING, logger="shangyou.server")
    with TestClient(hostile_app(tmp_path / "data", rate=1e9)) as c:
        try:
            yield c
        finally:
            while OPEN:
                OPEN.pop().close()
    bad = [r for r in caplog.records
           if r.name.startswith("shangyou") and (r.exc_info or r.levelno >= logging.ERROR)]
    assert not bad, [(r.getMessage(), r.exc_text or r.exc_info) for r in bad]


def new_table(client, body=OWEN2) -> str:
    r = client.post("/api/tables", json=body)
    assert r.status_code == 200, r.text
    return r.json()["table_id"]


def observe(client, table_id: str) -> dict:
    """The state a client that connects now gets (as a spectator)."""
    p = Player(client, table_id, "Onlooker")
    state = p.state
    p.close()
    return state


# ------------------------------------------------------------------------------ the messages
CONTROL = st.sampled_from(["\x00", "\x07", "\n", "\r", "\t", "\x1b", "\x7f", "\x85", "\u200b",
                           "\u200e", "\u202e", "\u2066", "\ufeff", "\U000e0001"])
UNICODE = st.text(st.characters(exclude_categories=("Cs",)), max_size=12)
HUGE = st.integers(18, 4100).flatmap(lambda k: st.sampled_from([10 ** k, -(10 ** k)]))
SCALARS = (st.none() | st.booleans() | st.integers() | HUGE | st.floats() | UNICODE)
JSON = st.recursive(SCALARS, lambda kids: st.lists(kids, max_size=4)
                    | st.dictionaries(UNICODE, kids, max_size=4), max_leaves=16)
NOT_INT = (st.none() | st.booleans() | st.floats() | st.text(max_size=6)
           | st.lists(st.integers(), max_size=2) | st.dictionaries(UNICODE, SCALARS, max_size=2))
NOT_STR = (st.none() | st.booleans() | st.integers() | HUGE | st.floats()
           | st.lists(UNICODE, max_size=2) | st.dictionaries(UNICODE, SCALARS, max_size=2))
TYPES = ("hello", "sit", "leave", "bots", "start", "move", "chat", "ready", "rematch") + HOST_TYPES
INT_FIELDS = {"seat", "version", "since", "to"}
STR_FIELDS = {"token", "name", "move", "text", "match", "level"}
REQUIRED = {"sit": ("seat",), "move": ("move", "version"), "chat": ("text",),
            "kick": ("seat",), "swap": ("seat", "to"), "host": ("seat",), "ready": ("ready",)}
LIMITS = {"token": 128, "name": 24, "move": 200, "text": 200, "match": 32, "level": 12}


@st.composite
def base_message(draw, kind: str) -> dict:
    """A message of ``kind`` as the protocol describes it."""
    seat = st.integers(-3, 8)
    name = st.text(st.characters(categories=("L", "N", "Zs")), max_size=24)
    fields = {
        "hello": {"token": st.none() | st.text(max_size=40), "name": name,
                  "since": st.none() | st.integers(0, 50), "match": st.none() | st.text(
                      max_size=12)},
        "sit": {"seat": seat, "name": st.none() | name},
        "bots": {"level": st.none() | st.sampled_from(schemas.BOT_LEVELS), "seat": seat},
        "move": {"move": st.sampled_from(["pass", "7H", "7H 7S", "bid 2S", "3C 3D 3H"]),
                 "version": st.integers(-2, 10 ** 6)},
        "chat": {"text": st.text(st.characters(categories=("L", "N", "P", "Zs")), min_size=1,
                                 max_size=200)},
        "kick": {"seat": seat}, "swap": {"seat": seat, "to": seat},
        "options": {"options": st.dictionaries(st.sampled_from(["target", "players", "x"]),
                                               st.integers(-2, 20), max_size=2),
                    "room": st.dictionaries(st.sampled_from(["turn_timer", "grace", "listed"]),
                                            st.integers(-1, 100) | st.booleans(), max_size=2)},
        "host": {"seat": seat},
        "ready": {"ready": st.booleans()},
    }.get(kind, {})
    msg = {"type": kind}
    for key, strategy in fields.items():
        if key in REQUIRED.get(kind, ()) or draw(st.booleans()):
            msg[key] = draw(strategy)
    return msg


@st.composite
def near_miss(draw) -> dict:
    """A client message with one defect: a bad or missing ``type``, a field of the wrong type,
    a required field missing, a control character, a string too long, a huge number; extra
    fields may come on top."""
    msg = draw(base_message(draw(st.sampled_from(TYPES))))
    fields = sorted(k for k in msg if k != "type")
    defect = draw(st.sampled_from(["type", "no_type", "wrong_type", "missing", "control",
                                   "too_long", "huge", "unicode"]))
    if defect == "type":
        msg["type"] = draw(st.sampled_from(
            ["", "Chat", "CHAT", " chat", "chat ", "chat\x00", "mоve", "hello\u200b", "error",
             "state", "welcome", "__proto__", "constructor", "type"]) | NOT_STR | UNICODE)
    elif defect == "no_type":
        del msg["type"]
    elif defect == "wrong_type" and fields:
        key = draw(st.sampled_from(fields))
        msg[key] = draw(NOT_INT if key in INT_FIELDS else NOT_STR)
    elif defect == "missing" and REQUIRED.get(msg["type"]):
        del msg[draw(st.sampled_from(REQUIRED[msg["type"]]))]
    elif defect in ("control", "too_long", "unicode"):
        key = draw(st.sampled_from(sorted(STR_FIELDS)))
        old = msg.get(key) if isinstance(msg.get(key), str) else "x"
        if defect == "control":
            at = draw(st.integers(0, len(old)))
            msg[key] = old[:at] + draw(CONTROL) + old[at:]
        elif defect == "too_long":
            msg[key] = draw(UNICODE.filter(bool)) * draw(st.integers(1, 3)) \
                + "y" * (LIMITS[key] + draw(st.integers(1, 300)))
        else:
            msg[key] = draw(UNICODE)
    elif defect == "huge":
        msg[draw(st.sampled_from(sorted(INT_FIELDS)))] = draw(HUGE)
    if draw(st.booleans()):
        extra = draw(st.dictionaries(UNICODE.filter(lambda k: k not in msg), JSON, max_size=3))
        msg.update(extra)
    return msg


@st.composite
def nested(draw) -> str:
    """A value nested up to 4,000 levels deep, alone or as a field of a message; balanced or
    cut off (most that fit in a message are arrays: an array level is one byte)."""
    depth = draw(st.sampled_from([999, 1000, 1001, 1500, 2000, 2030, 3000, 4000])
                 | st.integers(2, 4000))
    opener, closer = draw(st.sampled_from([("[", "]"), ("[", "]"), ('{"a":', "}"),
                                           ('[{"":', "}]")]))
    value = opener * depth + draw(st.sampled_from(["1", '"x"', "null", "[]"]))
    if draw(st.booleans()):
        value += closer * depth
    where = draw(st.sampled_from([
        "@", '{"type": "chat", "text": @}', '{"type": "move", "move": "pass", "version": @}',
        '{"type": "sit", "seat": @}', '{"type": "hello", "name": @}',
        '{"type": "chat", "text": "hi", "x": @}', '{"type": @}']))
    return where.replace("@", value)


def _dumps(draw, value) -> str:
    return json.dumps(value, ensure_ascii=draw(st.booleans()),
                      separators=draw(st.sampled_from([(",", ":"), (", ", ": ")])))


@st.composite
def frames(draw):
    """One WebSocket frame: text (str) or binary (bytes)."""
    kind = draw(st.sampled_from(["json", "near_miss", "near_miss", "near_miss", "nested",
                                 "nested", "bytes", "bad_utf8", "text", "big", "duplicate",
                                 "nan"]))
    if kind == "json":
        text = _dumps(draw, draw(JSON))
    elif kind == "near_miss":
        text = _dumps(draw, draw(near_miss()))
    elif kind == "nested":
        text = draw(nested())
    elif kind == "bytes":
        return draw(st.binary(max_size=64))
    elif kind == "bad_utf8":
        msg = _dumps(draw, draw(base_message(draw(st.sampled_from(TYPES))))).encode()
        at = draw(st.integers(0, len(msg)))
        bad = draw(st.sampled_from([b"\xff", b"\xc3\x28", b"\xe2\x82", b"\xed\xa0\x80",
                                    b"\xf4\x90\x80\x80", b"\xc0\xaf", b"\x80"]))
        return msg[:at] + bad + msg[at:]
    elif kind == "text":
        text = draw(UNICODE)
    elif kind == "big":
        text = json.dumps({"type": "chat", "text": "z" * draw(st.integers(4096, 70_000))})
    elif kind == "duplicate":
        first, second = draw(st.sampled_from(TYPES)), draw(st.sampled_from(TYPES))
        text = f'{{"type": "{first}", "text": "hi", "type": "{second}"}}'
    else:
        number = draw(st.sampled_from(["NaN", "Infinity", "-Infinity", "1e400", "1.0", "0x1",
                                       "01"]))
        text = '{"type": "move", "move": "pass", "version": ' + number + "}"
    if draw(st.integers(0, 5)) == 0:
        return text.encode()        # the same text in a binary frame
    return text


# -------------------------------------------------------------------------------- the oracle
def parsed(frame):
    """The client message a frame carries as the protocol reads it; None when it carries
    none (too big, not JSON, not a valid message)."""
    size = len(frame) if isinstance(frame, bytes) else len(frame.encode("utf-8"))
    if size > schemas.MAX_MESSAGE_BYTES:
        return None
    try:
        return schemas.parse_client(json.loads(frame))
    except Exception:          # noqa: BLE001 - JSON, Unicode, recursion or schema errors
        return None


def accepted(where: str, msg, version: int) -> bool:
    """Whether the client of arena ``where`` may do ``msg`` (a parsed message): what the
    hostile run must not send, since it would change the table."""
    if msg is None:
        return False
    if where == "before hello":
        return msg.type == "hello"
    if msg.type == "hello" or msg.type in HOST_TYPES:     # no client here is the host
        return False
    if msg.type == "chat":
        return True
    if where == "waiting, seated":
        return msg.type in ("leave", "bots") or (msg.type == "sit" and msg.seat in (1, 2))
    if where == "waiting, spectator":
        return msg.type == "sit" and msg.seat in (1, 2)
    return msg.type == "move" and msg.version == version        # playing


# --------------------------------------------------------------------------------- the arenas
ARENAS = ("before hello", "waiting, seated", "waiting, spectator", "playing")


def arena(client, where: str):
    """(table id, the attacking client, the other clients) of a live table. The attacker is
    never the host: at the running match the other player holds the host token (where
    tables have one) and started it."""
    if where == "playing":
        r = client.post("/api/tables", json=OWEN2)
        assert r.status_code == 200, r.text
        tid = r.json()["table_id"]
        bob = Player(client, tid, "Bob", token=r.json().get("host_token"))
        bob.sit(1)
        ann = Player(client, tid, "Ann")
        ann.sit(0)
        bob.send({"type": "start"})
        for p in (ann, bob):
            p.state_until(lambda s: s["table"]["status"] == "playing")
        return tid, ann, [bob]
    tid = new_table(client, OWEN3)
    ann = Player(client, tid, "Ann")
    ann.sit(0)
    if where == "waiting, seated":
        return tid, ann, [Player(client, tid, "Watcher")]
    attacker = Player(client, tid, "Mallory", hello=where != "before hello")
    return tid, attacker, [ann]


def shown(frame) -> str:
    return f"{len(frame)} {type(frame).__name__}: {frame[:100]!r}" + ("..." if len(frame) > 100
                                                                    else "")


def expect_refusal(attacker: Player, frame) -> dict:
    """The attacker's next message: one error of a documented code, nothing before it."""
    attacker.send(frame)
    reply = attacker.recv()
    assert reply["type"] == "error", (shown(frame), reply)
    assert reply["code"] in DOCUMENTED, (shown(frame), reply)
    assert isinstance(reply["message"], str) and reply["message"]
    return reply


@pytest.mark.parametrize("where", ARENAS)
def test_generated_messages_are_refused_and_change_nothing(client, where):
    tid, first, others = arena(client, where)
    attacker = [first]
    before = snapshot(client, tid)
    seen = observe(client, tid)
    version = seen["version"]
    sent = [0]

    def reset():
        """Before hello: a new socket (one that never says hello is closed after a while).
        After: an accepted chat line ends the run of refusals (the flood close counts those
        in a row); everyone at the table gets it, and nothing else."""
        if where == "before hello":
            attacker[0].close()
            attacker[0] = Player(client, tid, "Mallory", hello=False)
            return
        attacker[0].send({"type": "chat", "text": "still here"})
        for p in [attacker[0], *others]:
            m = p.recv()
            assert m["type"] == "chat" and m["text"] == "still here", m

    @settings(max_examples=250 if where == "before hello" else 400, deadline=None,
              derandomize=True, database=None, suppress_health_check=list(HealthCheck))
    @given(frame=frames())
    def refused(frame):
        assume(not accepted(where, parsed(frame), version))
        expect_refusal(attacker[0], frame)
        assert snapshot(client, tid) == before
        sent[0] += 1
        if sent[0] % (20 if where == "before hello" else 100) == 0:
            reset()

    refused()
    assert snapshot(client, tid) == before
    assert observe(client, tid) == seen
    if where == "before hello":
        attacker[0].send({"type": "hello", "token": None, "name": "Mallory"})   # it joins
        assert attacker[0].next("welcome")["seat"] is None
        assert attacker[0].next("state")["version"] == version
    else:
        # the others heard nothing of it: their next message is the next real one
        reset()


# ----------------------------------------------------------------- nested messages, flood close
BALANCED_2000 = "[" * 2000 + "]" * 2000          # 4,000 bytes: valid JSON, not a message
UNTERMINATED_3000 = "[" * 3000                   # 3,000 bytes, 3,000 levels, never closed
NESTED_FIELD = '{"type": "chat", "text": ' + "[" * 1900 + "]" * 1900 + "}"


def test_nested_messages_are_bad_messages_and_count_toward_the_flood_close(client):
    tid = new_table(client, OWEN3)
    ann = Player(client, tid, "Ann")
    ann.sit(0)
    bob = Player(client, tid, "Bob")
    before = snapshot(client, tid)
    first = ((BALANCED_2000, {"bad_message"}), (NESTED_FIELD, {"bad_message"}),
             (UNTERMINATED_3000, {"bad_message", "bad_json"}),
             (BALANCED_2000.encode(), {"bad_message"}))
    for frame, codes in first:
        assert len(frame) <= schemas.MAX_MESSAGE_BYTES
        assert expect_refusal(ann, frame)["code"] in codes, shown(frame)
    assert snapshot(client, tid) == before
    # 400 refusals in a row close the socket (1008); nested messages count like any other
    rest = FLOOD_CLOSE - len(first)
    for i in range(rest):
        ann.send(UNTERMINATED_3000 if i % 2 else BALANCED_2000)
    for _ in range(rest):
        reply = ann.recv()
        assert reply["type"] == "error" and reply["code"] in {"bad_message", "bad_json"}, reply
    ann.send(BALANCED_2000)                # the 401st
    ann.send({"type": "chat", "text": "still open?"})      # answered only if it stayed open
    with pytest.raises(WebSocketDisconnect) as closed:
        while True:
            reply = ann.recv()
            assert reply["type"] == "error" and reply["code"] != "server_error", reply
    assert closed.value.code == 1008
    bob.send({"type": "chat", "text": "hello?"})        # the table is fine
    while (m := bob.next("state", "chat"))["type"] != "chat":
        assert m["version"] == before[0]
    assert m["text"] == "hello?"
    assert snapshot(client, tid) == before


# ---------------------------------------------------------------- host controls (host token)
HOST_ACTIONS = {
    "bots": {"type": "bots"},
    "bots one seat": {"type": "bots", "seat": 2},
    "start": {"type": "start"},
    "kick": {"type": "kick", "seat": 0},
    "swap": {"type": "swap", "seat": 0, "to": 2},
    "options": {"type": "options", "options": {"target": 5}},
    "room options": {"type": "options", "room": {"turn_timer": 30}},
    "host": {"type": "host", "seat": 1},
    "close": {"type": "close"},
    "ready check": {"type": "ready_check"},
}


def next_of(p: Player, *types: str, version: int | None = None) -> dict:
    """The next message of one of these types; a ``welcome``, a chat line, or a ``state`` of
    ``version`` (a connection coming or going, no change) may come before it."""
    while True:
        m = p.recv()
        if m["type"] in types:
            if not (m["type"] == "state" and version is not None and m["version"] == version):
                return m
        else:
            assert m["type"] in ("welcome", "chat", "state"), m


def until(p: Player, pred) -> dict:
    """The first ``state`` that satisfies ``pred`` (an error on the way fails)."""
    while True:
        s = next_of(p, "state")
        if pred(s):
            return s


def hosted(client):
    """A waiting 3-seat table: the host (the creator's client, holding the host token) at
    seat 0, a stranger at seat 1, seat 2 empty; (table id, host, stranger, host token)."""
    r = client.post("/api/tables", json=OWEN3)
    assert r.status_code == 200, r.text
    created = r.json()
    assert "host_token" in created, "POST /api/tables answers no host_token"
    tid, token = created["table_id"], created["host_token"]
    host = Player(client, tid, "Host", token=token)
    assert host.received[0].get("host") is True, host.received[0]
    host.sit(0)
    assert host.token == token          # the host's seat token is the host token
    stranger = Player(client, tid, "Mallory")
    assert stranger.received[0].get("host") is False, stranger.received[0]
    stranger.sit(1)
    until(host, lambda s: s["table"]["seats"][1]["kind"] == "human")
    assert host.state["table"]["host"] == 0
    return tid, host, stranger, token


@pytest.mark.parametrize("who", ["seated stranger", "spectator", "forged token"])
@pytest.mark.parametrize("action", list(HOST_ACTIONS), ids=list(HOST_ACTIONS))
def test_host_token_stranger_cannot_control_the_table(client, action, who):
    tid, host, stranger, token = hosted(client)
    if action == "start":                 # every seat taken: only the host role is missing
        host.send({"type": "bots", "seat": 2})
        until(host, lambda s: s["table"]["seats"][2]["kind"] == "bot")
        until(stranger, lambda s: s["table"]["seats"][2]["kind"] == "bot")
    if who == "spectator":
        attacker = Player(client, tid, "Watcher")
    elif who == "forged token":
        attacker = Player(client, tid, "Forger", token=token[:-2] + ("xx" if token[-2:] != "xx"
                                                                      else "yy"))
        assert attacker.seat is None
    else:
        attacker = stranger
    before = snapshot(client, tid)
    seen = observe(client, tid)
    attacker.send(HOST_ACTIONS[action])
    err = next_of(attacker, "error", "state", version=seen["version"])
    assert err["type"] == "error" and err["code"] == "not_host", err
    assert snapshot(client, tid) == before
    assert observe(client, tid) == seen
    # nobody heard of it: everyone's next message (but for unchanged states) is the next one
    host.send({"type": "chat", "text": "next"})
    for p in {id(x): x for x in (host, stranger, attacker)}.values():
        m = next_of(p, "chat", "error", "state", version=seen["version"])
        assert m["type"] == "chat" and m["text"] == "next", m


def test_host_token_host_changes_options_and_room(client):
    tid, host, stranger, _ = hosted(client)
    v = host.state["version"]
    host.send({"type": "options", "options": {"target": 5}, "room": {"turn_timer": 30}})
    s = until(host, lambda s: s["version"] > v)
    assert s["table"]["options"]["target"] == 5 and s["table"]["room"]["turn_timer"] == 30
    until(stranger, lambda s: s["table"]["options"]["target"] == 5)
    host.send({"type": "options", "options": {"target": 10 ** 30}})
    assert next_of(host, "error")["code"] in ("bad_option", "bad_message")
    host.send({"type": "options", "options": {"players": 2}})
    assert next_of(host, "error")["code"] in ("bad_option", "bad_message")
    assert observe(client, tid)["table"]["options"]["target"] == 5


def test_host_token_host_swaps_kicks_fills_and_starts(client):
    _, host, stranger, _ = hosted(client)
    host.send({"type": "swap", "seat": 1, "to": 2})
    s = until(host, lambda s: s["table"]["seats"][2]["kind"] == "human")
    assert s["table"]["seats"][1]["kind"] == "empty"
    assert s["table"]["seats"][2]["name"] == "Mallory"
    host.send({"type": "kick", "seat": 2})
    until(host, lambda s: s["table"]["seats"][2]["kind"] == "empty")
    assert next_of(stranger, "error")["code"] == "kicked"
    stranger.send({"type": "move", "move": "pass", "version": 0})     # a spectator now
    assert next_of(stranger, "error")["code"] in ("not_playing", "not_seated")
    host.send({"type": "bots", "seat": 1})
    s = until(host, lambda s: s["table"]["seats"][1]["kind"] == "bot")
    assert s["table"]["seats"][2]["kind"] == "empty"            # the one seat only
    host.send({"type": "kick", "seat": 1})                       # a bot seat: removed
    until(host, lambda s: s["table"]["seats"][1]["kind"] == "empty")
    host.send({"type": "bots"})
    until(host, lambda s: all(x["kind"] != "empty" for x in s["table"]["seats"]))
    host.send({"type": "start"})
    until(host, lambda s: s["table"]["status"] == "playing")


def test_host_token_host_hands_over_the_role(client):
    _, host, stranger, _ = hosted(client)
    host.send({"type": "host", "seat": 1})
    until(host, lambda s: s["table"]["host"] == 1)
    until(stranger, lambda s: s["table"]["host"] == 1)
    host.send({"type": "options", "options": {"target": 4}})     # no longer the host
    assert next_of(host, "error")["code"] == "not_host"
    stranger.send({"type": "options", "options": {"target": 4}})
    until(stranger, lambda s: s["table"]["options"]["target"] == 4)


def test_host_token_host_closes_the_table(client):
    tid, host, stranger, _ = hosted(client)
    watcher = Player(client, tid, "Watcher")
    host.send({"type": "close"})
    for p in (host, stranger, watcher):
        until(p, lambda s: s["table"]["status"] == "closed")
        with pytest.raises(WebSocketDisconnect) as closed:
            while True:
                p.recv()
        assert closed.value.code == 4410


# ------------------------------------------------------------------------------ socket limits
def test_socket_with_a_cross_site_origin_is_refused(client):
    tid = new_table(client)
    evil = {"origin": "http://evil.example"}
    with (pytest.raises((WebSocketDenialResponse, WebSocketDisconnect)),
          client.websocket_connect(f"/ws/{tid}", headers=evil) as ws):
        ws.send_text(json.dumps({"type": "hello", "token": None, "name": "Eve"}))
        ws.receive_text()
    # the page's own origin, and a client that sends none (not a browser), are let in
    for headers in ({"origin": "http://testserver"}, {}):
        with client.websocket_connect(f"/ws/{tid}", headers=headers) as ws:
            ws.send_text(json.dumps({"type": "hello", "token": None, "name": "Ann"}))
            assert json.loads(ws.receive_text())["type"] == "welcome"


def test_socket_count_per_address_is_capped(tmp_path):
    """With the default limits, 32 sockets from one address are let in; the 33rd is refused
    (``too_many_sockets``), and a place frees when one of the 32 closes."""
    with TestClient(create_app(data_dir=tmp_path / "data", bot_delay=0)) as c:
        try:
            tid = new_table(c)
            players = [Player(c, tid, f"P{i}") for i in range(32)]
            with pytest.raises((WebSocketDenialResponse, WebSocketDisconnect)):
                extra = Player(c, tid, "One too many", hello=False)
                extra.send({"type": "hello", "token": None, "name": "One too many"})
                m = extra.recv()
                assert m["type"] == "error" and m["code"] == "too_many_sockets", m
                extra.recv()                      # then the socket closes
            players.pop().close()
            late = Player(c, tid, "Late")
            assert late.seat is None and late.state["version"] == players[0].state["version"]
        finally:
            while OPEN:
                OPEN.pop().close()
