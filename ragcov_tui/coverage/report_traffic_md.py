"""The Markdown section of an analysis run with ``--traffic`` (appended to ``analyze --markdown``).

Built from the report's ``traffic`` section (:mod:`ragcov_tui.coverage.traffic`): the log, the
traffic clusters by priority with example queries and counts, the content gap (queries the corpus
cannot answer) and the tests nobody asks, each with the rule that set its threshold; then the
traffic health (:mod:`ragcov_tui.coverage.traffic_health`): overall and per cluster with 95 %
intervals, where unhappy traffic concentrates, and the windows of ``--window``. Text goes
through :func:`~ragcov_tui.shared.markdown.cell` and the whole section through
:func:`~ragcov_tui.shared.safe_text.visible`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ragcov_tui.coverage.report_md import cell, fmt, pct, table
from ragcov_tui.coverage.traffic_health import RATE_NAMES, hotspot_line
from ragcov_tui.shared.number_text import count
from ragcov_tui.shared.safe_text import visible
from ragcov_tui.store.analysis_contract import AnalysisReport
from ragcov_tui.store.traffic_contract import HealthEntry, HealthSection, RateFigure, RateName, TrafficSection

EXAMPLES_SHOWN = 3
HEALTH_RATES: tuple[RateName, ...] = ("zero_results", "low_relevance", "negative_feedback", "positive_feedback")


def rate_text(figure: RateFigure | None, interval: bool = True) -> str:
    """``12.4% [9.1–16.0%]`` (``n/a`` where no row logs the figure)."""
    if not figure or figure.get("rate") is None:
        return "n/a"
    low_high = figure.get("interval")
    span = f" [{100 * low_high[0]:.1f}–{100 * low_high[1]:.1f}%]" if interval and low_high else ""
    return pct(figure.get("rate")) + span


def ms_text(entry: HealthEntry | None, which: str, interval: bool = True) -> str:
    """``p95`` latency as ``1,598 ms [1,598–4,184]`` (``n/a`` without latencies)."""
    latency: Mapping[str, Any] = entry["latency_ms"] if entry else {}
    value, span = latency.get(which), latency.get(f"{which}_interval")
    if value is None:
        return "n/a"
    return f"{value:,.0f} ms" + (f" [{span[0]:,.0f}–{span[1]:,.0f}]" if interval and span else "")


def selection_text(section: HealthSection) -> str:
    """Which rows the health figures cover: ``the whole log``, ``the last 7d (…)``, ``since … until …``."""
    sel = section.get("selection") or {}
    parts = [f"since {sel['since']}" if sel.get("since") else "", f"until {sel['until']}" if sel.get("until") else ""]
    windows = section.get("windows") or []
    if sel.get("window"):
        last = f" ({windows[0]['start'][:16]} to {windows[0]['end'][:16]})" if windows else ""
        parts.insert(0, f"the last {sel['window']} of the log{last}")
    text = ", ".join(p for p in parts if p)
    return text or "the whole log"


def health_markdown(traffic: TrafficSection) -> list[str]:
    """The health subsection (nothing for a report stored before traffic health)."""
    health = traffic.get("health")
    if not health:
        return []
    overall, clusters = health["overall"], traffic.get("clusters", [])
    lines = [
        "",
        "### Traffic health",
        "",
        f"Rows: {cell(selection_text(health))}; {overall['queries']:,} queries, "
        f"{health.get('sessions', 0):,} distinct sessions / users in the log. Low relevance: "
        f"{cell(health['low_relevance']['rule'])}. Rates with their Wilson 95% intervals, latency "
        "percentiles with order-statistic 95% intervals; a row with count n counts n times.",
        "",
    ]
    lines += table(
        ["figure", "all traffic", "of"],
        [
            ["p50 latency", ms_text(overall, "p50"), overall["latency_ms"]["n"]],
            ["p95 latency", ms_text(overall, "p95"), overall["latency_ms"]["n"]],
        ]
        + [[RATE_NAMES[m], rate_text(overall[m]), overall[m]["of"]] for m in HEALTH_RATES],
    )
    lines += ["", "Per traffic cluster (highest priority first):", ""]
    lines += table(
        ["cluster", "queries", "p50", "p95", "zero results", "low relevance", "negative feedback", "coverage"],
        [
            [
                c.get("id"),
                f"{h['queries']:,}",
                ms_text(h, "p50", False),
                ms_text(h, "p95", False),
                rate_text(h["zero_results"]),
                rate_text(h["low_relevance"]),
                rate_text(h["negative_feedback"]),
                fmt(c.get("coverage")) + (" (untested)" if c.get("untested") else ""),
            ]
            for c in clusters
            if (h := c.get("health")) is not None
        ],
    )
    spots = health.get("hotspots") or []
    lines += ["", "Where unhappy traffic concentrates (a rate whose interval lies wholly above all traffic's):", ""]
    lines += [f"- {cell(hotspot_line(s, clusters, overall))}" for s in spots] or ["None."]
    windows = health.get("windows") or []
    if windows:
        lines += ["", f"Windows of {cell(health['selection'].get('window'))}, the latest first:", ""]
        lines += table(
            ["from", "to", "queries", "p95", "zero results", "low relevance", "negative feedback"],
            [
                [
                    w["start"][:16],
                    w["end"][:16],
                    f"{w['queries']:,}",
                    ms_text(w, "p95", False),
                    rate_text(w["zero_results"], False),
                    rate_text(w["low_relevance"], False),
                    rate_text(w["negative_feedback"], False),
                ]
                for w in windows
            ],
        )
    return lines


def examples_text(examples: Sequence[Mapping[str, Any]], shown: int = EXAMPLES_SHOWN) -> str:
    """``"how do I restore a deleted page" ×114; …`` for the first ``shown`` examples."""
    return "; ".join(f"\u201c{e.get('text', '')}\u201d \u00d7{e.get('count')}" for e in examples[:shown])


def source_line(traffic: TrafficSection) -> str:
    """``sample_data/traffic.jsonl: 1,722 queries (55 distinct) in 80 rows, 2026-01-01 to 2026-01-31``."""
    src = traffic.get("source", {})
    span = f", {str(src['first'])[:10]} to {str(src['last'])[:10]}" if src.get("first") else ""
    return (
        f"{src.get('path')}: {src.get('queries', 0):,} queries ({src.get('distinct', 0):,} distinct)"
        f" in {src.get('rows', 0):,} rows{span}"
    )


def traffic_markdown(report: AnalysisReport) -> str:
    """The section (empty when the report has no traffic)."""
    traffic = report.get("traffic")
    if not traffic:
        return ""
    gap, unasked, untested = (
        traffic.get("content_gap", {}),
        traffic.get("unasked_questions", {}),
        traffic.get("untested", {}),
    )
    lines = [
        "",
        "## Traffic coverage",
        "",
        f"Log {cell(source_line(traffic))}. Answerable traffic covered by the test set: "
        f"{fmt(traffic.get('coverage'))}; untested traffic: {pct(traffic.get('untested_share'))}; the corpus "
        f"cannot answer {pct(gap.get('share'))}.",
        "",
        "### Traffic clusters (highest priority first: answerable share × (1 − coverage))",
        "",
    ]
    lines += table(
        ["cluster", "share", "coverage", "priority", "untested", "most asked", "nearest test questions"],
        [
            [
                c.get("id"),
                pct(c.get("share")),
                fmt(c.get("coverage")),
                fmt(c.get("priority")),
                "yes" if c.get("untested") else "",
                examples_text(c.get("examples") or []),
                ", ".join(q.get("id", "") for q in c.get("nearest_questions") or []),
            ]
            for c in traffic.get("clusters", [])
        ],
    )
    lines += ["", f"Untested: {cell(untested.get('rule', ''))}."]
    lines += [
        "",
        "### Queries the corpus cannot answer (a content gap, not a test gap)",
        "",
        f"{count(gap.get('queries', 0))} distinct queries, {count(gap.get('count', 0))} asked ({pct(gap.get('share'))}); "
        f"rule: {cell(gap.get('rule', ''))}.",
        "",
    ]
    rows = [
        [e.get("text"), e.get("count"), fmt(e.get("similarity")), e.get("nearest_chunk")]
        for e in gap.get("examples", [])
    ]
    lines += table(["query", "count", "similarity", "nearest chunk"], rows) if rows else ["None."]
    lines += ["", "### Tests nobody asks", "", f"Rule: {cell(unasked.get('rule', ''))}.", ""]
    rows = [
        [q.get("id"), fmt(q.get("similarity")), q.get("text"), q.get("nearest_query")]
        for q in unasked.get("questions", [])
    ]
    lines += table(["question", "similarity", "text", "nearest query"], rows) if rows else ["None."]
    lines += health_markdown(traffic)
    return visible("\n".join(lines) + "\n")
