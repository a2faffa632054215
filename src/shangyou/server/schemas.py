"""Every message of the web protocol (``docs/protocol.md``) as a pydantic model.

Client messages are parsed with :data:`CLIENT_MESSAGE` (a union discriminated by ``type``);
anything that does not validate is answered with an ``error`` (``bad_message``) and changes
nothing. Server messages are built in :mod:`shangyou.server.views`; their models here document
them and let the tests check every message a client receives.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Annotated, Any, Literal, Union

from pydantic import (BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr,
                      TypeAdapter, ValidationError, field_validator)

MAX_MESSAGE_BYTES = 4096      # a client message over this is refused (too_big)
RATE_PER_SECOND = 20          # token bucket: refill rate and burst
NAME_MAX = 24
CHAT_MAX = 200
MOVE_MAX = 200
TOKEN_MAX = 128
BUILT_IN_LEVELS = ("random", "greedy", "heuristic", "search", "learned")
LEVEL_MAX = 16                 # a level's name, in characters (the store's column)


def bot_levels() -> tuple[str, ...]:
    """The levels a table may use: the built-in ones, then those of the ``shangyou.bots``
    entry points whose names are short words (``[a-z0-9_-]``, at most 16 characters)."""
    from shangyou.bots.base import PLUGINS, known_levels
    known_levels()
    extra = sorted(n for n in PLUGINS
                   if len(n) <= LEVEL_MAX and re.fullmatch(r"[a-z0-9_-]+", n))
    return BUILT_IN_LEVELS + tuple(n for n in extra if n not in BUILT_IN_LEVELS)


BOT_LEVELS = bot_levels()      # fixed when the server starts
BotLevel = Literal[BOT_LEVELS]  # type: ignore[valid-type]

ERROR_CODES = ("bad_json", "bad_message", "too_big", "rate_limited", "no_table", "not_seated",
               "not_your_turn", "stale", "illegal", "not_waiting", "seat_taken", "not_ready",
               # added to the contract:
               "not_playing",   # a move while no match is live (waiting, or over)
               "replaced",      # the same seat token connected again elsewhere; socket closes
               "server_error",  # the store failed; the action was undone
               "not_host",      # only the table's host may do this
               "kicked",        # the host took your seat; you watch now
               "banned",        # the host removed you: you may watch, never sit, here
               "closed",        # the host closed the table (or it expired); socket closes
               "hello_timeout",     # no hello within the limit; socket closes (4408)
               "too_many_sockets",  # per table or per address; socket closes (4429)
               "bad_option",    # an option value the game does not take
               "hints_off",     # the room's hints option refuses this seat advice
               "no_ready_check",    # a ready answer while the host asks nothing
               "not_over",      # a rematch asked for while no match has ended
               "moved",         # another node runs the table now; socket closes (1012)
               # accounts (server/accounts.py)
               "account_required",  # a rated table seats logged-in players only
               "already_seated",    # the account holds another seat at this rated table
               "rated_no_bots")     # a rated table has no bots
KITTY_MAX = 64                 # cards named in a hint's bury choice
OPTION_KEY_MAX = 32            # an option's name, in characters
OPTION_INT_MAX = 1000          # an option's number, in absolute value
OPTION_STR_MAX = 32            # an option's text, in characters


# ----------------------------------------------------------------------------- plain text
_SPACES = re.compile(r"\s+")


def _has_control(text: str) -> bool:
    """Control characters (C0/C1, tabs and newlines included) and invisible format characters
    (bidi overrides, zero-width joiners, ...) are refused in names and chat."""
    return any(unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn") for ch in text)


def plain_text(value: Any, limit: int, what: str, allow_empty: bool = True) -> str:
    """A name or chat line as plain text: a string without control characters, surrounding
    space stripped and inner runs of spaces collapsed, at most ``limit`` characters. Markup is
    not special: it is kept as the characters it is, and clients insert it as text."""
    if not isinstance(value, str):
        raise ValueError(f"{what} must be a string")
    if _has_control(value):
        raise ValueError(f"{what} may not contain control characters")
    text = _SPACES.sub(" ", value).strip()
    if len(text) > limit:
        raise ValueError(f"{what} is longer than {limit} characters")
    if not text and not allow_empty:
        raise ValueError(f"{what} is empty")
    return text


# --------------------------------------------------------------------------- client -> server
class _Client(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class Hello(_Client):
    type: Literal["hello"]
    token: StrictStr | None = Field(default=None, max_length=TOKEN_MAX)
    name: StrictStr = ""
    # added: the client's game log holds the events of match `match` up to move `since`; the
    # first state then carries the events after that (all of them for another match)
    since: StrictInt | None = Field(default=None, ge=0)
    match: StrictStr | None = Field(default=None, max_length=32)

    @field_validator("name", mode="before")
    @classmethod
    def _name(cls, v):
        return plain_text("" if v is None else v, NAME_MAX, "name")


class Sit(_Client):
    type: Literal["sit"]
    seat: StrictInt
    name: StrictStr | None = None

    @field_validator("name", mode="before")
    @classmethod
    def _name(cls, v):
        return None if v is None else plain_text(v, NAME_MAX, "name")


class Leave(_Client):
    type: Literal["leave"]


class Bots(_Client):
    type: Literal["bots"]
    level: BotLevel | None = None       # None: table default
    seat: StrictInt | None = None       # one empty seat; None: every empty seat


class Start(_Client):
    type: Literal["start"]


class Kick(_Client):
    type: Literal["kick"]
    seat: StrictInt


class Swap(_Client):
    type: Literal["swap"]
    seat: StrictInt
    to: StrictInt


OptionScalar = Union[StrictBool, Annotated[StrictInt, Field(ge=-OPTION_INT_MAX,
                                                            le=OPTION_INT_MAX)],
                     Annotated[StrictStr, Field(max_length=OPTION_STR_MAX)]]
# a value, or a short list of them (Sheng ji's must_play_ranks)
OptionValue = Union[OptionScalar, Annotated[list[OptionScalar], Field(max_length=16)], None]
OptionKey = Annotated[StrictStr, Field(min_length=1, max_length=OPTION_KEY_MAX)]


class Options(_Client):
    type: Literal["options"]
    options: dict[OptionKey, OptionValue] | None = Field(default=None, max_length=32)
    room: dict[OptionKey, OptionValue] | None = Field(default=None, max_length=8)


class Host(_Client):
    type: Literal["host"]
    seat: StrictInt


class Close(_Client):
    type: Literal["close"]


class ReadyCheckMsg(_Client):
    """The host asks every seated person whether they are ready (``server/ready.py``)."""
    type: Literal["ready_check"]


class Rematch(_Client):
    """A seated person asks for the next match once one has ended (``server/rematch.py``)."""
    type: Literal["rematch"]


class ReadyMsg(_Client):
    """A seated person's answer to the host's ready check, for their own seat."""
    type: Literal["ready"]
    ready: StrictBool


class MoveMsg(_Client):
    type: Literal["move"]
    move: StrictStr = Field(min_length=1, max_length=MOVE_MAX)
    version: StrictInt

    @field_validator("move")
    @classmethod
    def _move(cls, v):
        if _has_control(v):
            raise ValueError("move may not contain control characters")
        return v.strip()


class HintMsg(_Client):
    """Ask for advice on the asker's own turn (answered to the asker only: :class:`Hint`).
    ``bury``: while burying, the cards chosen and not sent yet (the advice is for the turn
    after them: ``server/advice.py``)."""
    type: Literal["hint"]
    bury: list[Annotated[StrictStr, Field(min_length=1, max_length=4)]] | None = \
        Field(default=None, max_length=KITTY_MAX)


class Ping(_Client):
    """Is the server there? Answered at once by the node the socket is on (:class:`Pong`),
    before the table is looked at: the page's check of a silent server (docs/protocol.md)."""
    type: Literal["ping"]
    id: StrictInt = Field(default=0, ge=0, le=2 ** 53)


class Chat(_Client):
    type: Literal["chat"]
    text: StrictStr

    @field_validator("text", mode="before")
    @classmethod
    def _text(cls, v):
        return plain_text(v, CHAT_MAX, "text", allow_empty=False)


ClientMessage = Annotated[Union[Hello, Sit, Leave, Bots, Start, MoveMsg, Chat, Kick, Swap,
                                Options, Host, Close, HintMsg, ReadyCheckMsg, ReadyMsg, Rematch, Ping],
                          Field(discriminator="type")]
CLIENT_MESSAGE: TypeAdapter = TypeAdapter(ClientMessage)
CLIENT_TYPES = ("hello", "sit", "leave", "bots", "start", "move", "chat", "kick", "swap",
                "options", "host", "close", "hint", "ready_check", "ready", "rematch", "ping")
HOST_TYPES = frozenset({"bots", "start", "kick", "swap", "options", "host", "close",
                        "ready_check"})


def parse_client(data: Any):
    """The client message of already-decoded JSON ``data``; ValueError with a readable reason."""
    if not isinstance(data, dict):
        raise ValueError("a message is a JSON object with a 'type'")
    kind = data.get("type")
    if kind not in CLIENT_TYPES:
        raise ValueError(f"unknown message type {str(kind)[:40]!r}; known: "
                         + ", ".join(CLIENT_TYPES))
    try:
        return CLIENT_MESSAGE.validate_python(data)
    except ValidationError as e:
        err = e.errors()[0]
        where = ".".join(str(x) for x in err.get("loc", ())[1:]) or "message"
        msg = str(err.get("msg", "invalid")).removeprefix("Value error, ")
        raise ValueError(f"{kind}: {where}: {msg}") from None


# --------------------------------------------------------------------------- server -> client
class SeatInfo(BaseModel):
    seat: int
    name: str | None
    kind: Literal["human", "bot", "empty"]
    connected: bool
    bot_level: str | None = None        # added: the bot's strength (bots only)
    autoplay: bool = False              # added: a person who is away, played by a bot meanwhile


class ReadyAnswer(BaseModel):
    seat: int
    ready: bool | None                  # None: not answered yet


class ReadyCheckInfo(BaseModel):
    """The host's running ready check: who is asked, their answers, the seconds left."""
    seconds: float                      # how long a check runs (Limits.ready_check_seconds)
    left: float                         # seconds left of this one
    answers: list[ReadyAnswer]          # every person seated when it began (not bots)
    all_ready: bool


class RematchInfo(BaseModel):
    """The asks for a rematch after the match that ended (``server/rematch.py``)."""
    asked: list[int]                    # the seats that asked
    waiting: list[int]                  # present people who have not asked yet


class TableInfo(BaseModel):
    table_id: str                       # added
    game: str
    players: int
    options: dict[str, Any]
    status: Literal["waiting", "playing", "over", "closed"]
    seats: list[SeatInfo]
    bot_level: str                      # added: the table's default bot strength
    match_id: str | None = None         # added: the current (or last) match
    room: dict[str, Any] = {}           # added: the room options (turn_timer, grace, listed)
    host: int | None = None             # the host's seat (None: the host does not sit)
    commitment: str | None = None       # the hash of the current match's deal secret
    secret: str | None = None           # that secret, once the match is over
    ready_check: ReadyCheckInfo | None = None   # the host's ready check, while it runs
    rematch: RematchInfo | None = None  # the asks for a rematch, once somebody asked


class Welcome(BaseModel):
    type: Literal["welcome"]
    seat: int | None
    token: str | None = None
    table: TableInfo
    host: bool = False                  # this client holds the host role


class State(BaseModel):
    type: Literal["state"]
    version: int
    table: TableInfo
    view: dict[str, Any] | None         # None before the first match starts
    last_events: list[dict[str, Any]]
    move_count: int = 0                 # added: moves made in the current match
    moves_hash: str | None = None       # added: the running hash of those moves (fairness)
    seat: int | None = None             # added: the seat this view is for (None: spectator)
    turn: dict[str, Any] | None = None  # added: {"seat", "left"}: who acts, seconds left (timer)


class ChatOut(BaseModel):
    model_config = ConfigDict(populate_by_name=True)
    type: Literal["chat"]
    from_: str = Field(alias="from")
    text: str
    seat: int | None = None             # added: the sender's seat (None: spectator)
    role: Literal["host", "player", "spectator"] = "spectator"


class Why(BaseModel):
    """The rule an illegal play breaks (``games/why.py``)."""
    code: str
    params: dict[str, str]
    text: dict[str, str]                # {"en": ..., "zh": ...}


class Error(BaseModel):
    type: Literal["error"]
    code: str
    message: str
    why: Why | None = None              # with ``illegal``: the rule the play breaks


class HintReason(BaseModel):
    code: str                           # a reason code (docs/review.md)
    params: dict[str, str]
    text: dict[str, str]                # {"en": ..., "zh": ...}


class Hint(BaseModel):
    """The answer to ``{"type": "hint"}``, to the asker only."""
    type: Literal["hint"]
    move: str                           # one of the asker's legal moves at ``version``
    reason: HintReason
    by: Literal["heuristic", "search"]
    level: Literal["heuristic", "search"]   # the level whose advice it is (= by)
    fallback: Literal["time", "failed"] | None = None   # why the heuristic spoke for the search
    version: int                        # the state the advice is for


class Pong(BaseModel):
    """The answer to ``{"type": "ping", "id": n}``: the same ``id``."""
    type: Literal["pong"]
    id: int


ServerMessage = Annotated[Union[Welcome, State, ChatOut, Error, Hint, Pong],
                          Field(discriminator="type")]
SERVER_MESSAGE: TypeAdapter = TypeAdapter(ServerMessage)


# --------------------------------------------------------------------------------------- HTTP
GRACE_DEFAULT = 60              # seconds before a bot plays for an absent person
TURN_TIMER_MAX = 600
GRACE_MAX = 3600


class RoomOptions(BaseModel):
    """Options of the room, not of the game: ``turn_timer`` seconds for each move of a person
    (0: no timer; at zero the seat passes, or a bot moves for it) and ``grace`` seconds an
    absent person's seat waits before a bot plays it."""
    model_config = ConfigDict(extra="forbid")
    turn_timer: StrictInt = Field(default=0, ge=0, le=TURN_TIMER_MAX)
    grace: StrictInt = Field(default=GRACE_DEFAULT, ge=0, le=GRACE_MAX)
    listed: StrictBool = True           # shown in the lobby; False: only its link finds it
    # who may ask for a hint: None (the default) resolves when asked: "heuristic" while at
    # most one seat is held by a person, "off" once two or more are (docs/protocol.md)
    hints: Literal["off", "heuristic", "search"] | None = None
    # rated: only logged-in players sit, no bots; their ratings move when a match ends
    # (server/accounts.py). Fixed when the table is created; None (absent) is false
    rated: StrictBool | None = None


DEFAULT_BOT_LEVEL = "heuristic"    # the tables' bots when none is named: the lobby's and Play now's


class CreateTable(BaseModel):
    model_config = ConfigDict(extra="forbid")
    game: StrictStr = Field(max_length=64)
    players: StrictInt | None = Field(default=None, ge=1, le=16)
    options: dict[OptionKey, OptionValue] = Field(default_factory=dict, max_length=32)
    bots: BotLevel = DEFAULT_BOT_LEVEL
    room: RoomOptions = Field(default_factory=RoomOptions)


class CreatedTable(BaseModel):
    table_id: str
    url: str
    host_token: str                     # the creator's token: say it in hello to be the host


class BotLevels(BaseModel):
    levels: list[str]        # the built-in levels first, then those of other packages


class PresetOut(BaseModel):
    name: str
    aliases: list[str]
    players: list[int]
    defaults: dict[str, Any]
    game: str


class TableListItem(BaseModel):
    table_id: str
    game: str
    players: int
    seats: list[SeatInfo]
    status: str
    host: int | None = None
    listed: bool = True


class TablePage(BaseModel):
    """``GET /api/tables?offset=&limit=``: one page of the listed open tables."""
    tables: list[TableListItem]
    total: int
    offset: int
    limit: int


class HttpError(BaseModel):
    code: str
    detail: str
    message: str


# the error statuses an HTTP route may answer (each a JSON HttpError), for the OpenAPI document
HTTP_CODES = {400: "bad_request", 403: "forbidden", 404: "not_found", 405: "not_allowed",
              408: "too_slow", 413: "too_big", 422: "bad_request", 429: "rate_limited"}
ERRORS: dict[int | str, dict[str, Any]] = {
    status: {"model": HttpError, "description": code}
    for status, code in HTTP_CODES.items() if status not in (403, 405)}


class MatchListItem(BaseModel):
    match_id: str
    table_id: str
    game: str
    players: int
    finished_at: str | None
    result: dict[str, Any] | None
    names: list[str | None] = []        # added


class MatchOut(BaseModel):
    log: dict[str, Any]
    result: dict[str, Any] | None
    names: list[str | None]


class VerifyOut(BaseModel):
    """``GET /api/matches/{id}/verify``: the server's check of a finished match's published
    log (``docs/fairness.md``)."""
    ok: bool
    commitment: str | None              # the commitment published at the start
    commitment_ok: bool                 # the published secret hashes to it
    replays: bool                       # every move of the log is legal with those deals
    deals_ok: bool                      # the published deals are the secret's
    hands: int                          # deals checked
    reason: str | None                  # the first problem, if any
    lines: list[str]                    # the report, as `shangyou verify` prints it
    moves_hash: str | None = None       # added: the running hash of the log's moves
    moves_ok: bool = False              # added: it is the log's stated moves_hash


class ReplayStep(BaseModel):
    """``GET /api/matches/{id}/step/{k}?seat=S|all|public`` (added): a finished match after its
    first ``k`` of ``n`` moves."""
    k: int
    n: int
    seat: int | str | None
    view: dict[str, Any]                       # the seat's view; public view for all/public
    views: list[dict[str, Any]] | None         # every seat's view (seat=all)
    move: list | None                          # the k-th move: [seat, text]
