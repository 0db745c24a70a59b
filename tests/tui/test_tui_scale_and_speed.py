"""Issue #22 §4: the app at scale and at speed — paging across the 200-row pages, one caption
format, ids in natural order, and keys typed at 30 ms a key never lost nor landing elsewhere."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from textual import events
from textual.keys import _character_to_key

from ragcov_tui.store import open_db, queries
from ragcov_tui.tui.app import RagcovApp
from ragcov_tui.tui.modals import compare_text
from ragcov_tui.tui.panes.documents import DocumentsPane
from ragcov_tui.tui.widgets.paged_table import PagedTable
from tests.support.screen_text import screen_text
from tests.support.synthetic_sessions import make_analysis_session, make_eval_session
from tests.support.tables import current

pytestmark = pytest.mark.anyio
KEY_GAP = 0.03  # seconds between key presses: a fast typist, the speed the issue measured


@pytest.fixture()
def big_db(tmp_path: Path) -> Path:
    """One analysis over 1,100 documents: six 200-row pages of the Documents list."""
    path = tmp_path / "ragcov.db"
    db = open_db(path)
    make_analysis_session(db, testset_dir=tmp_path, n_chunks=2200, n_documents=1100, n_questions=40)
    db.conn.close()
    return path


async def press_slowly(pilot, *keys: str) -> None:
    for key in keys:
        await pilot.press(key)
        await pilot.pause(KEY_GAP)


def absolute_row(table: PagedTable) -> int:
    return table.page.offset + table.cursor_row


async def test_pagedown_and_pageup_cross_the_page_boundaries(big_db: Path) -> None:
    app = RagcovApp(big_db, "a0000001")
    async with app.run_test(size=(80, 24)) as pilot:
        app.show_pane("documents")
        await pilot.pause()
        table = app.query_one("#documents-table", PagedTable)
        seen = [absolute_row(table)]
        for _ in range(80):
            await pilot.press("pagedown")
            seen.append(absolute_row(table))
        assert seen == sorted(seen) and seen[-1] == 1099  # never stuck at a page's last row
        assert "1,001–1,100 of 1,100" in (table.border_title or "")  # one format, separators on every number
        for _ in range(80):
            await pilot.press("pageup")
        assert absolute_row(table) == 0 and "1–200 of 1,100" in (table.border_title or "")


def test_ids_sort_in_natural_order_across_pages(tmp_path: Path) -> None:
    db = open_db(tmp_path / "ragcov.db")
    make_eval_session(db, n_questions=30)
    ids = ["1", "100", "1012", "113", "2", "20", "q10", "q9", "Q11", *(str(3000 + i) for i in range(21))]
    with db.conn:
        for seq, qid in enumerate(ids):
            db.conn.execute(
                "UPDATE eval_items SET question_id = ? WHERE session_id = 'e0000001' AND seq = ?", [qid, seq]
            )
    pages = [queries.eval_page(db, "e0000001", sort="id", offset=o, limit=7).rows for o in range(0, 30, 7)]
    shown = [row.question_id for page in pages for row in page]
    assert shown[:10] == ["1", "2", "20", "100", "113", "1012", "3000", "3001", "3002", "3003"]
    assert shown[-3:] == ["q9", "q10", "Q11"]
    backwards = [r.question_id for r in queries.eval_page(db, "e0000001", sort="id", descending=True, limit=3).rows]
    assert backwards == ["Q11", "q10", "q9"]


SPECIAL_CHARS = {"enter": "\r", "backspace": "\x08", "escape": "\x1b", "end": None, "home": None}


async def type_ahead(pilot, keys: list[str], gap: float) -> None:
    """Send ``keys`` as the terminal does: one every ``gap`` seconds whether or not the app has
    handled the previous ones (``pilot.press`` waits for each; a busy app does not). Single
    characters are typed as themselves, longer names are keys (``enter``, ``end``…)."""
    driver = pilot.app._driver
    for key in keys:
        if len(key) == 1:
            event = events.Key(_character_to_key(key) if not key.isalnum() else key, key)
        else:
            event = events.Key(key, SPECIAL_CHARS[key])
        event.set_sender(pilot.app)
        driver.send_message(event)
        await asyncio.sleep(gap)
    for _ in range(5):
        await pilot.pause()


@pytest.mark.parametrize("gap", [0.0, KEY_GAP])
async def test_a_filter_typed_right_after_slash_lands_in_the_filter_whole(tui_db: Path, gap: float) -> None:
    app = RagcovApp(tui_db, "a0000001")
    async with app.run_test(size=(80, 24)) as pilot:
        app.show_pane("documents")
        await pilot.pause()
        await type_ahead(pilot, ["/", *"doc-003", "enter"], gap)
        pane = app.query_one(DocumentsPane)
        assert app.active_pane() is pane  # the 3 did not switch to Clusters
        assert pane.query_text == "doc-003"
        assert [r["source"] for r in app.query_one("#documents-table", PagedTable).page.rows] == ["doc-003.md"]


@pytest.mark.parametrize("gap", [0.0, KEY_GAP])
async def test_an_edit_typed_into_the_just_opened_prompt_is_what_the_test_file_gets(tui_db: Path, gap: float) -> None:
    testset = tui_db.parent / "questions.jsonl"
    app = RagcovApp(tui_db, "a0000001")
    async with app.run_test(size=(80, 24)) as pilot:
        app.show_pane("gaps")
        await pilot.pause()
        before = testset.read_text()
        original = current(app.query_one("#gaps-suggestions", PagedTable)).text
        await type_ahead(pilot, ["e", "end", "backspace", *" in Skein?", "enter"], gap)
        after = testset.read_text()
        assert after.startswith(before)
        added = [json.loads(line)["question"] for line in after[len(before) :].splitlines()]
        assert added == [original.rstrip()[:-1] + " in Skein?"]


def test_the_compare_pop_up_lines_up_metric_names_longer_than_28_characters() -> None:
    long_name = "generation.answer_correctness_against_reference"  # 47 characters
    a = {
        "id": "e0000001",
        "kind": "eval",
        "created_at": "2025-01-02T10:00",
        "summary": {"means": {"retrieval.mrr": 0.5, long_name: 0.25}},
    }
    b = {
        **a,
        "id": "e0000002",
        "created_at": "2025-01-03T10:00",
        "summary": {"means": {"retrieval.mrr": 0.75, long_name: 0.5}},
    }
    lines = compare_text(a, b).plain.splitlines()  # type: ignore[arg-type]
    rows = [line for line in lines if line.startswith(("retrieval.mrr", long_name))]
    assert len(rows) == 2
    assert {len(line) for line in rows} == {len(lines[0])}  # the figures end where the header's columns end
    assert rows[1].startswith(long_name + " ") and rows[1].endswith("+0.250")


async def test_growing_the_window_fills_the_results_histograms_and_the_overview_table_shows_every_column(
    tui_db: Path,
) -> None:
    app = RagcovApp(tui_db, "e0000001")
    async with app.run_test(size=(80, 24)) as pilot:
        app.show_pane("results")
        await pilot.pause()
        await pilot.resize_terminal(120, 40)
        for _ in range(3):
            await pilot.pause()
        assert "faithfulness (n=" in screen_text(app)  # no h needed (it took two)
        app.show_pane("overview")
        for _ in range(3):
            await pilot.pause()
        lines = screen_text(app).splitlines()
        header = next(line for line in lines if " metric " in line and "± std" in line)
        assert header.split()[:7] == ["metric", "mean", "±", "std", "n", "min", "max"]
        row = next(line for line in lines if "gen faithfulness" in line)
        figures = row.split("gen faithfulness")[1].split()
        assert len(figures) >= 5 and all(f.replace(".", "").isdigit() for f in figures[:5])  # mean std n min max, apart
