"""HTTP embedders: ``openai:MODEL`` (any OpenAI-compatible server) and ``voyage:MODEL``.

``openai`` uses the openai SDK with ``OPENAI_API_KEY`` / ``OPENAI_BASE_URL`` (vLLM, Ollama,
llama.cpp and TEI speak the same protocol). ``voyage`` uses the voyageai client with
``VOYAGE_API_KEY`` and, when set, ``VOYAGE_BASE_URL`` (e.g. a proxy or a local test server);
texts are embedded with ``input_type=None`` so chunks and questions share one symmetric space.
Both retry through :mod:`ragcov_tui.http_retry` and count tokens from the replies' ``usage``.
"""

from __future__ import annotations

import os
from typing import Any, Sequence

import numpy as np

from ragcov_tui.embeddings.base import Embedder
from ragcov_tui.errors import ProviderError
from ragcov_tui.http_retry import Failure, RetryPolicy, call_with_retry, root_cause_message, status_failure
from ragcov_tui.llm.openai_client import classify_openai_error, make_openai_client, require_env

KNOWN_DIMS = {
    "text-embedding-3-small": 1536,
    "text-embedding-3-large": 3072,
    "text-embedding-ada-002": 1536,
    "voyage-3": 1024,
    "voyage-3-large": 1024,
    "voyage-3.5": 1024,
    "voyage-3.5-lite": 1024,
    "voyage-3-lite": 512,
}
DIM_PROBE_TEXT = "dimension probe"


def as_matrix(rows: Any, expected: int, what: str) -> np.ndarray:
    """Reply vectors as a float32 matrix, or a ProviderError saying what was wrong with them."""
    try:
        matrix = np.asarray(rows, dtype=np.float32)
    except (TypeError, ValueError) as exc:
        raise ProviderError(f"{what}: malformed reply ({exc})") from exc
    if matrix.ndim != 2 or matrix.shape[0] != expected or matrix.shape[1] == 0:
        raise ProviderError(f"{what}: malformed reply (expected {expected} vectors, got shape {matrix.shape})")
    return matrix


class RemoteEmbedder(Embedder):
    """Shared parts: retry policy, lazily learnt dimension, bounded concurrency."""

    batch_size = 128
    paid = True

    def __init__(self, model: str, *, concurrency: int, policy: RetryPolicy | None) -> None:
        super().__init__()
        self.model = model
        self.concurrency = max(1, int(concurrency))
        self.policy = policy or RetryPolicy()
        self._dim: int | None = KNOWN_DIMS.get(model)

    @property
    def dim(self) -> int:
        """Known for common models; otherwise learnt from the first reply (one probe call if needed)."""
        if self._dim is None:
            self._dim = int(self._embed_batch([DIM_PROBE_TEXT]).shape[1])
        return self._dim

    def _remember_dim(self, matrix: np.ndarray) -> np.ndarray:
        self._dim = int(matrix.shape[1])
        return matrix


class OpenAIEmbedder(RemoteEmbedder):
    provider = "openai"

    def __init__(self, model: str, *, concurrency: int = 4, policy: RetryPolicy | None = None) -> None:
        super().__init__(model, concurrency=concurrency, policy=policy)
        self.client, self.base_url = make_openai_client(f"embedder openai:{model}", self.policy)
        self.what = f"openai embeddings at {self.base_url}"

    def _embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        reply = call_with_retry(
            lambda: self.client.embeddings.create(model=self.model, input=list(texts)),
            classify=classify_openai_error, policy=self.policy, what=self.what,
        )
        data = sorted(reply.data or [], key=lambda d: d.index)
        matrix = as_matrix([d.embedding for d in data], len(texts), self.what)
        usage = getattr(reply, "usage", None)
        self._add_tokens(getattr(usage, "total_tokens", 0) or getattr(usage, "prompt_tokens", 0) or 0)
        return self._remember_dim(matrix)


def classify_voyage_error(exc: BaseException) -> Failure | None:
    """Map a voyageai client exception to a :class:`Failure`; ``None`` for non-provider errors."""
    from voyageai import error as verr

    if isinstance(exc, verr.Timeout):
        return Failure(reason="timed out", retryable=True)
    if isinstance(exc, verr.APIConnectionError):
        return Failure(reason=root_cause_message(exc), retryable=True, unreachable=True)
    if isinstance(exc, verr.VoyageError):
        status = exc.http_status or 0
        if status < 400:
            return Failure(reason=f"invalid JSON in reply ({root_cause_message(exc)})", retryable=False)
        return status_failure(status, exc.user_message or "", exc.headers)
    return None


class VoyageEmbedder(RemoteEmbedder):
    provider = "voyage"

    def __init__(self, model: str, *, concurrency: int = 4, policy: RetryPolicy | None = None) -> None:
        super().__init__(model, concurrency=concurrency, policy=policy)
        key = require_env("VOYAGE_API_KEY", f"embedder voyage:{model}")
        import voyageai  # imported here: it pulls in PIL and aiohttp

        base_url = os.environ.get("VOYAGE_BASE_URL", "").strip().rstrip("/") or None
        self.client = voyageai.Client(api_key=key, max_retries=0, timeout=self.policy.timeout, base_url=base_url)
        self.base_url = base_url or "https://api.voyageai.com/v1"
        self.what = f"voyage embeddings at {self.base_url}"

    def _embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        reply = call_with_retry(
            lambda: self.client.embed(list(texts), model=self.model, input_type=None),
            classify=classify_voyage_error, policy=self.policy, what=self.what,
        )
        matrix = as_matrix(reply.embeddings, len(texts), self.what)
        self._add_tokens(reply.total_tokens or 0)
        return self._remember_dim(matrix)
