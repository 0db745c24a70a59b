"""The human report of an analysis (``ragcov analyze --markdown FILE``), built from the JSON report.

The gap table follows the paper's Table 1 (cluster, coverage, size, corpus share, themes) with the
calibrated figures in front — priority and covered share — and the advice of
:func:`~ragcov_tui.coverage.advice.gap_advice` (the same words as the terminal); then uneven
clusters, the least-covered documents, gold coverage, flagged documents, outlier and redundant
questions, and every cluster.
Text from documents and questions is escaped for Markdown (:func:`~ragcov_tui.shared.markdown.cell`: ``|``, line breaks, and
``<`` / ``&`` so it cannot open an HTML tag or entity), and the whole report passes through
:func:`~ragcov_tui.shared.safe_text.visible`: ``cat report.md`` cannot send a terminal escape.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ragcov_tui.coverage.advice import gap_advice, named, unreached_summary, unreached_text
from ragcov_tui.shared.markdown import cell, code, fmt, pct, table
from ragcov_tui.shared.number_text import count
from ragcov_tui.shared.safe_text import visible
from ragcov_tui.store.analysis_contract import AnalysisReport, GapEntry, VectorStoreSection

DOCUMENTS_SHOWN = 20  # least-covered documents in the Markdown table (the JSON lists all)
GOLD_NAMED = 50  # unnamed documents listed by name
PRIORITY_NOTE = (
    "priority = 1 − covered share ÷ the median cluster's covered share (clipped to 0–1): 1 = no "
    "question reaches any of its chunks; size and share only break ties."
)


def themes_text(gap: Mapping[str, Any], report: Mapping[str, Any]) -> str:
    """A gap's themes joined, marked ``(heuristic)`` when an ``--llm`` was asked and failed for it."""
    text = ", ".join(gap.get("themes", []))
    return text + " (heuristic)" if report.get("llm_fallback") and gap.get("themes_origin") == "heuristic" else text


def fallback_line(report: Mapping[str, Any]) -> str | None:
    """One line saying how many gaps' themes fell back to the heuristic because the LLM failed, and why."""
    fallback = report.get("llm_fallback")
    if not fallback:
        return None
    return (
        f"The LLM failed for {count(fallback.get('gaps'))} of {count(fallback.get('asked'))} gaps: their themes and questions "
        f"are heuristic ({fallback.get('cause')})."
    )


def store_line(store: VectorStoreSection) -> str:
    """The store the corpus was read from, its field mapping and the space check, as one line."""
    fields = ", ".join(f"{role}={name}" for role, name in store["fields"].items() if name)
    return f"{store['engine']} {store['spec']} ({store['rows']} rows; {fields}); {store['space_check']['line']}"


def analysis_markdown(report: AnalysisReport) -> str:
    """Render an ``analyze --json`` report as Markdown."""
    cov = report.get("coverage", {})
    q = report.get("questions", {})
    corpus = report.get("corpus", {})
    emb = report.get("embedder", {})
    embedder = f"{emb.get('provider')}:{emb.get('model')}"
    lines = [
        f"# Test-set coverage report — session {cell(report.get('session_id', '?'))}",
        "",
        f"Embedder {code(embedder)} ({emb.get('dim')}-d); themes and suggestions by "
        f"{code(report.get('llm', 'heuristic'))}"
        f"{' (offline heuristic; use --llm for written questions)' if report.get('llm', 'heuristic') == 'heuristic' else ''}.",
        f"Corpus: {count(corpus.get('documents'))} documents, {count(corpus.get('chunks'))} chunks. "
        f"Questions: {count(q.get('total'))} ({count(q.get('inliers'))} inliers, {count(q.get('outliers'))} outliers excluded).",
        "",
    ]
    if fallback_line(report):
        lines += [f"> **Note:** {cell(fallback_line(report))}", ""]
    if report.get("message"):
        lines += [f"> **Note:** {cell(report['message'])}", ""]
    if store := report.get("vector_store"):  # the corpus came from a vector store: which, and was its space verified
        lines += [f"> **Vector store:** {cell(store_line(store))}", ""]
    for adjustment in report.get("adjustments") or []:  # an option the data could not honour
        lines += [f"> **Adjusted:** {cell(adjustment)}", ""]
    lines += ["## Coverage", ""]
    lines += table(
        ["metric", "value"],
        [
            ["basic", fmt(cov.get("basic"))],
            ["weighted", fmt(cov.get("weighted"))],
            [f"multi-cluster (threshold {cov.get('threshold')})", fmt(cov.get("multi_threshold"))],
            [f"multi-cluster (top {cov.get('top_n')})", fmt(cov.get("multi_n"))],
            ["covered share (chunks within the answering radius)", pct(cov.get("covered_share"))],
        ],
    )
    calibration = report.get("calibration") or {}
    if calibration.get("text"):
        lines += ["", cell(calibration["text"]) + "."]
    lines += ["", "## Gaps (least covered first)", ""]
    gaps = report.get("gaps", [])
    if calibration.get("gaps_text"):
        lines += [cell(calibration["gaps_text"]) + ". " + PRIORITY_NOTE, ""]
    if summary := unreached_summary(report):
        lines += [cell(summary) + ".", ""]
    if gaps:
        lines += table(
            ["#", "cluster", "priority", "covered", "coverage", "size", "share", "themes", "advice"],
            [
                [
                    i,
                    g.get("cluster"),
                    fmt(g.get("priority"), 2),
                    pct(g.get("covered_share")),
                    fmt(g.get("coverage")),
                    g.get("size"),
                    pct(g.get("share")),
                    themes_text(g, report),
                    gap_advice(g),
                ]
                for i, g in enumerate(gaps, 1)
            ],
        )
        notes = [(g.get("cluster"), "; ".join(t for t in (unreached_text(g), g.get("note")) if t)) for g in gaps]
        lines += [""] + [f"- Cluster {cell(c)}: {cell(text)}" for c, text in notes if text]
        lines += _suggestion_lines(gaps)
    else:
        lines.append("No cluster is a gap.")
    lines += _uneven_lines(report) + _document_lines(report) + _gold_lines(report)
    flagged = [d for d in report.get("documents", []) if d.get("flagged")]
    lines += ["", "## Documents flagged for review", ""]
    if flagged:
        lines += table(
            ["document", "chunks", "coverage", "reason"],
            [[d.get("source"), d.get("chunks"), fmt(d.get("coverage")), d.get("reason", "")] for d in flagged],
        )
    else:
        lines.append("None.")
    details = report.get("question_details", [])
    outliers = sorted((d for d in details if d.get("outlier")), key=lambda d: -(d.get("lof_score") or 0))
    lines += ["", "## Outlier questions (excluded from the metrics)", ""]
    if outliers:
        lines += table(
            ["question", "LOF score", "text"],
            [[d.get("id"), fmt(d.get("lof_score"), 2), d.get("text", "")] for d in outliers],
        )
    else:
        lines.append("None.")
    redundant = [d for d in details if d.get("redundant_with")]
    lines += ["", "## Redundant questions", ""]
    if redundant:
        lines += table(
            ["question", "near-duplicate of"], [[d["id"], ", ".join(d["redundant_with"])] for d in redundant]
        )
    else:
        lines.append("None.")
    lines += ["", "## Clusters", ""]
    lines += table(
        [
            "cluster",
            "size",
            "share",
            "coverage",
            "covered",
            "priority",
            "unreached docs",
            "docs without gold",
            "themes",
        ],
        [
            [
                c.get("id"),
                c.get("size"),
                pct(c.get("share")),
                fmt(c.get("coverage")),
                pct(c.get("covered_share")),
                fmt(c.get("priority"), 2),
                len(c.get("unreached_documents") or []),
                _count(c.get("documents_without_gold")),
                ", ".join(c.get("themes", [])),
            ]
            for c in report.get("clusters", [])
        ],
    )
    return visible("\n".join(lines) + "\n")


def _count(items: list[Any] | None) -> str:
    return "n/a" if items is None else str(len(items))


def _suggestion_lines(gaps: list[GapEntry]) -> list[str]:
    """Every gap's suggested questions with the chunk each was written from (``n/a``: none named, as
    in an older report, whose suggestions may be bare strings)."""
    found = [
        (g.get("cluster"), s if isinstance(s, dict) else {"text": s})
        for g in gaps
        for s in g.get("suggested_questions") or []
    ]
    rows = [[c, s.get("text", ""), s.get("form") or "n/a", s.get("chunk_id") or "n/a"] for c, s in found]
    if not rows:
        return []
    if any("fixes" in s for _, s in found):  # analyze --eval-session: which blind spot each one fixes
        return ["", "### Suggested questions", ""] + table(
            ["cluster", "suggestion", "form", "from chunk", "fixes"],
            [r + [" and ".join(s.get("fixes") or []) or "n/a"] for r, (_, s) in zip(rows, found, strict=True)],
        )
    return ["", "### Suggested questions", ""] + table(["cluster", "suggestion", "form", "from chunk"], rows)


def _uneven_lines(report: AnalysisReport) -> list[str]:
    """The clusters that are not gaps but hold a part no question reaches (see coverage.reach)."""
    uneven = [c for c in report.get("clusters", []) if c.get("uneven")]
    if not uneven:
        return []
    lines = ["", "## Uneven clusters (a part no question reaches)", ""]
    text = (report.get("calibration") or {}).get("uneven_text")
    lines += [cell(text) + ".", ""] if text else []
    return lines + [
        f"- Cluster {cell(c.get('id'))} (covered {pct(c.get('covered_share'))}): {cell(unreached_text(c))}"
        for c in uneven
    ]


def _document_lines(report: AnalysisReport) -> list[str]:
    """The document view: the least-covered documents first (reach, then covered share)."""
    docs = report.get("documents", [])
    unreached = sum(1 for d in docs if d.get("unreached"))
    lines = [
        "",
        "## Least-covered documents",
        "",
        f"{count(unreached)} of {count(len(docs))} documents have no chunk within reach of a question. Least covered first: "
        "documents no question names as gold (when the test file has gold ids), then by reach = similarity "
        "of the document's closest chunk to its nearest question; the JSON report lists every document.",
        "",
    ]
    return lines + table(
        ["rank", "document", "reach", "covered", "coverage", "gold", "chunks", "flag"],
        [
            [
                d.get("rank"),
                d.get("source"),
                fmt(d.get("reach")),
                pct(d.get("covered_share")),
                fmt(d.get("coverage")),
                "n/a" if d.get("gold_count") is None else d["gold_count"],
                d.get("chunks"),
                "unreached" if d.get("unreached") else "",
            ]
            for d in docs[:DOCUMENTS_SHOWN]
        ],
    )


def _gold_lines(report: AnalysisReport) -> list[str]:
    """Gold coverage: the documents no question names as gold, overall and per cluster."""
    gold = report.get("gold")
    if not gold:
        return []
    lines = [
        "",
        "## Gold coverage",
        "",
        f"{count(gold.get('documents_unnamed'))} of {count(gold.get('documents'))} documents are named by no "
        f"question's gold ids ({count(gold.get('questions_with_gold'))} questions have gold ids).",
    ]
    unnamed = gold.get("unnamed") or []
    if unnamed:
        lines += ["", "Documents no question names: " + cell(named(unnamed, GOLD_NAMED)) + "."]
    per_cluster = [(c.get("id"), c.get("documents_without_gold") or []) for c in report.get("clusters", [])]
    lines += [""] + [
        f"- Cluster {cell(k)}: {count(len(docs))} document(s) without gold: {cell(named(docs))}"
        for k, docs in per_cluster
        if docs
    ]
    return lines
