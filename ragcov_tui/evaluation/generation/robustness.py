"""Paraphrase robustness: do paraphrased questions get the same answer? And paraphrase generation.

robustness = mean agreement over all pairs of {main answer} + paraphrase answers.
- LLM: the agreement judge says ``same`` (each answer entails the other) = 1, ``partial`` = 0.5,
  ``different`` = 0. Any pair the judge could not score makes the metric an error (never a
  silently smaller mean).
- Offline: 0 when the two answers state conflicting figures (same unit, different value: "30
  days" vs "14 days", which embeddings barely tell apart), else cosine(answer_i, answer_j)
  rescaled from [``AGREEMENT_LO``, ``AGREEMENT_HI``] to [0, 1] (all-MiniLM-L6-v2: reworded
  answers score 0.85–0.95, different facts on the same topic 0.6–0.7, unrelated < 0.2).

Retrieval stability is reported separately (``lexical.retrieval_stability``) so brittle
retrieval and brittle generation are told apart.
"""

from __future__ import annotations

from itertools import combinations

from ragcov_tui.evaluation.generation.answer import AGREEMENT_HI, AGREEMENT_LO
from ragcov_tui.evaluation.generation.judge import Judge, JudgeError
from ragcov_tui.evaluation.generation.models import MetricOutcome
from ragcov_tui.evaluation.generation.prompts import AGREEMENT, PARAPHRASE, AnswerPair, ParaphraseRequest
from ragcov_tui.evaluation.generation.quantities import conflicting_pairs, extract_quantities, missing_quantities
from ragcov_tui.evaluation.generation.support import Evidence, rescale
from ragcov_tui.evaluation.generation.text import strip_citations
from ragcov_tui.llm.base import ChatModel
from ragcov_tui.shared.errors import ProviderError

AGREEMENT_SCORES = {"same": 1.0, "partial": 0.5, "different": 0.0}


def _answers(ev: Evidence) -> list[dict]:
    """The main answer then each paraphrase's, with the question asked when it is known."""
    texts = ev.item.paraphrases
    out = [{"question": ev.item.question, "answer": strip_citations(ev.item.answer or "")}]
    for i, output in enumerate(ev.item.paraphrase_outputs):
        out.append({"question": texts[i] if i < len(texts) else "", "answer": strip_citations(output.answer or "")})
    return out


def robustness(ev: Evidence, judge: Judge | None) -> MetricOutcome:
    if not ev.item.paraphrase_outputs:
        return MetricOutcome.undefined("no paraphrases were run")
    answers = _answers(ev)
    pairs = list(combinations(range(len(answers)), 2))
    if judge is None:
        scored = _offline_pairs(ev, [a["answer"] for a in answers], pairs)
    else:
        scored = [_judged_pair(ev, judge, answers, i, j) for i, j in pairs]
    value = sum(p["agreement"] for p in scored) / len(scored)
    return MetricOutcome(value=value, detail={"answers": answers, "pairs": scored})


def _judged_pair(ev: Evidence, judge: Judge, answers: list[dict], i: int, j: int) -> dict:
    agreement = judge.ask(
        "robustness", AGREEMENT, AnswerPair(ev.item.question, answers[i]["answer"], answers[j]["answer"])
    )
    return {
        "a": i,
        "b": j,
        "verdict": agreement.verdict,
        "agreement": AGREEMENT_SCORES[agreement.verdict],
        "reason": agreement.reason,
    }


def figures_conflict(a: str, b: str) -> bool:
    """True when one text states a figure the other lacks and contradicts (same unit)."""
    qa, qb = extract_quantities(a), extract_quantities(b)
    return bool(conflicting_pairs(missing_quantities(qa, qb), qb) or conflicting_pairs(missing_quantities(qb, qa), qa))


def _offline_pairs(ev: Evidence, texts: list[str], pairs: list[tuple[int, int]]) -> list[dict]:
    vectors = ev.embed(texts)
    out = []
    for i, j in pairs:
        sim = float(vectors[i] @ vectors[j]) if texts[i] != texts[j] else 1.0
        conflict = figures_conflict(texts[i], texts[j])
        agreement = 0.0 if conflict else rescale(sim, AGREEMENT_LO, AGREEMENT_HI)
        out.append(
            {
                "a": i,
                "b": j,
                "agreement": agreement,
                "cosine": round(sim, 4),
                "reason": "conflicting figures" if conflict else f"cosine {sim:.2f}",
            }
        )
    return out


def generate_paraphrases(question: str, n: int, llm: ChatModel) -> list[str]:
    """``n`` paraphrases of ``question`` from ``llm`` (JSON reply, temperature 0, so the LLM cache
    makes a rerun free and deterministic). Raises ProviderError when no usable reply came back."""
    if n <= 0:
        return []
    try:
        return Judge(llm, 0, []).ask("paraphrases", PARAPHRASE, ParaphraseRequest(question, n))
    except JudgeError as exc:
        raise ProviderError(f"paraphrase generation failed for {question[:60]!r}: {exc}") from None
