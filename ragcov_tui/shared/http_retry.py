"""Retries with exponential backoff for every HTTP provider (embeddings and chat alike).

A provider wraps one request in :func:`call_with_retry` and gives a ``classify`` function that
turns the client library's exception into a :class:`Failure`: retryable (429, 5xx, timeouts,
connection errors) or not (400, 401, invalid JSON…). Retryable failures are retried up to
``policy.attempts`` attempts in total; the delay before retry ``i`` (0-based) is
``min(max_delay, base_delay * 2**i) * uniform(0.5, 1.5)``, or the server's ``Retry-After`` when it
sent one (capped at ``max_delay``). What finally escapes is a one-line
:class:`~ragcov_tui.shared.errors.ProviderError`, e.g.
``openai embeddings at http://127.0.0.1:9/v1: unreachable after 4 attempts (Connection refused)``
— an :class:`~ragcov_tui.shared.errors.Unreachable` (exit 2: the address is wrong) when no connection was
ever made.

``RAGCOV_RETRY_ATTEMPTS``, ``RAGCOV_RETRY_BASE_DELAY`` (seconds, default 1),
``RAGCOV_HTTP_TIMEOUT`` (seconds per request, default 60) and ``RAGCOV_HTTP_IDLE_TIMEOUT``
(seconds without a byte of a streamed reply, default 60: chat replies stream, so a slow server that
keeps sending tokens is never cut off, however long its whole reply takes) tune the defaults; tests
set the base delay to a few milliseconds.
"""

from __future__ import annotations

import os
import random
import re
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TypeVar

from ragcov_tui.shared.errors import Cancelled, ConfigError, ProviderError, Unreachable
from ragcov_tui.shared.redact import redact_text

T = TypeVar("T")


def _env_float(name: str, default: float) -> float:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        value = float("nan")
    if not 0 <= value <= 1e6:  # NaN and infinities fail too
        raise ConfigError(f"${name}: expected a number from 0 to 1000000, got {raw!r}")
    return value


@dataclass
class RetryPolicy:
    """How often and how patiently to retry; defaults come from the environment."""

    attempts: int = field(default_factory=lambda: max(1, int(_env_float("RAGCOV_RETRY_ATTEMPTS", 4))))
    base_delay: float = field(default_factory=lambda: _env_float("RAGCOV_RETRY_BASE_DELAY", 1.0))
    max_delay: float = 30.0
    timeout: float = field(default_factory=lambda: _env_float("RAGCOV_HTTP_TIMEOUT", 60.0))
    idle_timeout: float = field(default_factory=lambda: _env_float("RAGCOV_HTTP_IDLE_TIMEOUT", 60.0))

    def delay(self, retry_index: int, retry_after: float | None) -> float:
        """Seconds to wait before retry number ``retry_index`` (0-based)."""
        if retry_after is not None:
            return max(0.0, min(self.max_delay, retry_after))
        backoff = min(self.max_delay, self.base_delay * (2**retry_index))
        return backoff * random.uniform(0.5, 1.5)


@dataclass
class Failure:
    """A classified failure: ``reason`` is short and human (``HTTP 503: overloaded``)."""

    reason: str
    retryable: bool
    unreachable: bool = False  # connection never established (refused, DNS, timeout to connect)
    retry_after: float | None = None


@dataclass
class RequestTally:
    """The HTTP requests a provider instance sent (thread-safe), fed by ``on_attempt`` of
    :func:`call_with_retry` and classified per call made inside :meth:`call`:

    ``requests`` every request sent, from the moment it is sent (what the server's log counts);
    ``retried`` those that failed and were followed by another attempt of the same call; ``failed``
    the calls that ended in an error (one each: their last request); ``abandoned`` those still in
    flight (a run stopped by Ctrl-C leaves them unanswered). After :meth:`stop` no request is sent.
    """

    requests: int = 0
    retried: int = 0
    failed: int = 0
    abandoned: int = 0
    stopped: bool = False
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)
    _local: threading.local = field(default_factory=threading.local, repr=False, compare=False)

    @contextmanager
    def call(self) -> Iterator[None]:
        """Classify the requests of one call made inside the block: when it raises, its last
        request is ``failed`` and the earlier ones ``retried``; when it returns, its failed
        requests were ``retried``."""
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
        """``on_attempt`` of :func:`call_with_retry`: a request was ``"sent"``, or ended ``"ok"`` /
        ``"error"``; Cancelled instead of sending once the run stopped."""
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

    def counts(self) -> dict[str, int]:
        with self._lock:
            return {
                "requests": self.requests,
                "retried": self.retried,
                "failed": self.failed,
                "abandoned": self.abandoned,
            }


def call_with_retry(
    fn: Callable[[], T],
    *,
    classify: Callable[[BaseException], Failure | None],
    policy: RetryPolicy,
    what: str,
    sleep: Callable[[float], None] = time.sleep,
    on_attempt: Callable[[str], None] | None = None,
) -> T:
    """Call ``fn`` until it succeeds, a failure is not retryable, or attempts run out.

    ``classify`` returns ``None`` for exceptions that are not provider failures (programming
    errors, cancellation): those propagate unchanged. ``what`` names the endpoint in the message.
    ``on_attempt`` hears ``"sent"`` as each attempt (one request) starts and ``"ok"`` / ``"error"``
    when it ends, so usage counts retried, failed and abandoned requests, not only the replies.
    """
    for attempt in range(policy.attempts):
        if on_attempt is not None:
            on_attempt("sent")
        try:
            result = fn()
        except Exception as exc:
            if on_attempt is not None:
                on_attempt("error")
            failure = classify(exc)
            if failure is None:
                raise
            if not failure.retryable:
                raise ProviderError(redact_text(f"{what}: {failure.reason}")) from exc
            if attempt + 1 >= policy.attempts:
                error = Unreachable if failure.unreachable else ProviderError
                verb = "unreachable" if failure.unreachable else "failed"
                raise error(redact_text(f"{what}: {verb} after {policy.attempts} attempts ({failure.reason})")) from exc
            sleep(policy.delay(attempt, failure.retry_after))
            continue
        if on_attempt is not None:
            on_attempt("ok")
        return result
    raise AssertionError("unreachable: policy.attempts >= 1")


def root_cause_message(exc: BaseException) -> str:
    """The innermost cause's message without an ``[Errno N]`` prefix, e.g. ``Connection refused``."""
    inner = exc
    seen = {id(inner)}
    while (nxt := inner.__cause__ or (None if inner.__suppress_context__ else inner.__context__)) is not None and id(
        nxt
    ) not in seen:  # ``raise … from None`` hides the context: json's StopIteration(0)
        seen.add(id(nxt))
        inner = nxt
    if isinstance(inner, OSError) and inner.strerror:
        return inner.strerror
    text = str(inner) or type(inner).__name__
    return re.sub(r"^\[Errno -?\d+\]\s*", "", text).splitlines()[0][:200]


def parse_retry_after(headers: object) -> float | None:
    """Seconds from ``retry-after-ms`` / ``Retry-After`` (numeric form), else ``None``."""
    get = getattr(headers, "get", None)
    if get is None:
        return None
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        raw = get(name)
        if raw is None:
            continue
        try:
            return float(raw) * scale
        except (TypeError, ValueError):
            continue
    return None


_HTML = re.compile(r"^\s*(<!doctype html|<html|<head|<body|<title)", re.IGNORECASE)
_TITLE = re.compile(r"<title[^>]*>(.*?)</title>", re.IGNORECASE | re.DOTALL)
_TAG = re.compile(r"<[^>]*>")


def html_summary(body: str) -> str | None:
    """``an HTML page ("502 Bad Gateway")`` for a body that is an HTML page (a proxy's error page, a
    login form), naming its ``<title>`` or first words; ``None`` for anything else."""
    if not _HTML.match(body):
        return None
    title = _TITLE.search(body)
    words = " ".join(_TAG.sub(" ", title.group(1) if title else body).split())[:80]
    return f'an HTML page ("{words}"), not an API reply' if words else "an HTML page, not an API reply"


def status_failure(status: int, detail: str, headers: object = None) -> Failure:
    """Classify an HTTP error status: 408 / 409 / 429 / 5xx are retryable, the rest are not."""
    detail = html_summary(str(detail)) or " ".join(str(detail).split())[:200]
    reason = f"HTTP {status}: {detail}" if detail else f"HTTP {status}"
    if status == 401:
        reason += " (check the API key)"
    retryable = status in (408, 409, 429) or status >= 500
    return Failure(reason=reason, retryable=retryable, retry_after=parse_retry_after(headers))
