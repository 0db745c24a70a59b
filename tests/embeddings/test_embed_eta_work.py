"""The time left comes from the work, not the item count (issue #25 §5): the embedding loop does its
short texts first, so items done over-promise; it reports characters, cache hits excluded, and the
CLI's log lines and bar estimate from them."""

from __future__ import annotations

from rich.progress import Progress

from ragcov_tui.cli.render import WorkRemainingColumn
from ragcov_tui.embeddings.hashing import HashEmbedder
from ragcov_tui.store import open_db
from tests.cli.test_cli_progress_lines import lines_at


class Recorder:
    def __init__(self) -> None:
        self.work: list[tuple[float, float]] = []
        self.items: list[tuple[int, int]] = []

    def note_work(self, stage: str, done: float, total: float) -> None:
        self.work.append((done, total))

    def __call__(self, stage: str, done: int, total: int) -> None:
        self.items.append((done, total))


def test_the_embedding_loop_reports_characters_of_the_misses_only() -> None:
    embedder = HashEmbedder(16)
    embedder.db, embedder.batch_size = open_db(":memory:"), 2
    embedder.embed(["cached already"])
    texts = ["a" * 5, "b" * 100, "cached already", "c" * 10, "d" * 1000]
    rec = Recorder()
    embedder.embed(texts, progress=rec)
    assert rec.items[0] == (0, 4) and rec.items[-1] == (4, 4)
    assert rec.work[0] == (0, 1115) and rec.work[-1] == (1115, 1115)  # 5 + 10 + 100 + 1000: no cache hit
    assert [d for d, _ in rec.work] == sorted(d for d, _ in rec.work)
    assert len(rec.work) == len(rec.items)


def test_the_log_line_estimates_from_the_work() -> None:
    lines, out, clock = lines_at(30.0)
    lines.note_work("embedding chunks", 0, 1000)
    lines("embedding chunks", 0, 100)
    clock.now = 40.0
    lines.note_work("embedding chunks", 100, 1000)  # half the texts, a tenth of the work
    lines("embedding chunks", 50, 100)
    assert out == ["embedding chunks: 50/100, 40s, ~6m00s left"]  # not ~40s


def test_the_bar_estimates_from_the_work() -> None:
    with Progress(WorkRemainingColumn(), auto_refresh=False) as bar:
        task_id = bar.add_task("x", total=100, completed=50, work=(100.0, 1000.0))
        task = bar.tasks[0]
        task.start_time = task.stop_time = None
        bar.start_task(task_id)
        task.start_time = bar.get_time() - 40.0
        assert str(WorkRemainingColumn().render(task)) in ("0:06:00", "0:06:01")
        bar.update(task_id, work=None)  # no work reported: from the items
        assert str(WorkRemainingColumn().render(task)) in ("0:00:40", "0:00:41")
