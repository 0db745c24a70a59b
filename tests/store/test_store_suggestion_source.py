"""Schema version 5: each suggestion keeps the chunk it was written from (and its form), so the app
can show where a suggestion came from; databases from before keep working with NULL."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from types import SimpleNamespace

import pytest

from ragcov_tui.coverage.analysis import analyze
from ragcov_tui.coverage.params import CoverageParams
from ragcov_tui.store import open_db
from ragcov_tui.store.analysis import save_analysis
from ragcov_tui.store.db import SCHEMA_VERSION, schema_version
from ragcov_tui.store.queries import gap_rows, suggestion_chunk
from ragcov_tui.store.rows import SourceChunk
from ragcov_tui.store.schema import (
    V1,
    add_decision_states_v3,
    add_session_owner_v2,
    add_suggestion_source_v5,
    add_traffic_v4,
)
from ragcov_tui.store.sessions import create_session
from tests.coverage.coverage_data import topic_data


def version_4_database(path: Path) -> None:
    """A database as the previous release left it: one session with one suggestion (no source)."""
    conn = sqlite3.connect(path)
    conn.executescript(V1)
    old = SimpleNamespace(conn=conn)
    for migration in (add_session_owner_v2, add_decision_states_v3, add_traffic_v4):
        migration(old)  # type: ignore[arg-type]
    conn.execute("PRAGMA user_version = 4")
    conn.execute(
        "INSERT INTO sessions (id, kind, status, created_at) VALUES ('s1', 'analysis', 'done', "
        "'2025-01-01T00:00:00+00:00')"
    )
    conn.execute("INSERT INTO suggestions (session_id, cluster, text, origin) VALUES ('s1', 0, 'How?', 'heuristic')")
    conn.commit()
    conn.close()


def columns(db) -> set[str]:
    return {row[1] for row in db.execute("PRAGMA table_info(suggestions)").fetchall()}


def test_a_version_4_database_gains_the_columns_and_old_rows_stay_null(tmp_path: Path) -> None:
    version_4_database(tmp_path / "v4.db")
    db = open_db(tmp_path / "v4.db")
    assert schema_version(db) == SCHEMA_VERSION >= 5
    assert {"chunk_id", "form"} <= columns(db)
    assert db.execute("SELECT text, chunk_id, form FROM suggestions").fetchall() == [("How?", None, None)]
    add_suggestion_source_v5(db)  # a second migration of the same file (two processes at once) is harmless
    assert {"chunk_id", "form"} <= columns(db)
    db.conn.close()
    assert schema_version(open_db(tmp_path / "v4.db")) == SCHEMA_VERSION  # reopening migrates nothing twice


def test_a_suggestion_without_a_chunk_has_no_source() -> None:
    assert suggestion_chunk(open_db(":memory:"), "s1", None) is None


def test_a_chunk_the_session_does_not_hold_is_named_without_text() -> None:
    assert suggestion_chunk(open_db(":memory:"), "s1", "gone#3") == SourceChunk("gone#3", None, None)


@pytest.mark.parametrize("seed", [0, 1, 3])
def test_saved_suggestions_keep_their_chunk_and_form(seed: int) -> None:
    C, Q, chunks, questions, _ = topic_data(seed=seed)
    result = analyze(C, Q, chunks, questions, CoverageParams(max_projection_points=60))
    report = result.to_report()
    db = open_db(":memory:")
    sid = create_session(db, "analysis")
    save_analysis(db, sid, result, chunks, questions)
    expected = [
        (g["cluster"], s["text"], s.get("chunk_id"), s.get("form"))
        for g in report["gaps"]
        for s in g["suggested_questions"]
    ]
    assert expected and all(chunk_id for _, _, chunk_id, _ in expected)
    stored = db.execute(
        "SELECT cluster, text, chunk_id, form FROM suggestions WHERE session_id = ? ORDER BY id", [sid]
    ).fetchall()
    assert stored == expected
    by_id = {c.id: c for c in chunks}
    for gap in gap_rows(db, sid, None):
        for s in gap["suggestions"]:
            source = suggestion_chunk(db, sid, s.chunk_id)
            assert source is not None and s.form in ("question", "passage")
            assert s.chunk_id is not None
            assert source == SourceChunk(s.chunk_id, by_id[s.chunk_id].source, by_id[s.chunk_id].text)
