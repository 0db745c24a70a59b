"""The answering radius, calibrated from the test set itself, and the covered share it gives.

The paper's coverage figures are absolute (1 − distance) on a scale each embedder sets for itself:
with MiniLM a well-asked area scores 0.5–0.65, so no fixed threshold means the same thing under
two embedders. The *answering radius* r is measured on the test set instead, as the upper quartile
(``RADIUS_QUANTILE``) of

* with gold ids: the distance from each inlier question whose gold ids name corpus chunks or
  documents to its nearest gold chunk (how far a question sits from the passage that answers it);
* without: the distance from each inlier question to its nearest chunk,

i.e. three questions in four reach their answer within r. The upper quartile rather than the median:
on a synthetic held-out-topic corpus (tests/coverage/heldout_data.py, 12 cases) the median left
≈ 7 of 28 asked documents "unreached" (half the questions miss their own gold chunk by
definition), the upper quartile ≈ 1.5, and still every held-out document is unreached and every
held-out topic's cluster is the first gap.

A chunk is *within reach* when ``mindist ≤ r`` (some inlier question is at most as far from it
as a typical question is from its answer). The **covered share** of a set of chunks (the corpus,
a cluster, a document) is the fraction within reach — the analogue of line coverage.

:func:`robust_cut` is the calibrated cut the gap rule uses (:mod:`.gaps`): the median of the
values ∓ 2 robust spreads (1.4826 · MAD, floored so that near-identical values do not make tiny
differences count).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

MAD_SCALE = 1.4826
CUT_SPREADS = 2.0
MIN_SPREAD = 0.05  # for shares in [0, 1]: five points
RADIUS_QUANTILE = 0.75

GOLD, NEAREST = "gold", "nearest chunk"


@dataclass
class Radius:
    """The answering radius: ``value`` (cosine distance), measured ``source`` (GOLD / NEAREST) over ``questions``."""

    value: float
    source: str
    questions: int


@dataclass
class Cut:
    """``median ∓ spreads · spread`` of some per-cluster values (``spread`` = floored 1.4826 · MAD)."""

    value: float
    median: float
    spread: float


def robust_cut(values: np.ndarray, *, below: bool = True) -> Cut:
    """median − 2·spread (``below``) or median + 2·spread of ``values`` (module doc)."""
    values = np.asarray(values, dtype=np.float64)
    median = float(np.median(values))
    spread = max(MAD_SCALE * float(np.median(np.abs(values - median))), MIN_SPREAD)
    return Cut(median - CUT_SPREADS * spread if below else median + CUT_SPREADS * spread, median, spread)


def answering_radius(nearest_chunk_dist: np.ndarray, gold_dist: np.ndarray | None, inliers: np.ndarray) -> Radius | None:
    """The radius of the module doc (None without an inlier question)."""
    if len(inliers) == 0:
        return None
    if gold_dist is not None:
        with_gold = gold_dist[inliers][np.isfinite(gold_dist[inliers])]
        if len(with_gold):
            return Radius(float(np.quantile(with_gold, RADIUS_QUANTILE)), GOLD, int(len(with_gold)))
    return Radius(float(np.quantile(nearest_chunk_dist[inliers], RADIUS_QUANTILE)), NEAREST, int(len(inliers)))


def covered_shares(within: np.ndarray, codes: np.ndarray, groups: int) -> np.ndarray:
    """Per group (cluster or document code), the fraction of its chunks within reach (NaN for an empty group)."""
    counts = np.bincount(codes, minlength=groups)
    hits = np.bincount(codes, weights=within.astype(np.float64), minlength=groups)
    with np.errstate(invalid="ignore", divide="ignore"):
        return hits / counts


def reach_line(radius: Radius | None, within: int, chunks: int) -> str:
    """``answering radius 0.452 (3 in 4 of 28 questions are this close to their gold chunk): 41% of chunks …``."""
    if radius is None:
        return "answering radius undefined (no inlier question): no chunk is within reach"
    basis = "their gold chunk" if radius.source == GOLD else "their nearest chunk"
    return (f"answering radius {radius.value:.3f} (3 in 4 of {radius.questions} questions are this close to {basis}): "
            f"{within / chunks:.0%} of chunks ({within} of {chunks}) are within reach of a question")
