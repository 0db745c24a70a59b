"""Retrieval metrics per question, computed exactly as trec_eval does, and their aggregates.

Relevance comes from ``Question.gold`` (``{id: grade}``; a plain list of gold ids is grade 1 each).
An item is *relevant* when its grade is > 0 (for integer grades that is trec_eval's threshold of
``relevance_level = 1``); grade 0 means judged non-relevant. With ``R`` the number of relevant
items, ``rel_i`` whether the item at rank ``i`` (1-based) is relevant and ``g_i`` its grade:

- ``precision@k`` = (relevant in the top k) / k — divided by k even when fewer were retrieved
  (trec_eval ``P_k``);
- ``recall@k``    = (relevant in the top k) / R (``recall_k``);
- ``hit@k``       = 1 if any relevant item is in the top k, else 0;
- ``mrr``         = 1 / rank of the first relevant item over the *whole* ranking, 0 if none
  (``recip_rank``);
- ``ndcg@k``      = DCG@k / IDCG@k with linear gains and a log2 discount,
  ``DCG@k = sum_{i<=k} g_i / log2(i + 1)``, the ideal ranking built from *every* judged relevant
  item sorted by grade (``ndcg_cut_k``);
- ``map``         = average precision over the *whole* ranking (not cut at k):
  ``AP = (1/R) * sum_{i: rel_i} precision@i`` (trec_eval ``map``).

Gold ids may name chunks or documents. The level is decided per question: if any gold id is a
known chunk id the question is judged at chunk level; else, if any gold id is a known document
(``Chunk.source``), each retrieved chunk id is replaced by its document and repeats are dropped,
keeping the first (best) rank — document-level evaluation. A question with no relevant gold item
gets ``None`` for every metric (undefined, not 0), and aggregates are means over the questions
that have one, reported with their count ``n``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

from ragcov_tui.corpus.models import Chunk

LEVEL_CHUNK = "chunk"
LEVEL_DOCUMENT = "document"


def metric_names(k: int) -> list[str]:
    """The retrieval metric keys at cut-off ``k``, in display order."""
    return [f"precision@{k}", f"recall@{k}", f"hit@{k}", "mrr", f"ndcg@{k}", "map"]


@dataclass
class RetrievalResult:
    """One question's retrieval scores, the level it was judged at, and the ranking judged."""

    values: dict[str, float | None]
    level: str
    ranking: list[str]
    relevant_ranks: list[int]  # 1-based ranks of relevant items in ``ranking``


class GoldIndex:
    """Chunk id → document lookups used to decide each question's level and map rankings."""

    def __init__(self, chunks: Sequence[Chunk] = ()) -> None:
        self.source_of: dict[str, str] = {c.id: c.source for c in chunks}
        self.sources: set[str] = set(self.source_of.values())

    def level_for(self, gold: Mapping[str, float]) -> str:
        """``document`` when no gold id is a chunk id but one is a document, else ``chunk``."""
        if any(g in self.source_of for g in gold):
            return LEVEL_CHUNK
        if any(g in self.sources for g in gold):
            return LEVEL_DOCUMENT
        return LEVEL_CHUNK

    def ranking(self, retrieved_ids: Iterable[str], level: str) -> list[str]:
        """The ranked ids at ``level``: documents for document level; repeats dropped, first rank kept."""
        mapped = (self.source_of.get(i, i) for i in retrieved_ids) if level == LEVEL_DOCUMENT else retrieved_ids
        return list(dict.fromkeys(mapped))


def score_ranking(ranking: Sequence[str], gold: Mapping[str, float], k: int) -> dict[str, float | None]:
    """Every metric of the module docstring for one ranked, de-duplicated list of ids."""
    grades = {i: float(g) for i, g in gold.items() if float(g) > 0}
    names = metric_names(k)
    if not grades:
        return dict.fromkeys(names)
    n_rel = len(grades)
    relevant_ranks = [r for r, item in enumerate(ranking, start=1) if item in grades]
    in_top_k = sum(1 for r in relevant_ranks if r <= k)
    dcg = sum(grades[item] / math.log2(r + 1) for r, item in enumerate(ranking[:k], start=1) if item in grades)
    ideal = sorted(grades.values(), reverse=True)[:k]
    idcg = sum(g / math.log2(r + 1) for r, g in enumerate(ideal, start=1))
    average_precision = sum((n + 1) / r for n, r in enumerate(relevant_ranks)) / n_rel
    return dict(
        zip(
            names,
            [
                in_top_k / k,
                in_top_k / n_rel,
                1.0 if in_top_k else 0.0,
                1.0 / relevant_ranks[0] if relevant_ranks else 0.0,
                dcg / idcg if idcg > 0 else 0.0,
                average_precision,
            ],
        )
    )


def evaluate_retrieval(
    retrieved_ids: Sequence[str], gold: Mapping[str, float], k: int, index: GoldIndex | None = None
) -> RetrievalResult:
    """Judge one question's retrieved ids against its gold ids at the level the gold ids name."""
    index = index or GoldIndex()
    level = index.level_for(gold)
    ranking = index.ranking(retrieved_ids, level)
    relevant = {i for i, g in gold.items() if float(g) > 0}
    ranks = [r for r, item in enumerate(ranking, start=1) if item in relevant]
    return RetrievalResult(values=score_ranking(ranking, gold, k), level=level, ranking=ranking, relevant_ranks=ranks)


def aggregate(per_question: Iterable[Mapping[str, float | None]]) -> dict[str, dict[str, float | int | None]]:
    """``{metric: {"mean", "n", "std"}}`` over the questions where the metric is defined (not None).

    ``std`` is the population standard deviation across those questions (0 for one question);
    a metric defined for no question has ``mean = None`` and ``n = 0``.
    """
    values: dict[str, list[float]] = {}
    for row in per_question:
        for name, value in row.items():
            bucket = values.setdefault(name, [])
            if value is not None:
                bucket.append(float(value))
    out: dict[str, dict[str, float | int | None]] = {}
    for name, vals in values.items():
        if not vals:
            out[name] = {"mean": None, "n": 0, "std": None}
            continue
        mean = sum(vals) / len(vals)
        std = math.sqrt(sum((v - mean) ** 2 for v in vals) / len(vals))
        out[name] = {"mean": mean, "n": len(vals), "std": std}
    return out
