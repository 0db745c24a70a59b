"""Progress reporting shared by the CLI (a rich progress bar) and the TUI (a progress widget).

A long-running core function takes ``progress: Progress | None`` and calls
``progress(stage, done, total)``; ``total`` may be 0 when unknown. A caller that wants to cancel
raises :class:`ragcov_tui.errors.Cancelled` from inside its callback; core loops call the callback
at least once per batch, so cancellation is prompt.
"""

from __future__ import annotations

from typing import Callable

Progress = Callable[[str, int, int], None]


def null_progress(stage: str, done: int, total: int) -> None:
    """A progress callback that ignores everything."""


def report(progress: Progress | None, stage: str, done: int, total: int) -> None:
    """Call ``progress`` if one was given."""
    if progress is not None:
        progress(stage, done, total)
