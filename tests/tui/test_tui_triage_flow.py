"""Pilot tests of issue #10's interaction model at 80x24: filters that say what they did, pop-ups
that scroll with every key, ``enter`` / ``tab`` / ``1``–``8`` / ``g`` / ``G`` the same in every
pane, toasts that stay off the list, formatted numbers, a Sessions cursor that follows its session,
jobs that do not pull the user away, a Jobs form that keeps what was typed, ``R`` per pane."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import DataTable, Input

from ragcov_tui.tui.app import RagcovApp
from ragcov_tui.tui.screens.filtering import FilterBar
from ragcov_tui.tui.widgets.paged_table import PagedTable
from tests.support.screen_text import screen_text

SIZE = (80, 24)
pytestmark = pytest.mark.anyio


async def filter_with(pilot, pane: str, text: str) -> None:
    """``/`` on ``pane``, the text set directly, enter."""
    pilot.app.show_pane(pane)
    await pilot.pause()
    await pilot.press("slash")
    pilot.app.query_one(f"#{pane}-filter", FilterBar).value = text
    await pilot.press("enter")
    await pilot.pause()
    await pilot.pause()


# ---------------------------------------------------------------- 10. filters


@pytest.mark.parametrize("typed, full", [("faith<0.5", "faithfulness"), ("corr>=0.8", "answer_correctness"),
                                          ("faithfulness<0.5", "faithfulness"), ("mrr=1", "mrr")])
async def test_filter_accepts_the_column_titles_shown(tui_db: Path, typed: str, full: str) -> None:
    app = RagcovApp(tui_db, "e0000001")
    async with app.run_test(size=SIZE) as pilot:
        await filter_with(pilot, "results", typed)
        table = app.query_one("#results-table", PagedTable)
        assert f"filter {typed!r}" in table.border_title
        op, value = (">=", 0.8) if ">=" in typed else ("<", 0.5) if "<" in typed else ("=", 1.0)
        for row in table.page.rows:
            v = {**row["retrieval"], **row["generation"]}[full]
            assert {"<": v < value, ">=": v >= value, "=": v == value}[op]
        assert not app.query(".filter-error")


@pytest.mark.parametrize("typed, says", [("fidelity<0.5", "unknown column 'fidelity'"), ("faith<", "malformed filter"),
                                          ("faith<0.5.1", "malformed filter"), ("<0.5", "malformed filter"),
                                          ("faith<<0.5", "malformed filter")])
async def test_a_bad_filter_is_an_error_in_the_filter_line_and_no_filter_is_claimed(tui_db: Path, typed: str, says: str) -> None:
    app = RagcovApp(tui_db, "e0000001")
    async with app.run_test(size=SIZE) as pilot:
        await filter_with(pilot, "results", typed)
        table = app.query_one("#results-table", PagedTable)
        assert "filter" not in table.border_title and table.page.total == 60
        screen = " ".join(screen_text(app).split())  # the error line wraps at 80 columns
        assert says in screen and "columns: hit@5, mrr, faith, corr" in screen
        bar = app.query_one("#results-filter", FilterBar)
        assert bar.display and bar.value == typed and app.focused is bar
        bar.value = "faith<0.5"  # fixed: the error line goes, the filter is on
        await pilot.press("enter")
        await pilot.pause()
        assert "filter 'faith<0.5'" in table.border_title and not app.query(".filter-error")


@pytest.mark.parametrize("pane", ["sessions", "clusters", "outliers", "gaps", "documents", "results"])
async def test_esc_on_a_filtered_list_clears_the_filter(tui_db: Path, pane: str) -> None:
    app = RagcovApp(tui_db, "e0000001" if pane == "results" else "a0000001")
    async with app.run_test(size=SIZE) as pilot:
        await filter_with(pilot, pane, "zzzz-no-such-thing")
        assert "filter 'zzzz-no-such-thing'" in screen_text(app)
        await pilot.press("escape")
        await pilot.pause()
        assert app.active_pane().id == pane and app.active_pane().query_text == ""
        assert "filter '" not in screen_text(app) and not app.query_one(f"#{pane}-filter").display
        await pilot.press("escape")  # no filter: esc backs out one level (to the pane shown before)
        await pilot.pause()
        assert app.active_pane().id != pane
