"""Read models of the app: paging, filtering, sorting and aggregates answered by SQL."""

from __future__ import annotations

import json
import math

import pytest

from ragcov_tui.shared.errors import BadInput
from ragcov_tui.store import open_db
from ragcov_tui.store import queries as q
from tests.support.synthetic_sessions import make_analysis_session, make_eval_session


@pytest.fixture(scope="module")
def db():
    db = open_db(":memory:")
    make_analysis_session(db, n_chunks=3000, n_questions=60)
    make_analysis_session(
        db, sid="a0000002", n_chunks=50, n_questions=10, created_at="2025-01-03T10:00:00+00:00", seed=3
    )
    make_eval_session(db, n_questions=120)
    return db


def test_cluster_chunks_are_paged_least_covered_first(db) -> None:
    clusters = q.cluster_rows(db, "a0000001")
    assert sum(c["size"] for c in clusters) == 3000
    assert sum(c["covering"] for c in clusters) == q.analysis_report(db, "a0000001")["questions"]["inliers"]
    page = q.cluster_chunk_page(db, "a0000001", 0, offset=10, limit=20)
    assert page.total == clusters[0]["size"] and len(page.rows) == 20
    dists = [r.mindist for r in page.rows]
    assert None not in dists and dists == sorted((d for d in dists if d is not None), reverse=True)


def test_map_is_downsampled_and_histogram_counts_every_chunk(db) -> None:
    points = q.map_points(db, "a0000001", max_chunks=500)
    assert points.chunk_total == 3000 and 400 <= len(points.chunks) <= 500
    assert len(points.questions) == 60
    edges, counts = q.mindist_histogram(db, "a0000001", bins=10)
    assert len(edges) == 10 and sum(counts) == 3000
    assert q.histogram([0.0, 0.5, 1.0, 2.0], 2, 0.0, 1.0) == [1, 3]


def test_outliers_by_lof_and_redundant_pairs_once(db) -> None:
    page = q.outlier_page(db, "a0000001", limit=5)
    lofs = [r.lof_score for r in page.rows]
    assert None not in lofs and lofs == sorted((x for x in lofs if x is not None), reverse=True) and page.total == 6
    pairs = q.redundant_pairs(db, "a0000001")
    assert pairs and all(p["a"] < p["b"] for p in pairs)
    assert len({(p["a"], p["b"]) for p in pairs}) == len(pairs)


def test_documents_least_covered_first(db) -> None:
    rows = q.document_page(db, "a0000001").rows
    assert [r["rank"] for r in rows] == list(range(1, len(rows) + 1))  # the report's document view
    reaches = [r["reach"] for r in rows]
    assert reaches == sorted(reaches, key=lambda reach: -1.0 if reach is None else reach) and None not in reaches
    report = q.analysis_report(db, "a0000001")  # a report written before ranks existed: flagged first, as before
    report["documents"] = [{k: v for k, v in d.items() if k != "rank"} for d in report["documents"]]
    with db.conn:
        db.conn.execute("UPDATE reports SET report = ? WHERE session_id = 'a0000001'", [json.dumps(report)])
    flags = [r["flagged"] for r in q.document_page(db, "a0000001").rows]
    assert flags == sorted(flags, reverse=True) and flags[0]


def test_trend_oldest_first(db) -> None:
    series = q.trend(db, "/data/questions.jsonl", "analysis")
    assert set(series) == set(q.ANALYSIS_TREND) and len(series["basic"]) == 2


def test_eval_sort_filter_and_compare(db) -> None:
    page = q.eval_page(db, "e0000001", sort="faithfulness", descending=True, limit=200)
    values = [r.generation.get("faithfulness") for r in page.rows]
    defined = [v for v in values if v is not None]
    assert defined == sorted(defined, reverse=True) and values[-1] is None  # error rows last
    low = q.eval_page(db, "e0000001", query="faithfulness<0.5", limit=500)
    assert low.total > 0 and all((f := r.generation["faithfulness"]) is not None and f < 0.5 for r in low.rows)
    text = q.eval_page(db, "e0000001", query="[/INST]")
    assert [r.question_id for r in text.rows] == ["q00000"]
    assert q.eval_page(db, "e0000001", query="100%").total == 0
    with pytest.raises(BadInput, match="unknown column"):
        q.eval_page(db, "e0000001", sort="nope")


def test_eval_aggregates_have_spread(db) -> None:
    agg = q.eval_aggregates(db, "e0000001")
    faith = agg["generation"]["faithfulness"]
    values = q.metric_values(db, "e0000001", "faithfulness")
    mean = sum(values) / len(values)
    assert faith.n == len(values) and math.isclose(faith.mean, mean)
    assert math.isclose(faith.std, math.sqrt(sum((v - mean) ** 2 for v in values) / len(values)), rel_tol=1e-6)
    assert list(agg["retrieval"])[:2] == ["precision@5", "recall@5"]
    detail = q.eval_detail(db, "e0000001", "q00001")
    assert detail is not None and detail.details["generation_details"]["faithfulness"]["claims"]
    assert q.eval_detail(db, "e0000001", "no such item") is None


def test_metric_names_come_from_every_item_when_the_first_failed() -> None:
    """Issue #22 §1: a failed item stores ``{}``; the names (and so sorting, filtering, histograms)
    are the union over the items, in the order they first appear, for a run without its report yet."""
    db = open_db(":memory:")
    make_eval_session(db, n_questions=30)
    before = q.eval_metric_keys(db, "e0000001")
    with db.conn:
        db.conn.execute(
            "UPDATE eval_items SET status = 'error', retrieval = '{}', generation = '{}' "
            "WHERE session_id = 'e0000001' AND seq = 0"
        )
    assert q.eval_metric_keys(db, "e0000001") == before and "faithfulness" in before["generation"]
    assert list(q.eval_aggregates(db, "e0000001")["retrieval"]) == [
        m for m in before["retrieval"] if q.metric_values(db, "e0000001", m)
    ]
    assert q.eval_page(db, "e0000001", query="faithfulness<0.5").total > 0
    assert q.metric_values(db, "e0000001", "faithfulness")


def test_a_finished_run_names_what_it_measured() -> None:
    db = open_db(":memory:")
    make_eval_session(db, n_questions=5)
    with db.conn:
        db.conn.execute("UPDATE eval_items SET status = 'error', retrieval = '{}', generation = '{}'")
        db.conn.execute(
            "INSERT INTO reports (session_id, report) VALUES ('e0000001', ?)",
            [json.dumps({"metrics": {"retrieval": ["mrr"], "generation": ["faithfulness"]}})],
        )
    assert q.eval_metric_keys(db, "e0000001") == {"retrieval": ["mrr"], "generation": ["faithfulness"]}
    assert q.eval_page(db, "e0000001", sort="mrr").total == 5
