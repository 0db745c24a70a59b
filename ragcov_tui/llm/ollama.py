"""``ollama:MODEL``: a model served by Ollama, spoken to over its OpenAI-compatible endpoint.

The server is ``$OLLAMA_HOST`` as Ollama itself reads it (``127.0.0.1:11434``, ``0.0.0.0``,
``http://gpu-box:11434``, ``https://ollama.example.org``): a scheme-less host gets ``http://``, a
host without a port gets :data:`DEFAULT_PORT`; unset means :data:`DEFAULT_HOST`. Requests go to
``{host}/v1`` (chat completions, ``/v1/models``) with ``$OLLAMA_API_KEY`` as the bearer key when
set (a proxy in front of Ollama), else a placeholder (Ollama checks none).

Ollama does not refuse a prompt longer than the model's context: it silently drops its head. So the
context size is read from the server before the first request (:func:`ollama_context_size`, from
``POST /api/show``) and every prompt is fitted to it (:mod:`ragcov_tui.llm.context_window`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import httpx

from ragcov_tui.llm.context_window import ContextWindow
from ragcov_tui.llm.openai_chat import OpenAIChat
from ragcov_tui.llm.openai_client import Endpoint
from ragcov_tui.shared.concurrency import DEFAULT_CONCURRENCY
from ragcov_tui.shared.http_retry import RetryPolicy
from ragcov_tui.shared.urls import check_url

if TYPE_CHECKING:
    import sqlite_utils

HOST_ENV = "OLLAMA_HOST"
KEY_ENV = "OLLAMA_API_KEY"
DEFAULT_PORT = 11434
DEFAULT_HOST = f"http://127.0.0.1:{DEFAULT_PORT}"
PLACEHOLDER_KEY = "ollama"  # the OpenAI SDK wants a key; Ollama ignores it
SHOW_TIMEOUT = 5.0
_NUM_CTX = re.compile(r"^\s*num_ctx\s+(\d+)\s*$", re.MULTILINE)


def ollama_host(raw: str | None = None) -> str:
    """The server's root URL from ``$OLLAMA_HOST`` (the module docstring); BadInput naming the
    variable when it is no http(s) address."""
    value = (os.environ.get(HOST_ENV, "") if raw is None else raw).strip().rstrip("/")
    if not value:
        return DEFAULT_HOST
    if "://" not in value:
        value = f"http://{value}"
    parts = urlsplit(value)
    if parts.scheme == "http" and parts.hostname and not re.search(r":\d*$", parts.netloc):
        value = parts._replace(netloc=f"{parts.netloc}:{DEFAULT_PORT}").geturl()  # https keeps 443
    return check_url(value, f"${HOST_ENV}").rstrip("/")


def context_from_show(show: Any) -> int | None:
    """The context a model runs with, from an ``/api/show`` reply: ``num_ctx`` in its
    ``parameters`` (what the server was told to use), else ``model_info``'s ``*.context_length``
    (what the model was trained for); ``None`` when neither is there."""
    if not isinstance(show, dict):
        return None
    parameters = show.get("parameters")
    match = _NUM_CTX.search(parameters) if isinstance(parameters, str) else None
    if match is not None and 0 < int(match.group(1)) < 10**8:
        return int(match.group(1))
    info = show.get("model_info")
    for key, value in info.items() if isinstance(info, dict) else ():
        if (
            str(key).endswith(".context_length")
            and isinstance(value, int)
            and not isinstance(value, bool)
            and 0 < value < 10**8
        ):
            return value
    return None


def ollama_context_size(host: str, model: str, key: str = PLACEHOLDER_KEY) -> int | None:
    """The context size ``host`` reports for ``model`` (:func:`context_from_show`), or ``None``
    when the server cannot say (no ``/api/show``, another server, unreachable: a run goes on)."""
    try:
        reply = httpx.post(
            f"{host}/api/show", json={"model": model}, timeout=SHOW_TIMEOUT, headers={"Authorization": f"Bearer {key}"}
        )
        return context_from_show(reply.json()) if reply.status_code == 200 else None
    except (httpx.HTTPError, ValueError):
        return None


def ollama_endpoint() -> Endpoint:
    """Where ``ollama:`` models are asked: ``{$OLLAMA_HOST}/v1``; the cache names the host."""
    host = ollama_host()
    key = os.environ.get(KEY_ENV, "").strip() or PLACEHOLDER_KEY
    return Endpoint(base_url=f"{host}/v1", api_key=key, identity=host)


class OllamaChat(OpenAIChat):
    """:class:`~ragcov_tui.llm.openai_chat.OpenAIChat` at ``$OLLAMA_HOST/v1`` whose context size is
    read from the server before the first request (the module docstring)."""

    provider = "ollama"

    def __init__(
        self,
        model: str,
        *,
        db: sqlite_utils.Database | None = None,
        concurrency: int = DEFAULT_CONCURRENCY,
        policy: RetryPolicy | None = None,
        warn: Callable[[str], None] | None = None,
    ) -> None:
        endpoint = ollama_endpoint()
        super().__init__(model, db=db, concurrency=concurrency, policy=policy, warn=warn, endpoint=endpoint)
        self.window = ContextWindow(
            probe=lambda: ollama_context_size(endpoint.identity, model, endpoint.api_key),
            notice=self._trim_notice,
            probe_first=True,
        )
