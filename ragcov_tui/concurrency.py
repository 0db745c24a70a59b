"""Bounded concurrency for blocking calls (HTTP providers, judges, systems under test).

Providers are synchronous and thread-safe; :func:`run_bounded` fans them out over a thread pool
with at most ``concurrency`` calls in flight, keeps the input order, reports progress after each
finished item, and captures per-item exceptions so one failure never loses the others' results.

While no item finishes, progress is reported again every :data:`TICK` seconds (same figures), so a
caller that cancels from its progress callback is heard within ``TICK`` even while one long call
(an embedding batch, a slow judge) runs. A cancelled or interrupted run does not wait for the
calls in flight: they are abandoned to finish in their threads and their results dropped.
"""

from __future__ import annotations

from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Callable, Generic, Sequence, TypeVar

from ragcov_tui.progress import Progress, report

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
    pool = ThreadPoolExecutor(max_workers=concurrency)
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
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)  # abandon the calls in flight
        raise
    pool.shutdown(wait=True)
    return out
