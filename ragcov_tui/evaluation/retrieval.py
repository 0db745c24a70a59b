"""Retrieval metrics per question, computed exactly as trec_eval does, and their aggregates.

Relevance comes from ``Question.gold`` (``{id: grade}``; a plain list of gold ids is grade 1 each).
An item is *relevant* when its grade is > 0 (for integer grades that is trec_eval's threshold of
``relevance_level = 1``); grade 0 means judged non-relevant. Every metric is one small function of
a :class:`Ranked` (the ranking, the relevant grades and their 1-based ranks, the cut-off ``k``)
whose docstring gives its formula and the trec_eval measure it equals; ``RETRIEVAL_METRICS`` lists
them once, in display order (``precision@k``, ``recall@k``, ``hit@k``, ``mrr``, ``ndcg@k``, ``map``).

Gold ids may name chunks or documents. The level is decided per question: if any gold id is a
known chunk id the question is judged at chunk level; else, if any gold id is a known document
(``Chunk.source``), each retrieved chunk id is replaced by its document and repeats are dropped,
keeping the first (best) rank — document-level evaluation. A question with no relevant gold item
gets ``None`` for every metric (undefined, not 0), and aggregates are means over the questions
that have one, reported with their count ``n``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from ragcov_tui.corpus.models import Chunk
from ragcov_tui.store.eval_contract import MetricStats

LEVEL_CHUNK = "chunk"
LEVEL_DOCUMENT = "document"


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


@dataclass(frozen=True)
class Ranked:
    """What every retrieval metric reads: one ranked, de-duplicated list of ids, the ``grades`` of
    its question's relevant items (grade > 0; at least one), the cut-off ``k``, and
    ``relevant_ranks``: the 1-based ranks in ``ranking`` of the relevant items, ascending."""

    ranking: Sequence[str]
    grades: Mapping[str, float]
    k: int
    relevant_ranks: tuple[int, ...]

    @classmethod
    def of(cls, ranking: Sequence[str], grades: Mapping[str, float], k: int) -> Ranked:
        return cls(ranking, grades, k, tuple(r for r, item in enumerate(ranking, start=1) if item in grades))

    @property
    def in_top_k(self) -> int:
        """Relevant items in the top ``k``."""
        return sum(1 for r in self.relevant_ranks if r <= self.k)


def precision_at_k(r: Ranked) -> float:
    """(relevant in the top k) / k — divided by k even when fewer were retrieved (trec_eval ``P_k``)."""
    return r.in_top_k / r.k


def recall_at_k(r: Ranked) -> float:
    """(relevant in the top k) / R, R = the number of relevant items (``recall_k``)."""
    return r.in_top_k / len(r.grades)


def hit_at_k(r: Ranked) -> float:
    """1 if any relevant item is in the top k, else 0."""
    return 1.0 if r.in_top_k else 0.0


def reciprocal_rank(r: Ranked) -> float:
    """1 / rank of the first relevant item over the *whole* ranking, 0 if none (``recip_rank``)."""
    return 1.0 / r.relevant_ranks[0] if r.relevant_ranks else 0.0


def ndcg_at_k(r: Ranked) -> float:
    """DCG@k / IDCG@k with linear gains and a log2 discount, ``DCG@k = sum_{i<=k} g_i / log2(i + 1)``
    (``g_i`` the grade at rank i); the ideal ranking is built from *every* relevant item sorted by
    grade (``ndcg_cut_k``); 0 when IDCG is 0. The ratio does not change when every grade is scaled
    by one factor, so grades are divided by the largest first: the sums stay finite whatever the
    grades (readers bound them too: :func:`ragcov_tui.shared.input_values.grade_problem`)."""
    top = max(r.grades.values())
    if top <= 0:
        return 0.0
    dcg = sum(
        r.grades[item] / top / math.log2(i + 1) for i, item in enumerate(r.ranking[: r.k], start=1) if item in r.grades
    )
    ideal = sorted(r.grades.values(), reverse=True)[: r.k]
    idcg = sum(g / top / math.log2(i + 1) for i, g in enumerate(ideal, start=1))
    return dcg / idcg if idcg > 0 else 0.0


def average_precision(r: Ranked) -> float:
    """Average precision over the *whole* ranking (not cut at k):
    ``AP = (1/R) * sum_{i: rel_i} precision@i`` (trec_eval ``map``)."""
    return sum((n + 1) / rank for n, rank in enumerate(r.relevant_ranks)) / len(r.grades)


@dataclass(frozen=True)
class RetrievalMetric:
    """One retrieval metric: ``base`` name, whether its key carries the cut-off (``precision@5``)
    and ``compute`` (formula in its docstring)."""

    base: str
    cut: bool
    compute: Callable[[Ranked], float]

    def key(self, k: int) -> str:
        """The metric's name at cut-off ``k`` (``ndcg@10``, ``mrr``)."""
        return f"{self.base}@{k}" if self.cut else self.base


RETRIEVAL_METRICS: tuple[RetrievalMetric, ...] = (
    RetrievalMetric("precision", True, precision_at_k),
    RetrievalMetric("recall", True, recall_at_k),
    RetrievalMetric("hit", True, hit_at_k),
    RetrievalMetric("mrr", False, reciprocal_rank),
    RetrievalMetric("ndcg", True, ndcg_at_k),
    RetrievalMetric("map", False, average_precision),
)


def metric_names(k: int) -> list[str]:
    """The retrieval metric keys at cut-off ``k``, in display order."""
    return [m.key(k) for m in RETRIEVAL_METRICS]


def _relevant_grades(gold: Mapping[str, float]) -> dict[str, float]:
    return {i: float(g) for i, g in gold.items() if float(g) > 0}


def score_ranking(ranking: Sequence[str], gold: Mapping[str, float], k: int) -> dict[str, float | None]:
    """Every metric of ``RETRIEVAL_METRICS`` for one ranked, de-duplicated list of ids; all ``None``
    when ``gold`` has no relevant item."""
    grades = _relevant_grades(gold)
    if not grades:
        return dict.fromkeys(metric_names(k))
    ranked = Ranked.of(ranking, grades, k)
    return {m.key(k): m.compute(ranked) for m in RETRIEVAL_METRICS}


def evaluate_retrieval(
    retrieved_ids: Sequence[str], gold: Mapping[str, float], k: int, index: GoldIndex | None = None
) -> RetrievalResult:
    """Judge one question's retrieved ids against its gold ids at the level the gold ids name."""
    index = index or GoldIndex()
    level = index.level_for(gold)
    ranking = index.ranking(retrieved_ids, level)
    ranks = list(Ranked.of(ranking, _relevant_grades(gold), k).relevant_ranks)
    return RetrievalResult(values=score_ranking(ranking, gold, k), level=level, ranking=ranking, relevant_ranks=ranks)


def aggregate(per_question: Iterable[Mapping[str, float | None]]) -> dict[str, MetricStats]:
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
    out: dict[str, MetricStats] = {}
    for name, vals in values.items():
        if not vals:
            out[name] = {"mean": None, "n": 0, "std": None}
            continue
        mean = sum(vals) / len(vals)
        std = math.sqrt(sum((v - mean) ** 2 for v in vals) / len(vals))
        out[name] = {"mean": mean, "n": len(vals), "std": std}
    return out
