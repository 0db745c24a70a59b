"""The triage log: every keep / drop / accept / reject / edit / undo, recorded at once.

A decision row carries who and when, the test file it touched and the file's sha256 before and
after (with the backup the writer kept), so an undo can restore the exact bytes. Rejected
suggestion texts are remembered per test file in ``rejected_suggestions`` (keyed by the writer's
``text_key``).

A decision that writes the file is recorded first as ``pending`` (write-ahead: digests, backup and
the row in its payload) and becomes ``applied`` once the file is replaced; a crash in between
leaves it ``pending`` until :func:`ragcov_tui.services.writeback.reconcile` looks at the file and
settles it ``applied`` or ``abandoned``. Only ``applied`` decisions count (undo, marks).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import sqlite_utils

from ragcov_tui.shared.json_types import JsonObject
from ragcov_tui.store.db import insert_row
from ragcov_tui.store.sessions import current_user, now_iso

ACTIONS = ("keep", "drop", "accept", "reject", "edit", "undo")
STATES = ("pending", "applied", "abandoned")


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
    payload: JsonObject = field(default_factory=dict)
    testset_path: str | None = None
    sha_before: str | None = None
    sha_after: str | None = None
    backup_path: str | None = None
    undone: bool = False
    state: str = "applied"
    note: str | None = None  # not stored: a one-line remark from the write (owner not kept…)

    @property
    def wrote_file(self) -> bool:
        """True when this decision changed the test file (so undoing it restores a backup)."""
        return self.backup_path is not None


def _from_row(row: dict[str, Any]) -> Decision:
    return Decision(
        id=row["id"],
        session_id=row["session_id"],
        kind=row["kind"],
        target=row["target"],
        action=row["action"],
        at=row["at"],
        user=row["user"],
        payload=json.loads(row["payload"]) if row["payload"] else {},
        testset_path=row["testset_path"],
        sha_before=row["sha_before"],
        sha_after=row["sha_after"],
        backup_path=row["backup_path"],
        undone=bool(row["undone"]),
        state=row["state"],
    )


def record_decision(
    db: sqlite_utils.Database,
    *,
    session_id: str | None,
    kind: str,
    target: str,
    action: str,
    payload: JsonObject | None = None,
    testset_path: str | None = None,
    sha_before: str | None = None,
    sha_after: str | None = None,
    backup_path: str | None = None,
    state: str = "applied",
) -> Decision:
    """Insert one decision stamped with the current UTC time and ``$USER``; returns it."""
    if action not in ACTIONS or state not in STATES:
        raise ValueError(f"unknown triage action {action!r} or state {state!r}")
    row = {
        "session_id": session_id,
        "kind": kind,
        "target": str(target),
        "action": action,
        "payload": json.dumps(payload, sort_keys=True) if payload else None,
        "testset_path": testset_path,
        "sha_before": sha_before,
        "sha_after": sha_after,
        "backup_path": backup_path,
        "undone": 0,
        "state": state,
        "user": current_user(),
        "at": now_iso(),
    }
    with db.conn:
        row_id = insert_row(db, "decisions", row)
    return get_decision(db, row_id)


def get_decision(db: sqlite_utils.Database, decision_id: int) -> Decision:
    return _from_row(next(db.query("SELECT * FROM decisions WHERE id = ?", [decision_id])))


def list_decisions(db: sqlite_utils.Database, session_id: str) -> list[Decision]:
    """Every decision of a session, oldest first."""
    return [_from_row(r) for r in db.query("SELECT * FROM decisions WHERE session_id = ? ORDER BY id", [session_id])]


def last_undoable(db: sqlite_utils.Database, session_id: str) -> Decision | None:
    """The newest applied decision of the session that is not an undo and was not undone yet."""
    rows = list(
        db.query(
            "SELECT * FROM decisions WHERE session_id = ? AND action != 'undo' AND undone = 0 "
            "AND state = 'applied' ORDER BY id DESC LIMIT 1",
            [session_id],
        )
    )
    return _from_row(rows[0]) if rows else None


def pending_decisions(db: sqlite_utils.Database, testset_path: str) -> list[Decision]:
    """Write-ahead decisions on this test file that were never settled, oldest first."""
    return [
        _from_row(r)
        for r in db.query(
            "SELECT * FROM decisions WHERE testset_path = ? AND state = 'pending' ORDER BY id", [testset_path]
        )
    ]


def set_state(db: sqlite_utils.Database, decision_id: int, state: str) -> None:
    if state not in STATES:
        raise ValueError(f"unknown decision state {state!r}")
    with db.conn:
        db.execute("UPDATE decisions SET state = ? WHERE id = ?", [state, decision_id])


def mark_applied(db: sqlite_utils.Database, decision_id: int) -> None:
    """A pending decision reached the file (inside the caller's transaction, with its effects)."""
    db.execute("UPDATE decisions SET state = 'applied' WHERE id = ?", [decision_id])


def mark_undone(db: sqlite_utils.Database, decision_id: int) -> None:
    """An undo reached the file: the decision it undid stands no more (inside the caller's transaction)."""
    db.execute("UPDATE decisions SET undone = 1 WHERE id = ?", [decision_id])


def discard_decision(db: sqlite_utils.Database, decision_id: int) -> None:
    """Forget a pending decision whose write was refused before it reached the file."""
    with db.conn:
        db.execute("DELETE FROM decisions WHERE id = ? AND state = 'pending'", [decision_id])


def question_marks(db: sqlite_utils.Database, session_id: str) -> dict[str, str]:
    """Question id → its standing triage action (``keep`` / ``drop``), undone decisions ignored."""
    rows = db.execute(
        "SELECT target, action FROM decisions WHERE session_id = ? AND kind = 'question' AND undone = 0 "
        "AND state = 'applied' AND action IN ('keep', 'drop') ORDER BY id",
        [session_id],
    ).fetchall()
    return dict(rows)


def edited_suggestions(db: sqlite_utils.Database, session_id: str) -> dict[int, str]:
    """Suggestion id → the text written for it, for every suggestion accepted in an edited form (a
    standing, applied ``edit`` decision; the suggestion row keeps the text as suggested)."""
    rows = db.execute(
        "SELECT target, payload FROM decisions WHERE session_id = ? AND kind = 'suggestion' "
        "AND action = 'edit' AND undone = 0 AND state = 'applied' ORDER BY id",
        [session_id],
    ).fetchall()
    return {
        int(target): str(data["text"])
        for target, payload in rows
        if "text" in (data := json.loads(payload) if payload else {})
    }


def remember_rejected(db: sqlite_utils.Database, testset_path: str, key: str) -> None:
    with db.conn:
        db.execute(
            "INSERT OR REPLACE INTO rejected_suggestions (testset_path, text_key, at) VALUES (?, ?, ?)",
            [testset_path, key, now_iso()],
        )


def forget_rejected(db: sqlite_utils.Database, testset_path: str, key: str) -> None:
    """Inside the caller's transaction (an undo of a reject)."""
    db.execute("DELETE FROM rejected_suggestions WHERE testset_path = ? AND text_key = ?", [testset_path, key])


def rejected_keys(db: sqlite_utils.Database, testset_path: str) -> set[str]:
    """Normalised texts of every suggestion rejected for this test file."""
    return {
        k for (k,) in db.execute("SELECT text_key FROM rejected_suggestions WHERE testset_path = ?", [testset_path])
    }
