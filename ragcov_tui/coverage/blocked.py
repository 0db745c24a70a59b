"""Coverage of chunk vectors that need not fit in memory: blocks in, aggregates out (issue #25 §1).

The chunk vectors arrive as an iterable of float32 ``(rows, d)`` blocks in corpus order — from a
memory-mapped array (:func:`array_blocks`: ``np.load(path, mmap_mode="r")`` or ``np.memmap``) or
from any reader that yields blocks (a vector store read in batches). Every pass holds one block,
the questions, the centroids and the aggregates, so peak memory does not grow with the number of
chunks (only the per-document sums grow, with the number of documents).

Two passes, the same formulas as the in-memory path (:mod:`ragcov_tui.coverage.analysis`, same
seed → the same figures to float tolerance):

1. :func:`fit_blocks`: the seeded sample the in-memory path would draw
   (:func:`ragcov_tui.coverage.clustering.fit_sample_indices`: every chunk up to
   ``minibatch_above``, else ≤ 100k for MiniBatchKMeans) and the LOF reference sample
   (:func:`ragcov_tui.coverage.outliers.reference_set`) are picked up in one pass, with the
   projection hash that counts distinct chunks for the default K; K-means is fitted on its sample.
2. :func:`blocked_coverage`: per block, the nearest inlier question of each chunk
   (:func:`ragcov_tui.coverage.nearest.cross_nearest`: float32 GEMM, float64 re-score), its
   cluster (nearest fitted centroid), and each question's nearest chunk; summed per cluster and
   per document: chunks, Σ mindist, min mindist, chunks within the answering radius.

``basic = 1 − Σ mindist / n``; ``coverage_k = 1 − Σ_{i∈C_k} mindist_i / |C_k|``; ``weighted =
Σ_k |C_k|/n · coverage_k``; ``covered share = #(mindist ≤ radius) / n`` — as in
:mod:`ragcov_tui.coverage.metrics` and :mod:`ragcov_tui.coverage.calibration`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import numpy as np

from ragcov_tui.coverage.clustering import assign, default_k, fit_centroids, fit_sample_indices
from ragcov_tui.coverage.nearest import DEFAULT_BUDGET_MB, cross_nearest
from ragcov_tui.shared.progress import Progress, report
from ragcov_tui.shared.row_blocks import BLOCK_ROWS, blocks


def array_blocks(vectors: np.ndarray, rows: int = BLOCK_ROWS) -> Iterator[np.ndarray]:
    """float32 C-contiguous copies of ``rows``-row blocks of ``vectors`` (in memory or memory-mapped).

    For a memory map, the pages of a block are handed back to the OS once it is copied
    (:func:`ragcov_tui.shared.row_blocks.blocks`), so resident memory stays about one block whatever the file size.
    """
    for _, block in blocks(vectors, rows):
        yield np.array(block, dtype=np.float32, order="C")


def unit_rows(block: np.ndarray) -> np.ndarray:
    """The block with rows of unit length (renormalised only when needed), float32."""
    block = np.ascontiguousarray(block, dtype=np.float32)
    norms = np.sqrt(np.einsum("ij,ij->i", block, block))
    if np.abs(norms - 1.0).max(initial=0.0) > 1e-3:
        block = block / np.where(norms == 0, 1.0, norms)[:, None].astype(np.float32)
    return block


@dataclass
class BlockFit:
    """Pass 1: ``centroids`` (K, d) as fitted, the LOF ``reference`` sample, ``n`` chunks, the
    number of distinct ones and how K was chosen."""

    centroids: np.ndarray
    reference: np.ndarray
    n: int
    n_distinct: int
    method: str


def take_rows(blocks: Iterable[np.ndarray], indices: np.ndarray) -> np.ndarray:
    """The rows at sorted ``indices`` of the blocks, in one pass."""
    out: list[np.ndarray] = []
    start = 0
    for block in blocks:
        stop = start + len(block)
        lo, hi = np.searchsorted(indices, [start, stop])
        if hi > lo:
            out.append(unit_rows(block)[indices[lo:hi] - start])
        start = stop
    return np.concatenate(out) if out else np.zeros((0, 0), dtype=np.float32)


def fit_blocks(
    blocks: Iterable[np.ndarray], n: int, clusters: int | None, *, seed: int, minibatch_above: int, lof_sample: int
) -> BlockFit:
    """Pass 1 (module docstring): samples picked up block by block, then K-means on its sample.
    ``clusters`` None means the default K of the in-memory path (from the distinct chunks)."""
    fit_rows = fit_sample_indices(n, seed, minibatch_above)
    rng = np.random.default_rng(seed)  # the draws of reference_set, in its order: the sample, then its probe
    ref_rows = np.sort(rng.choice(n, lof_sample, replace=False)) if n > lof_sample else np.arange(n)
    hashes: list[np.ndarray] = []
    fit_parts: list[np.ndarray] = []
    ref_parts: list[np.ndarray] = []
    probe: np.ndarray | None = None  # count_distinct's projection, once the dimension is known
    start = 0
    for raw in blocks:
        block = unit_rows(raw)
        if probe is None:
            probe = np.random.default_rng(seed).standard_normal((block.shape[1],)).astype(np.float32)
        stop = start + len(block)
        hashes.append(np.unique(block @ probe))
        for rows, parts in ((fit_rows, fit_parts), (ref_rows, ref_parts)):
            lo, hi = np.searchsorted(rows, [start, stop])
            parts.append(block[rows[lo:hi] - start])
        start = stop
    if start != n or n == 0:
        raise ValueError(f"the blocks hold {start} rows, expected {n} (at least one)")
    n_distinct = int(np.unique(np.concatenate(hashes)).size)
    k, method = (
        (default_k(n_distinct), "round(sqrt(n/2)) clamped to [2, 50]")
        if clusters is None
        else (min(int(clusters), n_distinct), "given")
    )
    sample = np.concatenate(fit_parts)
    centroids = (
        fit_centroids(sample, k, seed, minibatch=n > minibatch_above) if k > 1 else sample.mean(axis=0, keepdims=True)
    )
    reference = np.concatenate(ref_parts)
    _, first = np.unique(reference @ rng.standard_normal((reference.shape[1],)).astype(np.float32), return_index=True)
    return BlockFit(centroids.astype(np.float32), reference[np.sort(first)], n, n_distinct, method)


@dataclass
class BlockedCoverage:
    """Pass 2: aggregates per cluster and per document (module docstring); ``question_nearest`` /
    ``question_dist``: each inlier question's nearest chunk (row number) and its distance."""

    n: int
    cluster_sizes: np.ndarray
    cluster_sums: np.ndarray
    cluster_within: np.ndarray | None
    doc_sizes: np.ndarray
    doc_sums: np.ndarray
    doc_nearest: np.ndarray
    doc_within: np.ndarray | None
    question_nearest: np.ndarray
    question_dist: np.ndarray

    @property
    def basic(self) -> float:
        return float(1.0 - self.cluster_sums.sum() / self.n)

    def cluster_coverage(self) -> list[float | None]:
        return [float(1.0 - s / c) if c else None for s, c in zip(self.cluster_sums, self.cluster_sizes, strict=True)]

    @property
    def weighted(self) -> float:
        return float(
            sum(
                c / self.n * v
                for c, v in zip(self.cluster_sizes, self.cluster_coverage(), strict=True)
                if v is not None
            )
        )

    @property
    def covered_share(self) -> float | None:
        return None if self.cluster_within is None else float(self.cluster_within.sum() / self.n)

    def document_coverage(self) -> np.ndarray:
        """``1 − Σ mindist / chunks`` per document code."""
        return 1.0 - self.doc_sums / np.maximum(self.doc_sizes, 1)


def blocked_coverage(
    blocks: Iterable[np.ndarray],
    questions: np.ndarray,
    centroids: np.ndarray,
    *,
    doc_codes: Iterable[np.ndarray] | None = None,
    n_docs: int = 0,
    radius: float | None = None,
    memory_budget_mb: float = DEFAULT_BUDGET_MB,
    total: int = 0,
    progress: Progress | None = None,
) -> BlockedCoverage:
    """Pass 2 over ``blocks`` against the unit inlier ``questions`` and the fitted ``centroids``;
    ``doc_codes`` yields each block's document codes (0 .. n_docs − 1) when per-document figures
    are wanted; ``radius`` the answering radius for the covered shares; ``total`` (rows) for progress."""
    k, m = len(centroids), len(questions)
    sizes, sums = np.zeros(k, dtype=np.int64), np.zeros(k)
    within = np.zeros(k, dtype=np.int64) if radius is not None else None
    d_sizes, d_sums, d_near = np.zeros(n_docs, dtype=np.int64), np.zeros(n_docs), np.full(n_docs, np.inf)
    d_within = np.zeros(n_docs, dtype=np.int64) if radius is not None else None
    q_near, q_dist = np.full(m, -1, dtype=np.int64), np.full(m, np.inf)
    codes_iter = iter(doc_codes) if doc_codes is not None else None
    start = 0
    report(progress, "coverage blocks", 0, total)
    for raw in blocks:
        block = unit_rows(raw)
        found = cross_nearest(block, questions, n_cols_for_rows=m, memory_budget_mb=memory_budget_mb, second=False)
        labels = assign(block, centroids, memory_budget_mb)
        mindist = found.row_dist
        sizes += np.bincount(labels, minlength=k)
        sums += np.bincount(labels, weights=mindist, minlength=k)
        close = None if radius is None else mindist <= radius
        if within is not None and close is not None:
            within += np.bincount(labels[close], minlength=k)
        better = found.col_dist < q_dist
        q_dist[better], q_near[better] = found.col_dist[better], found.col_index[better] + start
        if codes_iter is not None:
            codes = np.asarray(next(codes_iter))
            d_sizes += np.bincount(codes, minlength=n_docs)
            d_sums += np.bincount(codes, weights=mindist, minlength=n_docs)
            np.minimum.at(d_near, codes, mindist)
            if d_within is not None and close is not None:
                d_within += np.bincount(codes[close], minlength=n_docs)
        start += len(block)
        report(progress, "coverage blocks", start, total)
    return BlockedCoverage(start, sizes, sums, within, d_sizes, d_sums, d_near, d_within, q_near, q_dist)
