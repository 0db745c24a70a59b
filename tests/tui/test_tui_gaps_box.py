"""The Gaps pane's box at 80x24: with a short gap list the box gets the rows the list does not
need, so the rule (how the gaps were chosen) reads in full instead of stopping mid-sentence."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from textual.widgets import Static

from ragcov_tui.services.analysis_job import AnalyzeOptions, run_analysis
from ragcov_tui.store import open_db, queries
from ragcov_tui.tui.app import RagcovApp
from tests.support.screen_text import screen_text, static_text

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data"
pytestmark = pytest.mark.anyio


@pytest.fixture()
def anyio_backend() -> str:
    return "asyncio"


async def test_gap_rule_reads_in_full_at_80x24(tmp_path: Path) -> None:
    shutil.copytree(SAMPLE, tmp_path / "sample_data")
    path = tmp_path / "ragcov.db"
    db = open_db(path)
    data = tmp_path / "sample_data"
    sid, _ = run_analysis(
        AnalyzeOptions(corpus=[str(data / "corpus")], questions=str(data / "questions.jsonl"), embedder="hash"), db
    )
    rule = (queries.analysis_report(db, sid).get("calibration") or {}).get("gaps_text")
    gaps = queries.gap_rows(db, sid, str(data / "questions.jsonl"))
    db.conn.close()
    assert rule and 1 <= len(gaps) <= 4  # a short list: the case that left the box 6 lines
    app = RagcovApp(path, sid)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("5")
        await pilot.pause()
        flat = " ".join(screen_text(app).split())
        assert " ".join(rule.split()) in flat  # the whole rule, wrapped under its label
        assert "Suggested questions for cluster" in flat  # the suggestion list keeps its place
        box = app.query_one("#gaps-detail", Static)
        shown = box.content_region.height
        assert shown >= len(static_text(box).rstrip().splitlines())  # nothing in the box is clipped
        table = app.query_one("#gaps-table")
        assert table.size.height <= len(gaps) + 4  # border title, header, rows, a scrollbar row
