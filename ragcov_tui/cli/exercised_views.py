"""The terminal summary of retrieval coverage (``ragcov analyze --eval-session``, ``ragcov report``).

One line for the exercised share and the blind spots, the least exercised clusters as a table,
the first blind documents, and the probes' defects. Every value goes through
:func:`~ragcov_tui.cli.safe_console.plain_line` (control characters visible, markup literal).
"""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from ragcov_tui.cli.safe_console import plain_line
from ragcov_tui.coverage.exercised import exercised_line, probes_line
from ragcov_tui.shared.markdown import pct
from ragcov_tui.store.analysis_contract import AnalysisReport

CLUSTERS_SHOWN = 5
DOCUMENTS_SHOWN = 5


def print_exercised(console: Console, report: AnalysisReport) -> None:
    """Nothing when the report has no ``exercised`` section."""
    ex = report.get("exercised")
    if not ex:
        return
    console.print(plain_line(exercised_line(ex)))
    t = Table(title="Least exercised clusters", title_justify="left")
    for col in ("cluster", "chunks", "exercised", "share", "logged queries", "themes"):
        t.add_column(col, justify="left" if col == "themes" else "right")
    order = sorted(ex["clusters"], key=lambda c: (c["share"] if c["share"] is not None else 1.0, c["cluster"]))
    for c in order[:CLUSTERS_SHOWN]:
        t.add_row(
            str(c["cluster"]),
            f"{c['chunks']:,}",
            f"{c['exercised']:,}",
            pct(c["share"]),
            "" if c["traffic_queries"] is None else f"{c['traffic_queries']:,}",
            plain_line(", ".join(c["themes"][:3])),
        )
    console.print(t)
    blind = ex["blind_documents"]
    if blind:
        more = f" … (+{len(blind) - DOCUMENTS_SHOWN:,})" if len(blind) > DOCUMENTS_SHOWN else ""
        console.print(plain_line(f"documents no question retrieves: {', '.join(blind[:DOCUMENTS_SHOWN])}{more}"))
    if ex["probes"] is not None:
        console.print(plain_line(probes_line(ex["probes"])))
        for d in ex["defects"][:DOCUMENTS_SHOWN]:
            console.print(
                plain_line(f"  unretrievable: {d['chunk_id']} (cluster {d['cluster']}), asked “{d['question']}”")
            )
