"""The suggestions of a session's gaps and the stored rows they are drawn from: every statement on
``suggestions`` after the analysis saved them, and the reads a new suggestion checks against.

A suggestion row: ``id``, ``session_id``, ``cluster`` (its gap), ``text``, ``origin`` (``heuristic`` /
``llm`` / …), ``status`` (``open`` / ``accepted`` / ``rejected``), ``question_id`` (the row an accept
wrote), ``decided_at``, ``user``, ``chunk_id`` and ``form`` (its source chunk and question form, or NULL).
Writes happen inside the caller's transaction unless said otherwise.
"""

from __future__ import annotations

import json
from typing import Any

import sqlite_utils

from ragcov_tui.shared.json_types import JsonObject
from ragcov_tui.store.db import insert_row
from ragcov_tui.store.sessions import current_user, now_iso


def suggestion_row(db: sqlite_utils.Database, sid: str, suggestion_id: int) -> dict[str, Any] | None:
    """The suggestion ``suggestion_id`` of session ``sid``, or None when the session has no such one."""
    rows = list(db.query("SELECT * FROM suggestions WHERE id = ? AND session_id = ?", [suggestion_id, sid]))
    return rows[0] if rows else None


def gap_suggestion_texts(db: sqlite_utils.Database, sid: str, cluster: int) -> list[str]:
    """The texts suggested so far for the gap ``cluster`` (any status), oldest first."""
    return [
        t
        for (t,) in db.execute(
            "SELECT text FROM suggestions WHERE session_id = ? AND cluster = ? ORDER BY id", [sid, cluster]
        )
    ]


def add_suggestion(
    db: sqlite_utils.Database, sid: str, cluster: int, text: str, origin: str, chunk_id: str | None, form: str | None
) -> int:
    """Store one open suggestion for the gap ``cluster`` in its own transaction; returns its id."""
    with db.conn:
        return insert_row(
            db,
            "suggestions",
            {"session_id": sid, "cluster": cluster, "text": text, "origin": origin, "chunk_id": chunk_id, "form": form},
        )


def set_suggestion_status(db: sqlite_utils.Database, suggestion_id: int, status: str, question_id: str | None) -> None:
    """Mark a suggestion ``status`` (who and when, unless reopened) and the question it became."""
    decided = (now_iso(), current_user()) if status != "open" else (None, None)
    db.execute(
        "UPDATE suggestions SET status = ?, question_id = ?, decided_at = ?, user = ? WHERE id = ?",
        [status, question_id, *decided, suggestion_id],
    )


def least_covered_chunks(db: sqlite_utils.Database, sid: str, cluster: int, limit: int) -> list[tuple[str, str]]:
    """``cluster``'s (chunk id, text), least covered (largest distance to any question) first, at
    most ``limit`` — one ordered query, never the whole session in Python."""
    return [
        (str(cid), text)
        for cid, text in db.execute(
            "SELECT r.chunk_id, c.text FROM chunk_results r JOIN chunks c ON c.session_id = r.session_id "
            "AND c.chunk_id = r.chunk_id WHERE r.session_id = ? AND r.cluster = ? "
            "ORDER BY r.mindist IS NULL, r.mindist DESC, r.seq LIMIT ?",
            [sid, cluster, limit],
        )
    ]


def session_question_texts(db: sqlite_utils.Database, sid: str) -> list[str]:
    """The texts of the test questions the session's analysis read, in file order."""
    return [t for (t,) in db.execute("SELECT text FROM questions WHERE session_id = ? ORDER BY seq", [sid])]


def session_question_raws(db: sqlite_utils.Database, sid: str) -> list[JsonObject | None]:
    """Each test question's row as the analysis read it, in file order (None where none was kept)."""
    return [
        json.loads(raw) if raw else None
        for (raw,) in db.execute("SELECT raw FROM questions WHERE session_id = ? ORDER BY seq", [sid])
    ]


def session_question_raw(db: sqlite_utils.Database, sid: str, question_id: str) -> JsonObject | None:
    """The question's row as the session's analysis read it (None when not stored)."""
    found = db.execute(
        "SELECT raw FROM questions WHERE session_id = ? AND question_id = ?", [sid, question_id]
    ).fetchone()
    return json.loads(found[0]) if found and found[0] else None
