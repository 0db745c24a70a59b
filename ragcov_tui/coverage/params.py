"""Every option of the coverage engine, with the defaults and why they were chosen.

Defaults were measured on real all-MiniLM-L6-v2 vectors of the sample corpus (500-token chunks,
short user questions): chunk→nearest-chunk cosine distance ≈ 0.3–0.4, on-topic question→nearest
chunk ≈ 0.45–0.6 (the query/document asymmetry), off-topic question→nearest chunk ≈ 0.8–0.95,
on-topic question→its cluster centroid ≈ 0.35–0.55.
"""

from __future__ import annotations

from dataclasses import dataclass

from ragcov_tui.shared.errors import BadInput
from ragcov_tui.shared.input_values import is_ascii_whole


@dataclass
class CoverageParams:
    """Options of :func:`ragcov_tui.coverage.analysis.analyze`.

    * ``clusters``: K for K-means; ``None`` = size heuristic (clustering.default_k), ``"auto"`` =
      best silhouette on a sample, or an int (capped at the number of distinct chunks).
    * ``threshold``: multi-cluster threshold form — a question covers cluster k when its cosine
      distance to centroid k is below it (paper: useful between 0.15 and 0.8).
    * ``top_n``: multi-cluster N-closest form — each question covers its N closest clusters.
    * ``gap_threshold``: ``None`` (default) = gaps calibrated on the test set (:mod:`.gaps`); a
      number = the paper's rule, clusters with coverage below it are gaps.
    * ``lof_neighbors``, ``lof_query_offset``, ``contamination``, ``lof_threshold``, ``lof_sample``:
      outlier questions, see :mod:`ragcov_tui.coverage.outliers`.
    * ``redundancy_threshold``: inlier questions closer than this cosine distance are near-duplicates.
    * ``removal_epsilon``: a question is removable when dropping it lowers basic coverage by ≤ this.
    * ``document_mad_k`` / ``document_floor``: misaligned documents, see :mod:`.documents`.
    * ``n_themes`` / ``n_suggestions``: per gap.
    * ``max_projection_points``: exact t-SNE up to this many points, see :mod:`.projection`.
    * ``minibatch_above``: MiniBatchKMeans (fitted on a sample) past this many chunks.
    * ``memory_budget_mb``: bound on the similarity block of the nearest-neighbour search.
    """

    clusters: int | str | None = None
    threshold: float = 0.5
    top_n: int = 2
    gap_threshold: float | None = None
    lof_neighbors: int = 5
    lof_query_offset: float | str = "auto"
    contamination: float | str = "auto"
    lof_threshold: float | None = None
    lof_sample: int = 5_000
    redundancy_threshold: float = 0.05
    removal_epsilon: float = 1e-4
    document_mad_k: float = 3.0
    document_floor: float = 0.2
    n_themes: int = 5
    n_suggestions: int = 3
    max_projection_points: int = 2000
    minibatch_above: int = 20_000
    memory_budget_mb: int = 256
    seed: int = 0

    def validated(self) -> CoverageParams:
        """A copy with ``clusters`` normalised; BadInput naming the first invalid option."""
        clusters = self.clusters
        if isinstance(clusters, str):
            text = clusters.strip().lower()
            if text == "auto":
                clusters = "auto"
            elif is_ascii_whole(text):
                clusters = int(text)
            else:
                raise BadInput(f"--clusters {self.clusters!r}: expected a positive integer or 'auto'")
        if isinstance(clusters, int) and clusters < 1:
            raise BadInput(f"--clusters {clusters}: must be at least 1")
        if not 0.0 < self.threshold <= 2.0:
            raise BadInput(f"--threshold {self.threshold}: expected a cosine distance in (0, 2]")
        if int(self.top_n) < 1:
            raise BadInput(f"--top-n {self.top_n}: must be at least 1")
        if self.gap_threshold is not None and not 0.0 <= self.gap_threshold <= 1.0:
            raise BadInput(f"--gap-threshold {self.gap_threshold}: expected a value in [0, 1]")
        if int(self.lof_neighbors) < 1:
            raise BadInput(f"--lof-neighbors {self.lof_neighbors}: must be at least 1")
        contamination = self.contamination
        if contamination != "auto":
            try:
                contamination = float(contamination)
            except (TypeError, ValueError):
                raise BadInput(f"--contamination {self.contamination!r}: expected 'auto' or a fraction") from None
            if not 0.0 < contamination < 0.5:
                raise BadInput(f"--contamination {contamination}: expected a fraction in (0, 0.5)")
        offset = self.lof_query_offset
        if offset != "auto":
            try:
                offset = float(offset)
            except (TypeError, ValueError):
                raise BadInput(f"lof_query_offset {self.lof_query_offset!r}: expected 'auto' or a number") from None
        if self.redundancy_threshold < 0:
            raise BadInput(f"redundancy_threshold {self.redundancy_threshold}: must be ≥ 0")
        from dataclasses import replace

        return replace(
            self,
            clusters=clusters,
            contamination=contamination,
            lof_query_offset=offset,
            top_n=int(self.top_n),
            lof_neighbors=int(self.lof_neighbors),
        )


def used_params(
    params: CoverageParams, *, k: int, lof_neighbors: int, reference_size: int
) -> tuple[CoverageParams, list[str]]:
    """``params`` with each value the engine had to lower replaced by the value it used, and one
    line per such change: ``clusters`` above what the corpus allows (K-means needs a distinct chunk
    per cluster), ``top_n`` above the number of clusters, ``lof_neighbors`` above the reference
    chunks − 1. ``lof_neighbors`` is ``0`` when LOF was undefined (nothing to report then)."""
    from dataclasses import replace

    changes: dict[str, int] = {}
    notes: list[str] = []
    if isinstance(params.clusters, int) and k < params.clusters:
        changes["clusters"] = k
        notes.append(f"clusters {params.clusters}: this corpus allows at most {k} clusters; used {k}")
    if params.top_n > k:
        changes["top_n"] = k
        notes.append(f"top_n {params.top_n}: there are only {k} clusters; used {k}")
    if 0 < lof_neighbors < params.lof_neighbors:
        changes["lof_neighbors"] = lof_neighbors
        notes.append(
            f"lof_neighbors {params.lof_neighbors}: only {reference_size} reference chunks; used {lof_neighbors}"
        )
    return replace(params, **changes), notes
