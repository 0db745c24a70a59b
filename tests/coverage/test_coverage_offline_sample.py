"""Issue #16 done-when, on sample_data offline (the default local embedder, no LLM): distinctive
themes, at least one phrase per cluster, no suggestion that repeats a test question."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ragcov_tui.coverage.suggest_offline import COSINE_DUPLICATE
from ragcov_tui.embeddings.factory import make_embedder
from ragcov_tui.services.analysis_job import AnalyzeOptions, run_analysis
from ragcov_tui.store.db import open_db
from ragcov_tui.testset.reader import read_testset

pytestmark = pytest.mark.slow
SAMPLE = Path(__file__).resolve().parents[2] / "sample_data"


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory):
    db = open_db(str(tmp_path_factory.mktemp("offline") / "ragcov.db"))
    _, report = run_analysis(
        AnalyzeOptions(corpus=[str(SAMPLE / "corpus")], questions=str(SAMPLE / "questions.jsonl")), db
    )
    return report, db


def test_no_theme_word_is_shared_by_more_than_a_third_of_the_clusters(sample) -> None:
    report, _ = sample
    clusters = report["clusters"]
    words = [{w.lower() for theme in c["themes"] for w in theme.split()} for c in clusters]
    cap = max(1, len(clusters) // 3)
    for w in set().union(*words):
        assert sum(w in ws for ws in words) <= cap, (w, [c["themes"] for c in clusters])
    assert all(3 <= len(c["themes"]) <= 5 for c in clusters)
    assert not any("skein" in theme.lower() for c in clusters for theme in c["themes"])  # the product name


def test_every_cluster_has_a_phrase_theme(sample) -> None:
    report, _ = sample
    for c in report["clusters"]:
        assert any(len(theme.split()) >= 2 for theme in c["themes"]), c["themes"]


def test_no_suggestion_repeats_a_test_question(sample) -> None:
    report, db = sample
    questions = [q.text for q in read_testset(str(SAMPLE / "questions.jsonl")).questions]
    suggestions = [s for g in report["gaps"] for s in g["suggested_questions"]]
    assert suggestions
    embedder = make_embedder("local", db=db)
    S, Q = embedder.embed([s["text"] for s in suggestions]), embedder.embed(questions)
    assert float((S @ Q.T).max()) < COSINE_DUPLICATE
    chunk_ids = {d["id"] for d in report["chunk_details"]}
    for s in suggestions:
        assert s["origin"] == "heuristic" and s["chunk_id"] in chunk_ids and s["form"] == "question"
        assert s["text"].endswith("?") and not s["text"].startswith(("Is it true that", "What does the documentation"))
    assert len({s["text"].lower() for s in suggestions}) == len(suggestions)
    assert np.isfinite(S).all()


def test_stored_suggestions_keep_the_chunk_and_form_the_report_gives(sample) -> None:
    report, db = sample
    stored = db.execute(
        "SELECT cluster, text, chunk_id, form FROM suggestions WHERE session_id = ? ORDER BY id", [report["session_id"]]
    ).fetchall()
    assert stored == [
        (g["cluster"], s["text"], s["chunk_id"], s["form"]) for g in report["gaps"] for s in g["suggested_questions"]
    ]
