"""What the generation scorer takes and returns, and the catalogue of its metrics.

Every metric value is a float in [0, 1] or ``None``. ``None`` means undefined (the reason is in
``GenerationScores.undefined``) or failed (the judge's error is in ``GenerationScores.errors``);
it is never NaN, and an error is never scored 0.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ragcov_tui.evaluation.systems.base import RetrievedChunk, SystemOutput


@dataclass(frozen=True)
class MetricInfo:
    """How one metric is computed: ``formula``, whether it ``uses_llm`` when one is given, and
    its ``heuristic`` (offline form; ``""`` when it has none and is undefined without an LLM)."""

    name: str
    formula: str
    uses_llm: bool
    heuristic: str


METRICS: dict[str, MetricInfo] = {m.name: m for m in [
    MetricInfo("faithfulness",
               "supported claims / all claims; the LLM splits the answer into atomic claims and "
               "judges each against the numbered retrieved chunks (supported | contradicted | "
               "not_found + supporting chunk id)", True,
               "claims = answer sentences; supported iff max cosine to a context sentence (or pair) "
               ">= the support threshold AND every figure in the claim appears in the context; a "
               "figure differing from the best-matching context sentence's (same unit) or a flipped "
               "negation = contradicted"),
    MetricInfo("answer_relevance", "LLM score in [0, 1]: does the answer address the question", True,
               "cosine(question, answer) rescaled linearly from [0.10, 0.60] to [0, 1], clipped"),
    MetricInfo("answer_correctness", "1 if the answer agrees with the ground truth on every point "
               "the question asks about, else 0 (LLM verdict + rationale)", True,
               "1 if answer_correctness_graded >= 0.5 else 0"),
    MetricInfo("answer_correctness_graded",
               "claim-overlap F1: TP = answer claims supported by the ground truth, FP = the other "
               "answer claims, FN = ground-truth claims the answer does not support; "
               "F1 = 2TP / (2TP + FP + FN)", True,
               "mean of token F1 (content words), rescaled cosine(answer, ground truth) and, when the "
               "ground truth has figures, the share of them the answer states"),
    MetricInfo("context_precision",
               "rank-aware: v_k = 1 if chunk k is useful for the ground-truth answer; "
               "sum_k(precision@k * v_k) / sum_k(v_k); 0 when no chunk is useful", True,
               "v_k = 1 iff some ground-truth sentence is supported by chunk k (same claim-support "
               "routine as faithfulness)"),
    MetricInfo("context_recall", "ground-truth claims supported by the retrieved context / all "
               "ground-truth claims", True,
               "ground-truth sentences checked with the faithfulness claim-support routine"),
    MetricInfo("chunk_attribution", "distinct cited chunk ids that were retrieved / retrieved chunks",
               False, "same (no LLM)"),
    MetricInfo("robustness", "mean pairwise agreement over all pairs of {main answer} + paraphrase "
               "answers; LLM: same meaning both ways = 1, partial = 0.5, different = 0", True,
               "cosine(answer_i, answer_j) rescaled linearly from [0.40, 0.90] to [0, 1], clipped"),
    MetricInfo("retrieval_stability", "mean pairwise Jaccard of the retrieved id sets of the main "
               "question and its paraphrases", False, "same (no LLM)"),
    MetricInfo("keyword_coverage", "expected keywords found in the answer / expected keywords "
               "(case-, space-, punctuation-insensitive; figures normalised)", False, "same (no LLM)"),
    MetricInfo("context_overlap", "expected keywords found in the retrieved contexts / expected "
               "keywords", False, "same (no LLM)"),
    MetricInfo("keyword_context_score", "harmonic mean of keyword_coverage and context_overlap "
               "(0 when either is 0)", False, "same (no LLM)"),
]}

GENERATION_METRICS: tuple[str, ...] = tuple(METRICS)
JUDGED_METRICS = frozenset(m for m, info in METRICS.items() if info.uses_llm)


@dataclass
class GenerationInput:
    """One question's material: the system's answer and ranked contexts, the reference, the
    expected keywords, the system's outputs for each paraphrase, and the main retrieved ids."""

    question: str
    answer: str
    contexts: list[RetrievedChunk] = field(default_factory=list)
    ground_truth: str | None = None
    expected_keywords: list[str] = field(default_factory=list)
    paraphrase_outputs: list[SystemOutput] = field(default_factory=list)
    main_retrieved_ids: list[str] = field(default_factory=list)
    paraphrases: list[str] = field(default_factory=list)  # the paraphrase texts, for display


@dataclass
class GenerationScores:
    """Per-question generation scores.

    ``values``: metric → mean over repeats (or None); ``spread``: metric → population std over the
    repeats that succeeded (0.0 for deterministic metrics); ``details``: metric → what explains
    the score (claims and verdicts, rationale, pairwise agreements…); ``judge_calls``: every LLM
    call ``{metric, repeat, prompt, raw, error}``; ``errors``: metric → why it failed;
    ``undefined``: metric → why it has no value (no ground truth, no claims…); ``judge``:
    ``llm:<spec>`` or ``heuristic``.
    """

    values: dict[str, float | None] = field(default_factory=dict)
    spread: dict[str, float] = field(default_factory=dict)
    details: dict[str, Any] = field(default_factory=dict)
    judge_calls: list[dict[str, Any]] = field(default_factory=list)
    errors: dict[str, str] = field(default_factory=dict)
    undefined: dict[str, str] = field(default_factory=dict)
    judge: str = "heuristic"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (the eval_items columns and the ``--json`` report use it)."""
        return {"values": self.values, "spread": self.spread, "details": self.details,
                "judge_calls": self.judge_calls, "errors": self.errors,
                "undefined": self.undefined, "judge": self.judge}


@dataclass
class MetricOutcome:
    """One metric computed once: ``value`` or ``None`` with ``error`` (failed) or ``reason``
    (undefined), plus ``detail`` for display."""

    value: float | None = None
    detail: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    reason: str | None = None

    @classmethod
    def undefined(cls, reason: str) -> "MetricOutcome":
        return cls(reason=reason)

    @classmethod
    def failed(cls, error: str, detail: dict[str, Any] | None = None) -> "MetricOutcome":
        return cls(error=error, detail=detail or {})
