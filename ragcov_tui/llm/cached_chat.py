"""What every remote chat model does around its one request: the reply cache, usage, forgetting.

:class:`CachedChat` implements :meth:`ChatModel.chat` once for the providers that send requests
(``openai:``, ``ollama:``, ``anthropic:``): the cache key names the provider, the server
(``identity``), the model, the messages and the request's parameters
(:func:`request_params`); a cached reply is used without a request; otherwise :meth:`_complete`
(the provider's own request, retried) runs with every attempt counted into ``self.usage``. A reply is
cached unless it is empty, or plain text cut off by the token limit (a JSON reply cut off is kept for its
caller to judge and :meth:`forget`).
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable

from ragcov_tui.llm.base import DEFAULT_TEMPERATURE, ChatModel, ChatReply, Message
from ragcov_tui.llm.cache import LLMCache, cache_key
from ragcov_tui.llm.context_window import ContextWindow
from ragcov_tui.llm.reply_schemas import ReplySchema
from ragcov_tui.shared.errors import ProviderError
from ragcov_tui.shared.json_types import JsonObject


def request_params(
    temperature: float, max_tokens: int | None, json_mode: bool | ReplySchema, logprobs: int = 0
) -> JsonObject:
    """The parameters of a request that go into its cache key (a schema by its fingerprint; ``logprobs``
    only when asked for, so the keys of earlier replies stay valid)."""
    params: JsonObject = {"temperature": temperature, "max_tokens": max_tokens, "json_mode": bool(json_mode)}
    if isinstance(json_mode, ReplySchema):
        params["schema"] = json_mode.fingerprint()
    if logprobs > 0:
        params["logprobs"] = logprobs
    return params


class CachedChat(ChatModel):
    """A chat model with a reply cache (``cache``, None without a database) at the server named
    ``identity``; subclasses send the request in :meth:`_complete`."""

    cache: LLMCache | None = None
    identity: str = ""
    what: str = ""  # "<provider> chat at <url>", the subject of its error messages
    window: ContextWindow
    warn: Callable[[str], None] | None = None

    def chat(
        self,
        messages: list[Message],
        *,
        temperature: float = DEFAULT_TEMPERATURE,
        max_tokens: int | None = None,
        json_mode: bool | ReplySchema = False,
        logprobs: int = 0,
    ) -> ChatReply:
        max_tokens = self._max_tokens(max_tokens)
        key, request = cache_key(
            self.provider,
            self.identity,
            self.model,
            messages,
            request_params(temperature, max_tokens, json_mode, logprobs),
        )
        reply = self.cache.get(key, logprobs > 0) if self.cache is not None else None
        if reply is None or not reply.text.strip():  # an empty entry (older versions stored them) is no answer
            self._before_request()
            with self.usage.call():  # every request of this call counted, retried and failed ones too
                reply = self._complete(messages, temperature, max_tokens, json_mode, logprobs)
            # a graded reply is cut short on purpose (its first tokens are the verdict); kept only with its alternatives
            keep = bool(json_mode) or (bool(reply.top_logprobs) if logprobs > 0 else not reply.truncated)
            if self.cache is not None and reply.text.strip() and keep:
                self.cache.put(key, self.provider, self.model, request, reply)
        self.usage.add(reply)
        return reply

    def forget(
        self,
        messages: list[Message],
        *,
        temperature: float = DEFAULT_TEMPERATURE,
        max_tokens: int | None = None,
        json_mode: bool | ReplySchema = False,
        logprobs: int = 0,
    ) -> None:
        if self.cache is not None:
            params = request_params(temperature, self._max_tokens(max_tokens), json_mode, logprobs)
            self.cache.delete(cache_key(self.provider, self.identity, self.model, messages, params)[0])

    def _max_tokens(self, max_tokens: int | None) -> int | None:
        """The reply cap actually sent for ``max_tokens`` (a subclass may lower it)."""
        return max_tokens

    def _before_request(self) -> None:  # noqa: B027 (a hook: nothing to do by default)
        """Runs before a request is sent (not for a cached reply)."""

    def _fitted(self, fitted: list[Message] | None, cause: ProviderError | None = None) -> list[Message]:
        """``fitted`` (messages trimmed to the context), or the error that even trimmed they do not fit."""
        if fitted is not None:
            return fitted
        raise ProviderError(
            f"{self.what}: the prompt does not fit the model's context of {self.window.n_ctx} tokens, "
            f"even with its passages trimmed (the instructions alone are too long)"
        ) from cause

    def _trim_notice(self, n_ctx: int) -> None:
        if self.warn is not None:
            self.warn(
                f"LLM {self.provider}:{self.model}: prompts longer than its context of {n_ctx:,} tokens "
                f"are sent with their passages trimmed"
            )

    @abstractmethod
    def _complete(
        self,
        messages: list[Message],
        temperature: float,
        max_tokens: int | None,
        json_mode: bool | ReplySchema,
        logprobs: int = 0,
    ) -> ChatReply:
        """One reply from the server (retried), not cached; ``logprobs=N``: with the N likeliest tokens per
        position where the protocol gives them (``ChatReply.top_logprobs``, else empty)."""
