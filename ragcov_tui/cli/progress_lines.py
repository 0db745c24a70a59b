"""Progress for a log instead of a terminal (stderr is a pipe or a file: CI, ``2> run.log``).

A rich bar there would print nothing until the end, so :class:`ProgressLines` prints one plain line
every ``$RAGCOV_PROGRESS_EVERY`` seconds (default 30) while a stage runs — from a timer thread, so
a stage that reports nothing for a while (one slow judge) still gets its line — and one when a
stage that had a line ends. A run shorter than the interval prints none (its summary says it all)::

    eval: 120/400 questions, 3 failed, 2m10s, ~5m left
    embedding questions.jsonl: 64/300, 12s, ~44s left

``failed`` comes from :meth:`ProgressLines.note_failed` (the eval pipeline reports its failed
questions through :func:`ragcov_tui.shared.progress.report_failed`). The remaining time is the elapsed
time per unit of work so far times the work left (:func:`ragcov_tui.shared.progress.remaining_seconds`;
work as the loop reports it through :func:`ragcov_tui.shared.progress.report_work`, else items).
"""

from __future__ import annotations

import math
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from ragcov_tui.shared.errors import ConfigError
from ragcov_tui.shared.progress import remaining_seconds
from ragcov_tui.shared.safe_text import visible_line

EVERY_ENV = "RAGCOV_PROGRESS_EVERY"
DEFAULT_EVERY = 30.0
# stage → (label, unit) where the stage's own name reads badly in a log
LABELS = {"evaluating": ("eval", "questions")}


def progress_every() -> float:
    """Seconds between two progress lines: ``$RAGCOV_PROGRESS_EVERY`` (0.05 to 86400), else 30;
    a bad value is a one-line ConfigError naming the variable."""
    raw = os.environ.get(EVERY_ENV, "").strip()
    if not raw:
        return DEFAULT_EVERY
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not 0.05 <= value <= 86400:  # NaN fails too
        raise ConfigError(f"${EVERY_ENV}: expected seconds from 0.05 to 86400, got {raw!r}")
    return value


def duration(seconds: float) -> str:
    """``45s``, ``2m10s``, ``1h05m``."""
    s = max(0, int(round(seconds)))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{s % 3600 // 60:02d}m"


def progress_line(
    stage: str, done: int, total: int, failed: int, elapsed: float, work: tuple[float, float] | None = None
) -> str:
    """One line (see the module docstring); ``work`` is ``(done, total)`` in the loop's work units
    when it reports them. No remaining time before the first item or without a total."""
    label, unit = LABELS.get(stage, (stage, ""))
    parts = [f"{label}: {done:,}/{total:,}" if total else f"{label}: {done:,}"]
    if unit:
        parts[0] += f" {unit}"
    if failed:
        parts.append(f"{failed:,} failed")
    parts.append(duration(elapsed))
    left = remaining_seconds(elapsed, *(work or (done, total))) if 0 < done < total else None
    if left is not None:
        parts.append(f"~{duration(left)} left")
    return ", ".join(parts)


@dataclass
class _Stage:
    name: str
    done: int
    total: int
    started: float
    failed: int = 0
    work: tuple[float, float] | None = None  # (done, total) work units, when the loop reports them
    ended: bool = False
    printed: bool = False  # a line was written for this stage (so its end gets one too)


class ProgressLines:
    """A ``Progress`` callback writing :func:`progress_line` lines through ``write`` (made visible:
    stage names may quote file names). Use as a context manager; the timer thread stops on exit."""

    def __init__(
        self, write: Callable[[str], None], every: float | None = None, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.write = write
        self.every = progress_every() if every is None else every
        self.clock = clock
        self._lock = threading.Lock()
        self._stage: _Stage | None = None
        self._last_line = clock()  # the first line comes one interval after the start
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> ProgressLines:
        self._thread = threading.Thread(target=self._tick, name="ragcov-progress-lines", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()

    def __call__(self, stage: str, done: int, total: int) -> None:
        with self._lock:
            now, current = self.clock(), self._current(stage, done, total)
            current.done, current.total = done, total
            if total and done >= total and not current.ended:
                current.ended = True
                if current.printed:
                    self._emit(current, now)
            elif now - self._last_line >= self.every and not current.ended:
                self._emit(current, now)

    def _current(self, stage: str, done: int, total: int) -> _Stage:
        """The stage being reported, started now when it is a new one (call with the lock held)."""
        if self._stage is None or self._stage.name != stage:
            self._stage = _Stage(stage, done, total, self.clock())
        return self._stage

    def note_work(self, stage: str, done: float, total: float) -> None:
        """How much of ``stage``'s work is done (the remaining time is estimated from it)."""
        with self._lock:
            self._current(stage, 0, 0).work = (done, total)

    def note_failed(self, stage: str, failed: int) -> None:
        """How many items of ``stage`` failed so far (shown from the next line on)."""
        with self._lock:
            if self._stage is not None and self._stage.name == stage:
                self._stage.failed = failed

    def _emit(self, stage: _Stage, now: float) -> None:
        self._last_line, stage.printed = now, True
        self.write(
            visible_line(
                progress_line(stage.name, stage.done, stage.total, stage.failed, now - stage.started, stage.work)
            )
        )

    def _tick(self) -> None:
        while not self._stop.wait(min(self.every, 1.0)):
            with self._lock:
                now, current = self.clock(), self._stage
                if current is not None and not current.ended and now - self._last_line >= self.every:
                    self._emit(current, now)
