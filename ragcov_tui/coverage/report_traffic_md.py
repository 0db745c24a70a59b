"""The Markdown section of an analysis run with ``--traffic`` (appended to ``analyze --markdown``).

Built from the report's ``traffic`` section (:mod:`ragcov_tui.coverage.traffic`): the log, the
traffic clusters by priority with example queries and counts, the content gap (queries the corpus
cannot answer) and the tests nobody asks, each with the rule that set its threshold. Text goes
through :func:`~ragcov_tui.markdown.cell` and the whole section through
:func:`~ragcov_tui.safe_text.visible`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ragcov_tui.coverage.report_md import cell, fmt, pct, table
from ragcov_tui.number_text import count
from ragcov_tui.safe_text import visible
from ragcov_tui.store.analysis_contract import AnalysisReport
from ragcov_tui.store.traffic_contract import TrafficSection

EXAMPLES_SHOWN = 3


def examples_text(examples: Sequence[Mapping[str, Any]], shown: int = EXAMPLES_SHOWN) -> str:
    """``"how do I restore a deleted page" ×114; …`` for the first ``shown`` examples."""
    return "; ".join(f"\u201c{e.get('text', '')}\u201d \u00d7{e.get('count')}" for e in examples[:shown])


def source_line(traffic: TrafficSection) -> str:
    """``sample_data/traffic.jsonl: 1,722 queries (55 distinct) in 80 rows, 2026-01-01 to 2026-01-31``."""
    src = traffic.get("source", {})
    span = f", {str(src['first'])[:10]} to {str(src['last'])[:10]}" if src.get("first") else ""
    return (f"{src.get('path')}: {src.get('queries', 0):,} queries ({src.get('distinct', 0):,} distinct)"
            f" in {src.get('rows', 0):,} rows{span}")


def traffic_markdown(report: AnalysisReport) -> str:
    """The section (empty when the report has no traffic)."""
    traffic = report.get("traffic")
    if not traffic:
        return ""
    gap, unasked, untested = traffic.get("content_gap", {}), traffic.get("unasked_questions", {}), traffic.get("untested", {})
    lines = ["", "## Traffic coverage", "",
             f"Log {cell(source_line(traffic))}. Answerable traffic covered by the test set: "
             f"{fmt(traffic.get('coverage'))}; untested traffic: {pct(traffic.get('untested_share'))}; the corpus "
             f"cannot answer {pct(gap.get('share'))}.",
             "", "### Traffic clusters (highest priority first: answerable share × (1 − coverage))", ""]
    lines += table(["cluster", "share", "coverage", "priority", "untested", "most asked", "nearest test questions"],
                   [[c.get("id"), pct(c.get("share")), fmt(c.get("coverage")), fmt(c.get("priority")),
                     "yes" if c.get("untested") else "", examples_text(c.get("examples") or []),
                     ", ".join(q.get("id", "") for q in c.get("nearest_questions") or [])]
                    for c in traffic.get("clusters", [])])
    lines += ["", f"Untested: {cell(untested.get('rule', ''))}."]
    lines += ["", "### Queries the corpus cannot answer (a content gap, not a test gap)", "",
              f"{count(gap.get('queries', 0))} distinct queries, {count(gap.get('count', 0))} asked ({pct(gap.get('share'))}); "
              f"rule: {cell(gap.get('rule', ''))}.", ""]
    rows = [[e.get("text"), e.get("count"), fmt(e.get("similarity")), e.get("nearest_chunk")] for e in gap.get("examples", [])]
    lines += table(["query", "count", "similarity", "nearest chunk"], rows) if rows else ["None."]
    lines += ["", "### Tests nobody asks", "", f"Rule: {cell(unasked.get('rule', ''))}.", ""]
    rows = [[q.get("id"), fmt(q.get("similarity")), q.get("text"), q.get("nearest_query")] for q in unasked.get("questions", [])]
    lines += table(["question", "similarity", "text", "nearest query"], rows) if rows else ["None."]
    return visible("\n".join(lines) + "\n")
