"""Redundant questions: near-duplicates, and questions whose removal leaves coverage unchanged.

* Near-duplicate pairs: inlier questions a, b with dist(a, b) < ``threshold`` (blocked search of
  the upper triangle only, m²·d flops, O(block · m) memory). The float32 GEMM only screens: with
  u = 2⁻²⁴ and γ_d = d·u/(1 − d·u), |fl32(a·b) − a·b| ≤ γ_d·‖a‖·‖b‖ in any summation order, so a
  pair is a candidate when its float32 similarity exceeds 1 − threshold − 2γ_d (safe for rows of
  norm up to √2); candidates are re-scored in float64 and kept when dist < threshold, so the pair
  set and the distances are exact.
* Removal impact: with d₁(i), d₂(i) the nearest and second-nearest inlier distances of chunk i and
  nn(i) its nearest inlier, removing question j alone lowers basic coverage by exactly

      Δ_j = (1/n) · Σ_{i : nn(i) = j} (d₂(i) − d₁(i))

  (only the chunks whose nearest question is j change, each to its second nearest). A question
  with Δ_j ≤ ε is nobody's nearest question, or only by a tie: it can go without losing coverage.
  Computed from the top-2 distances in O(n). With a single inlier Δ is undefined (None).
"""

from __future__ import annotations

import numpy as np

from ragcov_tui.coverage.nearest import block_rows, exact_dist

FLOAT32_UNIT_ROUNDOFF = 2.0**-24


def float32_dot_error(dim: int) -> float:
    """γ_d: bound on |fl32(a·b) − a·b| for unit vectors a, b of ``dim`` float32 values."""
    du = dim * FLOAT32_UNIT_ROUNDOFF
    return du / (1.0 - du)


def near_duplicate_pairs(
    question_vecs: np.ndarray, threshold: float, memory_budget_mb: float = 256
) -> list[tuple[int, int, float]]:
    """Pairs (a, b, dist) with a < b and dist(a, b) < threshold, by row of ``question_vecs``, in
    (a, b) order; dist in float64 (module doc)."""
    m = len(question_vecs)
    pairs: list[tuple[int, int, float]] = []
    if m < 2 or threshold <= 0:
        return pairs
    vecs = np.ascontiguousarray(question_vecs, dtype=np.float32)
    floor = 1.0 - threshold - 2.0 * float32_dot_error(vecs.shape[1])
    b = block_rows(m, memory_budget_mb, copies=1)
    for start in range(0, m, b):
        stop = min(m, start + b)
        rows, cols = np.nonzero(vecs[start:stop] @ vecs[start:].T > floor)
        rows, cols = rows + start, cols + start
        rows, cols = rows[rows < cols], cols[rows < cols]
        dist = exact_dist(vecs[rows], vecs[cols])
        close = dist < threshold
        pairs.extend(zip(rows[close].tolist(), cols[close].tolist(), dist[close].tolist(), strict=True))
    return pairs


def removal_impact(
    nn_index: np.ndarray, nn_dist: np.ndarray, second_dist: np.ndarray, n_questions: int
) -> np.ndarray | None:
    """Δ_j for every inlier j (module doc); None when fewer than 2 inliers."""
    if n_questions < 2 or len(nn_index) == 0:
        return None
    gain = np.maximum(second_dist - nn_dist, 0.0)
    return np.bincount(nn_index, weights=gain, minlength=n_questions) / len(nn_index)
