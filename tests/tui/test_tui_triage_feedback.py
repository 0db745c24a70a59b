"""Issue #22 §5 at 80x24: triage says what it did in the user's words and where it goes next."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragcov_tui.tui.app import RagcovApp
from ragcov_tui.tui.widgets.paged_table import PagedTable

SIZE = (80, 24)
pytestmark = pytest.mark.anyio


async def press(pilot, *keys: str) -> None:
    for key in keys:
        await pilot.press(key)
        await pilot.pause()


def messages(app: RagcovApp) -> list[str]:
    return [f"{title}: {message}" if title else message for _, title, message in app.notice_log]


async def test_accept_moves_to_the_next_open_suggestion_and_undo_quotes_the_question(tui_db: Path) -> None:
    app = RagcovApp(tui_db, "a0000001")
    async with app.run_test(size=SIZE) as pilot:
        app.show_pane("gaps")
        await pilot.pause()
        table = app.query_one("#gaps-suggestions", PagedTable)
        first, second = table.page.rows[0]["text"], table.page.rows[1]["text"]
        await press(pilot, "a")
        assert table.page.rows[0]["status"] == "accepted"
        assert table.current["text"] == second and table.current["status"] == "open"
        await press(pilot, "d")  # acts on the next suggestion, not "No open suggestion here"
        assert not any("No open suggestion" in m for m in messages(app))
        await press(pilot, "u", "u")
        said = messages(app)[:2]
        assert said == [f'undid accept of "{first}"', f'undid reject of "{second}"']
        assert not any("suggestion " in m and m[-1].isdigit() for m in said)
