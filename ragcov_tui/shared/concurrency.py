"""Bounded concurrency for blocking calls (HTTP providers, judges, systems under test).

Providers are synchronous and thread-safe; :func:`run_bounded` fans them out over a thread pool
with at most ``concurrency`` calls in flight, keeps the input order, reports progress after each
finished item, and captures per-item exceptions so one failure never loses the others' results.

While no item finishes, progress is reported again every :data:`TICK` seconds (same figures), so a
caller that cancels from its progress callback is heard within ``TICK`` even while one long call
(an embedding batch, a slow judge) runs. A cancelled or interrupted run does not wait for the
calls in flight: they are abandoned to finish in their threads and their results dropped. The
workers are daemon threads, so a CLI stopped by Ctrl-C or SIGTERM exits as soon as it has recorded
its session, instead of waiting (up to the HTTP timeout) for requests nobody will read; the
operating system then closes their connections, which cancels them at the server.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, wait
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from ragcov_tui.shared.progress import Progress, report

DEFAULT_CONCURRENCY = 8  # calls in flight unless the user says otherwise (analyze and eval alike)

TICK = 0.25  # seconds between two progress reports while nothing finishes

T = TypeVar("T")
R = TypeVar("R")


@dataclass
class Outcome(Generic[R]):
    """The result of one item: ``value`` when it succeeded, else ``error``."""

    value: R | None = None
    error: BaseException | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


def run_bounded(
    fn: Callable[[T], R],
    items: Sequence[T],
    *,
    concurrency: int = DEFAULT_CONCURRENCY,
    progress: Progress | None = None,
    stage: str = "working",
) -> list[Outcome[R]]:
    """Apply ``fn`` to every item with at most ``concurrency`` calls at once; results in input order.

    Items are submitted lazily (never more than ``concurrency`` queued); a cancellation raised by
    the progress callback (called at least every ``TICK`` seconds) stops the run at once, abandoning
    the calls in flight; the exception propagates.
    """
    n = len(items)
    out: list[Outcome[R]] = [Outcome() for _ in range(n)]
    if n == 0:
        return out
    concurrency = max(1, int(concurrency))
    done = 0
    report(progress, stage, 0, n)
    pool = DaemonPool(min(concurrency, n))
    pending: dict[Future, int] = {}
    next_index = 0
    try:
        while next_index < n or pending:
            while next_index < n and len(pending) < concurrency:
                pending[pool.submit(fn, items[next_index])] = next_index
                next_index += 1
            finished, _ = wait(pending, timeout=TICK, return_when=FIRST_COMPLETED)
            if not finished:
                report(progress, stage, done, n)  # a tick: lets the caller cancel mid-call
            for fut in finished:
                i = pending.pop(fut)
                try:
                    out[i] = Outcome(value=fut.result())
                except Exception as exc:  # captured per item, reported by the caller
                    out[i] = Outcome(error=exc)
                done += 1
                report(progress, stage, done, n)
    finally:
        pool.shutdown()  # workers end after their current call; nothing waits for calls in flight
    return out


class DaemonPool:
    """``workers`` daemon threads running submitted calls (a ThreadPoolExecutor's workers are joined
    at interpreter exit, which would hold a stopped CLI until its requests time out)."""

    def __init__(self, workers: int) -> None:
        self._jobs: queue.SimpleQueue[tuple[Future, Callable[[Any], Any], Any] | None] = queue.SimpleQueue()
        self._workers = [
            threading.Thread(target=self._work, name=f"ragcov-worker-{i}", daemon=True) for i in range(workers)
        ]
        for thread in self._workers:
            thread.start()

    def submit(self, fn: Callable[[Any], R], arg: Any) -> Future:
        future: Future = Future()
        self._jobs.put((future, fn, arg))
        return future

    def shutdown(self) -> None:
        """Let every worker end once the calls before this are done (does not wait for them)."""
        for _ in self._workers:
            self._jobs.put(None)

    def _work(self) -> None:
        while (job := self._jobs.get()) is not None:
            future, fn, arg = job
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(fn(arg))
            except BaseException as exc:  # handed to the caller through the future
                future.set_exception(exc)
