"""``ragcov eval`` with an LLM judge on the real local API server (issue #14 items 10 and 11): the
summary counts every request the server received (retried ones too) and never prices a local
server; a model the server does not list is warned about once; items whose judgement failed are
stored failed and only they are judged again by ``--resume``; a log (no terminal) gets progress
lines with the failed count."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ragcov_tui.cli.main import main
from ragcov_tui.llm.cost import PRICE_ENV
from tests.evaluation.conftest import judge_server  # noqa: F401 (the fake OpenAI judge fixture)

REPO = Path(__file__).resolve().parents[2]
QUESTIONS = REPO / "sample_data" / "questions.jsonl"
CORPUS = REPO / "sample_data" / "corpus"
ROWS = [json.loads(line) for line in QUESTIONS.read_text().splitlines() if line.strip()]
METRICS = "answer_relevance,answer_correctness"  # two judgements per question


def run_eval(tmp: Path, *extra: str) -> int:
    return main(
        [
            "eval",
            "--db",
            str(tmp / "r.db"),
            "--questions",
            str(QUESTIONS),
            "--corpus",
            str(CORPUS),
            "--system",
            "builtin:bm25",
            "--embedder",
            "hash",
            "--judge-llm",
            "openai:gpt-4o-mini",
            "--metrics",
            METRICS,
            "--json",
            str(tmp / "report.json"),
            "--no-preflight",
            *extra,
        ]
    )  # counts here are per item; the probe: test_cli_eval_preflight


def asked_questions(requests) -> set[str]:
    """The test-file questions quoted in the judge prompts of ``requests``."""
    return {
        r["question"]
        for r in ROWS
        for req in requests
        if any(r["question"] in m["content"] for m in req.body["messages"])
    }


@pytest.fixture(autouse=True)
def no_user_price(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(PRICE_ENV, raising=False)


def test_the_summary_counts_retried_requests_like_the_server_and_no_local_price(
    judge_server, tmp_path: Path, capsys
) -> None:
    judge_server.fail_next(3, status=429)
    assert run_eval(tmp_path, "--quiet") == 0
    out = " ".join(capsys.readouterr().out.split())
    sent = judge_server.count("/chat/completions")
    assert sent == 2 * len(ROWS) + 3
    assert f"llm openai:gpt-4o-mini: requests: {sent} (3 retried), 0 cached, " in out and "cost unknown" in out
    assert "$" not in out.replace("$8 per", "")  # no price for gpt-4o-mini at 127.0.0.1 (a question quotes $8)
    usage = json.loads((tmp_path / "report.json").read_text())["usage"]
    assert (usage["llm_requests"], usage["llm_retried"], usage["llm_failed"], usage["cost_usd"]) == (sent, 3, 0, None)


def test_a_model_the_server_does_not_list_is_one_warning(judge_server, tmp_path: Path, capsys) -> None:
    judge_server.models = ["qwen2.5-7b-instruct"]
    assert run_eval(tmp_path) == 0
    err = capsys.readouterr().err
    warnings = [line for line in err.splitlines() if "does not list model" in line]
    assert warnings == [
        f"warning: openai chat at {judge_server.base_url} does not list model 'gpt-4o-mini' "
        "(it serves 'qwen2.5-7b-instruct'); its replies may come from another model"
    ]
    assert judge_server.count("/models") == 1


def test_no_model_list_no_warning(judge_server, tmp_path: Path, capsys) -> None:
    assert run_eval(tmp_path) == 0  # the fake server has no /v1/models by default: 404
    assert "does not list" not in capsys.readouterr().err and judge_server.count("/models") == 1


def test_resume_judges_again_only_the_questions_whose_judgement_failed(judge_server, tmp_path: Path, capsys) -> None:
    broken = {r["question"] for r in ROWS[3:6]}
    rule = judge_server.chat_handler

    def flaky(messages, body):  # every message: a re-ask after a junk reply quotes the question too
        prompt = " ".join(m["content"] for m in messages)
        return "the judge is out to lunch" if any(q in prompt for q in broken) else rule(messages, body)

    judge_server.chat_handler = flaky
    assert run_eval(tmp_path, "--quiet") == 0
    out = " ".join(capsys.readouterr().out.split())
    assert f"3 of {len(ROWS)} questions failed" in out  # questions, not the 6 failed judgements
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["counts"]["errors"] == 3 and len(report["errors"]) == 6
    assert {q["question"] for q in report["questions"] if q["status"] == "error"} == broken

    judge_server.chat_handler = rule
    before = len(judge_server.requests)
    assert run_eval(tmp_path, "--quiet", "--resume", report["session_id"]) == 0
    second = judge_server.requests[before:]
    assert len(second) == 6 and asked_questions(second) == broken  # 3 questions x 2 metrics, nothing else
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["counts"]["errors"] == 0 and report["counts"]["done"] == len(ROWS)
    assert report["usage"]["llm_requests"] == 6


def test_a_log_gets_progress_lines_with_the_failed_count(
    judge_server, tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RAGCOV_PROGRESS_EVERY", "0.1")
    judge_server.latency = 0.1
    rule = judge_server.chat_handler
    judge_server.chat_handler = lambda m, b: "junk" if ROWS[0]["question"] in json.dumps(m) else rule(m, b)
    assert run_eval(tmp_path, "--concurrency", "4") == 0
    lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("eval: ")]
    shape = re.compile(rf"eval: (\d+)/{len(ROWS)} questions(, 1 failed)?, (\d+s|\dm\d\ds)(, ~\S+ left)?")
    assert len(lines) >= 4 and all(shape.fullmatch(line) for line in lines), lines
    done = [int(m.group(1)) for line in lines if (m := shape.fullmatch(line))]
    assert done == sorted(done) and done[-1] == len(ROWS)
    assert ", 1 failed, " in lines[-1] and "left" not in lines[-1]


@pytest.mark.parametrize("value", ["0", "-1", "soon", "nan", "1e9"])
def test_a_bad_progress_interval_is_one_line(
    tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv("RAGCOV_PROGRESS_EVERY", value)
    assert (
        main(["eval", "--db", str(tmp_path / "r.db"), "--questions", str(QUESTIONS), "--system", "builtin:bm25"]) == 2
    )
    err = capsys.readouterr().err.strip()
    assert err == f"error: $RAGCOV_PROGRESS_EVERY: expected seconds from 0.05 to 86400, got {value!r}"


def test_a_bad_price_is_one_line_before_any_work(tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(PRICE_ENV, "cheap")
    assert (
        main(["eval", "--db", str(tmp_path / "r.db"), "--questions", str(QUESTIONS), "--system", "builtin:bm25"]) == 2
    )
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"error: ${PRICE_ENV}: expected IN,OUT or MODEL=IN,OUT") and not (tmp_path / "r.db").exists()
