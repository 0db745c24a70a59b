"""The paper's second use case rebuilt on our sample data (issue 3's validation).

With an off-topic document in the corpus, its cluster has the lowest coverage and the document is
flagged; the off-topic questions get the highest LOF scores and are excluded while no on-topic
question is; adding questions for a gap raises basic coverage.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from tests.cli.conftest import CORPUS, QUESTIONS, run_cli

pytestmark = pytest.mark.slow


def test_off_topic_document_forms_the_least_covered_cluster_and_is_flagged(sample_analysis, manifest) -> None:
    report, _ = sample_analysis
    off_doc = manifest["off_topic_documents"][0]
    clusters = Counter(c["cluster"] for c in report["chunk_details"] if c["source"] == off_doc)
    off_cluster = clusters.most_common(1)[0][0]
    coverage = {c["id"]: c["coverage"] for c in report["clusters"]}
    assert coverage[off_cluster] == min(coverage.values())
    flagged = {d["source"] for d in report["documents"] if d["flagged"]}
    assert off_doc in flagged


def test_off_topic_questions_rank_highest_and_only_they_are_excluded(sample_analysis, manifest) -> None:
    report, _ = sample_analysis
    off = set(manifest["off_topic_questions"])
    details = report["question_details"]
    ranked = sorted(details, key=lambda d: d["lof_score"], reverse=True)
    assert {d["id"] for d in ranked[: len(off)]} == off
    assert {d["id"] for d in details if d["outlier"]} == off
    assert report["questions"]["outliers"] == len(off)


def test_adding_questions_for_a_gap_raises_basic_coverage(sample_analysis, tmp_path: Path) -> None:
    report, db = sample_analysis
    gap = report["gaps"][0]
    texts = [s["text"] for s in gap["suggested_questions"]]
    assert texts, "the top gap has suggested questions"
    extended = tmp_path / "questions.jsonl"
    rows = QUESTIONS.read_text()
    rows += "".join(json.dumps({"id": f"new-{i}", "question": t}) + "\n" for i, t in enumerate(texts))
    extended.write_text(rows)
    out = tmp_path / "r.json"
    assert (
        run_cli(
            "analyze",
            "--quiet",
            "--db",
            str(db),
            "--corpus",
            str(CORPUS),
            "--questions",
            str(extended),
            "--json",
            str(out),
        )
        == 0
    )
    after = json.loads(out.read_text())
    assert after["coverage"]["basic"] > report["coverage"]["basic"]
