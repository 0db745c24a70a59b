"""The session store: pragmas, schema version and migrations, session lookup, cascade delete."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from ragcov_tui.shared.errors import BadInput
from ragcov_tui.store import open_db
from ragcov_tui.store.db import SCHEMA_VERSION, schema_version
from ragcov_tui.store.sessions import (
    create_session,
    delete_session,
    finish_session,
    get_session,
    list_sessions,
    rename_session,
    resolve_session,
)
from tests.support.stored import stored_session


def test_new_database_is_wal_and_current(tmp_path: Path) -> None:
    db = open_db(tmp_path / "sub" / "r.db")
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert schema_version(db) == SCHEMA_VERSION
    assert {"sessions", "chunks", "vectors", "embedding_cache", "llm_cache", "decisions"} <= set(db.table_names())
    open_db(tmp_path / "sub" / "r.db")  # reopening migrates nothing and keeps the data


def test_newer_schema_is_refused_with_one_line(tmp_path: Path) -> None:
    path = tmp_path / "r.db"
    open_db(path)
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    with pytest.raises(BadInput, match="newer than this ragcov"):
        open_db(path)


def test_not_a_database_and_a_directory_are_bad_input(tmp_path: Path) -> None:
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(BadInput, match="junk.db"):
        open_db(junk)
    with pytest.raises(BadInput, match="is a directory"):
        open_db(tmp_path)


def test_sessions_lifecycle_and_lookup(tmp_path: Path) -> None:
    db = open_db(tmp_path / "r.db")
    a = create_session(db, "analysis", params={"k": 5}, questions_path="/q.jsonl")
    b = create_session(db, "eval", name="nightly")
    finish_session(db, a, "done", summary={"basic": 0.5}, timings={"total": 1.0})
    assert stored_session(db, a)["summary"] == {"basic": 0.5}
    assert resolve_session(db, a[:4])["id"] == a
    assert resolve_session(db, "nightly")["id"] == b
    assert resolve_session(db, "latest")["id"] == a  # only finished sessions count
    with pytest.raises(BadInput, match="no finished eval session"):
        resolve_session(db, "latest-eval")
    with pytest.raises(BadInput, match="no such session"):
        resolve_session(db, "zzzz")
    rename_session(db, a, "  baseline ")
    assert stored_session(db, a)["name"] == "baseline"
    assert [s["id"] for s in list_sessions(db, kind="eval")] == [b]


def test_delete_cascades_to_everything_stored_under_a_session(tmp_path: Path) -> None:
    db = open_db(tmp_path / "r.db")
    sid = create_session(db, "analysis")
    db.table("chunks").insert({"session_id": sid, "chunk_id": "c", "seq": 0, "source": "a.md", "text": "t"})
    with pytest.raises(BadInput, match=f"session {sid} is running .*cannot be deleted"):
        delete_session(db, sid)  # its process (this one) is still writing to it
    finish_session(db, sid, "cancelled")
    delete_session(db, sid)
    assert db.execute("SELECT count(*) FROM chunks").fetchone()[0] == 0
    assert get_session(db, sid) is None
