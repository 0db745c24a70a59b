"""``ragcov eval`` end to end on a tiny test file: a NaN from a system or a judge is a named question
failure (never a score), the summary counts questions, exit codes say what happened."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from ragcov_tui.cli.main import main
from ragcov_tui.store.db import open_db
from tests.evaluation.conftest import judge_server  # noqa: F401 (the fake OpenAI judge fixture)
from tests.evaluation.eval_integrity import assert_stored_finite, report_via_cli, write_questions


def _eval(tmp: Path, *args: str) -> int:
    return main(
        [
            "eval",
            "--quiet",
            "--db",
            str(tmp / "ragcov.db"),
            "--questions",
            str(tmp / "questions.jsonl"),
            "--embedder",
            "hash",
            *args,
        ]
    )


@pytest.fixture()
def nan_system(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    (tmp_path / "odd_rag_cli.py").write_text(
        textwrap.dedent("""
        def answer(q):
            score = float("nan") if q.startswith("When") else 0.5
            return {"answer": "x", "contexts": [{"id": "billing.md", "text": "t", "score": score}]}
        def good(q):
            return {"answer": "x", "contexts": [{"id": "billing.md", "text": "t", "score": 0.5}]}
    """)
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    write_questions(tmp_path)
    yield "python:odd_rag_cli:answer"
    sys.modules.pop("odd_rag_cli", None)


def test_a_nan_score_is_one_failed_question_and_the_report_reads_back(
    tmp_path: Path, nan_system: str, capsys: pytest.CaptureFixture
) -> None:
    assert _eval(tmp_path, "--system", nan_system, "--metrics", "retrieval") == 0
    out = " ".join(capsys.readouterr().out.split())
    assert (
        "1 of 3 questions failed (first: q1: system: BadInput: python:odd_rag_cli:answer: context 1: "
        "'score' must be a finite number, got nan)"
    ) in out
    db = open_db(tmp_path / "ragcov.db")
    assert_stored_finite(db)
    code, report = report_via_cli(tmp_path / "ragcov.db", "latest-eval", tmp_path)
    shown = capsys.readouterr().out.lower()
    assert code == 0 and report["counts"]["errors"] == 1
    assert shown.count("nan") == shown.count("got nan")  # only in the quoted error, never as a figure


def test_no_judgement_succeeded_exits_1_naming_the_cause(
    tmp_path: Path, judge_server, nan_system: str, capsys: pytest.CaptureFixture
) -> None:
    judge_server.chat_handler = lambda messages, body: '{"score": NaN, "reason": "?"}'
    code = _eval(
        tmp_path,
        "--system",
        nan_system.replace(":answer", ":good"),
        "--judge-llm",
        "openai:judge",
        "--metrics",
        "answer_relevance",
        "--no-preflight",
    )  # with the probe: exit 2 (test_cli_eval_preflight)
    err = capsys.readouterr().err
    assert code == 1 and len(err.strip().splitlines()) == 1
    assert (
        "error: nothing to score: 3 of 3 questions failed (first: q1: answer_relevance: judge reply unusable: " in err
    )
    assert "continue with --resume" in err


@pytest.mark.parametrize("metrics", [",", "mrr,,hit", " , "])
def test_an_empty_metric_name_exits_2(tmp_path: Path, nan_system: str, metrics: str, capsys) -> None:
    assert _eval(tmp_path, "--system", nan_system, "--metrics", metrics) == 2
    assert "--metrics: an empty metric name" in capsys.readouterr().err


def test_resume_of_an_analysis_or_with_another_file_exits_2(tmp_path: Path, nan_system: str, capsys) -> None:
    from ragcov_tui.store.sessions import create_session, finish_session

    assert _eval(tmp_path, "--system", nan_system, "--metrics", "retrieval") == 0
    db = open_db(tmp_path / "ragcov.db")
    analysis = create_session(db, "analysis")
    finish_session(db, analysis, "done")
    capsys.readouterr()
    assert _eval(tmp_path, "--system", nan_system, "--metrics", "retrieval", "--resume", analysis) == 2
    assert f"({analysis}) is an analysis session; an eval session is needed" in capsys.readouterr().err
    write_questions(tmp_path, [{"id": "z", "question": "Other?"}])
    assert _eval(tmp_path, "--system", nan_system, "--metrics", "retrieval", "--resume", "latest-eval") == 2
    assert "is not the test file session" in capsys.readouterr().err
