"""People's verdicts on judged metrics: one ``labels`` row per (session, question, metric).

A label is 1 (yes: the answer deserves a pass on that metric) or 0 (no). The app sets one from
Results (:func:`set_label`, logged in ``label_changes`` so :func:`undo_label` restores the one
before); ``ragcov labels import`` writes a file's worth at once (:func:`import_labels`, one
transaction, all or nothing). The judge is aligned against them by
:mod:`ragcov_tui.evaluation.alignment`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import sqlite_utils

from ragcov_tui.store.db import connection_lock
from ragcov_tui.store.sessions import current_user, now_iso


@dataclass(frozen=True)
class Label:
    question_id: str
    metric: str
    label: int  # 1 yes, 0 no


@dataclass(frozen=True)
class LabelChange:
    """One change the app made: ``before`` → ``after`` (None: no label)."""

    question_id: str
    metric: str
    before: int | None
    after: int | None


def session_labels(db: sqlite_utils.Database, sid: str) -> list[Label]:
    """Every label of the session, by metric then question id."""
    return [
        Label(q, m, int(v))
        for q, m, v in db.execute(
            "SELECT question_id, metric, label FROM labels WHERE session_id = ? ORDER BY metric, question_id", [sid]
        )
    ]


def item_labels(db: sqlite_utils.Database, sid: str, question_id: str) -> dict[str, int]:
    """``{metric: label}`` of one item."""
    return {
        m: int(v)
        for m, v in db.execute(
            "SELECT metric, label FROM labels WHERE session_id = ? AND question_id = ? ORDER BY metric",
            [sid, question_id],
        )
    }


def has_labels(db: sqlite_utils.Database, sid: str) -> bool:
    return db.execute("SELECT 1 FROM labels WHERE session_id = ? LIMIT 1", [sid]).fetchone() is not None


def _write(db: sqlite_utils.Database, sid: str, question_id: str, metric: str, label: int | None, source: str) -> None:
    if label is None:
        db.execute(
            "DELETE FROM labels WHERE session_id = ? AND question_id = ? AND metric = ?", [sid, question_id, metric]
        )
    else:
        db.execute(
            "INSERT OR REPLACE INTO labels (session_id, question_id, metric, label, source, user, at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            [sid, question_id, metric, label, source, current_user(), now_iso()],
        )


def set_label(db: sqlite_utils.Database, sid: str, question_id: str, metric: str, label: int | None) -> LabelChange:
    """Set (``label`` 0 / 1) or clear (None) one label from the app, logged for :func:`undo_label`."""
    with connection_lock(db), db.conn:
        before = item_labels(db, sid, question_id).get(metric)
        _write(db, sid, question_id, metric, label, "app")
        db.execute(
            "INSERT INTO label_changes (session_id, question_id, metric, before, after, at) VALUES (?, ?, ?, ?, ?, ?)",
            [sid, question_id, metric, before, label, now_iso()],
        )
    return LabelChange(question_id, metric, before, label)


def undo_label(db: sqlite_utils.Database, sid: str) -> LabelChange | None:
    """Undo the session's newest label change not undone yet (the label goes back to what it was);
    None when there is none. Returns the change as undone (``before`` is what it was set to)."""
    with connection_lock(db), db.conn:
        row = db.execute(
            "SELECT id, question_id, metric, before, after FROM label_changes WHERE session_id = ? "
            "AND undone = 0 ORDER BY id DESC LIMIT 1",
            [sid],
        ).fetchone()
        if row is None:
            return None
        change_id, question_id, metric, before, after = row
        _write(db, sid, question_id, metric, before, "app")
        db.execute("UPDATE label_changes SET undone = 1 WHERE id = ?", [change_id])
    return LabelChange(question_id, metric, after, before)


def import_labels(db: sqlite_utils.Database, sid: str, labels: Iterable[Label], source: str) -> int:
    """Write every label in one transaction (an existing label of the same item and metric is
    replaced); returns how many."""
    rows = list(labels)
    with connection_lock(db), db.conn:
        for row in rows:
            _write(db, sid, row.question_id, row.metric, row.label, source)
    return len(rows)
