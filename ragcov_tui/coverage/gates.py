"""``ragcov analyze --fail-under basic=0.6``: coverage gates for CI (exit 3 when one fails).

Any of ``basic``, ``weighted``, ``multi_threshold``, ``multi_n``, ``covered_share`` (the fraction of
chunks within the calibrated answering radius, :mod:`.calibration`) and, with ``--eval-session``,
``exercised_share`` (the fraction of chunks an eval's questions retrieve, :mod:`.exercised`) may be gated; an undefined
metric (e.g. every question an outlier) fails its gate, since it cannot be shown to pass.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ragcov_tui.errors import BadInput
from ragcov_tui.junit_xml import TestCase
from ragcov_tui.safe_text import visible_line
from ragcov_tui.store.analysis_contract import AnalysisReport
from ragcov_tui.thresholds import (
    BelowThreshold,
    Threshold,
    below_thresholds,
    bounded_threshold,
    parse_threshold_spec,
)

# Each metric's range: 1 − a mean cosine distance (distances lie in [0, 2]), or a share.
COVERAGE_RANGES = {"basic": (-1.0, 1.0), "weighted": (-1.0, 1.0), "multi_threshold": (-1.0, 1.0),
                   "multi_n": (-1.0, 1.0), "covered_share": (0.0, 1.0), "exercised_share": (0.0, 1.0)}
COVERAGE_METRICS = tuple(COVERAGE_RANGES)


def parse_coverage_gates(specs: Iterable[str]) -> list[Threshold]:
    """``["basic=0.6"]`` → thresholds; BadInput on a bad spec or an unknown metric."""
    out = []
    for spec in specs:
        name, minimum = parse_threshold_spec(spec, "basic=0.6")
        if name not in COVERAGE_METRICS:
            raise BadInput(f"--fail-under {spec!r}: unknown metric {name!r} (one of {', '.join(COVERAGE_METRICS)})")
        out.append(bounded_threshold(spec, name, minimum, *COVERAGE_RANGES[name]))
    return out


def check_gate_inputs(thresholds: list[Threshold], eval_session: str | None) -> None:
    """BadInput before any work when ``exercised_share`` is gated without an eval to measure it."""
    if not eval_session and any(t.metric == "exercised_share" for t in thresholds):
        raise BadInput("--fail-under exercised_share: needs --eval-session SESSION (the eval whose retrievals it counts)")


def check_coverage_gates(report: AnalysisReport, thresholds: list[Threshold]) -> list[BelowThreshold]:
    """The gates the report's coverage figures do not pass."""
    figures: dict[str, Any] = dict(report.get("coverage", {}))
    exercised = report.get("exercised")
    figures["exercised_share"] = None if exercised is None else exercised["share"]
    return below_thresholds({m: figures.get(m) for m in COVERAGE_METRICS}, thresholds)


def coverage_junit_cases(report: AnalysisReport, thresholds: list[Threshold]) -> list[TestCase]:
    """``analyze --junit``: one test case per ``--fail-under`` gate; a failed one lists the gaps
    (clusters the test set leaves uncovered), most urgent first, with their themes and size."""
    below = {b.metric: b for b in check_coverage_gates(report, thresholds)}
    gaps = [visible_line(f"cluster {g['cluster']}  coverage {_figure(g.get('coverage'))}  {g['size']} chunks  "
                         f"themes: {', '.join(g.get('themes') or []) or '—'}") for g in report.get("gaps") or ()]
    return [TestCase(f"fail-under {t.metric}={t.minimum:g}", "ragcov.analyze.fail_under",
                     failure=str(below[t.metric]) if t.metric in below else None, failure_type="fail-under",
                     detail=f"{below.get(t.metric)}\n{len(gaps)} gaps:\n" + "\n".join(gaps))
            for t in thresholds]


def _figure(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"
