"""Terminal views of an analysis's calibrated figures: the gap table (each gap's advice and unreached
part on lines under it), uneven clusters, the least-covered documents and gold coverage. No logic of
its own: the advice and the unreached-part texts come from :mod:`ragcov_tui.coverage.advice` (the Markdown report uses the same functions).

Every list is cut to its most severe few (:func:`print_most_severe`): on a corpus of thousands of
documents the terminal shows what to look at first and says how many more the reports hold.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console, JustifyMethod
from rich.table import Table

from ragcov_tui.cli.safe_console import plain_line
from ragcov_tui.coverage.advice import gap_advice, named, unreached_summary, unreached_text
from ragcov_tui.coverage.report_md import PRIORITY_NOTE, fmt, pct, themes_text
from ragcov_tui.shared.number_text import count
from ragcov_tui.store.analysis_contract import AnalysisReport

GAPS_SHOWN, DOCUMENTS_SHOWN, LINES_SHOWN = 8, 10, 5


def print_most_severe(console: Console, lines: Sequence[str], noun: str, shown: int = LINES_SHOWN) -> None:
    """The first ``shown`` of ``lines`` (most severe first), then ``and N more NOUN (--markdown / --json)``."""
    for line in lines[:shown]:
        console.print(plain_line(line))
    if len(lines) > shown:
        console.print(plain_line(f"and {len(lines) - shown:,} more {noun} (--markdown / --json)", style="dim"))


def print_gaps(console: Console, report: AnalysisReport) -> None:
    """The calibration line, the gap table (least covered first, with priority and advice) and the uneven clusters."""
    calibration = report.get("calibration") or {}
    if calibration.get("text"):
        console.print(plain_line(calibration["text"]))
    if calibration.get("gaps_text"):
        console.print(plain_line(calibration["gaps_text"], style="bold"))
    if summary := unreached_summary(report):
        console.print(plain_line(summary))
    gaps = report.get("gaps", [])
    if gaps:
        more = f", first {GAPS_SHOWN} shown" if len(gaps) > GAPS_SHOWN else ""
        t = Table(title=f"Gaps ({len(gaps):,}, least covered first{more})", title_justify="left")
        columns: list[tuple[str, JustifyMethod]] = [
            ("#", "right"),
            ("cluster", "right"),
            ("prio", "right"),
            ("covered", "right"),
            ("coverage", "right"),
            ("size", "right"),
            ("share", "right"),
            ("themes", "left"),
        ]
        for col, j in columns:
            t.add_column(col, justify=j)
        for i, gap in enumerate(gaps[:GAPS_SHOWN], 1):
            t.add_row(
                plain_line(i),
                plain_line(gap["cluster"]),
                fmt(gap.get("priority"), 2),
                pct(gap.get("covered_share")),
                fmt(gap.get("coverage")),
                count(gap.get("size")),
                pct(gap.get("share")),
                plain_line(themes_text(gap, report)),
            )
        console.print(t)
        console.print(plain_line(PRIORITY_NOTE))  # not the table's caption: that wraps at the table's width
        for i, gap in enumerate(gaps[:GAPS_SHOWN], 1):  # below the table: a table column too narrow to read at 80
            console.print(plain_line(f"#{i} cluster {gap['cluster']}: {gap_advice(gap)}"))
            if text := unreached_text(gap):
                console.print(plain_line(f"   {text}"))
        if len(gaps) > GAPS_SHOWN:
            console.print(plain_line(f"and {len(gaps) - GAPS_SHOWN:,} more gaps (--markdown / --json)", style="dim"))
    uneven = sorted(
        (c for c in report.get("clusters", []) if c.get("uneven")),
        key=lambda c: (c.get("covered_share") or 0.0, -(c.get("unreached_share") or 0.0), c["id"]),
    )
    print_most_severe(
        console,
        [f"uneven cluster {c['id']} (covered {pct(c.get('covered_share'))}): {unreached_text(c)}" for c in uneven],
        "uneven clusters",
    )


def print_documents(console: Console, report: AnalysisReport) -> None:
    """The least-covered documents (top N of the document view) and the gold-coverage line."""
    docs = report.get("documents", [])
    if docs and any(d.get("reach") is not None for d in docs):
        unreached = sum(1 for d in docs if d.get("unreached"))
        console.print(
            plain_line(
                f"Least-covered documents ({count(unreached)} of {count(len(docs))} unreached; all in the JSON report)"
            )
        )
        t = Table()  # the title above, not the table's: that wraps at the table's width
        columns: list[tuple[str, JustifyMethod]] = [
            ("#", "right"),
            ("document", "left"),
            ("reach", "right"),
            ("covered", "right"),
            ("gold", "right"),
            ("chunks", "right"),
            ("", "left"),
        ]
        for col, j in columns:
            t.add_column(col, justify=j)
        for d in docs[:DOCUMENTS_SHOWN]:
            gold_count = "n/a" if d.get("gold_count") is None else count(d["gold_count"])
            t.add_row(
                plain_line(d.get("rank")),
                plain_line(d["source"]),
                fmt(d.get("reach")),
                pct(d.get("covered_share")),
                gold_count,
                count(d.get("chunks")),
                "unreached" if d.get("unreached") else "",
            )
        console.print(t)
    gold = report.get("gold")
    if gold and gold.get("unnamed"):
        console.print(
            plain_line(
                f"gold: {count(gold['documents_unnamed'])} of {count(gold['documents'])} documents are named by no "
                f"question's gold ids: {named(gold['unnamed'], 5)}"
            )
        )
