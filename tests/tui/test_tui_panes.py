"""Pilot tests: each pane, driven by its keys at 80x24, shows what the core holds and triages for real."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.widgets import DataTable, Static, TabbedContent

from ragcov_tui.store import open_db
from ragcov_tui.tui.app import RagcovApp, help_text
from ragcov_tui.tui.modals import TextScreen
from ragcov_tui.tui.widgets.paged_table import PagedTable
from tests.support.screen_text import focused_input, static_text
from tests.support.tables import current

SIZE = (80, 24)
pytestmark = pytest.mark.anyio


def cells(table: DataTable, row: int = 0) -> list[str]:
    return [getattr(c, "plain", str(c)) for c in table.get_row_at(row)]


def shown(app: RagcovApp, selector: str) -> str:
    return static_text(app.query_one(selector, Static))


async def test_overview_shows_coverage_and_counts(tui_db: Path) -> None:
    app = RagcovApp(tui_db, "a0000001")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.query_one(TabbedContent).active == "tab-overview"
        text = shown(app, "#overview-figures")
        report = json.loads(open_db(tui_db).execute("SELECT report FROM reports").fetchone()[0])
        assert f"{report['coverage']['basic']:.3f}" in text
        assert "questions   40" in text


async def test_overview_of_an_eval_session_lists_aggregates(tui_db: Path) -> None:
    app = RagcovApp(tui_db, "e0000001")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        table = app.query_one("#overview-aggregates", DataTable)
        names = [cells(table, i)[0] for i in range(table.row_count)]
        assert "ret mrr" in names and "gen faithfulness" in names
        figures = " ".join(shown(app, "#overview-figures").split())
        assert "errors 1" in figures and "error q00013: system timed out" in figures  # the first failure, named


async def test_sessions_open_rename_and_delete(tui_db: Path) -> None:
    app = RagcovApp(tui_db, "a0000001")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("left_square_bracket")
        await pilot.pause()
        table = app.query_one("#sessions-table", PagedTable)
        assert table.row_count == 2 and cells(table, 0)[1] == "e0000001"
        await pilot.press("r")
        focused_input(app).value = "nightly"  # typing into an Input is tested in the documents filter
        await pilot.press("enter")
        await pilot.pause()
        assert cells(table, 0)[5] == "nightly"
        await pilot.press("space", "j", "space", "c")
        await pilot.pause()
        assert isinstance(app.screen, TextScreen) and "Compare" in str(
            app.screen.query_one(".dialog-title", Static).render()
        )
        await pilot.press("escape", "k", "enter")
        await pilot.pause()
        assert app.current_sid == "e0000001" and app.query_one(TabbedContent).active == "tab-overview"
        await pilot.press("left_square_bracket", "d", "y")
        await pilot.pause()
        assert table.row_count == 1 and app.eval_sid is None
        assert app.notice_log[0][2] == "Deleted eval session e0000001 'nightly'."


async def test_clusters_follow_the_cursor_and_toggle_the_map(tui_db: Path) -> None:
    app = RagcovApp(tui_db, "a0000001")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("right_square_bracket")
        await pilot.pause()
        chunks = app.query_one("#clusters-chunks", PagedTable)
        assert "cluster 0" in (chunks.border_title or "")
        await pilot.press("j")
        await pilot.pause()
        assert "cluster 1" in (chunks.border_title or "") and chunks.page.total > 0
        map_widget = app.query_one("#clusters-map")
        assert not map_widget.display or map_widget.region.width == 0
        await pilot.press("m")
        await pilot.pause()
        assert map_widget.region.width > 0


async def test_outliers_keep_drop_undo_write_the_file(tui_db: Path) -> None:
    testset = tui_db.parent / "questions.jsonl"
    original = testset.read_bytes()
    app = RagcovApp(tui_db, "a0000001")
    async with app.run_test(size=SIZE) as pilot:
        app.show_pane("outliers")
        await pilot.pause()
        table = app.query_one("#outliers-table", PagedTable)
        first = current(table).question_id
        await pilot.press("a")
        await pilot.pause()
        assert cells(table, 0)[1] == "kept" and testset.read_bytes() == original
        await pilot.press("j", "d")
        await pilot.pause()
        second = table.page.rows[1].question_id
        assert cells(table, 1)[1] == "DROPPED"
        assert f'"{second}"' not in testset.read_text() and f'"{first}"' in testset.read_text()
        await pilot.press("u")
        await pilot.pause()
        assert testset.read_bytes() == original


async def test_gaps_accept_reject_edit_and_undo(tui_db: Path) -> None:
    testset = tui_db.parent / "questions.jsonl"
    original = testset.read_bytes()
    app = RagcovApp(tui_db, "a0000001")
    async with app.run_test(size=SIZE) as pilot:
        app.show_pane("gaps")
        await pilot.pause()
        suggestions = app.query_one("#gaps-suggestions", PagedTable)
        first = current(suggestions).text
        await pilot.press("a")
        await pilot.pause()
        lines = testset.read_text().splitlines()
        assert len(lines) == len(original.splitlines()) + 1 and json.loads(lines[-1])["question"] == first
        assert cells(suggestions, 0)[1] == "ADDED"
        await pilot.press("u")
        await pilot.pause()
        assert testset.read_bytes() == original
        await pilot.press("tab", "j", "d")
        await pilot.pause()
        assert len(suggestions.page.rows) == 2 and testset.read_bytes() == original
        assert suggestions.cursor_row == 1  # a reject leaves the cursor where it was (issue #10 item 8)
        under = current(suggestions).text
        assert under != first
        await pilot.press("e")
        focused_input(app).value += " (edited)"
        await pilot.press("enter")
        await pilot.pause()
        assert json.loads(testset.read_text().splitlines()[-1])["question"] == under + " (edited)"


async def test_documents_filter_and_next_match(tui_db: Path) -> None:
    app = RagcovApp(tui_db, "a0000001")
    async with app.run_test(size=SIZE) as pilot:
        app.show_pane("documents")
        await pilot.pause()
        table = app.query_one("#documents-table", PagedTable)
        assert table.page.total == 8
        await pilot.press("slash", *"doc-00", "3", "enter")
        await pilot.pause()
        assert table.page.total == 1 and cells(table, 0)[-1] == "doc-003.md"
        await pilot.press("slash", "escape")
        await pilot.pause()
        assert table.page.total == 8
        await pilot.press("n", "n")
        assert table.cursor_row == 2


async def test_results_sort_filter_step_and_detail(tui_db: Path) -> None:
    app = RagcovApp(tui_db, "a0000001")
    async with app.run_test(size=SIZE) as pilot:
        app.show_pane("results")
        await pilot.pause()
        table = app.query_one("#results-table", PagedTable)
        assert table.page.total == 60
        await pilot.press("s")
        assert "by diagnosis" in (table.border_title or "")
        await pilot.press("slash")
        focused_input(app).value = "faithfulness<0.6"
        await pilot.press("enter")
        await pilot.pause()
        assert 0 < table.page.total < 60
        assert all(r.generation["faithfulness"] < 0.6 for r in table.page.rows)
        await pilot.press("n")
        assert table.cursor_row == 1
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, TextScreen)
        body = static_text(app.screen.query_one("#text-body", Static))
        assert "Claims and verdicts" in body and "Judge call" in body
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, TextScreen)


async def test_help_lists_every_pane_binding_and_palette_has_pane_commands(tui_db: Path) -> None:
    app = RagcovApp(tui_db, "a0000001")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, TextScreen)
        await pilot.press("q")
        await pilot.pause()
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert "Go to Gaps" in titles and "Gaps: Accept" in titles and "Results: Filter" in titles
    text = help_text().plain
    for needle in (
        "Edit+add",
        "More",
        "Prev match",
        "Full text",
        "Histograms",
        "Command palette",
        "Next tab",
        "Rerun",
        "Compare",
    ):
        assert needle in text


async def test_empty_database_says_how_to_start(tmp_path: Path) -> None:
    app = RagcovApp(tmp_path / "empty.db")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.query_one(TabbedContent).active == "tab-sessions"
        app.show_pane("gaps")
        await pilot.pause()
        assert "No analysis session yet" in shown(app, "#gaps-empty")
        for _ in range(3):  # back to Overview by keyboard: a hint instead of a crash
            await pilot.press("left_square_bracket")
            await pilot.pause()
        assert app.query_one(TabbedContent).active == "tab-overview"
        app.show_pane("results")
        await pilot.pause()
        assert "No session yet" in shown(app, "#overview-empty") and "ragcov eval" in shown(app, "#overview-empty")
        assert "No eval session yet" in shown(app, "#results-empty")


async def test_help_lists_a_key_bound_twice_for_one_purpose_once(tui_db: Path) -> None:
    """ctrl+x has two app bindings (cancel the job; say there is none here): one help line."""
    app = RagcovApp(tui_db, "a0000001")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("question_mark")
        await pilot.pause()
        body = static_text(app.screen.query_one("#text-body", Static))
    assert [line.split() for line in body.splitlines() if line.strip().startswith("ctrl+x")] == [
        ["ctrl+x", "Cancel", "job"]
    ]
