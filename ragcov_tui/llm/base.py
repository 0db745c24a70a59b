"""The chat-model interface and the typed result of a JSON-returning call.

``ChatModel.chat(messages)`` returns a :class:`ChatReply`; temperature is 0 unless asked
otherwise. Implementations cache by (provider, model, messages, params), retry 429 / 5xx /
timeouts with backoff, and count requests, tokens and cost into ``self.usage`` (:class:`Usage`).
They are thread-safe, so callers fan out with :func:`ragcov_tui.shared.concurrency.run_bounded`.

``complete_json`` (in ``llm.json_reply``) wraps ``chat`` for JSON prompts (:mod:`ragcov_tui.llm.prompt`):
it parses the reply robustly and returns a :class:`JsonResult` that is either ``ok`` with ``data``
or carries an ``error`` string — never an exception for a bad reply, never NaN.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from ragcov_tui.llm.cost import Price, cost_of
from ragcov_tui.llm.reply_schemas import ReplySchema
from ragcov_tui.shared.http_retry import RequestTally
from ragcov_tui.shared.json_types import JsonObject

T = TypeVar("T")
Message = dict[str, str]  # {"role": "system"|"user"|"assistant", "content": str}
DEFAULT_TEMPERATURE = 0.0  # the same prompt gets the same reply (and a cache hit)


@dataclass
class ChatReply:
    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached: bool = False
    truncated: bool = False  # cut off by the token limit (finish_reason "length"): returned, never cached
    # asked with ``logprobs=N``: per generated token (first first), its N likeliest tokens → log-probability
    top_logprobs: list[dict[str, float]] = field(default_factory=list)


@dataclass
class Usage(RequestTally):
    """Running totals for one model instance (thread-safe): the requests it sent
    (:class:`~ragcov_tui.shared.http_retry.RequestTally`: ``requests``, ``retried``, ``failed``,
    ``abandoned``), ``calls`` the replies used, ``cached`` those the cache served, so
    ``requests == calls + retried + failed + abandoned``; and tokens. ``cost_usd`` is tokens ×
    ``price`` (:func:`ragcov_tui.llm.cost.cost_of`), ``None`` while the price is unknown — also
    when nothing was sent (a cached or unreachable run), never a made-up 0.
    """

    calls: int = 0
    cached: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    price: Price | None = None

    def add(self, reply: ChatReply) -> None:
        """Count one reply used (its tokens, unless the cache served it)."""
        with self._lock:
            if reply.cached:
                self.cached += 1
            else:
                self.calls += 1
                self.prompt_tokens += reply.prompt_tokens
                self.completion_tokens += reply.completion_tokens

    @property
    def cost_usd(self) -> float | None:
        return cost_of(self.price, self.prompt_tokens, self.completion_tokens)

    def as_dict(self) -> JsonObject:
        cost = self.cost_usd
        return {
            "calls": self.calls,
            "cached": self.cached,
            **self.counts(),
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "cost_usd": None if cost is None else round(cost, 6),  # None = unknown price
        }


@dataclass
class JsonResult(Generic[T]):
    """Outcome of a JSON-returning call; exactly one of ``data`` (the reply parsed, of the prompt's
    output type) / ``error`` is meaningful."""

    ok: bool
    data: T | None = None
    error: str | None = None
    prompt: list[Message] = field(default_factory=list)
    raw: str = ""
    unreachable: bool = False  # the error is an Unreachable: no server at the model's address

    def value(self) -> T:
        """``data`` of an ``ok`` result (asking a failed one is a programming error)."""
        if not self.ok or self.data is None:
            raise RuntimeError(f"a failed JSON call has no value ({self.error})")
        return self.data


class ChatModel(ABC):
    provider: str = ""
    model: str = ""

    def __init__(self) -> None:
        self.usage = Usage()

    @property
    def spec(self) -> str:
        return f"{self.provider}:{self.model}"

    @abstractmethod
    def chat(
        self,
        messages: list[Message],
        *,
        temperature: float = DEFAULT_TEMPERATURE,
        max_tokens: int | None = None,
        json_mode: bool | ReplySchema = False,
        logprobs: int = 0,
    ) -> ChatReply:
        """One chat completion (cached, retried). ``json_mode``: ``True`` for JSON mode, a
        :class:`~ragcov_tui.llm.structured.ReplySchema` for structured output with that schema
        (truthy as well, so a model without structured output treats it as JSON mode).
        ``logprobs=N > 0`` asks for the N likeliest tokens at each generated position
        (``ChatReply.top_logprobs``; empty when the server does not give them)."""

    def forget(  # noqa: B027 (a no-op by design for models without a cache, not abstract)
        self,
        messages: list[Message],
        *,
        temperature: float = DEFAULT_TEMPERATURE,
        max_tokens: int | None = None,
        json_mode: bool | ReplySchema = False,
        logprobs: int = 0,
    ) -> None:
        """Drop the cached reply to this exact request (one found unusable), so the next ``chat``
        asks the model again. Models without a cache have nothing to drop."""
