"""The engine of the one heavy per-chunk pass of ``analyze`` (issue #25 §2).

Every chunk vector meets every question and every centroid once: each chunk's nearest cluster
(:meth:`ChunkEngine.assign`) and, in one blocked search, each chunk's nearest and second-nearest
inlier question and each question's nearest chunk (:meth:`ChunkEngine.cross_nearest`, the contract
of :func:`ragcov_tui.coverage.nearest.cross_nearest`). That is where the time of a large corpus
goes; everything else in :func:`ragcov_tui.coverage.analysis.analyze` reads the per-chunk arrays these
return. An engine returns exactly those arrays, so the report does not depend on which engine ran:

- :class:`LocalEngine` (``--engine local``, the default): this process, BLAS on its cores.
- :class:`ragcov_tui.coverage.ray_engine.RayEngine` (``--engine ray``, extra ``ragcov-tui[ray]``):
  the same per-block functions run as Ray Data tasks on a local Ray instance or a cluster.

:func:`make_engine` builds one from its name; Ray is imported only when it is chosen.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

import numpy as np

from ragcov_tui.coverage.clustering import assign
from ragcov_tui.coverage.nearest import DEFAULT_BUDGET_MB, CrossNearest, cross_nearest
from ragcov_tui.shared.progress import Progress

if TYPE_CHECKING:
    from ragcov_tui.coverage.ray_engine import RaySource

ENGINES = ("local", "ray")


class ChunkEngine(Protocol):
    """Runs the per-chunk pass over ``rows`` (the unit chunk vectors, in corpus order)."""

    name: str

    def assign(
        self, rows: np.ndarray, centroids: np.ndarray, memory_budget_mb: float = DEFAULT_BUDGET_MB
    ) -> np.ndarray:
        """Per row, the index of the nearest centroid (Euclidean), int64."""

    def cross_nearest(
        self,
        rows: np.ndarray,
        cols: np.ndarray,
        *,
        n_cols_for_rows: int | None = None,
        memory_budget_mb: float = DEFAULT_BUDGET_MB,
        progress: Progress | None = None,
    ) -> CrossNearest:
        """Both directions of the top-1 search (:func:`ragcov_tui.coverage.nearest.cross_nearest`)."""

    def close(self) -> None:
        """Release what the engine started (nothing for the local one)."""


class LocalEngine:
    """The pass in this process: :func:`~ragcov_tui.coverage.clustering.assign` and
    :func:`~ragcov_tui.coverage.nearest.cross_nearest` as they are."""

    name = "local"

    def assign(
        self, rows: np.ndarray, centroids: np.ndarray, memory_budget_mb: float = DEFAULT_BUDGET_MB
    ) -> np.ndarray:
        return assign(rows, centroids, memory_budget_mb)

    def cross_nearest(
        self,
        rows: np.ndarray,
        cols: np.ndarray,
        *,
        n_cols_for_rows: int | None = None,
        memory_budget_mb: float = DEFAULT_BUDGET_MB,
        progress: Progress | None = None,
    ) -> CrossNearest:
        return cross_nearest(
            rows, cols, n_cols_for_rows=n_cols_for_rows, memory_budget_mb=memory_budget_mb, progress=progress
        )

    def close(self) -> None:
        """Nothing to release."""


def require_engine(name: str) -> None:
    """BadInput (exit 2) naming the extra to install when engine ``name`` cannot run here."""
    if name == "ray":
        from ragcov_tui.coverage.ray_engine import import_ray

        import_ray()


def make_engine(name: str = "local", *, source: RaySource | None = None, cpus: int | None = None) -> ChunkEngine:
    """The engine called ``name`` (one of :data:`ENGINES`). For ``ray``: ``source`` says where its
    tasks read the chunk vectors (default: the rows given to each call), ``cpus`` the CPUs of a
    local Ray instance (ignored when ``RAY_ADDRESS`` names a cluster). BadInput (exit 2) when Ray
    is not installed."""
    if name == "local":
        return LocalEngine()
    from ragcov_tui.coverage.ray_engine import RayEngine

    return RayEngine(source=source, cpus=cpus)
