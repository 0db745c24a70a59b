"""The chat-model interface and the typed result of a JSON-returning call.

``ChatModel.chat(messages)`` returns a :class:`ChatReply`; temperature is 0 unless asked
otherwise. Implementations cache by (provider, model, messages, params), retry 429 / 5xx /
timeouts with backoff, and count tokens and cost into ``self.usage``. They are thread-safe, so
callers fan out with :func:`ragcov_tui.concurrency.run_bounded`.

``complete_json`` (in ``llm.json_reply``) wraps ``chat`` for judge / theme prompts: it parses the
reply robustly and returns a :class:`JsonResult` that is either ``ok`` with ``data`` or carries an
``error`` string — never an exception for a bad reply, never NaN.
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any

Message = dict[str, str]  # {"role": "system"|"user"|"assistant", "content": str}


@dataclass
class ChatReply:
    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached: bool = False
    truncated: bool = False  # cut off by the token limit (finish_reason "length"): returned, never cached


@dataclass
class Usage:
    """Running totals for one model instance (thread-safe via ``add``)."""

    calls: int = 0
    cached: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    cost_known: bool = True  # False once a call's model had no price (as_dict then reports None)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def add(self, reply: ChatReply, cost_usd: float | None = 0.0) -> None:
        """Count one reply; ``cost_usd=None`` means the price of the model is unknown."""
        with self._lock:
            if reply.cached:
                self.cached += 1
            else:
                self.calls += 1
                self.prompt_tokens += reply.prompt_tokens
                self.completion_tokens += reply.completion_tokens
                if cost_usd is None:
                    self.cost_known = False
                else:
                    self.cost_usd += cost_usd

    def as_dict(self) -> dict[str, Any]:
        return {
            "calls": self.calls,
            "cached": self.cached,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "cost_usd": round(self.cost_usd, 6) if self.cost_known else None,  # None = unknown price
        }


@dataclass
class JsonResult:
    """Outcome of a JSON-returning call; exactly one of ``data`` / ``error`` is meaningful."""

    ok: bool
    data: Any = None
    error: str | None = None
    prompt: list[Message] = field(default_factory=list)
    raw: str = ""


class ChatModel(ABC):
    provider: str = ""
    model: str = ""

    def __init__(self) -> None:
        self.usage = Usage()

    @property
    def spec(self) -> str:
        return f"{self.provider}:{self.model}"

    @abstractmethod
    def chat(self, messages: list[Message], *, temperature: float = 0.0, max_tokens: int | None = None,
             json_mode: bool = False) -> ChatReply:
        """One chat completion (cached, retried)."""

    def forget(self, messages: list[Message], *, temperature: float = 0.0, max_tokens: int | None = None,
               json_mode: bool = False) -> None:
        """Drop the cached reply to this exact request (one found unusable), so the next ``chat``
        asks the model again. Models without a cache have nothing to drop."""
