"""``anthropic:MODEL``: Claude through Anthropic's Messages API (the ``anthropic`` extra).

``ANTHROPIC_API_KEY`` is required; ``ANTHROPIC_BASE_URL`` points at another server speaking the
API (a proxy, a gateway), default ``https://api.anthropic.com``. What a request looks like:

- The system messages become the ``system`` parameter, one text block marked
  ``cache_control: {"type": "ephemeral"}``: the judge's and generator's long fixed instructions are
  the prefix every request of a run shares, so Anthropic's prompt cache serves them (below the
  model's minimum cacheable length the mark is ignored by the API, never refused). The other
  messages are sent as they are (``user`` / ``assistant`` text).
- No ``temperature``: the SDK (2.x) no longer takes sampling parameters, so the model's own
  sampling applies; the reply cache still makes a rerun repeat every reply. (``temperature`` stays
  in the cache key, so a caller asking for another one still gets a fresh reply.)
- ``max_tokens`` is required by the API: the caller's cap, else :data:`DEFAULT_MAX_TOKENS`
  (``$RAGCOV_LLM_MAX_TOKENS`` lowers both, as for every provider).
- A reply bound to a schema (``json_mode=ReplySchema``) is asked for through tool use: one tool
  whose ``input_schema`` is the schema, forced by ``tool_choice``; the tool call's ``input`` is the
  reply (as JSON text). Plain JSON mode (``json_mode=True``) has no API form: the prompt asks for
  JSON and the caller parses it leniently (:mod:`ragcov_tui.llm.json_reply`).

Shared with the other providers: the reply cache and usage (:mod:`ragcov_tui.llm.cached_chat`),
retries of 429 / 5xx (529 "overloaded" included) / timeouts / dropped connections through
:mod:`ragcov_tui.shared.http_retry`, the price table (:mod:`ragcov_tui.llm.cost`, list prices at
``api.anthropic.com`` only), and trimming after a "prompt is too long" refusal
(:mod:`ragcov_tui.llm.context_window`). Prompt tokens count every input token — cache writes and
reads too — so the cost shown is at the full input price, an upper bound when the cache served.
Replies are received whole, each within ``$RAGCOV_HTTP_TIMEOUT``.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ragcov_tui.llm.base import ChatReply, Message
from ragcov_tui.llm.cache import LLMCache
from ragcov_tui.llm.cached_chat import CachedChat
from ragcov_tui.llm.context_window import ContextWindow, context_overflow
from ragcov_tui.llm.cost import price_for
from ragcov_tui.llm.openai_chat import MAX_OVERFLOW_RETRIES, capped_max_tokens
from ragcov_tui.llm.openai_client import body_detail, reply_object, require_env
from ragcov_tui.llm.reply_schemas import ReplySchema
from ragcov_tui.shared.concurrency import DEFAULT_CONCURRENCY
from ragcov_tui.shared.errors import ConfigError, ProviderError
from ragcov_tui.shared.http_retry import Failure, RetryPolicy, call_with_retry, root_cause_message, status_failure
from ragcov_tui.shared.json_types import JsonObject
from ragcov_tui.shared.redact import redact_url
from ragcov_tui.shared.urls import check_url

if TYPE_CHECKING:
    import anthropic
    import sqlite_utils

DEFAULT_BASE_URL = "https://api.anthropic.com"
DEFAULT_MAX_TOKENS = 4096  # the API requires a cap; replies here are judgements and short answers
CACHED_PREFIX = {"type": "ephemeral"}
_TOOL_NAME = re.compile(r"[^a-zA-Z0-9_-]")


def _sdk() -> Any:
    try:
        import anthropic
    except ImportError:
        raise ConfigError("anthropic:MODEL needs the anthropic SDK: pip install 'ragcov-tui[anthropic]'") from None
    return anthropic


def request_body(model: str, messages: list[Message], max_tokens: int, schema: ReplySchema | None) -> JsonObject:
    """The Messages API request for ``messages`` (the module docstring)."""
    system = "\n\n".join(m["content"] for m in messages if m.get("role") == "system" and m.get("content"))
    body: JsonObject = {
        "model": model,
        "max_tokens": max_tokens,
        "messages": [
            {"role": m["role"], "content": m.get("content") or ""} for m in messages if m.get("role") != "system"
        ],
    }
    if system:
        body["system"] = [{"type": "text", "text": system, "cache_control": CACHED_PREFIX}]
    if schema is not None:
        name = _TOOL_NAME.sub("_", schema.name)[:64] or "reply"
        body["tools"] = [
            {"name": name, "description": "Give the reply as this tool's input.", "input_schema": schema.schema}
        ]
        body["tool_choice"] = {"type": "tool", "name": name}
    return body


def reply_from_message(message: Any, what: str) -> ChatReply:
    """The :class:`ChatReply` of a Messages API reply: the forced tool call's input as JSON text, else
    the text blocks joined; the token counts; ``truncated`` when the cap cut it (``max_tokens``)."""
    message = reply_object(message, what)
    blocks = getattr(message, "content", None)
    if not isinstance(blocks, list):
        raise ProviderError(f"{what}: malformed reply (no content)")
    tool = next((b for b in blocks if getattr(b, "type", None) == "tool_use"), None)
    if tool is not None:
        text = json.dumps(getattr(tool, "input", None), ensure_ascii=False)
    else:
        text = "".join(
            t for b in blocks if getattr(b, "type", None) == "text" and isinstance(t := getattr(b, "text", None), str)
        )
    usage = getattr(message, "usage", None)
    prompt = sum(
        _count(getattr(usage, name, 0))
        for name in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
    )
    return ChatReply(
        text=text,
        prompt_tokens=prompt,
        completion_tokens=_count(getattr(usage, "output_tokens", 0)),
        truncated=getattr(message, "stop_reason", None) == "max_tokens",
    )


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def classify_anthropic_error(exc: BaseException) -> Failure | None:
    """Map an Anthropic SDK exception to a :class:`Failure`; ``None`` for non-provider errors."""
    sdk = _sdk()
    if isinstance(exc, sdk.APITimeoutError):
        return Failure(reason="timed out", retryable=True)
    if isinstance(exc, sdk.APIConnectionError):
        return Failure(reason=root_cause_message(exc), retryable=True, unreachable=True)
    if isinstance(exc, sdk.APIStatusError):
        detail = body_detail(exc.body)
        failure = status_failure(exc.status_code, detail, exc.response.headers)
        if context_overflow(exc.status_code, detail, exc.body) is not None:
            failure.retryable = False  # the same prompt is too long again
        return failure
    if isinstance(exc, (json.JSONDecodeError, sdk.APIResponseValidationError, UnicodeDecodeError)):
        return Failure(reason=f"invalid JSON in reply ({root_cause_message(exc)})", retryable=False)
    return None


class AnthropicChat(CachedChat):
    provider = "anthropic"

    def __init__(
        self,
        model: str,
        *,
        db: sqlite_utils.Database | None = None,
        concurrency: int = DEFAULT_CONCURRENCY,
        policy: RetryPolicy | None = None,
        warn: Callable[[str], None] | None = None,
    ) -> None:
        super().__init__()
        sdk = _sdk()
        self.model = model
        self.concurrency = max(1, int(concurrency))
        self.policy = policy or RetryPolicy()
        key = require_env("ANTHROPIC_API_KEY", f"LLM {self.provider}:{model}")
        raw_url = os.environ.get("ANTHROPIC_BASE_URL", "").strip() or DEFAULT_BASE_URL
        self.base_url = self.identity = check_url(raw_url, "$ANTHROPIC_BASE_URL").rstrip("/")
        self.client: anthropic.Anthropic = sdk.Anthropic(
            api_key=key, base_url=self.base_url, max_retries=0, timeout=self.policy.timeout
        )
        self.what = f"{self.provider} chat at {redact_url(self.base_url)}"
        self.cache = LLMCache(db) if db is not None else None
        self.warn = warn
        self.window = ContextWindow(notice=self._trim_notice)  # learned from a "prompt is too long" refusal
        self.usage.price = price_for(self.provider, model, self.base_url)

    def _max_tokens(self, max_tokens: int | None) -> int | None:
        return capped_max_tokens(max_tokens or DEFAULT_MAX_TOKENS)

    def _request(self, body: JsonObject) -> ChatReply:
        return call_with_retry(
            lambda: reply_from_message(self.client.messages.create(**body), self.what),
            classify=classify_anthropic_error,
            policy=self.policy,
            what=self.what,
            on_attempt=self.usage.attempt,
        )

    def _complete(
        self,
        messages: list[Message],
        temperature: float,
        max_tokens: int | None,
        json_mode: bool | ReplySchema,
        logprobs: int = 0,
    ) -> ChatReply:
        """One answer, trimmed again after a "prompt is too long" refusal (at most twice). The Messages
        API gives no token probabilities: ``logprobs`` is not sent and the reply has none, so a graded
        judge's preflight stops the run in one line."""
        schema = json_mode if isinstance(json_mode, ReplySchema) else None
        sent = self._fitted(self.window.fit(messages, max_tokens))
        overflows = 0
        while True:
            body = request_body(self.model, sent, max_tokens or DEFAULT_MAX_TOKENS, schema)
            try:
                return self._request(body)
            except ProviderError as exc:
                cause = exc.__cause__
                if not isinstance(cause, _sdk().APIStatusError):
                    raise
                overflow = context_overflow(cause.status_code, body_detail(cause.body), cause.body)
                if overflow is None or overflows >= MAX_OVERFLOW_RETRIES:
                    raise
                overflows += 1
                sent = self._fitted(self.window.after_overflow(overflow, sent, messages, max_tokens), exc)
