"""The embedding cache's entries: their key, how a vector is stored, and which vectors may be stored or served.

An entry is keyed by ``(provider, Embedder.cache_model, sha256(text))``; ``cache_model`` is the
model name, plus ``@`` and the (redacted) base URL for remote providers: the same model name on
another server is another entry. Vectors are stored L2-normalised as float32 little-endian blobs
(the SQL: :mod:`ragcov_tui.store.caches`). Only usable vectors are ever stored or served
(:func:`bad_rows`): every number finite and unit length after normalisation; a blob shorter than
its dimension (truncated) is never served. The loop that reads and fills the cache is
``Embedder.embed`` (:mod:`ragcov_tui.embeddings.base`).
"""

from __future__ import annotations

import hashlib

import numpy as np
import sqlite_utils

from ragcov_tui.store.caches import embedding_rows, put_embeddings


def text_sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def lookup(db: sqlite_utils.Database, provider: str, model: str, keys: list[str]) -> dict[str, np.ndarray]:
    """Cached vectors for the given text hashes (missing or truncated ones are absent from the result)."""
    found: dict[str, np.ndarray] = {}
    for key, dim, blob in embedding_rows(db, provider, model, keys):
        vec = np.frombuffer(blob, dtype="<f4")
        if vec.shape[0] == dim:
            found[key] = vec.astype(np.float32)
    return found


def bad_rows(vectors: np.ndarray) -> np.ndarray:
    """Indices of the rows of the L2-normalised ``vectors`` that are not usable: not finite, or a
    squared length outside 1 ± 2e-3 (an all-zero vector). One pass: NaN and infinity fail the test."""
    squared = np.einsum("ij,ij->i", vectors, vectors, dtype=np.float64)
    return np.flatnonzero(~(np.abs(squared - 1.0) <= 2e-3))


def vector_problem(vectors: np.ndarray) -> str | None:
    """None when every row of ``vectors`` is usable (:func:`bad_rows`), else the first bad row
    (1-based) and why: NaN / infinity, or zero length (an all-zero vector)."""
    bad = bad_rows(vectors)
    if not bad.size:
        return None
    i = int(bad[0])
    why = "has NaN or infinite values" if not np.isfinite(vectors[i]).all() else "is all zeros"
    return f"vector {i + 1} of {len(vectors)} {why}"


def store(db: sqlite_utils.Database, provider: str, model: str, keys: list[str], vectors: np.ndarray) -> None:
    """Insert (or replace) vectors for text hashes in one transaction."""
    put_embeddings(
        db,
        provider,
        model,
        [(key, int(vec.shape[0]), vec.astype("<f4").tobytes()) for key, vec in zip(keys, vectors, strict=True)],
    )
