"""Pilot tests on a real analysis of the synthetic held-out corpus (tests/coverage/heldout_data.py):
Overview shows the covered share, Gaps leads with the held-out topic and says how the gaps were
chosen, Documents lists the held-out documents first with their reach, covered share and gold count."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.widgets import DataTable, Static

from ragcov_tui.coverage.analysis import analyze
from ragcov_tui.store import open_db
from ragcov_tui.store.analysis import save_analysis
from ragcov_tui.store.analysis_contract import AnalysisReport
from ragcov_tui.store.sessions import create_session, finish_session
from ragcov_tui.tui.app import RagcovApp
from ragcov_tui.tui.widgets.paged_table import PagedTable
from tests.coverage.heldout_data import doc_name, heldout_inputs
from tests.support.screen_text import static_text

pytestmark = pytest.mark.anyio
HELD = {(2, d) for d in range(5)}


@pytest.fixture()
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture()
def heldout_db(tmp_path: Path) -> tuple[Path, str, AnalysisReport]:
    C, Q, chunks, questions, params = heldout_inputs(seed=1, held_out=HELD)
    result = analyze(C, Q, chunks, questions, params)
    testset = tmp_path / "questions.jsonl"
    testset.write_text("".join(json.dumps({"id": q.id, "question": q.text}) + "\n" for q in questions))
    db = open_db(tmp_path / "ragcov.db")
    sid = create_session(
        db,
        "analysis",
        corpus=[str(tmp_path)],
        questions_path=str(testset),
        testset_sha256="0",
        embedder="precomputed",
        llm="heuristic",
        params={},
    )
    save_analysis(db, sid, result, chunks, questions)
    report = result.to_report(details=False)
    finish_session(db, sid, "done", summary={"basic": report["coverage"]["basic"], "gaps": len(report["gaps"])})
    db.conn.close()
    return tmp_path / "ragcov.db", sid, report


def row(table: DataTable, i: int) -> list[str]:
    return [getattr(c, "plain", str(c)) for c in table.get_row_at(i)]


async def test_gaps_and_documents_lead_with_the_held_out_topic(heldout_db) -> None:
    path, sid, report = heldout_db
    held = {doc_name(t, d) for t, d in HELD}
    app = RagcovApp(path, sid)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        figures = static_text(app.query_one("#overview-figures", Static))
        assert f"{report['coverage']['covered_share']:.0%} of chunks within reach" in figures

        app.show_pane("gaps")
        await pilot.pause()
        gaps = app.query_one("#gaps-table", DataTable)
        first = report["gaps"][0]
        assert row(gaps, 0)[2:5] == [str(first["cluster"]), f"{first['priority']:.2f}", f"{first['covered_share']:.2f}"]
        assert gaps.row_count == len(report["gaps"]) < len(report["clusters"])
        detail = " ".join(static_text(app.query_one("#gaps-detail", Static)).split())
        assert report["calibration"]["gaps_text"] in detail and "advice" in detail

        app.show_pane("documents")
        await pilot.pause()
        table = app.query_one("#documents-table", PagedTable)
        top = [r["source"] for r in table.page.rows[: len(held)]]
        assert set(top) == held
        cells = [getattr(c, "plain", str(c)) for c in table.get_row_at(0)]
        doc = table.page.rows[0]
        assert cells[:5] == ["UNREACH", f"{doc['reach']:.3f}", "0.00", "0", str(doc["chunks"])]
        keys = [(r["gold_count"] > 0, r["reach"]) for r in table.page.rows]
        assert keys == sorted(keys)  # least covered first: no gold question, then farthest from every question
