"""Content hashes (stale gold) and lint findings in the session store.

``content_hashes`` holds, per session, the sha256 of each document's and chunk's text
(``testlint.stale.content_hashes``); :func:`baseline_hashes` finds the session a new run compares
with: the one named, or the newest finished analysis or eval of the same test file (by its
absolute path) that stored hashes. ``lint_findings`` holds an analysis's findings, one row each,
so the app filters them in SQL; the section itself (summaries, baseline) rides in the stored report.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

import sqlite_utils

from ragcov_tui.shared.json_types import JsonObject
from ragcov_tui.store.lint_contract import LintFinding, LintSection, StaleBaseline

HashKey = tuple[str, str]


def save_content_hashes(db: sqlite_utils.Database, session_id: str, hashes: Mapping[HashKey, str]) -> None:
    with db.conn:
        db.conn.executemany(
            "INSERT OR REPLACE INTO content_hashes (session_id, kind, item_id, sha256) VALUES (?, ?, ?, ?)",
            ((session_id, kind, item, sha) for (kind, item), sha in hashes.items()),
        )


def load_content_hashes(db: sqlite_utils.Database, session_id: str) -> dict[HashKey, str]:
    cur = db.conn.execute("SELECT kind, item_id, sha256 FROM content_hashes WHERE session_id = ?", [session_id])
    return {(kind, item): sha for kind, item, sha in cur}


def baseline_session(
    db: sqlite_utils.Database, questions_path: str, exclude: str | None = None
) -> StaleBaseline | None:
    """The newest finished session of this test file with content hashes (not ``exclude``), as a
    baseline without its document lists (filled in by the comparison); None when there is none."""
    row = db.conn.execute(
        "SELECT id, created_at FROM sessions s WHERE questions_path = ? AND status = 'done' AND id IS NOT ?"
        " AND EXISTS (SELECT 1 FROM content_hashes h WHERE h.session_id = s.id)"
        " ORDER BY created_at DESC, rowid DESC LIMIT 1",
        [questions_path, exclude],
    ).fetchone()
    return None if row is None else as_baseline(row[0], row[1])


def has_content_hashes(db: sqlite_utils.Database, session_id: str) -> bool:
    return (
        db.conn.execute("SELECT 1 FROM content_hashes WHERE session_id = ? LIMIT 1", [session_id]).fetchone()
        is not None
    )


def as_baseline(session_id: str, created_at: str | None) -> StaleBaseline:
    return {"session_id": session_id, "created_at": created_at, "changed_documents": [], "missing_documents": []}


def save_lint_findings(db: sqlite_utils.Database, session_id: str, findings: Sequence[LintFinding]) -> None:
    with db.conn:
        db.conn.execute("DELETE FROM lint_findings WHERE session_id = ?", [session_id])
        db.conn.executemany(
            "INSERT INTO lint_findings (session_id, seq, question_id, kind, reason, evidence) VALUES (?, ?, ?, ?, ?, ?)",
            (
                (session_id, i, f["question_id"], f["kind"], f["reason"], json.dumps(f["evidence"], default=str))
                for i, f in enumerate(findings)
            ),
        )


def save_lint(db: sqlite_utils.Database, session_id: str, section: LintSection) -> None:
    """The section without its findings into the stored report, the findings into ``lint_findings``."""
    summary = {k: v for k, v in section.items() if k != "findings"}
    with db.conn:
        db.conn.execute(
            "UPDATE reports SET report = json_set(report, '$.lint', json(?)) WHERE session_id = ?",
            [json.dumps(summary), session_id],
        )
    save_lint_findings(db, session_id, section["findings"])


def lint_findings(db: sqlite_utils.Database, session_id: str, kind: str | None = None) -> list[LintFinding]:
    """A session's findings in report order (of one kind when given)."""
    sql = "SELECT question_id, kind, reason, evidence FROM lint_findings WHERE session_id = ?"
    args: list[str] = [session_id]
    if kind is not None:
        sql += " AND kind = ?"
        args.append(kind)
    rows = db.conn.execute(sql + " ORDER BY seq", args).fetchall()
    return [{"question_id": q, "kind": k, "reason": r, "evidence": _object(e)} for q, k, r, e in rows]


def _object(text: str) -> JsonObject:
    try:
        value = json.loads(text)
    except (TypeError, ValueError, RecursionError):
        return {}
    return value if isinstance(value, dict) else {}
