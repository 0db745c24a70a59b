"""The terminal summary of an analysis's traffic coverage (``ragcov analyze --traffic``, ``ragcov report``).

A table of the traffic clusters by priority (share, coverage, an example query and its count),
then one line each for the content gap and the tests nobody asks; then the traffic health: one line
for all traffic, a table per cluster, one line per hotspot (where unhappy traffic concentrates) and
per ``--window``. Every value goes through
:func:`~ragcov_tui.cli.safe_console.plain_line` (control characters visible, markup literal).
"""

from __future__ import annotations

from rich.console import Console, JustifyMethod
from rich.table import Table

from ragcov_tui.cli.safe_console import plain_line
from ragcov_tui.coverage.report_md import fmt, pct
from ragcov_tui.coverage.report_traffic_md import examples_text, ms_text, rate_text, selection_text, source_line
from ragcov_tui.coverage.traffic_health import hotspot_line
from ragcov_tui.shared.number_text import count
from ragcov_tui.store.analysis_contract import AnalysisReport
from ragcov_tui.store.traffic_contract import HealthEntry, TrafficSection

CLUSTERS_SHOWN = 5
LISTED = 3


def print_traffic(console: Console, report: AnalysisReport) -> None:
    """Nothing when the report has no ``traffic`` section."""
    traffic = report.get("traffic")
    if not traffic:
        return
    console.print(
        plain_line(
            f"Traffic {source_line(traffic)}: answerable traffic covered {fmt(traffic.get('coverage'))}, "
            f"untested {pct(traffic.get('untested_share'))}"
        )
    )
    t = Table(title="Traffic clusters (highest priority first)", title_justify="left")
    columns: list[tuple[str, JustifyMethod]] = [
        ("cluster", "right"),
        ("share", "right"),
        ("coverage", "right"),
        ("untested", "left"),
        ("most asked", "left"),
    ]
    for col, justify in columns:
        t.add_column(col, justify=justify)
    for c in traffic.get("clusters", [])[:CLUSTERS_SHOWN]:
        t.add_row(
            plain_line(c.get("id")),
            pct(c.get("share")),
            fmt(c.get("coverage")),
            "yes" if c.get("untested") else "",
            plain_line(examples_text(c.get("examples") or [], 2)),
        )
    console.print(t)
    gap = traffic.get("content_gap", {})
    shown = "; ".join(f"{e.get('text')} ×{e.get('count')}" for e in gap.get("examples", [])[:LISTED])
    console.print(
        plain_line(
            f"traffic the corpus cannot answer: {count(gap.get('queries', 0))} queries ({pct(gap.get('share'))})"
            + (f": {shown}" if shown else "")
        )
    )
    unasked = traffic.get("unasked_questions", {}).get("questions", [])
    ids = ", ".join(q.get("id", "") for q in unasked[:10]) + (" …" if len(unasked) > 10 else "")
    console.print(plain_line(f"tests nobody asks: {len(unasked)}" + (f" ({ids})" if unasked else "")))
    print_health(console, traffic)


def health_line(h: HealthEntry) -> str:
    """``p50 959 ms, p95 1,598 ms, zero results 2.8% [1.5–4.9%], …`` of one set of rows."""
    return (
        f"p50 {ms_text(h, 'p50', False)}, p95 {ms_text(h, 'p95', False)}, zero results "
        f"{rate_text(h['zero_results'])}, low relevance {rate_text(h['low_relevance'])}, negative feedback "
        f"{rate_text(h['negative_feedback'])}"
    )


def print_health(console: Console, traffic: TrafficSection) -> None:
    """The health figures (nothing for a report stored before traffic health)."""
    health = traffic.get("health")
    if not health:
        return
    overall = health["overall"]
    console.print(
        plain_line(
            f"traffic health of {selection_text(health)} ({overall['queries']:,} queries): " + health_line(overall)
        )
    )
    t = Table(title="Traffic health per cluster (95% intervals in the JSON and Markdown reports)", title_justify="left")
    for col in ("cluster", "queries", "p95", "zero", "low rel", "neg fb", "coverage"):
        t.add_column(col, justify="left" if col == "coverage" else "right")
    for c in traffic.get("clusters", []):
        h = c.get("health")
        if h is not None:
            t.add_row(
                plain_line(c.get("id")),
                f"{h['queries']:,}",
                ms_text(h, "p95", False),
                rate_text(h["zero_results"], False),
                rate_text(h["low_relevance"], False),
                rate_text(h["negative_feedback"], False),
                fmt(c.get("coverage")) + (" untested" if c.get("untested") else ""),
            )
    console.print(t)
    console.print(plain_line(f"low relevance: {health['low_relevance']['rule']}"))
    for spot in health.get("hotspots") or []:
        console.print(plain_line("unhappy traffic: " + hotspot_line(spot, traffic.get("clusters", []), overall)))
    for w in (health.get("windows") or [])[1:]:
        console.print(
            plain_line(
                f"previous window {w['start'][:16]} to {w['end'][:16]} ({w['queries']:,} queries): " + health_line(w)
            )
        )
