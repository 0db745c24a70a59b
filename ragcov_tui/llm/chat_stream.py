"""A chat completion received as a stream, so that a slow server is timed by its silence, not its speed.

A reply is asked for with ``stream=True`` and ``stream_options.include_usage`` (the token counts
arrive in a last chunk without choices), and its tokens are joined as they arrive. The request's
read timeout is the policy's ``idle_timeout`` (``$RAGCOV_HTTP_IDLE_TIMEOUT``): it fails only after
that long without a byte — the wait for the first token included — however long the whole reply
takes; connecting and sending keep ``timeout`` (``$RAGCOV_HTTP_TIMEOUT``).

Retries (:func:`classify_chat_error`): a timeout before the first chunk is retried like any timeout
(the server never began this reply: busy, or lost it). A server that stops in the middle of a reply
(:class:`StreamStalled`) is not: asking again from scratch would spend the whole generation again on
a server that has just shown it stalls, up to ``attempts`` times; the call fails at once with one line
naming the silence and how far the reply got. A connection dropped mid-reply is retried (a restarted
server). A server that ignores ``stream`` and answers with one JSON body is read as such; one that
refuses it (HTTP 400 / 422 naming ``stream``) is asked again without it, and so for the rest of the
run (:class:`StreamMode`): its whole reply must then come within ``timeout``, as before streaming.
"""

from __future__ import annotations

import json
import math
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
import openai

from ragcov_tui.llm.base import ChatReply
from ragcov_tui.llm.openai_client import classify_openai_error, reply_object, status_detail
from ragcov_tui.shared.errors import ProviderError
from ragcov_tui.shared.http_retry import Failure, RetryPolicy, root_cause_message
from ragcov_tui.shared.json_types import JsonObject


class StreamStalled(Exception):
    """The server sent part of a reply, then nothing for ``idle`` seconds."""

    def __init__(self, idle: float, chunks: int) -> None:
        super().__init__(
            f"stalled: no token for {idle:g} s after {chunks} chunk{'s' if chunks != 1 else ''} "
            "of the reply ($RAGCOV_HTTP_IDLE_TIMEOUT)"
        )


def classify_chat_error(exc: BaseException) -> Failure | None:
    """:func:`~ragcov_tui.llm.openai_client.classify_openai_error`, plus what a stream raises while it
    is read: a stall (not retried), a timeout or a dropped connection before it ended (retried)."""
    if isinstance(exc, StreamStalled):
        return Failure(reason=str(exc), retryable=False)
    if isinstance(exc, httpx.TimeoutException):
        return Failure(reason="timed out", retryable=True)
    if isinstance(exc, httpx.TransportError):
        return Failure(reason=root_cause_message(exc), retryable=True)
    failure = classify_openai_error(exc)
    if failure is None and isinstance(exc, openai.APIError):  # an error event inside the stream
        return Failure(reason=f"error in the reply: {' '.join(str(exc.message).split())[:200]}", retryable=False)
    return failure


def stream_timeout(policy: RetryPolicy) -> httpx.Timeout:
    """Connect, send and pool within ``timeout``; each read within ``idle_timeout``."""
    return httpx.Timeout(policy.timeout, read=policy.idle_timeout)


@dataclass
class StreamMode:
    """Whether one chat model's server takes streamed requests (thread-safe: set once, to False);
    ``notice`` hears once why not."""

    notice: Callable[[str], None] | None = None
    streaming: bool = True
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def refused(self, detail: str) -> None:
        with self._lock:
            was, self.streaming = self.streaming, False
        if was and self.notice is not None:
            self.notice(" ".join(detail.split())[:200])


_STREAM_WORD = re.compile(r"\bstream", re.IGNORECASE)


def streamed_reply(
    client: openai.OpenAI, kwargs: JsonObject, policy: RetryPolicy, what: str, mode: StreamMode | None = None
) -> ChatReply:
    """One chat completion asked for with ``kwargs``, received as a stream (the module docstring)."""
    create: Any = client.chat.completions.with_raw_response.create  # kwargs are built at run time: no overload
    if mode is not None and not mode.streaming:
        return _whole_reply(create(**kwargs).http_response, what)
    try:
        raw = create(**kwargs, stream=True, stream_options={"include_usage": True}, timeout=stream_timeout(policy))
    except openai.APIStatusError as exc:
        if mode is None or exc.status_code not in (400, 422) or not _STREAM_WORD.search(status_detail(exc)):
            raise
        mode.refused(status_detail(exc))
        return _whole_reply(create(**kwargs).http_response, what)
    stream = raw.parse()
    with stream:
        if "text/event-stream" not in stream.response.headers.get("content-type", ""):
            return _whole_reply(stream.response, what)
        return _joined(stream, policy.idle_timeout, what)


def _joined(stream: Any, idle: float, what: str) -> ChatReply:
    parts: list[str] = []
    tops: list[dict[str, float]] = []
    finish, usage, chunks, answered = None, None, 0, False
    try:
        for chunk in stream:
            chunks += 1
            usage = getattr(chunk, "usage", None) or usage
            for choice in getattr(chunk, "choices", None) or []:
                if getattr(choice, "index", 0) != 0:
                    continue
                answered = True
                content = getattr(getattr(choice, "delta", None), "content", None)
                if isinstance(content, str):
                    parts.append(content)
                tops += top_logprobs(getattr(getattr(choice, "logprobs", None), "content", None))
                finish = getattr(choice, "finish_reason", None) or finish
    except (httpx.TimeoutException, openai.APITimeoutError) as exc:  # the SDK wraps httpx's, depending on its version
        if chunks:
            raise StreamStalled(idle, chunks) from exc
        raise
    if not answered:
        raise ProviderError(f"{what}: malformed reply (no choices[0].message)")
    return ChatReply(
        text="".join(parts),
        prompt_tokens=getattr(usage, "prompt_tokens", 0) or 0,
        completion_tokens=getattr(usage, "completion_tokens", 0) or 0,
        truncated=finish == "length",
        top_logprobs=tops,
    )


def _whole_reply(response: httpx.Response, what: str) -> ChatReply:
    """A server that answered ``stream=True`` with one body: JSON read as a completion; anything
    else (a proxy's HTML page) a ProviderError naming it."""
    body = response.read()
    if "json" not in response.headers.get("content-type", ""):
        reply_object(body, what)  # raises, naming an HTML page or the text
    data = json.loads(body)  # invalid JSON: classified "invalid JSON in reply", not retried
    data = data if isinstance(data, dict) else {}
    choices = data.get("choices") if isinstance(data.get("choices"), list) else None
    message = choices[0].get("message") if choices and isinstance(choices[0], dict) else None
    if not choices or not isinstance(message, dict):
        raise ProviderError(f"{what}: malformed reply (no choices[0].message)")
    usage = data["usage"] if isinstance(data.get("usage"), dict) else {}
    text = message.get("content")
    logprobs = choices[0].get("logprobs")
    return ChatReply(
        text=text if isinstance(text, str) else "",
        prompt_tokens=_count(usage.get("prompt_tokens")),
        completion_tokens=_count(usage.get("completion_tokens")),
        truncated=choices[0].get("finish_reason") == "length",
        top_logprobs=top_logprobs(logprobs.get("content") if isinstance(logprobs, dict) else None),
    )


def top_logprobs(content: Any) -> list[dict[str, float]]:
    """Per position of OpenAI's ``logprobs.content`` (SDK objects or plain dicts), its alternatives
    ``{token: logprob}``; the sampled token is among them. Anything malformed is skipped: no entry
    rather than a made-up probability."""
    out: list[dict[str, float]] = []
    for position in content if isinstance(content, list) else []:
        alternatives = _field(position, "top_logprobs")
        found: dict[str, float] = {}
        for alt in alternatives if isinstance(alternatives, list) else []:
            token, value = _field(alt, "token"), _field(alt, "logprob")
            if (
                isinstance(token, str)
                and isinstance(value, (int, float))
                and not isinstance(value, bool)
                and math.isfinite(value)
            ):
                found.setdefault(token, float(value))
        if found:
            out.append(found)
    return out


def _field(obj: Any, name: str) -> Any:
    return obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0
