"""``--sample N``: coverage estimated on a seeded uniform sample of the chunks, with 95% intervals.

The sample: ``N`` of the ``M`` chunks drawn uniformly without replacement
(``numpy.random.default_rng(seed).choice``), kept in corpus order. The whole analysis then runs on
those chunks; every figure is an estimate, reported with its 95% interval:

- a share (covered share overall and per cluster: chunks within the answering radius / chunks)
  gets the **Wilson score interval** for ``x`` successes in ``n`` trials, ``z = 1.96``::

      centre = (x + z²/2) / (n + z²),  half = z / (n + z²) · sqrt(x (n − x) / n + z²/4)

  (it stays inside [0, 1] and is not degenerate at 0 or n, unlike the normal interval);
- a mean (basic coverage ``1 − mean mindist``, per cluster too) gets the normal interval
  ``mean ± 1.96 · s / sqrt(n)`` (``s`` the sample standard deviation), clipped to [0, 1] — by the
  central limit theorem, over the sampled chunks.

Both treat the draw as with replacement, which makes them slightly wide (conservative) for a
sample without replacement; exact (no ``--sample``) stays the default.
"""

from __future__ import annotations

import math

import numpy as np

from ragcov_tui.shared.intervals import Z95, wilson
from ragcov_tui.store.analysis_contract import SampleCluster, SampleEstimate


def sample_rows(total: int, size: int | None, seed: int) -> np.ndarray | None:
    """Sorted row numbers of a seeded uniform sample of ``size`` of ``total`` rows; None when no
    sample is asked for or it would be every row."""
    if size is None or size >= total:
        return None
    return np.sort(np.random.default_rng(seed).choice(total, size, replace=False))


def mean_interval(values: np.ndarray, z: float = Z95) -> tuple[float, float] | None:
    """``mean ± z · s / sqrt(n)`` clipped to [0, 1]; None for fewer than two values."""
    n = len(values)
    if n < 2:
        return None
    mean, half = float(values.mean()), z * float(values.std(ddof=1)) / math.sqrt(n)
    return max(0.0, mean - half), min(1.0, mean + half)


def _pair(interval: tuple[float, float] | None) -> list[float] | None:
    return None if interval is None else [round(interval[0], 6), round(interval[1], 6)]


def sample_estimate(
    mindist: np.ndarray | None, within: np.ndarray | None, labels: np.ndarray, k: int, total: int
) -> SampleEstimate:
    """The intervals of a sampled analysis (``mindist`` / ``within`` / ``labels`` of the sampled
    chunks; ``total`` chunks in the corpus): the report's ``sample`` block."""
    n = len(labels)
    coverage = None if mindist is None else 1.0 - mindist
    clusters: list[SampleCluster] = []
    for c in range(k):
        members = labels == c
        clusters.append(
            {
                "cluster": c,
                "chunks": int(members.sum()),
                "coverage": None if coverage is None else _pair(mean_interval(coverage[members])),
                "covered_share": None
                if within is None
                else _pair(wilson(int(within[members].sum()), int(members.sum()))),
            }
        )
    return {
        "chunks": n,
        "of": total,
        "method": "uniform without replacement, seeded",
        "interval": "95%: Wilson score for shares, mean ± 1.96·s/√n for coverage",
        "text": f"estimated from {n:,} of {total:,} chunks",
        "basic": None if coverage is None else _pair(mean_interval(coverage)),
        "covered_share": None if within is None else _pair(wilson(int(within.sum()), n)),
        "clusters": clusters,
    }
