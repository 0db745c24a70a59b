"""The words every output uses for a gap: one function per text, so the terminal, the Markdown
report, the JSON and the app never disagree (e.g. "review the flagged document" in one and a
suggested question in another). They read the report's dicts (any mapping: a ``GapEntry``, a
stored gap row), so a stored session says the same.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ragcov_tui.shared.number_text import count
from ragcov_tui.store.rows import GapRow

NAMED = 3  # documents named in one line; the rest are counted


def first_suggestion(gap: Mapping[str, Any]) -> str:
    """The text of the gap's first suggested question ('' when it has none)."""
    suggestions = gap.get("suggested_questions") or []
    first = suggestions[0] if suggestions else ""
    return str(first.get("text", "")) if isinstance(first, dict) else str(first)


def gap_advice(gap: Mapping[str, Any]) -> str:
    """What to do about a gap: review its flagged documents (mostly misplaced content), else ask its
    first suggested question, else ask about its themes."""
    if gap.get("flagged_documents"):
        return f"review flagged {', '.join(gap['flagged_documents'])} before adding questions"
    if text := first_suggestion(gap):
        return f"add questions such as: {text}"
    themes = gap.get("themes") or []
    return f"add questions about {', '.join(themes[:3])}" if themes else "add questions about this cluster's content"


def named(documents: list[str], limit: int = NAMED) -> str:
    """``a.md, b.md, c.md (+4 more)``."""
    more = f" (+{count(len(documents) - limit)} more)" if len(documents) > limit else ""
    return ", ".join(documents[:limit]) + more


def unreached_text(cluster: Mapping[str, Any]) -> str:
    """Which part of a cluster no question reaches ('' when every document of it has a chunk within reach)."""
    docs = cluster.get("unreached_documents") or []
    if not docs:
        return ""
    share = cluster.get("unreached_share") or 0.0
    noun = "document" if len(docs) == 1 else "documents"
    return f"unreached: {len(docs)} {noun} ({share:.0%} of its chunks) with no chunk within reach: {named(docs)}"


def unreached_summary(report: Mapping[str, Any]) -> str:
    """The one sentence that reconciles the gap count with the unreached documents ('' when every
    document has a chunk within reach): how many unreached documents lie outside the gaps, and why —
    a gap is a cluster covered far below the median cluster (or, with ``--gap-threshold``, one whose
    coverage is below it), so a cluster that questions reach through its other documents is no gap
    however many of its documents they miss."""
    docs = report.get("documents") or []
    unreached = {d.get("source") for d in docs if d.get("unreached")}
    if not unreached:
        return ""
    gap_ids = {g.get("cluster") for g in report.get("gaps") or []}
    in_gaps = {
        doc
        for c in report.get("clusters") or []
        if c.get("id") in gap_ids
        for doc in c.get("unreached_documents") or []
    }
    outside = len(unreached - in_gaps)
    head = f"{len(unreached):,} of {len(docs):,} documents have no chunk within reach of a question"
    if not outside:
        return f"{head}, all of them in the gaps"
    calibration = report.get("calibration") or {}
    median = calibration.get("median_covered_share")
    if calibration.get("gap_rule") == "threshold":
        why = "a gap is a cluster whose mean coverage is below --gap-threshold"
    else:
        why = "a gap is a cluster covered far below the typical one" + (
            f" (the median cluster has {median:.0%} of its chunks within reach)" if median is not None else ""
        )
    return (
        f"{head}; {outside:,} of them lie in clusters that are not gaps: {why}, and questions reach those "
        "clusters through their other documents (see the uneven clusters and the least-covered documents)"
    )


def open_gap_advice(gap: GapRow) -> str:
    """:func:`gap_advice` over the suggestions nobody has accepted or rejected yet (the app's gap rows
    carry them as ``suggestions`` with a ``status``), so the advice never repeats a decided one."""
    pending = [s.text for s in gap["suggestions"] if s.status == "open"]
    return gap_advice({**gap, "suggested_questions": pending})
