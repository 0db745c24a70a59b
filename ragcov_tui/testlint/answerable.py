"""Unanswerable questions, and gold ids that do not hold the answer, by the offline claim check
(:mod:`ragcov_tui.evaluation.generation.support`, the heuristic behind offline faithfulness).

For a question with a reference answer, the claims are the answer's sentences
(``support.claim_sentences``); an answer of fewer than ``SHORT_ANSWER_WORDS`` words ("France",
"in 1066") is no claim on its own, so the claim is the question followed by the answer ("In what
country is Normandy located? France"). The candidate chunks are the ``NEAREST_CHUNKS`` nearest
the question, the ``NEAREST_CHUNKS`` nearest each claim, and the question's gold chunks.

* **unanswerable**: no claim is supported by any candidate chunk, neither by a sentence
  (``support.judge_claims``, as offline faithfulness) nor by a chunk as a whole
  (:func:`chunk_gap`: a reference answer is often written from several sentences of its chunk, so
  a claim counts as held when some unit of the chunk reaches ``support.SUPPORT_THRESHOLD`` and the
  chunk holds every figure and name of the claim and all but ``MAX_MISSING_IN_CHUNK`` of its
  words, ``MAX_MISSING_WITH_QUESTION`` for a question + short answer, whose question words are
  often paraphrased); evidence: the closest sentence found and why it does not hold the claim.
* **gold without the answer**: gold ids given, some claim supported by a candidate chunk, none by
  a gold chunk; evidence: the chunks that do support it (the suggested gold).

Questions without a reference answer are not checked (never counted as answerable).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ragcov_tui.corpus.models import Chunk
from ragcov_tui.evaluation.generation.claim_checks import missing_words, names
from ragcov_tui.evaluation.generation.quantities import extract_quantities, missing_quantities
from ragcov_tui.evaluation.generation.support import (
    SUPPORT_THRESHOLD,
    ContextIndex,
    TextEmbedder,
    claim_sentences,
    judge_claims,
)
from ragcov_tui.evaluation.generation.text import contains_phrase, content_tokens
from ragcov_tui.shared.progress import Progress, report
from ragcov_tui.store.lint_contract import LintFinding
from ragcov_tui.testlint.findings import finding

SHORT_ANSWER_WORDS = 4
NEAREST_CHUNKS = 5
MAX_MISSING_IN_CHUNK = 0.34
MAX_MISSING_WITH_QUESTION = 0.5


@dataclass(frozen=True)
class AnswerCheck:
    """What the check needs of one question: its id, text, reference answer, vector, gold chunk rows."""

    question_id: str
    text: str
    reference: str
    vector: np.ndarray
    gold_rows: np.ndarray


class _Memo:
    """Each distinct text embedded once per lint run (chunk sentences recur across questions)."""

    def __init__(self, embedder: TextEmbedder) -> None:
        self.embedder = embedder
        self.vectors: dict[str, np.ndarray] = {}

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        missing = list(dict.fromkeys(t for t in texts if t not in self.vectors))
        if missing:
            self.vectors.update(zip(missing, np.asarray(self.embedder.embed(missing)), strict=True))
        return np.stack([self.vectors[t] for t in texts]) if texts else np.zeros((0, 1), dtype=np.float32)


def claims_of(question: str, reference: str) -> list[str]:
    """The claims a reference answer makes (module doc)."""
    if len(reference.split()) < SHORT_ANSWER_WORDS:
        return [f"{question.strip()} {reference.strip()}"]
    return claim_sentences(reference) or [reference.strip()]


def chunk_gap(claim: str, chunk_text: str, allowed: float = MAX_MISSING_IN_CHUNK) -> str | None:
    """Why the chunk as a whole does not hold the claim (None when it does): a figure or a name of
    the claim absent from it, or more than ``MAX_MISSING_IN_CHUNK`` of its content words."""
    missing = missing_quantities(extract_quantities(claim), extract_quantities(chunk_text))
    if missing:
        return f"figure {missing[0].text!r} not in the chunk"
    absent = [n for n in names(claim) if not contains_phrase(chunk_text, n)]
    if absent:
        return f"name {absent[0]!r} not in the chunk"
    words = missing_words(claim, chunk_text)
    if len(words) / (len(content_tokens(claim)) or 1) > allowed:
        return "words not in the chunk: " + ", ".join(words[:4])
    return None


def supporting_chunks(
    claims: Sequence[str],
    claim_vecs: np.ndarray,
    index: ContextIndex,
    texts: dict[str, str],
    memo: TextEmbedder,
    allowed: float = MAX_MISSING_IN_CHUNK,
) -> list[str]:
    """The chunks that hold some claim, by a sentence (``judge_claims``) or as a whole (:func:`chunk_gap`
    with ``allowed`` missing words)."""
    verdicts = judge_claims(claims, index, memo, claim_vecs)
    out = [v["chunk_id"] for v in verdicts if v["verdict"] == "supported"]
    if len(index.units):
        sims = claim_vecs @ index.vectors.T
        for claim, row in zip(claims, sims, strict=True):
            near = dict.fromkeys(index.unit_chunks[u] for u in np.flatnonzero(row >= SUPPORT_THRESHOLD))
            out += [c for c in near if chunk_gap(claim, texts[c], allowed) is None]
    return list(dict.fromkeys(out))


def check_answers(
    checks: Sequence[AnswerCheck],
    chunks: Sequence[Chunk],
    chunk_vecs: np.ndarray,
    embedder: TextEmbedder,
    progress: Progress | None = None,
) -> list[LintFinding]:
    """The unanswerable and gold-without-answer findings of ``checks`` (module doc)."""
    memo = _Memo(embedder)
    out: list[LintFinding] = []
    for done, check in enumerate(checks):
        report(progress, "lint: reference answers", done, len(checks))
        out.extend(_check_one(check, chunks, chunk_vecs, memo))
    report(progress, "lint: reference answers", len(checks), len(checks))
    return out


def _nearest(vectors: np.ndarray, chunk_vecs: np.ndarray, k: int) -> set[int]:
    sims = vectors @ chunk_vecs.T
    k = min(k, chunk_vecs.shape[0])
    return {int(i) for row in sims for i in np.argpartition(-row, k - 1)[:k]}


def _check_one(check: AnswerCheck, chunks: Sequence[Chunk], chunk_vecs: np.ndarray, memo: _Memo) -> list[LintFinding]:
    claims = claims_of(check.text, check.reference)
    claim_vecs = memo.embed(claims)
    near = _nearest(np.vstack([check.vector[None, :], claim_vecs]), chunk_vecs, NEAREST_CHUNKS)
    gold = {int(i) for i in check.gold_rows}
    candidates = sorted(near | gold)
    texts = {chunks[i].id: chunks[i].text for i in candidates}
    index = ContextIndex.build(list(texts.items()), memo)
    allowed = MAX_MISSING_WITH_QUESTION if len(check.reference.split()) < SHORT_ANSWER_WORDS else MAX_MISSING_IN_CHUNK
    supporting = supporting_chunks(claims, claim_vecs, index, texts, memo, allowed)
    if not supporting:
        verdicts = judge_claims(claims, index, memo, claim_vecs)
        best = max(verdicts, key=lambda v: v["similarity"] or 0.0)
        return [
            finding(
                check.question_id,
                "unanswerable",
                f"no chunk supports the reference answer: {best['reason']}",
                claim=best["claim"],
                closest=best["evidence"],
                similarity=best["similarity"],
                searched=list(texts),
            )
        ]
    gold_ids = {chunks[i].id for i in gold}
    if not gold_ids or any(c in gold_ids for c in supporting):
        return []
    gold_texts = {c: texts[c] for c in sorted(gold_ids)}  # judge_claims names one unit per claim: ask the gold alone
    if supporting_chunks(
        claims, claim_vecs, ContextIndex.build(list(gold_texts.items()), memo), gold_texts, memo, allowed
    ):
        return []
    return [
        finding(
            check.question_id,
            "gold_without_answer",
            f"the gold chunks do not hold the reference answer; {len(supporting)} other chunk"
            f"{'s do' if len(supporting) != 1 else ' does'}: {', '.join(supporting[:3])}",
            suggested_gold=supporting,
            gold=sorted(gold_ids),
        )
    ]
