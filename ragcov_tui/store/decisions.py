"""The triage log: every keep / drop / accept / reject / edit / undo, recorded at once.

A decision row carries who and when, the test file it touched and the file's sha256 before and
after (with the backup the writer kept), so an undo can restore the exact bytes and a later write
can tell whether someone changed the file behind our back. Rejected suggestion texts are
remembered per test file in ``rejected_suggestions`` (keyed by the writer's ``text_key``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import sqlite_utils

from ragcov_tui.store.sessions import current_user, now_iso

ACTIONS = ("keep", "drop", "accept", "reject", "edit", "undo")


@dataclass
class Decision:
    """One row of ``decisions`` with ``payload`` decoded."""

    id: int
    session_id: str | None
    kind: str
    target: str
    action: str
    at: str
    user: str | None = None
    payload: dict[str, Any] = field(default_factory=dict)
    testset_path: str | None = None
    sha_before: str | None = None
    sha_after: str | None = None
    backup_path: str | None = None
    undone: bool = False

    @property
    def wrote_file(self) -> bool:
        """True when this decision changed the test file (so undoing it restores a backup)."""
        return self.backup_path is not None


def _from_row(row: dict[str, Any]) -> Decision:
    return Decision(
        id=row["id"], session_id=row["session_id"], kind=row["kind"], target=row["target"], action=row["action"],
        at=row["at"], user=row["user"], payload=json.loads(row["payload"]) if row["payload"] else {},
        testset_path=row["testset_path"], sha_before=row["sha_before"], sha_after=row["sha_after"],
        backup_path=row["backup_path"], undone=bool(row["undone"]),
    )


def record_decision(
    db: sqlite_utils.Database,
    *,
    session_id: str | None,
    kind: str,
    target: str,
    action: str,
    payload: dict[str, Any] | None = None,
    testset_path: str | None = None,
    sha_before: str | None = None,
    sha_after: str | None = None,
    backup_path: str | None = None,
) -> Decision:
    """Insert one decision stamped with the current UTC time and ``$USER``; returns it."""
    if action not in ACTIONS:
        raise ValueError(f"unknown triage action {action!r}")
    row = {
        "session_id": session_id, "kind": kind, "target": str(target), "action": action,
        "payload": json.dumps(payload, sort_keys=True) if payload else None, "testset_path": testset_path,
        "sha_before": sha_before, "sha_after": sha_after, "backup_path": backup_path, "undone": 0,
        "user": current_user(), "at": now_iso(),
    }
    with db.conn:
        row_id = db["decisions"].insert(row).last_pk
    return get_decision(db, int(row_id))


def get_decision(db: sqlite_utils.Database, decision_id: int) -> Decision:
    return _from_row(next(db.query("SELECT * FROM decisions WHERE id = ?", [decision_id])))


def list_decisions(db: sqlite_utils.Database, session_id: str) -> list[Decision]:
    """Every decision of a session, oldest first."""
    return [_from_row(r) for r in db.query("SELECT * FROM decisions WHERE session_id = ? ORDER BY id", [session_id])]


def last_undoable(db: sqlite_utils.Database, session_id: str) -> Decision | None:
    """The newest decision of the session that is not an undo and was not undone yet."""
    rows = list(db.query("SELECT * FROM decisions WHERE session_id = ? AND action != 'undo' AND undone = 0 "
                         "ORDER BY id DESC LIMIT 1", [session_id]))
    return _from_row(rows[0]) if rows else None


def mark_undone(db: sqlite_utils.Database, decision_id: int) -> None:
    with db.conn:
        db.execute("UPDATE decisions SET undone = 1 WHERE id = ?", [decision_id])


def question_marks(db: sqlite_utils.Database, session_id: str) -> dict[str, str]:
    """Question id → its standing triage action (``keep`` / ``drop``), undone decisions ignored."""
    rows = db.execute("SELECT target, action FROM decisions WHERE session_id = ? AND kind = 'question' AND undone = 0 "
                      "AND action IN ('keep', 'drop') ORDER BY id", [session_id]).fetchall()
    return dict(rows)


def latest_known_sha(db: sqlite_utils.Database, testset_path: str) -> str | None:
    """The sha256 the test file should have now: the newest of (a session reading it, a decision writing it).

    A decision and a session stamped in the same second count the decision as newer.
    """
    written = db.execute("SELECT sha_after, at FROM decisions WHERE testset_path = ? AND sha_after IS NOT NULL "
                         "ORDER BY id DESC LIMIT 1", [testset_path]).fetchone()
    read = db.execute("SELECT testset_sha256, created_at FROM sessions WHERE questions_path = ? AND testset_sha256 IS NOT NULL "
                      "ORDER BY created_at DESC, rowid DESC LIMIT 1", [testset_path]).fetchone()
    if written and (not read or written[1] >= read[1]):
        return written[0]
    return read[0] if read else None


def remember_rejected(db: sqlite_utils.Database, testset_path: str, key: str) -> None:
    with db.conn:
        db.execute("INSERT OR REPLACE INTO rejected_suggestions (testset_path, text_key, at) VALUES (?, ?, ?)",
                   [testset_path, key, now_iso()])


def forget_rejected(db: sqlite_utils.Database, testset_path: str, key: str) -> None:
    with db.conn:
        db.execute("DELETE FROM rejected_suggestions WHERE testset_path = ? AND text_key = ?", [testset_path, key])


def rejected_keys(db: sqlite_utils.Database, testset_path: str) -> set[str]:
    """Normalised texts of every suggestion rejected for this test file."""
    return {k for (k,) in db.execute("SELECT text_key FROM rejected_suggestions WHERE testset_path = ?", [testset_path])}
