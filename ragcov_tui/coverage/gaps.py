"""Gap ranking: the clusters the test set covers poorly, most urgent first.

A cluster k is a gap when coverage_k < ``gap_threshold`` (coverage undefined — no inlier
question at all — counts as 0). Priority:

    priority_k = share_k · (1 − coverage_k),   share_k = |C_k| / n

i.e. the part of the total coverage deficit 1 − C_weighted that the cluster accounts for, so a
large poorly covered cluster outranks a small one with the same coverage and a small cluster
needs a much lower coverage to outrank a large one. Ties: lower coverage first, then cluster id.

A gap made mostly (≥ half its chunks) of flagged documents is probably misplaced content rather
than a hole in the test set: :func:`flagged_content` names those documents so the report can say
"review the document" instead of only "add questions".
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class Gap:
    cluster: int
    coverage: float | None
    size: int
    share: float
    priority: float
    flagged_documents: tuple[str, ...] = ()


def rank_gaps(coverage: list[float | None], sizes: list[int], gap_threshold: float) -> list[Gap]:
    """The gaps among the clusters, by priority (module doc)."""
    n = sum(sizes)
    gaps = []
    for cluster, (cov, size) in enumerate(zip(coverage, sizes)):
        value = 0.0 if cov is None else cov
        if size and value < gap_threshold:
            share = size / n
            gaps.append(Gap(cluster, cov, int(size), share, share * (1.0 - value)))
    gaps.sort(key=lambda g: (-g.priority, 0.0 if g.coverage is None else g.coverage, g.cluster))
    return gaps


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
