"""Every LLM-judged generation metric against the real local OpenAI-compatible server.

The server's chat handler is a rule-based judge (gen_fake_judge.RuleJudge), so each test knows
the exact score; scripted failures cover malformed JSON, 429s and fenced replies.
"""

from __future__ import annotations

import json
import math

import pytest

from ragcov_tui.embeddings.factory import make_embedder
from ragcov_tui.evaluation.generation import (
    GENERATION_METRICS,
    GenerationInput,
    generate_paraphrases,
    score_generation,
)
from ragcov_tui.evaluation.systems.base import RetrievedChunk, SystemOutput
from ragcov_tui.shared.errors import ProviderError
from ragcov_tui.store.db import open_db
from tests.evaluation.generation.gen_fake_judge import RuleJudge
from tests.support.fake_api import FakeAPIServer
from tests.support.models import chat_model

REFUND = RetrievedChunk("billing.md#0-1a2b3c4d", "Refunds are available within 30 days. The Pro plan costs $49.")
SETUP = RetrievedChunk("setup.md#0-9f9f9f9f", "Install the CLI with pip.")


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch):
    with FakeAPIServer() as srv:
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        monkeypatch.setenv("OPENAI_BASE_URL", srv.base_url)
        monkeypatch.setenv("RAGCOV_RETRY_BASE_DELAY", "0.001")
        monkeypatch.setenv("RAGCOV_RETRY_ATTEMPTS", "3")
        srv.chat_handler = RuleJudge()
        yield srv


def item(**overrides) -> GenerationInput:
    base = dict(
        question="How long do refunds take?",
        answer="Refunds are available within 30 days [billing.md#0-1a2b3c4d]. Shipping is free.",
        contexts=[SETUP, REFUND],
        ground_truth="Refunds are available within 30 days.",
    )
    return GenerationInput(**{**base, **overrides})


def score(metrics: set[str], it: GenerationInput | None = None, repeats: int = 1, llm=None):
    return score_generation(
        it or item(),
        llm=llm or chat_model("openai:judge"),
        embedder=make_embedder("hash"),
        metrics=metrics,
        repeats=repeats,
    )


def test_faithfulness_claims_verdicts_and_supporting_chunk(server: FakeAPIServer) -> None:
    s = score({"faithfulness"})
    assert s.values["faithfulness"] == 0.5
    claims = s.details["faithfulness"]["claims"]
    assert [c["verdict"] for c in claims] == ["supported", "not_found"]
    assert claims[0]["chunk_id"] == REFUND.id
    assert s.details["faithfulness"]["unsupported"] == ["Shipping is free."]
    assert s.judge == "llm:openai:judge"
    assert [c["metric"] for c in s.judge_calls] == ["faithfulness", "faithfulness"]
    assert all(c["raw"] and c["error"] is None and c["prompt"][0]["role"] == "system" for c in s.judge_calls)
    assert "[billing.md" not in s.judge_calls[0]["prompt"][1]["content"]  # citations stripped before decomposing


def test_answer_relevance_and_correctness(server: FakeAPIServer) -> None:
    s = score({"answer_relevance", "answer_correctness", "answer_correctness_graded"})
    assert s.values["answer_relevance"] == pytest.approx(0.8)
    assert s.values["answer_correctness"] == 1.0
    assert s.details["answer_correctness"]["rationale"] == "contains the reference"
    # answer claims: 1 supported by the reference (TP), 1 not (FP); reference claim found in answer (no FN)
    assert s.values["answer_correctness_graded"] == pytest.approx(2 * 1 / (2 * 1 + 1 + 0))
    wrong = score({"answer_correctness", "answer_correctness_graded"}, item(answer="Refunds take 90 days."))
    assert wrong.values == {"answer_correctness": 0.0, "answer_correctness_graded": 0.0}


def test_context_precision_is_rank_aware_and_recall_counts_reference_claims(server: FakeAPIServer) -> None:
    s = score({"context_precision", "context_recall"})
    # useful chunk at rank 2 only: precision@2 = 1/2
    assert s.values["context_precision"] == pytest.approx(0.5)
    assert [c["useful"] for c in s.details["context_precision"]["chunks"]] == [False, True]
    assert s.values["context_recall"] == 1.0
    first = score({"context_precision"}, item(contexts=[REFUND, SETUP]))
    assert first.values["context_precision"] == 1.0


def test_no_ground_truth_is_undefined_with_reason_and_no_call(server: FakeAPIServer) -> None:
    s = score({"answer_correctness", "context_precision", "context_recall"}, item(ground_truth=None))
    assert s.values == {"answer_correctness": None, "context_precision": None, "context_recall": None}
    assert set(s.undefined) == {"answer_correctness", "context_precision", "context_recall"}
    assert not s.errors and server.count("/chat/completions") == 0


def test_malformed_json_is_repaired_once_then_recorded_as_error_never_zero(server: FakeAPIServer) -> None:
    judge: RuleJudge = server.chat_handler  # type: ignore[assignment]
    judge.overrides["relevance"] = ["this is not json", "still {not json"]
    s = score({"answer_relevance", "keyword_coverage"})
    assert s.values["answer_relevance"] is None
    assert "answer_relevance" in s.errors and "repair" in s.errors["answer_relevance"]
    assert judge.calls["relevance"] == 2  # the first ask and one repair turn
    call = s.judge_calls[0]
    assert call["metric"] == "answer_relevance" and call["error"] and call["raw"] == "still {not json"


def test_malformed_json_repaired_on_retry_succeeds(server: FakeAPIServer) -> None:
    server.chat_handler.overrides["correctness"] = ["Sure! The verdict is correct."]  # type: ignore[attr-defined]
    s = score({"answer_correctness"})
    assert s.values["answer_correctness"] == 1.0 and not s.errors


def test_wrong_shape_is_an_error(server: FakeAPIServer) -> None:
    # two verdicts asked, one given, twice → error, not a partial score
    bad = json.dumps({"verdicts": [{"claim": 1, "verdict": "supported", "source": REFUND.id}]})
    server.chat_handler.overrides["verify"] = [bad, bad]  # type: ignore[attr-defined]
    s = score({"faithfulness"})
    assert s.values["faithfulness"] is None and "expected 2 verdicts" in s.errors["faithfulness"]


def test_fenced_json_and_429_are_handled(server: FakeAPIServer) -> None:
    server.chat_handler.overrides["relevance"] = ['```json\n{"score": 0.25, "reason": "fenced"}\n```']  # type: ignore[attr-defined]
    server.fail_next(1, status=429)
    s = score({"answer_relevance"})
    assert s.values["answer_relevance"] == 0.25 and not s.errors
    assert server.count("/chat/completions") == 2  # the 429 then the retry


def test_provider_down_is_an_error_not_a_crash(server: FakeAPIServer) -> None:
    server.fail_next(10, status=503)
    s = score({"answer_relevance"})
    assert s.values["answer_relevance"] is None and "503" in s.errors["answer_relevance"]


def test_repeats_report_mean_and_spread_and_are_not_collapsed_by_the_cache(server: FakeAPIServer, tmp_path) -> None:
    llm = chat_model("openai:judge", db=open_db(tmp_path / "r.db"))
    s = score({"answer_relevance", "keyword_coverage"}, item(expected_keywords=["30 days"]), repeats=2, llm=llm)
    # repeat 0 scores 0.8, repeat 1 (a different system note → a different cache key) 1.0
    assert s.values["answer_relevance"] == pytest.approx(0.9)
    assert s.spread["answer_relevance"] == pytest.approx(0.1)
    assert s.details["answer_relevance"]["repeats"] == [pytest.approx(0.8), pytest.approx(1.0)]
    assert s.spread["keyword_coverage"] == 0.0
    assert server.count("/chat/completions") == 2
    again = score({"answer_relevance"}, repeats=2, llm=llm)
    assert again.values["answer_relevance"] == s.values["answer_relevance"]
    assert server.count("/chat/completions") == 2  # warm cache: 0 calls


def test_robustness_with_the_agreement_judge(server: FakeAPIServer) -> None:
    same = SystemOutput(item().answer, [REFUND])
    s = score(
        {"robustness", "retrieval_stability"},
        item(paraphrase_outputs=[same, same], paraphrases=["a?", "b?"], main_retrieved_ids=[SETUP.id, REFUND.id]),
    )
    assert s.values["robustness"] == 1.0
    assert s.values["retrieval_stability"] == pytest.approx((0.5 + 0.5 + 1.0) / 3)
    assert [a["question"] for a in s.details["robustness"]["answers"]] == ["How long do refunds take?", "a?", "b?"]
    mixed = score(
        {"robustness"},
        item(
            paraphrase_outputs=[
                SystemOutput("Refunds take 90 days."),
                SystemOutput("Refunds are available within 30 days."),
            ]
        ),
    )
    # pairs: main~90d different (0), main~30d partial (0.5: contained), 90d~30d different (0)
    assert mixed.values["robustness"] == pytest.approx(0.5 / 3)
    assert len([c for c in mixed.judge_calls if c["metric"] == "robustness"]) == 3


def test_generate_paraphrases_is_deterministic_and_cached(server: FakeAPIServer, tmp_path) -> None:
    llm = chat_model("openai:judge", db=open_db(tmp_path / "p.db"))
    first = generate_paraphrases("What is the refund window?", 3, llm)
    assert first == [f"Variant {i}: What is the refund window?" for i in (1, 2, 3)]
    assert generate_paraphrases("What is the refund window?", 3, llm) == first
    assert server.count("/chat/completions") == 1
    server.chat_handler.overrides["paraphrase"] = ['{"paraphrases": ["x"]}', '{"paraphrases": []}']  # type: ignore[attr-defined]
    with pytest.raises(ProviderError, match="paraphrase generation failed"):
        generate_paraphrases("Another question?", 2, llm)


def test_all_metrics_with_llm_never_nan(server: FakeAPIServer) -> None:
    out = SystemOutput("Refunds are available within 30 days.", [REFUND])
    s = score(set(GENERATION_METRICS), item(expected_keywords=["30 days", "refund"], paraphrase_outputs=[out]))
    assert set(s.values) == set(GENERATION_METRICS)
    assert not s.errors, s.errors
    for name, value in s.values.items():
        assert value is not None and math.isfinite(value) and 0.0 <= value <= 1.0, name
    json.dumps(s.to_dict())
