"""Pilot test (issue #30 §4): a run with out-of-scope questions shows its abstention columns, the
``refused`` / ``no abst`` diagnoses, filters on both, and the verdict in the detail view."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragcov_tui.tui.app import RagcovApp
from ragcov_tui.tui.widgets.paged_table import PagedTable
from tests.cli.conftest import CORPUS, run_cli
from tests.evaluation.test_eval_out_of_scope import _files
from tests.support.screen_text import screen_text
from tests.tui.test_tui_eval_measured import _only_session, _type, _until

pytestmark = [pytest.mark.anyio, pytest.mark.slow]


async def test_results_show_abstention_and_refusals(tmp_path: Path) -> None:
    qpath, rpath = _files(tmp_path)
    db = tmp_path / "db.sqlite"
    assert (
        run_cli(
            "eval",
            "--quiet",
            "--db",
            str(db),
            "--questions",
            str(qpath),
            "--corpus",
            str(CORPUS),
            "--system",
            f"records:{rpath}",
            "--embedder",
            "hash",
        )
        == 0
    )
    app = RagcovApp(db, _only_session(db))
    async with app.run_test(size=(160, 40)) as pilot:
        app.show_pane("results")
        table = app.query_one("#results-table", PagedTable)
        await _until(pilot, lambda: table.page.total == 7, "the results")
        titles = [str(c.label) for c in table.columns.values()]
        assert titles[3:7] == ["hit@5", "mrr", "faith", "corr"] and titles[7:9] == ["abst", "answd"]
        await _until(pilot, lambda: "no abst" in screen_text(app), "the rows")
        assert "refused" in screen_text(app)
        await _type(pilot, "abst<1")  # the out-of-scope question answered anyway
        assert [r.question_id for r in table.page.rows] == ["oos3"]
        await pilot.press("escape")
        await _until(pilot, lambda: "filter" not in str(table.border_title), "the filter cleared")
        await _type(pilot, "refused")  # a diagnosis label finds its rows
        assert [r.question_id for r in table.page.rows] == ["q002"]
        await pilot.press("enter")
        await _until(pilot, lambda: "Abstained" in screen_text(app), "the detail view")
        assert "Abstained yes · answerable · by phrases" in " ".join(screen_text(app).split())
