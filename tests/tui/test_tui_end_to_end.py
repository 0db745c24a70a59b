"""End to end: analyze sample_data → open the app → Gaps → accept the first suggestion → undo.

Also a real analysis job started from the Jobs pane (hash embedder, for speed) runs to completion
and opens its session (that keys respond during a job is tested with a slow job in
test_tui_jobs_and_markup.py: this one finishes too fast to press anything meanwhile).
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest
from textual.widgets import Input, TabbedContent

from ragcov_tui.store import open_db
from ragcov_tui.tui.app import RagcovApp
from ragcov_tui.tui.widgets.paged_table import PagedTable

pipeline = pytest.importorskip(
    "ragcov_tui.services.analysis_job", reason="run_analysis (coverage pipeline) not available yet"
)
pytestmark = [pytest.mark.anyio, pytest.mark.slow]

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data"


@pytest.fixture()
def workspace(tmp_path: Path) -> tuple[Path, Path]:
    if not (SAMPLE / "questions.jsonl").exists():
        pytest.skip("sample_data/questions.jsonl is not there yet")
    testset = tmp_path / "questions.jsonl"
    shutil.copy(SAMPLE / "questions.jsonl", testset)
    return tmp_path / "ragcov.db", testset


async def test_accept_first_gap_suggestion_then_undo(workspace: tuple[Path, Path]) -> None:
    db_path, testset = workspace
    db = open_db(db_path)
    sid, report = pipeline.run_analysis(
        pipeline.AnalyzeOptions(corpus=[str(SAMPLE / "corpus")], questions=str(testset), embedder="hash"), db
    )
    assert report["gaps"], "sample_data should have at least one gap"
    db.conn.close()
    original = testset.read_bytes()

    app = RagcovApp(db_path, sid)
    async with app.run_test(size=(80, 24)) as pilot:
        app.show_pane("gaps")
        await pilot.pause()
        suggestion = app.query_one("#gaps-suggestions", PagedTable).current
        assert suggestion is not None
        await pilot.press("a")
        await pilot.pause()
        after = testset.read_bytes()
        assert after.startswith(original) and after.count(b"\n") == original.count(b"\n") + 1
        assert suggestion.text.encode() in after[len(original) :]
        await pilot.press("u")
        await pilot.pause()
        assert testset.read_bytes() == original


async def test_real_analysis_job_from_the_jobs_pane(workspace: tuple[Path, Path]) -> None:
    db_path, testset = workspace
    app = RagcovApp(db_path)
    async with app.run_test(size=(80, 24)) as pilot:
        app.show_pane("jobs")
        await pilot.pause()
        for field, value in (("corpus", str(SAMPLE / "corpus")), ("questions", str(testset)), ("embedder", "hash")):
            app.query_one(f"#job-{field}", Input).value = value
        await pilot.press("ctrl+r")
        end = time.monotonic() + 60
        while app.analysis_sid is None or app.query_one(TabbedContent).active != "tab-overview":
            assert time.monotonic() < end, "the analysis job did not finish and open its Overview"
            await pilot.pause(0.1)
        assert open_db(db_path).execute("SELECT status FROM sessions").fetchone()[0] == "done"
