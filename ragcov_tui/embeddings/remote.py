"""HTTP embedders: ``openai:MODEL`` (any OpenAI-compatible server) and ``voyage:MODEL``.

``openai`` uses the openai SDK with ``OPENAI_API_KEY`` / ``OPENAI_BASE_URL`` (vLLM, Ollama,
llama.cpp and TEI speak the same protocol). ``voyage`` uses the voyageai client with
``VOYAGE_API_KEY`` and, when set, ``VOYAGE_BASE_URL`` (e.g. a proxy or a local test server);
texts are embedded with ``input_type=None`` so chunks and questions share one symmetric space.
Both retry through :mod:`ragcov_tui.shared.http_retry`, count every request they send (``tally``) and
the tokens from the replies' ``usage``.
Messages and cache keys name the server by its redacted URL (:mod:`ragcov_tui.shared.redact`); vectors
are cached per model and server (``cache_model`` = ``MODEL@URL``).
"""

from __future__ import annotations

import os
from abc import abstractmethod
from collections.abc import Sequence
from typing import Any

import numpy as np

from ragcov_tui.embeddings.base import Embedder
from ragcov_tui.llm.openai_client import classify_openai_error, make_openai_client, reply_object, require_env
from ragcov_tui.shared.concurrency import DEFAULT_CONCURRENCY
from ragcov_tui.shared.errors import ProviderError
from ragcov_tui.shared.http_retry import (
    Failure,
    RequestTally,
    RetryPolicy,
    call_with_retry,
    html_summary,
    root_cause_message,
    status_failure,
)
from ragcov_tui.shared.json_types import JsonObject
from ragcov_tui.shared.redact import redact_url
from ragcov_tui.shared.urls import check_url

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
    except (TypeError, ValueError) as exc:  # ragged rows, strings, nested junk
        raise ProviderError(f"{what}: malformed reply (the vectors are not lists of numbers of one length)") from exc
    if matrix.ndim != 2 or matrix.shape[0] != expected or matrix.shape[1] == 0:
        raise ProviderError(f"{what}: malformed reply (expected {expected} vectors, got shape {matrix.shape})")
    return matrix


class RemoteEmbedder(Embedder):
    """Shared parts: retry policy, lazily learnt dimension, bounded concurrency, the server's URL."""

    batch_size = 128
    paid = True

    def __init__(self, model: str, *, concurrency: int, policy: RetryPolicy | None) -> None:
        super().__init__()
        self.model = model
        self.concurrency = max(1, int(concurrency))
        self.policy = policy or RetryPolicy()
        self.tally = RequestTally()  # every request sent, retried and failed ones too

    def _embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        """One batch, its requests counted in ``self.tally`` (a malformed reply fails the call too)."""
        with self.tally.call():
            return self._request_batch(texts)

    @abstractmethod
    def _request_batch(self, texts: Sequence[str]) -> np.ndarray:
        """Send one batch through ``call_with_retry(..., on_attempt=self.tally.attempt)``."""

    def usage(self) -> JsonObject:
        """The embedder's stats and cost plus the requests sent (``requests``, ``retried``, ``failed``, ``abandoned``)."""
        return {**super().usage(), **self.tally.counts()}

    @property
    def cache_model(self) -> str:
        return f"{self.model}@{redact_url(self.base_url)}"

    @property
    def dim(self) -> int:
        """The dimension of the vectors returned so far; else known for common models; else one probe call."""
        if self.run_dim is None and self.model not in KNOWN_DIMS:
            self.run_dim = int(self._embed_batch([DIM_PROBE_TEXT]).shape[1])
        return self.run_dim or KNOWN_DIMS[self.model]


class OpenAIEmbedder(RemoteEmbedder):
    provider = "openai"

    def __init__(
        self, model: str, *, concurrency: int = DEFAULT_CONCURRENCY, policy: RetryPolicy | None = None
    ) -> None:
        super().__init__(model, concurrency=concurrency, policy=policy)
        self.client, self.base_url = make_openai_client(f"embedder openai:{model}", self.policy)
        self.what = f"openai embeddings at {redact_url(self.base_url)}"

    def _request_batch(self, texts: Sequence[str]) -> np.ndarray:
        reply = reply_object(
            call_with_retry(
                # float, not the SDK's default base64: every compatible server speaks it, and the SDK's
                # base64 decoder fails with an AttributeError on a reply that is not JSON
                lambda: self.client.embeddings.create(model=self.model, input=list(texts), encoding_format="float"),
                classify=classify_openai_error,
                policy=self.policy,
                what=self.what,
                on_attempt=self.tally.attempt,
            ),
            self.what,
        )
        data = getattr(reply, "data", None)
        if not isinstance(data, list):
            raise ProviderError(f"{self.what}: malformed reply (no 'data' list of embeddings)")
        data = sorted(data, key=lambda d: getattr(d, "index", 0) or 0)
        matrix = as_matrix([getattr(d, "embedding", None) for d in data], len(texts), self.what)
        usage = getattr(reply, "usage", None)
        self._add_tokens(getattr(usage, "total_tokens", 0) or getattr(usage, "prompt_tokens", 0) or 0)
        return matrix


def classify_voyage_error(exc: BaseException) -> Failure | None:
    """Map a voyageai client exception to a :class:`Failure`; ``None`` for non-provider errors."""
    from voyageai import error as verr

    if isinstance(exc, verr.Timeout):
        return Failure(reason="timed out", retryable=True)
    if isinstance(exc, verr.APIConnectionError):
        return Failure(reason=root_cause_message(exc), retryable=True, unreachable=True)
    if isinstance(exc, verr.VoyageError):
        status, body = exc.http_status or 0, str(exc.http_body or "")
        page = html_summary(body)  # a proxy's error or login page
        if status < 400:
            return Failure(reason=page or f"invalid JSON in reply ({root_cause_message(exc)})", retryable=False)
        return status_failure(status, body if page else exc.user_message or "", exc.headers)
    return None


class VoyageEmbedder(RemoteEmbedder):
    provider = "voyage"

    def __init__(
        self, model: str, *, concurrency: int = DEFAULT_CONCURRENCY, policy: RetryPolicy | None = None
    ) -> None:
        super().__init__(model, concurrency=concurrency, policy=policy)
        key = require_env("VOYAGE_API_KEY", f"embedder voyage:{model}")
        import voyageai  # imported here: it pulls in PIL and aiohttp

        base_url = os.environ.get("VOYAGE_BASE_URL", "").strip().rstrip("/") or None
        if base_url:
            check_url(base_url, "$VOYAGE_BASE_URL")
        self.client = voyageai.Client(api_key=key, max_retries=0, timeout=self.policy.timeout, base_url=base_url)
        self.base_url = base_url or "https://api.voyageai.com/v1"
        self.what = f"voyage embeddings at {redact_url(self.base_url)}"

    def _request_batch(self, texts: Sequence[str]) -> np.ndarray:
        reply = call_with_retry(
            lambda: self.client.embed(list(texts), model=self.model, input_type=None),
            classify=classify_voyage_error,
            policy=self.policy,
            what=self.what,
            on_attempt=self.tally.attempt,
        )
        matrix = as_matrix(getattr(reply, "embeddings", None), len(texts), self.what)
        self._add_tokens(getattr(reply, "total_tokens", 0) or 0)
        return matrix
