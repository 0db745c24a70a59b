"""K-means on chunk embeddings.

Default K (no ``--clusters``): ``K = round(sqrt(n / 2))`` clamped to [2, 50] — the classic
rule of thumb for K-means, capped so each cluster stays readable in a report — and never more than
the number of distinct chunk vectors (duplicates cannot be split). ``--clusters auto`` tries a
grid of K and keeps the best cosine silhouette on a sample of ≤ 2000 chunks. Up to
``minibatch_above`` chunks, sklearn ``KMeans`` (k-means++, 4 inits); beyond, ``MiniBatchKMeans``
fitted on a sample of ≤ 100k chunks, then every chunk is assigned to its nearest centroid with
blocked BLAS (argmin ‖x − c‖² = argmax x·c − ‖c‖²/2). Deterministic for a fixed ``seed``.

The fits run single-threaded (``threadpoolctl``): their steps are small (a 4096-row mini-batch,
or Lloyd iterations on ≤ 20k rows), and on 2 shared cores sklearn's OpenMP/BLAS threads cost more
than they gain — measured, MiniBatchKMeans on 100k × 384, K = 50: 1.5 s single-threaded vs
2.8–6.7 s threaded, identical centroids; KMeans on 20k: 2.6 s vs 4.7 s.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from sklearn.cluster import KMeans, MiniBatchKMeans
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import silhouette_score
from threadpoolctl import threadpool_limits

from ragcov_tui.coverage.nearest import block_rows
from ragcov_tui.shared.progress import Progress, report
from ragcov_tui.shared.row_blocks import blocks, take

MAX_DEFAULT_K = 50
FIT_SAMPLE = 100_000
SILHOUETTE_SAMPLE = 2000
AUTO_GRID = (2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 25, 32, 40, 50)


@dataclass
class Clustering:
    """``labels[i]`` = cluster of chunk i; ``centroids`` (K, d) float32 as fitted (not unit);
    ``unit_centroids`` L2-normalised, used for cosine distances; ``method`` says how K was chosen."""

    labels: np.ndarray
    centroids: np.ndarray
    k_requested: int | str | None
    method: str
    silhouette: dict[int, float]

    @property
    def k(self) -> int:
        return int(self.centroids.shape[0])

    @property
    def unit_centroids(self) -> np.ndarray:
        norms = np.linalg.norm(self.centroids, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        return (self.centroids / norms).astype(np.float32)

    @property
    def sizes(self) -> np.ndarray:
        return np.bincount(self.labels, minlength=self.k)


def count_distinct(vectors: np.ndarray, seed: int = 0) -> int:
    """Number of distinct rows, via a random projection hash (exact duplicates collide, others not)."""
    if len(vectors) == 0:
        return 0
    probe = np.random.default_rng(seed).standard_normal((vectors.shape[1],)).astype(np.float32)
    return int(np.unique(np.concatenate([block @ probe for _, block in blocks(vectors)])).size)


def default_k(n_distinct: int) -> int:
    """``round(sqrt(n / 2))`` clamped to [2, 50] and to ``n_distinct`` (≥ 1)."""
    k = min(MAX_DEFAULT_K, max(2, round(math.sqrt(n_distinct / 2))))
    return max(1, min(k, n_distinct))


def assign(vectors: np.ndarray, centroids: np.ndarray, memory_budget_mb: float = 256) -> np.ndarray:
    """Nearest centroid by Euclidean distance for every row, blocked."""
    bias = 0.5 * np.einsum("ij,ij->i", centroids, centroids).astype(np.float32)
    labels = np.empty(len(vectors), dtype=np.int64)
    b = block_rows(len(centroids), memory_budget_mb)
    ct = np.ascontiguousarray(centroids.T, dtype=np.float32)
    for start, block in blocks(vectors, b):
        labels[start : start + len(block)] = (block @ ct - bias).argmax(axis=1)
    return labels


def fit_sample_indices(n: int, seed: int, minibatch_above: int) -> np.ndarray:
    """The sorted rows K-means is fitted on: all ``n`` up to ``minibatch_above``, else a seeded
    uniform sample of ≤ ``FIT_SAMPLE`` (the blocked path draws the very same rows)."""
    if n <= minibatch_above:
        return np.arange(n)
    return np.sort(np.random.default_rng(seed).choice(n, min(n, FIT_SAMPLE), replace=False))


def fit_centroids(sample: np.ndarray, k: int, seed: int, *, minibatch: bool) -> np.ndarray:
    """Centroids of K-means on ``sample``: ``KMeans`` (4 inits), or ``MiniBatchKMeans`` when ``minibatch``."""
    with warnings.catch_warnings(), threadpool_limits(1):
        warnings.simplefilter("ignore", ConvergenceWarning)
        if not minibatch:
            model = KMeans(n_clusters=k, n_init=4, random_state=seed).fit(sample)
        else:
            model = MiniBatchKMeans(n_clusters=k, n_init=3, batch_size=4096, random_state=seed).fit(sample)
    return model.cluster_centers_.astype(np.float32)


def _fit(vectors: np.ndarray, k: int, seed: int, minibatch_above: int) -> np.ndarray:
    """Centroids of a K-means fit (KMeans, or MiniBatchKMeans on a sample when large)."""
    rows = fit_sample_indices(len(vectors), seed, minibatch_above)
    sample = vectors if len(rows) == len(vectors) else take(vectors, rows)
    return fit_centroids(sample, k, seed, minibatch=len(vectors) > minibatch_above)


def _silhouette_pick(
    vectors: np.ndarray, limit: int, seed: int, minibatch_above: int, progress: Progress | None
) -> tuple[int, dict[int, float]]:
    """K in the grid (≤ limit) with the highest cosine silhouette on a sample."""
    rng = np.random.default_rng(seed)
    rows = np.sort(rng.choice(len(vectors), min(len(vectors), SILHOUETTE_SAMPLE), replace=False))
    sample = take(vectors, rows)
    grid = [k for k in AUTO_GRID if k <= min(limit, len(sample) - 1)] or [min(2, limit)]
    scores: dict[int, float] = {}
    for done, k in enumerate(grid, 1):
        labels = assign(sample, _fit(sample, k, seed, minibatch_above))
        if len(np.unique(labels)) > 1:
            scores[k] = float(silhouette_score(sample, labels, metric="cosine"))
        report(progress, "clusters: choosing K", done, len(grid))
    best = max(scores, key=lambda k: (scores[k], -k)) if scores else grid[0]
    return best, scores


def cluster_chunks(
    vectors: np.ndarray,
    clusters: int | str | None,
    *,
    seed: int = 0,
    minibatch_above: int = 20_000,
    progress: Progress | None = None,
    assign_rows: Callable[[np.ndarray, np.ndarray], np.ndarray] = assign,
) -> Clustering:
    """K-means of the chunk vectors with K from ``clusters`` (None / 'auto' / int), see module doc;
    every chunk is labelled by ``assign_rows`` (:func:`assign`, or an engine's: coverage/engine.py)."""
    n_distinct = count_distinct(vectors, seed)
    silhouette: dict[int, float] = {}
    if clusters == "auto":
        k, silhouette = _silhouette_pick(vectors, min(MAX_DEFAULT_K, n_distinct), seed, minibatch_above, progress)
        method = "silhouette"
    elif clusters is None:
        k, method = default_k(n_distinct), "round(sqrt(n/2)) clamped to [2, 50]"
    else:
        k, method = int(clusters), "given"
    if k > n_distinct:
        k, method = n_distinct, f"{method}; capped at {n_distinct} distinct chunks"
    report(progress, "clusters", 0, 1)
    centroids = _fit(vectors, k, seed, minibatch_above) if k > 1 else vectors.mean(axis=0, keepdims=True)
    labels = assign_rows(vectors, centroids)
    used = np.unique(labels)
    if len(used) < k:  # a MiniBatch centroid that won no chunk: drop it and renumber
        centroids = centroids[used]
        labels = np.searchsorted(used, labels)
    report(progress, "clusters", 1, 1)
    return Clustering(labels.astype(np.int64), centroids.astype(np.float32), clusters, method, silhouette)
