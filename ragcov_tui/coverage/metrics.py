"""The paper's coverage formulas, on per-chunk minimum distances.

n chunks, cluster labels ℓ(i) ∈ {0..K−1}, |C_k| chunks in cluster k, Q⁺ the inlier questions,
dist = cosine distance.

* mindist(d_i) = min_{q ∈ Q⁺} dist(d_i, q)
* basic:     C_basic = 1 − (1/n) Σ_i mindist(d_i)
* per cluster: clusterdist(C_k) = mean_{i ∈ C_k} mindist(d_i); coverage_k = 1 − clusterdist(C_k)
* weighted:  C_weighted = Σ_k |C_k|/n · (1 − clusterdist(C_k))
  (as the paper defines it, this equals C_basic algebraically; both are reported)
* multi-cluster: cover(k) ⊆ Q⁺ = questions that cover cluster k — threshold form:
  dist(q, centroid_k) < threshold; N-closest form: k is among the N clusters nearest to q.
  multidist(C_k) = mean_{i ∈ C_k} min_{q ∈ cover(k)} dist(d_i, q);
  C_multi = Σ_{k : cover(k) ≠ ∅} |C_k|/n · (1 − multidist(C_k))  (uncovered clusters add 0).

Every function returns None (never NaN) when the value is undefined (no inlier question).
"""

from __future__ import annotations

import numpy as np

from ragcov_tui.coverage.nearest import nearest
from ragcov_tui.shared.row_blocks import take


def basic_coverage(mindist: np.ndarray | None) -> float | None:
    """1 − mean mindist."""
    if mindist is None or len(mindist) == 0:
        return None
    return float(1.0 - mindist.mean())


def cluster_coverage(mindist: np.ndarray | None, labels: np.ndarray, k: int) -> list[float | None]:
    """1 − clusterdist(C_k) per cluster (None for an empty cluster or without inliers)."""
    if mindist is None:
        return [None] * k
    sizes = np.bincount(labels, minlength=k)
    sums = np.bincount(labels, weights=mindist, minlength=k)
    return [float(1.0 - sums[c] / sizes[c]) if sizes[c] else None for c in range(k)]


def weighted_coverage(mindist: np.ndarray | None, labels: np.ndarray, k: int) -> float | None:
    """Σ_k |C_k|/n · (1 − clusterdist(C_k))."""
    if mindist is None or len(labels) == 0:
        return None
    sizes = np.bincount(labels, minlength=k)
    per = cluster_coverage(mindist, labels, k)
    return float(sum(sizes[c] / len(labels) * per[c] for c in range(k) if sizes[c]))


def cover_by_threshold(question_vecs: np.ndarray, unit_centroids: np.ndarray, threshold: float) -> np.ndarray:
    """(K, m) bool: question j covers cluster k when dist(q_j, centroid_k) < threshold."""
    return (1.0 - (unit_centroids.astype(np.float64) @ question_vecs.T.astype(np.float64))) < threshold


def cover_by_top_n(question_vecs: np.ndarray, unit_centroids: np.ndarray, top_n: int) -> np.ndarray:
    """(K, m) bool: question j covers its ``top_n`` nearest clusters (ties broken by cluster id)."""
    k, m = len(unit_centroids), len(question_vecs)
    cover = np.zeros((k, m), dtype=bool)
    if m == 0:
        return cover
    dist = 1.0 - (question_vecs.astype(np.float64) @ unit_centroids.T.astype(np.float64))
    nearest_clusters = np.argsort(dist, axis=1, kind="stable")[:, : min(top_n, k)]
    cover[nearest_clusters, np.arange(m)[:, None]] = True
    return cover


def multi_mindist(
    chunk_vecs: np.ndarray,
    question_vecs: np.ndarray,
    labels: np.ndarray,
    cover: np.ndarray,
    nn_index: np.ndarray,
    nn_dist: np.ndarray,
    memory_budget_mb: float = 256,
) -> np.ndarray:
    """Per chunk: min distance to the questions covering its cluster (``inf`` when none covers it).

    Exact and cheap: when a chunk's overall nearest inlier (``nn_index``) covers its cluster, the
    answer is ``nn_dist``; only the other chunks are searched again, against cover(k) only.
    """
    out = np.full(len(labels), np.inf)
    if cover.shape[1] == 0:
        return out
    own = cover[labels, nn_index]
    out[own] = nn_dist[own]
    for c in np.unique(labels[~own]):
        questions = np.flatnonzero(cover[c])
        if len(questions) == 0:
            continue
        rows = np.flatnonzero((labels == c) & ~own)
        out[rows] = nearest(take(chunk_vecs, rows), question_vecs[questions], memory_budget_mb=memory_budget_mb)[0]
    return out


def multi_coverage(multidist: np.ndarray | None, labels: np.ndarray, cover: np.ndarray) -> float | None:
    """Σ over clusters with a covering question of |C_k|/n · (1 − multidist(C_k))."""
    if multidist is None or len(labels) == 0:
        return None
    n, k = len(labels), cover.shape[0]
    sizes = np.bincount(labels, minlength=k)
    covered = cover.any(axis=1) & (sizes > 0)
    finite = np.where(np.isfinite(multidist), multidist, 0.0)
    sums = np.bincount(labels, weights=finite, minlength=k)
    return float(sum(sizes[c] / n * (1.0 - sums[c] / sizes[c]) for c in np.flatnonzero(covered)))
