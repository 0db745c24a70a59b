"""The human report of an analysis (``ragcov analyze --markdown FILE``), built from the JSON report.

The gap table follows the paper's Table 1: cluster, coverage, size, corpus share, themes and a
suggested question; then flagged documents, outlier and redundant questions, and every cluster.
Text from documents and questions is escaped for Markdown (:func:`cell`: ``|``, line breaks, and
``<`` / ``&`` so it cannot open an HTML tag or entity), and the whole report passes through
:func:`~ragcov_tui.safe_text.visible`: ``cat report.md`` cannot send a terminal escape.
"""

from __future__ import annotations

from typing import Any

from ragcov_tui.safe_text import single_line, visible

_MARKDOWN_ESCAPES = str.maketrans({"\\": "\\\\", "|": "\\|", "<": "\\<", "&": "\\&"})


def fmt(value: float | None, digits: int = 3) -> str:
    """A score for humans: fixed digits, or ``n/a`` when undefined (never ``nan``)."""
    return "n/a" if value is None else f"{value:.{digits}f}"


def pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def cell(text: Any) -> str:
    """A value for a Markdown table cell or inline text: one line (see
    :func:`~ragcov_tui.safe_text.single_line`), with ``\\ | < &`` backslash-escaped."""
    return single_line(str(text)).translate(_MARKDOWN_ESCAPES)


def code(text: Any) -> str:
    """A value as an inline code span on one line (a backtick inside it shown as ``'``)."""
    return "`" + single_line(str(text)).replace("`", "'") + "`"


def table(header: list[str], rows: list[list[Any]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return out


def themes_text(gap: dict[str, Any], report: dict[str, Any]) -> str:
    """A gap's themes joined, marked ``(heuristic)`` when an ``--llm`` was asked and failed for it."""
    text = ", ".join(gap.get("themes", []))
    return text + " (heuristic)" if report.get("llm_fallback") and gap.get("themes_origin") == "heuristic" else text


def fallback_line(report: dict[str, Any]) -> str | None:
    """One line saying how many gaps' themes fell back to the heuristic because the LLM failed, and why."""
    fallback = report.get("llm_fallback")
    if not fallback:
        return None
    return (f"The LLM failed for {fallback.get('gaps')} of {fallback.get('asked')} gaps: their themes and questions "
            f"are heuristic ({fallback.get('cause')}).")


def analysis_markdown(report: dict[str, Any]) -> str:
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
        f"{code(report.get('llm', 'heuristic'))}.",
        f"Corpus: {corpus.get('documents')} documents, {corpus.get('chunks')} chunks. "
        f"Questions: {q.get('total')} ({q.get('inliers')} inliers, {q.get('outliers')} outliers excluded).",
        "",
    ]
    if fallback_line(report):
        lines += [f"> **Note:** {cell(fallback_line(report))}", ""]
    if report.get("message"):
        lines += [f"> **Note:** {cell(report['message'])}", ""]
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
        ],
    )
    lines += ["", "## Gaps (clusters below the gap threshold, highest priority first)", ""]
    gaps = report.get("gaps", [])
    if gaps:
        rows = []
        for g in gaps:
            suggestions = g.get("suggested_questions") or []
            first = suggestions[0] if suggestions else {}
            text = first.get("text", "") if isinstance(first, dict) else str(first)
            rows.append([g.get("cluster"), fmt(g.get("coverage")), g.get("size"), pct(g.get("share")),
                         themes_text(g, report), text])
        lines += table(["cluster", "coverage", "size", "share", "themes", "suggested question"], rows)
        lines += [""] + [f"- Cluster {cell(g.get('cluster'))}: {cell(g['note'])}" for g in gaps if g.get("note")]
    else:
        lines.append("No cluster falls below the gap threshold.")
    flagged = [d for d in report.get("documents", []) if d.get("flagged")]
    lines += ["", "## Documents flagged for review", ""]
    if flagged:
        lines += table(["document", "chunks", "coverage", "reason"],
                       [[d.get("source"), d.get("chunks"), fmt(d.get("coverage")), d.get("reason", "")] for d in flagged])
    else:
        lines.append("None.")
    details = report.get("question_details", [])
    outliers = sorted((d for d in details if d.get("outlier")), key=lambda d: -(d.get("lof_score") or 0))
    lines += ["", "## Outlier questions (excluded from the metrics)", ""]
    if outliers:
        lines += table(["question", "LOF score", "text"],
                       [[d.get("id"), fmt(d.get("lof_score"), 2), d.get("text", "")] for d in outliers])
    else:
        lines.append("None.")
    redundant = [d for d in details if d.get("redundant_with")]
    lines += ["", "## Redundant questions", ""]
    if redundant:
        lines += table(["question", "near-duplicate of"], [[d["id"], ", ".join(d["redundant_with"])] for d in redundant])
    else:
        lines.append("None.")
    lines += ["", "## Clusters", ""]
    lines += table(
        ["cluster", "size", "share", "coverage", "themes"],
        [[c.get("id"), c.get("size"), pct(c.get("share")), fmt(c.get("coverage")), ", ".join(c.get("themes", []))]
         for c in report.get("clusters", [])],
    )
    return visible("\n".join(lines) + "\n")
