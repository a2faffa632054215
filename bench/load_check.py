"""bench/load_server.py's check of the moves against the database, once the run is over.

What the load script's client saw is compared with what the server stored (the ``moves`` and
``tables`` rows; SQLite or PostgreSQL through SQLAlchemy, read only):

- every move the player's socket sent and saw answered on every open socket must be stored at
  its place in its match's log (same match, same index, seat 0, same text, played by the
  player itself): one that is not is **lost**;
- a move sent and never answered is either stored all the same (the answer did not reach the
  client: ``stored_unanswered``), or refused with an error the client got, or not stored
  (``unanswered_not_stored``);
- every match's stored log is at least as long as the longest one the player was shown
  (``logs_shorter_than_seen``: moves the clients saw that the database lacks), and every
  table's stored version at least the newest the player saw.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import create_engine, text


@dataclass(frozen=True)
class Seen:
    """What the client of one table had seen when the check began."""
    table_id: str
    matches: dict          # match id -> the most moves the player was shown
    last_version: int
    sent: tuple            # (match id, idx, text, answered) of each move sent


def seen(tables: list) -> list[Seen]:
    """A copy of what the clients saw (taken in their event loop, before the database is read:
    the sockets keep receiving the bots' moves meanwhile, and those are stored before they are
    sent, so the database read afterwards holds at least what this copy says)."""
    return [Seen(t.table_id, dict(t.matches), t.last_version,
                 tuple((s.match_id, s.idx, s.text, s.answered is not None) for s in t.sent))
            for t in tables if t.table_id]


def check(db_url: str, tables: list[Seen]) -> dict:
    """The comparison for ``tables`` (:func:`seen` once the drain is over)."""
    matches = sorted({m for t in tables for m in t.matches})
    ids = sorted({t.table_id for t in tables})
    stored: dict[tuple[str, int], tuple[int, str, str | None]] = {}
    counts: dict[str, int] = {}
    versions: dict[str, int] = {}
    engine = create_engine(db_url)
    try:
        with engine.connect() as c:
            for i in range(0, len(matches), 500):
                chunk = matches[i:i + 500]
                q = text("SELECT match_id, idx, seat, text, actor FROM moves "
                         "WHERE match_id IN (" + ",".join(f":m{k}" for k in range(len(chunk)))
                         + ")")
                for r in c.execute(q, {f"m{k}": m for k, m in enumerate(chunk)}):
                    stored[(str(r[0]), int(r[1]))] = (int(r[2]), str(r[3]), r[4])
                    counts[str(r[0])] = counts.get(str(r[0]), 0) + 1
            for i in range(0, len(ids), 500):
                chunk = ids[i:i + 500]
                q = text("SELECT id, version FROM tables WHERE id IN ("
                         + ",".join(f":t{k}" for k in range(len(chunk))) + ")")
                for r in c.execute(q, {f"t{k}": t for k, t in enumerate(chunk)}):
                    versions[str(r[0])] = int(r[1])
    finally:
        engine.dispose()
    out = {"moves_checked": 0, "answered_and_stored": 0, "lost": 0, "stored_unanswered": 0,
           "unanswered_not_stored": 0, "logs_shorter_than_seen": 0,
           "tables_behind_seen_version": 0, "moves_stored_in_matches_seen": len(stored)}
    examples: list[dict] = []
    for t in tables:
        for match_id, idx, mv, answered in t.sent:
            out["moves_checked"] += 1
            row = stored.get((match_id, idx))
            mine = row is not None and row[0] == 0 and row[1] == mv and row[2] is None
            if answered:
                if mine:
                    out["answered_and_stored"] += 1
                else:
                    out["lost"] += 1
                    if len(examples) < 5:
                        examples.append({"table": t.table_id, "match": match_id,
                                                "idx": idx, "sent": mv,
                                                "stored": list(row) if row else None})
            elif mine:
                out["stored_unanswered"] += 1
            else:
                out["unanswered_not_stored"] += 1
        for m, seen in t.matches.items():
            if counts.get(m, 0) < seen:
                out["logs_shorter_than_seen"] += 1
                if len(examples) < 10:
                    examples.append({"table": t.table_id, "match": m, "seen": seen,
                                     "stored": counts.get(m, 0), "idx": sorted(
                                         i for (mm, i) in stored if mm == m)[-3:]})
        if t.last_version > versions.get(t.table_id, -1):
            out["tables_behind_seen_version"] += 1
    return {**out, "examples": examples}
