"""Minimum-value gates shared by ``ragcov analyze --fail-under`` and ``ragcov eval --fail-under``, and
the maximum-value gates of ``ragcov analyze --max`` (traffic health: ``--max zero_results=0.02``).

A threshold is ``METRIC=VALUE``; a metric fails its gate when its value is below the minimum or
undefined (``None``: it cannot be shown to pass). A minimum outside the metric's range is refused
up front (:func:`bounded_threshold`). Which metric names are valid, and their ranges, is the caller's
business (:mod:`ragcov_tui.coverage.gates`, :mod:`ragcov_tui.evaluation.gates`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from ragcov_tui.shared.errors import BadInput


@dataclass(frozen=True)
class Threshold:
    metric: str
    minimum: float


@dataclass(frozen=True)
class BelowThreshold:
    metric: str
    minimum: float
    current: float | None

    def __str__(self) -> str:
        got = "not measured" if self.current is None else f"{self.current:.4f}"
        return f"{self.metric}: {got} < required {self.minimum:g}"


@dataclass(frozen=True)
class AboveMaximum:
    """A ``--max METRIC=VALUE`` gate the metric does not pass (above the maximum, or undefined)."""

    metric: str
    maximum: float
    current: float | None

    def __str__(self) -> str:
        got = "not measured" if self.current is None else f"{self.current:.4f}"
        return f"{self.metric}: {got} > allowed {self.maximum:g}"


def parse_threshold_spec(spec: str, example: str, option: str = "--fail-under") -> tuple[str, float]:
    """``"name=0.6"`` → ``("name", 0.6)``; BadInput naming ``option`` and the spec (``example`` shows the form)."""
    name, sep, value = spec.partition("=")
    if not sep or not name.strip() or not value.strip():
        raise BadInput(f"{option} {spec!r}: expected METRIC=VALUE, e.g. {example}")
    try:
        minimum = float(value)
    except ValueError:
        raise BadInput(f"{option} {spec!r}: {value.strip()!r} is not a number") from None
    if not math.isfinite(minimum):
        raise BadInput(
            f"{option} {spec!r}: the {'minimum' if option == '--fail-under' else 'maximum'} must be a finite number"
        )
    return name.strip(), minimum


def bounded_threshold(
    spec: str, metric: str, minimum: float, low: float, high: float, option: str = "--fail-under"
) -> Threshold:
    """``Threshold(metric, minimum)``; BadInput, before any work, when ``minimum`` lies outside
    ``[low, high]``, the values ``metric`` can take: below, the gate always passes; above, it
    always fails, and only after the whole run."""
    if not low <= minimum <= high:
        kind = "minimum" if option == "--fail-under" else "maximum"
        never = "always passes" if (minimum < low) == (kind == "minimum") else "can never be met"
        raise BadInput(f"{option} {spec!r}: {metric} lies in [{low:g}, {high:g}], so a {kind} of {minimum:g} {never}")
    return Threshold(metric, minimum)


def below_thresholds(means: dict[str, float | None], thresholds: Sequence[Threshold]) -> list[BelowThreshold]:
    """The thresholds whose metric is below its minimum or undefined (it cannot be shown to pass)."""
    below = []
    for t in thresholds:
        current = means.get(t.metric)
        if current is None or current < t.minimum:
            below.append(BelowThreshold(t.metric, t.minimum, current))
    return below


def above_maxima(values: dict[str, float | None], maxima: Sequence[Threshold]) -> list[AboveMaximum]:
    """The ``--max`` gates (``Threshold.minimum`` holds the maximum) whose metric is above it or undefined."""
    return [
        AboveMaximum(t.metric, t.minimum, values.get(t.metric))
        for t in maxima
        if values.get(t.metric) is None or float(values[t.metric] or 0.0) > t.minimum
    ]
