"""Issue #14 item 6 through triage: a test file without ids (Ragas, DeepEval, LlamaIndex) is triaged
by content ids; accept, drop and their undo leave the exact bytes, and a row a teammate drops or
inserts by hand moves no other question's id."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from ragcov_tui.services import triage
from ragcov_tui.store import open_db
from ragcov_tui.store.queries import gap_rows
from ragcov_tui.testset.ids import content_id
from ragcov_tui.testset.reader import read_testset
from tests.support.synthetic_sessions import make_analysis_session

N = 12


def _jsonl(texts: list[str]) -> str:
    return "".join(json.dumps({"user_input": t, "reference": "R."}) + "\n" for t in texts)


def _csv(texts: list[str]) -> str:
    out = io.StringIO()
    rows = csv.writer(out)  # \r\n, as Python's csv module writes by default
    rows.writerow(["question", "ground_truth"])
    rows.writerows([t, "An answer, with a comma."] for t in texts)
    return out.getvalue()


FORMATS = {"jsonl": _jsonl, "csv": _csv}


@pytest.fixture(params=sorted(FORMATS))
def idless(request, tmp_path: Path):
    """An analysis session of an id-less file (``questions.<fmt>``), stored as ``analyze`` stores it:
    each question by the id the reader gives it and the row as read."""
    db = open_db(":memory:")
    sid = make_analysis_session(db, testset_dir=tmp_path, n_chunks=120, n_questions=N, tricky=False)
    texts = [json.loads(line)["question"] for line in (tmp_path / "questions.jsonl").read_text().splitlines()]
    path = tmp_path / f"plain.{request.param}"
    path.write_bytes(FORMATS[request.param](texts).encode("utf-8"))
    testset = read_testset(path)
    with db.conn:
        db.execute(
            "UPDATE sessions SET questions_path = ?, testset_sha256 = ? WHERE id = ?",
            [str(path.resolve()), testset.sha256, sid],
        )
        for q in testset.questions:
            db.execute(
                "UPDATE questions SET question_id = ?, raw = ? WHERE session_id = ? AND seq = ?",
                [q.id, json.dumps(q.raw), sid, q.row],
            )
    return db, sid, path, texts, request.param


def ids_now(path: Path) -> list[str]:
    return [q.id for q in read_testset(path).questions]


def test_the_session_knows_the_rows_by_content_id(idless) -> None:
    db, sid, path, texts, _ = idless
    stored = [
        qid for (qid,) in db.execute("SELECT question_id FROM questions WHERE session_id = ? ORDER BY seq", [sid])
    ]
    assert stored == ids_now(path) == [content_id(t) for t in texts]


@pytest.mark.parametrize("edited", [False, True])
def test_accept_then_undo_is_byte_exact(idless, edited: bool) -> None:
    db, sid, path, texts, fmt = idless
    original = path.read_bytes()
    suggestion = next(s for g in gap_rows(db, sid, str(path.resolve())) for s in g["suggestions"] if s.status == "open")
    text = "An edited question, with a comma?" if edited else suggestion.text
    decision = triage.accept_suggestion(db, sid, suggestion.id, text=text if edited else None)
    after = path.read_bytes()
    assert after.startswith(original) and len(after) > len(original)
    testset = read_testset(path)
    assert not testset.has_ids  # no id field is added to a file without ids
    assert (testset.questions[-1].text, testset.questions[-1].id) == (text, content_id(text))
    assert decision.payload["question_id"] == content_id(text)
    assert ids_now(path)[:-1] == [content_id(t) for t in texts]
    triage.undo_last(db, sid)
    assert path.read_bytes() == original


@pytest.mark.parametrize("index", [0, 5, N - 1])
def test_drop_then_undo_is_byte_exact(idless, index: int) -> None:
    db, sid, path, texts, fmt = idless
    original = path.read_bytes()
    triage.drop_question(db, sid, content_id(texts[index]))
    left = texts[:index] + texts[index + 1 :]
    assert [q.text for q in read_testset(path).questions] == left
    assert ids_now(path) == [content_id(t) for t in left]  # no other id moved
    triage.undo_last(db, sid)
    assert path.read_bytes() == original


@pytest.mark.parametrize("by_hand", ["dropped above", "inserted above"])
def test_after_an_edit_by_hand_a_drop_takes_the_row_it_names(idless, by_hand: str) -> None:
    """A teammate drops row 1 or inserts one at the top; the question the analysis knew as the
    sixth row's id is still that row, wherever it now is."""
    db, sid, path, texts, fmt = idless
    edited = texts[1:] if by_hand == "dropped above" else ["Inserted at the top?", *texts]
    path.write_bytes(FORMATS[fmt](edited).encode("utf-8"))
    by_hand_bytes = path.read_bytes()
    assert triage.reload(db, sid) is not None  # the outside edit is reported
    target = texts[5]
    triage.drop_question(db, sid, content_id(target))
    assert [q.text for q in read_testset(path).questions] == [t for t in edited if t != target]
    triage.undo_last(db, sid)
    assert path.read_bytes() == by_hand_bytes
