"""``st:MODEL``: sentence-transformers, when installed (``pip install 'ragcov-tui[st]'``), for GPU boxes.

The model is loaded the way sentence-transformers loads it (its own cache or the Hugging Face
hub: the user chose this spec knowingly); vectors are normalised by the library.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from ragcov_tui.embeddings.base import Embedder
from ragcov_tui.shared.errors import BadInput

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer


class SentenceTransformerEmbedder(Embedder):
    single_flight = True  # see Embedder.single_flight
    provider = "st"
    batch_size = 128

    def __init__(self, model: str) -> None:
        super().__init__()
        try:
            import sentence_transformers  # noqa: F401  (only checking it is importable)
        except ImportError as exc:
            raise BadInput(f"embedder st:{model} needs sentence-transformers: pip install 'ragcov-tui[st]'") from exc
        self.model = model
        self._model = None
        self._lock = threading.Lock()

    def _loaded(self) -> SentenceTransformer:
        with self._lock:
            if self._model is None:
                from sentence_transformers import SentenceTransformer

                try:
                    self._model = SentenceTransformer(self.model)
                except (OSError, ValueError) as exc:
                    raise BadInput(f"embedder st:{self.model}: cannot load ({exc})") from exc
            return self._model

    @property
    def dim(self) -> int:
        return int(self._loaded().get_sentence_embedding_dimension())

    def _embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        vecs = self._loaded().encode(
            list(texts),
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return np.asarray(vecs, dtype=np.float32)
