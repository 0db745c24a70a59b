"""The HTML page of an eval session: each metric with its interval, n and failures, histograms, the
per-question table (sortable, filterable by metric thresholds as in the app), each item's detail
(answer, retrieved contexts, claims with verdicts) on click, and the judge's alignment with people's
labels where the session has them (the figures ``ragcov align`` gives, and each judged mean beside
its judge-corrected estimate).

The interval of a metric's mean is the percentile bootstrap over its stored per-question values
(:func:`ragcov_tui.evaluation.compare.bootstrap_ci`, seed 0, 10,000 resamples): a reading of stored
values, not a new measurement.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

import numpy as np

from ragcov_tui import __version__
from ragcov_tui.evaluation.claim_verdicts import metric_claims
from ragcov_tui.evaluation.compare import bootstrap_ci
from ragcov_tui.evaluation.judge_alignment import ALIGNMENT_COLUMNS, alignment_rows, corrected_lines
from ragcov_tui.evaluation.report import failure_note, judge_label
from ragcov_tui.evaluation.run_notes import run_notes
from ragcov_tui.report_html.charts import embed, histogram_grid, library_scripts
from ragcov_tui.report_html.page import asset, render_page
from ragcov_tui.shared.input_values import is_finite_number
from ragcov_tui.shared.json_types import JsonObject
from ragcov_tui.store.eval_contract import EvalReport

GROUPS = ("retrieval", "generation")


def metric_groups(report: EvalReport) -> dict[str, str]:
    """Metric name → its group (``retrieval`` / ``generation``), in the report's order."""
    metrics: Any = report.get("metrics") or {}
    return {name: group for group in GROUPS for name in metrics.get(group) or []}


def question_scores(question: Any) -> JsonObject:
    """One question's stored values, retrieval and generation metrics together."""
    return {**(question.get("retrieval") or {}), **(question.get("generation") or {})}


def metric_values(report: EvalReport) -> dict[str, list[float]]:
    """Per metric (in the report's order), the finite per-question values of done items."""
    values: dict[str, list[float]] = {m: [] for m in metric_groups(report)}
    for q in report.get("questions") or []:
        for name, value in question_scores(q).items():
            if is_finite_number(value):
                values.setdefault(name, []).append(float(value))
    return values


def metric_rows(report: EvalReport, values: Mapping[str, list[float]]) -> list[JsonObject]:
    """One row per metric: group, mean, bootstrap interval, n, failed and undefined counts."""
    failed: dict[str, int] = {}
    undefined: dict[str, int] = {}
    for q in report.get("questions") or []:
        for name in q.get("errors") or {}:
            failed[name] = failed.get(name, 0) + 1
        for name in q.get("undefined") or {}:
            undefined[name] = undefined.get(name, 0) + 1
    groups = metric_groups(report)
    rows = []
    for name, vals in values.items():
        low, high = bootstrap_ci(np.asarray(vals)) if vals else (None, None)
        rows.append(
            {
                "metric": name,
                "group": groups.get(name, ""),
                "mean": float(np.mean(vals)) if vals else None,
                "low": low,
                "high": high,
                "n": len(vals),
                "failed": failed.get(name, 0),
                "undefined": undefined.get(name, 0),
            }
        )
    return rows


def _items(report: EvalReport, details: Mapping[str, Mapping[str, Any]], names: list[str]) -> list[JsonObject]:
    items = []
    for q in report.get("questions") or []:
        scores = question_scores(q)
        items.append(
            {
                "id": q.get("id"),
                "question": q.get("question") or "",
                "answer": q.get("answer"),
                "diagnosis": q.get("diagnosis") or q.get("status") or "",
                "error": q.get("error"),
                "scores": [(name, scores.get(name)) for name in names],
                "retrieved": q.get("retrieved") or [],
                "relevant_ranks": q.get("relevant_ranks"),
                "errors": q.get("errors") or {},
                "undefined": q.get("undefined") or {},
                "claims": metric_claims(details.get(str(q.get("id"))) or {}),
            }
        )
    return items


def eval_html(report: EvalReport, details: Mapping[str, Mapping[str, Any]]) -> str:
    """The page of one eval session; ``details``: each item's stored generation details by question id."""
    values = metric_values(report)
    rows = metric_rows(report, values)
    embedded = embed([histogram_grid(values)] if any(values.values()) else [])
    scripts = [*library_scripts(), embedded.script] if embedded.divs else []
    names = list(values)
    counts: Any = report.get("counts") or {}
    generation = (report.get("metrics") or {}).get("generation")
    notes = [n for n in [failure_note(report), report.get("retrieval_not_measured"), *run_notes(report)] if n]
    return render_page(
        "eval.html.j2",
        title=f"Evaluation report — session {report.get('session_id')}",
        scripts=[*scripts, asset("report.js")],
        version=__version__,
        made_from=str(report.get("session_id")),
        system=str(report.get("system")),
        judge=judge_label(report.get("judge"), generation),
        k=report.get("k"),
        question_count=counts.get("questions", len(report.get("questions") or [])),
        metric_rows=rows,
        histograms=list(embedded.divs),
        diagnosis=sorted((counts.get("diagnosis") or {}).items()),
        notes=notes,
        names=names,
        items=_items(report, details, names),
        alignment_columns=ALIGNMENT_COLUMNS,
        alignment_rows=alignment_rows(cast(dict, report.get("judge_alignment") or {})),
        corrected=corrected_lines(report),
    )
