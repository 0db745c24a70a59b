"""``precomputed``: vectors the user supplied in the input files (a ``vector`` field per row).

It cannot embed text, so :meth:`embed` raises BadInput; :func:`ragcov_tui.embeddings.factory.embed_items`
takes the given vectors instead, checks they all have one dimension (chunks and questions must
live in the same space) and L2-normalises them.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ragcov_tui.embeddings.base import EMBED_STAGE, Embedder, l2_normalise
from ragcov_tui.shared.errors import BadInput
from ragcov_tui.shared.progress import Progress


class PrecomputedEmbedder(Embedder):
    provider = "precomputed"
    model = "given"

    def __init__(self) -> None:
        super().__init__()
        self._dim: int | None = None

    @property
    def dim(self) -> int:
        """The dimension of the vectors seen so far (0 before any)."""
        return self._dim or 0

    def _embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        raise BadInput(
            "embedder precomputed cannot embed text: give every row a 'vector' field, or choose another --embedder"
        )

    def embed(self, texts: Sequence[str], progress: Progress | None = None, stage: str = EMBED_STAGE) -> np.ndarray:
        return self._embed_batch(texts)

    def take(self, vectors: list[list[float] | None], *, what: str, labels: Sequence[str] | None = None) -> np.ndarray:
        """Given vectors as a normalised float32 matrix; BadInput naming the first bad row."""
        names = list(labels) if labels is not None else [f"row {i + 1}" for i in range(len(vectors))]
        rows: list[np.ndarray] = []
        for name, vec in zip(names, vectors, strict=True):
            if vec is None:
                raise BadInput(f"{what}: {name} has no 'vector' field (needed by --embedder precomputed)")
            try:
                arr = np.asarray(vec, dtype=np.float32)
            except (TypeError, ValueError) as exc:
                raise BadInput(f"{what}: {name}: 'vector' is not a list of numbers") from exc
            if arr.ndim != 1 or arr.size == 0 or not np.all(np.isfinite(arr)):
                raise BadInput(f"{what}: {name}: 'vector' must be a non-empty list of finite numbers")
            if self._dim is None:
                self._dim = int(arr.size)
            elif arr.size != self._dim:
                raise BadInput(
                    f"{what}: {name}: vector has {arr.size} dimensions, expected {self._dim} like the vectors before it"
                )
            rows.append(arr)
        self.stats.texts += len(rows)
        if not rows:
            return np.zeros((0, self.dim), dtype=np.float32)
        return l2_normalise(np.stack(rows))
