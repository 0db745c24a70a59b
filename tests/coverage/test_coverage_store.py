import time

import pytest

from ragcov_tui.coverage.analysis import analyze
from ragcov_tui.coverage.params import CoverageParams
from ragcov_tui.store.analysis import load_analysis_report, save_analysis
from ragcov_tui.store.db import open_db
from ragcov_tui.store.sessions import create_session
from tests.coverage.coverage_data import topic_data


def stored(result, chunks, questions, **session):
    db = open_db(":memory:")
    sid = create_session(db, "analysis", **session)
    save_analysis(db, sid, result, chunks, questions)
    return db, sid


def test_save_load_round_trip_equals_to_report():
    C, Q, chunks, questions, _ = topic_data(seed=0)
    result = analyze(C, Q, chunks, questions, CoverageParams(max_projection_points=60))
    result.embedder = {"provider": "local", "model": "all-MiniLM-L6-v2"}
    db, sid = stored(result, chunks, questions)
    result.session_id = sid
    assert load_analysis_report(db, sid) == result.to_report()
    assert load_analysis_report(db, sid, details=False) == result.to_report(details=False)
    n_sugg = sum(len(g["suggested_questions"]) for g in result.to_report()["gaps"])
    assert db["suggestions"].count == n_sugg and db["chunks"].count == len(chunks)
    assert db["questions"].count == len(questions)


def test_embedder_filled_from_the_session_row_and_undefined_stays_null():
    C, Q, chunks, questions, _ = topic_data(seed=1, n_off=0)
    result = analyze(C, Q[:2], chunks, questions[:2], CoverageParams(lof_threshold=0.0, max_projection_points=40))
    db, sid = stored(result, chunks, questions[:2], embedder="local:all-MiniLM-L6-v2", llm="heuristic")
    report = load_analysis_report(db, sid)
    assert report["embedder"] == {"provider": "local", "model": "all-MiniLM-L6-v2", "dim": C.shape[1]}
    assert report["llm"] == "heuristic" and report["coverage"]["basic"] is None
    assert all(d["mindist"] is None for d in report["chunk_details"])


@pytest.mark.slow
def test_bulk_save_of_100k_chunks_is_fast():
    C, Q, chunks, questions, _ = topic_data(seed=2, per_topic=20_000, dim=16, n_off=0)
    result = analyze(C, Q, chunks, questions, CoverageParams(clusters=5, max_projection_points=200))
    t = time.perf_counter()
    db, sid = stored(result, chunks, questions)
    assert time.perf_counter() - t < 10
    assert db["chunk_results"].count == 100_000
    assert len(load_analysis_report(db, sid)["chunk_details"]) == 100_000
