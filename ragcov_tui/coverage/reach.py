"""Per cluster: covered share, priority, the unreached part (uneven clusters) and the documents without gold.

With ``within[i]`` = chunk i is within the answering radius (:mod:`.calibration`):

* covered_share_k = fraction of cluster k's chunks within reach;
* priority_k = clip(1 − covered_share_k / median_j covered_share_j, 0, 1): how much of the typical
  cluster's reach k is missing — 1 when no question reaches any of its chunks, 0 at or above the
  median (with a median of 0: 1 for an unreached cluster, else 0). Size plays no part, so a large,
  fairly covered cluster never outranks a small one that no question reaches;
* the *unreached part* of k: its documents with no chunk within reach anywhere (unreached
  documents, :mod:`.documents`), farthest first, and ``unreached_share_k`` = the fraction of k's chunks they hold. A cluster that is not a
  gap is *uneven* when that part holds ≥ 20 % of its chunks while the rest of it is covered at
  least as well as the median cluster (covered share of the rest = covered_share_k / (1 −
  unreached_share_k) ≥ the median): a narrow missing topic inside a well covered cluster, which
  the cluster's mean would average away;
* documents without gold: k's documents that no question's gold ids name (None without gold ids).

Everything is computed over (cluster, document) pairs with ``unique`` / ``bincount`` — one pass,
no loop over chunks.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ragcov_tui.coverage.calibration import Cut, covered_shares, robust_cut
from ragcov_tui.shared.number_text import count

UNEVEN_SHARE = 0.2


@dataclass
class ClusterReach:
    covered_share: float | None
    priority: float
    unreached_documents: list[str] = field(default_factory=list)
    unreached_share: float = 0.0
    uneven: bool = False
    documents_without_gold: list[str] | None = None


def cluster_reach(
    labels: np.ndarray,
    k: int,
    doc_codes: np.ndarray,
    doc_names: list[str],
    mindist: np.ndarray | None,
    within: np.ndarray | None,
    gold_counts: np.ndarray | None,
) -> tuple[list[ClusterReach], Cut | None]:
    """The figures of the module doc per cluster, and the calibrated cut on covered share (None without reach)."""
    sizes = np.bincount(labels, minlength=k)
    pairs, first, inverse = np.unique(
        labels.astype(np.int64) * len(doc_names) + doc_codes, return_index=True, return_inverse=True
    )
    pair_cluster, pair_doc = pairs // len(doc_names), pairs % len(doc_names)
    ungolded: list[list[str]] | None = None
    if gold_counts is not None:
        ungolded = [[] for _ in range(k)]
        for c, d in zip(
            pair_cluster[gold_counts[pair_doc] == 0].tolist(),
            pair_doc[gold_counts[pair_doc] == 0].tolist(),
            strict=True,
        ):
            ungolded[c].append(doc_names[d])
    if within is None or mindist is None:
        return [
            ClusterReach(None, 1.0, documents_without_gold=None if ungolded is None else ungolded[c]) for c in range(k)
        ], None
    shares = covered_shares(within, labels, k)
    present = sizes > 0
    cut = robust_cut(shares[present])
    doc_hits = np.bincount(doc_codes, weights=within.astype(np.float64), minlength=len(doc_names))
    nearest = np.full(len(pairs), np.inf)
    np.minimum.at(nearest, inverse, mindist)
    pair_chunks = np.bincount(inverse, minlength=len(pairs))
    unreached_pairs = np.flatnonzero(doc_hits[pair_doc] == 0)
    unreached_chunks = np.bincount(pair_cluster[unreached_pairs], weights=pair_chunks[unreached_pairs], minlength=k)
    parts: list[list[str]] = [[] for _ in range(k)]
    for p in unreached_pairs[np.lexsort((first[unreached_pairs], -nearest[unreached_pairs]))].tolist():
        parts[int(pair_cluster[p])].append(doc_names[int(pair_doc[p])])
    out = []
    for c in range(k):
        share = float(shares[c]) if present[c] else None
        if share is None:
            priority = 0.0
        elif cut.median > 0:
            priority = float(np.clip(1.0 - share / cut.median, 0.0, 1.0))
        else:
            priority = 1.0 if share == 0 else 0.0
        out.append(
            ClusterReach(
                share,
                priority,
                parts[c],
                float(unreached_chunks[c] / sizes[c]) if present[c] else 0.0,
                documents_without_gold=None if ungolded is None else ungolded[c],
            )
        )
    return out, cut


def mark_uneven(reach: list[ClusterReach], gap_clusters: set[int], median: float | None) -> str:
    """Set ``uneven`` (module doc) and return the rule as one line."""
    for c, r in enumerate(reach):
        rest = 1.0 - r.unreached_share
        r.uneven = (
            c not in gap_clusters
            and r.covered_share is not None
            and median is not None
            and r.unreached_share >= UNEVEN_SHARE
            and r.covered_share >= median * rest
        )
    if median is None:
        return ""
    return (
        f"uneven: clusters (not gaps) where documents with no chunk within reach hold at least {UNEVEN_SHARE:.0%} "
        f"of the chunks while the rest is covered at least as well as the median cluster ({median:.0%}) — "
        f"{count(sum(r.uneven for r in reach))} of {count(sum(r.covered_share is not None for r in reach))}"
    )
