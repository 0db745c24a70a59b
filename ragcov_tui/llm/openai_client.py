"""One place that builds OpenAI-compatible clients and classifies their errors.

Used by the ``openai:MODEL`` embedder and chat model alike. ``OPENAI_API_KEY`` is required (any
non-empty value works for local servers); ``OPENAI_BASE_URL`` points at any OpenAI-compatible
server (vLLM, Ollama, llama.cpp, TEI). The SDK's own retries are off: :mod:`ragcov_tui.shared.http_retry`
retries, so that embeddings and chat share one policy and one error message format.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any

import httpx
import openai

from ragcov_tui.llm.context_window import context_overflow
from ragcov_tui.shared.errors import ConfigError, ProviderError
from ragcov_tui.shared.http_retry import Failure, RetryPolicy, html_summary, root_cause_message, status_failure
from ragcov_tui.shared.urls import check_url

DEFAULT_BASE_URL = "https://api.openai.com/v1"


def require_env(name: str, purpose: str) -> str:
    """The value of the API-key variable ``name``, or a one-line ConfigError saying how to set it."""
    value = os.environ.get(name, "").strip()
    if not value:
        raise ConfigError(
            f"{purpose} needs the environment variable {name}; set it to your API key "
            f"(any non-empty value works for local servers that do not check keys)"
        )
    return value


def openai_base_url() -> str:
    """``OPENAI_BASE_URL`` without a trailing slash, or the public OpenAI endpoint; BadInput naming
    the variable when it is not an http(s) URL."""
    return check_url(os.environ.get("OPENAI_BASE_URL", "").strip() or DEFAULT_BASE_URL, "$OPENAI_BASE_URL").rstrip("/")


@dataclass(frozen=True)
class Endpoint:
    """A server given in code rather than by ``OPENAI_BASE_URL`` (the in-process llama.cpp server):
    its URL, the key it wants, what the LLM cache calls it (stable across runs, unlike a random
    port) and its context size."""

    base_url: str
    api_key: str
    identity: str
    n_ctx: int | None = None


def make_openai_client(
    purpose: str, policy: RetryPolicy, endpoint: Endpoint | None = None
) -> tuple[openai.OpenAI, str]:
    """An SDK client (no SDK retries, the policy's timeout) and the base URL it talks to:
    ``endpoint`` when given, else ``OPENAI_BASE_URL`` / ``OPENAI_API_KEY``."""
    key = endpoint.api_key if endpoint is not None else require_env("OPENAI_API_KEY", purpose)
    base_url = endpoint.base_url if endpoint is not None else openai_base_url()
    return openai.OpenAI(api_key=key, base_url=base_url, max_retries=0, timeout=policy.timeout), base_url


def server_get_json(client: openai.OpenAI, path: str, timeout: float = 5.0) -> Any:
    """GET ``path`` at the root of the client's server (``/props``, ``/v1/models``): the parsed
    JSON, or ``None`` on any failure (these probes are optional; servers without them are fine)."""
    root = str(client.base_url).rstrip("/").removesuffix("/v1")
    try:
        reply = httpx.get(root + path, headers={"Authorization": f"Bearer {client.api_key}"}, timeout=timeout)
        return reply.json() if reply.status_code == 200 else None
    except (httpx.HTTPError, ValueError):
        return None


def reply_object(reply: Any, what: str) -> Any:
    """The SDK's parsed reply; a ProviderError naming ``what`` when the server answered 200 with
    something that is not JSON (the SDK then hands back the body as a string), e.g. a proxy's page."""
    if isinstance(reply, (str, bytes)):
        text = reply.decode("utf-8", "replace") if isinstance(reply, bytes) else reply
        snippet = " ".join(text.split())[:80]
        raise ProviderError(f"{what}: the reply is {html_summary(text) or f'not JSON ({snippet!r})'}")
    return reply


def status_detail(exc: openai.APIStatusError) -> str:
    return body_detail(exc.body)


def body_detail(body: Any) -> str:
    """The message of an error body: ``error.message`` (OpenAI's and Anthropic's shape), else the
    body in short."""
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return str(inner["message"])
        return json.dumps(body)[:200]
    return str(body or "")


def classify_openai_error(exc: BaseException) -> Failure | None:
    """Map an OpenAI SDK exception to a :class:`Failure`; ``None`` for non-provider errors."""
    if isinstance(exc, openai.APITimeoutError):
        return Failure(reason="timed out", retryable=True)
    if isinstance(exc, openai.APIConnectionError):
        return Failure(reason=root_cause_message(exc), retryable=True, unreachable=True)
    if isinstance(exc, openai.APIStatusError):
        detail = status_detail(exc)
        failure = status_failure(exc.status_code, detail, exc.response.headers)
        if context_overflow(exc.status_code, detail, exc.body) is not None:
            failure.retryable = False  # the same prompt overflows again: a "too large" 500 is no outage
        return failure
    if isinstance(exc, (json.JSONDecodeError, openai.APIResponseValidationError, UnicodeDecodeError)):
        return Failure(reason=f"invalid JSON in reply ({root_cause_message(exc)})", retryable=False)
    return None
