"""``ragcov analyze --fail-under basic=0.6``: coverage gates for CI (exit 3 when one fails).

Any of ``basic``, ``weighted``, ``multi_threshold``, ``multi_n``, ``covered_share`` (the fraction of
chunks within the calibrated answering radius, :mod:`.calibration`) may be gated; an undefined
metric (e.g. every question an outlier) fails its gate, since it cannot be shown to pass.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ragcov_tui.errors import BadInput
from ragcov_tui.store.analysis_contract import AnalysisReport
from ragcov_tui.thresholds import BelowThreshold, Threshold, below_thresholds, parse_threshold_spec

COVERAGE_METRICS = ("basic", "weighted", "multi_threshold", "multi_n", "covered_share")


def parse_coverage_gates(specs: Iterable[str]) -> list[Threshold]:
    """``["basic=0.6"]`` → thresholds; BadInput on a bad spec or an unknown metric."""
    out = []
    for spec in specs:
        name, minimum = parse_threshold_spec(spec, "basic=0.6")
        if name not in COVERAGE_METRICS:
            raise BadInput(f"--fail-under {spec!r}: unknown metric {name!r} (one of {', '.join(COVERAGE_METRICS)})")
        out.append(Threshold(name, minimum))
    return out


def check_coverage_gates(report: AnalysisReport, thresholds: list[Threshold]) -> list[BelowThreshold]:
    """The gates the report's coverage figures do not pass."""
    figures: Mapping[str, Any] = report.get("coverage", {})
    return below_thresholds({m: figures.get(m) for m in COVERAGE_METRICS}, thresholds)
