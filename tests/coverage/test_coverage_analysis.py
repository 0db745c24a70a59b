"""analyze end to end on synthetic data: edge cases, determinism, progress, no NaN."""

import json

import numpy as np
import pytest

from ragcov_tui.corpus.models import Chunk
from ragcov_tui.coverage.analysis import analyze
from ragcov_tui.coverage.params import CoverageParams
from ragcov_tui.shared.errors import BadInput
from ragcov_tui.testset.models import Question
from tests.coverage.coverage_data import find_nan, topic_data, unit

CONTRACT = {
    "session_id",
    "embedder",
    "corpus",
    "questions",
    "coverage",
    "clusters",
    "gaps",
    "documents",
    "question_details",
    "chunk_details",
}
FAST = dict(max_projection_points=80)


def run(C, Q, chunks, questions, **params):
    return analyze(C, Q, chunks, questions, CoverageParams(**{**FAST, **params}))


def check_report(report):
    assert set(report) >= CONTRACT
    assert find_nan(report) is None, find_nan(report)
    json.dumps(report, allow_nan=False)
    assert set(report["coverage"]) >= {"basic", "weighted", "multi_threshold", "multi_n", "threshold", "top_n"}
    for c in report["clusters"]:
        assert {"id", "size", "share", "coverage", "themes", "covering_questions"} <= set(c)
    for g in report["gaps"]:
        assert {"cluster", "coverage", "size", "share", "priority", "themes", "suggested_questions"} <= set(g)
        assert all(
            set(s) in ({"text", "origin"}, {"text", "origin", "chunk_id", "form"}) for s in g["suggested_questions"]
        )
    for q in report["question_details"]:
        assert {"id", "lof_score", "outlier", "nearest_cluster", "nearest_chunk", "redundant_with"} <= set(q)
    for d in report["chunk_details"]:
        assert {"id", "source", "cluster", "mindist", "nearest_question", "x", "y"} <= set(d)


def test_full_report_on_topic_data_excludes_planted_outliers():
    C, Q, chunks, questions, off = topic_data(seed=0)
    stages = []
    result = analyze(C, Q, chunks, questions, CoverageParams(**FAST), progress=lambda s, d, t: stages.append(s))
    report = result.to_report()
    check_report(report)
    assert {"outliers", "clusters", "nearest", "metrics", "redundancy", "documents", "themes", "map"} <= set(stages)
    flagged = {q["id"] for q in report["question_details"] if q["outlier"]}
    assert flagged == {questions[j].id for j in off}
    assert report["questions"] == {"total": len(Q), "inliers": len(Q) - len(off), "outliers": len(off)}
    assert report["map"]["method"] == "tsne-sample"
    assert all(d["nearest_question"] not in flagged for d in report["chunk_details"])


def test_untested_topic_is_the_top_gap_and_its_document_is_flagged():
    C, Q, chunks, questions, off = topic_data(seed=1, n_off=0)
    keep = [j for j, q in enumerate(questions) if j // 4 != 2]  # nobody asks about topic 2
    result = run(C, Q[keep], chunks, [questions[j] for j in keep], clusters=5)
    report = result.to_report()
    top = report["gaps"][0]
    members = {d["source"] for d in report["chunk_details"] if d["cluster"] == top["cluster"]}
    assert members == {"doc2.md"}
    assert min(report["clusters"], key=lambda c: c["coverage"])["id"] == top["cluster"]
    assert [d["source"] for d in report["documents"] if d["flagged"]] == ["doc2.md"]
    # adding questions for the gap raises basic coverage
    extra = unit(C[[i for i, c in enumerate(chunks) if c.source == "doc2.md"][:3]])
    more = run(
        C,
        np.vstack([Q[keep], extra]),
        chunks,
        [questions[j] for j in keep] + [Question(f"new{i}", "gap question") for i in range(3)],
        clusters=5,
    )
    assert more.coverage["basic"] > result.coverage["basic"]


def test_one_question_one_chunk_one_document():
    C, Q, chunks, questions, _ = topic_data(seed=2, n_off=0)
    report = run(C, Q[:1], chunks, questions[:1]).to_report()
    check_report(report)
    assert report["questions"]["total"] == 1 and report["redundancy"]["removal_impact"] == {}
    single = run(C[:1], Q[:2], chunks[:1], questions[:2]).to_report()
    check_report(single)
    assert single["corpus"] == {"documents": 1, "chunks": 1} and len(single["clusters"]) == 1
    assert single["questions"]["outliers"] == 0 and single["question_details"][0]["lof_score"] is None


def test_all_questions_outliers_gives_undefined_metrics_and_a_message():
    C, Q, chunks, questions, _ = topic_data(seed=3, n_off=0)
    far = unit(np.random.default_rng(0).standard_normal((4, C.shape[1])))
    report = run(C, far, chunks, questions[:4], lof_threshold=0.0).to_report()
    check_report(report)
    assert report["questions"]["inliers"] == 0
    assert all(v is None for k, v in report["coverage"].items() if k not in ("threshold", "top_n"))
    assert "outliers" in report["message"] and all(c["coverage"] is None for c in report["clusters"])
    assert all(d["mindist"] is None and d["nearest_question"] is None for d in report["chunk_details"])
    assert len(report["gaps"]) == len(report["clusters"])


def test_k_larger_than_chunks_and_duplicate_chunks():
    C, Q, chunks, questions, _ = topic_data(seed=4, per_topic=2, n_off=0)
    report = run(C, Q, chunks, questions, clusters=50).to_report()
    check_report(report)
    assert len(report["clusters"]) == len(C) and "capped" in report["clustering"]["method"]
    dup = np.repeat(C[:3], 5, axis=0)
    dup_chunks = [Chunk(f"d{i}", "Same text again and again in this chunk.", "one.md", i) for i in range(15)]
    report = run(dup, Q, dup_chunks, questions, clusters=10).to_report()
    check_report(report)
    assert len(report["clusters"]) == 3 and report["corpus"]["documents"] == 1
    assert run(dup, Q, dup_chunks, questions).clustering.k == 2  # default K from 3 distinct chunks


def test_deterministic_for_a_fixed_seed():
    C, Q, chunks, questions, _ = topic_data(seed=5)
    a = run(C, Q, chunks, questions, seed=7).to_report()
    b = run(C, Q, chunks, questions, seed=7).to_report()
    assert a == b


@pytest.mark.parametrize("bad", ["rows", "dim", "nan", "clusters"])
def test_bad_input_is_one_line(bad):
    C, Q, chunks, questions, _ = topic_data(seed=6)
    kwargs = {}
    if bad == "rows":
        C = C[:-1]
    elif bad == "dim":
        Q = Q[:, :-1]
    elif bad == "nan":
        C = C.copy()
        C[3, 0] = np.nan
    else:
        kwargs["clusters"] = "many"
    with pytest.raises(BadInput) as err:
        run(C, Q, chunks, questions, **kwargs)
    assert "\n" not in str(err.value)
