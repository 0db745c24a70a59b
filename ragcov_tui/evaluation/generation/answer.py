"""Metrics of the answer itself: relevance to the question, correctness against the ground truth.

- answer_relevance — LLM: a 0–1 score with a reason (a score outside [0, 1] or not finite is a
  failed judgement, not clamped). Offline: cosine(question, answer) rescaled
  from [``RELEVANCE_LO``, ``RELEVANCE_HI``] to [0, 1] (calibrated for all-MiniLM-L6-v2: a direct
  answer scores 0.4–0.9, an unrelated one below 0.1).
- answer_correctness — LLM: binary verdict + rationale. Offline: 1 when the graded score >= 0.5.
- answer_correctness_graded — LLM: claim-overlap F1 = 2TP / (2TP + FP + FN), TP = answer claims
  the ground truth supports, FP = the other answer claims, FN = ground-truth claims the answer
  does not support (as Ragas' factual correctness). Offline: the mean of token F1, cosine
  rescaled from [``AGREEMENT_LO``, ``AGREEMENT_HI``], and — when the ground truth has figures —
  the share of them the answer states.
"""

from __future__ import annotations

from ragcov_tui.evaluation.generation.judge import Judge
from ragcov_tui.evaluation.generation.models import MetricOutcome
from ragcov_tui.evaluation.generation.prompts import CORRECTNESS, RELEVANCE, AnswerReference, QuestionAnswer
from ragcov_tui.evaluation.generation.quantities import extract_quantities, missing_quantities
from ragcov_tui.evaluation.generation.support import Evidence, cosine, rescale
from ragcov_tui.evaluation.generation.text import strip_citations, token_f1
from ragcov_tui.shared.json_types import JsonObject

RELEVANCE_LO, RELEVANCE_HI = 0.10, 0.60
AGREEMENT_LO, AGREEMENT_HI = 0.50, 0.90
BINARY_CUTOFF = 0.5


def answer_relevance(ev: Evidence, judge: Judge | None) -> MetricOutcome:
    answer = strip_citations(ev.item.answer or "")
    if not answer:
        return MetricOutcome(value=0.0, detail={"reason": "the answer is empty"})
    if judge is not None:
        scored = judge.ask("answer_relevance", RELEVANCE, QuestionAnswer(ev.item.question, answer))
        return MetricOutcome(value=scored.score, detail={"reason": scored.reason})
    sim = cosine(ev, ev.item.question, answer)
    return MetricOutcome(
        value=rescale(sim, RELEVANCE_LO, RELEVANCE_HI),
        detail={"cosine": round(sim, 4), "calibration": [RELEVANCE_LO, RELEVANCE_HI]},
    )


def _reference(ev: Evidence) -> str | None:
    return (ev.item.ground_truth or "").strip() or None


def answer_correctness(ev: Evidence, judge: Judge | None) -> MetricOutcome:
    reference = _reference(ev)
    if reference is None:
        return MetricOutcome.undefined("the question has no ground truth")
    if judge is None:
        graded, detail = _graded_parts(ev, reference)
        verdict = graded >= BINARY_CUTOFF
        return MetricOutcome(
            value=float(verdict),
            detail={
                "rationale": f"heuristic: graded score {graded:.2f} {'>=' if verdict else '<'} {BINARY_CUTOFF}",
                **detail,
            },
        )
    answer = strip_citations(ev.item.answer or "")
    judged = judge.ask("answer_correctness", CORRECTNESS, AnswerReference(ev.item.question, answer, reference))
    return MetricOutcome(value=float(judged.verdict), detail={"rationale": judged.reason})


def answer_correctness_graded(ev: Evidence, judge: Judge | None) -> MetricOutcome:
    reference = _reference(ev)
    if reference is None:
        return MetricOutcome.undefined("the question has no ground truth")
    if judge is None:
        value, detail = _graded_parts(ev, reference)
        return MetricOutcome(value=value, detail=detail)
    metric, question = "answer_correctness_graded", ev.item.question
    answer = strip_citations(ev.item.answer or "")
    answer_claims = judge.decompose(metric, question, answer) if answer else []
    reference_claims = judge.decompose(metric, question, reference)
    if not answer_claims and not reference_claims:
        return MetricOutcome.undefined("neither the answer nor the ground truth makes a factual claim")
    precision = judge.verify(metric, answer_claims, [("reference", reference)]) if answer_claims else []
    recall = judge.verify(metric, reference_claims, [("answer", answer)]) if reference_claims and answer else []
    tp = sum(v["verdict"] == "supported" for v in precision)
    fp = len(precision) - tp
    fn = len(reference_claims) - sum(v["verdict"] == "supported" for v in recall)
    value = 2 * tp / (2 * tp + fp + fn) if tp else 0.0
    return MetricOutcome(
        value=value,
        detail={
            "tp": tp,
            "fp": fp,
            "fn": fn,
            "answer_claims": precision,
            "reference_claims": recall or [{"claim": c, "verdict": "not_found"} for c in reference_claims],
        },
    )


def _graded_parts(ev: Evidence, reference: str) -> tuple[float, JsonObject]:
    """The offline graded score and its detail."""
    answer = strip_citations(ev.item.answer or "")
    if not answer:
        return 0.0, {"reason": "the answer is empty"}
    f1 = token_f1(answer, reference)
    sim = cosine(ev, answer, reference)
    parts = {"token_f1": f1, "similarity": rescale(sim, AGREEMENT_LO, AGREEMENT_HI)}
    figures = extract_quantities(reference)
    if figures:
        parts["figures"] = 1 - len(missing_quantities(figures, extract_quantities(answer))) / len(figures)
    value = sum(parts.values()) / len(parts)
    return value, {"components": {k: round(v, 4) for k, v in parts.items()}, "cosine": round(sim, 4)}
