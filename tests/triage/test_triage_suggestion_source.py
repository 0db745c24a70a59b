"""Accepting a suggestion records the chunk it came from in the decision; the test file's new row
is the same as for a suggestion without one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragcov_tui.services import triage
from ragcov_tui.store import open_db
from ragcov_tui.store.queries import gap_rows
from tests.support.synthetic_sessions import make_analysis_session


@pytest.mark.parametrize("chunk_id", ["c000007", None])
@pytest.mark.parametrize("edited", [False, True])
def test_accept_keeps_the_source_chunk_in_the_payload_only(tmp_path: Path, chunk_id: str | None, edited: bool) -> None:
    db = open_db(":memory:")
    sid = make_analysis_session(db, testset_dir=tmp_path, n_chunks=60, n_questions=8)
    path = tmp_path / "questions.jsonl"
    s = next(s for g in gap_rows(db, sid, str(path.resolve())) for s in g["suggestions"])
    with db.conn:
        db.execute("UPDATE suggestions SET chunk_id = ?, form = 'question' WHERE id = ?", [chunk_id, s.id])
    d = triage.accept_suggestion(db, sid, s.id, text="An edited question?" if edited else None)
    row = json.loads(path.read_text().splitlines()[-1])
    assert set(row) == {"id", "question"} and "c000007" not in json.dumps(row)
    assert d.payload.get("chunk_id") == chunk_id
    assert "chunk_id" not in d.payload["provenance"]
