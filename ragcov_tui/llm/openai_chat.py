"""``openai:MODEL`` chat completions against any OpenAI-compatible server.

``OPENAI_API_KEY`` / ``OPENAI_BASE_URL`` as for embeddings. Temperature 0 unless asked. Replies
are cached (see :mod:`ragcov_tui.llm.cache`) when a database is given — never an empty reply
(``content: null``) nor one cut off by the token limit (``finish_reason: "length"``), and callers
:meth:`forget` a reply that failed their validation — retried through
:mod:`ragcov_tui.http_retry`, and counted into ``self.usage``: every request sent, retried and
failed ones too, and an estimated cost where a price applies to this server
(:mod:`ragcov_tui.llm.cost`; else unknown). The first request sent checks once that the server
lists the model (:mod:`ragcov_tui.llm.model_check`). ``json_mode=True`` asks for
``response_format={"type": "json_object"}``; a server that answers 400 to that is remembered and
asked again without it (the prompt still says "JSON", and :mod:`ragcov_tui.llm.json_reply`
parses leniently). Thread-safe: judges call :meth:`chat` from worker threads.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

import openai

from ragcov_tui.concurrency import DEFAULT_CONCURRENCY
from ragcov_tui.errors import ProviderError
from ragcov_tui.http_retry import RetryPolicy, call_with_retry
from ragcov_tui.llm.base import ChatModel, ChatReply, Message
from ragcov_tui.llm.cache import LLMCache, cache_key
from ragcov_tui.llm.cost import price_for
from ragcov_tui.llm.model_check import ModelListCheck
from ragcov_tui.llm.openai_client import classify_openai_error, make_openai_client, reply_object
from ragcov_tui.redact import redact_url

if TYPE_CHECKING:
    import sqlite_utils


class OpenAIChat(ChatModel):
    provider = "openai"

    def __init__(self, model: str, *, db: "sqlite_utils.Database | None" = None, concurrency: int = DEFAULT_CONCURRENCY,
                 policy: RetryPolicy | None = None, warn: Callable[[str], None] | None = None) -> None:
        super().__init__()
        self.model = model
        self.concurrency = max(1, int(concurrency))
        self.policy = policy or RetryPolicy()
        self.client, self.base_url = make_openai_client(f"LLM openai:{model}", self.policy)
        self.what = f"openai chat at {redact_url(self.base_url)}"
        self.cache = LLMCache(db) if db is not None else None
        self.json_mode_supported = True  # set False after the server rejects response_format
        self.usage.price = price_for(self.provider, model, self.base_url)
        self.check_model = ModelListCheck(warn)  # warns once if the server does not list the model

    def chat(self, messages: list[Message], *, temperature: float = 0.0, max_tokens: int | None = None,
             json_mode: bool = False) -> ChatReply:
        params: dict[str, Any] = {"temperature": temperature, "max_tokens": max_tokens, "json_mode": json_mode}
        key, request = cache_key(self.provider, self.base_url, self.model, messages, params)
        reply = self.cache.get(key) if self.cache is not None else None
        if reply is None or not reply.text.strip():  # an empty entry (older versions stored them) is no answer
            self.check_model(self.client, self.model, self.what)
            with self.usage.call():  # every request of this call counted, retried and failed ones too
                reply = self._complete(messages, temperature, max_tokens, json_mode)
            if self.cache is not None and reply.text.strip() and not reply.truncated:
                self.cache.put(key, self.provider, self.model, request, reply)
        self.usage.add(reply)
        return reply

    def forget(self, messages: list[Message], *, temperature: float = 0.0, max_tokens: int | None = None,
               json_mode: bool = False) -> None:
        if self.cache is not None:
            params = {"temperature": temperature, "max_tokens": max_tokens, "json_mode": json_mode}
            self.cache.delete(cache_key(self.provider, self.base_url, self.model, messages, params)[0])

    def _complete(self, messages: list[Message], temperature: float, max_tokens: int | None,
                  json_mode: bool) -> ChatReply:
        kwargs: dict[str, Any] = {"model": self.model, "messages": messages, "temperature": temperature}
        if max_tokens is not None:
            kwargs["max_tokens"] = max_tokens
        if json_mode and self.json_mode_supported:
            try:
                return self._request({**kwargs, "response_format": {"type": "json_object"}})
            except ProviderError as exc:
                cause = exc.__cause__
                if not (isinstance(cause, openai.APIStatusError) and cause.status_code == 400):
                    raise
                self.json_mode_supported = False
        return self._request(kwargs)

    def _request(self, kwargs: dict[str, Any]) -> ChatReply:
        completion = reply_object(call_with_retry(lambda: self.client.chat.completions.create(**kwargs),
                                                  classify=classify_openai_error, policy=self.policy,
                                                  what=self.what, on_attempt=self.usage.attempt), self.what)
        choices = getattr(completion, "choices", None)
        if not choices or getattr(choices[0], "message", None) is None:
            raise ProviderError(f"{self.what}: malformed reply (no choices[0].message)")
        text = choices[0].message.content
        usage = getattr(completion, "usage", None)
        return ChatReply(text=text if isinstance(text, str) else "",
                         prompt_tokens=getattr(usage, "prompt_tokens", 0) or 0,
                         completion_tokens=getattr(usage, "completion_tokens", 0) or 0,
                         truncated=getattr(choices[0], "finish_reason", None) == "length")
