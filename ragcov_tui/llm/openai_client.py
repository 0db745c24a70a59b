"""One place that builds OpenAI-compatible clients and classifies their errors.

Used by the ``openai:MODEL`` embedder and chat model alike. ``OPENAI_API_KEY`` is required (any
non-empty value works for local servers); ``OPENAI_BASE_URL`` points at any OpenAI-compatible
server (vLLM, Ollama, llama.cpp, TEI). The SDK's own retries are off: :mod:`ragcov_tui.http_retry`
retries, so that embeddings and chat share one policy and one error message format.
"""

from __future__ import annotations

import json
import os
from typing import Any

import openai

from ragcov_tui.errors import ConfigError, ProviderError
from ragcov_tui.urls import check_url
from ragcov_tui.http_retry import Failure, RetryPolicy, html_summary, root_cause_message, status_failure

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


def make_openai_client(purpose: str, policy: RetryPolicy) -> tuple[openai.OpenAI, str]:
    """An SDK client (no SDK retries, the policy's timeout) and the base URL it talks to."""
    key = require_env("OPENAI_API_KEY", purpose)
    base_url = openai_base_url()
    return openai.OpenAI(api_key=key, base_url=base_url, max_retries=0, timeout=policy.timeout), base_url


def reply_object(reply: Any, what: str) -> Any:
    """The SDK's parsed reply; a ProviderError naming ``what`` when the server answered 200 with
    something that is not JSON (the SDK then hands back the body as a string), e.g. a proxy's page."""
    if isinstance(reply, (str, bytes)):
        text = reply.decode("utf-8", "replace") if isinstance(reply, bytes) else reply
        snippet = " ".join(text.split())[:80]
        raise ProviderError(f"{what}: the reply is {html_summary(text) or f'not JSON ({snippet!r})'}")
    return reply


def _status_detail(exc: openai.APIStatusError) -> str:
    body: Any = exc.body
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
        return status_failure(exc.status_code, _status_detail(exc), exc.response.headers)
    if isinstance(exc, (json.JSONDecodeError, openai.APIResponseValidationError, UnicodeDecodeError)):
        return Failure(reason=f"invalid JSON in reply ({root_cause_message(exc)})", retryable=False)
    return None
