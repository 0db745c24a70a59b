"""Every generation metric, listed once: its name, formula, offline heuristic, judge use and function.

Adding a metric is one :class:`MetricSpec` in ``_SPECS`` plus its function (in ``answer.py``,
``grounding.py``, ``lexical.py`` or ``robustness.py``) and a test; ``GENERATION_METRICS`` (the
display and computation order), ``JUDGED_METRICS`` and ``METRICS`` (name → spec, the catalogue
reports and ``--metrics`` read) all follow from that list.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ragcov_tui.evaluation.generation import answer, grounding, lexical, robustness
from ragcov_tui.evaluation.generation.judge import Judge
from ragcov_tui.evaluation.generation.models import GenerationInput, MetricOutcome
from ragcov_tui.evaluation.generation.support import Evidence

JudgedMetric = Callable[[Evidence, "Judge | None"], MetricOutcome]
ModelFreeMetric = Callable[[GenerationInput], MetricOutcome]
_NO_LLM = "same (no LLM)"


@dataclass(frozen=True)
class MetricSpec:
    """One generation metric: ``formula`` (as an LLM judges it when ``uses_llm``, else as it is
    computed), ``heuristic`` (its offline form), and ``compute`` — ``(evidence, judge or None)``
    when ``uses_llm`` (``None`` asks for the heuristic), ``(item)`` when it needs no model."""

    name: str
    formula: str
    heuristic: str
    uses_llm: bool
    compute: Callable[..., MetricOutcome]  # a JudgedMetric when uses_llm, else a ModelFreeMetric

    def run(self, evidence: Evidence, judge: Judge | None) -> MetricOutcome:
        """One computation of the metric on ``evidence`` (``judge`` is ignored when it needs no model)."""
        if self.uses_llm:
            return self.compute(evidence, judge)
        return self.compute(evidence.item)


def _judged(name: str, formula: str, heuristic: str, compute: JudgedMetric) -> MetricSpec:
    return MetricSpec(name, formula, heuristic, True, compute)


def _model_free(name: str, formula: str, compute: ModelFreeMetric) -> MetricSpec:
    return MetricSpec(name, formula, _NO_LLM, False, compute)


_SPECS: tuple[MetricSpec, ...] = (
    _judged(
        "faithfulness",
        "supported claims / all claims; the LLM splits the answer into atomic claims and "
        "judges each against the numbered retrieved chunks (supported | contradicted | "
        "not_found + supporting chunk id)",
        "claims = answer sentences; supported iff max cosine to a context sentence (or pair) "
        ">= the support threshold AND every figure in the claim appears in the context; a "
        "figure differing from the best-matching context sentence's (same unit) or a flipped "
        "negation = contradicted",
        grounding.faithfulness,
    ),
    _judged(
        "answer_relevance",
        "LLM score in [0, 1]: does the answer address the question",
        f"cosine(question, answer) rescaled linearly from [{answer.RELEVANCE_LO:.2f}, "
        f"{answer.RELEVANCE_HI:.2f}] to [0, 1], clipped",
        answer.answer_relevance,
    ),
    _judged(
        "answer_correctness",
        "1 if the answer agrees with the ground truth on every point "
        "the question asks about, else 0 (LLM verdict + rationale)",
        f"1 if answer_correctness_graded >= {answer.BINARY_CUTOFF} else 0",
        answer.answer_correctness,
    ),
    _judged(
        "answer_correctness_graded",
        "claim-overlap F1: TP = answer claims supported by the ground truth, FP = the other "
        "answer claims, FN = ground-truth claims the answer does not support; "
        "F1 = 2TP / (2TP + FP + FN)",
        "mean of token F1 (content words), rescaled cosine(answer, ground truth) and, when the "
        "ground truth has figures, the share of them the answer states",
        answer.answer_correctness_graded,
    ),
    _judged(
        "context_precision",
        "rank-aware: v_k = 1 if chunk k is useful for the ground-truth answer; "
        "sum_k(precision@k * v_k) / sum_k(v_k); 0 when no chunk is useful",
        "v_k = 1 iff some ground-truth sentence is supported by chunk k (same claim-support routine as faithfulness)",
        grounding.context_precision,
    ),
    _judged(
        "context_recall",
        "ground-truth claims supported by the retrieved context / all ground-truth claims",
        "ground-truth sentences checked with the faithfulness claim-support routine",
        grounding.context_recall,
    ),
    _model_free(
        "chunk_attribution",
        "distinct cited chunk ids that were retrieved / retrieved chunks",
        lexical.chunk_attribution,
    ),
    _judged(
        "robustness",
        "mean pairwise agreement over all pairs of {main answer} + paraphrase "
        "answers; LLM: same meaning both ways = 1, partial = 0.5, different = 0",
        "0 when the two answers state conflicting figures, else cosine(answer_i, answer_j) "
        f"rescaled linearly from [{answer.AGREEMENT_LO:.2f}, {answer.AGREEMENT_HI:.2f}] to [0, 1], clipped",
        robustness.robustness,
    ),
    _model_free(
        "retrieval_stability",
        "mean pairwise Jaccard of the retrieved id sets of the main question and its paraphrases",
        lexical.retrieval_stability,
    ),
    _model_free(
        "keyword_coverage",
        "expected keywords found in the answer / expected keywords "
        "(case-, space-, punctuation-insensitive; figures normalised)",
        lexical.keyword_coverage,
    ),
    _model_free(
        "context_overlap",
        "expected keywords found in the retrieved contexts / expected keywords",
        lexical.context_overlap,
    ),
    _model_free(
        "keyword_context_score",
        "harmonic mean of keyword_coverage and context_overlap (0 when either is 0)",
        lexical.keyword_context_score,
    ),
)

METRICS: dict[str, MetricSpec] = {spec.name: spec for spec in _SPECS}
GENERATION_METRICS: tuple[str, ...] = tuple(METRICS)
JUDGED_METRICS = frozenset(spec.name for spec in _SPECS if spec.uses_llm)
