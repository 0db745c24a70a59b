"""The terminal summary of an analysis's traffic coverage (``ragcov analyze --traffic``, ``ragcov report``).

A table of the traffic clusters by priority (share, coverage, an example query and its count),
then one line each for the content gap and the tests nobody asks. Every value goes through
:func:`~ragcov_tui.cli.safe_console.plain_line` (control characters visible, markup literal).
"""

from __future__ import annotations

from rich.console import Console, JustifyMethod
from rich.table import Table

from ragcov_tui.cli.safe_console import plain_line
from ragcov_tui.coverage.report_md import fmt, pct
from ragcov_tui.coverage.report_traffic_md import examples_text, source_line
from ragcov_tui.number_text import count
from ragcov_tui.store.analysis_contract import AnalysisReport

CLUSTERS_SHOWN = 5
LISTED = 3


def print_traffic(console: Console, report: AnalysisReport) -> None:
    """Nothing when the report has no ``traffic`` section."""
    traffic = report.get("traffic")
    if not traffic:
        return
    console.print(plain_line(f"Traffic {source_line(traffic)}: answerable traffic covered {fmt(traffic.get('coverage'))}, "
                             f"untested {pct(traffic.get('untested_share'))}"))
    t = Table(title="Traffic clusters (highest priority first)", title_justify="left")
    columns: list[tuple[str, JustifyMethod]] = [("cluster", "right"), ("share", "right"), ("coverage", "right"),
                                                ("untested", "left"), ("most asked", "left")]
    for col, justify in columns:
        t.add_column(col, justify=justify)
    for c in traffic.get("clusters", [])[:CLUSTERS_SHOWN]:
        t.add_row(plain_line(c.get("id")), pct(c.get("share")), fmt(c.get("coverage")), "yes" if c.get("untested") else "",
                  plain_line(examples_text(c.get("examples") or [], 2)))
    console.print(t)
    gap = traffic.get("content_gap", {})
    shown = "; ".join(f"{e.get('text')} ×{e.get('count')}" for e in gap.get("examples", [])[:LISTED])
    console.print(plain_line(f"traffic the corpus cannot answer: {count(gap.get('queries', 0))} queries ({pct(gap.get('share'))})"
                             + (f": {shown}" if shown else "")))
    unasked = traffic.get("unasked_questions", {}).get("questions", [])
    ids = ", ".join(q.get("id", "") for q in unasked[:10]) + (" …" if len(unasked) > 10 else "")
    console.print(plain_line(f"tests nobody asks: {len(unasked)}" + (f" ({ids})" if unasked else "")))
