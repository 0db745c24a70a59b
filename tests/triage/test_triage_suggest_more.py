"""`g` in Gaps: more suggestions from an LLM (a real local OpenAI-protocol server), rejected ones filtered."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragcov_tui.services import suggestions, triage
from ragcov_tui.shared.errors import BadInput
from ragcov_tui.store import open_db
from tests.support.fake_api import FakeAPIServer
from tests.support.models import chat_model
from tests.support.synthetic_sessions import make_analysis_session


def test_suggest_more_stores_new_questions_and_skips_rejected(tmp_path: Path, monkeypatch) -> None:
    db = open_db(":memory:")
    sid = make_analysis_session(db, testset_dir=tmp_path, n_chunks=100, n_questions=10)
    cluster, first_id, first_text = db.execute(
        "SELECT cluster, id, text FROM suggestions ORDER BY id LIMIT 1"
    ).fetchone()
    triage.reject_suggestion(db, sid, first_id)
    with FakeAPIServer() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        server.chat_handler = lambda messages, body: json.dumps(
            {"questions": [first_text.lower(), "How are [bold]webhooks[/bold] retried?", "What is the backup policy?"]}
        )
        llm = chat_model("openai:gpt-test", db=db)
        added = suggestions.suggest_more(db, sid, cluster, llm)
        prompt = server.requests[-1].body["messages"]
        assert "passages" in prompt[0]["content"] and "[c" in prompt[1]["content"]
        server.chat_handler = lambda messages, body: '{"nope": 1}'
        with pytest.raises(BadInput, match="no usable suggestions"):
            suggestions.suggest_more(db, sid, cluster, chat_model("openai:gpt-other", db=db))
    in_added = ",".join(map(str, added))
    texts = [t for (t,) in db.execute(f"SELECT text FROM suggestions WHERE id IN ({in_added})")]
    assert texts == ["How are [bold]webhooks[/bold] retried?", "What is the backup policy?"]
    origins = {o for (o,) in db.execute(f"SELECT origin FROM suggestions WHERE id IN ({in_added})")}
    assert origins == {"llm:openai:gpt-test"}


def _markdown_cluster(db, sid: str, cluster: int) -> None:
    """Give one cluster's chunks Markdown text with a distinct heading each (least covered = highest mindist)."""
    ids = [
        c
        for (c,) in db.execute(
            "SELECT chunk_id FROM chunk_results WHERE session_id = ? AND cluster = ? ORDER BY mindist DESC",
            [sid, cluster],
        )
    ]
    with db.conn:
        for i, cid in enumerate(ids):
            db.execute(
                "UPDATE chunks SET text = ? WHERE session_id = ? AND chunk_id = ?",
                [
                    f"# Webhooks\n\n## Replaying delivery batch {i}\n\nEach batch can be replayed from the console.",
                    sid,
                    cid,
                ],
            )


def test_heuristic_more_suggestions_go_down_the_least_covered_chunks_and_skip_taken_texts(tmp_path: Path) -> None:
    db = open_db(":memory:")
    sid = make_analysis_session(db, testset_dir=tmp_path, n_chunks=100, n_questions=10)
    cluster = db.execute("SELECT cluster FROM suggestions ORDER BY id LIMIT 1").fetchone()[0]
    _markdown_cluster(db, sid, cluster)
    testset = tmp_path / "questions.jsonl"
    with testset.open("a", encoding="utf-8") as f:  # already in the file: never suggested
        f.write(json.dumps({"id": "mine", "question": "How do I replay delivery batch 0?"}) + "\n")
    first = suggestions.suggest_more_heuristic(db, sid, cluster, n=2)
    texts = [
        t for (t,) in db.execute(f"SELECT text FROM suggestions WHERE id IN ({','.join(map(str, first))}) ORDER BY id")
    ]
    assert texts == ["How do I replay delivery batch 1?", "How do I replay delivery batch 2?"]
    assert {o for (o,) in db.execute("SELECT origin FROM suggestions WHERE id = ?", [first[0]])} == {"heuristic"}
    sources = db.execute(
        f"SELECT s.form, r.cluster FROM suggestions s JOIN chunk_results r ON r.session_id = s.session_id"
        f" AND r.chunk_id = s.chunk_id WHERE s.id IN ({','.join(map(str, first))})"
    ).fetchall()
    assert sources == [("question", cluster)] * 2  # each names the gap's chunk it was written from
    triage.reject_suggestion(db, sid, first[0])
    again, origin = suggestions.more_suggestions(db, sid, cluster, n=2)  # the session ran without an LLM: heuristic
    later = [
        t for (t,) in db.execute(f"SELECT text FROM suggestions WHERE id IN ({','.join(map(str, again))}) ORDER BY id")
    ]
    assert origin == "heuristic" and later == ["How do I replay delivery batch 3?", "How do I replay delivery batch 4?"]
    with pytest.raises(BadInput, match="cluster 99"):
        suggestions.suggest_more_heuristic(db, sid, 99)


def test_heuristic_more_suggestions_check_meaning_with_the_sessions_embedder(tmp_path: Path) -> None:
    from ragcov_tui.services.analysis_job import AnalyzeOptions, run_analysis

    corpus = tmp_path / "docs"
    corpus.mkdir()
    for i in range(6):
        (corpus / f"d{i}.md").write_text(
            f"# Topic {i}\n\n## Rotating key set {i}\n\nEvery key of set {i} rotates daily.\n"
        )
    questions = tmp_path / "q.jsonl"
    questions.write_text(json.dumps({"id": "q1", "question": "How do I rotate key set 0?"}) + "\n")
    db = open_db(str(tmp_path / "r.db"))
    sid, report = run_analysis(
        AnalyzeOptions(corpus=[str(corpus)], questions=str(questions), embedder="hash", clusters=2), db
    )
    vecs, embed = suggestions.paraphrase_check(db, sid)
    assert vecs is not None and vecs.shape[0] == 1 and embed is not None
    again = embed(["How do I rotate key set 0?"]) @ vecs.T
    assert float(again.max()) > 0.99  # the same embedder: a repeat would be caught by meaning too
    synthetic = open_db(":memory:")
    assert suggestions.paraphrase_check(synthetic, make_analysis_session(synthetic, testset_dir=tmp_path)) == (
        None,
        None,
    )
