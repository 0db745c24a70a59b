"""Issue #14 item 5 through triage itself: after accepting a suggestion into a Giskard RAGET test
file, Giskard's own loader still reads it; the provenance sits in the row's ``metadata`` and in
the decision; an edit-accept says ``edited``; undo gives back the exact bytes."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from ragcov_tui.services import triage
from ragcov_tui.store import open_db
from ragcov_tui.store.queries import gap_rows
from tests.support.synthetic_sessions import make_analysis_session
from tests.testset.peer_loaders import giskard_qatestset_load, ragas_evaluation_dataset_from_jsonl


def as_giskard(path: Path) -> None:
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    path.write_text(
        "".join(
            json.dumps(
                {
                    "id": row["id"],
                    "question": row["question"],
                    "reference_answer": "An answer.",
                    "reference_context": "Document 1: a text.",
                    "conversation_history": [],
                    "metadata": {"question_type": "simple", "seed_document_id": "doc-001", "topic": "Misc"},
                }
            )
            + "\n"
            for row in rows
        )
    )


def as_ragas(path: Path) -> None:
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    path.write_text("".join(json.dumps({"user_input": row["question"], "reference": "R."}) + "\n" for row in rows))


@pytest.mark.parametrize(
    ("convert", "loader", "fields"),
    [
        (as_giskard, giskard_qatestset_load, {"id", "question", "conversation_history", "metadata"}),
        (as_ragas, ragas_evaluation_dataset_from_jsonl, {"user_input"}),  # no place for it: the DB keeps it
    ],
)
@pytest.mark.parametrize("edited", [False, True])
def test_accept_keeps_the_peers_loader_working_and_undo_is_exact(tmp_path, convert, loader, fields, edited):
    db = open_db(":memory:")
    sid = make_analysis_session(db, testset_dir=tmp_path, n_chunks=120, n_questions=12)
    path = tmp_path / "questions.jsonl"
    convert(path)
    db.execute(
        "UPDATE sessions SET testset_sha256 = ? WHERE id = ?", [hashlib.sha256(path.read_bytes()).hexdigest(), sid]
    )
    original = path.read_bytes()
    suggestion = next(s for g in gap_rows(db, sid, str(path.resolve())) for s in g["suggestions"] if s.status == "open")
    decision = triage.accept_suggestion(db, sid, suggestion.id, text="An edited question?" if edited else None)
    assert path.read_bytes().startswith(original)
    assert loader(path) == 13
    provenance = {
        "source": f"ragcov:{suggestion.origin}",
        "cluster": suggestion.cluster,
        "session": sid,
        **({"edited": True} if edited else {}),
    }
    assert decision.payload["provenance"] == provenance
    row = json.loads(path.read_text().splitlines()[-1])
    assert set(row) == fields
    if "metadata" in row:
        assert row["metadata"] == {"provenance": provenance}
    triage.undo_last(db, sid)
    assert path.read_bytes() == original
