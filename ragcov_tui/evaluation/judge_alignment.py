"""A stored eval session's judge alignment: its labels against its judge scores, and the reports
that carry it.

:func:`session_alignment` reads the session's labels (:mod:`ragcov_tui.store.labels`) and its done
items' generation scores and hands them to :func:`ragcov_tui.evaluation.alignment.align`;
:func:`with_alignment` adds the result to an ``eval --json`` report as ``judge_alignment``, which
every report format then shows beside the judged means (the CLI table, Markdown, the app).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import sqlite_utils

from ragcov_tui.evaluation.alignment import CERTIFY_AT, Alignment, align
from ragcov_tui.evaluation.generation.registry import GENERATION_METRICS, JUDGED_METRICS
from ragcov_tui.shared.json_types import JsonObject
from ragcov_tui.store.eval_contract import EvalReport
from ragcov_tui.store.evals import load_eval_items, load_eval_report
from ragcov_tui.store.labels import session_labels
from ragcov_tui.store.queries import eval_metric_keys


def judged_metrics(db: sqlite_utils.Database, sid: str) -> list[str]:
    """The session's generation metrics a judge scores (the ones a person can label), in registry order."""
    measured = set(eval_metric_keys(db, sid)["generation"])
    return [m for m in GENERATION_METRICS if m in JUDGED_METRICS and m in measured]


def session_alignment(db: sqlite_utils.Database, sid: str, *, certify_at: float = CERTIFY_AT) -> Alignment | None:
    """The alignment of session ``sid``'s judge with its labels; None when it has no label."""
    labels = session_labels(db, sid)
    if not labels:
        return None
    scores = {item["id"]: item.get("generation") or {} for item in load_eval_items(db, sid, status="done")}
    return align(scores, [(x.question_id, x.metric, x.label) for x in labels], certify_at=certify_at)


def with_alignment(report: EvalReport, alignment: Alignment | None) -> EvalReport:
    """``report`` with its ``judge_alignment`` section (unchanged when there is no alignment)."""
    if alignment is not None and alignment.metrics:
        report["judge_alignment"] = alignment.to_dict()
    return report


def aligned_report(db: sqlite_utils.Database, sid: str) -> EvalReport:
    """The stored report of ``sid`` with its judge alignment, as ``ragcov report`` writes it."""
    return with_alignment(load_eval_report(db, sid), session_alignment(db, sid))


def corrected_lines(report: Mapping[str, Any]) -> list[tuple[str, str]]:
    """``(metric, "judged mean … → corrected …")`` for each aligned metric of a report (none without)."""
    section = report.get("judge_alignment") or {}
    out = []
    for metric, m in (section.get("metrics") or {}).items():
        c = m.get("corrected") or {}
        est = c.get("corrected") or {}
        mean, q = c.get("judged_mean"), c.get("pass_share")
        judged = "n/a" if mean is None else f"{mean:.3f}"
        share = "" if q is None else f" (pass share {q:.3f})"
        if est.get("value") is None:
            fixed = f"n/a ({est.get('why') or 'undefined'})"
        else:
            interval = "" if est.get("low") is None else f" [{est['low']:.3f}, {est['high']:.3f}]"
            fixed = f"{est['value']:.3f}{interval}"
        labels = f"{m.get('n', 0)} labels, {'certified' if m.get('certified') else 'not certified'}"
        out.append((metric, f"judged mean {judged}{share} → judge-corrected {fixed} ({labels})"))
    return out


ALIGNMENT_COLUMNS = ["metric", "labels (yes/no)", "TPR", "TNR", "balanced acc.", "kappa", "ROC-AUC", "best cut"]


def _two(x: float) -> str:
    """Two decimals, never ``-0.00``."""
    text = f"{x:.2f}"
    return "0.00" if text == "-0.00" else text


def _cell(estimate: JsonObject | None) -> str:
    e = estimate or {}
    if e.get("value") is None:
        return "n/a"
    low, high = e.get("low"), e.get("high")
    return _two(e["value"]) + ("" if low is None or high is None else f" [{_two(low)}, {_two(high)}]")


def alignment_rows(section: JsonObject) -> list[list[str]]:
    """One row per metric under :data:`ALIGNMENT_COLUMNS` (each figure with its 95% interval), from
    the report's ``judge_alignment`` section: the CLI table, the Markdown report and the app read it."""
    rows = []
    for metric, m in (section.get("metrics") or {}).items():
        best = m.get("best_threshold")
        cut = "n/a" if best is None else f">= {best:.2f} (bal. {m['best_balanced_accuracy']:.2f})"
        rows.append(
            [
                metric,
                f"{m.get('n', 0)} ({m.get('positives', 0)}/{m.get('negatives', 0)})",
                _cell(m.get("tpr")),
                _cell(m.get("tnr")),
                _cell(m.get("balanced_accuracy")),
                _cell(m.get("kappa")),
                _cell(m.get("roc_auc")),
                cut,
            ]
        )
    return rows


def confusion_lines(m: JsonObject) -> list[str]:
    """The confusion matrix of one metric as three aligned lines (judge verdict across, label down)."""
    c = m.get("confusion") or {}
    t = m.get("threshold", 0.5)
    return [
        f"{'':>10}  {'judge pass':>10}  {'judge fail':>10}   (pass: score >= {t:g})",
        f"{'label yes':>10}  {c.get('tp', 0):>10}  {c.get('fn', 0):>10}",
        f"{'label no':>10}  {c.get('fp', 0):>10}  {c.get('tn', 0):>10}",
    ]


def calibration_lines(m: JsonObject) -> list[str]:
    """One line per score bin: its items and the share people labelled yes."""
    out = []
    for b in m.get("calibration") or []:
        share = "—" if b.get("yes_share") is None else f"{b['yes_share']:.2f}"
        close = "]" if b.get("high", 0) >= 1 else ")"
        out.append(f"score [{b['low']:.1f}, {b['high']:.1f}{close}  n {b['n']:>4}  labelled yes {share}")
    return out
