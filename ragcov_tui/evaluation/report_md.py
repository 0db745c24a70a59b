"""The human report of an evaluation (``ragcov eval --markdown FILE``), built from the JSON report.

Aggregates may be plain numbers or ``{mean, std, n}`` dicts; undefined values print as ``n/a``.
Generation scores from the offline heuristics are labelled as such in the heading. Untrusted text
(system spec, judge, question ids) is escaped like the coverage report's, and the whole report
passes through :func:`~ragcov_tui.shared.safe_text.visible`.
"""

from __future__ import annotations

from typing import Any

from ragcov_tui.evaluation.judge_alignment import ALIGNMENT_COLUMNS, alignment_rows, corrected_lines
from ragcov_tui.evaluation.references import synthetic_text
from ragcov_tui.evaluation.scope import scope_line
from ragcov_tui.shared.json_types import JsonObject
from ragcov_tui.shared.markdown import cell, code, fmt, table
from ragcov_tui.shared.safe_text import visible
from ragcov_tui.store.eval_contract import EvalReport


def _aggregate_rows(group: JsonObject) -> list[list[Any]]:
    rows = []
    for name, value in group.items():
        if isinstance(value, dict):
            rows.append([name, fmt(value.get("mean")), fmt(value.get("std")), value.get("n", "")])
        else:
            rows.append([name, fmt(value), "", ""])
    return rows


def _alignment_section(report: EvalReport) -> list[str]:
    """The judge against the session's labels, and the judged means beside their judge-corrected
    estimates (nothing without labels)."""
    section = report.get("judge_alignment")
    if not section:
        return []
    lines = [
        "## Can I trust the judge?",
        "",
        f"{section.get('labels', 0)} labels; 95% intervals (Wilson for the rates, seeded bootstrap for the rest).",
        "",
        *table(ALIGNMENT_COLUMNS, alignment_rows(section)),
        "",
    ]
    lines += [f"- {code(metric)}: {cell(m.get('verdict'))}" for metric, m in (section.get("metrics") or {}).items()]
    lines += [f"- {code(metric)}: {cell(line)}" for metric, line in corrected_lines(report)]
    return [*lines, ""]


def eval_markdown(report: EvalReport) -> str:
    """Render an ``eval --json`` report as Markdown: aggregates, diagnoses, per-question table."""
    agg = report.get("aggregate", {})
    judge = report.get("judge", "heuristic")
    lines = [
        f"# RAG evaluation — session {cell(report.get('session_id', '?'))}",
        "",
        f"System {code(report.get('system'))}, k = {cell(report.get('k'))}, generation judged by {code(judge)}"
        + (" (offline heuristics, not an LLM judge)" if "heuristic" in str(judge) else "")
        + ".",
        "",
        *(
            [f"**{cell(synthetic_text(synthetic, (report.get('counts') or {}).get('questions', 0)))}**", ""]
            if (synthetic := report.get("synthetic_references"))
            else []
        ),
        "## Retrieval",
        "",
        *table(["metric", "mean", "spread", "n"], _aggregate_rows(agg.get("retrieval", {}))),
        "",
        "## Generation",
        "",
        *table(["metric", "mean", "spread", "n"], _aggregate_rows(agg.get("generation", {}))),
        "",
        *_alignment_section(report),
    ]
    if scope := scope_line(report.get("scope")):
        lines += ["## Out of scope", "", cell(scope), ""]
    questions = report.get("questions", [])
    if questions:
        gen_names = sorted({k for q in questions for k in (q.get("generation") or {})})[:6]
        ret_names = [
            n
            for n in (f"hit@{report.get('k')}", f"ndcg@{report.get('k')}", "mrr")
            if any(n in (q.get("retrieval") or {}) for q in questions)
        ]
        rows = []
        for q in questions:
            ret, gen = q.get("retrieval") or {}, q.get("generation") or {}
            rows.append(
                [
                    q.get("id"),
                    q.get("diagnosis", ""),
                    *(fmt(ret.get(n)) for n in ret_names),
                    *(fmt(gen.get(n)) for n in gen_names),
                ]
            )
        lines += ["## Per question", "", *table(["id", "diagnosis", *ret_names, *gen_names], rows), ""]
    return visible("\n".join(lines))
