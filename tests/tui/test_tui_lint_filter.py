"""Pilot test of the Outliers pane's lint filter (``l``, issue #27 §1, §2) at 80x24: all findings,
then each kind the session has (stale gold among them, after a gold document was edited between two
analyses), then back to the outliers; the detail shows the reasons."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from textual.widgets import Static

from ragcov_tui.services.analysis_job import AnalyzeOptions, run_analysis
from ragcov_tui.store import open_db
from ragcov_tui.store.lint import lint_findings
from ragcov_tui.tui.app import RagcovApp
from ragcov_tui.tui.widgets.paged_table import PagedTable
from tests.support.screen_text import static_text
from tests.support.tables import current

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data"
SIZE = (80, 24)
pytestmark = pytest.mark.anyio


@pytest.fixture()
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def stale_db(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """Two analyses of a copy of sample_data (hash embedder: fast, offline), a gold document edited between them."""
    tmp = tmp_path_factory.mktemp("lint")
    shutil.copytree(SAMPLE / "corpus", tmp / "corpus")
    shutil.copy(SAMPLE / "questions.jsonl", tmp / "questions.jsonl")
    db = open_db(tmp / "ragcov.db")
    opts = AnalyzeOptions(corpus=[str(tmp / "corpus")], questions=str(tmp / "questions.jsonl"), embedder="hash")
    run_analysis(opts, db)
    billing = tmp / "corpus" / "billing-and-plans.md"
    billing.write_text(billing.read_text().replace("$8", "$9"))
    sid, _ = run_analysis(opts, db)
    db.conn.close()
    return tmp / "ragcov.db", sid


async def test_l_cycles_all_findings_each_kind_and_back_to_outliers(stale_db) -> None:
    path, sid = stale_db
    findings = lint_findings(open_db(path), sid)
    stale = [f["question_id"] for f in findings if f["kind"] == "stale_gold"]
    assert stale
    kinds = list(dict.fromkeys(f["kind"] for f in findings))
    app = RagcovApp(path, sid)
    async with app.run_test(size=SIZE) as pilot:
        app.show_pane("outliers")
        await pilot.pause()
        table = app.query_one("#outliers-table", PagedTable)
        outliers = table.page.total
        await pilot.press("l")
        await pilot.pause()
        assert "Lint findings: all" in table.label
        assert table.page.total == len({f["question_id"] for f in findings})
        first = current(table)
        assert first.reasons and first.question_id in {f["question_id"] for f in findings}
        assert "lint" in static_text(app.query_one("#outliers-detail", Static))
        seen = []
        for _ in kinds:
            await pilot.press("l")
            await pilot.pause()
            seen.append(table.label.split("Lint findings: ")[1].split(" ")[0])
            if seen[-1] == "stale_gold":
                assert [r.question_id for r in table.page.rows] == stale
        assert sorted(seen) == sorted(kinds)
        await pilot.press("l")
        await pilot.pause()
        assert "Outlier questions by LOF" in table.label and table.page.total == outliers


def test_the_session_stores_one_row_per_finding(stale_db) -> None:
    path, sid = stale_db
    db = open_db(path)
    report = json.loads(db.conn.execute("SELECT report FROM reports WHERE session_id = ?", [sid]).fetchone()[0])
    assert "findings" not in report["lint"]  # the findings live in lint_findings, one row each
    assert sum(k["found"] for k in report["lint"]["kinds"]) == len(lint_findings(db, sid))
