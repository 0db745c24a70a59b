"""Confidence intervals shared by the coverage estimates, traffic health and judge alignment.

The **Wilson score interval** of ``x`` successes in ``n`` trials at ``z`` (95%: ``z = 1.96``)::

    centre = (x + z²/2) / (n + z²)
    half   = z / (n + z²) · sqrt(x·(n − x)/n + z²/4)

clipped to [0, 1]. Unlike the normal interval it stays inside [0, 1] and does not collapse to a
point at 0 or n successes, which is why a rate measured on few items (a judge on 3 labels, a
traffic cluster of 5 queries) gets it.
"""

from __future__ import annotations

import math

Z95 = 1.959963984540054  # the two-sided 95% standard normal quantile


def wilson(successes: float, trials: int, z: float = Z95) -> tuple[float, float] | None:
    """The Wilson score interval of ``successes / trials`` (module docstring); None without a trial."""
    if trials <= 0:
        return None
    z2 = z * z
    centre = (successes + z2 / 2) / (trials + z2)
    half = z / (trials + z2) * math.sqrt(max(0.0, successes * (trials - successes) / trials + z2 / 4))
    return max(0.0, centre - half), min(1.0, centre + half)
