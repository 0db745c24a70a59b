"""What the page's map draws: the stored points and, for each gap cluster, its outline.

A gap cluster's outline is the convex hull of its shown chunks on the 2-D map (SciPy's Qhull);
a cluster with fewer than three distinct points, or all on a line, gets none. The outline is a
reading aid: the projection (UMAP / t-SNE / PCA, stored by the analysis) bends distances, so a
cluster may look spread out or overlap another on the map.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

import numpy as np
from scipy.spatial import ConvexHull, QhullError

from ragcov_tui.store.map_detail import MapChunk, MapDetail, MapQuestion


@dataclass(frozen=True)
class Hull:
    """A closed outline: the hull's vertices in order."""

    cluster: int
    xs: tuple[float, ...]
    ys: tuple[float, ...]


@dataclass(frozen=True)
class MapView:
    """The points to draw, the gap outlines, and how many chunks the session holds in all."""

    chunks: list[MapChunk]
    questions: list[MapQuestion]
    gap_hulls: list[Hull]
    chunk_total: int

    @property
    def subsampled(self) -> bool:
        return len(self.chunks) < self.chunk_total


def hull_of(cluster: int, points: np.ndarray) -> Hull | None:
    """The convex hull of ``points`` (n × 2), or None when they span no area."""
    if len(np.unique(points, axis=0)) < 3:
        return None
    try:
        hull = ConvexHull(points)
    except QhullError:  # collinear points
        return None
    corners = points[hull.vertices]
    return Hull(cluster, tuple(float(x) for x in corners[:, 0]), tuple(float(y) for y in corners[:, 1]))


def map_view(detail: MapDetail, gap_clusters: Collection[int]) -> MapView:
    """The stored points with an outline around each gap cluster's shown chunks."""
    hulls = []
    for cluster in sorted(set(gap_clusters)):
        points = np.array([(c.x, c.y) for c in detail.chunks if c.cluster == cluster], dtype=float).reshape(-1, 2)
        if (hull := hull_of(cluster, points)) is not None:
            hulls.append(hull)
    return MapView(detail.chunks, detail.questions, hulls, detail.chunk_total)
