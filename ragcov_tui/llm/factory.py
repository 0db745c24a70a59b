"""Building a chat model from a spec string.

``None``, ``""``, ``heuristic`` and ``none`` mean no LLM: callers use their offline heuristic and
label its scores as heuristic. ``openai:MODEL`` is any OpenAI-compatible server
(``OPENAI_API_KEY``, ``OPENAI_BASE_URL``); ``ollama:MODEL`` a model served by Ollama at ``$OLLAMA_HOST`` through its
OpenAI-compatible endpoint (:mod:`ragcov_tui.llm.ollama`); ``anthropic:MODEL`` Claude through
Anthropic's Messages API (the ``anthropic`` extra, :mod:`ragcov_tui.llm.anthropic_chat`);
``llamacpp:PATH.gguf`` a local GGUF model run in process
by llama.cpp (the ``local-llm`` extra, :mod:`ragcov_tui.llm.llamacpp_chat`). ``concurrency`` is stored on the model as
``.concurrency`` for callers fanning out with :func:`ragcov_tui.concurrency.run_bounded`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ragcov_tui.concurrency import DEFAULT_CONCURRENCY
from ragcov_tui.errors import BadInput
from ragcov_tui.llm.base import ChatModel

if TYPE_CHECKING:
    import sqlite_utils

OFFLINE_SPECS = {"", "heuristic", "none"}
PROVIDERS = ("openai", "ollama", "anthropic", "llamacpp")
EXAMPLES = {"openai": "openai:gpt-4o-mini", "ollama": "ollama:llama3.1:8b", "anthropic": "anthropic:claude-haiku-4-5",
            "llamacpp": "llamacpp:/models/model.gguf"}


def make_llm(spec: str | None, *, db: sqlite_utils.Database | None = None, concurrency: int = DEFAULT_CONCURRENCY,
             warn: Callable[[str], None] | None = None) -> ChatModel | None:
    """The chat model for ``spec`` (cached in ``db`` when given), or ``None`` for offline mode;
    ``warn`` hears once when the server does not list the model."""
    parsed = parse_spec(spec)
    if parsed is None:
        return None
    provider, model = parsed
    if provider == "llamacpp":
        from ragcov_tui.llm.llamacpp_chat import LlamaCppChat

        return LlamaCppChat(model, db=db, concurrency=concurrency, warn=warn)
    if provider == "ollama":
        from ragcov_tui.llm.ollama import OllamaChat

        return OllamaChat(model, db=db, concurrency=concurrency, warn=warn)
    if provider == "anthropic":
        from ragcov_tui.llm.anthropic_chat import AnthropicChat

        return AnthropicChat(model, db=db, concurrency=concurrency, warn=warn)
    from ragcov_tui.llm.openai_chat import OpenAIChat

    return OpenAIChat(model, db=db, concurrency=concurrency, warn=warn)


def parse_spec(spec: str | None) -> tuple[str, str] | None:
    """``(provider, model)`` of a ``PROVIDER:MODEL`` spec, ``None`` for offline;
    BadInput for any other spec. Builds nothing, so settings can check a spec before any work."""
    if spec is None or spec.strip().lower() in OFFLINE_SPECS:
        return None
    provider, _, model = spec.strip().partition(":")
    provider = provider.strip().lower()
    if provider not in PROVIDERS:
        raise BadInput(f"unknown LLM {spec!r}; expected openai:MODEL, ollama:MODEL, anthropic:MODEL, llamacpp:PATH.gguf, "
                       "or heuristic for the offline judge")
    if not model.strip():
        raise BadInput(f"LLM {spec!r}: name the model, e.g. {EXAMPLES[provider]}")
    return provider, model.strip()
