"""Does the server serve the model that was asked for? One look at ``GET {base_url}/models``.

OpenAI-compatible servers (vLLM, Ollama, llama.cpp, proxies) often answer any ``model`` name with
whatever they have loaded, so ``--judge-llm openai:gpt-4o-mini`` against a local server silently
judges with another model. Before the first request a model sends, :class:`ModelListCheck` asks
the server for its model list once (short timeout, no retries, not counted as usage) and warns in
one line when the list does not hold the model. A server without ``/models``, or one that fails
to answer it, gets no warning: the check never fails or slows a run by more than its timeout.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from ragcov_tui.shared.input_values import quoted
from ragcov_tui.shared.number_text import count

LIST_TIMEOUT = 2.0  # seconds for the one GET
SHOWN = 3  # model names quoted in the warning


def unlisted_model_note(client: Any, model: str, what: str) -> str | None:
    """The warning for ``model`` when the server of ``client`` (an ``openai.OpenAI``) lists models
    and ``model`` is not among them; ``None`` when it is listed or the list cannot be had."""
    try:
        page = client.with_options(timeout=LIST_TIMEOUT, max_retries=0).models.list()
        ids = sorted({str(m.id) for m in page.data if isinstance(getattr(m, "id", None), str)})
    except Exception:  # no /models route, an error page, a timeout: nothing to say
        return None
    if not ids or model in ids:
        return None
    shown = ", ".join(quoted(i) for i in ids[:SHOWN]) + (
        f", +{count(len(ids) - SHOWN)} more" if len(ids) > SHOWN else ""
    )
    return f"{what} does not list model {quoted(model)} (it serves {shown}); its replies may come from another model"


class ModelListCheck:
    """Run :func:`unlisted_model_note` once per model instance and pass a warning to ``warn``
    (nothing is asked when ``warn`` is None). Thread-safe: the first caller checks, the others go on."""

    def __init__(self, warn: Callable[[str], None] | None) -> None:
        self.warn = warn
        self._lock = threading.Lock()
        self._done = warn is None

    def __call__(self, client: Any, model: str, what: str) -> None:
        with self._lock:
            if self._done:
                return
            self._done = True
        note = unlisted_model_note(client, model, what)
        if note is not None and self.warn is not None:
            self.warn(note)
