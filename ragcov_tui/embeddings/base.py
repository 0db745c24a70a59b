"""The embedder interface every provider implements.

``embed(texts)`` returns a float32 matrix of shape ``(len(texts), dim)`` whose rows are
L2-normalised, so cosine distance is ``1 - a @ b``. Providers implement ``_embed_batch`` for one
batch of raw texts; the base class does batching, progress and (when given a cache) the
SQLite embedding cache, so a second run with the same texts embeds nothing.
"""

from __future__ import annotations

import dataclasses
import threading
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ragcov_tui.llm.cost import cost_of, price_for
from ragcov_tui.progress import Progress

if TYPE_CHECKING:
    import sqlite_utils


@dataclass
class EmbedStats:
    """What one embedder instance did: texts asked for, served from cache, sent, calls, tokens."""

    texts: int = 0
    cached: int = 0
    embedded: int = 0
    calls: int = 0
    tokens: int = 0
    discarded: int = 0  # cached vectors not served (unusable or of another dimension) and embedded again


class Embedder(ABC):
    """A text → vector model. ``provider``/``model`` name it in sessions and in the cache key."""

    provider: str = ""
    model: str = ""
    batch_size: int = 64
    concurrency: int = 1  # batches in flight at once (remote providers raise it)
    db: sqlite_utils.Database | None = None  # the embedding cache; set by make_embedder(db=...)
    # CPU-bound models (ONNX, sentence-transformers) already use every core per call: callers on
    # several threads take turns (single flight), so no text is embedded twice at the same moment
    # and the calls do not fight over the cores. Remote providers keep their concurrency.
    single_flight: bool = False
    paid: bool = False  # a metered API: usage() adds the estimated cost
    what: str = ""  # where the vectors come from in messages (remote: the redacted server URL)
    base_url: str = ""  # the server a remote provider calls (its price depends on it: llm.cost)
    # The dimension of every vector this instance returns: set by the first batch embedded (or from
    # the cache when nothing needed embedding); run_dim_cached says which (embeddings.cache).
    run_dim: int | None = None
    run_dim_cached: bool = False

    def __init__(self) -> None:
        self.stats = EmbedStats()
        self._stats_lock = threading.Lock()
        self.flight_lock = threading.Lock()

    def _add_tokens(self, n: int) -> None:
        """Count tokens reported by a provider (thread-safe: ``_embed_batch`` runs in workers)."""
        with self._stats_lock:
            self.stats.tokens += int(n)

    def usage(self) -> dict[str, Any]:
        """The stats as a dict; a ``paid`` provider adds ``cost_usd`` = tokens × the price that
        applies at its server (:func:`ragcov_tui.llm.cost.price_for`), None when none does."""
        out: dict[str, Any] = dataclasses.asdict(self.stats)
        if self.paid:
            usd = cost_of(price_for(self.provider, self.model, self.base_url), self.stats.tokens)
            out["cost_usd"] = None if usd is None else round(usd, 6)
        return out

    @property
    def spec(self) -> str:
        """``provider:model`` as shown to users and stored in sessions."""
        return f"{self.provider}:{self.model}"

    @property
    def cache_model(self) -> str:
        """The ``model`` column of this embedder's cache entries (remote providers add the server)."""
        return self.model

    @property
    @abstractmethod
    def dim(self) -> int:
        """Vector dimension (may trigger loading the model)."""

    @abstractmethod
    def _embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        """Embed one batch; returns ``(len(texts), dim)`` float32 (normalisation done by caller)."""

    def embed(self, texts: Sequence[str], progress: Progress | None = None, stage: str = "embedding") -> np.ndarray:
        """Embed ``texts`` in batches; rows L2-normalised float32. Implemented in embeddings.cache."""
        from ragcov_tui.embeddings.cache import embed_with_cache

        return embed_with_cache(self, texts, progress=progress, stage=stage)


def l2_normalise(m: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (zero rows stay zero); float32."""
    m = np.asarray(m, dtype=np.float32)
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return m / norms
