"""End to end (issue #22 §1): what a run could not measure reads "not measured", never 0.000.

- records whose contexts are texts without ids, evaluated without ``--corpus``: no retrieval
  metric, no ``retrieval_failure``, one line saying ``--corpus`` is needed (exit 2 when retrieval
  was all that was asked); with ``--corpus`` the same file is scored;
- a retrieval-only BEIR run: successful retrievals are ``ok``, not ``undetermined``, and the
  heading names no judge.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragcov_tui.corpus import build_chunks
from tests.cli.conftest import CORPUS, QUESTIONS, run_cli
from tests.evaluation.test_eval_beir import make_beir

pytestmark = pytest.mark.slow


def _records_with_texts_only(path: Path) -> Path:
    """Each sample question's answer and the texts (no ids) of the first chunks of its gold document."""
    _, chunks = build_chunks([CORPUS])
    by_doc: dict[str, list[str]] = {}
    for chunk in chunks:
        by_doc.setdefault(chunk.source, []).append(chunk.text)
    rows = []
    for line in QUESTIONS.read_text().splitlines():
        q = json.loads(line)
        texts = by_doc[(q.get("relevant_doc_ids") or [next(iter(by_doc))])[0]][:2]
        rows.append(json.dumps({"id": q["id"], "answer": q["ground_truth"], "retrieved_contexts": texts}))
    path.write_text("\n".join(rows) + "\n")
    return path


def _eval(tmp: Path, *extra: str) -> int:
    return run_cli(
        "eval",
        "--db",
        str(tmp / "db.sqlite"),
        "--questions",
        str(QUESTIONS),
        "--embedder",
        "hash",
        "--json",
        str(tmp / "out.json"),
        *extra,
    )


def test_context_texts_without_ids_and_no_corpus_leave_retrieval_not_measured(tmp_path: Path, capsys) -> None:
    records = _records_with_texts_only(tmp_path / "records.jsonl")
    assert _eval(tmp_path, "--system", f"records:{records}") == 0
    printed = " ".join(capsys.readouterr().out.split())
    report = json.loads((tmp_path / "out.json").read_text())
    assert report["aggregate"]["retrieval"] == {} and report["metrics"]["retrieval"] == []
    assert "--corpus is needed" in report["retrieval_not_measured"]
    assert (
        "Retrieval: not measured — 31 of 31 rows give retrieved contexts as texts without ids; "
        "--corpus is needed to match them to corpus chunks" in printed
    )
    assert "hit@5" not in printed and "retrieval_failure" not in printed
    assert "retrieval_failure" not in report["counts"]["diagnosis"]
    assert report["aggregate"]["generation"]["faithfulness"]["n"] == 31  # the answers are still scored


def test_retrieval_alone_cannot_be_asked_of_such_records(tmp_path: Path, capsys) -> None:
    records = _records_with_texts_only(tmp_path / "records.jsonl")
    assert _eval(tmp_path, "--system", f"records:{records}", "--metrics", "retrieval") == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "retrieval cannot be measured" in err[0] and "--corpus is needed" in err[0]


def test_with_the_corpus_the_same_records_are_scored(tmp_path: Path) -> None:
    records = _records_with_texts_only(tmp_path / "records.jsonl")
    assert _eval(tmp_path, "--system", f"records:{records}", "--corpus", str(CORPUS), "--metrics", "retrieval") == 0
    report = json.loads((tmp_path / "out.json").read_text())
    assert report["aggregate"]["retrieval"]["hit@5"]["mean"] == 1.0 and "retrieval_not_measured" not in report


def test_a_retrieval_only_run_diagnoses_by_retrieval_and_names_no_judge(tmp_path: Path, capsys) -> None:
    folder = make_beir(tmp_path / "beir")
    assert (
        run_cli(
            "eval",
            "--db",
            str(tmp_path / "db"),
            "--questions",
            str(folder),
            "--system",
            "builtin:bm25",
            "--k",
            "10",
            "--json",
            str(tmp_path / "r.json"),
        )
        == 0
    )
    printed = " ".join(capsys.readouterr().out.split())
    report = json.loads((tmp_path / "r.json").read_text())
    hits = [q for q in report["questions"] if q["retrieval"]["hit@10"] == 1.0]
    assert hits and {q["diagnosis"] for q in hits} == {"ok"}
    assert "undetermined" not in report["counts"]["diagnosis"] and "undetermined" not in printed
    assert "judge none (retrieval metrics only)" in printed and "judge heuristic" not in printed
