"""Building an embedder from a spec string, and embedding items that may carry their own vectors.

The specs and what each builds are the registry :data:`ragcov_tui.embeddings.providers.PROVIDERS`
(``local`` by default: all-MiniLM-L6-v2 int8 on onnxruntime).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from ragcov_tui.embeddings.base import Embedder
from ragcov_tui.embeddings.precomputed import PrecomputedEmbedder
from ragcov_tui.embeddings.providers import DEFAULT_EMBEDDER, PROVIDERS, parse_spec
from ragcov_tui.shared.concurrency import DEFAULT_CONCURRENCY
from ragcov_tui.shared.progress import Progress

if TYPE_CHECKING:
    import sqlite_utils


def make_embedder(
    spec: str = DEFAULT_EMBEDDER, *, db: sqlite_utils.Database | None = None, concurrency: int = DEFAULT_CONCURRENCY
) -> Embedder:
    """The embedder for ``spec``, caching into ``db``'s ``embedding_cache`` when a db is given. Every
    ``Embedder.spec`` builds the same embedder again (``local:all-MiniLM-L6-v2-int8``,
    ``hash:test-hash-256``), so a stored session's embedder can be rerun as it was."""
    provider, arg = parse_spec(spec or DEFAULT_EMBEDDER)
    embedder = PROVIDERS[provider].build(arg, concurrency)
    embedder.db = db
    return embedder


def embed_items(
    embedder: Embedder,
    texts: list[str],
    vectors: list[list[float] | None],
    *,
    what: str,
    progress: Progress | None = None,
    labels: Sequence[str] | None = None,
) -> np.ndarray:
    """Vectors for items: the given ones for ``precomputed`` (BadInput naming the first item
    without one, or with another dimension), else ``embedder.embed(texts)``.

    ``what`` names the items in messages (``chunks``, ``questions.jsonl``); ``labels`` (e.g. the
    item ids) names each row, else rows are numbered from 1.
    """
    if isinstance(embedder, PrecomputedEmbedder):
        return embedder.take(vectors, what=what, labels=labels)
    return embedder.embed(texts, progress=progress, stage=f"embedding {what}")


__all__ = ["DEFAULT_EMBEDDER", "embed_items", "make_embedder", "parse_spec"]
