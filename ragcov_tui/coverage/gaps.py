"""Gaps: the clusters the test set misses, least covered (relative to the calibration) first.

Which clusters are gaps:

* calibrated (default, ``gap_threshold`` None): covered share (:mod:`.calibration`) below the cut
  median − 2·spread over the clusters, or coverage below median − 2·spread of the clusters'
  coverages (spread floored at 0.02), or covered share 0 (no chunk within reach of any question) —
  so a test set that covers the corpus evenly has no gap, whatever scale the embedder's distances
  live on. The coverage cut catches a cluster whose chunks are mostly within the radius but
  further out than the others' (on scifact without gold ids it brings the held-out topic's cluster
  into the first three gaps for 7 of 7 topics instead of 6);
* ``--gap-threshold T`` (the paper's rule): coverage_k < T (undefined coverage counts as 0).

Without an inlier question nothing is within reach: every cluster is a gap.

Order (both rules): priority_k (:mod:`.reach`: the fraction of the typical cluster's reach that k
misses) descending, then size descending, then coverage ascending, then cluster id. Size and share
are shown and break ties only, so a large, fairly covered cluster never outranks a small one that
no question reaches.

A gap made mostly (≥ half its chunks) of flagged documents is probably misplaced content rather
than a hole in the test set: :func:`flagged_content` names those documents so the advice says
"review the document" instead of "add questions".
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ragcov_tui.coverage.calibration import MIN_COVERAGE_SPREAD, Cut, robust_cut
from ragcov_tui.coverage.reach import ClusterReach
from ragcov_tui.shared.number_text import count

CALIBRATED, THRESHOLD, UNDEFINED = "calibrated", "threshold", "undefined"


@dataclass
class Gap:
    cluster: int
    coverage: float | None
    size: int
    share: float
    priority: float
    covered_share: float | None = None
    flagged_documents: tuple[str, ...] = ()
    unreached_documents: tuple[str, ...] = ()
    unreached_share: float = 0.0


@dataclass
class GapRule:
    """How the gaps were chosen: ``mode`` (CALIBRATED / THRESHOLD / UNDEFINED), the ``cut`` on covered
    share (calibrated) or coverage (threshold), the calibration's ``median`` / ``spread``, the
    ``coverage_cut`` (calibrated), and ``text``."""

    mode: str
    cut: float | None
    median: float | None
    spread: float | None
    text: str
    coverage_cut: Cut | None = None


def rule_text(
    mode: str, cut: Cut | None, coverage_cut: Cut | None, threshold: float | None, gaps: int, clusters: int
) -> str:
    """``gaps: clusters with covered share below 41% (calibrated: median 68% − 2×MAD), … — 3 of 12``."""
    tally = f" — {count(gaps)} of {count(clusters)}"
    if mode == THRESHOLD:
        return f"gaps: clusters with coverage below {threshold:g} (--gap-threshold){tally}"
    if mode == UNDEFINED or cut is None or coverage_cut is None:
        return f"gaps: every cluster (no inlier question, so nothing is within reach){tally}"
    share = (
        f"covered share below {cut.value:.0%} (calibrated: median {cut.median:.0%} − 2×MAD), " if cut.value > 0 else ""
    )
    return (
        f"gaps: clusters with {share}coverage below {coverage_cut.value:.3f} (calibrated: median "
        f"{coverage_cut.median:.3f} − 2×MAD) or no chunk within reach{tally}"
    )


def rank_gaps(
    coverage: list[float | None],
    sizes: list[int],
    reach: list[ClusterReach],
    cut: Cut | None,
    gap_threshold: float | None,
) -> tuple[list[Gap], GapRule]:
    """The gaps among the clusters, in the order of the module doc, and the rule that chose them."""
    n = sum(sizes)
    mode = THRESHOLD if gap_threshold is not None else CALIBRATED if cut is not None else UNDEFINED
    defined = np.array([c for c, size in zip(coverage, sizes, strict=True) if size and c is not None])
    coverage_cut = robust_cut(defined, floor=MIN_COVERAGE_SPREAD) if len(defined) else None
    gaps = []
    for cluster, (cov, size, r) in enumerate(zip(coverage, sizes, reach, strict=True)):
        if not size:
            continue
        if gap_threshold is not None:  # mode THRESHOLD
            chosen = (0.0 if cov is None else cov) < gap_threshold
        elif cut is not None:  # mode CALIBRATED (coverage_cut is None only when no coverage is defined)
            chosen = r.covered_share is not None and (
                r.covered_share < cut.value
                or r.covered_share == 0
                or (cov is not None and coverage_cut is not None and cov < coverage_cut.value)
            )
        else:
            chosen = True
        if chosen:
            gaps.append(
                Gap(
                    cluster,
                    cov,
                    int(size),
                    size / n,
                    r.priority,
                    r.covered_share,
                    unreached_documents=tuple(r.unreached_documents),
                    unreached_share=r.unreached_share,
                )
            )
    gaps.sort(key=lambda g: (-round(g.priority, 9), -g.size, 0.0 if g.coverage is None else g.coverage, g.cluster))
    text = rule_text(mode, cut, coverage_cut, gap_threshold, len(gaps), sum(1 for s in sizes if s))
    median, spread = (None, None) if cut is None else (cut.median, cut.spread)
    if mode == THRESHOLD:
        return gaps, GapRule(mode, gap_threshold, median, spread, text)
    return gaps, GapRule(
        mode, None if cut is None else cut.value, median, spread, text, coverage_cut if mode == CALIBRATED else None
    )


def flagged_content(gaps: list[Gap], labels: np.ndarray, sources: list[str], flagged: set[str]) -> None:
    """Set ``gap.flagged_documents`` to the flagged sources making up at least half of the gap's chunks."""
    if not flagged or not gaps:
        return
    from_flagged = np.fromiter((s in flagged for s in sources), dtype=bool, count=len(sources))
    names = np.asarray(sources, dtype=object)
    for gap in gaps:
        members = labels == gap.cluster
        hits = members & from_flagged
        if members.any() and 2 * int(hits.sum()) >= int(members.sum()):
            gap.flagged_documents = tuple(dict.fromkeys(names[hits].tolist()))
