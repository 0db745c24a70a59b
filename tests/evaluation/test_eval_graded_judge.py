"""Graded judges (issue #26 §3): a claim's support is the probability of the judge's "yes", read from
the verdict token's log-probabilities, one claim per request; ``--judge-mode claim`` asks one JSON
verdict per claim. Against the fake OpenAI server (tests/support/fake_api.py) returning logprobs."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from ragcov_tui.cli.main import main
from ragcov_tui.evaluation.generation.claim_prompts import VERIFY, VERIFY_ONE
from ragcov_tui.evaluation.generation.graded import TOP_LOGPROBS, yes_probability
from ragcov_tui.store.db import open_db
from ragcov_tui.store.evals import load_eval_items
from tests.evaluation.conftest import judge_server  # noqa: F401 (the fake OpenAI judge fixture)

PASSAGE = "The Pro plan costs $49 per month and includes 5 team seats."
ANSWER = "The Pro plan costs $49 per month. It includes 9 team seats."
P_YES = {"$99": 0.05, "$49": 0.9, "9 team seats": 0.2}  # by what the claim says ($99: the preflight probe's)


def test_yes_probability_sums_spellings_at_the_first_position_that_offers_a_verdict() -> None:
    ln = math.log
    assert yes_probability([{" yes": ln(0.5), "Yes": ln(0.1), " No": ln(0.2), "The": ln(0.2)}]) == pytest.approx(0.75)
    assert yes_probability([{'"': ln(0.9), "The": ln(0.1)}, {"no.": ln(0.3), "yes": ln(0.1)}]) == pytest.approx(0.25)
    assert yes_probability([{"Maybe": ln(0.9)}]) is None and yes_probability([]) is None


def _claim(messages: list[dict]) -> str:
    return messages[-1]["content"].split("\n\nClaim: ", 1)[1].split("\n\n", 1)[0]


def _p_yes(claim: str) -> float:
    return next((p for key, p in P_YES.items() if key in claim), 0.95)


def graded_logprobs(messages: list[dict], body: dict) -> list[dict[str, float]]:
    p = _p_yes(_claim(messages))
    first = {" yes": math.log(p), " no": math.log(1 - p)} if p >= 0.5 else {" no": math.log(1 - p), " yes": math.log(p)}
    return [first, {".": 0.0}]


def graded_reply(messages: list[dict], body: dict) -> str:
    if messages[0]["content"] == VERIFY_ONE.instruction:
        return "yes" if _p_yes(_claim(messages)) >= 0.5 else "no"
    return json.dumps(
        {"claims": [s.strip() + "." for s in messages[-1]["content"].split("Text:\n", 1)[1].split(".") if s.strip()]}
    )


def write_inputs(tmp: Path) -> tuple[Path, Path, Path]:
    corpus = tmp / "corpus"
    corpus.mkdir()
    (corpus / "pricing.md").write_text(PASSAGE + "\n", encoding="utf-8")
    questions = tmp / "q.jsonl"
    questions.write_text(json.dumps({"id": "q1", "question": "What does the Pro plan cost?"}) + "\n", encoding="utf-8")
    records = tmp / "records.jsonl"
    records.write_text(json.dumps({"id": "q1", "answer": ANSWER, "contexts": [PASSAGE]}) + "\n", encoding="utf-8")
    return corpus, questions, records


def run(tmp: Path, *extra: str) -> int:
    corpus, questions, records = (
        write_inputs(tmp) if not (tmp / "corpus").exists() else (tmp / "corpus", tmp / "q.jsonl", tmp / "records.jsonl")
    )
    return main(
        [
            "eval",
            "--db",
            str(tmp / "r.db"),
            "--questions",
            str(questions),
            "--corpus",
            str(corpus),
            "--system",
            f"records:{records}",
            "--embedder",
            "hash",
            "--judge-llm",
            "openai:gpt-4o-mini",
            "--metrics",
            "faithfulness",
            "--quiet",
            "--json",
            str(tmp / "out.json"),
            *extra,
        ]
    )


def verify_requests(server) -> list[dict]:
    return [
        r.body
        for r in server.requests
        if r.path.endswith("/chat/completions")
        and r.body["messages"][0]["content"] in (VERIFY_ONE.instruction, VERIFY.instruction)
        and "probe#0" not in r.body["messages"][1]["content"]
    ]


def test_graded_faithfulness_is_the_mean_probability_of_yes_and_a_rerun_is_served_from_the_cache(
    judge_server, tmp_path: Path
) -> None:
    judge_server.chat_handler = graded_reply
    judge_server.logprobs_handler = graded_logprobs
    assert run(tmp_path, "--judge-mode", "graded") == 0
    report = json.loads((tmp_path / "out.json").read_text())
    assert report["questions"][0]["generation"]["faithfulness"] == pytest.approx((0.9 + 0.2) / 2)
    claims = load_eval_items(open_db(tmp_path / "r.db"), report["session_id"])[0]["details"]["faithfulness"]["claims"]
    assert [c["verdict"] for c in claims] == ["supported", "not_found"]
    assert [round(c["p_supported"], 6) for c in claims] == [0.9, 0.2] and "P(yes) = 0.20" in claims[1]["reason"]
    asked = verify_requests(judge_server)
    assert len(asked) == 2  # one request per claim
    assert all(b["logprobs"] is True and b["top_logprobs"] == TOP_LOGPROBS for b in asked)
    sent = judge_server.count("/chat/completions")
    assert run(tmp_path, "--judge-mode", "graded") == 0  # the cache keeps the probabilities with the reply
    assert judge_server.count("/chat/completions") == sent
    again = json.loads((tmp_path / "out.json").read_text())["questions"][0]
    assert again["generation"]["faithfulness"] == pytest.approx(0.55)


def test_a_server_without_logprobs_fails_the_graded_preflight_with_one_line(
    judge_server,
    tmp_path: Path,
    capsys,
) -> None:
    judge_server.chat_handler = graded_reply  # no logprobs_handler: replies carry no probabilities
    assert run(tmp_path, "--judge-mode", "graded") == 2
    err = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert len(err) == 1 and "no token probabilities (logprobs); use --judge-mode claim" in err[0]


def test_judge_mode_claim_asks_one_json_verdict_per_claim(judge_server, tmp_path: Path) -> None:
    assert run(tmp_path, "--judge-mode", "claim", "--no-preflight") == 0
    asked = verify_requests(judge_server)
    assert len(asked) == 2 and all(
        "Claims:\n1. " in b["messages"][1]["content"] and "\n2. " not in b["messages"][1]["content"] for b in asked
    )
    item = json.loads((tmp_path / "out.json").read_text())["questions"][0]
    assert item["generation"]["faithfulness"] == pytest.approx(0.5)  # RuleJudge: the verbatim sentence only


def test_judge_mode_is_a_setting_checked_like_every_other(
    judge_server,
    tmp_path: Path,
    capsys,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert run(tmp_path, "--judge-mode", "sampled") == 2
    assert "--judge-mode: expected one of batch, claim, graded, got 'sampled'" in capsys.readouterr().err
    monkeypatch.setenv("RAGCOV_JUDGE_MODE", "claim")
    assert run(tmp_path, "--no-preflight") == 0
    assert len(verify_requests(judge_server)) == 2


def test_resuming_a_session_with_another_judge_mode_is_refused(judge_server, tmp_path: Path, capsys) -> None:
    assert run(tmp_path, "--judge-mode", "claim", "--no-preflight") == 0
    sid = json.loads((tmp_path / "out.json").read_text())["session_id"]
    capsys.readouterr()
    assert run(tmp_path, "--judge-mode", "graded", "--no-preflight", "--resume", sid) == 2
    assert f"session {sid} was run with different judge_mode" in capsys.readouterr().err
