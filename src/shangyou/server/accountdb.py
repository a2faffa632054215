"""The accounts' queries: accounts, sessions, who holds which seat, match players, ratings.

Each function takes the synchronous :class:`~shangyou.server.store.Store` and runs in the
store's thread (``AsyncStore.call_with``), one transaction each. The rows are defined in
``store.py`` beside the tables'. Password hashing is not done here (it is slow on purpose and
runs in a thread of its own: ``accounts.py``).

**Ratings** (openskill's Plackett-Luce, as the tournaments use: ``tournament/ratings.py``):
a rated match's result becomes a ranking of its teams (:func:`match_outcome`) and every
account's rating in that game moves once, in the transaction that marks the match's players
rated (``rated_at``); a second call finds nothing left to rate, so a node restarting, or two
nodes finishing the same work, rate a match once.
"""

from __future__ import annotations

import datetime as dt
import unicodedata
from typing import Any

from sqlalchemy import delete, func, select, update
from sqlalchemy.exc import IntegrityError

from .rows import (AccountRow, AccountSessionRow, MatchPlayerRow, MatchRow, PuzzleAttemptRow,
                   PuzzleRatingRow, PuzzleStatRow, RatingRow, SeatAccountRow, utcnow)
from .store import Store, _iso

DELETED_NAME = "(deleted)"     # the name a deleted account's seats show in history
HISTORY_MAX = 50               # matches listed on an account's page
STATS_MAX = 5000               # matches counted in an account's stats (its latest)


RATING_START = 1500   # the rating shown for a new player (openskill ordinal 0)
RATING_SCALE = 40     # rating points per unit of openskill ordinal


def shown_rating(ordinal: float) -> int:
    """The rating a person sees: openskill's ordinal (mu - 3 sigma; 0 for a new player) as a
    whole number on the scale players know from chess sites, 1500 for a new player (40 points
    per unit of ordinal). Ranking by it is ranking by the ordinal."""
    return round(RATING_START + RATING_SCALE * ordinal)


def name_key(username: str) -> str:
    """The form two usernames are compared in: NFKC, case folded (``Ann`` = ``ａｎｎ``)."""
    return unicodedata.normalize("NFKC", username).casefold()


def game_of(preset: str) -> str:
    """The game a preset's matches are rated in: its family (``sheng-ji/single-deck`` ->
    ``sheng-ji``), as ``GET /api/presets`` names it."""
    return preset.split("/")[0]


# ----------------------------------------------------------------------------- outcomes
def match_outcome(result: dict, n: int) -> dict:
    """A finished match's teams, their ranks (1 best, ties equal) and who won.

    Sheng ji (and Zhao Pengyou): the result of the last hand names the sides, the match's
    winners rank first (the tournaments' rule: ``tournament.runner.outcome``). Team climbing:
    teams ranked by their match score. Individual climbing and Zheng Fen: each seat ranked by
    its match score (its ``scores``); the winners are the result's ``winners``."""
    winners = set(result.get("winners") or ())
    if "last" in result:
        from shangyou.tournament.runner import outcome
        o = outcome(result, n)
        return {"teams": o["teams"], "ranks": o["ranks"], "won": [s in winners for s in range(n)]}
    scores = list(result.get("scores") or result.get("points") or [0] * n)
    if result.get("teams") and result.get("team_scores"):
        teams = [list(t) for t in result["teams"]]
        ts = list(result["team_scores"])
    else:
        teams = [[s] for s in range(n)]
        ts = scores
    ranks = [1 + sum(x > p for x in ts) for p in ts]
    return {"teams": teams, "ranks": ranks, "won": [s in winners for s in range(n)]}


def _places(outcome: dict, n: int) -> list[int]:
    place = [0] * n
    for team, rank in zip(outcome["teams"], outcome["ranks"]):
        for s in team:
            place[s] = rank
    return place


# ----------------------------------------------------------------------------- accounts
def create_account(store: Store, account_id: str, username: str, password_hash: str) -> bool:
    """A new account; False when its name (folded) is taken."""
    try:
        with store.session() as s, s.begin():
            s.add(AccountRow(id=account_id, username=username, name_key=name_key(username),
                             password_hash=password_hash))
        return True
    except IntegrityError:
        return False


def account_by_name(store: Store, username: str) -> dict | None:
    with store.session() as s:
        a = s.scalar(select(AccountRow).where(AccountRow.name_key == name_key(username)))
        return None if a is None else {"id": a.id, "username": a.username,
                                       "password_hash": a.password_hash}


def account_by_id(store: Store, account_id: str) -> dict | None:
    with store.session() as s:
        a = s.get(AccountRow, account_id)
        return None if a is None else {"id": a.id, "username": a.username,
                                       "password_hash": a.password_hash}


def name_taken(store: Store, name: str) -> bool:
    with store.session() as s:
        return s.scalar(select(AccountRow.id).where(AccountRow.name_key == name_key(name))) \
            is not None


def set_password_hash(store: Store, account_id: str, password_hash: str) -> None:
    """A hash made with newer parameters replaces the stored one (argon2's rehash)."""
    with store.session() as s, s.begin():
        s.execute(update(AccountRow).where(AccountRow.id == account_id)
                  .values(password_hash=password_hash))


def delete_account(store: Store, account_id: str) -> int:
    """Remove the account, its sessions, ratings and seat links, and anonymise its name in the
    matches it played (their ``names`` show :data:`DELETED_NAME`; the match players' rows keep
    the seat's place but no account). How many matches were anonymised."""
    with store.session() as s, s.begin():
        mine = s.execute(select(MatchPlayerRow.match_id, MatchPlayerRow.seat)
                         .where(MatchPlayerRow.account_id == account_id)).all()
        by_match: dict[str, list[int]] = {}
        for match_id, seat in mine:
            by_match.setdefault(match_id, []).append(seat)
        for match_id, seats in by_match.items():
            m = s.get(MatchRow, match_id, with_for_update=True)
            if m is None:
                continue
            names = list(m.names or [])
            for seat in seats:
                if 0 <= seat < len(names):
                    names[seat] = DELETED_NAME
            m.names = names
        s.execute(update(MatchPlayerRow).where(MatchPlayerRow.account_id == account_id)
                  .values(account_id=None))
        for row in (AccountSessionRow, RatingRow, SeatAccountRow, PuzzleRatingRow,
                    PuzzleAttemptRow):
            s.execute(delete(row).where(row.account_id == account_id))
        s.execute(delete(AccountRow).where(AccountRow.id == account_id))
    return len(by_match)


# ----------------------------------------------------------------------------- sessions
def new_session(store: Store, account_id: str, id_hash: str, expires: dt.datetime,
                replaces: str | None = None) -> None:
    """A session for the account; the one the browser held before (``replaces``: its hash)
    ends, whoever's it was, and so do the account's sessions that ran out."""
    with store.session() as s, s.begin():
        if replaces:
            s.execute(delete(AccountSessionRow).where(AccountSessionRow.id_hash == replaces))
        s.execute(delete(AccountSessionRow).where(AccountSessionRow.account_id == account_id,
                                                  AccountSessionRow.expires_at < utcnow()))
        s.add(AccountSessionRow(id_hash=id_hash, account_id=account_id, expires_at=expires))


def session_account(store: Store, id_hash: str) -> dict | None:
    """The account of a live session: ``{"id", "username"}``, or None."""
    with store.session() as s:
        row = s.execute(select(AccountRow.id, AccountRow.username)
                        .join(AccountSessionRow, AccountSessionRow.account_id == AccountRow.id)
                        .where(AccountSessionRow.id_hash == id_hash,
                               AccountSessionRow.expires_at > utcnow())).first()
        return None if row is None else {"id": row[0], "username": row[1]}


def end_session(store: Store, id_hash: str) -> None:
    with store.session() as s, s.begin():
        s.execute(delete(AccountSessionRow).where(AccountSessionRow.id_hash == id_hash))


# ---------------------------------------------------------------------------- the tables
def link_seat(store: Store, table_id: str, token_hash: str, account_id: str) -> None:
    """The seat token ``token_hash`` of the table is the account's."""
    with store.session() as s, s.begin():
        s.execute(delete(SeatAccountRow).where(SeatAccountRow.table_id == table_id,
                                               SeatAccountRow.token_hash == token_hash))
        s.add(SeatAccountRow(table_id=table_id, token_hash=token_hash, account_id=account_id))


def seat_accounts(store: Store, table_id: str, token_hashes: list[str]) -> dict[str, str]:
    """``token hash -> account id`` for those of the table's seat tokens that are accounts'
    (of accounts that still exist)."""
    if not token_hashes:
        return {}
    with store.session() as s:
        return dict(s.execute(
            select(SeatAccountRow.token_hash, SeatAccountRow.account_id)
            .join(AccountRow, AccountRow.id == SeatAccountRow.account_id)
            .where(SeatAccountRow.table_id == table_id,
                   SeatAccountRow.token_hash.in_(token_hashes))).all())


def add_match_players(store: Store, match_id: str, game: str, seats: dict[int, str],
                      rated: bool) -> None:
    """The accounts in a match's seats (``seat -> account id``), before the match starts."""
    with store.session() as s, s.begin():
        for seat, account_id in seats.items():
            s.add(MatchPlayerRow(match_id=match_id, seat=seat, account_id=account_id,
                                 game=game, rated=rated))


# ------------------------------------------------------------------------------- ratings
def unrated_matches(store: Store, limit: int = 100) -> list[str]:
    """Finished rated matches whose ratings are not updated yet (a node stopped between)."""
    with store.session() as s:
        return list(s.scalars(
            select(MatchPlayerRow.match_id).join(MatchRow, MatchRow.id == MatchPlayerRow.match_id)
            .where(MatchPlayerRow.rated.is_(True), MatchPlayerRow.rated_at.is_(None),
                   MatchRow.finished_at.is_not(None))
            .group_by(MatchPlayerRow.match_id).limit(limit)))


def rate_match(store: Store, match_id: str) -> bool:
    """Update the ratings of a finished rated match's accounts, once: False when it is not
    finished, not rated, or rated already. One transaction: the players' rows are locked and
    marked, the ratings read (locked) and written."""
    with store.session() as s, s.begin():
        m = s.get(MatchRow, match_id)
        if m is None or m.finished_at is None or not m.result:
            return False
        rows = s.scalars(select(MatchPlayerRow).where(
            MatchPlayerRow.match_id == match_id, MatchPlayerRow.rated.is_(True),
            MatchPlayerRow.rated_at.is_(None)).with_for_update()).all()
        if not rows:
            return False
        n = m.players
        game = rows[0].game
        o = match_outcome(m.result, n)
        place = _places(o, n)
        by_seat = {r.seat: r for r in rows}
        # a seat without an account (deleted since) plays as a new player, not stored
        labels: list[str] = [str(by_seat[i].account_id) if i in by_seat
                             and by_seat[i].account_id else f"seat{i}" for i in range(n)]
        held = {r.account_id: r for r in s.scalars(
            select(RatingRow).where(RatingRow.game == game,
                                    RatingRow.account_id.in_([a for a in labels if a]))
            .with_for_update())}
        from shangyou.tournament.ratings import rate
        teams = [t for t in o["teams"] if t]
        start = {a: (r.mu, r.sigma) for a, r in held.items()}
        new = rate(labels, [(list(range(n)), teams, o["ranks"])], start=start)
        now = utcnow()
        for seat, r in by_seat.items():
            r.rated_at, r.place, r.won = now, place[seat], bool(o["won"][seat])
            if not r.account_id:
                continue
            old = held.get(r.account_id)
            after = new[r.account_id]
            r.before = old.ordinal if old is not None else None
            r.after = after["ordinal"]
            if old is None:
                old = RatingRow(account_id=r.account_id, game=game, matches=0, wins=0)
                s.add(old)
                held[r.account_id] = old
            old.mu, old.sigma, old.ordinal = after["mu"], after["sigma"], after["ordinal"]
            old.matches = (old.matches or 0) + 1
            old.wins = (old.wins or 0) + int(bool(o["won"][seat]))
            old.updated_at = now
        return True


def leaderboard(store: Store, game: str, limit: int, offset: int) -> dict:
    with store.session() as s:
        total = s.scalar(select(func.count()).select_from(RatingRow)
                         .where(RatingRow.game == game)) or 0
        rows = s.execute(select(AccountRow.username, RatingRow)
                         .join(RatingRow, RatingRow.account_id == AccountRow.id)
                         .where(RatingRow.game == game)
                         .order_by(RatingRow.ordinal.desc(), AccountRow.name_key)
                         .offset(offset).limit(limit)).all()
        return {"game": game, "total": total, "offset": offset, "limit": limit,
                "players": [{"rank": offset + i + 1, "name": name, **_rating(r)}
                            for i, (name, r) in enumerate(rows)]}


def _rating(r: RatingRow) -> dict:
    return {"game": r.game, "rating": shown_rating(r.ordinal), "mu": round(r.mu, 3),
            "sigma": round(r.sigma, 3), "matches": r.matches or 0, "wins": r.wins or 0}


def profile(store: Store, account_id: str) -> dict | None:
    """An account's page: its ratings, its stats per game (finished matches, wins, first
    places) and its latest finished matches."""
    with store.session() as s:
        a = s.get(AccountRow, account_id)
        if a is None:
            return None
        ratings = [_rating(r) for r in s.scalars(
            select(RatingRow).where(RatingRow.account_id == account_id)
            .order_by(RatingRow.game))]
        rows = s.execute(select(MatchPlayerRow, MatchRow)
                         .join(MatchRow, MatchRow.id == MatchPlayerRow.match_id)
                         .where(MatchPlayerRow.account_id == account_id,
                                MatchRow.finished_at.is_not(None))
                         .order_by(MatchRow.finished_at.desc(), MatchRow.id)
                         .limit(STATS_MAX)).all()
        stats: dict[str, dict[str, Any]] = {}
        history: list[dict] = []
        for p, m in rows:
            o = match_outcome(m.result or {}, m.players)
            place = _places(o, m.players)[p.seat] if p.seat < m.players else None
            won = bool(o["won"][p.seat]) if p.seat < m.players else False
            st = stats.setdefault(p.game, {"game": p.game, "matches": 0, "wins": 0,
                                           "first": 0})
            st["matches"] += 1
            st["wins"] += int(won)
            st["first"] += int(place == 1)
            if len(history) < HISTORY_MAX:
                history.append({
                    "match_id": m.id, "game": p.game, "preset": m.game, "seat": p.seat,
                    "players": m.players, "names": list(m.names or []), "place": place,
                    "won": won, "rated": bool(p.rated),
                    "before": (None if p.after is None
                               else shown_rating(0.0 if p.before is None else p.before)),
                    "after": None if p.after is None else shown_rating(p.after),
                    "finished_at": _iso(m.finished_at),
                    "replay": f"/replay/{m.id}",
                    "review": f"/api/matches/{m.id}/review?seat={p.seat}"})
        return {"username": a.username, "created_at": _iso(a.created_at), "ratings": ratings,
                "stats": sorted(stats.values(), key=lambda x: x["game"]), "history": history}


# ------------------------------------------------------------------------------- puzzles
def puzzle_player(store: Store, account_id: str, family: str) -> dict:
    """An account's puzzle rating in a family (a new player's when it has none) and the
    puzzles of the family it has answered already."""
    from shangyou.puzzles.rating import MU, SIGMA
    with store.session() as s:
        r = s.get(PuzzleRatingRow, (account_id, family))
        done = list(s.scalars(select(PuzzleAttemptRow.puzzle_id).where(
            PuzzleAttemptRow.account_id == account_id, PuzzleAttemptRow.family == family)))
        return {"mu": r.mu if r else MU, "sigma": r.sigma if r else SIGMA,
                "attempts": r.attempts if r else 0, "solved": r.solved if r else 0,
                "done": done}


def puzzle_ratings(store: Store, family: str) -> dict[str, tuple[float, float]]:
    """``puzzle id -> (mu, sigma)`` of the family's puzzles tried at least once."""
    with store.session() as s:
        return {r.puzzle_id: (r.mu, r.sigma) for r in s.scalars(
            select(PuzzleStatRow).where(PuzzleStatRow.family == family))}


def rate_puzzle(store: Store, puzzle_id: str, family: str, seed_rating: int, solved: bool,
                account_id: str | None = None,
                guest: tuple[float, float] | None = None) -> dict:
    """One answer rated, in one transaction: the puzzle's rating and counts, and the
    account's (a first answer only: a later one changes nothing) or a guest's (``guest``:
    the rating the browser keeps; nothing of it is stored). What changed."""
    from shangyou.puzzles.rating import MU, SIGMA, puzzle_start, rate
    with store.session() as s, s.begin():
        player_row = None
        if account_id is not None:
            if s.get(PuzzleAttemptRow, (account_id, puzzle_id)) is not None:
                r = s.get(PuzzleRatingRow, (account_id, family))
                return {"rated": False, "player": (r.mu, r.sigma) if r else (MU, SIGMA),
                        "puzzle": None}
            s.add(PuzzleAttemptRow(account_id=account_id, puzzle_id=puzzle_id,
                                   family=family, solved=solved))
            player_row = s.get(PuzzleRatingRow, (account_id, family), with_for_update=True)
            player = (player_row.mu, player_row.sigma) if player_row else (MU, SIGMA)
        else:
            player = guest or (MU, SIGMA)
        q = s.get(PuzzleStatRow, puzzle_id, with_for_update=True)
        puzzle = (q.mu, q.sigma) if q else puzzle_start(seed_rating)
        new_player, new_puzzle = rate(player, puzzle, solved)
        now = utcnow()
        if q is None:
            q = PuzzleStatRow(puzzle_id=puzzle_id, family=family, attempts=0, solved=0)
            s.add(q)
        q.mu, q.sigma = new_puzzle
        q.attempts = (q.attempts or 0) + 1
        q.solved = (q.solved or 0) + int(solved)
        q.updated_at = now
        if account_id is not None:
            if player_row is None:
                player_row = PuzzleRatingRow(account_id=account_id, family=family,
                                             attempts=0, solved=0)
                s.add(player_row)
            player_row.mu, player_row.sigma = new_player
            player_row.ordinal = new_player[0] - 3 * new_player[1]
            player_row.attempts = (player_row.attempts or 0) + 1
            player_row.solved = (player_row.solved or 0) + int(solved)
            player_row.updated_at = now
        return {"rated": True, "player_before": player, "player": new_player,
                "puzzle": new_puzzle}
