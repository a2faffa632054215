"""The store's schema: the SQLAlchemy rows of tables, seats, nodes, matches, moves, reviews
and accounts (:mod:`shangyou.server.store` reads and writes them; ``create_all`` makes them)."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import (JSON, BigInteger, Boolean, DateTime, Float, ForeignKey, Index, Integer,
                        String, text)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


def utcnow() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)


class Base(DeclarativeBase):
    pass


class TableRow(Base):
    __tablename__ = "tables"
    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    game: Mapped[str] = mapped_column(String(64))
    players: Mapped[int] = mapped_column(Integer)
    options: Mapped[dict] = mapped_column(JSON, default=dict)
    bot_level: Mapped[str] = mapped_column(String(16), default="greedy")
    status: Mapped[str] = mapped_column(String(16), default="waiting", index=True)
    version: Mapped[int] = mapped_column(Integer, default=0)
    match_id: Mapped[str | None] = mapped_column(String(32), nullable=True)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    # the host's token hash; listed in the lobby or link-only; when a person last changed it
    host_hash: Mapped[str | None] = mapped_column(String(64), nullable=True)
    listed: Mapped[bool] = mapped_column(Boolean, default=True)
    touched_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True, index=True)
    # the node that runs the table and the epoch of that node it was taken in (none: free);
    # it runs the table while that epoch is the node's live one (NodeRow)
    owner: Mapped[str | None] = mapped_column(String(64), nullable=True, index=True)
    owner_epoch: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    # whom the host removed, for the table's life: {"tokens": [...], "addresses": [...]}
    bans: Mapped[dict | None] = mapped_column(JSON, nullable=True)

    # the lobby's order (server/lobby.py): each status's listed tables, newest first
    __table_args__ = (Index("ix_tables_lobby", "status", "created_at", "id",
                            postgresql_where=text("listed IS NOT false"),
                            sqlite_where=text("listed IS NOT 0")),)


class NodeRow(Base):
    """A node of several: its current ``epoch`` (one more each time it starts, or finds its
    lease ran out) and its lease, alive until ``alive_until`` (ms of the database's clock).
    Its heartbeat moves ``alive_until`` on while it is ahead of the clock, and only then: an
    epoch whose lease ran out never comes back."""
    __tablename__ = "nodes"
    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    alive_until: Mapped[int] = mapped_column(BigInteger)
    epoch: Mapped[int] = mapped_column(BigInteger, default=0)


# the orphan scan of a node's tables by epoch: (owner, owner_epoch) without reading the others
Index("ix_tables_owner_epoch", TableRow.owner, TableRow.owner_epoch)


class SeatRow(Base):
    __tablename__ = "seats"
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str | None] = mapped_column(String(64), nullable=True)
    kind: Mapped[str] = mapped_column(String(8), default="empty")   # human | bot | empty
    token_hash: Mapped[str | None] = mapped_column(String(64), nullable=True)
    bot_level: Mapped[str | None] = mapped_column(String(16), nullable=True)


class MatchRow(Base):
    __tablename__ = "matches"
    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id"), index=True)
    game: Mapped[str] = mapped_column(String(64))
    players: Mapped[int] = mapped_column(Integer)
    options: Mapped[dict] = mapped_column(JSON, default=dict)
    seed: Mapped[int] = mapped_column(BigInteger)     # a small seed (research); 0 with a secret
    # the deal secret (64 hex digits: public once the match is over) and its commitment
    secret: Mapped[str | None] = mapped_column(String(64), nullable=True)
    commitment: Mapped[str | None] = mapped_column(String(64), nullable=True)
    names: Mapped[list] = mapped_column(JSON, default=list)
    result: Mapped[dict | None] = mapped_column(JSON, nullable=True)
    started_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    finished_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True, index=True)


class MoveRow(Base):
    __tablename__ = "moves"
    match_id: Mapped[str] = mapped_column(ForeignKey("matches.id"), primary_key=True)
    idx: Mapped[int] = mapped_column(Integer, primary_key=True)
    seat: Mapped[int] = mapped_column(Integer)
    text: Mapped[str] = mapped_column(String(256))
    # who moved for a person: "bot" (they were away past the grace period) or "timer" (their
    # turn timer ran out); None: the seat's own player (or its bot)
    actor: Mapped[str | None] = mapped_column(String(8), nullable=True)


class ReviewRow(Base):
    """The search bot's review of one seat of a finished match (computed once)."""
    __tablename__ = "reviews"
    match_id: Mapped[str] = mapped_column(ForeignKey("matches.id"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    data: Mapped[dict] = mapped_column(JSON)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)


# ------------------------------------------------------------------------------- accounts
# (server/accountdb.py reads and writes these; docs/protocol.md, *Accounts*)
class AccountRow(Base):
    """A person's account: a username (also the name they sit under), unique by its folded
    ``name_key``, and an argon2id hash of the password."""
    __tablename__ = "accounts"
    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    username: Mapped[str] = mapped_column(String(32))
    name_key: Mapped[str] = mapped_column(String(64), unique=True)
    password_hash: Mapped[str] = mapped_column(String(256))
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)


class AccountSessionRow(Base):
    """A logged-in browser: the SHA-256 of its session cookie's random id (the id itself is
    never stored), until when it holds."""
    __tablename__ = "account_sessions"
    id_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    account_id: Mapped[str] = mapped_column(ForeignKey("accounts.id"), index=True)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    expires_at: Mapped[dt.datetime] = mapped_column(DateTime, index=True)


class RatingRow(Base):
    """An account's openskill rating in one game (the preset's game: ``sheng-ji``, ...)."""
    __tablename__ = "ratings"
    account_id: Mapped[str] = mapped_column(ForeignKey("accounts.id"), primary_key=True)
    game: Mapped[str] = mapped_column(String(64), primary_key=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    ordinal: Mapped[float] = mapped_column(Float, index=True)
    matches: Mapped[int] = mapped_column(Integer, default=0)
    wins: Mapped[int] = mapped_column(Integer, default=0)
    updated_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)


class SeatAccountRow(Base):
    """Whose account holds a seat token of a table (the token's hash, as in ``seats``): the
    seat follows its token through swaps."""
    __tablename__ = "seat_accounts"
    table_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    account_id: Mapped[str] = mapped_column(String(32), index=True)


class MatchPlayerRow(Base):
    """An account's seat in a match, written before the match is stored (no foreign key: a
    match whose start failed leaves a row nobody reads). ``rated``: the table was rated;
    ``rated_at``: when the rating was updated from the result (once); ``before``/``after``:
    the rating's ordinal around it."""
    __tablename__ = "match_players"
    match_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    account_id: Mapped[str | None] = mapped_column(String(32), nullable=True, index=True)
    game: Mapped[str] = mapped_column(String(64))
    rated: Mapped[bool] = mapped_column(Boolean, default=False)
    rated_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True, index=True)
    place: Mapped[int | None] = mapped_column(Integer, nullable=True)
    won: Mapped[bool | None] = mapped_column(Boolean, nullable=True)
    before: Mapped[float | None] = mapped_column(Float, nullable=True)
    after: Mapped[float | None] = mapped_column(Float, nullable=True)


# -------------------------------------------------------------------------------- puzzles
# (server/puzzles.py; accountdb.py's puzzle functions read and write these)
class PuzzleRatingRow(Base):
    """An account's puzzle rating in one family (``climbing``, ``zheng-fen``, ``sheng-ji``):
    openskill, a solve a win against the puzzle."""
    __tablename__ = "puzzle_ratings"
    account_id: Mapped[str] = mapped_column(ForeignKey("accounts.id"), primary_key=True)
    family: Mapped[str] = mapped_column(String(16), primary_key=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    ordinal: Mapped[float] = mapped_column(Float)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    solved: Mapped[int] = mapped_column(Integer, default=0)
    updated_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)


class PuzzleStatRow(Base):
    """A puzzle's own rating (it starts at the miner's seed) and how often it was tried and
    solved (first tries only, guests' included)."""
    __tablename__ = "puzzle_stats"
    puzzle_id: Mapped[str] = mapped_column(String(40), primary_key=True)
    family: Mapped[str] = mapped_column(String(16), index=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    solved: Mapped[int] = mapped_column(Integer, default=0)
    updated_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)


class PuzzleAttemptRow(Base):
    """An account's first answer to a puzzle (later answers are not rated)."""
    __tablename__ = "puzzle_attempts"
    account_id: Mapped[str] = mapped_column(ForeignKey("accounts.id"), primary_key=True)
    puzzle_id: Mapped[str] = mapped_column(String(40), primary_key=True)
    family: Mapped[str] = mapped_column(String(16), index=True)
    solved: Mapped[bool] = mapped_column(Boolean)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
