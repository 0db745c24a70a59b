"""What each session last saw of its test file: the digest of its bytes and a print of each row.

Written after every triage write and every reload, so the next reload can say what changed on
disk since (see :mod:`ragcov_tui.testset.changes` for the row prints). A session with no row here
last saw the file as its analysis read it (``sessions.testset_sha256`` and its ``questions``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import sqlite_utils

from ragcov_tui.store.sessions import now_iso


@dataclass(frozen=True)
class View:
    sha256: str
    rows: list[tuple[str | None, str]]


def get_view(db: sqlite_utils.Database, session_id: str) -> View | None:
    row = db.execute("SELECT sha256, rows FROM testset_views WHERE session_id = ?", [session_id]).fetchone()
    return View(row[0], [tuple(r) for r in json.loads(row[1])]) if row else None


def save_view(
    db: sqlite_utils.Database, session_id: str, testset_path: str, sha256: str, rows: list[tuple[str | None, str]]
) -> None:
    with db.conn:
        db.execute(
            "INSERT OR REPLACE INTO testset_views (session_id, testset_path, sha256, rows, at) VALUES (?, ?, ?, ?, ?)",
            [session_id, testset_path, sha256, json.dumps(rows), now_iso()],
        )
