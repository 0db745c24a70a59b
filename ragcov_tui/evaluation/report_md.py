"""The human report of an evaluation (``ragcov eval --markdown FILE``), built from the JSON report.

Aggregates may be plain numbers or ``{mean, std, n}`` dicts; undefined values print as ``n/a``.
Generation scores from the offline heuristics are labelled as such in the heading. Untrusted text
(system spec, judge, question ids) is escaped like the coverage report's, and the whole report
passes through :func:`~ragcov_tui.safe_text.visible`.
"""

from __future__ import annotations

from typing import Any

from ragcov_tui.evaluation.scope import scope_line
from ragcov_tui.markdown import cell, code, fmt, table
from ragcov_tui.safe_text import visible
from ragcov_tui.store.eval_contract import EvalReport


def _aggregate_rows(group: dict[str, Any]) -> list[list[Any]]:
    rows = []
    for name, value in group.items():
        if isinstance(value, dict):
            rows.append([name, fmt(value.get("mean")), fmt(value.get("std")), value.get("n", "")])
        else:
            rows.append([name, fmt(value), "", ""])
    return rows


def eval_markdown(report: EvalReport) -> str:
    """Render an ``eval --json`` report as Markdown: aggregates, diagnoses, per-question table."""
    agg = report.get("aggregate", {})
    judge = report.get("judge", "heuristic")
    lines = [
        f"# RAG evaluation — session {cell(report.get('session_id', '?'))}",
        "",
        f"System {code(report.get('system'))}, k = {cell(report.get('k'))}, generation judged by {code(judge)}"
        + (" (offline heuristics, not an LLM judge)" if "heuristic" in str(judge) else "") + ".",
        "",
        "## Retrieval",
        "",
        *table(["metric", "mean", "spread", "n"], _aggregate_rows(agg.get("retrieval", {}))),
        "",
        "## Generation",
        "",
        *table(["metric", "mean", "spread", "n"], _aggregate_rows(agg.get("generation", {}))),
        "",
    ]
    if scope := scope_line(report.get("scope")):
        lines += ["## Out of scope", "", cell(scope), ""]
    questions = report.get("questions", [])
    if questions:
        gen_names = sorted({k for q in questions for k in (q.get("generation") or {})})[:6]
        ret_names = [n for n in (f"hit@{report.get('k')}", f"ndcg@{report.get('k')}", "mrr")
                     if any(n in (q.get("retrieval") or {}) for q in questions)]
        rows = []
        for q in questions:
            ret, gen = q.get("retrieval") or {}, q.get("generation") or {}
            rows.append([q.get("id"), q.get("diagnosis", ""), *(fmt(ret.get(n)) for n in ret_names),
                         *(fmt(gen.get(n)) for n in gen_names)])
        lines += ["## Per question", "", *table(["id", "diagnosis", *ret_names, *gen_names], rows), ""]
    return visible("\n".join(lines))
