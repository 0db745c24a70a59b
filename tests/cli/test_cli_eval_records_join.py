"""End to end: ``ragcov eval --system records:FILE`` on files without ids (Giskard RAGET's
agent_answer.json, a Ragas eval CSV) joined by position or by question text, and the one-line
refusals of an unjoinable file and of a bad --join."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from ragcov_tui.corpus import build_chunks
from tests.cli.conftest import CORPUS, QUESTIONS, run_cli

pytestmark = pytest.mark.slow


def _outputs() -> list[tuple[str, str, list[str]]]:
    """(question, answer, retrieved texts) per sample question: the first chunks of its gold document."""
    _, chunks = build_chunks([CORPUS])
    by_doc: dict[str, list[str]] = {}
    for chunk in chunks:
        by_doc.setdefault(chunk.source, []).append(chunk.text)
    rows = []
    for line in QUESTIONS.read_text().splitlines():
        q = json.loads(line)
        docs = q.get("relevant_doc_ids") or [next(iter(by_doc))]
        rows.append((q["question"], q["ground_truth"], by_doc[docs[0]][:2]))
    return rows


def _eval(tmp: Path, records: Path, *extra: str) -> int:
    return run_cli(
        "eval",
        "--db",
        str(tmp / "db.sqlite"),
        "--questions",
        str(QUESTIONS),
        "--corpus",
        str(CORPUS),
        "--system",
        f"records:{records}",
        "--embedder",
        "hash",
        "--metrics",
        "retrieval",
        "--json",
        str(tmp / "out.json"),
        *extra,
    )


def test_a_raget_answer_file_joins_by_position(tmp_path: Path, capsys) -> None:
    path = tmp_path / "agent_answer.json"
    path.write_text(json.dumps([{"message": a, "documents": c} for _, a, c in _outputs()]))
    assert _eval(tmp_path, path, "--join", "order") == 0
    report = json.loads((tmp_path / "out.json").read_text())
    assert report["records_join"]["by"] == {"order": len(_outputs())}
    assert report["aggregate"]["retrieval"]["hit@5"]["mean"] == 1.0  # texts found as corpus chunks, gold doc first
    n = len(_outputs())
    assert f"records: {n} of {n} questions joined ({n} by position)" in " ".join(capsys.readouterr().out.split())


def test_without_join_order_the_raget_file_is_one_line_naming_the_keys(tmp_path: Path, capsys) -> None:
    path = tmp_path / "agent_answer.json"
    path.write_text(json.dumps([{"message": a, "documents": c} for _, a, c in _outputs()]))
    assert _eval(tmp_path, path, "--quiet") == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no row joins a test question (tried: id (no row has one of" in err[0]
    assert "use --join order" in err[0]


def test_a_ragas_csv_joins_by_text_and_a_dropped_row_fails_only_its_question(tmp_path: Path, capsys) -> None:
    rows = _outputs()
    path = tmp_path / "ragas_eval.csv"
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["user_input", "retrieved_contexts", "response", "reference"])
        for q, a, c in rows[:3] + rows[4:]:  # the fourth row dropped
            writer.writerow([q.upper(), json.dumps(c), a, a])
    assert _eval(tmp_path, path) == 0
    report = json.loads((tmp_path / "out.json").read_text())
    assert report["records_join"] == {
        "join": "auto",
        "rows": len(rows) - 1,
        "questions": len(rows),
        "joined": len(rows) - 1,
        "by": {"question": len(rows) - 1},
        "ambiguous": 0,
        "missing": 1,
        "ambiguous_examples": [],
    }
    failed = [q for q in report["questions"] if q["status"] == "error"]
    assert [q["id"] for q in failed] == ["q004"] and "no record for this question" in failed[0]["error"]
    assert "records: 30 of 31 questions joined (30 by question text); 1 without a row" in capsys.readouterr().err


@pytest.mark.parametrize("bad", ["position", "rows"])
def test_a_bad_join_is_refused_before_any_work(tmp_path: Path, bad: str, capsys) -> None:
    assert _eval(tmp_path, tmp_path / "absent.json", "--quiet", "--join", bad) == 2
    err = capsys.readouterr().err
    assert (
        f"--join: expected one of auto, id, question, order, got '{bad}'" in err and len(err.strip().splitlines()) == 1
    )
