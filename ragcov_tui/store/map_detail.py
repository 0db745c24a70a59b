"""The 2-D map with the text behind each point, for the HTML report (:mod:`ragcov_tui.report_html`).

The app's braille map needs positions only (:func:`ragcov_tui.store.queries.map_points`); a page
that shows a point's text on hover needs the chunk's id, document, cluster and text too. Chunks
are downsampled to at most ``max_chunks`` by the same even stride over rowids (no scan of a
100k-chunk session); every question is kept (a test set is small).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

import sqlite_utils

SNIPPET_CHARS = 240  # a hover shows this much of a chunk's text: enough to recognise it, small enough for 10k points


@dataclass(frozen=True)
class MapChunk:
    """One chunk on the map."""

    chunk_id: str
    source: str
    cluster: int
    x: float
    y: float
    text: str  # its snippet(): one line, at most SNIPPET_CHARS characters


@dataclass(frozen=True)
class MapQuestion:
    """One test question on the map (at its own projected position)."""

    question_id: str
    text: str
    outlier: bool
    x: float
    y: float


@dataclass(frozen=True)
class MapDetail:
    """The map's points; ``chunk_total`` counts every chunk of the session, shown or not."""

    chunks: list[MapChunk]
    questions: list[MapQuestion]
    chunk_total: int


def stride_rowids(db: sqlite_utils.Database, sid: str, max_chunks: int) -> tuple[str, int]:
    """``(JSON list of rowids, chunk count)``: an even stride over the session's ``chunk_results``
    rowids that picks at most ``max_chunks`` (rows of other sessions on the stride are skipped later,
    so a few fewer may come back)."""
    low, high, total = db.execute(
        "SELECT min(rowid), max(rowid), count(*) FROM chunk_results WHERE session_id = ?", [sid]
    ).fetchone()
    if not total:
        return "[]", 0
    stride = max(1, math.ceil((high - low + 1) / max_chunks))
    return json.dumps(list(range(low, high + 1, stride))), total


def snippet(text: str) -> str:
    """The text on one line (runs of whitespace, line breaks included, as one space), cut to ``SNIPPET_CHARS``."""
    text = " ".join(text.split())
    return text if len(text) <= SNIPPET_CHARS else text[: SNIPPET_CHARS - 1].rstrip() + "…"


def map_detail(db: sqlite_utils.Database, sid: str, max_chunks: int) -> MapDetail:
    """The projected chunks (at most ``max_chunks``, by stride) and questions of session ``sid``."""
    picks, total = stride_rowids(db, sid, max_chunks)
    chunks = [
        MapChunk(
            str(cid),
            str(source),
            int(cluster if cluster is not None else -1),
            float(x),
            float(y),
            snippet(str(text or "")),
        )
        for cid, source, cluster, x, y, text in db.execute(
            "SELECT r.chunk_id, r.source, r.cluster, r.x, r.y, c.text FROM chunk_results r "
            "LEFT JOIN chunks c ON c.session_id = r.session_id AND c.chunk_id = r.chunk_id "
            "WHERE r.rowid IN (SELECT value FROM json_each(?)) AND r.session_id = ? AND r.x IS NOT NULL "
            "ORDER BY r.seq",
            [picks, sid],
        )
    ]
    questions = [
        MapQuestion(str(qid), str(text), bool(outlier), float(x), float(y))
        for qid, text, outlier, x, y in db.execute(
            "SELECT question_id, text, outlier, x, y FROM question_results "
            "WHERE session_id = ? AND x IS NOT NULL ORDER BY seq",
            [sid],
        )
    ]
    return MapDetail(chunks, questions, total)
