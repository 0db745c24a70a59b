"""Progress reporting shared by the CLI (a rich progress bar) and the TUI (a progress widget).

A long-running core function takes ``progress: Progress | None`` and calls
``progress(stage, done, total)``; ``total`` may be 0 when unknown. A caller that wants to cancel
raises :class:`ragcov_tui.errors.Cancelled` from inside its callback; core loops call the callback
at least once per batch, so cancellation is prompt. A loop whose items can fail also says how
many did with :func:`report_failed` (the CLI's progress lines show it).
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
    seen = 0
    while progress is not None and seen < 8:  # a few wrappers deep at most
        note = getattr(progress, "note_failed", None)
        if note is not None:
            note(stage, failed)
            return
        progress, seen = getattr(progress, "inner", None), seen + 1
