"""Redundant questions: near-duplicates, and questions whose removal leaves coverage unchanged.

* Near-duplicate pairs: inlier questions a, b with dist(a, b) < ``threshold`` (blocked search,
  O(m²·d) time, O(block · m) memory).
* Removal impact: with d₁(i), d₂(i) the nearest and second-nearest inlier distances of chunk i and
  nn(i) its nearest inlier, removing question j alone lowers basic coverage by exactly

      Δ_j = (1/n) · Σ_{i : nn(i) = j} (d₂(i) − d₁(i))

  (only the chunks whose nearest question is j change, each to its second nearest). A question
  with Δ_j ≤ ε is nobody's nearest question, or only by a tie: it can go without losing coverage.
  Computed from the top-2 distances in O(n). With a single inlier Δ is undefined (None).
"""

from __future__ import annotations

import numpy as np

from ragcov_tui.coverage.nearest import block_rows


def near_duplicate_pairs(question_vecs: np.ndarray, threshold: float,
                         memory_budget_mb: float = 256) -> list[tuple[int, int, float]]:
    """Pairs (a, b, dist) with a < b and dist(a, b) < threshold, by row of ``question_vecs``."""
    m = len(question_vecs)
    pairs: list[tuple[int, int, float]] = []
    if m < 2 or threshold <= 0:
        return pairs
    b = block_rows(m, memory_budget_mb, copies=1)
    qt = np.ascontiguousarray(question_vecs.T)
    for start in range(0, m, b):
        dist = 1.0 - (question_vecs[start:start + b] @ qt).astype(np.float64)
        rows, cols = np.nonzero(dist < threshold)
        for r, c in zip(rows.tolist(), cols.tolist()):
            if start + r < c:
                pairs.append((start + r, c, float(dist[r, c])))
    return pairs


def removal_impact(nn_index: np.ndarray, nn_dist: np.ndarray, second_dist: np.ndarray, n_questions: int) -> np.ndarray | None:
    """Δ_j for every inlier j (module doc); None when fewer than 2 inliers."""
    if n_questions < 2 or len(nn_index) == 0:
        return None
    gain = np.maximum(second_dist - nn_dist, 0.0)
    return np.bincount(nn_index, weights=gain, minlength=n_questions) / len(nn_index)
