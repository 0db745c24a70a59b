"""Retrieval coverage's parts (issue #27 §3, §5): which chunks a retrieved id names, and which
chunks a gap's suggestions are drawn from first."""

from __future__ import annotations

import numpy as np

from ragcov_tui.corpus.models import Chunk
from ragcov_tui.coverage.analysis import FAR, NEVER_RETRIEVED, blind_spot_reasons, least_covered_texts, mark_fixes
from ragcov_tui.coverage.exercised import exercised_mask
from ragcov_tui.coverage.themes import ClusterThemes

CHUNKS = [
    Chunk("a.md#0-1", "x", "a.md", 0),
    Chunk("a.md#1-2", "y", "a.md", 1),
    Chunk("b.md#0-3", "z", "b.md", 0),
    Chunk("docs/c.md#0-4", "w", "docs/c.md", 0),
]


def test_a_chunk_id_names_its_chunk_a_document_id_all_its_chunks() -> None:
    mask, unmatched = exercised_mask(CHUNKS, [["a.md#1-2"], ["b.md", "nowhere.md"], ["c.md"], []])
    assert mask.tolist() == [False, True, True, True]  # c.md: the path suffix of docs/c.md
    assert unmatched == 1


def test_suggestions_come_first_from_chunks_far_and_never_retrieved() -> None:
    labels = np.zeros(4, dtype=np.int64)
    mindist = np.array([0.9, 0.5, 0.8, 0.2])
    within = np.array([False, False, True, True])  # chunks 0 and 1 lie outside the answering radius
    exercised = np.array([True, False, False, False])
    far, unretrieved = blind_spot_reasons(within, exercised)
    blind = far.astype(np.int8) + unretrieved
    assert least_covered_texts(list("0123"), labels, mindist, 0, 4) == list("0213")  # by distance alone
    assert least_covered_texts(list("0123"), labels, mindist, 0, 4, blind) == list("1023")
    themes = [ClusterThemes([], [{"text": "q", "origin": "heuristic", "chunk_id": c.id} for c in CHUNKS])]
    mark_fixes(themes, {c.id: i for i, c in enumerate(CHUNKS)}, far, unretrieved)
    assert [s["fixes"] for s in themes[0].questions] == [
        [FAR],
        [FAR, NEVER_RETRIEVED],
        [NEVER_RETRIEVED],
        [NEVER_RETRIEVED],
    ]
