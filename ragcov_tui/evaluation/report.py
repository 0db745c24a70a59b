"""The session-level part of an eval report: aggregates, counts, errors, headline summary; and
:func:`read_eval_report`, which reads a report back from a session or an ``eval --json`` file.

Aggregates are computed over the items whose status is ``done``; each metric reports
``{"mean", "std", "n"}`` where ``n`` counts the items on which the metric is defined (a retrieval
metric needs gold ids; a generation metric may be undefined or its judge may have failed) and
``std`` is the population standard deviation across those items. With ``--repeats N > 1`` a
generation metric also reports ``judge_spread``: the mean over items of the std of its N
re-judgements (how much the judge disagrees with itself).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import sqlite_utils

from ragcov_tui.evaluation.generation.registry import JUDGED_METRICS
from ragcov_tui.evaluation.retrieval import aggregate
from ragcov_tui.shared.errors import BadInput, Unreachable
from ragcov_tui.shared.input_files import path_problem, read_input_file
from ragcov_tui.shared.number_text import count
from ragcov_tui.store.eval_contract import (
    Aggregate,
    EvalHeadline,
    EvalReport,
    ItemCounts,
    ItemError,
    MetricStats,
    StoredItem,
)
from ragcov_tui.store.evals import load_eval_report
from ragcov_tui.store.sessions import resolve_session


def aggregate_items(
    items: Sequence[StoredItem], retrieval_metrics: Sequence[str], generation_metrics: Sequence[str], repeats: int = 1
) -> Aggregate:
    """``{"retrieval": {metric: stats}, "generation": {metric: stats}}`` over the done items."""
    done = [i for i in items if i["status"] == "done"]
    retrieval = aggregate(i.get("retrieval") or {} for i in done)
    generation = aggregate(i.get("generation") or {} for i in done)
    empty: MetricStats = {"mean": None, "n": 0, "std": None}
    out: Aggregate = {
        "retrieval": {m: retrieval.get(m, empty) for m in retrieval_metrics},
        "generation": {m: MetricStats(**generation.get(m, empty)) for m in generation_metrics},
    }
    if repeats > 1:
        for metric, stats in out["generation"].items():
            spreads = [
                spread[metric]
                for i in done
                if (i.get("generation") or {}).get(metric) is not None and metric in (spread := i.get("spread") or {})
            ]
            stats["judge_spread"] = sum(spreads) / len(spreads) if spreads else None
    return out


def count_items(items: Sequence[StoredItem], total: int) -> ItemCounts:
    """How many questions were asked, finished, failed, had gold ids; levels and diagnoses."""
    return {
        "questions": total,
        "done": sum(1 for i in items if i["status"] == "done"),
        "errors": sum(1 for i in items if i["status"] == "error"),
        "with_gold": sum(1 for i in items if i.get("relevant_ranks") is not None),
        "levels": dict(Counter(level for i in items if (level := i.get("level")))),
        "diagnosis": dict(Counter(i.get("diagnosis") or "undetermined" for i in items)),
    }


def item_errors(items: Sequence[StoredItem]) -> list[ItemError]:
    """Every failure in test-file order, one entry each: each metric whose judgement failed on an
    item (``{id, metric, error}``), else the item's own failure (``{id, error}``)."""
    out: list[ItemError] = []
    for i in items:
        metric_errors: list[ItemError] = [
            {"id": i["id"], "metric": m, "error": e} for m, e in sorted((i.get("errors") or {}).items())
        ]
        error = i.get("error")
        out += metric_errors or ([{"id": i["id"], "error": error}] if error else [])
    return out


def eval_headline(report: EvalReport) -> EvalHeadline:
    """The figures stored in ``sessions.summary``: metric means and ``n``, counts, the judge."""
    groups = (("retrieval", report["aggregate"]["retrieval"]), ("generation", report["aggregate"]["generation"]))
    flat = {f"{group}.{m}": s["mean"] for group, metrics in groups for m, s in metrics.items()}
    n = {f"{group}.{m}": s["n"] for group, metrics in groups for m, s in metrics.items()}
    return {
        "k": report["k"],
        "system": report["system"],
        "judge": report["judge"],
        "means": flat,
        "n": n,
        "counts": report["counts"],
    }


def judge_label(judge: str | None, generation_metrics: Sequence[str] | None) -> str:
    """The judge a heading names: ``judge`` as set (``heuristic``, ``llm:<spec>``), or ``none
    (retrieval metrics only)`` when the run scored no generation metric, so judged nothing
    (``generation_metrics`` None: not known yet, e.g. a run without its report)."""
    if generation_metrics is not None and not generation_metrics:
        return "none (retrieval metrics only)"
    return judge or "heuristic"


def read_eval_report(db: sqlite_utils.Database, ref: str) -> EvalReport:
    """An eval report from a JSON file (``eval --json`` output) if ``ref`` is one, else a session."""
    path = Path(ref)
    problem = path_problem(path)  # never raises (a name too long, a loop of links) nor opens a FIFO
    if path.suffix.lower() == ".json" or problem is None:
        if problem is not None:
            raise BadInput(f"{ref}: {'no such report file' if problem == 'no such file' else problem}")
        try:
            data: EvalReport = json.loads(read_input_file(path, ref).decode("utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise BadInput(f"{ref}: not a JSON report ({exc})") from None
        if not isinstance(data, dict) or "aggregate" not in data:
            raise BadInput(f"{ref}: not an eval report (no 'aggregate' key)")
        return data
    return load_eval_report(db, resolve_session(db, ref, kind="eval")["id"])


def failure_note(report: Mapping[str, Any]) -> str | None:
    """``3 of 31 questions failed (first: q001: system: ConnectionError: …)``; None when none failed.
    Counts questions, however many of their metrics failed."""
    errors = report.get("errors") or []
    if not errors:
        return None
    failed = len({e.get("id") for e in errors})
    total = (report.get("counts") or {}).get("questions") or failed
    first = errors[0]
    where = f"{first.get('id')}: {first['metric']}" if first.get("metric") else f"{first.get('id')}"
    return f"{count(failed)} of {count(total)} question{'s' if total != 1 else ''} failed (first: {where}: {first.get('error')})"


def all_unreachable(report: Mapping[str, Any]) -> bool:
    """True when the report has errors and every one is an :class:`~ragcov_tui.shared.errors.Unreachable`
    (no server at the address a setting names)."""
    errors = [str(e.get("error", "")) for e in report.get("errors") or []]
    mark = f"{Unreachable.__name__}:"  # errors read "system: Unreachable: …" or "faithfulness: Unreachable: …"
    return bool(errors) and all(e.startswith(mark) or e.partition(": ")[2].startswith(mark) for e in errors)


def all_failed(report: Mapping[str, Any]) -> bool:
    """True when nothing was scored: every question failed (an unreachable system, a bad key…), or
    an LLM judge was asked and none of its judgements succeeded (every judged metric has n = 0
    while judgements failed)."""
    counts = report.get("counts") or {}
    if not counts.get("errors") and not report.get("errors"):
        return False
    if not counts.get("done"):
        return True
    judged = [
        stats
        for name, stats in ((report.get("aggregate") or {}).get("generation") or {}).items()
        if name in JUDGED_METRICS
    ]
    judge_failed = any(e.get("metric") in JUDGED_METRICS for e in report.get("errors") or [])
    return str(report.get("judge", "")).startswith("llm:") and judge_failed and not any(s.get("n") for s in judged)
