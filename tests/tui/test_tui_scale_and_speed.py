"""Issue #22 §4: the app at scale and at speed — paging across the 200-row pages, one caption
format, ids in natural order, and keys typed at 30 ms a key never lost nor landing elsewhere."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragcov_tui.store import open_db, queries
from ragcov_tui.tui.app import RagcovApp
from ragcov_tui.tui.widgets.paged_table import PagedTable
from tests.support.synthetic_sessions import make_analysis_session, make_eval_session

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
        assert "1,001–1,100 of 1,100" in table.border_title  # one format, separators on every number
        for _ in range(80):
            await pilot.press("pageup")
        assert absolute_row(table) == 0 and "1–200 of 1,100" in table.border_title


def test_ids_sort_in_natural_order_across_pages(tmp_path: Path) -> None:
    db = open_db(tmp_path / "ragcov.db")
    make_eval_session(db, n_questions=30)
    ids = ["1", "100", "1012", "113", "2", "20", "q10", "q9", "Q11", *(str(3000 + i) for i in range(21))]
    with db.conn:
        for seq, qid in enumerate(ids):
            db.conn.execute("UPDATE eval_items SET question_id = ? WHERE session_id = 'e0000001' AND seq = ?", [qid, seq])
    pages = [queries.eval_page(db, "e0000001", sort="id", offset=o, limit=7).rows for o in range(0, 30, 7)]
    shown = [row["question_id"] for page in pages for row in page]
    assert shown[:10] == ["1", "2", "20", "100", "113", "1012", "3000", "3001", "3002", "3003"]
    assert shown[-3:] == ["q9", "q10", "Q11"]
    backwards = [r["question_id"] for r in queries.eval_page(db, "e0000001", sort="id", descending=True, limit=3).rows]
    assert backwards == ["Q11", "q10", "q9"]
