"""Triage core: decisions are recorded at once, the test file changes by exactly one row, undo is exact."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragcov_tui.services import suggestions, triage
from ragcov_tui.shared.errors import BadInput
from ragcov_tui.store import open_db
from ragcov_tui.store.decisions import last_undoable, list_decisions, question_marks
from ragcov_tui.store.queries import gap_rows
from ragcov_tui.store.rows import SuggestionRow
from tests.support.synthetic_sessions import make_analysis_session


@pytest.fixture()
def env(tmp_path: Path):
    db = open_db(":memory:")
    sid = make_analysis_session(db, testset_dir=tmp_path, n_chunks=120, n_questions=12)
    path = tmp_path / "questions.jsonl"
    return db, sid, path


def first_open_suggestion(db, sid, path) -> SuggestionRow:
    return next(s for g in gap_rows(db, sid, str(path.resolve())) for s in g["suggestions"] if s.status == "open")


def test_accept_appends_exactly_one_row_and_undo_restores_bytes(env) -> None:
    db, sid, path = env
    original = path.read_bytes()
    s = first_open_suggestion(db, sid, path)
    d = triage.accept_suggestion(db, sid, s.id)
    after = path.read_bytes()
    assert after.startswith(original)
    added = after[len(original) :].decode().splitlines()
    assert len(added) == 1
    row = json.loads(added[0])
    assert row["question"] == s.text and "provenance" not in row  # the file's rows have no such field
    assert d.payload["provenance"] == {"source": f"ragcov:{s.origin}", "cluster": s.cluster, "session": sid}
    assert d.action == "accept" and d.user and d.at and d.payload["question_id"] == row["id"]
    status = db.execute("SELECT status, question_id FROM suggestions WHERE id = ?", [s.id]).fetchone()
    assert status == ("accepted", str(row["id"]))

    undo = triage.undo_last(db, sid)
    assert path.read_bytes() == original
    assert undo.action == "undo" and undo.payload["undid"] == d.id
    assert db.execute("SELECT status FROM suggestions WHERE id = ?", [s.id]).fetchone()[0] == "open"
    assert last_undoable(db, sid) is None


def test_edit_then_accept_writes_the_edited_text(env) -> None:
    db, sid, path = env
    s = first_open_suggestion(db, sid, path)
    d = triage.accept_suggestion(db, sid, s.id, text="What does the [bold]retry[/bold] policy do?")
    last = json.loads(path.read_text().splitlines()[-1])
    assert last["question"] == "What does the [bold]retry[/bold] policy do?"
    assert d.action == "edit" and d.payload["original"] == s.text


def test_two_writes_then_two_undos_walk_back_exactly(env) -> None:
    db, sid, path = env
    v0 = path.read_bytes()
    s1 = first_open_suggestion(db, sid, path)
    triage.accept_suggestion(db, sid, s1.id)
    v1 = path.read_bytes()
    triage.drop_question(db, sid, "q00004")
    triage.undo_last(db, sid)
    assert path.read_bytes() == v1
    triage.undo_last(db, sid)
    assert path.read_bytes() == v0
    with pytest.raises(BadInput, match="nothing to undo"):
        triage.undo_last(db, sid)


def test_reject_is_remembered_and_never_suggested_again(env) -> None:
    db, sid, path = env
    s = first_open_suggestion(db, sid, path)
    before = path.read_bytes()
    triage.reject_suggestion(db, sid, s.id)
    assert path.read_bytes() == before
    texts = [x.text for g in gap_rows(db, sid, str(path.resolve())) for x in g["suggestions"]]
    assert s.text not in texts
    # the same text offered again (e.g. by a later `g`) is filtered out, in any casing
    assert suggestions.add_suggestions(db, sid, s.cluster, [s.text.upper(), "A brand new question?"], "heuristic") != []
    texts = [x.text for g in gap_rows(db, sid, str(path.resolve())) for x in g["suggestions"]]
    assert s.text.upper() not in texts
    triage.undo_last(db, sid)
    texts = [x.text for g in gap_rows(db, sid, str(path.resolve())) for x in g["suggestions"]]
    assert s.text in texts


def test_drop_removes_the_row_and_keep_marks_only(env) -> None:
    db, sid, path = env
    before = path.read_text().splitlines()
    triage.keep_question(db, sid, "q00001")
    assert path.read_text().splitlines() == before
    triage.drop_question(db, sid, "q00002")
    after = path.read_text().splitlines()
    assert after == [line for line in before if '"q00002"' not in line]
    assert question_marks(db, sid) == {"q00001": "keep", "q00002": "drop"}
    assert [d.action for d in list_decisions(db, sid)] == ["keep", "drop"]


def test_deciding_twice_on_one_suggestion_is_bad_input(env) -> None:
    db, sid, path = env
    s = first_open_suggestion(db, sid, path)
    triage.accept_suggestion(db, sid, s.id)
    with pytest.raises(BadInput, match="already accepted"):
        triage.reject_suggestion(db, sid, s.id)
