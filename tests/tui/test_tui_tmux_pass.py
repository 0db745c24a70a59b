"""Pilot tests for what a full triage pass in tmux at 80x24 turned up (issue #10's closing check):
toasts over pop-ups, layout classes after a resize under a pop-up."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets._toast import Toast

from ragcov_tui.tui.app import RagcovApp
from ragcov_tui.tui.screens.modals import TextScreen

SIZE = (80, 24)
pytestmark = pytest.mark.anyio


def shown_toasts(app: RagcovApp) -> list[Toast]:
    return [t for t in app.screen.query(Toast) if t.region.area]


async def test_a_notification_under_a_popup_at_80x24_is_no_toast_over_it(tui_db: Path) -> None:
    """Below 100x30 a notification goes to the status line; a pop-up (a detail, help) is no exception:
    a toast there covered the pop-up's text."""
    app = RagcovApp(tui_db, "a0000001")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        app.show_pane("documents")
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, TextScreen)
        app.notify("a job finished meanwhile")
        await pilot.pause()
        assert not shown_toasts(app)
        assert app.notice is not None and "a job finished meanwhile" in app.notice.plain


@pytest.mark.parametrize("under_a_popup", [False, True])
async def test_a_resize_relays_the_panes_even_under_a_popup(tui_db: Path, under_a_popup: bool) -> None:
    """80x24 → 120x40 (with a pop-up open, then closed): the panes take the wide layout (side by
    side, toasts shown); and back. The layout follows the new size, not the one before the resize."""
    app = RagcovApp(tui_db, "a0000001")

    async def resize(pilot, size: tuple[int, int]) -> None:
        if under_a_popup:
            await pilot.press("question_mark")
            await pilot.pause()
        await pilot.resize_terminal(*size)
        await pilot.pause()
        if under_a_popup:
            await pilot.press("escape")
            await pilot.pause()
        assert not isinstance(app.screen, TextScreen)

    async with app.run_test(size=SIZE, notifications=True) as pilot:
        app.show_pane("overview")
        await pilot.pause()
        narrow_width = app.query_one("#overview-left").size.width
        await resize(pilot, (120, 40))
        assert app.query_one("#overview-left").size.width == 44 < narrow_width
        app.notify("wide: a toast")
        await pilot.pause()
        assert shown_toasts(app)
        await resize(pilot, SIZE)
        assert app.query_one("#overview-left").size.width == narrow_width


async def test_a_status_line_too_long_for_the_terminal_ends_in_an_ellipsis(tui_db: Path) -> None:
    """A notice wider than 80 columns (a path at its end) says that it goes on (``?`` has it in full),
    instead of stopping after a word with nothing to show that more was cut."""
    from tests.support.screen_text import screen_text

    app = RagcovApp(tui_db, "a0000001")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        app.notify("edited and accepted: 1 suggestion → /a/rather/long/path/to/the/test/file/questions.jsonl")
        await pilot.pause()
        first = screen_text(app).splitlines()[0]
        assert first.rstrip().endswith("…") and "edited and accepted: 1 suggestion → /a/rather" in first, first
        app.notify("short")
        await pilot.pause()
        assert "…" not in screen_text(app).splitlines()[0]
