"""Issue #10 item 2 at 80x24: the test file changed on disk while the app is open.

An outside append never blocks an accept (the status message says what changed, the file keeps
both rows); editing the very row being dropped makes the app ask; an undo after an outside edit
takes out only our row.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Static

from ragcov_tui.tui.app import RagcovApp
from ragcov_tui.tui.modals import ConfirmScreen
from ragcov_tui.tui.widgets.paged_table import PagedTable
from tests.support.screen_text import static_text
from tests.support.tables import current

SIZE = (80, 24)
pytestmark = pytest.mark.anyio


@asynccontextmanager
async def pane(tui_db: Path, name: str) -> AsyncIterator[tuple[RagcovApp, Any]]:
    """The app at 80x24 (notifications shown) on pane ``name`` of the fixture's analysis session."""
    app = RagcovApp(tui_db, "a0000001")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        app.show_pane(name)
        await pilot.pause()
        yield app, pilot


def asked(app: RagcovApp) -> str:
    """The question of the confirm dialog on screen (toasts may cover part of it)."""
    assert isinstance(app.screen, ConfirmScreen)
    return " ".join(static_text(app.screen.query_one(Static)).split())


async def press(pilot, *keys: str) -> None:
    for key in keys:
        await pilot.press(key)
        await pilot.pause()


def toasts(app: RagcovApp) -> list[str]:
    """What each notification shows: a toast's region cut out of the screen's rows, lines folded; below
    100x30 (notifications go to the status line, and ``?`` lists them in full) ``title message`` each."""
    lines = ["".join(seg.text for seg in strip if not seg.control) for strip in app.screen._compositor.render_strips()]
    on_screen = [
        " ".join(
            " ".join(line[t.region.x : t.region.right] for line in lines[t.region.y : t.region.bottom])
            .replace("▌", " ")
            .split()
        )
        for t in app.screen.query("Toast")
        if t.region.area
    ]
    return on_screen + [" ".join(f"{title} {message}".split()) for _, title, message in app.notice_log]


async def test_gaps_accept_after_an_outside_append_keeps_both_rows_and_says_what_changed(tui_db: Path) -> None:
    testset = tui_db.parent / "questions.jsonl"
    async with pane(tui_db, "gaps") as (app, pilot):
        theirs = json.dumps({"id": "x1", "question": "Added by a teammate's git pull?"}) + "\n"
        testset.write_text(testset.read_text() + theirs)
        edited = testset.read_bytes()
        suggestion = current(app.query_one("#gaps-suggestions", PagedTable))
        await press(pilot, "a")
        after = testset.read_bytes()
        assert after.startswith(edited) and json.loads(after.splitlines()[-1])["question"] == suggestion.text
        shown = toasts(app)
        assert (
            "test file reloaded test file questions.jsonl changed on disk: 1 row added, 0 removed, 0 edited; reloaded"
        ) in shown
        assert not any("refused" in t for t in shown)
        await press(pilot, "u")
        assert testset.read_bytes() == edited  # only our row went; the teammate's stays


async def test_outliers_drop_of_a_row_edited_on_disk_asks_first(tui_db: Path) -> None:
    testset = tui_db.parent / "questions.jsonl"
    async with pane(tui_db, "outliers") as (app, pilot):
        table = app.query_one("#outliers-table", PagedTable)
        qid = current(table).question_id
        rows = [json.loads(line) for line in testset.read_text().splitlines()]
        testset.write_text(
            "".join(json.dumps({**r, "question": "Reworded on disk?"} if r["id"] == qid else r) + "\n" for r in rows)
        )
        edited = testset.read_bytes()
        await press(pilot, "d")
        assert asked(app) == (
            f"{qid} was edited in questions.jsonl since the analysis read it; nothing was written. "
            f"Drop the edited row {qid} anyway?"
        )
        await press(pilot, "n")
        assert testset.read_bytes() == edited and not isinstance(app.screen, ConfirmScreen)
        await press(pilot, "d", "y")
        assert "Reworded on disk?" not in testset.read_text() and len(testset.read_text().splitlines()) == len(rows) - 1
        assert [c.plain for c in table.get_row_at(0)][1] == "DROPPED"


async def test_an_undo_that_cannot_apply_cleanly_asks_and_keeps_the_file(tui_db: Path) -> None:
    testset = tui_db.parent / "questions.jsonl"
    async with pane(tui_db, "gaps") as (app, pilot):
        suggestions = app.query_one("#gaps-suggestions", PagedTable)
        await press(pilot, "a")
        ours = json.loads(testset.read_text().splitlines()[-1])
        testset.write_text(testset.read_text().replace(ours["question"], "Our row, reworded by a teammate?"))
        edited = testset.read_bytes()
        await press(pilot, "u")
        assert asked(app).startswith("cannot undo the accept of suggestion") and asked(app).endswith(
            "is no longer in questions.jsonl as it was written (edited or removed on disk); the file was kept as it is. "
            "Forget this decision, leaving the file as it is?"
        )
        await press(pilot, "n")
        assert testset.read_bytes() == edited and [c.plain for c in suggestions.get_row_at(0)][1] == "ADDED"
        await press(pilot, "u", "y")
        assert testset.read_bytes() == edited and [c.plain for c in suggestions.get_row_at(0)][1] == ""
