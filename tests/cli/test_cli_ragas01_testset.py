"""End to end (issue #27 §6): a Ragas 0.1 test set (``question``, ``contexts``, ``ground_truth``,
``evolution_type``, no answer), as ``to_jsonl`` and as pandas' ``to_csv`` write it, gets gold from its
``contexts`` as ``reference_contexts`` do; a Ragas records file (``answer`` and ``contexts``) keeps
reading them as retrieved contexts. Each run says which reading it used."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.cli.conftest import SAMPLE, run_cli
from tests.testset.peer_files import jsonl, pandas_csv

pytestmark = pytest.mark.slow

TESTSET_NOTE = "read as a Ragas 0.1 test set ('contexts' and no answer field)"
RECORDS_NOTE = "read as Ragas records (the rows have answers): 'contexts' are retrieved contexts, not gold"


def _rows(data: Path, *, answers: bool) -> list[dict]:
    """sample_data's questions with Ragas 0.1's field names, no gold ids: ``contexts`` holds a
    paragraph of the first relevant .md document (re-wrapped); with ``answers``, as its records."""
    rows = []
    for line in (data / "questions.jsonl").read_text().splitlines():
        q = json.loads(line)
        plain = [d for d in q.get("relevant_doc_ids") or [] if d.endswith(".md")]
        if not plain:
            continue
        paragraphs = [p for p in (data / "corpus" / plain[0]).read_text().split("\n\n") if len(p.split()) > 12]
        row = {
            "question": q["question"],
            "contexts": [" ".join(paragraphs[len(paragraphs) // 2].split())],
            "ground_truth": q["ground_truth"],
        }
        row |= (
            {"answer": q["ground_truth"]}
            if answers
            else {"evolution_type": "simple", "metadata": [{"source": plain[0]}], "episode_done": True}
        )
        rows.append(row)
    return rows


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    copy = tmp_path_factory.mktemp("ragas01") / "sample_data"
    shutil.copytree(SAMPLE, copy)
    rows = _rows(copy, answers=False)
    (copy / "testset.jsonl").write_text(jsonl(rows))
    (copy / "testset.csv").write_text(pandas_csv(list(rows[0]), [list(r.values()) for r in rows]))
    (copy / "records.jsonl").write_text(jsonl(_rows(copy, answers=True)))
    return copy


def _eval(data: Path, questions: str, tmp: Path) -> dict:
    out = tmp / "eval.json"
    code = run_cli(
        "eval",
        "--db",
        str(tmp / "db.sqlite"),
        "--questions",
        str(data / questions),
        "--corpus",
        str(data / "corpus"),
        "--system",
        "builtin:bm25",
        "--embedder",
        "hash",
        "--metrics",
        "retrieval",
        "--json",
        str(out),
    )
    assert code == 0
    return json.loads(out.read_text())


@pytest.mark.parametrize("questions", ["testset.jsonl", "testset.csv"])
def test_a_ragas01_testset_gets_gold_from_its_contexts_in_eval(
    data: Path, tmp_path: Path, capsys, questions: str
) -> None:
    n = len(_rows(data, answers=False))
    report = _eval(data, questions, tmp_path)
    block = report["gold_from_contexts"]
    assert block["questions"] == block["matched_questions"] == block["contexts"]["exact"] == n
    retrieval = report["aggregate"]["retrieval"]
    assert all(v["mean"] is not None and v["n"] == n for v in retrieval.values())
    assert retrieval["hit@5"]["mean"] > 0.3
    err = " ".join(capsys.readouterr().err.split())
    assert TESTSET_NOTE in err and RECORDS_NOTE not in err


@pytest.mark.parametrize("questions", ["testset.jsonl", "testset.csv"])
def test_analyze_says_it_read_a_ragas01_testset(data: Path, tmp_path: Path, capsys, questions: str) -> None:
    code = run_cli(
        "analyze",
        "--db",
        str(tmp_path / "db.sqlite"),
        "--questions",
        str(data / questions),
        "--corpus",
        str(data / "corpus"),
        "--json",
        str(tmp_path / "report.json"),
    )
    assert code == 0
    assert TESTSET_NOTE in " ".join(capsys.readouterr().err.split())


def test_a_ragas_records_file_keeps_its_contexts_as_retrieved(data: Path, tmp_path: Path, capsys) -> None:
    report = _eval(data, "records.jsonl", tmp_path)
    assert report["gold_from_contexts"] is None
    assert all(v["mean"] is None for v in report["aggregate"]["retrieval"].values())
    err = " ".join(capsys.readouterr().err.split())
    assert RECORDS_NOTE in err and TESTSET_NOTE not in err
