"""The chat-model interface and the typed result of a JSON-returning call.

``ChatModel.chat(messages)`` returns a :class:`ChatReply`; temperature is 0 unless asked
otherwise. Implementations cache by (provider, model, messages, params), retry 429 / 5xx /
timeouts with backoff, and count requests, tokens and cost into ``self.usage`` (:class:`Usage`).
They are thread-safe, so callers fan out with :func:`ragcov_tui.concurrency.run_bounded`.

``complete_json`` (in ``llm.json_reply``) wraps ``chat`` for judge / theme prompts: it parses the
reply robustly and returns a :class:`JsonResult` that is either ``ok`` with ``data`` or carries an
``error`` string — never an exception for a bad reply, never NaN.
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterator

from ragcov_tui.errors import Cancelled
from ragcov_tui.llm.cost import Price, cost_of

if TYPE_CHECKING:
    from ragcov_tui.llm.structured import ReplySchema

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
    """Running totals for one model instance (thread-safe).

    ``requests`` counts every HTTP request sent (each attempt, retried and failed ones included:
    what the server's own log counts), from the moment it is sent; ``retried`` the requests that
    failed and were followed by another attempt of the same call; ``failed`` the calls that ended in
    an error (one each: their last request); ``abandoned`` the requests still in flight (a run
    stopped by Ctrl-C leaves them unanswered); ``calls`` the replies used, ``cached`` those the cache
    served. So ``requests == calls + retried + failed + abandoned``. ``cost_usd`` is tokens ×
    ``price`` (:func:`ragcov_tui.llm.cost.cost_of`), ``None`` while the price is unknown — also
    when nothing was sent (a cached or unreachable run), never a made-up 0.
    """

    calls: int = 0
    cached: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    requests: int = 0
    retried: int = 0
    failed: int = 0
    abandoned: int = 0
    price: Price | None = None
    stopped: bool = False  # set by stop(): no request is sent any more
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)
    _local: threading.local = field(default_factory=threading.local, repr=False, compare=False)

    def add(self, reply: ChatReply) -> None:
        """Count one reply used (its tokens, unless the cache served it)."""
        with self._lock:
            if reply.cached:
                self.cached += 1
            else:
                self.calls += 1
                self.prompt_tokens += reply.prompt_tokens
                self.completion_tokens += reply.completion_tokens

    @contextmanager
    def call(self) -> Iterator[None]:
        """Classify the requests of one call made inside the block (reported by :meth:`attempt`):
        when it raises, its last request is ``failed`` and the earlier ones ``retried``; when it
        returns, its failed requests were ``retried``."""
        self._local.attempts = attempts = [0, 0]  # sent, failed
        try:
            yield
        except BaseException:
            with self._lock:
                self.retried += max(0, attempts[0] - 1)
                self.failed += 1 if attempts[0] else 0
            raise
        else:
            with self._lock:
                self.retried += attempts[1]
        finally:
            self._local.attempts = None

    def attempt(self, event: str) -> None:
        """``on_attempt`` of :func:`ragcov_tui.http_retry.call_with_retry`: a request was
        ``"sent"``, or ended ``"ok"`` / ``"error"``."""
        with self._lock:
            if event == "sent" and self.stopped:
                raise Cancelled("the run stopped: no new request is sent")
            if event == "sent":
                self.requests += 1
                self.abandoned += 1
            else:
                self.abandoned -= 1
        attempts = getattr(self._local, "attempts", None)
        if attempts is not None and event != "ok":
            attempts[0 if event == "sent" else 1] += 1

    def stop(self) -> None:
        """The run stopped (Ctrl-C, SIGTERM, a cancel): calls still running in abandoned threads
        send no new request, so the totals read now stay what the server saw."""
        with self._lock:
            self.stopped = True

    @property
    def cost_usd(self) -> float | None:
        return cost_of(self.price, self.prompt_tokens, self.completion_tokens)

    def as_dict(self) -> dict[str, Any]:
        cost = self.cost_usd
        return {
            "calls": self.calls,
            "cached": self.cached,
            "requests": self.requests,
            "retried": self.retried,
            "failed": self.failed,
            "abandoned": self.abandoned,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "cost_usd": None if cost is None else round(cost, 6),  # None = unknown price
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
             json_mode: bool | ReplySchema = False) -> ChatReply:
        """One chat completion (cached, retried). ``json_mode``: ``True`` for JSON mode, a
        :class:`~ragcov_tui.llm.structured.ReplySchema` for structured output with that schema
        (truthy as well, so a model without structured output treats it as JSON mode)."""

    def forget(self, messages: list[Message], *, temperature: float = 0.0, max_tokens: int | None = None,
               json_mode: bool | ReplySchema = False) -> None:
        """Drop the cached reply to this exact request (one found unusable), so the next ``chat``
        asks the model again. Models without a cache have nothing to drop."""
