"""Accounts (optional): sign up, log in and out, delete; ratings, history, the leaderboard.

Guests play as before (a typed name, a seat token). An account is a username and a password
(argon2id, argon2-cffi's default parameters); a logged-in browser holds a session cookie
(``shangyou_session``: a random id, stored only as its SHA-256, ``HttpOnly``,
``SameSite=Lax``, ``Secure`` over https). A logged-in person sits under their username, and
only they may sit at a **rated** table (``room.rated``; no bots there); when a rated match
ends every seat's rating in that game moves once (openskill, ``accountdb.rate_match``).

:class:`Accounts` is the manager's part (``manager.accounts``): the hooks the table manager
calls when someone sits, a match starts or ends. :data:`router` holds the HTTP routes
(``docs/protocol.md``, *Accounts*; the attack surface: ``docs/security.md``).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import hashlib
import logging
import re
import secrets
from pathlib import Path

import anyio
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from fastapi import APIRouter, Query, Request
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field, StrictStr, field_validator

from shangyou.registry import preset_names

from . import accountdb as db
from .limits import Buckets, Clients, Limits, origin_allowed
from .model import ActionError, Table, new_id
from .schemas import NAME_MAX, HttpError, plain_text
from .store import AsyncStore, StoreUnavailable, utcnow

log = logging.getLogger("shangyou.server")

COOKIE = "shangyou_session"
USERNAME_MIN, USERNAME_MAX = 3, 20
PASSWORD_MIN, PASSWORD_MAX = 8, 128
# letters and digits of any script, "_", "-" and "." (not first): no spaces, so no account
# name is a guest's default ("Player 2"), a bot's ("Greedy bot 2") or a deleted seat's
USERNAME_RE = re.compile(r"^[^\W_][\w.-]*$")
GUEST_MARK = " (guest)"       # added to a guest's typed name that is an account's username
STATIC_DIR = Path(__file__).resolve().parent.parent / "web" / "static"

_hasher = PasswordHasher()
_dummy_hash: str | None = None


def _sha(value: str) -> str:
    return hashlib.sha256(value.encode("utf-8")).hexdigest()


SESSION_HASH = re.compile(r"[0-9a-f]{64}")


def session_hash(ws) -> str | None:
    """The hash of the session cookie a socket's handshake came with (None: none, or one
    that cannot be a session's): what a gateway node sends the table's owner
    (:mod:`shangyou.server.cluster`)."""
    try:
        cookie = ws.cookies.get(COOKIE)
    except Exception:             # noqa: BLE001 - a cookie header that does not parse
        return None
    if not cookie or len(cookie) > 100:
        return None
    return _sha(cookie)


def games() -> list[str]:
    """The games ratings are kept for (the presets' families)."""
    return sorted({db.game_of(p) for p in preset_names()})


# ------------------------------------------------------------------------------- schemas
class Credentials(BaseModel):
    """``POST /api/account/signup`` and ``/login``."""
    model_config = ConfigDict(extra="forbid")
    username: StrictStr = Field(max_length=64)
    password: StrictStr = Field(max_length=PASSWORD_MAX * 4)

    @field_validator("username")
    @classmethod
    def _username(cls, v):
        return plain_text(v, 64, "username")


class NewAccount(Credentials):
    @field_validator("username")
    @classmethod
    def _rules(cls, v):
        if not USERNAME_MIN <= len(v) <= USERNAME_MAX:
            raise ValueError(f"a username has {USERNAME_MIN} to {USERNAME_MAX} characters")
        if not USERNAME_RE.match(v):
            raise ValueError("a username has letters, digits, '_', '-' and '.' only, and "
                             "begins with a letter or digit")
        return v

    @field_validator("password")
    @classmethod
    def _password(cls, v):
        if not PASSWORD_MIN <= len(v) <= PASSWORD_MAX:
            raise ValueError(f"a password has {PASSWORD_MIN} to {PASSWORD_MAX} characters")
        return v


class Confirm(BaseModel):
    """``POST /api/account/delete``: the password again."""
    model_config = ConfigDict(extra="forbid")
    password: StrictStr = Field(max_length=PASSWORD_MAX * 4)


class AccountOut(BaseModel):
    username: str


class RatingOut(BaseModel):
    game: str
    rating: int              # shown_rating: 1500 + 40 x openskill's ordinal (mu - 3 sigma)
    mu: float
    sigma: float
    matches: int
    wins: int


class StatOut(BaseModel):
    game: str
    matches: int
    wins: int
    first: int


class HistoryItem(BaseModel):
    match_id: str
    game: str
    preset: str
    seat: int
    players: int
    names: list[str | None]
    place: int | None
    won: bool
    rated: bool
    before: int | None       # shown ratings before and after a rated match
    after: int | None
    finished_at: str | None
    replay: str
    review: str


class ProfileOut(BaseModel):
    username: str
    created_at: str | None
    ratings: list[RatingOut]
    stats: list[StatOut]
    history: list[HistoryItem]


class LeaderRow(RatingOut):
    rank: int
    name: str


class LeaderboardOut(BaseModel):
    game: str
    games: list[str]
    total: int
    offset: int
    limit: int
    players: list[LeaderRow]


# -------------------------------------------------------------------------------- service
class Accounts:
    """The accounts' side of the server: login buckets, password hashing, sessions, and the
    table manager's hooks (who may sit, under which name; a match's players; its rating)."""

    def __init__(self, store: AsyncStore, limits: Limits, clients: Clients):
        self.store = store
        self.limits = limits
        self.clients = clients
        self._by_address = Buckets(limits.logins_per_minute_address)
        self._by_name = Buckets(limits.logins_per_minute_account)
        self._signups = Buckets(limits.signups_per_minute_address)
        self._reads = Buckets(limits.account_reads_per_minute_address)
        self._hashing = anyio.CapacityLimiter(max(1, limits.password_hashes_at_once))
        self._tasks: set[asyncio.Task] = set()

    # -------------------------------------------------------------------- passwords
    async def hash(self, password: str) -> str:
        return await anyio.to_thread.run_sync(_hasher.hash, password, limiter=self._hashing)

    async def verify(self, password_hash: str | None, password: str) -> bool:
        """Whether ``password`` is the one ``password_hash`` was made from; without a hash (no
        such account) a dummy one is checked all the same, so both cost the same."""
        global _dummy_hash
        if _dummy_hash is None:       # made before the first check of any kind
            _dummy_hash = await self.hash(secrets.token_urlsafe(16))
        if password_hash is None:
            password_hash = _dummy_hash

        def check() -> bool:
            try:
                return _hasher.verify(password_hash, password)
            except (VerificationError, InvalidHashError):
                return False
        ok = await anyio.to_thread.run_sync(check, limiter=self._hashing)
        return ok and password_hash is not _dummy_hash

    def may_try_login(self, address: str | None, username: str) -> bool:
        """A token from the address's bucket and the username's (every attempt takes one,
        whether the account exists or not; a refused one takes none)."""
        factor, key = self.clients.factor(address), db.name_key(username)
        if not (self._by_address.ready(address or "?", factor) and self._by_name.ready(key)):
            return False
        self._by_address.take(address or "?", factor)
        self._by_name.take(key)
        return True

    def may_sign_up(self, address: str | None) -> bool:
        return self._signups.take(address or "?", self.clients.factor(address))

    def may_read(self, address: str | None) -> bool:
        """A read that asks the store (who, the account, the leaderboard): one address's share."""
        return self._reads.take(address or "?", self.clients.factor(address))

    # --------------------------------------------------------------------- sessions
    async def account_of_cookie(self, cookie: str | None) -> dict | None:
        if not cookie or len(cookie) > 100:
            return None
        return await self.store.call_with(db.session_account, _sha(cookie))

    async def account_of(self, conn) -> dict | None:
        """The account whose session cookie came with a socket's handshake (None: a guest).
        A socket relayed from another node (:class:`~shangyou.server.relay.RemoteConn`) has
        its cookie there: that node (its gateway) sends the cookie's hash, the key of the
        session's row, and this node (the table's owner) looks the session up itself, so a
        rated seat is taken on the node that runs the table, for a live session only."""
        if getattr(conn, "remote", False):
            session = getattr(conn, "session_hash", None)
            if session is None:
                return None
            return await self.store.call_with(db.session_account, session)
        ws = getattr(conn, "ws", None)
        if ws is None:
            return None
        try:
            cookie = ws.cookies.get(COOKIE)
        except Exception:             # noqa: BLE001 - a cookie header that does not parse
            return None
        return await self.account_of_cookie(cookie)

    # ------------------------------------------------------------------ the tables
    async def seat_name(self, table: Table, conn, typed: str) -> tuple[str, dict | None]:
        """The name a person sits under and their account: a logged-in person's username
        (what they typed is ignored); a guest's typed name, marked `` (guest)`` when it is an
        account's username. A rated table seats accounts only, each once."""
        return await self.name_for(table, await self.account_of(conn), typed, conn.seat)

    async def name_for(self, table: Table, account: dict | None, typed: str,
                       seat: int | None = None) -> tuple[str, dict | None]:
        """:meth:`seat_name` for a person already known (``account``, None: a guest) who
        holds ``seat`` (None: no seat yet)."""
        if table.room.get("rated"):
            if account is None:
                raise ActionError("account_required", "a rated table seats logged-in players "
                                  "only; log in at /account")
            held = await self.store.call_with(
                db.seat_accounts, table.id,
                [s.token_hash for s in table.seats if s.kind == "human" and s.token_hash
                 and s.index != seat])
            if account["id"] in held.values():
                raise ActionError("already_seated", "your account holds another seat here")
        if account is not None:
            return account["username"], account
        if await self.store.call_with(db.name_taken, typed):
            typed = typed[:NAME_MAX - len(GUEST_MARK)].rstrip() + GUEST_MARK
        return typed, None

    async def link(self, table: Table, token_hash: str | None, account: dict | None) -> None:
        """The seat token just given (or the host's) is the account's at this table."""
        if account is not None and token_hash is not None:
            await self.store.call_with(db.link_seat, table.id, token_hash, account["id"])

    async def match_players(self, table: Table, match_id: str) -> None:
        """Before a match is stored: the accounts in its seats are written as its players.
        A rated table starts only with an account in every seat, each a different one."""
        hashes = [s.token_hash for s in table.seats if s.kind == "human" and s.token_hash]
        held = await self.store.call_with(db.seat_accounts, table.id, hashes)
        seats = {s.index: held[s.token_hash] for s in table.seats
                 if s.kind == "human" and s.token_hash in held}
        rated = bool(table.room.get("rated"))
        if rated and (len(seats) != table.players
                      or len(set(seats.values())) != table.players):
            raise ActionError("not_ready", "a rated table starts with a logged-in player in "
                              "every seat")
        if seats:
            await self.store.call_with(db.add_match_players, match_id,
                                       db.game_of(table.game_name), seats, rated)

    def match_over(self, table: Table) -> None:
        """A match just ended: a rated one's ratings are updated (in the background; a node
        that stops first leaves it to :meth:`rate_pending` at the next start)."""
        if table.room.get("rated") and table.match_id:
            task = asyncio.create_task(self._rate(table.match_id), name="rate-match")
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _rate(self, match_id: str) -> bool:
        try:
            return await self.store.call_with(db.rate_match, match_id)
        except StoreUnavailable:
            return False          # logged by the store; rate_pending at the next start
        except Exception:
            log.exception("rating match %s failed", match_id)
            return False

    async def rate_pending(self) -> int:
        """The finished rated matches not rated yet (at start)."""
        try:
            ids = await self.store.call_with(db.unrated_matches)
        except StoreUnavailable:
            return 0
        n = 0
        for match_id in ids:
            n += bool(await self._rate(match_id))
        if n:
            log.info("rated %d finished matches left unrated", n)
        return n


# --------------------------------------------------------------------------------- routes
router = APIRouter()
ERRORS: dict[int | str, dict] = {
    s: {"model": HttpError, "description": c} for s, c in
    ((400, "bad_request"), (401, "bad_login / not_logged_in"), (403, "cross_origin"),
     (408, "too_slow"), (409, "name_taken"), (413, "too_big"), (415, "json_only"),
     (422, "bad_request"), (429, "rate_limited"))}


def _error(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse(status_code=status,
                        content={"code": code, "detail": message, "message": message},
                        headers={"Cache-Control": "no-store"})


def _accounts(request: Request) -> Accounts:
    return request.app.state.manager.accounts


def _address(request: Request) -> str | None:
    return request.client.host if request.client else None


def _cross_site(request: Request) -> JSONResponse | None:
    """A state-changing request must come from the site's own pages: a JSON body (a form of
    another site cannot send one without a CORS preflight, which is never granted), an
    ``Origin`` of this very site when a browser sends one, and no ``Sec-Fetch-Site`` saying
    another site. Clients that are not browsers send neither header: nothing to forge."""
    ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if ctype != "application/json":
        return _error(415, "json_only", "the body must be JSON (Content-Type: application/json)")
    origin = request.headers.get("origin")
    if origin is not None and not origin_allowed(origin, request.headers.get("host"),
                                                 request.url.scheme):
        return _error(403, "cross_origin", "this request must come from this site's pages")
    site = request.headers.get("sec-fetch-site")
    if site is not None and site not in ("same-origin", "none"):
        return _error(403, "cross_origin", "this request must come from this site's pages")
    return None


def _set_cookie(request: Request, response: Response, session: str, days: float) -> None:
    response.set_cookie(COOKIE, session, max_age=int(days * 86400), path="/", httponly=True,
                        samesite="lax", secure=request.url.scheme == "https")


def _clear_cookie(request: Request, response: Response) -> None:
    response.delete_cookie(COOKIE, path="/", httponly=True, samesite="lax",
                           secure=request.url.scheme == "https")


async def _log_in(request: Request, acc: Accounts, account: dict) -> JSONResponse:
    """A new session for ``account`` (a fresh random id: whatever id the browser held before
    ends here, so a planted one is worth nothing)."""
    session = secrets.token_urlsafe(32)
    old = request.cookies.get(COOKIE)
    expires = utcnow() + dt.timedelta(days=acc.limits.session_days)
    await acc.store.call_with(db.new_session, account["id"], _sha(session), expires,
                              _sha(old) if old and len(old) <= 100 else None)
    response = JSONResponse({"username": account["username"]},
                            headers={"Cache-Control": "no-store"})
    _set_cookie(request, response, session, acc.limits.session_days)
    return response


async def _current(request: Request) -> dict | None:
    return await _accounts(request).account_of_cookie(request.cookies.get(COOKIE))


@router.post("/api/account/signup", response_model=AccountOut, responses=ERRORS)
async def sign_up(request: Request, body: NewAccount):
    """A new account, logged in at once."""
    if (refused := _cross_site(request)) is not None:
        return refused
    acc = _accounts(request)
    if not acc.may_sign_up(_address(request)):
        return _error(429, "rate_limited", "too many accounts made from your address; at most "
                      f"{acc.limits.signups_per_minute_address} a minute")
    if body.password.casefold() == body.username.casefold():
        return _error(422, "bad_request", "password: the password may not be the username")
    account = {"id": new_id(12), "username": body.username}
    pw = await acc.hash(body.password)
    if not await acc.store.call_with(db.create_account, account["id"], body.username, pw):
        return _error(409, "name_taken", "that username is taken")
    return await _log_in(request, acc, account)


@router.post("/api/account/login", response_model=AccountOut, responses=ERRORS)
async def log_in(request: Request, body: Credentials):
    """Log in: a new session cookie. A wrong password and an unknown username get the same
    answer, after the same work."""
    if (refused := _cross_site(request)) is not None:
        return refused
    acc = _accounts(request)
    if not acc.may_try_login(_address(request), body.username):
        return _error(429, "rate_limited", "too many login attempts; wait a minute")
    account = await acc.store.call_with(db.account_by_name, body.username)
    ok = await acc.verify(account["password_hash"] if account else None, body.password)
    if account is None or not ok:
        return _error(401, "bad_login", "wrong username or password")
    if _hasher.check_needs_rehash(account["password_hash"]):
        await acc.store.call_with(db.set_password_hash, account["id"],
                                  await acc.hash(body.password))
    return await _log_in(request, acc, account)


@router.post("/api/account/logout", responses=ERRORS)
async def log_out(request: Request):
    """End this browser's session (in the store: the cookie is worth nothing from now on)."""
    if (refused := _cross_site(request)) is not None:
        return refused
    cookie = request.cookies.get(COOKIE)
    if cookie and len(cookie) <= 100:
        await _accounts(request).store.call_with(db.end_session, _sha(cookie))
    response = JSONResponse({"ok": True}, headers={"Cache-Control": "no-store"})
    _clear_cookie(request, response)
    return response


class WhoOut(BaseModel):
    username: str | None = None


@router.get("/api/account/who", response_model=WhoOut, responses=ERRORS)
async def who(request: Request):
    """Who this browser is logged in as (``null``: a guest), 200 whether logged in or not: what
    a page's top bar asks on every load, so a guest's page logs no failed request (429 past the
    address's reads)."""
    if not _accounts(request).may_read(_address(request)):
        return _error(429, "rate_limited", "too many account reads from your address; wait a "
                      "minute")
    account = await _current(request)
    return JSONResponse({"username": account["username"] if account else None},
                        headers={"Cache-Control": "no-store"})


@router.get("/api/account", response_model=ProfileOut, responses=ERRORS)
async def my_account(request: Request):
    """The logged-in account: ratings, stats per game, latest matches."""
    if not _accounts(request).may_read(_address(request)):
        return _error(429, "rate_limited", "too many account reads from your address; wait a "
                      "minute")
    account = await _current(request)
    if account is None:
        return _error(401, "not_logged_in", "not logged in")
    out = await _accounts(request).store.call_with(db.profile, account["id"])
    if out is None:
        return _error(401, "not_logged_in", "not logged in")
    return JSONResponse(ProfileOut.model_validate(out).model_dump(),
                        headers={"Cache-Control": "no-store"})


@router.post("/api/account/delete", responses=ERRORS)
async def delete_account(request: Request, body: Confirm):
    """Delete the logged-in account (its password again): its sessions, ratings and
    credentials go, its name in past matches becomes ``(deleted)``."""
    if (refused := _cross_site(request)) is not None:
        return refused
    acc = _accounts(request)
    account = await _current(request)
    if account is None:
        return _error(401, "not_logged_in", "not logged in")
    if not acc.may_try_login(_address(request), account["username"]):
        return _error(429, "rate_limited", "too many password attempts; wait a minute")
    full = await acc.store.call_with(db.account_by_id, account["id"])
    if full is None or not await acc.verify(full["password_hash"], body.password):
        return _error(401, "bad_login", "wrong password")
    matches = await acc.store.call_with(db.delete_account, account["id"])
    response = JSONResponse({"ok": True, "matches_anonymised": matches},
                            headers={"Cache-Control": "no-store"})
    _clear_cookie(request, response)
    return response


@router.get("/api/leaderboard", response_model=LeaderboardOut, responses=ERRORS)
async def leaderboard(request: Request, game: str = Query(..., max_length=64),
                      limit: int = Query(50, ge=1, le=100),
                      offset: int = Query(0, ge=0, le=1_000_000)):
    """The accounts rated in ``game`` (a preset's family: ``sheng-ji``, ...), best first."""
    if not _accounts(request).may_read(_address(request)):
        return _error(429, "rate_limited", "too many account reads from your address; wait a "
                      "minute")
    known = games()
    if game not in known:
        return _error(422, "bad_request", f"game must be one of {', '.join(known)}")
    out = await _accounts(request).store.call_with(db.leaderboard, game, limit, offset)
    return {**out, "games": known}


def _page(file: str) -> Response:
    f = STATIC_DIR / file
    if f.is_file():
        return FileResponse(f, media_type="text/html; charset=utf-8",
                            headers={"Cache-Control": "no-cache"})
    return HTMLResponse(f"<!doctype html><title>shangyou</title><p>{file} is missing.</p>")


@router.get("/account", include_in_schema=False)
async def account_page():
    return _page("account.html")


@router.get("/leaderboard", include_in_schema=False)
async def leaderboard_page():
    return _page("leaderboard.html")
