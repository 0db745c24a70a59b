"""Gold coverage: which documents no question names as gold — exact, cheap, what a person checks first.

Each relevant gold id (grade > 0) is matched to a corpus chunk or document id the way
:mod:`ragcov_tui.testset.gold_ids` matches them (exact first, then its normalisations; the
questions are not rewritten). A document id names all its chunks, a chunk id names that chunk and,
for the counts, its document. ``gold_count(d)`` = how many questions name d (or a chunk of it);
the documents with 0 are *unnamed*. The same gold chunks give the gold distance the answering
radius is calibrated on (:mod:`.calibration`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from threadpoolctl import threadpool_limits

from ragcov_tui.corpus.models import Chunk
from ragcov_tui.shared.row_blocks import take
from ragcov_tui.store.analysis_contract import GoldSummary
from ragcov_tui.testset.gold_ids import CorpusIds
from ragcov_tui.testset.models import Question

ROW_BLOCK = 16384


@dataclass
class GoldCoverage:
    """Per document (first-seen order) ``counts``; the ``unnamed`` documents; how many questions have gold ids."""

    questions_with_gold: int
    questions_matched: int
    documents: int
    counts: np.ndarray
    unnamed: list[str]

    def as_report(self) -> GoldSummary:
        return {
            "questions_with_gold": self.questions_with_gold,
            "questions_matched": self.questions_matched,
            "documents": self.documents,
            "documents_named": self.documents - len(self.unnamed),
            "documents_unnamed": len(self.unnamed),
            "unnamed": self.unnamed,
        }


def gold_chunk_sets(questions: Sequence[Question], chunks: Sequence[Chunk]) -> list[np.ndarray]:
    """Per question, the sorted indices of the chunks its relevant gold ids name (module doc); the
    corpus lookups are built only when some question has a relevant gold id."""
    if not any(grade > 0 for q in questions for grade in q.gold.values()):
        return [np.zeros(0, dtype=np.int64) for _ in questions]
    corpus = CorpusIds(chunks)
    chunk_index = {c.id: i for i, c in enumerate(chunks)}
    by_source: dict[str, list[int]] = {}
    for i, c in enumerate(chunks):
        by_source.setdefault(c.source, []).append(i)
    resolved: dict[str, list[int]] = {}
    out = []
    for q in questions:
        picked: list[int] = []
        for gold, grade in q.gold.items():
            if grade <= 0:
                continue
            if gold not in resolved:
                target, _, _ = corpus.resolve(gold)
                resolved[gold] = (
                    []
                    if target is None
                    else [chunk_index[target]]
                    if target in chunk_index
                    else by_source.get(target, [])
                )
            picked += resolved[gold]
        out.append(np.unique(np.asarray(picked, dtype=np.int64)))
    return out


def gold_distances(C: np.ndarray, Q: np.ndarray, gold_sets: Sequence[np.ndarray]) -> np.ndarray:
    """Per question, the cosine distance to its nearest gold chunk (``inf`` without one).

    Questions naming the same gold chunks are grouped, and each group is one matrix product
    ``C[gold] @ Q[group].T`` (in blocks of ``ROW_BLOCK`` gold chunks): a document-level gold id names
    every chunk of the document, so gathering one (question, chunk) pair at a time would repeat the
    same chunks for every question that names the document."""
    out = np.full(len(gold_sets), np.inf)
    groups: dict[bytes, list[int]] = {}
    for j, chosen in enumerate(gold_sets):
        if len(chosen):
            groups.setdefault(chosen.tobytes(), []).append(j)
    with threadpool_limits(1):  # many small products: BLAS threads only contend (3.7 s vs 0.1 s measured)
        for members in groups.values():
            chosen, questions = gold_sets[members[0]], Q[members]
            best = np.full(len(members), -np.inf)
            for s in range(0, len(chosen), ROW_BLOCK):
                best = np.maximum(best, (take(C, chosen[s : s + ROW_BLOCK]) @ questions.T).max(axis=0))
            out[members] = 1.0 - best.astype(np.float64)
    return out


def gold_coverage(
    questions: Sequence[Question], gold_sets: Sequence[np.ndarray], doc_codes: np.ndarray, doc_names: list[str]
) -> GoldCoverage | None:
    """The gold counts per document (None when no question has a relevant gold id)."""
    with_gold = sum(1 for q in questions if any(g > 0 for g in q.gold.values()))
    if not with_gold:
        return None
    named = [np.unique(doc_codes[s]) for s in gold_sets if len(s)]
    counts = np.bincount(np.concatenate(named), minlength=len(doc_names)) if named else np.zeros(len(doc_names), int)
    return GoldCoverage(
        with_gold, len(named), len(doc_names), counts, [doc_names[d] for d in np.flatnonzero(counts == 0).tolist()]
    )
