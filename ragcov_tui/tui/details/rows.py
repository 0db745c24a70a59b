"""What ``enter`` opens on a row of each list (one meaning in every pane: the row's detail, in full).

Each function lays out stored data as literal text for a :class:`~.modals.TextScreen`; nothing is
computed here beyond formatting numbers.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import sqlite_utils
from rich.console import Group
from rich.table import Table
from rich.text import Text

from ragcov_tui.coverage.advice import open_gap_advice, unreached_text
from ragcov_tui.shared.number_text import count
from ragcov_tui.store import queries
from ragcov_tui.store.analysis_contract import DocumentEntry
from ragcov_tui.store.rows import ClusterRow, GapRow, SourceChunk, SuggestionRow
from ragcov_tui.tui.widgets.literal import UNDEFINED, block, labelled_grid, lit, num

DOCUMENT_CHUNKS = 200  # a document's chunks listed in its detail (the rest are counted)


def fmt(value: Any, digits: int = 3) -> str:
    """A number as the tables show it (``0.759``, ``1,024``), ``—`` for none."""
    return num(value, digits).plain


def val(value: Any, digits: int = 3) -> Text:
    """:func:`fmt` as left-aligned literal text (for a label's value)."""
    return lit(fmt(value, digits))


def document_detail(db: sqlite_utils.Database, sid: str, doc: DocumentEntry) -> Group:
    """A document's coverage, why it is flagged, and its chunks (distance to the nearest question,
    cluster, nearest question, then the chunk's whole text), in document order."""
    why = doc.get("reason") or (
        "flagged as misaligned: its coverage is far below the other documents'" if doc.get("flagged") else "not flagged"
    )
    gold = (
        "no gold ids in the test file"
        if doc.get("gold_count") is None
        else f"named by {count(doc['gold_count'])} question(s)"
    )
    head = labelled_grid(
        [
            ("rank", val(doc.get("rank"))),
            ("reach", val(doc.get("reach"))),
            ("covered", val(doc.get("covered_share"))),
            ("gold", lit(gold)),
            ("coverage", val(doc.get("coverage"))),
            ("chunks", val(doc.get("chunks"))),
            ("flag", lit(why, "bold" if doc.get("flagged") else "")),
        ],
        label_width=10,
    )
    page = queries.document_chunks(db, sid, doc["source"], 0, DOCUMENT_CHUNKS)
    more = f" (first {len(page.rows)} of {page.total:,})" if page.total > len(page.rows) else ""
    title = Text(
        f"\nChunks in document order{more}: distance to the nearest question · cluster · nearest question",
        style="bold underline",
    )
    chunks = Table.grid()  # the distance, then the rest; a chunk's text wraps under itself, not under the figures
    chunks.add_column(width=8, no_wrap=True)
    chunks.add_column(ratio=1)
    for r in page.rows:
        chunks.add_row(
            f"{fmt(r.mindist):>6}",
            Text(f"{fmt(r.cluster):>4}  ")
            .append_text(lit(r.nearest_question or UNDEFINED))
            .append("  ")
            .append_text(lit(r.chunk_id, "bold")),
        )
        chunks.add_row("", block(r.text, "dim"))
    return Group(head, title, chunks)


def pair_detail(pair: Mapping[str, Any]) -> Text:
    """Both questions of a redundant pair in full."""
    out = Text()
    for key in ("a", "b"):
        out.append_text(lit(pair[key], "bold")).append("\n").append_text(block(pair[f"{key}_text"])).append("\n\n")
    return out


def cluster_detail(cluster: ClusterRow) -> Group:
    """A cluster's figures and all its themes (its chunks are the list under it: tab, enter)."""
    return Group(
        labelled_grid(
            [
                ("size", val(cluster["size"])),
                ("share", val(cluster["share"])),
                ("coverage", val(cluster["coverage"])),
                ("questions", val(cluster["covering"])),
                ("themes", lit(", ".join(cluster.get("themes") or []) or None)),
                ("chunks", lit("tab to the chunk list, enter on a chunk for its text")),
            ],
            label_width=11,
        )
    )


def gap_detail(gap: GapRow, suggestion: SuggestionRow | None, chunk: SourceChunk | None = None) -> Group:
    """A gap's figures, themes, note and flagged documents, the highlighted suggestion in full and,
    under it, the ``chunk`` it was written from (:func:`~ragcov_tui.store.queries.suggestion_chunk`;
    nothing for a suggestion stored without one)."""
    head = labelled_grid(
        [
            ("advice", lit(open_gap_advice(gap), "bold")),
            ("priority", val(gap["priority"])),
            ("covered share", val(gap.get("covered_share"))),
            ("coverage", val(gap["coverage"])),
            ("size", val(gap["size"])),
            ("share", val(gap.get("share"))),
            ("unreached", lit(unreached_text(gap).removeprefix("unreached: ") or None)),
            ("themes", lit(", ".join(gap.get("themes") or []) or None)),
            ("note", lit(gap.get("note") or None)),
            ("flagged docs", lit(", ".join(gap.get("flagged_documents") or []) or None)),
        ],
        label_width=14,
    )
    out = Text()
    if suggestion is not None and suggestion.edited:
        out.append(f"\nSuggestion ({suggestion.origin}, edited and accepted), as written\n", style="bold underline")
        out.append_text(block(suggestion.text))
        out.append("\n\nAs suggested\n", style="bold underline").append_text(block(suggestion.suggested))
    elif suggestion is not None:
        out.append(f"\nSuggestion ({suggestion.origin}, {suggestion.status})\n", style="bold underline")
        out.append_text(block(suggestion.text))
    if suggestion is not None and chunk is not None:
        out.append("\n\nfrom chunk ", style="bold").append_text(lit(chunk.chunk_id, "bold"))
        out.append(" (").append_text(lit(chunk.source or "not in this session")).append(")")
        if suggestion.form == "passage":
            out.append(": a passage to ask about")
        out.append("\n").append_text(block(chunk.text or "", "dim"))
    return Group(head, out)
