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

from sqlalchemy import create_engine, text


def check(db_url: str, tables: list) -> dict:
    """The comparison for ``tables`` (bench/load_table.Table, after the drain)."""
    matches = sorted({m for t in tables for m in t.matches})
    ids = sorted({t.table_id for t in tables if t.table_id})
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
        for s in t.sent:
            out["moves_checked"] += 1
            row = stored.get((s.match_id, s.idx))
            mine = row is not None and row[0] == 0 and row[1] == s.text and row[2] is None
            if s.answered is not None:
                if mine:
                    out["answered_and_stored"] += 1
                else:
                    out["lost"] += 1
                    if len(examples) < 5:
                        examples.append({"table": t.table_id, "match": s.match_id,
                                                "idx": s.idx, "sent": s.text,
                                                "stored": list(row) if row else None})
            elif mine:
                out["stored_unanswered"] += 1
            else:
                out["unanswered_not_stored"] += 1
        for m, seen in t.matches.items():
            if counts.get(m, 0) < seen:
                out["logs_shorter_than_seen"] += 1
        if t.table_id and t.last_version > versions.get(t.table_id, -1):
            out["tables_behind_seen_version"] += 1
    return {**out, "examples": examples}
