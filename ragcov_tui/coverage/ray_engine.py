"""``--engine ray``: the per-chunk pass of :mod:`ragcov_tui.coverage.engine` as Ray Data work.

The chunk vectors become a Ray dataset of blocks, each mapped by a task (``map_batches``) that runs
the local engine's own per-block function on its block, with the question matrix and the centroids
broadcast once (``ray.put``); the driver stitches the blocks' per-chunk arrays in corpus order and
reduces the per-question winners (the nearest chunk of each question: the smallest distance over
the blocks, ties to the lower row, as the local search does). Same functions, same block results:
the report equals the local engine's to float tolerance (``tests/coverage/test_ray_engine.py``).

Where a task reads its block (:class:`RaySource`):

- a ``lancedb:`` or ``parquet:`` store: ``ray.data.read_lance`` / ``read_parquet`` with only the id
  and vector columns read (column pushdown), blocks in the store's order (``preserve_order``), each
  checked against the corpus by its first id; the rows are normalised as ``analyze`` normalises
  them (:func:`ragcov_tui.coverage.blocked.unit_rows`: divided by their float32 norm unless every
  row is within 1e-3 of unit length; ``analyze`` decides that once for the whole store, a task for
  its block, so only a store mixing both kinds of rows could differ);
- otherwise the rows given to the call: a memory-mapped ``.npy`` (or a view of one) is opened by
  path in each task, which reads only its own row range; an array in memory is put in the object
  store once and each task slices its range.

``ray.init()`` starts a local instance with ``cpus`` CPUs (all of them when None) unless Ray is
already running in this process or ``RAY_ADDRESS`` names a cluster (then the cluster's workers run
the tasks: they need ``ragcov-tui`` installed, and a ``.npy`` source must be at the same path on
every node). An instance the engine started is shut down by :meth:`RayEngine.close`.
"""

from __future__ import annotations

import logging
import os
import pickle
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ragcov_tui.coverage.blocked import unit_rows
from ragcov_tui.coverage.clustering import assign
from ragcov_tui.coverage.nearest import DEFAULT_BUDGET_MB, CrossNearest, cross_nearest, exact_dist
from ragcov_tui.shared.errors import BadInput
from ragcov_tui.shared.progress import Progress, report
from ragcov_tui.shared.row_blocks import BLOCK_ROWS, take

RAY_EXTRA = "ragcov-tui[ray]"


@dataclass
class RaySource:
    """A vector store the Ray tasks read themselves: ``kind`` ``lance`` (``location`` the database
    folder, ``table`` its table) or ``parquet`` (``location`` the file); the id and vector fields;
    ``ids`` the corpus's chunk ids in order (each block's first id is checked against them)."""

    kind: str
    location: str
    table: str
    id_field: str
    vector_field: str
    ids: Sequence[str] = ()


def import_ray() -> Any:
    """The ``ray`` module with Ray Data; BadInput naming the extra when it is not installed."""
    try:
        import ray
        import ray.data  # noqa: F401  (Ray without the [data] extra has no ray.data dependencies)
    except ImportError:
        raise BadInput(f"--engine ray: Ray is not installed; pip install '{RAY_EXTRA}'") from None
    return ray


@dataclass
class BlockPart:
    """What one task returns for its rows ``start:start + rows``: the per-row arrays of the pass,
    and for a search the block's nearest row (global) and distance per column."""

    start: int
    rows: int
    first_id: str | None
    per_row: tuple[np.ndarray, ...]
    col_dist: np.ndarray | None = None
    col_index: np.ndarray | None = None


def _search(block: np.ndarray, start: int, cols: np.ndarray, m_rows: int, budget: float) -> BlockPart:
    found = cross_nearest(block, cols, n_cols_for_rows=m_rows, memory_budget_mb=budget)
    return BlockPart(
        start,
        len(block),
        None,
        (found.row_dist, found.row_index, found.row_second),
        found.col_dist,
        found.col_index + start,
    )


def _assign(block: np.ndarray, start: int, centroids: np.ndarray, budget: float) -> BlockPart:
    return BlockPart(start, len(block), None, (assign(block, centroids, budget),))


def _objects(parts: list[BlockPart]) -> np.ndarray:
    """The parts as a column of pickled bytes (an Arrow binary column; read back by :func:`_part`)."""
    column = np.empty(len(parts), dtype=object)
    column[:] = [pickle.dumps(part, protocol=pickle.HIGHEST_PROTOCOL) for part in parts]
    return column


def _part(row: dict[str, Any]) -> BlockPart:
    part: BlockPart = pickle.loads(row["part"])
    return part


def _range_task(
    batch: dict[str, np.ndarray],
    *,
    reader: tuple[str, Any],
    rows: int,
    total: int,
    work: Callable[..., BlockPart],
    args: list[Any],
) -> dict[str, np.ndarray]:
    """One block of an array source: ``batch["id"]`` holds block numbers; ``reader`` is
    ``("npy", (path, offset, dim))`` or ``("ref", [object ref])``."""
    import ray

    how, where = reader
    resolved = [ray.get(a[0]) if isinstance(a, list) else a for a in args]
    parts = []
    for number in batch["id"].tolist():
        start, stop = number * rows, min(total, (number + 1) * rows)
        if how == "npy":
            path, offset, dim = where
            view = np.memmap(
                path, dtype=np.float32, mode="r", offset=offset + start * dim * 4, shape=(stop - start, dim)
            )
            block = np.array(view)
            del view
        else:
            block = np.asarray(ray.get(where[0])[start:stop])
        parts.append(work(block, start, *resolved))
    return {"part": _objects(parts)}


def _store_task(
    batch: dict[str, np.ndarray], *, id_field: str, vector_field: str, work: Callable[..., BlockPart], args: list[Any]
) -> dict[str, np.ndarray]:
    """One batch of a store source: its vectors normalised, the pass run, its first id kept (the
    driver places it: blocks arrive in order)."""
    import ray

    resolved = [ray.get(a[0]) if isinstance(a, list) else a for a in args]
    vectors = batch[vector_field]
    block = unit_rows(np.stack(list(vectors)) if vectors.dtype == object else vectors)
    part = work(block, 0, *resolved)
    part.first_id = str(batch[id_field][0]) if len(block) else None
    return {"part": _objects([part])}


def npy_location(rows: np.ndarray) -> tuple[str, int, int] | None:
    """``(path, byte offset of rows[0], dim)`` when ``rows`` is C-contiguous float32 data of a
    memory-mapped file (an ``np.memmap`` or a view of one), else None."""
    base: Any = rows
    for _ in range(8):
        if isinstance(base, np.memmap) and getattr(base, "filename", None):
            break
        base = getattr(base, "base", None)
        if base is None:
            return None
    else:
        return None
    if rows.dtype != np.float32 or not rows.flags.c_contiguous or rows.ndim != 2:
        return None
    offset = int(base.offset) + (rows.ctypes.data - base.ctypes.data)
    return str(base.filename), offset, int(rows.shape[1])


class RayEngine:
    """The per-chunk pass as Ray Data tasks (module docstring)."""

    name = "ray"

    def __init__(self, *, source: RaySource | None = None, cpus: int | None = None) -> None:
        self.ray = import_ray()
        self.source = source
        self.started = False
        if not self.ray.is_initialized():
            cluster = bool(os.environ.get("RAY_ADDRESS"))
            self.ray.init(
                num_cpus=None if cluster else cpus,
                include_dashboard=False,
                log_to_driver=False,
                logging_level=logging.ERROR,
            )
            self.started = True
        logging.getLogger("ray.data").setLevel(logging.ERROR)  # no per-dataset lines on the user's terminal
        context = self.ray.data.DataContext.get_current()
        context.execution_options.preserve_order = True
        context.enable_progress_bars = False
        context.print_on_execution_start = False

    def close(self) -> None:
        """Shut down the local Ray instance this engine started (not one it found running)."""
        if self.started:
            self.ray.shutdown()
            self.started = False

    def _parts(self, rows: np.ndarray, work: Callable[..., BlockPart], args: list[Any]) -> Iterator[BlockPart]:
        """Every block's :class:`BlockPart`, in corpus order; broadcast ``np.ndarray`` arguments once."""
        ray = self.ray
        shared = [[ray.put(a)] if isinstance(a, np.ndarray) else a for a in args]
        n = len(rows)
        if self.source is not None:
            yield from self._store_parts(work, shared, n)
            return
        location = npy_location(rows)
        reader: tuple[str, Any] = ("npy", location) if location is not None else ("ref", [ray.put(rows)])
        blocks = -(-n // BLOCK_ROWS)
        data = ray.data.range(blocks, override_num_blocks=blocks).map_batches(
            _range_task,
            batch_size=1,
            fn_kwargs={"reader": reader, "rows": BLOCK_ROWS, "total": n, "work": work, "args": shared},
        )
        for row in data.iter_rows():
            yield _part(row)

    def _store_parts(self, work: Callable[..., BlockPart], shared: list[Any], n: int) -> Iterator[BlockPart]:
        source, ray = self.source, self.ray
        assert source is not None
        columns = [source.id_field, source.vector_field]
        if source.kind == "lance":
            data = ray.data.read_lance(os.path.join(source.location, f"{source.table}.lance"))
        else:
            data = ray.data.read_parquet(source.location)
        data = data.select_columns(columns)  # pushed down into the read: only these columns are read
        data = data.map_batches(
            _store_task,
            batch_size=BLOCK_ROWS,
            batch_format="numpy",
            fn_kwargs={"id_field": source.id_field, "vector_field": source.vector_field, "work": work, "args": shared},
        )
        start = 0
        for row in data.iter_rows():
            part = _part(row)
            if source.ids and part.rows and part.first_id != source.ids[start]:
                raise BadInput(
                    f"--engine ray: {source.location}: row {start:,} of the store is {part.first_id!r}, "
                    f"the corpus read {source.ids[start]!r} there (was the store written meanwhile?)"
                )
            part.start = start
            if part.col_index is not None:
                part.col_index = part.col_index + start
            start += part.rows
            yield part
        if start != n:
            raise BadInput(f"--engine ray: the store gave {start:,} rows, the corpus has {n:,}; read it again")

    def assign(
        self, rows: np.ndarray, centroids: np.ndarray, memory_budget_mb: float = DEFAULT_BUDGET_MB
    ) -> np.ndarray:
        labels = np.empty(len(rows), dtype=np.int64)
        for part in self._parts(rows, _assign, [np.ascontiguousarray(centroids, dtype=np.float32), memory_budget_mb]):
            labels[part.start : part.start + part.rows] = part.per_row[0]
        return labels

    def cross_nearest(
        self,
        rows: np.ndarray,
        cols: np.ndarray,
        *,
        n_cols_for_rows: int | None = None,
        memory_budget_mb: float = DEFAULT_BUDGET_MB,
        progress: Progress | None = None,
    ) -> CrossNearest:
        n, m = len(rows), len(cols)
        m_rows = m if n_cols_for_rows is None else int(n_cols_for_rows)
        row_dist, row_second = np.full(n, np.inf), np.full(n, np.inf)
        row_index = np.full(n, -1, dtype=np.int64)
        col_dist, col_index = np.full(m, np.inf), np.zeros(m, dtype=np.int64)
        done = 0
        report(progress, "nearest", 0, n)
        cols32 = np.ascontiguousarray(cols, dtype=np.float32)
        for part in self._parts(rows, _search, [cols32, m_rows, memory_budget_mb]):
            span = slice(part.start, part.start + part.rows)
            row_dist[span], row_index[span], row_second[span] = part.per_row
            assert part.col_dist is not None and part.col_index is not None
            better = part.col_dist < col_dist  # blocks in order: a tie keeps the lower row
            col_dist[better], col_index[better] = part.col_dist[better], part.col_index[better]
            done += part.rows
            report(progress, "nearest", done, n)
        if n and m:  # re-scored against the driver's rows, as the local search does
            col_dist = exact_dist(take(rows, col_index), cols32)
        return CrossNearest(row_dist, row_index, row_second, col_dist, col_index)
