"""Schema version 3: decisions written before it read as applied, and a database triaged by the
previous release can still undo its last write (by its backup)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from types import SimpleNamespace

from ragcov_tui.services import triage
from ragcov_tui.store import open_db
from ragcov_tui.store.db import SCHEMA_VERSION, schema_version
from ragcov_tui.store.decisions import last_undoable
from ragcov_tui.store.schema import V1, add_decision_states_v3, add_session_owner_v2
from ragcov_tui.testset.reader import read_testset
from ragcov_tui.testset.writer import drop_question


def version_2_database(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path)
    conn.executescript(V1)
    add_session_owner_v2(SimpleNamespace(conn=conn))  # type: ignore[arg-type]
    conn.execute("PRAGMA user_version = 2")
    return conn


def test_a_version_2_database_migrates_and_undoes_a_write_it_recorded(tmp_path: Path) -> None:
    testset = tmp_path / "q.jsonl"
    testset.write_text("".join(json.dumps({"id": f"q{i}", "question": f"Q{i}?"}) + "\n" for i in range(3)))
    original, sha = testset.read_bytes(), read_testset(testset).sha256
    written = drop_question(testset, "q1", expected_sha256=sha)  # as the previous release wrote it
    conn = version_2_database(tmp_path / "v2.db")
    conn.execute(
        "INSERT INTO sessions (id, kind, status, created_at, questions_path, testset_sha256) "
        "VALUES ('s1', 'analysis', 'done', '2025-01-01T00:00:00+00:00', ?, ?)",
        [str(testset), sha],
    )
    conn.execute(
        "INSERT INTO decisions (session_id, kind, target, action, testset_path, sha_before, sha_after, "
        "backup_path, user, at) VALUES ('s1', 'question', 'q1', 'drop', ?, ?, ?, ?, 'me', "
        "'2025-01-01T00:00:01+00:00')",
        [str(testset), written.sha_before, written.sha_after, str(written.backup_path)],
    )
    conn.commit()
    conn.close()
    db = open_db(tmp_path / "v2.db")
    assert schema_version(db) == SCHEMA_VERSION >= 3
    assert getattr(last_undoable(db, "s1"), "state", None) == "applied"  # written before write-ahead existed
    triage.undo_last(db, "s1")  # it recorded no change: the backup restores it (the file is as it left it)
    assert testset.read_bytes() == original
    add_decision_states_v3(db)  # a second migration of the same file (two processes at once) is harmless
