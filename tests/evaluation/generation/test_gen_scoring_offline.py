"""score_generation in heuristic mode: every metric, robustness, repeats, bad input, no NaN."""

from __future__ import annotations

import json
import math

import pytest

from ragcov_tui.embeddings.factory import make_embedder
from ragcov_tui.evaluation.generation import GENERATION_METRICS, METRICS, GenerationInput, score_generation
from ragcov_tui.evaluation.generation.robustness import figures_conflict
from ragcov_tui.evaluation.systems.base import RetrievedChunk, SystemOutput
from ragcov_tui.shared.errors import BadInput

REFUND = RetrievedChunk("billing.md#0-1a2b3c4d", "Refunds are available within 30 days of purchase.")
SETUP = RetrievedChunk("setup.md#0-9f9f9f9f", "Install the CLI with pip install acme-cli.")
ANSWER = "Refunds are available within 30 days of purchase [billing.md#0-1a2b3c4d]."


def item(**kw) -> GenerationInput:
    base = dict(
        question="How long can I get a refund?",
        answer=ANSWER,
        contexts=[SETUP, REFUND],
        ground_truth="Refunds are available within 30 days of purchase.",
        expected_keywords=["30 days"],
        main_retrieved_ids=[SETUP.id, REFUND.id],
    )
    return GenerationInput(**{**base, **kw})


def score(it: GenerationInput, metrics=None, repeats: int = 1):
    return score_generation(
        it, llm=None, embedder=make_embedder("hash"), metrics=set(metrics or GENERATION_METRICS), repeats=repeats
    )


def test_every_metric_is_documented() -> None:
    assert set(METRICS) == set(GENERATION_METRICS) and len(GENERATION_METRICS) == 12
    assert all(info.formula and info.heuristic for info in METRICS.values())


def test_heuristic_scores_a_grounded_correct_answer_high() -> None:
    same = SystemOutput(ANSWER, [REFUND, SETUP])
    s = score(item(paraphrase_outputs=[same, same]))
    assert s.judge == "heuristic" and not s.errors and s.judge_calls == []
    v = s.values
    assert v["faithfulness"] == 1.0 and v["context_recall"] == 1.0
    assert v["context_precision"] == pytest.approx(0.5)  # the useful chunk is at rank 2
    assert v["answer_correctness"] == 1.0 and v["answer_correctness_graded"] == pytest.approx(1.0)
    assert v["chunk_attribution"] == 0.5 and v["keyword_context_score"] == 1.0
    assert v["robustness"] == 1.0 and v["retrieval_stability"] == 1.0
    assert s.details["answer_correctness"]["rationale"].startswith("heuristic")


def test_robustness_offline_identical_high_different_low() -> None:
    different = [SystemOutput("Install the CLI with pip."), SystemOutput("Our office is in Berlin.")]
    s = score(item(paraphrase_outputs=different), {"robustness"})
    assert s.values["robustness"] < 0.2
    assert len(s.details["robustness"]["pairs"]) == 3
    figures = score(
        item(paraphrase_outputs=[SystemOutput("Refunds are available within 14 days of purchase.")]), {"robustness"}
    )
    assert figures.values["robustness"] == 0.0  # same words, conflicting figure
    assert figures_conflict("30 days", "14 days") and not figures_conflict("30 days", "a month, 30 days")


def test_undefined_metrics_carry_reasons_and_are_never_errors() -> None:
    s = score(item(ground_truth=None, expected_keywords=[], contexts=[], answer="I don't know."))
    for name in (
        "answer_correctness",
        "answer_correctness_graded",
        "context_precision",
        "context_recall",
        "robustness",
        "retrieval_stability",
        "keyword_coverage",
        "keyword_context_score",
        "chunk_attribution",
        "faithfulness",
    ):
        assert s.values[name] is None and s.undefined[name], name
    assert not s.errors


def test_empty_answer_is_scored_not_nan() -> None:
    s = score(item(answer=""))
    assert s.values["answer_relevance"] == 0.0 and s.values["answer_correctness"] == 0.0
    assert s.values["faithfulness"] is None


def test_repeats_in_heuristic_mode_are_deterministic() -> None:
    s = score(item(), repeats=3)
    assert all(spread == 0.0 for spread in s.spread.values())
    assert set(s.spread) == {m for m, v in s.values.items() if v is not None}


def test_bad_metric_names_and_repeats_are_bad_input() -> None:
    with pytest.raises(BadInput, match="unknown generation metric.*faithfullness"):
        score(item(), {"faithfullness"})
    with pytest.raises(BadInput, match="repeats"):
        score(item(), {"faithfulness"}, repeats=0)


@pytest.mark.parametrize("answer", ["", "   ", "[x#1]", "42", "Yes.", ANSWER * 5, "é€ 1,000 % [a, b]"])
def test_no_nan_anywhere(answer: str) -> None:
    it = item(
        answer=answer,
        paraphrase_outputs=[SystemOutput(answer, []), SystemOutput("", [])],
        contexts=[RetrievedChunk("e#0", ""), REFUND],
    )
    s = score(it)
    for name, value in s.values.items():
        assert value is None or (math.isfinite(value) and 0.0 <= value <= 1.0), (name, value)
    assert "NaN" not in json.dumps(s.to_dict())
