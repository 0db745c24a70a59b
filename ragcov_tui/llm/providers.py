"""The chat providers, one :class:`Provider` per ``PROVIDER:MODEL`` scheme of ``--llm``, ``--judge-llm``
and ``--paraphrase-llm``: the one place a provider is listed. The spec parser, :func:`make_llm
<ragcov_tui.llm.factory.make_llm>`, the flags' help (:func:`llm_help`) and the README's provider table
(checked by ``tests/llm/test_llm_providers.py``) all follow from :data:`PROVIDERS`; adding a provider
is one entry here and its module (docs/architecture.md, "How to add").

``None``, ``""``, ``heuristic`` and ``none`` mean no LLM (:data:`OFFLINE_SPECS`): callers use their
offline heuristic and label its scores as heuristic. Nothing here builds a model or reads a key:
each provider's ``load`` imports its module when called, so SDKs and extras load only when used.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from ragcov_tui.shared.errors import BadInput
from ragcov_tui.shared.urls import env_url_check

if TYPE_CHECKING:
    import sqlite_utils

    from ragcov_tui.llm.base import ChatModel

OFFLINE_SPECS = {"", "heuristic", "none"}
OFFLINE_HELP = "heuristic for the offline judge"


class ChatBuilder(Protocol):
    """A chat model class: ``(model, db=, concurrency=, warn=)``; ``warn`` hears once when the
    server does not list the model."""

    def __call__(
        self, model: str, /, *, db: sqlite_utils.Database | None, concurrency: int, warn: Callable[[str], None] | None
    ) -> ChatModel: ...


@dataclass(frozen=True)
class Provider:
    """One chat scheme: ``form`` as help, errors and the README show it (``ollama:MODEL``),
    ``example`` a whole spec (named when the model is missing), ``description`` what it is and what
    it needs (Markdown, the README's table), ``load()`` the chat class (its module imported then),
    ``check_server()`` checks, before any work, the server address the environment names for it
    (BadInput naming the variable)."""

    name: str
    form: str
    example: str
    description: str
    load: Callable[[], ChatBuilder]
    check_server: Callable[[], object] | None = None


def _openai() -> ChatBuilder:
    from ragcov_tui.llm.openai_chat import OpenAIChat

    return OpenAIChat


def _ollama() -> ChatBuilder:
    from ragcov_tui.llm.ollama import OllamaChat

    return OllamaChat


def _ollama_host() -> str:
    from ragcov_tui.llm.ollama import ollama_host

    return ollama_host()


def _anthropic() -> ChatBuilder:
    from ragcov_tui.llm.anthropic_chat import AnthropicChat

    return AnthropicChat


def _llamacpp() -> ChatBuilder:
    from ragcov_tui.llm.llamacpp_chat import LlamaCppChat

    return LlamaCppChat


PROVIDERS: dict[str, Provider] = {
    p.name: p
    for p in (
        Provider(
            "openai",
            "openai:MODEL",
            "openai:gpt-4o-mini",
            "any OpenAI-compatible server: `OPENAI_API_KEY`, `OPENAI_BASE_URL` (vLLM, llama.cpp, LM Studio, proxies)",
            _openai,
            env_url_check("OPENAI_BASE_URL"),
        ),
        Provider(
            "ollama",
            "ollama:MODEL",
            "ollama:llama3.1:8b",
            "a model served by Ollama (`ollama:llama3.1:8b`) over its OpenAI-compatible endpoint at `OLLAMA_HOST` "
            "(below); no key (`OLLAMA_API_KEY` for a proxy that wants one)",
            _ollama,
            _ollama_host,
        ),
        Provider(
            "anthropic",
            "anthropic:MODEL",
            "anthropic:claude-haiku-4-5",
            "Claude through Anthropic's Messages API (`pip install 'ragcov-tui[anthropic]'`): `ANTHROPIC_API_KEY`, "
            "`ANTHROPIC_BASE_URL` for a gateway (below)",
            _anthropic,
            env_url_check("ANTHROPIC_BASE_URL"),
        ),
        Provider(
            "llamacpp",
            "llamacpp:PATH.gguf",
            "llamacpp:/models/model.gguf",
            "a local GGUF model run in process (`pip install 'ragcov-tui[local-llm]'`, below)",
            _llamacpp,
        ),
    )
}


def parse_spec(spec: str | None) -> tuple[str, str] | None:
    """``(provider, model)`` of a ``PROVIDER:MODEL`` spec, ``None`` for offline;
    BadInput for any other spec. Builds nothing, so settings can check a spec before any work."""
    if spec is None or spec.strip().lower() in OFFLINE_SPECS:
        return None
    name, _, model = spec.strip().partition(":")
    provider = PROVIDERS.get(name.strip().lower())
    if provider is None:
        raise BadInput(
            f"unknown LLM {spec!r}; expected {', '.join(p.form for p in PROVIDERS.values())}, or {OFFLINE_HELP}"
        )
    if not model.strip():
        raise BadInput(f"LLM {spec!r}: name the model, e.g. {provider.example}")
    return provider.name, model.strip()


def llm_help() -> str:
    """The chat specs for help text: ``openai:MODEL, ollama:MODEL, anthropic:MODEL or llamacpp:PATH.gguf``."""
    *first, last = (p.form for p in PROVIDERS.values())
    return f"{', '.join(first)} or {last}" if first else last


def llm_table() -> str:
    """The README's chat provider table (Markdown), one row per provider."""
    rows = [f"| `{p.form}` | {p.description} |" for p in PROVIDERS.values()]
    return "\n".join(["| `--llm` / `--judge-llm` / `--paraphrase-llm` | |", "|---|---|", *rows])
