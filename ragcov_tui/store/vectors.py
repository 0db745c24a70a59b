"""Per-session documents and vectors (float32 blobs), written by the analysis and eval jobs."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np
import sqlite_utils

from ragcov_tui.corpus.models import Chunk, Document
from ragcov_tui.shared.row_blocks import blocks


def save_documents(db: sqlite_utils.Database, sid: str, documents: Sequence[Document], chunks: Sequence[Chunk]) -> None:
    """One ``documents`` row per source, with its chunk count and size."""
    per_source = Counter(c.source for c in chunks)
    with db.conn:
        db.table("documents").insert_all(
            (
                {
                    "session_id": sid,
                    "source": d.source,
                    "path": d.path,
                    "n_chunks": per_source.get(d.source, 0),
                    "n_chars": len(d.text),
                }
                for d in documents
            ),
            batch_size=1000,
            replace=True,
        )


def save_vectors(db: sqlite_utils.Database, sid: str, kind: str, ids: Sequence[str], matrix: np.ndarray) -> None:
    """Store each row of ``matrix`` as a little-endian float32 blob keyed by item id."""
    m = np.ascontiguousarray(matrix, dtype="<f4")  # a little-endian float32 memory map stays one
    rows = (
        {"session_id": sid, "kind": kind, "item_id": ids[start + n], "vector": row.tobytes()}
        for start, block in blocks(m)
        for n, row in enumerate(block)
    )  # its pages dropped block by block
    with db.conn:
        db.table("vectors").insert_all(rows, batch_size=2000, replace=True)


def load_vectors(db: sqlite_utils.Database, sid: str, kind: str) -> tuple[list[str], np.ndarray]:
    """The ids and the matrix stored by :func:`save_vectors` (insertion order)."""
    rows = list(
        db.query("SELECT item_id, vector FROM vectors WHERE session_id = ? AND kind = ? ORDER BY rowid", [sid, kind])
    )
    if not rows:
        return [], np.zeros((0, 0), dtype=np.float32)
    ids = [r["item_id"] for r in rows]
    matrix = np.vstack([np.frombuffer(r["vector"], dtype="<f4") for r in rows]).astype(np.float32)
    return ids, matrix
