"""End to end: a Ragas-style test file with reference contexts and no gold ids gets retrieval
numbers (not n/a) on a copy of sample_data, and the CLI line and the JSON say how gold was found."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.cli.conftest import SAMPLE, run_cli

pytestmark = pytest.mark.slow


def _ragas_file(data: Path, *, with_contexts: bool) -> Path:
    """sample_data's questions in Ragas's field names: user_input, reference, reference_contexts
    (a passage of each relevant document, re-wrapped and with its case changed), no gold ids."""
    rows = []
    for line in (data / "questions.jsonl").read_text().splitlines():
        q = json.loads(line)
        row = {"user_input": q["question"], "reference": q["ground_truth"]}
        plain = [d for d in q.get("relevant_doc_ids") or [] if d.endswith(".md")]  # not raw HTML source
        if with_contexts and plain:
            paragraphs = [p for p in (data / "corpus" / plain[0]).read_text().split("\n\n") if len(p.split()) > 12]
            row["reference_contexts"] = [" ".join(paragraphs[len(paragraphs) // 2].split()).upper()]
        rows.append(json.dumps(row))
    path = data / ("ragas.jsonl" if with_contexts else "ragas-plain.jsonl")
    path.write_text("\n".join(rows) + "\n")
    return path


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    copy = tmp_path_factory.mktemp("reference-gold") / "sample_data"
    shutil.copytree(SAMPLE, copy)
    return copy


def _eval(data: Path, questions: Path, tmp: Path) -> dict:
    out = tmp / f"{questions.stem}.json"
    code = run_cli(
        "eval",
        "--db",
        str(tmp / "db.sqlite"),
        "--questions",
        str(questions),
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


def test_reference_contexts_give_retrieval_numbers_and_say_how(data: Path, tmp_path: Path, capsys) -> None:
    report = _eval(data, _ragas_file(data, with_contexts=True), tmp_path)
    retrieval = report["aggregate"]["retrieval"]
    with_refs = sum(1 for line in (data / "ragas.jsonl").read_text().splitlines() if "reference_contexts" in line)
    assert all(v["mean"] is not None and v["n"] == with_refs for v in retrieval.values())
    assert retrieval["hit@5"]["mean"] > 0.3
    block = report["gold_from_contexts"]
    assert block["questions"] == block["matched_questions"] == with_refs
    assert block["contexts"]["exact"] == with_refs and block["contexts"]["unmatched"] == 0
    out = " ".join(capsys.readouterr().out.split())
    assert (
        f"gold from reference contexts: {with_refs} exact, 0 near-exact, 0 by embedding (cos ≥ 0.9), "
        f"0 unmatched; {with_refs} of {with_refs} questions got gold ids" in out
    )
    assert report["questions"][0]["level"] == "chunk"


def test_without_reference_contexts_retrieval_stays_undefined(data: Path, tmp_path: Path) -> None:
    report = _eval(data, _ragas_file(data, with_contexts=False), tmp_path)
    assert all(v["mean"] is None for v in report["aggregate"]["retrieval"].values())
    assert report["gold_from_contexts"] is None
