"""The Markdown section of an analysis joined with an eval (``analyze --eval-session``).

Built from the report's ``exercised`` section (:mod:`ragcov_tui.coverage.exercised`): the exercised
share, the clusters and documents no question retrieves (blind spots), every cluster's share with
the logged queries that land in it, and the retrievability probes' defects. Text goes through
:func:`~ragcov_tui.shared.markdown.cell` and the whole section through :func:`~ragcov_tui.shared.safe_text.visible`.
"""

from __future__ import annotations

from ragcov_tui.coverage.exercised import exercised_line, probes_line
from ragcov_tui.shared.markdown import pct, table
from ragcov_tui.shared.safe_text import visible
from ragcov_tui.store.analysis_contract import AnalysisReport
from ragcov_tui.store.eval_contract import EvalReport

DOCUMENTS_LISTED = 50


def exercised_markdown(report: AnalysisReport) -> str:
    """The section (empty when the report has no ``exercised`` section)."""
    ex = report.get("exercised")
    if not ex:
        return ""
    lines = [
        "",
        "## Retrieval coverage (chunks the test set exercises)",
        "",
        exercised_line(ex) + ".",
        "",
        "A chunk is exercised when some test question retrieved it in the eval's top k; a blind spot is a "
        "cluster or document no question retrieves.",
        "",
        "### Clusters (least exercised first)",
        "",
    ]
    clusters = sorted(ex["clusters"], key=lambda c: (c["share"] if c["share"] is not None else 1.0, c["cluster"]))
    lines += table(
        ["cluster", "chunks", "exercised", "share", "blind spot", "logged queries", "themes"],
        [
            [
                c["cluster"],
                c["chunks"],
                c["exercised"],
                pct(c["share"]),
                "yes" if not c["exercised"] else "",
                "" if c["traffic_queries"] is None else c["traffic_queries"],
                ", ".join(c["themes"][:4]),
            ]
            for c in clusters
        ],
    )
    docs = ex["document_detail"]
    lines += ["", f"### Documents no question retrieves ({len(ex['blind_documents']):,} of {ex['documents']:,})", ""]
    blind = [d for d in docs if not d["exercised"]][:DOCUMENTS_LISTED]
    lines += (
        table(
            ["document", "chunks", "probed and unretrievable"],
            [[d["source"], d["chunks"], d["unretrievable"] or ""] for d in blind],
        )
        if blind
        else ["None."]
    )
    if len(ex["blind_documents"]) > len(blind):
        lines += ["", f"… and {len(ex['blind_documents']) - len(blind):,} more (the JSON report lists them all)."]
    if ex["probes"] is not None:
        lines += ["", "### Retrievability probes", "", probes_line(ex["probes"]) + ".", ""]
        lines += (
            table(
                ["chunk", "document", "cluster", "question asked"],
                [[d["chunk_id"], d["source"], d["cluster"], d["question"]] for d in ex["defects"]],
            )
            if ex["defects"]
            else ["No defect: every probed chunk came back."]
        )
    return visible("\n".join(lines) + "\n")


def probes_markdown(report: EvalReport) -> str:
    """The retrievability probes of an eval (``eval --probes N``; empty without them)."""
    probes = report.get("probes")
    if not probes:
        return ""
    lines = ["", "## Retrievability probes", "", probes_line(probes) + ".", ""]
    lines += (
        table(
            ["chunk", "form", "question asked"],
            [[p["chunk_id"], p["form"], p["question"]] for p in probes["unretrievable"]],
        )
        if probes["unretrievable"]
        else ["No defect: every probed chunk came back."]
    )
    return visible("\n".join(lines) + "\n")
