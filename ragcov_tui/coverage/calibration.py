"""The answering radius, calibrated from the test set itself, and the covered share it gives.

The paper's coverage figures are absolute (1 − distance) on a scale each embedder sets for itself:
with MiniLM a well-asked area scores 0.5–0.65, so no fixed threshold means the same thing under
two embedders. The *answering radius* r is measured on the test set instead:

* with gold ids: the upper quartile (``GOLD_QUANTILE``) of the distance from each inlier question
  whose gold ids name corpus chunks or documents to its nearest gold chunk (how far a question sits
  from the passage that answers it) — three questions in four reach their answer within r;
* without: the 0.9 quantile (``NEAREST_QUANTILE``) of the distance from each inlier question to its
  nearest chunk. That distance is a lower bound on the distance to the answer, hence the higher
  quantile.

Why these quantiles (measured): on a synthetic held-out-topic corpus (tests/coverage/heldout_data.py,
12 cases, gold ids) the median left ≈ 7 of 28 asked documents "unreached" (half the questions miss
their own gold chunk by definition), the upper quartile ≈ 1.5, and still every held-out document is
unreached and every held-out topic's cluster is the first gap. Without gold ids, on scifact
(benchmarks/heldout_topic.py, 7 topics with ≥ 5 % of the questions) the held-out topic's cluster
is among the first three gaps for 2 topics at the median, 5 at 0.75 and 6 at 0.9; on squad 12 of 12
at 0.75 and 0.9 alike.

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

from ragcov_tui.shared.number_text import count

MAD_SCALE = 1.4826
CUT_SPREADS = 2.0
MIN_SPREAD = 0.05  # for shares in [0, 1]: five points
MIN_COVERAGE_SPREAD = 0.02  # for the paper's coverage (1 − mean distance): as for documents
GOLD_QUANTILE, NEAREST_QUANTILE = 0.75, 0.9

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


def robust_spread(values: np.ndarray, floor: float = 0.0) -> tuple[float, float]:
    """``(median, spread)`` of ``values``: spread = max(1.4826 · median(|values − median|), ``floor``),
    the standard deviation a normal distribution with that MAD would have."""
    values = np.asarray(values, dtype=np.float64)
    median = float(np.median(values))
    return median, max(MAD_SCALE * float(np.median(np.abs(values - median))), floor)


def robust_cut(values: np.ndarray, *, below: bool = True, floor: float = MIN_SPREAD) -> Cut:
    """median − 2·spread (``below``) or median + 2·spread of ``values``, the spread floored at ``floor``."""
    median, spread = robust_spread(values, floor)
    return Cut(median - CUT_SPREADS * spread if below else median + CUT_SPREADS * spread, median, spread)


def answering_radius(
    nearest_chunk_dist: np.ndarray, gold_dist: np.ndarray | None, inliers: np.ndarray
) -> Radius | None:
    """The radius of the module doc (None without an inlier question)."""
    if len(inliers) == 0:
        return None
    if gold_dist is not None:
        with_gold = gold_dist[inliers][np.isfinite(gold_dist[inliers])]
        if len(with_gold):
            return Radius(float(np.quantile(with_gold, GOLD_QUANTILE)), GOLD, int(len(with_gold)))
    return Radius(float(np.quantile(nearest_chunk_dist[inliers], NEAREST_QUANTILE)), NEAREST, int(len(inliers)))


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
    basis, share = ("their gold chunk", "3 in 4") if radius.source == GOLD else ("their nearest chunk", "9 in 10")
    return (
        f"answering radius {radius.value:.3f} ({share} of {count(radius.questions)} questions are this close to "
        f"{basis}): {within / chunks:.0%} of chunks ({count(within)} of {count(chunks)}) are within reach of a question"
    )
