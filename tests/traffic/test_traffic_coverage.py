"""Traffic coverage maths on hand-made vectors where every figure is known."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ragcov_tui.coverage.traffic import TrafficParams, analyze_traffic
from ragcov_tui.store import open_db
from ragcov_tui.store.sessions import create_session
from ragcov_tui.store.traffic import load_traffic, save_traffic, traffic_points, traffic_queries
from ragcov_tui.traffic.reader import TrafficLog

DIM = 8


def unit(*pairs: tuple[int, float]) -> np.ndarray:
    v = np.zeros(DIM, dtype=np.float32)
    for axis, value in pairs:
        v[axis] = value
    return v / np.linalg.norm(v)


def near(axis: int, jitter: int, eps: float = 0.15) -> np.ndarray:
    """A vector close to ``axis`` with a small component on axis 7 (signed by ``jitter``)."""
    return unit((axis, 1.0), (7, eps * jitter))


# topics on axes: 0 billing (tested), 1 editor (never tested), 2 webhooks (tested, never asked), 5 off-corpus
CHUNKS = np.stack([near(0, 1), near(0, -1), near(1, 1), near(1, -1), near(2, 1), near(2, -1)])
QUESTIONS = np.stack([near(0, 1, 0.3), near(0, -1, 0.3), near(2, 1, 0.3), unit((6, 1.0))])  # q4 an outlier
INLIER = np.array([True, True, True, False])
TEXTS = ["price team", "price business", "invoice pdf", "restore page", "undo edit", "page history", "weather"]
COUNTS = [10, 6, 4, 30, 20, 10, 5]
TRAFFIC = np.stack(
    [
        near(0, 1, 0.2),
        near(0, -1, 0.2),
        near(0, 1, 0.25),
        near(1, 1, 0.2),
        near(1, -1, 0.2),
        near(1, 1, 0.25),
        unit((5, 1.0)),
    ]
)


def log(texts=TEXTS, counts=COUNTS) -> TrafficLog:
    return TrafficLog(
        "log.jsonl",
        list(texts),
        np.asarray(counts, dtype=np.int64),
        [None] * len(texts),
        [None] * len(texts),
        len(texts),
    )


def question_chunk_dist() -> np.ndarray:
    return 1.0 - (QUESTIONS @ CHUNKS.T).max(axis=1)


def run(traffic=TRAFFIC, the_log=None, inlier=INLIER, **params):
    return analyze_traffic(
        the_log or log(),
        traffic,
        CHUNKS,
        QUESTIONS,
        inlier=inlier,
        question_chunk_dist=question_chunk_dist(),
        question_ids=["q1", "q2", "q3", "q4"],
        question_texts=["t1", "t2", "t3", "t4"],
        chunk_ids=[f"c{i}" for i in range(6)],
        chunk_xy=np.arange(12, dtype=float).reshape(6, 2),
        params=TrafficParams(**params),
    )


def cluster_of(result, text: str):
    label = int(result.labels[TEXTS.index(text)])
    return next(c for c in result.clusters if c.id == label)


def test_off_corpus_query_is_a_content_gap_not_a_test_gap() -> None:
    r = run()
    assert r.answerable.tolist() == [True] * 6 + [False]
    report = r.to_report()
    gap = report["content_gap"]
    assert gap["queries"] == 1 and gap["count"] == 5 and gap["share"] == pytest.approx(5 / 85)
    assert [e["text"] for e in gap["examples"]] == ["weather"]
    assert gap["threshold"] is not None and "percentile" in gap["rule"] and "robust spreads" in gap["rule"]
    assert report["answerable_share"] == pytest.approx(80 / 85)


def test_untested_topic_ranks_first_with_priority_share_times_deficit() -> None:
    r = run()
    editor, billing = cluster_of(r, "restore page"), cluster_of(r, "price team")
    assert editor.id != billing.id and r.clusters[0].id == editor.id
    assert editor.untested and not billing.untested
    rows = [i for i in range(6) if r.labels[i] == editor.id]  # answerable ones: 'weather' (K = 2) is left out
    w = np.array([COUNTS[i] for i in rows], dtype=float)
    cov = float((w * r.question_sim[rows]).sum() / w.sum())
    assert editor.coverage == pytest.approx(cov)
    assert editor.priority == pytest.approx(w.sum() / 85 * (1 - cov))
    assert billing.coverage > 0.9 > editor.coverage
    assert [e["text"] for e in editor.examples] == ["restore page", "undo edit", "page history", "weather"]
    assert editor.examples[0]["count"] == 30 and editor.count == 65 and editor.share == pytest.approx(65 / 85)
    assert editor.answerable_share == pytest.approx(60 / 85)


def test_whole_log_coverage_is_the_count_weighted_mean_over_answerable_queries() -> None:
    r = run()
    w = np.array(COUNTS[:6], dtype=float)
    assert r.coverage == pytest.approx(float((w * r.question_sim[:6]).sum() / w.sum()))


def test_tested_topic_nobody_asks_about_is_listed() -> None:
    unasked = run().to_report()["unasked_questions"]
    assert [q["id"] for q in unasked["questions"]] == ["q3"]  # webhooks: tested, never asked; q4 is an outlier
    assert unasked["questions"][0]["text"] == "t3" and unasked["threshold"] is not None


def test_nearest_question_ids_skip_outliers_and_map_positions_follow_nearest_chunk() -> None:
    r = run()
    details = r.to_report()["details"]
    assert {d["nearest_question"] for d in details} <= {"q1", "q2", "q3"}
    for d in details:
        i = int(d["nearest_chunk"][1:])
        assert (d["x"], d["y"]) == (2.0 * i, 2.0 * i + 1)


def test_without_inliers_nothing_is_invented() -> None:
    r = run(inlier=np.zeros(4, dtype=bool))
    report = r.to_report()
    assert report["coverage"] is None
    assert all(c["coverage"] is None and c["priority"] == 0.0 and not c["untested"] for c in report["clusters"])
    assert report["unasked_questions"]["questions"] == [] and report["unasked_questions"]["threshold"] is None
    assert "no inlier test question" in report["content_gap"]["rule"]
    assert all(d["nearest_question"] is None and d["question_similarity"] is None for d in report["details"])


def test_one_distinct_query_and_determinism() -> None:
    one = run(traffic=TRAFFIC[:1], the_log=log(TEXTS[:1], [3]))
    assert len(one.clusters) == 1 and one.clusters[0].share == 1.0
    a, b = run().to_report(), run().to_report()
    assert a == b


def test_every_number_in_the_report_is_finite() -> None:
    def walk(value):
        if isinstance(value, float):
            assert np.isfinite(value)
        elif isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    walk(run().to_report())


def test_store_round_trip_and_pages(tmp_path: Path) -> None:
    db = open_db(tmp_path / "r.db")
    sid = create_session(
        db,
        "analysis",
        corpus=[],
        questions_path="q.jsonl",
        testset_sha256="x",
        embedder="hash",
        llm="heuristic",
        params={},
    )
    section = run().to_report()
    save_traffic(db, sid, section)
    assert load_traffic(db, sid) == section
    section = load_traffic(db, sid, details=False)
    assert section is not None and "details" not in section
    page = traffic_queries(db, sid, answerable=False)
    assert page.total == 1 and page.rows[0]["text"] == "weather" and page.rows[0]["answerable"] is False
    editor = cluster_of(run(), "restore page").id
    page = traffic_queries(db, sid, cluster=editor, limit=2)
    assert page.total == 4 and [r["count"] for r in page.rows] == [30, 20]
    assert len(traffic_points(db, sid)) == 6
    with db.conn:
        db.conn.execute("DELETE FROM sessions WHERE id = ?", [sid])
    assert load_traffic(db, sid) is None and traffic_queries(db, sid).total == 0
