"""A judge reply that is not a finite score in [0, 1] is a failed judgement, never a clamped score.

A fake OpenAI-compatible server on 127.0.0.1 plays the judge. For every hostile reply (``NaN``,
``Infinity``, ``2``, ``-1``, ``"0.5"``, ``null``…) each question fails on that metric, after one
repair turn; the run goes on and is stored with no NaN; the summary counts failed *questions*; a
run where no judgement succeeded exits 1; the unusable replies leave the LLM cache, so ``--resume``
really re-judges the failed questions (counted on the server) and then stores them done.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragcov_tui.evaluation.report import all_failed, failure_note
from ragcov_tui.llm.json_reply import ReplyError, parse_json_reply
from ragcov_tui.llm.reply_checks import expect_score
from ragcov_tui.services.eval_job import run_eval
from ragcov_tui.store.evals import load_eval_items
from tests.evaluation.eval_integrity import (
    QUESTIONS,
    assert_stored_finite,
    database,
    options,
    report_via_cli,
    write_questions,
)
from tests.evaluation.generation.gen_fake_judge import RuleJudge, kind_of
from tests.support.present import present
from tests.support.stored import stored_session

HOSTILE_SCORES = [
    "NaN",
    "Infinity",
    "-Infinity",
    "1e309",
    "2",
    "-1",
    "1.0000001",
    "-0.01",
    "100",
    '"0.5"',
    '"NaN"',
    "null",
    "true",
    "false",
    "[0.5]",
    '{"value": 0.5}',
    '"high"',
]
GOOD_SCORES = [("0", 0.0), ("1", 1.0), ("0.5", 0.5), ("1.0", 1.0), ("0.0", 0.0), ("1e-3", 0.001)]


class ScriptedJudge(RuleJudge):
    """RuleJudge whose answer-relevance reply is ``{"score": <raw>}`` (per question when ``only``)."""

    def __init__(self, raw: str, only: str | None = None, correctness: str | None = None) -> None:
        super().__init__()
        self.raw, self.only, self.correctness_raw = raw, only, correctness

    def __call__(self, messages: list[dict], body: dict) -> str:
        kind = kind_of(messages[0]["content"])
        hit = self.only is None or self.only in messages[1]["content"]
        if kind == "relevance" and hit:
            with self._lock:
                self.calls[kind] += 1
            return f'{{"score": {self.raw}, "reason": "scripted"}}'
        if kind == "correctness" and hit and self.correctness_raw is not None:
            return self.correctness_raw
        return super().__call__(messages, body)


@pytest.fixture()
def judge(judge_server):
    return judge_server


def _records(tmp: Path) -> str:
    path = tmp / "records.jsonl"
    path.write_text(
        "".join(
            json.dumps({"id": q["id"], "answer": q["ground_truth"], "retrieved_ids": q["gold_doc_ids"]}) + "\n"
            for q in QUESTIONS
        )
    )
    return f"records:{path}"


def _run(tmp: Path, db, metrics: list[str], **kw):
    # no_preflight: a scripted judge answers every prompt alike, so the preflight probe would stop
    # the run before any item (tests/cli/test_cli_eval_preflight.py); these pin the items' handling
    return run_eval(
        options(
            write_questions(tmp),
            _records(tmp),
            judge_llm="openai:judge",
            no_preflight=True,
            metrics=["retrieval", *metrics],
            **kw,
        ),
        db,
    )


@pytest.mark.parametrize("raw", HOSTILE_SCORES)
def test_hostile_judge_score_fails_every_question_then_resume_rejudges(tmp_path: Path, judge, raw: str) -> None:
    judge.chat_handler = ScriptedJudge(raw)
    db, db_path = database(tmp_path)
    sid, report = _run(tmp_path, db, ["answer_relevance"])
    assert judge.count("/chat/completions") == 6  # each question: the reply and one repair turn
    for q in report["questions"]:
        assert q["status"] == "error" and q["generation"]["answer_relevance"] is None
        assert q["error"].startswith("answer_relevance: judge reply unusable")
    assert [e["metric"] for e in report["errors"]] == ["answer_relevance"] * 3
    assert report["counts"] == {**report["counts"], "questions": 3, "done": 0, "errors": 3}
    assert present(failure_note(report)).startswith(
        "3 of 3 questions failed (first: q1: answer_relevance: judge reply unusable"
    )
    assert all_failed(report)
    assert report["aggregate"]["generation"]["answer_relevance"] == {"mean": None, "n": 0, "std": None}
    assert stored_session(db, sid)["status"] == "done"
    assert_stored_finite(db)
    assert not list(db.query("SELECT key FROM llm_cache"))  # unusable replies are not kept
    code, exported = report_via_cli(db_path, sid, tmp_path)
    assert code == 0 and exported["counts"]["errors"] == 3

    judge.chat_handler = ScriptedJudge("0.7")
    sid2, resumed = _run(tmp_path, db, ["answer_relevance"], resume=sid)
    assert sid2 == sid and judge.count("/chat/completions") == 6 + 3  # every failed question re-judged once
    assert [q["status"] for q in resumed["questions"]] == ["done"] * 3 and not resumed["errors"]
    assert resumed["aggregate"]["generation"]["answer_relevance"]["mean"] == pytest.approx(0.7)
    assert failure_note(resumed) is None and not all_failed(resumed)
    assert {i["status"] for i in load_eval_items(db, sid)} == {"done"}


@pytest.mark.parametrize(("raw", "expected"), GOOD_SCORES)
def test_judge_scores_in_range_are_kept_exactly(tmp_path: Path, judge, raw: str, expected: float) -> None:
    judge.chat_handler = ScriptedJudge(raw)
    db, _ = database(tmp_path)
    _, report = _run(tmp_path, db, ["answer_relevance"])
    assert [q["generation"]["answer_relevance"] for q in report["questions"]] == [expected] * 3
    assert judge.count("/chat/completions") == 3 and not report["errors"]


@pytest.mark.parametrize("raw", ["NaN", "2", '"0.5"', "null"])
def test_one_questions_failed_judgement_is_counted_once_and_the_rest_scored(tmp_path: Path, judge, raw: str) -> None:
    judge.chat_handler = ScriptedJudge(raw, only=QUESTIONS[1]["question"], correctness="not json at all")
    db, _ = database(tmp_path)
    _, report = _run(tmp_path, db, ["answer_relevance", "answer_correctness"])
    by_id = {q["id"]: q for q in report["questions"]}
    assert by_id["q2"]["status"] == "error" and by_id["q2"]["error"].endswith("(+1 more metric)")
    assert by_id["q1"]["status"] == by_id["q3"]["status"] == "done"
    assert sorted(e["metric"] for e in report["errors"]) == ["answer_correctness", "answer_relevance"]
    assert present(failure_note(report)).startswith(
        "1 of 3 questions failed (first: q2: answer_correctness: "
    )  # not "2 of 3"
    assert not all_failed(report)
    assert report["aggregate"]["generation"]["answer_relevance"]["n"] == 2


def test_a_judged_run_where_no_judgement_succeeded_is_all_failed(tmp_path: Path, judge) -> None:
    """Some questions have no ground truth (correctness undefined, so they are done), the others'
    judgements all failed: nothing was judged, and the run says so."""
    rows = [{**q, "ground_truth": ""} if q["id"] != "q1" else q for q in QUESTIONS]
    judge.chat_handler = ScriptedJudge("0.5", correctness="{}")
    db, _ = database(tmp_path)
    _, report = run_eval(
        options(
            write_questions(tmp_path, rows),
            _records(tmp_path),
            judge_llm="openai:judge",
            metrics=["answer_correctness"],
            no_preflight=True,
        ),
        db,
    )
    assert report["counts"]["done"] == 2 and report["counts"]["errors"] == 1
    assert all_failed(report)


@pytest.mark.parametrize(
    "text",
    [
        '{"score": NaN}',
        '{"score": Infinity}',
        '{"score": -Infinity}',
        '{"score": 1e309}',
        '```json\n{"score": NaN}\n```',
        'Sure: {"a": [1, {"b": -1e999}]}',
    ],
)
def test_parse_json_reply_refuses_non_finite_numbers(text: str) -> None:
    with pytest.raises(ValueError, match="the reply's JSON is not usable: .*finite"):
        parse_json_reply(text)


def test_parse_json_reply_takes_a_later_finite_candidate() -> None:
    assert parse_json_reply('{"score": NaN} no, I meant {"score": 0.5}') == {"score": 0.5}
    assert parse_json_reply('{"score": 1e308}') == {"score": 1e308}


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        ({"score": 0.5}, None),
        ({"score": 0}, None),
        ({"score": 1}, None),
        ({"score": float("nan")}, "wrong type"),
        ({"score": float("inf")}, "wrong type"),
        ({"score": 2}, "from 0 to 1"),
        ({"score": -1}, "from 0 to 1"),
        ({"score": "0.5"}, "wrong type"),
        ({"score": None}, "wrong type"),
        ({"score": True}, "wrong type"),
        ({}, "wrong type"),
        ([0.5], "expected a JSON object"),
    ],
)
def test_expect_score(data: object, problem: str | None) -> None:
    if problem is None:
        assert expect_score(data) is data
    else:
        with pytest.raises(ReplyError, match=problem):
            expect_score(data)
