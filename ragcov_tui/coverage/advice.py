"""The words every output uses for a gap: one function per text, so the terminal, the Markdown
report, the JSON and the app never disagree (e.g. "review the flagged document" in one and a
suggested question in another). They read the report's dicts (any mapping: a ``GapEntry``, a
stored gap row), so a stored session says the same.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ragcov_tui.number_text import count

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


def open_gap_advice(gap: Mapping[str, Any]) -> str:
    """:func:`gap_advice` over the suggestions nobody has accepted or rejected yet (the app's gap rows
    carry them as ``suggestions`` with a ``status``), so the advice never repeats a decided one."""
    pending = [s for s in gap.get("suggestions") or [] if s.get("status") == "open"]
    return gap_advice({**gap, "suggested_questions": pending})
