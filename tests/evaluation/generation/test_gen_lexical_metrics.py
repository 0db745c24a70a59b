"""Keyword coverage, context overlap, their combined score, chunk attribution, retrieval stability."""

from __future__ import annotations

import pytest

from ragcov_tui.evaluation.generation import GenerationInput
from ragcov_tui.evaluation.generation.lexical import (
    chunk_attribution,
    context_overlap,
    jaccard,
    keyword_context_score,
    keyword_coverage,
    retrieval_stability,
)
from ragcov_tui.evaluation.systems.base import RetrievedChunk, SystemOutput

A = RetrievedChunk("a.md#0-11111111", "Refunds are available within 30 days. The Pro plan costs $1,000 per year.")
B = RetrievedChunk("b.md#0-22222222", "Install with pip.")
C = RetrievedChunk("c.md#0-33333333", "Proxies are supported.")


def item(**kw) -> GenerationInput:
    base = dict(
        question="q?",
        answer="Refunds: 30 days [a.md#0-11111111].",
        contexts=[A, B],
        expected_keywords=["30 days", "Refund", "1000", "receipt"],
    )
    return GenerationInput(**{**base, **kw})


def test_keyword_coverage_overlap_and_harmonic_mean() -> None:
    cov, ovl = keyword_coverage(item()), context_overlap(item())
    assert cov.value == 0.5 and cov.detail["missing"] == ["1000", "receipt"]
    assert ovl.value == 0.75 and ovl.detail["found"] == ["30 days", "Refund", "1000"]
    assert keyword_context_score(item()).value == pytest.approx(2 * 0.5 * 0.75 / 1.25)


def test_keyword_metrics_edge_cases() -> None:
    none = item(expected_keywords=[" ", ""])
    assert keyword_coverage(none).value is None and keyword_coverage(none).reason
    assert keyword_context_score(none).value is None
    assert context_overlap(item(contexts=[])).value == 0.0
    assert keyword_context_score(item(answer="nothing")).value == 0.0


def test_chunk_attribution_counts_distinct_retrieved_citations() -> None:
    answer = "X [a.md#0-11111111]. Y [a.md#0-11111111, made/up.md#9-deadbeef]."
    out = chunk_attribution(item(answer=answer, contexts=[A, B, C]))
    assert out.value == pytest.approx(1 / 3)
    assert out.detail["not_retrieved"] == ["made/up.md#9-deadbeef"]
    assert out.detail["uncited"] == [B.id, C.id]
    assert chunk_attribution(item(answer="no citations")).value == 0.0
    assert chunk_attribution(item(contexts=[])).value is None


def test_retrieval_stability_is_mean_pairwise_jaccard_of_top_k() -> None:
    outputs = [SystemOutput("x", [A, B]), SystemOutput("y", [A, C, B])]  # cut to k = 2 → {A, C}
    out = retrieval_stability(item(paraphrase_outputs=outputs, main_retrieved_ids=[A.id, B.id]))
    assert out.value == pytest.approx((1.0 + 1 / 3 + 1 / 3) / 3)
    assert out.detail["retrieved"][2] == [A.id, C.id]
    assert retrieval_stability(item()).value is None
    assert jaccard(set(), set()) == 1.0
