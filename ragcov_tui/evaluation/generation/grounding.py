"""Claim-based metrics against the retrieved context: faithfulness, context recall, context precision.

- faithfulness = supported answer claims / answer claims (undefined when the answer makes no
  factual claim; 0 when claims were made but nothing was retrieved).
- context_recall = ground-truth claims supported by the context / ground-truth claims.
- context_precision = sum_k(precision@k · v_k) / sum_k(v_k) with v_k = 1 when chunk k is useful
  for the ground-truth answer (Ragas' rank-aware average precision; 0 when no chunk is useful).

With an LLM the claims come from the decomposition prompt and the verdicts from the verification
prompt; offline, claims are sentences and verdicts come from ``support.judge_claims``.
"""

from __future__ import annotations

from ragcov_tui.evaluation.generation.judge import Judge
from ragcov_tui.evaluation.generation.models import MetricOutcome
from ragcov_tui.evaluation.generation.prompts import USEFULNESS, ReferencePassages
from ragcov_tui.evaluation.generation.support import Evidence, claim_sentences, judge_claims, support_share
from ragcov_tui.evaluation.generation.text import strip_citations

FAITHFUL_THRESHOLD = 0.5  # a faithfulness score at or above it reads "faithful" (agreement benchmark)


def _claims(metric: str, text: str, ev: Evidence, judge: Judge | None) -> list[str]:
    if judge is None:
        return claim_sentences(text)
    return judge.decompose(metric, ev.item.question, strip_citations(text))


def _verdicts(metric: str, claims: list[str], ev: Evidence, judge: Judge | None) -> list[dict]:
    if not ev.passages:
        return [{"claim": c, "verdict": "not_found", "chunk_id": None, "reason": "nothing retrieved"} for c in claims]
    if judge is None:
        return judge_claims(claims, ev.index, ev)
    return judge.verify(metric, claims, ev.passages)


def _claim_score(verdicts: list[dict]) -> MetricOutcome:
    unsupported = [v["claim"] for v in verdicts if v["verdict"] != "supported"]
    return MetricOutcome(
        value=support_share(verdicts),
        detail={
            "claims": verdicts,
            "unsupported": unsupported,
            "contradicted": [v["claim"] for v in verdicts if v["verdict"] == "contradicted"],
            "supported": len(verdicts) - len(unsupported),
            "total": len(verdicts),
        },
    )


def faithfulness(ev: Evidence, judge: Judge | None) -> MetricOutcome:
    if not (ev.item.answer or "").strip():
        return MetricOutcome.undefined("the answer is empty")
    claims = _claims("faithfulness", ev.item.answer, ev, judge)
    if not claims:
        return MetricOutcome.undefined("the answer makes no factual claim")
    return _claim_score(_verdicts("faithfulness", claims, ev, judge))


def context_recall(ev: Evidence, judge: Judge | None) -> MetricOutcome:
    reference = ev.item.ground_truth or ""
    if not reference.strip():
        return MetricOutcome.undefined("the question has no ground truth")
    claims = _claims("context_recall", reference, ev, judge) or ([reference.strip()] if judge is None else [])
    if not claims:
        return MetricOutcome.undefined("the ground truth makes no factual claim")
    return _claim_score(_verdicts("context_recall", claims, ev, judge))


def average_precision(useful: list[bool]) -> float:
    """sum_k(precision@k · v_k) / sum_k(v_k); 0.0 when no item is useful."""
    hits, total = 0, 0.0
    for rank, flag in enumerate(useful, 1):
        if flag:
            hits += 1
            total += hits / rank
    return total / hits if hits else 0.0


def context_precision(ev: Evidence, judge: Judge | None) -> MetricOutcome:
    reference = ev.item.ground_truth or ""
    if not reference.strip():
        return MetricOutcome.undefined("the question has no ground truth")
    if not ev.passages:
        return MetricOutcome.undefined("nothing retrieved")
    if judge is None:
        chunks = _useful_offline(reference, ev)
    else:
        verdicts = judge.ask(
            "context_precision", USEFULNESS, ReferencePassages(ev.item.question, reference, ev.passages)
        )
        chunks = [
            {"chunk_id": pid, "useful": v.verdict, "reason": v.reason}
            for (pid, _), v in zip(ev.passages, verdicts, strict=True)
        ]
    return MetricOutcome(value=average_precision([c["useful"] for c in chunks]), detail={"chunks": chunks})


def _useful_offline(reference: str, ev: Evidence) -> list[dict]:
    """Chunk k is useful when it alone supports at least one ground-truth sentence."""
    sentences = claim_sentences(reference) or [reference.strip()]
    vectors = ev.embed(sentences)
    out = []
    for pid, _ in ev.passages:
        verdicts = judge_claims(sentences, ev.index.restrict(pid), ev, claim_vectors=vectors)
        supported = [v["claim"] for v in verdicts if v["verdict"] == "supported"]
        out.append(
            {
                "chunk_id": pid,
                "useful": bool(supported),
                "reason": f"supports: {supported[0]!r}" if supported else "supports no ground-truth sentence",
            }
        )
    return out
