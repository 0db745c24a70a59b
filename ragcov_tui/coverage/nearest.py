"""Blocked nearest-neighbour search by cosine distance on L2-normalised float32 vectors.

dist(a, b) = 1 − a·b. Similarities are computed block by block with one BLAS GEMM per block
(``A[i:i+b] @ B.T``), so no n × m matrix ever exists: the block height ``b`` is chosen so that
one float32 block of ``b × m`` fits in ``memory_budget_mb``. The winning pair of each row is then
re-scored in float64 (``1 − Σ a_k b_k``), so returned distances are exact to ~1e-15 for the pair
found; only near-ties closer than float32 resolution (~1e-7) may pick either neighbour.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ragcov_tui.progress import Progress, report

DEFAULT_BUDGET_MB = 256


def block_rows(n_cols: int, memory_budget_mb: float = DEFAULT_BUDGET_MB, *, copies: int = 2) -> int:
    """Rows per block so that ``copies`` float32 arrays of ``rows × n_cols`` fit in the budget."""
    per_row = max(1, n_cols) * 4 * copies
    return int(max(1, min(1 << 16, memory_budget_mb * 1024 * 1024 // per_row)))


def exact_dist(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row-wise cosine distance ``1 − a_i·b_i`` computed in float64."""
    return 1.0 - np.einsum("ij,ij->i", a.astype(np.float64), b.astype(np.float64))


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
) -> CrossNearest:
    """Both directions of the top-1 search in one blocked pass over ``rows @ cols.T``.

    For each row: the nearest and second-nearest column among ``cols[:n_cols_for_rows]`` (e.g.
    the inlier questions, placed first). For each column: its nearest row; the pass only keeps the
    best similarity and the block it came from, and the arg-max inside that block is recomputed at
    the end for the columns that need it (a column-wise argmax over each block would cost ~30×
    more than a column-wise max). Memory: one ``b × m`` float32 block plus O(n + m).
    """
    n, m = rows.shape[0], cols.shape[0]
    m_rows = m if n_cols_for_rows is None else int(n_cols_for_rows)
    row_dist = np.full(n, np.inf)
    row_index = np.full(n, -1, dtype=np.int64)
    row_second = np.full(n, np.inf)
    col_best = np.full(m, -np.inf, dtype=np.float32)
    col_block = np.zeros(m, dtype=np.int64)
    b = block_rows(m, memory_budget_mb)
    starts = list(range(0, n, b))
    cols_t = np.ascontiguousarray(cols.T)
    for block_no, start in enumerate(starts):
        stop = min(n, start + b)
        sim = rows[start:stop] @ cols_t
        if m_rows > 0:
            part = sim[:, :m_rows]
            best = part.argmax(axis=1)
            idx = np.arange(stop - start)
            row_index[start:stop] = best
            if m_rows > 1:
                saved = part[idx, best].copy()
                part[idx, best] = -np.inf
                row_second[start:stop] = 1.0 - part.max(axis=1).astype(np.float64)
                part[idx, best] = saved
            row_dist[start:stop] = exact_dist(rows[start:stop], cols[best])
        block_max = sim.max(axis=0)
        better = block_max > col_best
        col_best[better] = block_max[better]
        col_block[better] = block_no
        report(progress, stage, stop, n)
    col_index = np.zeros(m, dtype=np.int64)
    for block_no in np.unique(col_block) if n and m else []:
        which = np.flatnonzero(col_block == block_no)
        start = starts[block_no]
        stop = min(n, start + b)
        col_index[which] = start + (rows[start:stop] @ cols_t[:, which]).argmax(axis=0)
    col_dist = exact_dist(rows[col_index], cols) if n and m else np.full(m, np.inf)
    row_second = np.maximum(row_second, row_dist) if m_rows > 1 else row_second
    return CrossNearest(row_dist, row_index, row_second, col_dist, col_index)


def nearest(rows: np.ndarray, cols: np.ndarray, *, memory_budget_mb: float = DEFAULT_BUDGET_MB) -> tuple[np.ndarray, np.ndarray]:
    """Top-1: ``(min distance float64, argmin int64)`` of every row over ``cols`` (``inf``/-1 if none)."""
    n = rows.shape[0]
    dist = np.full(n, np.inf)
    index = np.full(n, -1, dtype=np.int64)
    if cols.shape[0] == 0:
        return dist, index
    b = block_rows(cols.shape[0], memory_budget_mb, copies=1)
    cols_t = np.ascontiguousarray(cols.T)
    for start in range(0, n, b):
        stop = min(n, start + b)
        best = (rows[start:stop] @ cols_t).argmax(axis=1)
        index[start:stop] = best
        dist[start:stop] = exact_dist(rows[start:stop], cols[best])
    return dist, index


def top_k(rows: np.ndarray, cols: np.ndarray, k: int, *, memory_budget_mb: float = DEFAULT_BUDGET_MB,
          exclude_self: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """The ``k`` nearest columns of every row, nearest first: ``(distances (n, k), indices (n, k))``.

    ``exclude_self`` (when ``rows`` is ``cols``) skips the diagonal. Distances come from float32
    similarities (precision ~1e-7); k is clipped to the number of available columns.
    """
    n, m = rows.shape[0], cols.shape[0]
    k = max(0, min(k, m - (1 if exclude_self else 0)))
    dist = np.zeros((n, k))
    index = np.zeros((n, k), dtype=np.int64)
    if k == 0:
        return dist, index
    b = block_rows(m, memory_budget_mb, copies=2)
    cols_t = np.ascontiguousarray(cols.T)
    for start in range(0, n, b):
        stop = min(n, start + b)
        sim = rows[start:stop] @ cols_t
        if exclude_self:
            sim[np.arange(stop - start), np.arange(start, stop)] = -np.inf
        part = np.argpartition(-sim, k - 1, axis=1)[:, :k] if k < m else np.tile(np.arange(m), (stop - start, 1))
        part_sim = np.take_along_axis(sim, part, axis=1)
        order = np.argsort(-part_sim, axis=1, kind="stable")
        index[start:stop] = np.take_along_axis(part, order, axis=1)
        dist[start:stop] = 1.0 - np.take_along_axis(part_sim, order, axis=1).astype(np.float64)
    return dist, index
