"""The metric registries: every metric listed once, with its function, and everything else derived.

Generation: ``generation/registry.py`` (``MetricSpec``); retrieval: ``retrieval.RETRIEVAL_METRICS``
(one function of ``Ranked`` per metric, hand-checked here; ``test_eval_retrieval`` checks them all
against pytrec_eval).
"""

from __future__ import annotations

import math

import pytest

from ragcov_tui.embeddings.factory import make_embedder
from ragcov_tui.evaluation.generation import (
    GENERATION_METRICS,
    JUDGED_METRICS,
    METRICS,
    GenerationInput,
    answer,
    grounding,
    lexical,
    robustness,
)
from ragcov_tui.evaluation.generation.registry import _SPECS
from ragcov_tui.evaluation.generation.support import Evidence
from ragcov_tui.evaluation.metric_names import canonical_metric, select_metrics
from ragcov_tui.evaluation.retrieval import RETRIEVAL_METRICS, Ranked, metric_names, score_ranking
from ragcov_tui.evaluation.systems.base import RetrievedChunk

METRIC_MODULES = {answer, grounding, lexical, robustness}
REFUND = RetrievedChunk("billing.md#0", "Refunds are available within 30 days of purchase.")


def test_every_generation_metric_is_listed_once_and_everything_follows() -> None:
    names = [spec.name for spec in _SPECS]
    assert len(names) == len(set(names)) == len(METRICS) == len(GENERATION_METRICS)
    assert names == list(GENERATION_METRICS)
    assert {spec.name for spec in _SPECS if spec.uses_llm} == JUDGED_METRICS
    assert select_metrics("generation", 5)[1] == names


@pytest.mark.parametrize("spec", _SPECS, ids=lambda s: s.name)
def test_each_spec_is_complete_and_its_function_is_named_after_it(spec) -> None:
    assert spec.formula.strip() and spec.heuristic.strip()
    assert spec.compute.__name__ == spec.name
    assert any(getattr(module, spec.name, None) is spec.compute for module in METRIC_MODULES)
    assert canonical_metric(spec.name.upper(), 5) == ("generation", spec.name)
    if not spec.uses_llm:
        assert spec.heuristic == "same (no LLM)"


def test_heuristic_texts_quote_the_calibration_the_code_uses() -> None:
    assert f"[{answer.RELEVANCE_LO:.2f}, {answer.RELEVANCE_HI:.2f}]" in METRICS["answer_relevance"].heuristic
    assert f"[{answer.AGREEMENT_LO:.2f}, {answer.AGREEMENT_HI:.2f}]" in METRICS["robustness"].heuristic
    assert f">= {answer.BINARY_CUTOFF}" in METRICS["answer_correctness"].heuristic


@pytest.mark.parametrize("name", sorted(set(GENERATION_METRICS) - JUDGED_METRICS))
def test_a_model_free_spec_runs_on_the_item_alone(name: str) -> None:
    item = GenerationInput(
        question="How long for a refund?",
        answer="Within 30 days [billing.md#0].",
        contexts=[REFUND],
        expected_keywords=["30 days", "receipt"],
        main_retrieved_ids=[REFUND.id],
    )
    via_spec = METRICS[name].run(Evidence(item, make_embedder("hash")), None)
    direct = getattr(lexical, name)(item)
    assert (via_spec.value, via_spec.reason, via_spec.detail) == (direct.value, direct.reason, direct.detail)


# ranking a x b (relevant at ranks 1 and 3), gold a=1 b=2 c=1 (R = 3), k = 2
_IDCG = 2 / math.log2(2) + 1 / math.log2(3)
HAND = {"precision": 1 / 2, "recall": 1 / 3, "hit": 1.0, "mrr": 1.0, "ndcg": 1 / _IDCG, "map": (1 + 2 / 3) / 3}


@pytest.mark.parametrize("metric", RETRIEVAL_METRICS, ids=lambda m: m.base)
def test_each_retrieval_function_on_a_hand_computed_case(metric) -> None:
    ranked = Ranked.of(["a", "x", "b"], {"a": 1.0, "b": 2.0, "c": 1.0}, 2)
    assert ranked.relevant_ranks == (1, 3) and ranked.in_top_k == 1
    assert metric.compute(ranked) == pytest.approx(HAND[metric.base], abs=1e-12)
    assert score_ranking(["a", "x", "b"], {"a": 1, "b": 2, "c": 1, "z": 0}, 2)[metric.key(2)] == pytest.approx(
        HAND[metric.base], abs=1e-12
    )


@pytest.mark.parametrize("k", [1, 3, 10])
def test_retrieval_names_follow_the_registry(k: int) -> None:
    keys = [m.key(k) for m in RETRIEVAL_METRICS]
    assert metric_names(k) == keys and len(set(keys)) == len(keys)
    for m in RETRIEVAL_METRICS:
        assert canonical_metric(m.base, k) == ("retrieval", m.key(k))
    assert select_metrics("retrieval", k) == (keys, [])


def test_every_judged_metric_has_a_label_key_in_the_results_pane() -> None:
    """A person labels each judged metric with its own key (docs/architecture.md, "How to add a metric")."""
    from ragcov_tui.tui.panes.results import LABEL_KEYS

    assert set(LABEL_KEYS) == set(JUDGED_METRICS)
    assert len(set(LABEL_KEYS.values())) == len(LABEL_KEYS)
