"""Labels by keyboard in Results and the Alignment pane (issue #26 §4): Pilot presses the keys and
the test reads the screen and the stored rows."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import DataTable, Static, TabbedContent

from ragcov_tui.store import open_db
from ragcov_tui.store.labels import import_labels, item_labels, session_labels
from ragcov_tui.tui.app import RagcovApp, help_text
from ragcov_tui.tui.modals import TextScreen
from ragcov_tui.tui.widgets.paged_table import PagedTable
from tests.support.screen_text import screen_text, static_text
from tests.support.tables import current

SID = "e0000001"
pytestmark = pytest.mark.anyio


@pytest.fixture()
def anyio_backend() -> str:
    return "asyncio"


async def _results(pilot, app: RagcovApp) -> str:
    app.show_pane("results")
    await pilot.pause()
    await pilot.pause()
    return current(app.query_one("#results-table", PagedTable)).question_id


async def test_label_keys_cycle_store_undo_and_show_in_the_detail(tui_db: Path) -> None:
    app = RagcovApp(tui_db, SID)
    async with app.run_test(size=(120, 40)) as pilot:
        qid = await _results(pilot, app)
        db = open_db(tui_db)
        assert app.query_one(TabbedContent).get_tab("tab-alignment").has_class("-hidden")  # no label yet
        footer = screen_text(app)
        assert "f Label faith" in footer and "u Undo label" in footer and "^q Quit" in footer
        await pilot.press("f")
        await pilot.pause()
        assert item_labels(db, SID, qid) == {"faithfulness": 1}
        assert app.notice_log[0][2] == f"{qid} faithfulness: labelled yes (was none; u undoes)"
        assert not app.query_one(TabbedContent).get_tab("tab-alignment").has_class("-hidden")  # the tab appears
        await pilot.press("f", "c")
        await pilot.pause()
        assert item_labels(db, SID, qid) == {"faithfulness": 0, "answer_correctness": 1}
        await pilot.press("u")
        await pilot.pause()
        assert item_labels(db, SID, qid) == {"faithfulness": 0}
        assert app.notice_log[0][2] == f"undone: {qid} answer_correctness back to none (was yes)"
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, TextScreen)
        body = static_text(app.screen.query_one("#text-body", Static))
        assert "Your labels" in body
        assert any(
            line.split()[:2] == ["faithfulness", "no"] for line in body.split("Your labels")[1].splitlines()[1:2]
        )
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("f")  # no → none: the label is cleared
        await pilot.pause()
        assert item_labels(db, SID, qid) == {}


async def test_alignment_pane_shows_the_figures_and_a_metric_per_row(tui_db: Path) -> None:
    db = open_db(tui_db)
    scores = dict(
        db.execute(
            "SELECT question_id, json_extract(generation, '$.faithfulness') FROM eval_items "
            "WHERE session_id = ? AND status = 'done'",
            [SID],
        ).fetchall()
    )
    from ragcov_tui.store.labels import Label

    import_labels(
        db,
        SID,
        [Label(q, "faithfulness", int((s >= 0.5) != (i % 5 == 0))) for i, (q, s) in enumerate(sorted(scores.items()))],
        "import:test",
    )
    app = RagcovApp(tui_db, SID)
    async with app.run_test(size=(120, 40)) as pilot:
        await _results(pilot, app)
        await pilot.press("A")
        await pilot.pause()
        await pilot.pause()
        assert app.query_one(TabbedContent).active == "tab-alignment"
        table = app.query_one("#alignment-metrics", DataTable)
        assert table.row_count == 1
        assert str(table.get_row_at(0)[0]) == "faithfulness"
        detail = static_text(app.query_one("#alignment-detail", Static))
        assert "faithfulness: not certified" in detail or "faithfulness: certified" in detail
        assert "judge-corrected" in detail and "label yes" in detail and "score [0.8, 1.0]" in detail
        assert f"{len(session_labels(db, SID))} labels" in static_text(app.query_one("#alignment-summary", Static))
        app.show_pane("overview")  # the app's report: the judged mean beside its judge-corrected estimate
        await pilot.pause()
        figures = static_text(app.query_one("#overview-figures", Static))
        assert "aligned faithfulness: judged mean" in figures and "judge-corrected" in figures


def test_help_lists_the_label_keys() -> None:
    text = help_text(pane="Results").plain
    for line in (
        "f           Label faith",
        "c           Label corr",
        "v           Label relev",
        "u           Undo label",
        "A           Alignment",
    ):
        assert line in text


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
def test_alignment_pane_snapshot(snap_compare, tui_db: Path, size: tuple[int, int]) -> None:
    db = open_db(tui_db)
    rows = db.execute(
        "SELECT question_id, json_extract(generation, '$.faithfulness'), "
        "json_extract(generation, '$.answer_correctness') FROM eval_items "
        "WHERE session_id = ? AND status = 'done' ORDER BY seq",
        [SID],
    ).fetchall()
    from ragcov_tui.store.labels import Label

    labels = [Label(q, "faithfulness", int((f >= 0.5) != (i % 4 == 0))) for i, (q, f, _) in enumerate(rows)]
    labels += [Label(q, "answer_correctness", int(c >= 0.6)) for q, _, c in rows[:30]]
    import_labels(db, SID, labels, "import:test")
    db.conn.close()

    async def show(pilot) -> None:
        await pilot.pause()  # the app's own first pane (Overview) is shown on mount: after it
        pilot.app.show_pane("alignment")
        await pilot.pause()
        await pilot.pause()
        assert pilot.app.query_one(TabbedContent).active == "tab-alignment"

    assert snap_compare(RagcovApp(tui_db, SID), terminal_size=size, run_before=show)
