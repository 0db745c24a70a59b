"""Building a chat model from a spec string.

The specs and the chat class each builds are the registry :data:`ragcov_tui.llm.providers.PROVIDERS`
(``openai:MODEL`` any OpenAI-compatible server, ``ollama:MODEL``, ``anthropic:MODEL``,
``llamacpp:PATH.gguf``); ``None``, ``""``, ``heuristic`` and ``none`` mean no LLM. ``concurrency``
is stored on the model as ``.concurrency`` for callers fanning out with
:func:`ragcov_tui.shared.concurrency.run_bounded`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ragcov_tui.llm.base import ChatModel
from ragcov_tui.llm.providers import PROVIDERS, parse_spec
from ragcov_tui.shared.concurrency import DEFAULT_CONCURRENCY

if TYPE_CHECKING:
    import sqlite_utils


def make_llm(
    spec: str | None,
    *,
    db: sqlite_utils.Database | None = None,
    concurrency: int = DEFAULT_CONCURRENCY,
    warn: Callable[[str], None] | None = None,
) -> ChatModel | None:
    """The chat model for ``spec`` (cached in ``db`` when given), or ``None`` for offline mode;
    ``warn`` hears once when the server does not list the model."""
    parsed = parse_spec(spec)
    if parsed is None:
        return None
    provider, model = parsed
    return PROVIDERS[provider].load()(model, db=db, concurrency=concurrency, warn=warn)


__all__ = ["make_llm", "parse_spec"]
