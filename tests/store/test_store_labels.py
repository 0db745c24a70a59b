"""The labels table (schema v6): set, step, undo, import; a v5 database gains it on open (issue #26 §4)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from ragcov_tui.store import open_db
from ragcov_tui.store.db import SCHEMA_VERSION, schema_version
from ragcov_tui.store.labels import Label, has_labels, import_labels, item_labels, session_labels, set_label, undo_label
from ragcov_tui.store.sessions import delete_session
from tests.support.synthetic_sessions import make_eval_session


def test_set_undo_and_import(tmp_path: Path) -> None:
    db = open_db(tmp_path / "r.db")
    sid = make_eval_session(db, n_questions=5)
    assert not has_labels(db, sid) and undo_label(db, sid) is None
    set_label(db, sid, "q00001", "faithfulness", 1)
    change = set_label(db, sid, "q00001", "faithfulness", 0)
    assert (change.before, change.after) == (1, 0)
    set_label(db, sid, "q00002", "answer_correctness", 1)
    assert item_labels(db, sid, "q00001") == {"faithfulness": 0}
    undone = undo_label(db, sid)  # the newest change first: q00002's label goes
    assert undone is not None and (undone.question_id, undone.after) == ("q00002", None)
    assert item_labels(db, sid, "q00002") == {}
    undo_label(db, sid)  # then q00001 back to yes
    assert item_labels(db, sid, "q00001") == {"faithfulness": 1}
    assert (
        import_labels(db, sid, [Label("q00001", "faithfulness", 0), Label("q00003", "faithfulness", 1)], "import:x.csv")
        == 2
    )
    assert [(x.question_id, x.label) for x in session_labels(db, sid)] == [("q00001", 0), ("q00003", 1)]
    delete_session(db, sid)
    assert session_labels(db, sid) == []  # gone with the session


def test_a_version_5_database_gains_the_labels_tables(tmp_path: Path) -> None:
    path = tmp_path / "v5.db"
    open_db(path).conn.close()
    conn = sqlite3.connect(path)
    conn.executescript("DROP TABLE labels; DROP TABLE label_changes; PRAGMA user_version = 5;")
    conn.close()
    db = open_db(path)
    assert schema_version(db) == SCHEMA_VERSION >= 6
    assert {"labels", "label_changes"} <= set(db.table_names())
