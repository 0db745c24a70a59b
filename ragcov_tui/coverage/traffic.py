"""Traffic coverage: which topics real users ask about are not tested, weighted by how often they
are asked; which queries the corpus cannot answer; which test questions test what nobody asks.

Inputs: the distinct queries t of a log with counts w_t (:mod:`ragcov_tui.traffic.reader`), their
unit vectors, those of the chunks D and of the inlier test questions Q⁺ (LOF outliers are left out,
as in every coverage figure), and each inlier's similarity to its nearest chunk. sim = cosine
similarity = 1 − the cosine distance the rest of the module uses.

* **Answerable** (content gap otherwise): ``s_D(t) = max_d t·d ≥ τ_answer`` with τ_answer the lower
  of (a) the ``answerable_percentile``-th percentile (default 5th) of the inlier test questions'
  similarity to their nearest chunk — test questions are written to be answerable, so a query
  farther from every chunk than 95 % of them may ask for content the corpus lacks — and (b) the
  queries' own median − 2 robust spreads (1.4826 · MAD): short log queries sit farther from every
  chunk than full test questions do (measured on the sample: on-topic queries 0.24–0.5, off-topic
  ones 0.09–0.15, the test questions' 5th percentile 0.47), so (a) alone would call half the
  on-topic traffic unanswerable. Without inliers, (b) alone.
* **Traffic clusters**: K-means on the distinct query vectors, K by the corpus rule
  (:func:`~ragcov_tui.coverage.clustering.cluster_chunks`: round(sqrt(n/2)) clamped to [2, 50]);
  ``share_k = Σ_{t∈T_k} w_t / Σ_t w_t``.
* **Coverage** of a traffic cluster, as a corpus cluster's (``metrics.cluster_coverage``): one
  minus the count-weighted mean distance of its answerable queries to their nearest inlier test
  question, ``cov_k = Σ w_t s_Q(t) / Σ w_t`` over answerable t ∈ T_k with ``s_Q(t) = max_q t·q``.
  The whole log's figure is the same mean over every answerable query.
* **Priority** ``= answerable share × (1 − cov_k)``: the cluster's part of the traffic-weighted
  test deficit (unanswerable queries are a content gap, not a test gap, so they do not count).
  A cluster is *untested* when ``cov_k < τ_near`` (below); one with no answerable query has
  coverage None and priority 0.
* **Tests nobody asks**: an inlier question q with ``max_t q·t < τ_near``. τ_near is the
  ``near_percentile``-th percentile (default 10th) of the inlier test questions' similarity to
  their nearest other test question: how close two questions of one test set on neighbouring
  subjects are; a query (a question) farther than that from every test question (every query)
  is on a subject of its own.

How the queries were served — volume, latency, zero results, low relevance, feedback, overall, per
traffic cluster and per ``--window``, and the clusters where unhappy traffic concentrates — is
:mod:`ragcov_tui.coverage.traffic_health` (the ``health`` section and each cluster's ``health``).

Each distinct query is placed on the 2-D map at its nearest chunk's position. Deterministic for a
fixed seed; undefined figures are None, never NaN.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ragcov_tui.coverage.analysis import as_unit_matrix
from ragcov_tui.coverage.calibration import robust_spread
from ragcov_tui.coverage.clustering import cluster_chunks
from ragcov_tui.coverage.nearest import cross_nearest, nearest, top_k
from ragcov_tui.coverage.result import CoverageResult
from ragcov_tui.coverage.traffic_health import (
    cluster_health,
    health,
    hotspots,
    low_relevance_cut,
    unhappy_asks,
    windows,
)
from ragcov_tui.shared.progress import Progress, report
from ragcov_tui.store.traffic_contract import (
    HealthEntry,
    HealthSection,
    NearQuestion,
    QueryCount,
    TrafficClusterEntry,
    TrafficQuery,
    TrafficSection,
    UnaskedQuestion,
)
from ragcov_tui.traffic.reader import TrafficLog
from ragcov_tui.traffic.windows import ALL_ROWS, TrafficWindow


@dataclass(frozen=True)
class TrafficParams:
    """Calibration percentiles and how much the report lists (module doc)."""

    answerable_percentile: float = 5.0
    near_percentile: float = 10.0
    examples: int = 5
    listed: int = 50
    seed: int = 0
    memory_budget_mb: int = 256
    window: TrafficWindow = ALL_ROWS


@dataclass
class TrafficCluster:
    id: int
    queries: int  # distinct queries in it
    count: int  # queries asked (Σ counts)
    share: float  # of all traffic
    answerable_share: float  # of all traffic: its answerable part
    coverage: float | None
    priority: float
    untested: bool
    examples: list[QueryCount]  # most asked first
    nearest_questions: list[NearQuestion]  # to the cluster's centroid
    health: HealthEntry | None = None  # of the selected rows (traffic_health)

    def as_report(self) -> TrafficClusterEntry:
        out: TrafficClusterEntry = {
            "id": self.id,
            "queries": self.queries,
            "count": self.count,
            "share": self.share,
            "answerable_share": self.answerable_share,
            "coverage": self.coverage,
            "priority": self.priority,
            "untested": self.untested,
            "examples": self.examples,
            "nearest_questions": self.nearest_questions,
        }
        if self.health is not None:
            out["health"] = self.health
        return out


@dataclass
class TrafficResult:
    """Per distinct query i (in the log's order, most asked first): ``labels[i]``, ``question_sim[i]`` /
    ``nearest_question[i]`` (None / −1 without inliers), ``chunk_sim[i]`` / ``nearest_chunk[i]``,
    ``answerable[i]``, ``xy[i]``. ``clusters`` are ranked by priority."""

    log: TrafficLog
    labels: np.ndarray
    question_sim: np.ndarray | None
    nearest_question: np.ndarray
    chunk_sim: np.ndarray
    nearest_chunk: np.ndarray
    answerable: np.ndarray
    xy: np.ndarray
    clusters: list[TrafficCluster]
    coverage: float | None
    answer_threshold: float | None
    answer_rule: str
    asked_threshold: float | None
    asked_rule: str
    unasked: list[UnaskedQuestion]
    untested_cut: float | None
    untested_rule: str
    question_ids: list[str]
    chunk_ids: list[str]
    params: TrafficParams
    health: HealthSection | None = None

    def to_report(self, *, details: bool = True) -> TrafficSection:
        """The ``traffic`` section of the ``analyze --json`` report."""
        counts = self.log.counts
        total = float(counts.sum())
        gap = ~self.answerable
        gap_rows = np.flatnonzero(gap)[: self.params.listed]  # the log is most asked first
        out: TrafficSection = {
            "source": self.log.summary(),
            "coverage": self.coverage,
            "answerable_share": float(counts[self.answerable].sum() / total),
            "untested_share": float(sum(c.answerable_share for c in self.clusters if c.untested)),
            "untested": {"threshold": self.untested_cut, "rule": self.untested_rule},
            "clusters": [c.as_report() for c in self.clusters],
            "content_gap": {
                "threshold": self.answer_threshold,
                "rule": self.answer_rule,
                "queries": int(gap.sum()),
                "count": int(counts[gap].sum()),
                "share": float(counts[gap].sum() / total),
                "examples": [
                    {
                        "text": self.log.texts[i],
                        "count": int(counts[i]),
                        "similarity": float(self.chunk_sim[i]),
                        "nearest_chunk": self.chunk_ids[self.nearest_chunk[i]],
                        "cluster": int(self.labels[i]),
                    }
                    for i in gap_rows
                ],
            },
            "unasked_questions": {
                "threshold": self.asked_threshold,
                "rule": self.asked_rule,
                "questions": self.unasked,
            },
        }
        if self.health is not None:
            out["health"] = self.health
        if details:
            out["details"] = self.details()
        return out

    def details(self) -> list[TrafficQuery]:
        """One row per distinct query (the store's ``traffic_queries``)."""
        qsim = None if self.question_sim is None else self.question_sim.tolist()
        return [
            {
                "text": text,
                "count": int(self.log.counts[i]),
                "cluster": int(self.labels[i]),
                "answerable": bool(self.answerable[i]),
                "nearest_question": self.question_ids[self.nearest_question[i]]
                if self.nearest_question[i] >= 0
                else None,
                "question_similarity": None if qsim is None else qsim[i],
                "nearest_chunk": self.chunk_ids[self.nearest_chunk[i]],
                "chunk_similarity": float(self.chunk_sim[i]),
                "first_seen": self.log.first_seen[i],
                "last_seen": self.log.last_seen[i],
                "x": float(self.xy[i, 0]),
                "y": float(self.xy[i, 1]),
            }
            for i, text in enumerate(self.log.texts)
        ]


def analyze_traffic(
    log: TrafficLog,
    traffic_vecs: np.ndarray,
    chunk_vecs: np.ndarray,
    question_vecs: np.ndarray,
    *,
    inlier: np.ndarray,
    question_chunk_dist: np.ndarray,
    question_ids: Sequence[str],
    question_texts: Sequence[str],
    chunk_ids: Sequence[str],
    chunk_xy: np.ndarray,
    params: TrafficParams = TrafficParams(),
    progress: Progress | None = None,
) -> TrafficResult:
    """Compare the traffic with the test set and the corpus (module doc); vectors are unit rows."""
    budget = params.memory_budget_mb
    T = np.ascontiguousarray(traffic_vecs, dtype=np.float32)
    w = log.counts.astype(np.float64)
    inliers = np.flatnonzero(inlier)
    Q_in = np.ascontiguousarray(question_vecs[inliers], dtype=np.float32)

    report(progress, "traffic", 0, 3)
    # chunks as the rows: a corpus held as a memory map is read block by block (coverage/nearest.py)
    by_chunk = cross_nearest(chunk_vecs, T, n_cols_for_rows=0, memory_budget_mb=budget)
    chunk_dist, nearest_chunk = by_chunk.col_dist, by_chunk.col_index
    chunk_sim = 1.0 - chunk_dist
    question_sim, nearest_question = None, np.full(len(T), -1, dtype=np.int64)
    if len(inliers):
        dist, index = nearest(T, Q_in, memory_budget_mb=budget)
        question_sim, nearest_question = 1.0 - dist, inliers[index]
    report(progress, "traffic", 1, 3)

    answer_threshold, answer_rule = _answer_threshold(
        1.0 - question_chunk_dist[inliers], chunk_sim, params.answerable_percentile
    )
    answerable = np.ones(len(T), dtype=bool) if answer_threshold is None else chunk_sim >= answer_threshold
    clustering = cluster_chunks(T, None, seed=params.seed)
    labels = clustering.labels
    report(progress, "traffic", 2, 3)

    near, near_rule = _near_threshold(Q_in, params.near_percentile)
    clusters = _clusters(
        log, labels, clustering.unit_centroids, question_sim, answerable, Q_in, inliers, question_ids, near, params
    )
    unasked = _unasked(log, T, Q_in, inliers, question_ids, question_texts, near, budget)
    section = _health(log, labels, clusters, params.window)
    report(progress, "traffic", 3, 3)
    covered = answerable if question_sim is not None and answerable.any() else None
    coverage = (
        None
        if covered is None or question_sim is None
        else float(np.average(question_sim[covered], weights=w[covered]))
    )
    return TrafficResult(
        log,
        labels,
        question_sim,
        nearest_question,
        chunk_sim,
        nearest_chunk,
        answerable,
        np.asarray(chunk_xy)[nearest_chunk] if len(chunk_xy) else np.zeros((len(T), 2)),
        clusters,
        coverage,
        answer_threshold,
        answer_rule,
        near,
        "similarity to the nearest query " + near_rule,
        unasked,
        near,
        "coverage (similarity to the nearest test question) " + near_rule,
        list(question_ids),
        list(chunk_ids),
        params,
        section,
    )


def _health(
    log: TrafficLog, labels: np.ndarray, clusters: list[TrafficCluster], window: TrafficWindow
) -> HealthSection | None:
    """The ``health`` section (:mod:`.traffic_health`) over the rows ``window`` selects; each
    cluster's ``health`` set on the way. τ_low is calibrated on the whole log."""
    rows = log.served
    if rows is None:
        return None
    cut, rule = low_relevance_cut(rows)
    chosen = rows.select(window.selected(rows))
    for c, entry in zip(
        sorted(clusters, key=lambda c: c.id), cluster_health(chosen, labels, len(clusters), cut), strict=True
    ):
        c.health = entry
    overall = health(chosen, cut)
    spans = [] if window.span_s is None else windows(rows.select(window.in_range(rows)), window.span_s, cut)
    unhappy = unhappy_asks(chosen, cut, len(log.texts))

    def unhappiest(cluster: int) -> list[QueryCount]:
        mine = np.flatnonzero((labels == cluster) & (unhappy > 0))
        top = mine[np.argsort(-unhappy[mine], kind="stable")][:3]
        return [{"text": log.texts[i], "count": int(unhappy[i])} for i in top]

    return {
        "selection": {"window": window.window, "since": window.since, "until": window.until},
        "low_relevance": {"threshold": cut, "rule": rule},
        "overall": overall,
        "windows": spans,
        "hotspots": hotspots(overall, [c.as_report() for c in clusters], unhappiest),
        "sessions": rows.sessions,
        "answered": rows.answered,
    }


def _answer_threshold(
    inlier_chunk_sim: np.ndarray, chunk_sim: np.ndarray, percentile: float
) -> tuple[float | None, str]:
    """τ_answer = min(the inliers' percentile, the traffic's median − 2 robust spreads) and how it was set."""
    median, spread = robust_spread(chunk_sim)
    own = median - 2.0 * spread
    if len(inlier_chunk_sim) == 0:
        return own, (
            f"similarity to the nearest chunk below {own:.3f}, the queries' median {median:.3f} − 2 robust "
            "spreads (no inlier test question to calibrate on)"
        )
    tests = float(np.percentile(inlier_chunk_sim, percentile))
    value = min(tests, own)
    return value, (
        f"similarity to the nearest chunk below {value:.3f}: the lower of the {percentile:g}th percentile "
        f"of the {len(inlier_chunk_sim)} inlier test questions' similarity to their nearest chunk "
        f"({tests:.3f}) and the queries' own median {median:.3f} − 2 robust spreads ({own:.3f}), as short "
        "queries sit farther from every chunk than full test questions do"
    )


def _near_threshold(Q_in: np.ndarray, percentile: float) -> tuple[float | None, str]:
    """τ_near: a low percentile of the inlier test questions' similarity to their nearest other one."""
    if len(Q_in) < 2:
        return None, "undefined: fewer than 2 inlier test questions to calibrate on"
    dist, _ = top_k(Q_in, Q_in, 1, exclude_self=True)
    value = float(np.percentile(1.0 - dist[:, 0], percentile))
    return value, (
        f"below {value:.3f}, the {percentile:g}th percentile of the {len(Q_in)} inlier test questions' "
        "similarity to their nearest other test question"
    )


def _clusters(
    log: TrafficLog,
    labels: np.ndarray,
    centroids: np.ndarray,
    question_sim: np.ndarray | None,
    answerable: np.ndarray,
    Q_in: np.ndarray,
    inliers: np.ndarray,
    question_ids: Sequence[str],
    cut: float | None,
    params: TrafficParams,
) -> list[TrafficCluster]:
    """Every traffic cluster with its figures and examples (its most asked queries), highest priority first."""
    k = len(centroids)
    w = log.counts.astype(np.float64)
    total = w.sum()
    members = [np.flatnonzero(labels == c) for c in range(k)]  # each most asked first (the log's order)
    near_dist, near_idx = top_k(centroids, Q_in, 3) if len(inliers) else (np.zeros((k, 0)), np.zeros((k, 0), int))
    out = []
    for c, rows in enumerate(members):
        ok = rows[answerable[rows]]
        answer_share = float(w[ok].sum() / total)
        cov = None if question_sim is None or not len(ok) else float(np.average(question_sim[ok], weights=w[ok]))
        out.append(
            TrafficCluster(
                id=c,
                queries=len(rows),
                count=int(w[rows].sum()),
                share=float(w[rows].sum() / total),
                answerable_share=answer_share,
                coverage=cov,
                priority=0.0 if cov is None else answer_share * (1.0 - cov),
                untested=cov is not None and cut is not None and cov < cut,
                examples=[{"text": log.texts[i], "count": int(w[i])} for i in rows[: params.examples]],
                nearest_questions=[
                    {"id": question_ids[inliers[j]], "similarity": float(1.0 - d)}
                    for d, j in zip(near_dist[c], near_idx[c], strict=True)
                ],
            )
        )
    out.sort(key=lambda c: (-c.priority, -c.share, c.id))
    return out


def _unasked(
    log: TrafficLog,
    T: np.ndarray,
    Q_in: np.ndarray,
    inliers: np.ndarray,
    question_ids: Sequence[str],
    question_texts: Sequence[str],
    threshold: float | None,
    budget: int,
) -> list[UnaskedQuestion]:
    """Inlier test questions farther than τ_asked from every query, least asked first."""
    if threshold is None or not len(inliers):
        return []
    dist, index = nearest(Q_in, T, memory_budget_mb=budget)
    sim = 1.0 - dist
    rows = [j for j in np.argsort(sim, kind="stable") if sim[j] < threshold]
    return [
        {
            "id": question_ids[inliers[j]],
            "text": question_texts[inliers[j]],
            "similarity": float(sim[j]),
            "nearest_query": log.texts[index[j]],
            "nearest_query_count": int(log.counts[index[j]]),
        }
        for j in rows
    ]


def traffic_of(
    result: CoverageResult,
    log: TrafficLog,
    traffic_vecs: np.ndarray,
    chunk_vecs: np.ndarray,
    question_vecs: np.ndarray,
    *,
    window: TrafficWindow = ALL_ROWS,
    progress: Progress | None = None,
) -> TrafficResult:
    """:func:`analyze_traffic` against an analysis's chunks, inlier questions, map and parameters;
    the health figures over the rows ``window`` selects."""
    params = TrafficParams(seed=result.params.seed, memory_budget_mb=result.params.memory_budget_mb, window=window)
    units = [
        as_unit_matrix(v, what, n)
        for v, what, n in (
            (traffic_vecs, "traffic", len(log.texts)),
            (chunk_vecs, "chunk", len(result.chunk_ids)),
            (question_vecs, "question", len(result.question_ids)),
        )
    ]
    return analyze_traffic(
        log,
        *units,
        inlier=~result.outliers.outlier,
        question_chunk_dist=result.nearest_chunk_dist,
        question_ids=result.question_ids,
        question_texts=result.question_texts,
        chunk_ids=result.chunk_ids,
        chunk_xy=result.projection.chunk_xy,
        params=params,
        progress=progress,
    )
