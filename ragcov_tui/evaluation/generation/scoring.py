"""``score_generation``: every requested generation metric for one question, with judge trust.

With an LLM, each judged metric runs ``repeats`` times (repeat i > 0 adds a short note to the
system message, so it is a distinct, uncached request; at temperature 0 the spread therefore
measures how much the verdicts move under a small prompt perturbation); the value is the mean
over the repeats that succeeded and ``spread`` their population standard deviation. A metric
whose every repeat failed is ``None`` with the error in ``errors``; a partial failure keeps the
mean of the rest and lists the failed repeats in its detail. Metrics that need no model (and
every metric in heuristic mode) are deterministic: computed once, spread 0. No value is ever
NaN: a non-finite result becomes an error.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable
from functools import partial

from ragcov_tui.embeddings.base import Embedder
from ragcov_tui.evaluation.generation.judge import Judge, JudgeError
from ragcov_tui.evaluation.generation.models import GenerationInput, GenerationScores, MetricOutcome
from ragcov_tui.evaluation.generation.registry import GENERATION_METRICS, METRICS
from ragcov_tui.evaluation.generation.support import Evidence
from ragcov_tui.llm.base import ChatModel
from ragcov_tui.shared.errors import BadInput
from ragcov_tui.shared.json_types import JsonObject


def score_generation(
    item: GenerationInput,
    *,
    llm: ChatModel | None,
    embedder: Embedder,
    metrics: set[str],
    repeats: int = 1,
    judge_mode: str = "batch",
) -> GenerationScores:
    """Score ``item`` on ``metrics`` (names from ``GENERATION_METRICS``; BadInput for others);
    ``judge_mode`` says how the judge asks for claim verdicts (:mod:`~ragcov_tui.evaluation.generation.graded`)."""
    unknown = sorted(set(metrics) - set(GENERATION_METRICS))
    if unknown:
        raise BadInput(f"unknown generation metric(s) {', '.join(unknown)}; known: {', '.join(GENERATION_METRICS)}")
    if repeats < 1:
        raise BadInput(f"--repeats must be at least 1, got {repeats}")
    scores = GenerationScores(judge=f"llm:{llm.spec}" if llm is not None else "heuristic")
    evidence = Evidence(item, embedder)
    if llm is None:
        evidence.prefetch(set(metrics))
    for name in GENERATION_METRICS:
        if name not in metrics:
            continue
        spec = METRICS[name]
        if not spec.uses_llm or llm is None:
            runs = [_safe(partial(spec.run, evidence, None))]
        else:
            runs = [
                _safe(partial(spec.run, evidence, Judge(llm, i, scores.judge_calls, judge_mode)))
                for i in range(repeats)
            ]
        _record(scores, name, runs)
    return scores


def _safe(run: Callable[[], MetricOutcome]) -> MetricOutcome:
    """Run one metric once; a judge failure or a non-finite value becomes an error outcome."""
    try:
        outcome = run()
    except JudgeError as exc:
        return MetricOutcome.failed(f"judge reply unusable: {exc}")
    if outcome.value is not None and not math.isfinite(outcome.value):
        return MetricOutcome.failed(f"non-finite value {outcome.value!r}", outcome.detail)
    return outcome


def _record(scores: GenerationScores, name: str, runs: list[MetricOutcome]) -> None:
    ok = [r for r in runs if r.value is not None]
    undefined = next((r.reason for r in runs if r.reason), None)
    detail: JsonObject = dict(ok[0].detail if ok else runs[0].detail)
    if len(runs) > 1:
        detail["repeats"] = [
            r.value if r.value is not None else {"error": r.error, "undefined": r.reason} for r in runs
        ]
    if ok:
        values = [float(value) for r in ok if (value := r.value) is not None]
        scores.values[name] = statistics.fmean(values)
        scores.spread[name] = statistics.pstdev(values) if len(values) > 1 else 0.0
        failed = [r.error for r in runs if r.error]
        if failed:
            detail["repeat_errors"] = failed
    else:
        scores.values[name] = None
        if undefined and not any(r.error for r in runs):
            scores.undefined[name] = undefined
        else:
            scores.errors[name] = next(r.error for r in runs if r.error) + (
                f" ({len(runs)} repeats failed)" if len(runs) > 1 else ""
            )
    if detail:
        scores.details[name] = detail
