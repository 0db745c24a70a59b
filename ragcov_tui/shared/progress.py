"""Progress reporting shared by the CLI (a rich progress bar) and the TUI (a progress widget).

A long-running core function takes ``progress: Progress | None`` and calls
``progress(stage, done, total)``; ``total`` may be 0 when unknown. A caller that wants to cancel
raises :class:`ragcov_tui.shared.errors.Cancelled` from inside its callback; core loops call the callback
at least once per batch, so cancellation is prompt. A loop whose items can fail also says how
many did with :func:`report_failed` (the CLI's progress lines show it).

A loop whose items cost unequal time (texts of every length to embed) also says how much of its
*work* is done with :func:`report_work` — units proportional to the time an item takes (the
embedding loop counts characters: tokens and windows grow with them) — and the remaining time
is estimated from the work (:func:`remaining_seconds`), not from the item count: a loop that does
its short items first would otherwise promise a small fraction of the time it takes.
"""

from __future__ import annotations

from collections.abc import Callable

Progress = Callable[[str, int, int], None]


def report(progress: Progress | None, stage: str, done: int, total: int) -> None:
    """Call ``progress`` if one was given."""
    if progress is not None:
        progress(stage, done, total)


def report_failed(progress: Progress | None, stage: str, failed: int) -> None:
    """Tell ``progress`` how many items of ``stage`` failed so far, if it (or a callback it wraps,
    found through ``.inner``) has a ``note_failed(stage, failed)`` method; others do not hear it."""
    note = _listener(progress, "note_failed")
    if note is not None:
        note(stage, failed)


def report_work(progress: Progress | None, stage: str, done: float, total: float) -> None:
    """Tell ``progress`` how much of the work of ``stage`` is done (see the module docstring), if it
    (or a callback it wraps, found through ``.inner``) has a ``note_work(stage, done, total)``
    method; call it before the matching :func:`report`."""
    note = _listener(progress, "note_work")
    if note is not None:
        note(stage, done, total)


def _listener(progress: Progress | None, name: str) -> Callable[..., None] | None:
    seen = 0
    while progress is not None and seen < 8:  # a few wrappers deep at most
        note = getattr(progress, name, None)
        if note is not None:
            return note
        progress, seen = getattr(progress, "inner", None), seen + 1
    return None


def remaining_seconds(elapsed: float, done: float, total: float) -> float | None:
    """``elapsed / done × (total − done)``: the stage's average pace so far applied to what is left
    (in work units when the loop reports them, else in items); None before the first unit is done,
    without a total, or once it is all done."""
    if total <= 0 or done <= 0 or done >= total or elapsed <= 0:
        return None
    return elapsed / done * (total - done)
