"""Storing an analysis's traffic coverage and reading it back (schema version 4).

``traffic_reports.report`` holds the report's ``traffic`` section without its per-query list; the
distinct queries live in ``traffic_queries`` (one row each, most asked first), so the app pages
them in SQL. :func:`load_traffic` reassembles exactly ``TrafficResult.to_report()``.
"""

from __future__ import annotations

import json

import sqlite_utils

from ragcov_tui.shared.json_types import JsonObject
from ragcov_tui.store.queries import Page
from ragcov_tui.store.traffic_contract import TrafficSection

COLUMNS = (
    "text",
    "count",
    "cluster",
    "answerable",
    "nearest_question",
    "question_similarity",
    "nearest_chunk",
    "chunk_similarity",
    "first_seen",
    "last_seen",
    "x",
    "y",
)


def save_traffic(db: sqlite_utils.Database, session_id: str, section: TrafficSection) -> None:
    """Write the ``traffic`` section of a report (with its ``details``) in one transaction."""
    summary = {k: v for k, v in section.items() if k != "details"}
    marks = ", ".join("?" for _ in range(len(COLUMNS) + 2))
    with db.conn:
        db.conn.execute(
            "INSERT OR REPLACE INTO traffic_reports (session_id, report) VALUES (?, ?)",
            [session_id, json.dumps(summary)],
        )
        db.conn.execute("DELETE FROM traffic_queries WHERE session_id = ?", [session_id])
        db.conn.executemany(
            f"INSERT INTO traffic_queries (session_id, seq, {', '.join(COLUMNS)}) VALUES ({marks})",
            (
                (
                    session_id,
                    i,
                    d["text"],
                    d["count"],
                    d["cluster"],
                    int(d["answerable"]),
                    d["nearest_question"],
                    d["question_similarity"],
                    d["nearest_chunk"],
                    d["chunk_similarity"],
                    d["first_seen"],
                    d["last_seen"],
                    d["x"],
                    d["y"],
                )
                for i, d in enumerate(section.get("details", []))
            ),
        )


def load_traffic(db: sqlite_utils.Database, session_id: str, *, details: bool = True) -> TrafficSection | None:
    """The stored ``traffic`` section (None when the analysis was run without ``--traffic``)."""
    row = db.conn.execute("SELECT report FROM traffic_reports WHERE session_id = ?", [session_id]).fetchone()
    if row is None:
        return None
    section: TrafficSection = json.loads(row[0])
    if details:
        cur = db.conn.execute(
            f"SELECT {', '.join(COLUMNS)} FROM traffic_queries WHERE session_id = ? ORDER BY seq", [session_id]
        )
        section["details"] = [
            {
                "text": text,
                "count": count,
                "cluster": cluster,
                "answerable": bool(answerable),
                "nearest_question": nq,
                "question_similarity": qsim,
                "nearest_chunk": nc,
                "chunk_similarity": csim,
                "first_seen": first,
                "last_seen": last,
                "x": x,
                "y": y,
            }
            for text, count, cluster, answerable, nq, qsim, nc, csim, first, last, x, y in cur
        ]
    return section


def traffic_queries(
    db: sqlite_utils.Database,
    sid: str,
    *,
    cluster: int | None = None,
    answerable: bool | None = None,
    offset: int = 0,
    limit: int = 100,
) -> Page[JsonObject]:
    """One page of distinct queries, most asked first: of one traffic ``cluster`` and / or only the
    answerable (True) or unanswerable (False) ones."""
    where = "session_id = ?"
    args: list[str | int] = [sid]
    if cluster is not None:
        where, args = where + " AND cluster = ?", args + [cluster]
    if answerable is not None:
        where, args = where + " AND answerable = ?", args + [int(answerable)]
    total = db.execute(f"SELECT count(*) FROM traffic_queries WHERE {where}", args).fetchone()[0]
    rows = db.query(
        f"SELECT seq, {', '.join(COLUMNS)} FROM traffic_queries WHERE {where} "
        "ORDER BY count DESC, seq LIMIT ? OFFSET ?",
        args + [limit, offset],
    )
    return Page([r | {"answerable": bool(r["answerable"])} for r in rows], total, offset)


def traffic_points(db: sqlite_utils.Database, sid: str, limit: int = 500) -> list[tuple[float, float]]:
    """Map positions of the ``limit`` most asked answerable queries (unanswerable ones sit on no content)."""
    return [
        tuple(r)
        for r in db.execute(
            "SELECT x, y FROM traffic_queries WHERE session_id = ? AND answerable = 1 AND x IS NOT NULL "
            "ORDER BY seq LIMIT ?",
            [sid, limit],
        )
    ]


def has_traffic(db: sqlite_utils.Database, sid: str) -> bool:
    """Whether the analysis ``sid`` was run with ``--traffic``."""
    return db.execute("SELECT 1 FROM traffic_reports WHERE session_id = ?", [sid]).fetchone() is not None
