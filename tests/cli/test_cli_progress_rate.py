"""The CLI progress bar shows items per second (what its ETA is computed from)."""

from __future__ import annotations

from rich.progress import Progress

from ragcov_tui.cli.render import RateColumn


def test_rate_column_shows_items_per_second_once_known() -> None:
    now = [0.0]
    progress = Progress(RateColumn(), get_time=lambda: now[0], disable=True)
    task_id = progress.add_task("embedding", total=1000)
    task = progress.tasks[0]
    assert RateColumn().render(task).plain == ""
    for step in range(1, 6):
        now[0] = step * 2.0
        progress.update(task_id, completed=step * 25)
    assert RateColumn().render(task).plain == "12.5/s"
    assert task.time_remaining == (1000 - 125) / 12.5  # the ETA moves with the measured rate
