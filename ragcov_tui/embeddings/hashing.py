"""``hash``: a tiny deterministic bag-of-words embedder for unit tests (never the default).

Each lower-cased word is hashed (sha256, so it is stable across processes) to one of ``dim``
buckets with a sign; the vector is the L2-normalised sum. Texts sharing words are close, texts
sharing none are near-orthogonal. It has no notion of meaning: its model name ``test-hash-DIM``
says so wherever a spec is shown. The local test API server embeds with the same function.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

import numpy as np

from ragcov_tui.embeddings.base import Embedder

_WORD = re.compile(r"\w+")


def hashed_vector(text: str, dim: int) -> np.ndarray:
    """Signed hashed bag of words, L2-normalised; a text without words maps to bucket 0."""
    vec = np.zeros(dim, dtype=np.float64)
    for word in _WORD.findall(text.lower()):
        h = int.from_bytes(hashlib.sha256(word.encode("utf-8")).digest()[:8], "little")
        vec[h % dim] += 1.0 if (h >> 32) & 1 else -1.0
    norm = float(np.linalg.norm(vec))
    if norm == 0:
        vec[0], norm = 1.0, 1.0
    return (vec / norm).astype(np.float32)


class HashEmbedder(Embedder):
    provider = "hash"
    batch_size = 256

    def __init__(self, dim: int = 256) -> None:
        super().__init__()
        self._dim = dim
        self.model = f"test-hash-{dim}"

    @property
    def dim(self) -> int:
        return self._dim

    def _embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self._dim), dtype=np.float32)
        self._add_tokens(sum(len(_WORD.findall(t)) for t in texts))
        return np.stack([hashed_vector(t, self._dim) for t in texts])
