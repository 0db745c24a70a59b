"""``llamacpp:PATH.gguf``: a local GGUF chat model, served in process by llama.cpp.

The model runs in llama.cpp's own server (:mod:`ragcov_tui.llm.llamacpp_server`) and is asked
through :class:`~ragcov_tui.llm.openai_chat.OpenAIChat` at the server's ``127.0.0.1`` URL: the
cache, retries, structured output (enforced by llama.cpp's grammar) and context fitting are that
one code path; schemas go with length bounds (:func:`~ragcov_tui.llm.reply_schemas.bounded_schema`),
which llama.cpp's grammar enforces, so a small model cannot loop inside one string. The cache
names the model file (path, size, mtime, context), not the port; the
context size is known from the start, so long prompts are trimmed before they are sent. A long
prompt on a CPU takes long before its first token: the request timeout and the silence a streamed
reply may keep are :data:`LOCAL_TIMEOUT` unless ``$RAGCOV_HTTP_TIMEOUT`` / ``$RAGCOV_HTTP_IDLE_TIMEOUT``
say otherwise.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING

from ragcov_tui.llm.llamacpp_server import LOCAL_KEY, local_server
from ragcov_tui.llm.openai_chat import OpenAIChat
from ragcov_tui.llm.openai_client import Endpoint
from ragcov_tui.shared.concurrency import DEFAULT_CONCURRENCY
from ragcov_tui.shared.http_retry import RetryPolicy

if TYPE_CHECKING:
    import sqlite_utils

LOCAL_TIMEOUT = 600.0  # seconds per request, and of silence in a streamed reply


class LlamaCppChat(OpenAIChat):
    provider = "llamacpp"

    def __init__(
        self,
        path: str,
        *,
        db: sqlite_utils.Database | None = None,
        concurrency: int = DEFAULT_CONCURRENCY,
        warn: Callable[[str], None] | None = None,
    ) -> None:
        self.server = local_server(path)
        policy = RetryPolicy()
        if not os.environ.get("RAGCOV_HTTP_TIMEOUT", "").strip():
            policy.timeout = LOCAL_TIMEOUT
        if not os.environ.get("RAGCOV_HTTP_IDLE_TIMEOUT", "").strip():
            policy.idle_timeout = LOCAL_TIMEOUT
        super().__init__(
            self.server.model,
            db=db,
            concurrency=concurrency,
            warn=warn,
            policy=policy,
            endpoint=Endpoint(self.server.base_url, LOCAL_KEY, self.server.identity, self.server.n_ctx),
        )
        self.ladder.bounded = True  # llama.cpp's grammar enforces string and list bounds
