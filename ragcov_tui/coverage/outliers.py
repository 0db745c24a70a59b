"""Outlier questions: Local Outlier Factor of each question against the chunk embeddings.

Fit (novelty mode): the reference set R is the distinct chunk vectors (a random sample of
``lof_sample`` of them past that size, which bounds the cost on 1M chunks to O(s² + m·s)).
With k = min(lof_neighbors, |R| − 1), for r ∈ R: kdist(r) = distance to its k-th neighbour in R,
lrd(r) = 1 / mean_{o ∈ N_k(r)} max(kdist(o), d(r, o)). For a question q with its k nearest
chunks N_k(q) in R:

    d'(q, o) = max(0, d(q, o) − δ)
    lrd(q)  = 1 / mean_{o ∈ N_k(q)} max(kdist(o), d'(q, o))
    LOF(q)  = mean_{o ∈ N_k(q)} lrd(o) / lrd(q)        (higher = farther from the documents)

With δ = 0 this is exactly sklearn's ``LocalOutlierFactor(novelty=True).score_samples`` negated.
δ corrects the query/document asymmetry of sentence embedders: a short question is farther from
the chunk that answers it than chunks are from each other (MiniLM on the sample corpus: median
0.53 vs 0.32), which would give every on-topic question an LOF well above 1.
``lof_query_offset="auto"`` estimates δ = clip(median_q d₁(q) − median_r d₁(r), 0, 0.25) where d₁
is the nearest-neighbour distance; the median makes it robust to a minority of off-topic
questions, the 0.25 cap (≈ the largest offset measured with MiniLM) keeps an all-off-topic test
set from calibrating itself away.

Flag rule: ``lof_threshold`` T if given; else with ``contamination`` a fraction f, the ⌈f·m⌉
highest scores; else (``"auto"``) T = clip(median + 3 · 1.4826 · MAD, 1.2, 2.0) over the
question scores — a robust z-score of 3 relative to this test set, never below 1.35 and never
above 2.0 (a question twice as sparse as its
neighbourhood is always flagged, so a test set of only off-topic questions is all flagged).
An outlier is a question with LOF > T.

Calibration (MiniLM, sample corpus: 59 chunks, 30 on-topic and 3 off-topic questions): with the
offset and k = 5, on-topic LOF ≤ 1.24 (median 1.04), off-topic ≥ 1.52 — the widest margin of
k ∈ {3, 5, 8, 10, 15, 20, 30} (k ≥ 15 no longer separates; without the offset on-topic questions
reach 1.65). Hence ``lof_neighbors = 5`` and the floor 1.35 in the middle of the margin. Fewer than
3 distinct chunks: LOF is undefined (None) and nothing is flagged.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ragcov_tui.coverage.calibration import robust_spread
from ragcov_tui.coverage.nearest import top_k
from ragcov_tui.shared.row_blocks import take

OFFSET_CAP = 0.25
AUTO_FLOOR, AUTO_CEILING, AUTO_Z = 1.35, 2.0, 3.0


@dataclass
class OutlierResult:
    """``scores`` (m,) float64 or None when undefined; ``outlier`` (m,) bool; how it was decided."""

    scores: np.ndarray | None
    outlier: np.ndarray
    threshold: float | None
    rule: str
    offset: float
    neighbors: int
    reference_size: int


def reference_set(chunk_vecs: np.ndarray, sample: int, seed: int) -> np.ndarray:
    """Distinct chunk vectors (duplicates make kdist 0 and LOF infinite), sampled to ≤ ``sample``."""
    rng = np.random.default_rng(seed)
    rows = chunk_vecs
    if len(rows) > sample:
        rows = take(rows, np.sort(rng.choice(len(rows), sample, replace=False)))
    probe = rng.standard_normal((rows.shape[1],)).astype(np.float32)
    _, first = np.unique(rows @ probe, return_index=True)
    return rows[np.sort(first)]


def lof_scores(
    reference: np.ndarray, queries: np.ndarray, k: int, offset: float | str, memory_budget_mb: float = 256
) -> tuple[np.ndarray, float]:
    """LOF of each query against ``reference`` (see module doc); returns (scores, δ used)."""
    ref_dist, ref_idx = top_k(reference, reference, k, exclude_self=True, memory_budget_mb=memory_budget_mb)
    ref_dist = np.maximum(ref_dist, 0.0)
    kdist = ref_dist[:, -1]
    lrd_ref = 1.0 / np.maximum(np.maximum(kdist[ref_idx], ref_dist).mean(axis=1), 1e-10)
    q_dist, q_idx = top_k(queries, reference, k, memory_budget_mb=memory_budget_mb)
    q_dist = np.maximum(q_dist, 0.0)
    auto = float(np.clip(np.median(q_dist[:, 0]) - np.median(ref_dist[:, 0]), 0.0, OFFSET_CAP))
    delta = auto if offset == "auto" else float(offset)
    reach = np.maximum(kdist[q_idx], np.maximum(q_dist - delta, 0.0))
    lrd_q = 1.0 / np.maximum(reach.mean(axis=1), 1e-10)
    return lrd_ref[q_idx].mean(axis=1) / lrd_q, delta


def flag(scores: np.ndarray, contamination: float | str, lof_threshold: float | None) -> tuple[np.ndarray, float, str]:
    """Apply the flag rule of the module doc; returns (outlier mask, threshold, rule text)."""
    if lof_threshold is not None:
        return scores > lof_threshold, float(lof_threshold), f"LOF > lof_threshold {lof_threshold:g}"
    if contamination != "auto":
        count = math.ceil(float(contamination) * len(scores))
        order = np.argsort(-scores, kind="stable")[:count]
        mask = np.zeros(len(scores), dtype=bool)
        mask[order] = True
        threshold = float(scores[order].min()) if count else float("inf")
        return mask, threshold, f"the {count} highest LOF scores (contamination {float(contamination):g})"
    median, spread = robust_spread(scores)
    threshold = float(np.clip(median + AUTO_Z * spread, AUTO_FLOOR, AUTO_CEILING))
    return (
        scores > threshold,
        threshold,
        (f"LOF > clip(median + {AUTO_Z:g}·1.4826·MAD, {AUTO_FLOOR:g}, {AUTO_CEILING:g}) = {threshold:.3f}"),
    )


def detect_outliers(
    chunk_vecs: np.ndarray,
    question_vecs: np.ndarray,
    *,
    neighbors: int,
    offset: float | str,
    contamination: float | str,
    lof_threshold: float | None,
    sample: int,
    seed: int,
    memory_budget_mb: float = 256,
) -> OutlierResult:
    """Score every question with LOF against the chunks and flag outliers (module doc)."""
    return outliers_against(
        reference_set(chunk_vecs, sample, seed),
        question_vecs,
        neighbors=neighbors,
        offset=offset,
        contamination=contamination,
        lof_threshold=lof_threshold,
        memory_budget_mb=memory_budget_mb,
    )


def outliers_against(
    reference: np.ndarray,
    question_vecs: np.ndarray,
    *,
    neighbors: int,
    offset: float | str,
    contamination: float | str,
    lof_threshold: float | None,
    memory_budget_mb: float = 256,
) -> OutlierResult:
    """:func:`detect_outliers` given the reference set (:func:`reference_set`, or the blocked path's
    copy of it): LOF works on the questions and this sample, never on every chunk."""
    m = len(question_vecs)
    if len(reference) < 3 or m == 0:
        return OutlierResult(
            None,
            np.zeros(m, dtype=bool),
            None,
            "LOF undefined: fewer than 3 distinct chunks; no question flagged",
            0.0,
            0,
            len(reference),
        )
    k = min(neighbors, len(reference) - 1)
    scores, delta = lof_scores(reference, question_vecs, k, offset, memory_budget_mb)
    mask, threshold, rule = flag(scores, contamination, lof_threshold)
    return OutlierResult(scores, mask, threshold, rule, delta, k, len(reference))
