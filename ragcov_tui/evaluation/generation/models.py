"""What the generation scorer and its metrics take and return (the metrics are listed in ``registry.py``).

Every metric value is a float in [0, 1] or ``None``. ``None`` means undefined (the reason is in
``GenerationScores.undefined``) or failed (the judge's error is in ``GenerationScores.errors``);
it is never NaN, and an error is never scored 0.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ragcov_tui.evaluation.systems.base import RetrievedChunk, SystemOutput
from ragcov_tui.shared.json_types import JsonObject


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
    details: JsonObject = field(default_factory=dict)
    judge_calls: list[JsonObject] = field(default_factory=list)
    errors: dict[str, str] = field(default_factory=dict)
    undefined: dict[str, str] = field(default_factory=dict)
    judge: str = "heuristic"

    def to_dict(self) -> JsonObject:
        """JSON-ready form (the eval_items columns and the ``--json`` report use it)."""
        return {
            "values": self.values,
            "spread": self.spread,
            "details": self.details,
            "judge_calls": self.judge_calls,
            "errors": self.errors,
            "undefined": self.undefined,
            "judge": self.judge,
        }


@dataclass
class MetricOutcome:
    """One metric computed once: ``value`` or ``None`` with ``error`` (failed) or ``reason``
    (undefined), plus ``detail`` for display."""

    value: float | None = None
    detail: JsonObject = field(default_factory=dict)
    error: str | None = None
    reason: str | None = None

    @classmethod
    def undefined(cls, reason: str) -> MetricOutcome:
        return cls(reason=reason)

    @classmethod
    def failed(cls, error: str, detail: JsonObject | None = None) -> MetricOutcome:
        return cls(error=error, detail=detail or {})
