"""``openai:MODEL`` chat completions against any OpenAI-compatible server.

``OPENAI_API_KEY`` / ``OPENAI_BASE_URL`` as for embeddings. Temperature 0 unless asked. Replies
are cached (see :mod:`ragcov_tui.llm.cache`) when a database is given — never an empty reply
(``content: null``) nor, for plain text, one cut off by the token limit (``finish_reason: "length"``);
a JSON reply cut off is kept, since its caller judges it (a grammar-bound reply may be complete
JSON followed by padding) and forgets it (:meth:`forget`) when unusable, so that a rerun repeats the same
exchange without a request; callers :meth:`forget` a reply that failed their validation — retried through
:mod:`ragcov_tui.shared.http_retry`, and counted into ``self.usage``: every request sent, retried and
failed ones too, and an estimated cost where a price applies to this server
(:mod:`ragcov_tui.llm.cost`; else unknown). The first request sent checks once that the server
lists the model (:mod:`ragcov_tui.llm.model_check`). ``json_mode=True`` asks for plain JSON mode,
``json_mode=ReplySchema(...)`` for structured output with that schema; a server that refuses the
format steps down json_schema → json_object → prompt-only, per refusal, remembered per model for
the run (:mod:`ragcov_tui.llm.structured`). A prompt too long for the server's context is trimmed
(passages first, never the instructions) and sent again, at most twice
(:mod:`ragcov_tui.llm.context_window`). Replies stream (:mod:`ragcov_tui.llm.chat_stream`): a slow
server is cut off only after ``$RAGCOV_HTTP_IDLE_TIMEOUT`` seconds without a token.
``logprobs=N`` sends OpenAI's ``logprobs`` / ``top_logprobs`` (llama.cpp's server maps them to its
``n_probs``); the alternatives come back in ``ChatReply.top_logprobs`` and are cached with the reply.
Thread-safe: judges call :meth:`chat` from worker threads.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING

import openai

from ragcov_tui.llm.base import ChatReply, Message
from ragcov_tui.llm.cache import LLMCache
from ragcov_tui.llm.cached_chat import CachedChat
from ragcov_tui.llm.chat_stream import StreamMode, classify_chat_error, streamed_reply
from ragcov_tui.llm.context_window import ContextWindow, context_overflow, server_context_size
from ragcov_tui.llm.cost import price_for
from ragcov_tui.llm.model_check import ModelListCheck
from ragcov_tui.llm.openai_client import (
    Endpoint,
    make_openai_client,
    server_get_json,
    status_detail,
)
from ragcov_tui.llm.reply_schemas import ReplySchema
from ragcov_tui.llm.structured import FormatLadder, is_format_refusal
from ragcov_tui.shared.concurrency import DEFAULT_CONCURRENCY
from ragcov_tui.shared.errors import ConfigError, ProviderError
from ragcov_tui.shared.http_retry import RetryPolicy, call_with_retry
from ragcov_tui.shared.input_values import is_ascii_whole
from ragcov_tui.shared.json_types import JsonObject
from ragcov_tui.shared.redact import redact_url
from ragcov_tui.shared.safe_text import visible

MAX_TOKENS_ENV = "RAGCOV_LLM_MAX_TOKENS"  # caps every reply (slow local models, quick test runs)
MAX_OVERFLOW_RETRIES = 2  # trimmed resends after a context overflow; the format ladder has 2 steps more

if TYPE_CHECKING:
    import sqlite_utils


def capped_max_tokens(max_tokens: int | None) -> int | None:
    """``max_tokens``, lowered to ``$RAGCOV_LLM_MAX_TOKENS`` when that is set (and smaller)."""
    raw = os.environ.get(MAX_TOKENS_ENV, "").strip()
    if not raw:
        return max_tokens
    if not is_ascii_whole(raw) or int(raw) < 1:
        raise ConfigError(f"${MAX_TOKENS_ENV}: expected a whole number of tokens above 0, got {visible(raw)!r}")
    return int(raw) if max_tokens is None else min(max_tokens, int(raw))


class OpenAIChat(CachedChat):
    provider = "openai"

    def __init__(
        self,
        model: str,
        *,
        db: sqlite_utils.Database | None = None,
        concurrency: int = DEFAULT_CONCURRENCY,
        policy: RetryPolicy | None = None,
        warn: Callable[[str], None] | None = None,
        endpoint: Endpoint | None = None,
    ) -> None:
        super().__init__()
        self.model = model
        self.concurrency = max(1, int(concurrency))
        self.policy = policy or RetryPolicy()
        self.client, self.base_url = make_openai_client(f"LLM {self.provider}:{model}", self.policy, endpoint)
        self.identity = endpoint.identity if endpoint is not None else self.base_url  # what the cache key names
        self.what = f"{self.provider} chat at {redact_url(self.base_url)}"
        self.cache = LLMCache(db) if db is not None else None
        self.warn = warn
        self.ladder = FormatLadder(f"LLM {self.provider}:{model}")
        self.window = ContextWindow(
            endpoint.n_ctx if endpoint is not None else None,
            probe=lambda: server_context_size(lambda path: server_get_json(self.client, path)),
            notice=self._trim_notice,
        )
        self.usage.price = price_for(self.provider, model, self.base_url)
        self.check_model = ModelListCheck(warn)  # warns once if the server does not list the model
        self.stream_mode = StreamMode(notice=self._stream_notice)

    def _max_tokens(self, max_tokens: int | None) -> int | None:
        return capped_max_tokens(max_tokens)

    def _before_request(self) -> None:
        self.check_model(self.client, self.model, self.what)

    def _complete(
        self,
        messages: list[Message],
        temperature: float,
        max_tokens: int | None,
        json_mode: bool | ReplySchema,
        logprobs: int = 0,
    ) -> ChatReply:
        """One answer: down the format ladder on a refusal of the format, trimmed again on an overflow."""
        schema = json_mode if isinstance(json_mode, ReplySchema) else None
        sent = self._fitted(self.window.fit(messages, max_tokens))
        overflows = 0
        while True:
            kwargs: JsonObject = {"model": self.model, "messages": sent, "temperature": temperature}
            if max_tokens is not None:
                kwargs["max_tokens"] = max_tokens
            if logprobs > 0:  # OpenAI's names; llama.cpp's server maps them to its n_probs
                kwargs.update(logprobs=True, top_logprobs=logprobs)
            rung, response_format = self.ladder.response_format(schema) if json_mode else (-1, None)
            if response_format is not None:
                kwargs["response_format"] = response_format
            try:
                return self._request(kwargs)
            except ProviderError as exc:
                cause = exc.__cause__
                if not isinstance(cause, openai.APIStatusError):
                    raise
                detail = status_detail(cause)
                if response_format is not None and is_format_refusal(cause.status_code, detail):
                    self.ladder.refused(rung, detail, self.warn)
                    continue
                overflow = context_overflow(cause.status_code, detail, cause.body)
                if overflow is None or overflows >= MAX_OVERFLOW_RETRIES:
                    raise
                overflows += 1
                sent = self._fitted(self.window.after_overflow(overflow, sent, messages, max_tokens), exc)

    def _stream_notice(self, detail: str) -> None:
        if self.warn is not None:
            self.warn(
                f"LLM {self.provider}:{self.model}: the server refuses streamed replies ({visible(detail)}); "
                "replies are asked whole, each within $RAGCOV_HTTP_TIMEOUT"
            )

    def _request(self, kwargs: JsonObject) -> ChatReply:
        """One reply, streamed (:mod:`ragcov_tui.llm.chat_stream`: timed by silence, not length)."""
        return call_with_retry(
            lambda: streamed_reply(self.client, kwargs, self.policy, self.what, self.stream_mode),
            classify=classify_chat_error,
            policy=self.policy,
            what=self.what,
            on_attempt=self.usage.attempt,
        )
