"""Blocked nearest-neighbour search by cosine distance on L2-normalised float32 vectors.

dist(a, b) = 1 − a·b. Similarities are computed block by block with one float32 BLAS GEMM per
block (``A[i:i+b] @ Bᵀ``, A and B C-contiguous, Bᵀ a view) written into ONE reused ``b × m`` buffer, so no
n × m matrix ever exists and no block is allocated (and page-faulted) afresh: ``b`` is chosen so
that the buffer fits in ``memory_budget_mb``. The rows may be a memory map: they are read block by
block and each block's pages handed back (:mod:`ragcov_tui.shared.row_blocks`). Everything after the GEMM reads the block in row
slices of ≈ ``CACHE_SLICE_BYTES`` that stay in the CPU cache, so the block leaves main memory
once. The winning pairs are then re-scored in float64 (``1 − Σ a_k b_k``): returned distances
are exact to ~1e-15 for the pair found; only near-ties closer than float32 resolution (~1e-7)
may pick either neighbour.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from ragcov_tui.shared.progress import Progress, report
from ragcov_tui.shared.row_blocks import blocks, take

DEFAULT_BUDGET_MB = 256
CACHE_SLICE_BYTES = 1 << 20  # ≈ half a core's L2: the post-GEMM passes of a slice hit the cache
ITERATED_ARGMAX_K = 16  # top_k: repeated arg-max up to this k, argpartition beyond
EXACT_ROWS = 1024  # rows re-scored at a time (float64 accumulation, no float64 copies)


def block_rows(n_cols: int, memory_budget_mb: float = DEFAULT_BUDGET_MB, *, copies: int = 2) -> int:
    """Rows per block so that ``copies`` float32 arrays of ``rows × n_cols`` fit in the budget."""
    per_row = max(1, n_cols) * 4 * copies
    return int(max(1, min(1 << 16, memory_budget_mb * 1024 * 1024 // per_row)))


def slice_rows(n_cols: int) -> int:
    """Rows of a ``rows × n_cols`` float32 slice of ≈ ``CACHE_SLICE_BYTES`` (at least 1)."""
    return max(1, CACHE_SLICE_BYTES // (4 * max(1, n_cols)))


def exact_dist(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row-wise cosine distance ``1 − a_i·b_i`` accumulated in float64 (products of float32 values
    are exact in float64), ``EXACT_ROWS`` rows at a time."""
    out = np.empty(len(a))
    for s in range(0, len(a), EXACT_ROWS):
        out[s : s + EXACT_ROWS] = 1.0 - np.einsum(
            "ij,ij->i", a[s : s + EXACT_ROWS], b[s : s + EXACT_ROWS], dtype=np.float64
        )
    return out


def similarity_blocks(
    rows: np.ndarray, cols: np.ndarray, memory_budget_mb: float = DEFAULT_BUDGET_MB
) -> Iterator[tuple[int, int, np.ndarray]]:
    """Yield ``(start, stop, rows[start:stop] @ cols.T)`` as float32, in one reused buffer.

    The yielded block is overwritten by the next one (copy what must outlive the iteration step);
    the caller may modify it in place.
    """
    n, m = rows.shape[0], cols.shape[0]
    if n == 0 or m == 0:
        return
    rows = np.ascontiguousarray(rows, dtype=np.float32)
    cols_t = np.ascontiguousarray(cols, dtype=np.float32).T  # a transposed view: BLAS reads it as is, fastest
    b = min(n, block_rows(m, memory_budget_mb, copies=1))
    buffer = np.empty((b, m), dtype=np.float32)
    for start, part in blocks(rows, b):  # a memory map's pages are dropped block by block
        stop = start + len(part)
        sim = buffer[: stop - start]
        np.matmul(part, cols_t, out=sim)
        yield start, stop, sim


def _slices(height: int, n_cols: int) -> Iterator[slice]:
    step = slice_rows(n_cols)
    return (slice(s, min(height, s + step)) for s in range(0, height, step))


@dataclass
class CrossNearest:
    """Result of :func:`cross_nearest`.

    ``row_dist[i]`` / ``row_index[i]``: nearest column (among the first ``n_cols_for_rows`` columns)
    of row i; ``row_second[i]``: distance to the second nearest of those columns (``inf`` when
    there is only one); ``col_dist[j]`` / ``col_index[j]``: nearest row of column j (all columns).
    """

    row_dist: np.ndarray
    row_index: np.ndarray
    row_second: np.ndarray
    col_dist: np.ndarray
    col_index: np.ndarray


def cross_nearest(
    rows: np.ndarray,
    cols: np.ndarray,
    *,
    n_cols_for_rows: int | None = None,
    memory_budget_mb: float = DEFAULT_BUDGET_MB,
    progress: Progress | None = None,
    stage: str = "nearest",
    second: bool = True,
) -> CrossNearest:
    """Both directions of the top-1 search in one blocked pass over ``rows @ cols.T``.

    For each row: the nearest and second-nearest column among ``cols[:n_cols_for_rows]`` (e.g.
    the inlier questions, placed first). For each column: its nearest row (ties: the lowest row).
    Per cache-sized slice S of a block, three passes: the column max of S (and, only for the
    columns it improves, their arg-max inside S), the row arg-max ``a``, then ``S[i, a_i] = −inf``
    and the row arg-max again (the second best; skipped with ``second=False``, ``row_second`` then
    stays ``inf``: a third fewer passes over the block). Both row winners are re-scored in float64.
    Memory: one ``b × m`` float32 block plus O(n + m).
    """
    n, m = rows.shape[0], cols.shape[0]
    m_rows = m if n_cols_for_rows is None else int(n_cols_for_rows)
    second = second and m_rows > 1
    row_dist, row_second = np.full(n, np.inf), np.full(n, np.inf)
    row_index = np.full(n, -1, dtype=np.int64)
    col_best = np.full(m, -np.inf, dtype=np.float32)
    col_index = np.zeros(m, dtype=np.int64)
    for start, stop, sim in similarity_blocks(rows, cols, memory_budget_mb):
        runner_up = np.empty(stop - start, dtype=np.int64)
        for part in _slices(stop - start, m):
            tile = sim[part]
            offset = start + part.start
            tile_max = tile.max(axis=0)
            better = np.flatnonzero(tile_max > col_best)
            if len(better):
                col_best[better] = tile_max[better]
                col_index[better] = offset + tile[:, better].argmax(axis=0)
            if m_rows == 0:
                continue
            own = tile[:, :m_rows]
            first = own.argmax(axis=1)
            row_index[offset : offset + len(first)] = first
            if second:
                own[np.arange(len(first)), first] = -np.inf
                runner_up[part] = own.argmax(axis=1)
        if m_rows:
            block = rows[start:stop]
            row_dist[start:stop] = exact_dist(block, cols[row_index[start:stop]])
            if second:
                row_second[start:stop] = np.maximum(exact_dist(block, cols[runner_up]), row_dist[start:stop])
        report(progress, stage, stop, n)
    col_dist = exact_dist(take(rows, col_index), cols) if n and m else np.full(m, np.inf)
    return CrossNearest(row_dist, row_index, row_second, col_dist, col_index)


def nearest_index(rows: np.ndarray, cols: np.ndarray, *, memory_budget_mb: float = DEFAULT_BUDGET_MB) -> np.ndarray:
    """Index of the most similar column of every row (float32 similarities; -1 when no column)."""
    index = np.full(rows.shape[0], -1, dtype=np.int64)
    for start, stop, sim in similarity_blocks(rows, cols, memory_budget_mb):
        index[start:stop] = sim.argmax(axis=1)
    return index


def nearest(
    rows: np.ndarray, cols: np.ndarray, *, memory_budget_mb: float = DEFAULT_BUDGET_MB
) -> tuple[np.ndarray, np.ndarray]:
    """Top-1: ``(min distance float64, argmin int64)`` of every row over ``cols`` (``inf``/-1 if none)."""
    if cols.shape[0] == 0:
        return np.full(rows.shape[0], np.inf), np.full(rows.shape[0], -1, dtype=np.int64)
    index = nearest_index(rows, cols, memory_budget_mb=memory_budget_mb)
    return exact_dist(rows, cols[index]), index


def _top_k_iterated(sim: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """k arg-max passes per cache-sized slice of ``sim`` (modified: winners set to −inf)."""
    dist, index = np.empty((len(sim), k)), np.empty((len(sim), k), dtype=np.int64)
    for part in _slices(len(sim), sim.shape[1]):
        tile, at = sim[part], np.arange(part.stop - part.start)
        for rank in range(k):
            best = tile.argmax(axis=1)
            index[part, rank] = best
            dist[part, rank] = 1.0 - tile[at, best].astype(np.float64)
            tile[at, best] = -np.inf
    return dist, index


def _top_k_partition(sim: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Per-row ``argpartition`` then a stable sort of the k winners."""
    m = sim.shape[1]
    part = np.argpartition(-sim, k - 1, axis=1)[:, :k] if k < m else np.tile(np.arange(m), (len(sim), 1))
    part_sim = np.take_along_axis(sim, part, axis=1)
    order = np.argsort(-part_sim, axis=1, kind="stable")
    return 1.0 - np.take_along_axis(part_sim, order, axis=1).astype(np.float64), np.take_along_axis(part, order, axis=1)


def top_k(
    rows: np.ndarray,
    cols: np.ndarray,
    k: int,
    *,
    memory_budget_mb: float = DEFAULT_BUDGET_MB,
    exclude_self: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """The ``k`` nearest columns of every row, nearest first: ``(distances (n, k), indices (n, k))``.

    ``exclude_self`` (when ``rows`` is ``cols``) skips the diagonal. Distances come from float32
    similarities (precision ~1e-7); k is clipped to the number of available columns. Up to
    ``ITERATED_ARGMAX_K`` neighbours: k arg-max passes per cache-sized slice, each winner masked
    with −inf (ties go to the lowest column), ~10× faster than a per-row ``argpartition``, which
    is used beyond (its ``−sim`` copy and int64 indices take a third of the budget each).
    """
    n, m = rows.shape[0], cols.shape[0]
    k = max(0, min(k, m - (1 if exclude_self else 0)))
    dist = np.zeros((n, k))
    index = np.zeros((n, k), dtype=np.int64)
    if k == 0:
        return dist, index
    iterated = k <= ITERATED_ARGMAX_K
    select = _top_k_iterated if iterated else _top_k_partition
    for start, stop, sim in similarity_blocks(rows, cols, memory_budget_mb if iterated else memory_budget_mb / 4):
        if exclude_self:
            sim[np.arange(stop - start), np.arange(start, stop)] = -np.inf
        dist[start:stop], index[start:stop] = select(sim, k)
    return dist, index
