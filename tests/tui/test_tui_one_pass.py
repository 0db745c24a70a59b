"""Issue #29 §4: one key press does one pass. A triage key in Gaps or Outliers reads the test file
once before the decision and once in the core's write (an accept, an edit), queries the pane's rows
once and loads the analysis report once — not again for a reload the decision itself triggers.

The counts are of the real functions, wrapped with counters for the length of one key press
(nothing is replaced: the wrapped function runs and its result is used)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input

from ragcov_tui.store import open_db, queries
from ragcov_tui.store.decisions import list_decisions
from ragcov_tui.testset import writer
from ragcov_tui.tui.app import RagcovApp
from ragcov_tui.tui.modals import TextPrompt
from ragcov_tui.tui.panes.base import Pane
from ragcov_tui.tui.widgets.paged_table import PagedTable

SIZE = (80, 24)
pytestmark = pytest.mark.anyio


@pytest.fixture()
def calls(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """How often each counted function ran: ``read`` (a read and parse of the test file),
    ``report`` (the stored analysis report loaded), ``gaps`` / ``outliers`` (the pane's rows queried)."""
    counts: Counter[str] = Counter()

    def counted(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def run(*args: Any, **kwargs: Any) -> Any:
            counts[name] += 1
            return fn(*args, **kwargs)

        return run

    for owner, attr, name in (
        (writer, "snapshot", "read"),
        (queries, "analysis_report", "report"),
        (queries, "gap_rows", "gaps"),
        (queries, "outlier_page", "outliers"),
        (queries, "redundant_pairs", "pairs"),
    ):
        monkeypatch.setattr(owner, attr, counted(name, getattr(owner, attr)))
    return counts


async def press(pilot: Any, calls: Counter[str], *keys: str) -> dict[str, int]:
    """Press ``keys`` and let the app settle; what the counted functions did meanwhile."""
    calls.clear()
    for key in keys:
        await pilot.press(key)
    await pilot.pause()
    await pilot.pause()
    return dict(calls)


def suggestion_statuses(tui_db: Path) -> Counter[str]:
    db = open_db(tui_db)
    try:
        return Counter(status for (status,) in db.execute("SELECT status FROM suggestions").fetchall())
    finally:
        db.conn.close()


def decisions(tui_db: Path) -> list[tuple[str, bool]]:
    """(action, undone) of each decision of the analysis, oldest first."""
    db = open_db(tui_db)
    try:
        return [(d.action, d.undone) for d in list_decisions(db, "a0000001")]
    finally:
        db.conn.close()


def file_bytes(tui_db: Path) -> bytes:
    return (tui_db.parent / "questions.jsonl").read_bytes()


async def gaps_on_suggestions(app: RagcovApp, pilot: Any) -> PagedTable:
    app.show_pane("gaps")
    await pilot.pause()
    await pilot.press("tab")
    await pilot.pause()
    table = app.query_one("#gaps-suggestions", PagedTable)
    assert app.focused is table and table.current is not None
    return table


async def test_an_accept_in_gaps_reads_twice_renders_once_and_loads_the_report_once(
    tui_db: Path, calls: Counter[str]
) -> None:
    app = RagcovApp(tui_db, "a0000001")
    async with app.run_test(size=SIZE) as pilot:
        table = await gaps_on_suggestions(app, pilot)
        assert await press(pilot, calls, "a") == {"read": 2, "gaps": 1, "report": 1}
        assert suggestion_statuses(tui_db)["accepted"] == 1
        assert table.cursor_row == 1  # moved on to the next open suggestion, as before


async def test_an_edit_in_gaps_does_the_same_one_pass(tui_db: Path, calls: Counter[str]) -> None:
    app = RagcovApp(tui_db, "a0000001")
    async with app.run_test(size=SIZE) as pilot:
        await gaps_on_suggestions(app, pilot)
        assert await press(pilot, calls, "e") == {}  # the prompt opens: nothing read yet
        assert isinstance(app.screen, TextPrompt)
        app.screen.query_one(Input).value = "How is a restore of the encryption cache verified?"
        assert await press(pilot, calls, "enter") == {"read": 2, "gaps": 1, "report": 1}
        assert decisions(tui_db) == [("edit", False)]


async def test_a_reject_and_an_undo_in_gaps_read_only_what_they_need(tui_db: Path, calls: Counter[str]) -> None:
    app = RagcovApp(tui_db, "a0000001")
    async with app.run_test(size=SIZE) as pilot:
        await gaps_on_suggestions(app, pilot)
        before = file_bytes(tui_db)
        assert await press(pilot, calls, "d") == {"read": 1, "gaps": 1, "report": 1}  # a reject writes no file
        assert await press(pilot, calls, "a") == {"read": 2, "gaps": 1, "report": 1}
        undone = await press(pilot, calls, "u")  # the re-read, the core's own before it restores, one render
        assert undone == {"read": 2, "gaps": 1, "report": 1}
        assert decisions(tui_db)[:2] == [("reject", False), ("accept", True)] and file_bytes(tui_db) == before


async def test_keep_drop_and_undo_in_outliers_are_one_pass(tui_db: Path, calls: Counter[str]) -> None:
    app = RagcovApp(tui_db, "a0000001")
    async with app.run_test(size=SIZE) as pilot:
        app.show_pane("outliers")
        await pilot.pause()
        assert app.query_one("#outliers-table", PagedTable).current is not None
        before = file_bytes(tui_db)
        assert await press(pilot, calls, "a") == {"read": 1, "outliers": 1}  # keep: recorded, no file written
        assert await press(pilot, calls, "j", "d") == {"read": 2, "outliers": 1}
        assert decisions(tui_db) == [("keep", False), ("drop", False)] and file_bytes(tui_db) != before
        assert await press(pilot, calls, "u") == {"read": 2, "outliers": 1}
        assert decisions(tui_db)[:2] == [("keep", False), ("drop", True)] and file_bytes(tui_db) == before


async def test_a_keep_or_drop_in_outliers_makes_every_other_pane_stale(tui_db: Path) -> None:
    """A drop changes the test file and a keep the decisions other panes count: like a Gaps accept, they
    mark every other pane stale (reloaded when next shown); a refused one marks nothing."""
    app = RagcovApp(tui_db, "a0000001")
    async with app.run_test(size=SIZE) as pilot:
        app.show_pane("outliers")
        await pilot.pause()
        others = [pane for pane in app.query(Pane) if pane.id != "outliers" and pane.sid]
        assert others
        for key in ("a", "d"):
            for pane in others:
                pane.stale = False
            await pilot.press(key)
            await pilot.pause()
            assert all(pane.stale for pane in others), key
