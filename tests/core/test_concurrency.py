"""run_bounded: input order kept, per-item errors captured, the bound respected, cancellation propagates."""

from __future__ import annotations

import threading
import time

import pytest

from ragcov_tui.shared.concurrency import run_bounded
from ragcov_tui.shared.errors import Cancelled


def test_order_errors_and_bound() -> None:
    lock, live, peak = threading.Lock(), [0], [0]

    def work(x: int) -> int:
        with lock:
            live[0] += 1
            peak[0] = max(peak[0], live[0])
        time.sleep(0.01 * (x % 3))
        with lock:
            live[0] -= 1
        if x == 5:
            raise ValueError("five")
        return x * x

    seen: list[tuple[int, int]] = []
    out = run_bounded(work, list(range(12)), concurrency=3, progress=lambda s, d, t: seen.append((d, t)))
    assert [o.value for o in out if o.ok] == [x * x for x in range(12) if x != 5]
    assert isinstance(out[5].error, ValueError) and not out[5].ok
    assert peak[0] <= 3
    assert seen[0] == (0, 12) and seen[-1] == (12, 12)


def test_cancel_from_progress_stops_early() -> None:
    calls: list[int] = []

    def cancel(stage: str, done: int, total: int) -> None:
        if done >= 2:
            raise Cancelled("stop")

    with pytest.raises(Cancelled):
        run_bounded(calls.append, list(range(100)), concurrency=2, progress=cancel)
    assert len(calls) < 10
