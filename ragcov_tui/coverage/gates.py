"""``ragcov analyze --fail-under basic=0.6 --max zero_results=0.02``: gates for CI (exit 3 when one fails).

Any of ``basic``, ``weighted``, ``multi_threshold``, ``multi_n``, ``covered_share`` (the fraction of
chunks within the calibrated answering radius, :mod:`.calibration`) and, with ``--eval-session``,
``exercised_share`` (the fraction of chunks an eval's questions retrieve, :mod:`.exercised`) may be
gated; with ``--traffic`` also the traffic health of the selected rows (the last ``--window``,
:mod:`.traffic_health`): ``positive_feedback``, ``negative_feedback``, ``zero_results``,
``low_relevance`` (rates) and ``latency_p50_ms``, ``latency_p95_ms``. ``--fail-under`` sets minimums,
``--max`` maximums. An undefined metric (e.g. every question an outlier, or a log without feedback)
fails its gate, since it cannot be shown to pass.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ragcov_tui.shared.errors import BadInput
from ragcov_tui.shared.junit_xml import TestCase
from ragcov_tui.shared.safe_text import visible_line
from ragcov_tui.shared.thresholds import (
    AboveMaximum,
    BelowThreshold,
    Threshold,
    above_maxima,
    below_thresholds,
    bounded_threshold,
    parse_threshold_spec,
)
from ragcov_tui.store.analysis_contract import AnalysisReport

# Each metric's range: 1 − a mean cosine distance (distances lie in [0, 2]), or a share.
COVERAGE_RANGES = {
    "basic": (-1.0, 1.0),
    "weighted": (-1.0, 1.0),
    "multi_threshold": (-1.0, 1.0),
    "multi_n": (-1.0, 1.0),
    "covered_share": (0.0, 1.0),
    "exercised_share": (0.0, 1.0),
}
COVERAGE_METRICS = tuple(COVERAGE_RANGES)
RATE_METRICS = ("positive_feedback", "negative_feedback", "zero_results", "low_relevance")
LATENCY_METRICS = {"latency_p50_ms": "p50", "latency_p95_ms": "p95"}
TRAFFIC_RANGES = {**dict.fromkeys(RATE_METRICS, (0.0, 1.0)), **dict.fromkeys(LATENCY_METRICS, (0.0, 7 * 24 * 3.6e6))}
METRICS = COVERAGE_METRICS + tuple(TRAFFIC_RANGES)


def parse_coverage_gates(
    specs: Iterable[str], option: str = "--fail-under", *, traffic: bool = False
) -> list[Threshold]:
    """``["basic=0.6"]`` → thresholds (``option`` ``--max``: maximums); BadInput on a bad spec, an
    unknown metric, or a traffic metric without a query log (``traffic`` False)."""
    out = []
    ranges = {**COVERAGE_RANGES, **TRAFFIC_RANGES}
    for spec in specs:
        name, value = parse_threshold_spec(
            spec, "basic=0.6" if option == "--fail-under" else "zero_results=0.02", option
        )
        if name not in ranges:
            raise BadInput(f"{option} {spec!r}: unknown metric {name!r} (one of {', '.join(METRICS)})")
        if name in TRAFFIC_RANGES and not traffic:
            raise BadInput(f"{option} {spec!r}: {name} is a traffic health figure: give a query log with --traffic")
        out.append(bounded_threshold(spec, name, value, *ranges[name], option=option))
    return out


def check_gate_inputs(thresholds: list[Threshold], eval_session: str | None) -> None:
    """BadInput before any work when ``exercised_share`` is gated without an eval to measure it."""
    if not eval_session and any(t.metric == "exercised_share" for t in thresholds):
        raise BadInput(
            "--fail-under exercised_share: needs --eval-session SESSION (the eval whose retrievals it counts)"
        )


def gate_figures(report: AnalysisReport) -> dict[str, float | None]:
    """Every gateable figure of the report: coverage, the exercised share with an eval joined, and
    traffic health when it has some."""
    figures: Mapping[str, Any] = report.get("coverage", {})
    out: dict[str, float | None] = {m: figures.get(m) for m in COVERAGE_METRICS}
    exercised = report.get("exercised")
    out["exercised_share"] = None if exercised is None else exercised["share"]
    traffic: Mapping[str, Any] = report.get("traffic") or {}
    overall: Mapping[str, Any] = (traffic.get("health") or {}).get("overall") or {}
    out |= {m: (overall.get(m) or {}).get("rate") for m in RATE_METRICS}
    out |= {m: (overall.get("latency_ms") or {}).get(key) for m, key in LATENCY_METRICS.items()}
    return out


def check_coverage_gates(
    report: AnalysisReport, thresholds: list[Threshold], maxima: list[Threshold] | None = None
) -> list[BelowThreshold | AboveMaximum]:
    """The gates the report's figures do not pass: minimums, then maximums."""
    figures = gate_figures(report)
    return [*below_thresholds(figures, thresholds), *above_maxima(figures, maxima or [])]


def coverage_junit_cases(
    report: AnalysisReport, thresholds: list[Threshold], maxima: list[Threshold] | None = None
) -> list[TestCase]:
    """``analyze --junit``: one test case per ``--fail-under`` and ``--max`` gate; a failed one lists
    the gaps (clusters the test set leaves uncovered), most urgent first, with their themes and size."""
    failed = {(isinstance(b, AboveMaximum), b.metric): b for b in check_coverage_gates(report, thresholds, maxima)}
    gaps = [
        visible_line(
            f"cluster {g['cluster']}  coverage {_figure(g.get('coverage'))}  {g['size']} chunks  "
            f"themes: {', '.join(g.get('themes') or []) or '—'}"
        )
        for g in report.get("gaps") or ()
    ]
    cases = []
    for is_max, gates in ((False, thresholds), (True, maxima or [])):
        flag = "max" if is_max else "fail-under"
        for t in gates:
            hit = failed.get((is_max, t.metric))
            cases.append(
                TestCase(
                    f"{flag} {t.metric}={t.minimum:g}",
                    f"ragcov.analyze.{flag.replace('-', '_')}",
                    failure=str(hit) if hit else None,
                    failure_type=flag,
                    detail=f"{hit}\n{len(gaps)} gaps:\n" + "\n".join(gaps),
                )
            )
    return cases


def _figure(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"
