"""2-D map of chunks and questions, stored so the TUI draws it without recomputing.

* ≤ ``max_points`` points in all: t-SNE (cosine metric, PCA init, perplexity min(30, (N−1)/3),
  Barnes-Hut angle 0.8, 300 iterations: sklearn's 250 early-exaggeration ones + 50) of every chunk
  and question — method ``"tsne"``. Chosen for cost on 2 cores: on 2000 clustered 384-d points
  this takes about half the CPU of 500 iterations at angle 0.5, for a trustworthiness@10 of 0.943
  instead of 0.950 — invisible on a terminal-cell map. Run single-threaded: faster on 2 shared
  cores (1.3 s vs 1.6–1.8 s) and the same layout on any machine.
* more: t-SNE of a sample — the questions (at most ``max_points / 2`` of them, at random) plus
  chunks drawn at random per cluster in proportion to cluster size, ``max_points`` in all — and
  each chunk left out is placed on the sampled chunk of its own cluster nearest to it (a blocked
  search within that cluster only, O(n · max_points / K · d)), each question left out on the
  nearest sampled question — method ``"tsne-sample"``.
* fewer than 4 points: t-SNE is meaningless; the first two principal axes (or zeros) — ``"pca"``.

Deterministic for a fixed seed. Coordinates are rescaled to [−1, 1] on each axis.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.decomposition import PCA
from sklearn.manifold import TSNE
from threadpoolctl import threadpool_limits

from ragcov_tui.coverage.nearest import nearest_index
from ragcov_tui.shared.row_blocks import take


@dataclass
class Projection:
    chunk_xy: np.ndarray  # (n, 2)
    question_xy: np.ndarray  # (m, 2)
    method: str
    points_embedded: int


TSNE_ITERATIONS = 300
TSNE_ANGLE = 0.8


def _tsne(points: np.ndarray, seed: int) -> np.ndarray:
    perplexity = max(1.0, min(30.0, (len(points) - 1) / 3))
    with threadpool_limits(1):
        return TSNE(
            n_components=2,
            perplexity=perplexity,
            init="pca",
            metric="cosine",
            max_iter=TSNE_ITERATIONS,
            angle=TSNE_ANGLE,
            random_state=seed,
        ).fit_transform(points.astype(np.float32))


def _pca(points: np.ndarray) -> np.ndarray:
    if len(points) < 2:
        return np.zeros((len(points), 2))
    comps = PCA(n_components=min(2, len(points), points.shape[1])).fit_transform(points)
    return np.pad(comps, ((0, 0), (0, 2 - comps.shape[1])))


def _rescale(xy: np.ndarray) -> np.ndarray:
    lo, hi = xy.min(axis=0), xy.max(axis=0)
    span = np.where(hi - lo > 0, hi - lo, 1.0)
    return (xy - lo) / span * 2.0 - 1.0


def _chunk_sample(labels: np.ndarray, budget: int, rng: np.random.Generator) -> np.ndarray:
    """Indices of ≈ ``budget`` chunks, each cluster in proportion to its size (≥ 1 each)."""
    picked = []
    for c in np.unique(labels):
        members = np.flatnonzero(labels == c)
        take = max(1, round(budget * len(members) / len(labels)))
        picked.append(rng.choice(members, min(take, len(members)), replace=False))
    return np.sort(np.concatenate(picked))


def project(
    chunk_vecs: np.ndarray,
    question_vecs: np.ndarray,
    labels: np.ndarray,
    *,
    max_points: int = 3000,
    seed: int = 0,
    memory_budget_mb: float = 256,
) -> Projection:
    """2-D coordinates of every chunk and question (module doc)."""
    n, m = len(chunk_vecs), len(question_vecs)
    total = n + m
    if total < 4:
        xy = _rescale(_pca(np.vstack([chunk_vecs, question_vecs]).astype(np.float64)))
        return Projection(xy[:n], xy[n:], "pca", total)
    if total <= max_points:
        xy = _rescale(_tsne(np.vstack([chunk_vecs, question_vecs]), seed))
        return Projection(xy[:n], xy[n:], "tsne", total)
    rng = np.random.default_rng(seed)
    q_sample = np.arange(m) if m <= max_points // 2 else np.sort(rng.choice(m, max_points // 2, replace=False))
    sample = _chunk_sample(labels, max(len(np.unique(labels)), max_points - len(q_sample)), rng)
    xy = _rescale(_tsne(np.vstack([take(chunk_vecs, sample), question_vecs[q_sample]]), seed))
    chunk_xy = _place(chunk_vecs, labels, sample, xy[: len(sample)], memory_budget_mb)
    question_xy = _place(question_vecs, np.zeros(m, dtype=np.int64), q_sample, xy[len(sample) :], memory_budget_mb)
    return Projection(chunk_xy, question_xy, "tsne-sample", len(sample) + len(q_sample))


def _place(
    vecs: np.ndarray, groups: np.ndarray, sample: np.ndarray, sample_xy: np.ndarray, memory_budget_mb: float
) -> np.ndarray:
    """Sampled rows keep their coordinates; every other row takes those of the nearest sampled row
    of its own group (cluster)."""
    out = np.empty((len(vecs), 2))
    out[sample] = sample_xy
    rest = np.ones(len(vecs), dtype=bool)
    rest[sample] = False
    rest_rows = np.flatnonzero(rest)
    rest_rows = rest_rows[np.argsort(groups[rest_rows], kind="stable")]  # grouped, one sort instead of a mask per group
    present, firsts = np.unique(groups[rest_rows], return_index=True)
    sample_groups = groups[sample]
    for g, lo, hi in zip(present, firsts, [*firsts[1:], len(rest_rows)], strict=False):
        rows = rest_rows[lo:hi]
        anchors = np.flatnonzero(sample_groups == g)
        which = nearest_index(take(vecs, rows), take(vecs, sample[anchors]), memory_budget_mb=memory_budget_mb)
        out[rows] = sample_xy[anchors[which]]
    return out
