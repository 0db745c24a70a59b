"""The eval job end to end on a tiny corpus with builtin:bm25, storage, and resume after a kill."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragcov_tui.evaluation.systems.base import SystemOutput
from ragcov_tui.services.eval_job import EvalOptions, run_eval
from ragcov_tui.shared.errors import BadInput, Cancelled
from ragcov_tui.store.db import open_db
from ragcov_tui.store.evals import done_ids, load_eval_items, load_eval_report
from tests.support.present import present
from tests.support.stored import stored_session

DOCS = {
    "billing.md": "Invoices are sent on the first day of each month. Payment is due within 30 days of the invoice.",
    "security.md": "Passwords must have at least twelve characters. Two-factor login uses an authenticator app.",
    "setup.md": "Install the agent with the installer. Restart the server after the install finishes.",
}
QUESTIONS = [
    {"id": "q1", "question": "When are invoices sent?", "gold_doc_ids": ["billing.md"]},
    {"id": "q2", "question": "How many characters must passwords have?", "relevant_doc_ids": {"security.md": 2}},
    {"id": "q3", "question": "What do I restart after the install?", "gold_chunk_ids": ["setup.md#nope"]},
    {"id": "q4", "question": "Which app does two-factor login use?"},
    {"id": "q5", "question": "Is payment due within 30 days?", "gold_doc_ids": ["security.md"]},
]
RETRIEVAL = ["retrieval"]


@pytest.fixture()
def workspace(tmp_path: Path) -> dict:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for name, text in DOCS.items():
        (corpus / name).write_text(text)
    questions = tmp_path / "questions.jsonl"
    questions.write_text("".join(json.dumps(q) + "\n" for q in QUESTIONS))
    return {"corpus": str(corpus), "questions": str(questions), "db": open_db(":memory:"), "tmp": tmp_path}


def _options(ws: dict, **kw) -> EvalOptions:
    base = dict(
        questions=ws["questions"],
        system="builtin:bm25",
        corpus=[ws["corpus"]],
        embedder="hash",
        metrics=RETRIEVAL,
        k=1,
        concurrency=4,
    )
    return EvalOptions(**{**base, **kw})


def test_builtin_bm25_end_to_end(workspace: dict) -> None:
    sid, report = run_eval(_options(workspace), workspace["db"])
    # retrieval metrics only: the builtin system retrieves and writes no (extractive) answer
    assert report["k"] == 1 and report["system"] == "builtin:bm25" and report["answer_label"] == "retrieval only"
    by_id = {q["id"]: q for q in report["questions"]}
    assert [q["id"] for q in report["questions"]] == ["q1", "q2", "q3", "q4", "q5"]
    assert by_id["q1"]["level"] == "document" and by_id["q1"]["retrieval"]["hit@1"] == 1.0
    assert by_id["q1"]["diagnosis"] == "ok"  # retrieval fine, generation not asked for: retrieval decides
    assert by_id["q2"]["retrieval"]["ndcg@1"] == 1.0
    assert by_id["q3"]["level"] == "chunk" and by_id["q3"]["diagnosis"] == "retrieval_failure"
    assert by_id["q4"]["diagnosis"] == "no_gold" and by_id["q4"]["retrieval"]["mrr"] is None
    assert by_id["q5"]["diagnosis"] in ("ranking_failure", "retrieval_failure")
    agg = report["aggregate"]["retrieval"]
    assert set(agg) == {"precision@1", "recall@1", "hit@1", "mrr", "ndcg@1", "map"}
    assert agg["hit@1"]["n"] == 4 and agg["hit@1"]["mean"] == pytest.approx(0.5)
    assert report["aggregate"]["generation"] == {}
    assert report["counts"]["with_gold"] == 4 and report["counts"]["done"] == 5
    assert by_id["q1"]["answer"] == "" and not any(c["cited"] for c in by_id["q1"]["retrieved"])
    # the stored session gives back the same report
    assert load_eval_report(workspace["db"], sid) == report
    session = stored_session(workspace["db"], sid)
    assert session["status"] == "done" and present(session["summary"])["means"]["retrieval.hit@1"] == pytest.approx(0.5)


class CountingSystem:
    """A python: system that counts its calls (the resume test's witness)."""

    calls: list[str] = []

    name = "counting"

    def answer(self, question: str) -> SystemOutput:
        type(self).calls.append(question)
        return SystemOutput(answer="", contexts=[])


def test_resume_after_interruption_skips_done_items(workspace: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("ragcov_tui.services.eval_job.make_system", lambda *a, **k: CountingSystem())
    CountingSystem.calls = []
    seen: list[int] = []

    def kill_after_two(stage: str, done: int, total: int) -> None:
        if stage == "evaluating" and done >= 2:
            seen.append(done)
            raise Cancelled("killed")

    db = workspace["db"]
    with pytest.raises(Cancelled):
        run_eval(_options(workspace, concurrency=1), db, progress=kill_after_two)
    sid = next(iter(db.query("SELECT id FROM sessions")))["id"]
    assert stored_session(db, sid)["status"] == "cancelled"
    assert done_ids(db, sid) == {"q1", "q2"} and len(CountingSystem.calls) == 2

    CountingSystem.calls = []
    sid2, report = run_eval(_options(workspace, concurrency=1, resume=sid), db)
    assert sid2 == sid and len(CountingSystem.calls) == 3  # only q3..q5 ran again
    assert [q["id"] for q in report["questions"]] == ["q1", "q2", "q3", "q4", "q5"]
    assert report["skipped_done"] == 2 and stored_session(db, sid)["status"] == "done"


def test_resume_refuses_changed_settings(workspace: dict) -> None:
    sid, _ = run_eval(_options(workspace), workspace["db"])
    with pytest.raises(BadInput, match="different k"):
        run_eval(_options(workspace, k=3, resume=sid), workspace["db"])


def test_system_failure_is_an_item_error_not_a_crash(workspace: dict) -> None:
    records = workspace["tmp"] / "records.jsonl"
    records.write_text(json.dumps({"id": "q1", "answer": "On the first day.", "retrieved_ids": ["billing.md"]}) + "\n")
    sid, report = run_eval(_options(workspace, system=f"records:{records}"), workspace["db"])
    by_id = {q["id"]: q for q in report["questions"]}
    assert by_id["q1"]["status"] == "done" and by_id["q1"]["retrieval"]["hit@1"] == 1.0
    assert by_id["q2"]["status"] == "error" and "no record" in (by_id["q2"]["error"] or "")
    assert report["counts"]["errors"] == 4 and report["aggregate"]["retrieval"]["hit@1"]["n"] == 1
    assert {e["id"] for e in report["errors"]} == {"q2", "q3", "q4", "q5"}
    assert len(load_eval_items(workspace["db"], sid, status="error")) == 4


def test_bad_options(workspace: dict) -> None:
    with pytest.raises(BadInput, match="--k"):
        run_eval(_options(workspace, k=0), workspace["db"])
    with pytest.raises(BadInput, match="unknown metric 'bleu'"):
        run_eval(_options(workspace, metrics=["bleu"]), workspace["db"])
    with pytest.raises(BadInput, match="does not match --k 1"):
        run_eval(_options(workspace, metrics="ndcg@10"), workspace["db"])


def test_llm_judged_run_then_warm_cache_rerun_makes_no_calls(workspace: dict, judge_server) -> None:
    metrics = ["retrieval", "faithfulness", "answer_relevance", "answer_correctness", "context_recall"]
    opts = _options(workspace, judge_llm="openai:judge", metrics=metrics, k=2, repeats=2)
    sid, report = run_eval(opts, workspace["db"])
    assert report["judge"] == "llm:openai:judge" and report["repeats"] == 2
    calls = judge_server.count("/chat/completions")
    assert calls > 0 and report["usage"]["llm_calls"] == calls
    faith = report["aggregate"]["generation"]["faithfulness"]
    assert faith["n"] == 5 and 0 <= present(faith["mean"]) <= 1 and faith["judge_spread"] == 0.0
    items = load_eval_items(workspace["db"], sid)
    assert all(i["judge_calls"] and i["judge_calls"][0]["prompt"] for i in items)  # transcripts kept per item

    _, again = run_eval(opts, workspace["db"])
    assert judge_server.count("/chat/completions") == calls  # all served from the LLM cache
    assert again["usage"]["llm_calls"] == 0 and again["usage"]["llm_cached"] == calls
    assert again["aggregate"] == report["aggregate"]


def test_malformed_judge_replies_are_errors_not_zeros(workspace: dict, judge_server) -> None:
    judge_server.chat_handler = lambda messages, body: "this is not JSON"
    _, report = run_eval(
        _options(
            workspace, judge_llm="openai:judge", metrics=["answer_relevance"], no_preflight=True
        ),  # the probe would stop the run: pinned elsewhere
        workspace["db"],
    )
    assert report["aggregate"]["generation"]["answer_relevance"] == {"mean": None, "n": 0, "std": None}
    assert {e["metric"] for e in report["errors"]} == {"answer_relevance"} and len(report["errors"]) == 5
    assert all(q["generation"]["answer_relevance"] is None for q in report["questions"])


SAMPLE = Path(__file__).resolve().parents[2] / "sample_data"


@pytest.mark.skipif(not (SAMPLE / "questions.jsonl").exists(), reason="sample_data/questions.jsonl not present")
def test_sample_data_end_to_end_offline_all_metrics() -> None:
    opts = EvalOptions(
        questions=str(SAMPLE / "questions.jsonl"),
        system="builtin:bm25",
        corpus=[str(SAMPLE / "corpus")],
        embedder="hash",
        k=5,
    )
    sid, report = run_eval(opts, open_db(":memory:"))
    assert {"k", "aggregate", "questions"} <= set(report) and report["judge"] == "heuristic"
    assert report["answer_label"] == "extractive" and report["counts"]["errors"] == 0
    assert set(report["aggregate"]["retrieval"]) == {"precision@5", "recall@5", "hit@5", "mrr", "ndcg@5", "map"}
    assert present(report["aggregate"]["retrieval"]["hit@5"]["mean"]) > 0.5
    assert report["aggregate"]["generation"]["robustness"]["n"] > 0  # the test file has paraphrases
    for q in report["questions"]:
        assert {"id", "retrieval", "generation", "diagnosis"} <= set(q)
        for value in [*q["retrieval"].values(), *q["generation"].values()]:
            assert value is None or 0.0 <= value <= 1.0  # never NaN
    assert json.loads(json.dumps(report, allow_nan=False)) == report


def test_generated_paraphrases_feed_robustness(workspace: dict, judge_server) -> None:
    opts = _options(
        workspace, paraphrase_llm="openai:judge", paraphrases=2, metrics=["retrieval_stability", "robustness"]
    )
    sid, report = run_eval(opts, workspace["db"])
    item = load_eval_items(workspace["db"], sid)[0]
    paraphrases = present(item["paraphrases"])
    assert paraphrases["source"] == "llm:openai:judge" and len(paraphrases["items"]) == 2
    assert report["aggregate"]["generation"]["retrieval_stability"]["n"] == 5
    assert report["judge"] == "heuristic"  # paraphrases came from an LLM, the judging did not


def test_paraphrases_without_llm_warn(workspace: dict) -> None:
    warnings: list[str] = []
    run_eval(_options(workspace, paraphrases=2, metrics=["robustness"]), workspace["db"], warn=warnings.append)
    assert any("no LLM to generate paraphrases" in w for w in warnings)


def test_test_file_with_outputs_is_its_own_records_file(workspace: dict) -> None:
    rows = [
        {
            "id": "a",
            "user_input": "When are invoices sent?",
            "response": "Monthly.",
            "retrieved_context_ids": ["billing.md", "setup.md"],
            "gold_doc_ids": ["setup.md"],
        }
    ]
    path = workspace["tmp"] / "with_outputs.jsonl"
    path.write_text(json.dumps(rows[0]) + "\n")
    _, report = run_eval(_options(workspace, questions=str(path), system=f"records:{path}", k=2), workspace["db"])
    [q] = report["questions"]
    assert q["answer"] == "Monthly." and q["retrieval"]["mrr"] == 0.5 and q["level"] == "document"
