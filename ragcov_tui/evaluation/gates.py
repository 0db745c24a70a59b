"""Quality gates for CI: regressions against a baseline, and absolute minimums.

- ``--baseline SESSION|FILE --max-drop D``: for every metric whose mean is defined in both the
  baseline and the current report, a *regression* is ``baseline - current > D`` (absolute drop;
  every metric here is higher-is-better).
- ``--fail-under METRIC=VALUE``: the current mean of METRIC must be ``>= VALUE``; a metric that
  was not measured (mean undefined, n = 0) fails the gate too, since it cannot be shown to pass.
  A gate is *exact* when its metric needs no judge (retrieval, keyword scores: the same inputs give
  the same figure) and *judged* when a judge scores it (``JUDGED_METRICS``). A judged gate knows
  its noise: once the session has labels for the metric it compares the 95% **lower bound of the
  judge-corrected estimate** (Rogan–Gladen, :mod:`ragcov_tui.evaluation.alignment`; a judge no
  better than chance on the labels cannot pass); else, with ``--repeats N > 1``, the lower bound of
  a seeded percentile bootstrap 95% interval of the mean over items (each item's score being the
  mean of its N judgements); else the mean itself, and the summary says there is no interval.

The CLI exits 3 when :attr:`GateResult.failed`, listing every failure (``baseline → current``).
Reports are the ``eval --json`` contract; an aggregate may be ``{"mean", …}`` or a plain number.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import sqlite_utils

from ragcov_tui.evaluation.alignment import Alignment, bootstrap_mean
from ragcov_tui.evaluation.generation.registry import JUDGED_METRICS
from ragcov_tui.evaluation.metric_names import canonical_metric
from ragcov_tui.evaluation.report import read_eval_report
from ragcov_tui.evaluation.systems.base import DEFAULT_K
from ragcov_tui.shared.errors import BadInput
from ragcov_tui.shared.json_types import JsonObject
from ragcov_tui.shared.junit_xml import TestCase
from ragcov_tui.shared.safe_text import visible_line
from ragcov_tui.shared.thresholds import (
    BelowThreshold,
    Threshold,
    bounded_threshold,
    parse_threshold_spec,
)
from ragcov_tui.store.eval_contract import EvalReport


@dataclass(frozen=True)
class Regression:
    metric: str
    baseline: float
    current: float

    @property
    def drop(self) -> float:
        return self.baseline - self.current

    def __str__(self) -> str:
        return f"{self.metric}: {self.baseline:.4f} → {self.current:.4f} (drop {self.drop:.4f})"


@dataclass(frozen=True)
class GateCheck:
    """One ``--fail-under`` gate as it was decided: ``exact`` or judged, the figure compared and why that one."""

    metric: str
    minimum: float
    exact: bool
    compared: float | None  # the figure held against the minimum (None: nothing to compare: fails)
    basis: str  # "mean 0.712", "95% lower bound 0.61 of the judge-corrected 0.70 (…)"

    @property
    def passed(self) -> bool:
        return self.compared is not None and self.compared >= self.minimum

    def __str__(self) -> str:
        kind = "exact" if self.exact else "judged"
        return f"{self.metric} >= {self.minimum:g} ({kind}): {self.basis} — {'passed' if self.passed else 'failed'}"


@dataclass
class GateResult:
    regressions: list[Regression] = field(default_factory=list)
    below: list[BelowThreshold] = field(default_factory=list)
    checks: list[GateCheck] = field(default_factory=list)

    def summary(self) -> list[str]:
        """One line per ``--fail-under`` gate: exact or judged, the figure compared, passed or failed."""
        return [f"gate {c}" for c in self.checks]

    @property
    def failed(self) -> bool:
        return bool(self.regressions or self.below)

    def lines(self) -> list[str]:
        """One human line per failure."""
        return [f"regression {r}" for r in self.regressions] + [f"fail-under {b}" for b in self.below]

    def to_dict(self) -> JsonObject:
        return {
            "failed": self.failed,
            "regressions": [
                {"metric": r.metric, "baseline": r.baseline, "current": r.current, "drop": r.drop}
                for r in self.regressions
            ],
            "below": [{"metric": b.metric, "minimum": b.minimum, "current": b.current} for b in self.below],
            "gates": [
                {
                    "metric": c.metric,
                    "minimum": c.minimum,
                    "kind": "exact" if c.exact else "judged",
                    "compared": c.compared,
                    "basis": c.basis,
                    "passed": c.passed,
                }
                for c in self.checks
            ],
        }


def metric_means(report: EvalReport) -> dict[str, float | None]:
    """``{metric: mean}`` over both groups of ``report["aggregate"]``."""
    out: dict[str, float | None] = {}
    aggregate = report.get("aggregate", {})
    for group in (aggregate.get("retrieval"), aggregate.get("generation")):
        for name, stats in (group or {}).items():
            mean = stats.get("mean") if isinstance(stats, dict) else stats
            out[name] = float(mean) if isinstance(mean, (int, float)) and math.isfinite(mean) else None
    return out


def find_regressions(baseline: EvalReport, current: EvalReport, max_drop: float = 0.05) -> list[Regression]:
    """Metrics whose mean fell by more than ``max_drop`` from ``baseline`` to ``current``."""
    if max_drop < 0:
        raise BadInput(f"--max-drop: must be >= 0, got {max_drop}")
    before, after = metric_means(baseline), metric_means(current)
    found = [
        Regression(m, was, now) for m, now in after.items() if (was := before.get(m)) is not None and now is not None
    ]
    return [r for r in found if r.drop > max_drop + 1e-12]


def parse_fail_under(specs: Iterable[str], k: int) -> list[Threshold]:
    """``["ndcg@5=0.6", "faithfulness=0.8"]`` → thresholds; BadInput on a bad spec or metric."""
    out = []
    for spec in specs:
        name, minimum = parse_threshold_spec(spec, f"ndcg@{k}=0.6")
        metric = canonical_metric(name, k, where=f"--fail-under {spec!r}")[1]
        out.append(bounded_threshold(spec, metric, minimum, 0.0, 1.0))  # every eval metric is a score in [0, 1]
    return out


def _item_scores(report: EvalReport, metric: str) -> list[float]:
    return [
        float(v)
        for q in report.get("questions") or []
        if q.get("status") == "done"
        and isinstance(v := (q.get("generation") or {}).get(metric), (int, float))
        and math.isfinite(v)
    ]


def decide_gate(report: EvalReport, threshold: Threshold, alignment: Alignment | None) -> GateCheck:
    """The figure ``threshold`` is held against (see the module doc), with the words that say which."""
    metric, mean = threshold.metric, metric_means(report).get(threshold.metric)
    shown = "not measured" if mean is None else f"mean {mean:.4f}"
    if metric not in JUDGED_METRICS:
        return GateCheck(metric, threshold.minimum, True, mean, shown)
    aligned = alignment.of(metric) if alignment is not None else None
    if aligned is not None:
        est = aligned.corrected.estimate
        if est.value is None or est.low is None:
            why = est.why or "no interval"
            return GateCheck(metric, threshold.minimum, False, None, f"{shown}; judge-corrected undefined ({why})")
        return GateCheck(
            metric,
            threshold.minimum,
            False,
            est.low,
            f"95% lower bound {est.low:.4f} of the judge-corrected {est.value:.4f} ({aligned.n} labels; {shown})",
        )
    repeats = int(report.get("repeats") or 1)
    if repeats > 1 and mean is not None:
        low, _ = bootstrap_mean(_item_scores(report, metric))
        if low is not None:
            return GateCheck(
                metric,
                threshold.minimum,
                False,
                low,
                f"95% lower bound {low:.4f} of the {shown} (bootstrap over items, {repeats} repeats)",
            )
    return GateCheck(
        metric,
        threshold.minimum,
        False,
        mean,
        f"{shown} (no interval: give --repeats N or label items and run ragcov align)",
    )


def check_gates(
    report: EvalReport,
    *,
    baseline: EvalReport | None = None,
    max_drop: float = 0.05,
    fail_under: Sequence[str] = (),
    alignment: Alignment | None = None,
) -> GateResult:
    """Every gate the user asked for, on the finished ``report`` (``alignment``: the session's, if labelled)."""
    thresholds = parse_fail_under(fail_under, int(report.get("k", DEFAULT_K)))
    checks = [decide_gate(report, t, alignment) for t in thresholds]
    below = [BelowThreshold(c.metric, c.minimum, c.compared) for c in checks if not c.passed]
    return GateResult(
        regressions=find_regressions(baseline, report, max_drop) if baseline is not None else [],
        below=below,
        checks=checks,
    )


def load_baseline(db: sqlite_utils.Database, ref: str) -> EvalReport:
    """The report named by ``--baseline`` (or a ``compare`` side): a session ref or an ``eval --json`` file."""
    return read_eval_report(db, ref)


def _value(question: Mapping[str, Any], metric: str) -> float | None:
    value = {**(question.get("retrieval") or {}), **(question.get("generation") or {})}.get(metric)
    return float(value) if isinstance(value, (int, float)) else None


def question_line(question: Mapping[str, Any], metric: str) -> str:
    """``q3  recall@10=0.0000  'the question'  retrieved: d1, d7`` (or the question's error), one line."""
    value = _value(question, metric)
    if question.get("status") not in (None, "done"):
        reason = f"not scored: {question.get('error') or question.get('status')}"
    else:
        reason = f"{metric}={'not measured' if value is None else f'{value:.4f}'}"
    retrieved = ", ".join(str(r.get("id")) for r in question.get("retrieved") or ()) or "nothing"
    return visible_line(f"{question.get('id')}  {reason}  {question.get('question') or ''!r}  retrieved: {retrieved}")


def questions_below(report: EvalReport, metric: str, minimum: float) -> list[Mapping[str, Any]]:
    """The questions whose ``metric`` is below ``minimum``, lowest first (then by id)."""
    scored = [(v, str(q.get("id")), q) for q in report.get("questions") or () if (v := _value(q, metric)) is not None]
    return [q for v, _, q in sorted(scored, key=lambda t: (t[0], t[1])) if v < minimum]


def questions_dropped(baseline: EvalReport, current: EvalReport, metric: str) -> list[tuple[float, Mapping[str, Any]]]:
    """``(drop, question)`` for the questions (paired by id) whose ``metric`` fell, largest drop first."""
    before = {str(q.get("id")): v for q in baseline.get("questions") or () if (v := _value(q, metric)) is not None}
    dropped = [
        (was - now, q)
        for q in current.get("questions") or ()
        if (now := _value(q, metric)) is not None and (was := before.get(str(q.get("id")))) is not None and now < was
    ]
    return sorted(dropped, key=lambda t: -t[0])


def junit_cases(
    report: EvalReport,
    *,
    baseline: EvalReport | None = None,
    max_drop: float = 0.05,
    fail_under: Sequence[str] = (),
    alignment: Alignment | None = None,
) -> list[TestCase]:
    """``eval --junit``: one test case per gate (each ``--fail-under``, each metric compared with
    ``--baseline``) decided as :func:`check_gates` decides them; a failed one lists its questions,
    one line each with the reason."""
    gates = check_gates(report, baseline=baseline, max_drop=max_drop, fail_under=fail_under, alignment=alignment)
    below = {b.metric: b for b in gates.below}
    cases = []
    for t in parse_fail_under(fail_under, int(report.get("k", DEFAULT_K))):
        failed = below.get(t.metric)
        lines = [question_line(q, t.metric) for q in questions_below(report, t.metric, t.minimum)]
        cases.append(
            TestCase(
                f"fail-under {t.metric}={t.minimum:g}",
                "ragcov.eval.fail_under",
                failure=str(failed) if failed else None,
                failure_type="fail-under",
                detail=f"{failed}\n{len(lines)} questions below {t.minimum:g}:\n" + "\n".join(lines),
            )
        )
    if baseline is not None:
        regressed = {r.metric: r for r in gates.regressions}
        before, after = metric_means(baseline), metric_means(report)
        for metric in [m for m, now in after.items() if now is not None and before.get(m) is not None]:
            failed_r = regressed.get(metric)
            lines = [
                f"drop {drop:.4f}  " + question_line(q, metric)
                for drop, q in questions_dropped(baseline, report, metric)
            ]
            cases.append(
                TestCase(
                    f"regression {metric} (max drop {max_drop:g})",
                    "ragcov.eval.baseline",
                    failure=str(failed_r) if failed_r else None,
                    failure_type="regression",
                    detail=f"{failed_r}\n{len(lines)} questions fell:\n" + "\n".join(lines),
                )
            )
    return cases
