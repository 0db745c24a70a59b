"""Progress lines for a log (issue #14 item 11): a line at least every interval while a stage runs
(from a timer even when nothing reports), one when such a stage ends, none for a short run; the
failed count and the remaining time; stage names made visible."""

from __future__ import annotations

import time

import pytest

from ragcov_tui.cli.progress_lines import ProgressLines, duration, progress_line


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def lines_at(every: float = 30.0) -> tuple[ProgressLines, list[str], Clock]:
    out: list[str] = []
    clock = Clock()
    return ProgressLines(out.append, every=every, clock=clock), out, clock


def test_a_line_every_interval_with_failures_and_the_time_left() -> None:
    lines, out, clock = lines_at(30.0)
    lines("evaluating", 0, 400)
    clock.now = 10.0
    lines("evaluating", 50, 400)
    assert out == []
    clock.now = 31.0
    lines("evaluating", 50, 400)
    clock.now = 40.0
    lines.note_failed("evaluating", 3)
    lines("evaluating", 120, 400)
    clock.now = 130.0
    lines("evaluating", 120, 400)
    clock.now = 150.0
    lines("evaluating", 400, 400)
    lines("evaluating", 400, 400)  # the end is said once
    assert out == [
        "eval: 50/400 questions, 31s, ~3m37s left",
        "eval: 120/400 questions, 3 failed, 2m10s, ~5m03s left",
        "eval: 400/400 questions, 3 failed, 2m30s",
    ]


def test_a_run_shorter_than_the_interval_prints_nothing() -> None:
    lines, out, clock = lines_at(30.0)
    for stage, total in (("chunking", 19), ("evaluating", 31)):
        for done in range(total + 1):
            clock.now += 0.1
            lines(stage, done, total)
    assert out == []


def test_each_stage_is_timed_from_its_own_start() -> None:
    lines, out, clock = lines_at(5.0)
    clock.now = 6.0
    lines("chunking", 10, 19)
    lines("chunking", 19, 19)
    clock.now = 8.0
    lines("embedding questions.jsonl", 0, 300)
    clock.now = 12.0
    lines("embedding questions.jsonl", 64, 300)
    assert out == ["chunking: 10/19, 0s", "chunking: 19/19, 0s", "embedding questions.jsonl: 64/300, 4s, ~15s left"]


def test_the_timer_writes_while_nothing_reports() -> None:
    out: list[str] = []
    with ProgressLines(out.append, every=0.05) as lines:
        lines("evaluating", 2, 10)
        deadline = time.monotonic() + 10
        while len(out) < 3 and time.monotonic() < deadline:
            time.sleep(0.02)
    assert len(out) >= 3 and all(line.startswith("eval: 2/10 questions, ") for line in out)


def test_stage_names_reach_the_log_visible() -> None:
    lines, out, clock = lines_at(1.0)
    clock.now = 2.0
    lines("embedding \x1b]0;pwned\x07q.jsonl\u202e", 1, 2)
    assert len(out) == 1 and "\x1b" not in out[0] and "\x07" not in out[0] and "\u202e" not in out[0]


@pytest.mark.parametrize(
    "seconds,text",
    [
        (0, "0s"),
        (0.4, "0s"),
        (59.4, "59s"),
        (60, "1m00s"),
        (130, "2m10s"),
        (3599, "59m59s"),
        (3600, "1h00m"),
        (3900, "1h05m"),
        (-3, "0s"),
    ],
)
def test_duration(seconds: float, text: str) -> None:
    assert duration(seconds) == text


@pytest.mark.parametrize(
    "args,line",
    [
        (("evaluating", 0, 400, 0, 5), "eval: 0/400 questions, 5s"),
        (("evaluating", 400, 400, 0, 5), "eval: 400/400 questions, 5s"),
        (("evaluating", 1, 3, 1, 10), "eval: 1/3 questions, 1 failed, 10s, ~20s left"),
        (("chunking", 7, 0, 0, 1), "chunking: 7, 1s"),
        (("embedding", 1_000, 50_000, 0, 60), "embedding: 1,000/50,000, 1m00s, ~49m00s left"),
    ],
)
def test_progress_line(args: tuple, line: str) -> None:
    assert progress_line(*args) == line
