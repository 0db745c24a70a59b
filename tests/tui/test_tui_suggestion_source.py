"""Issue #16 item 2 at 80x24: Gaps → a suggestion → ``enter`` shows the chunk it was written from
(its id, document and text) under the suggestion; a database from an older ragcov (schema 4, no
source stored) opens, migrates and shows the detail without it."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from textual.widgets import Static

from ragcov_tui.store.db import SCHEMA_VERSION
from ragcov_tui.store.rows import SuggestionRow
from ragcov_tui.tui.app import RagcovApp
from ragcov_tui.tui.modals import TextScreen
from ragcov_tui.tui.widgets.paged_table import PagedTable
from tests.support.screen_text import static_text
from tests.support.tables import current

SIZE = (80, 24)
SID = "a0000001"
pytestmark = pytest.mark.anyio


def folded(text: str) -> str:
    return " ".join(text.split())


def give_sources(path: Path) -> None:
    """Every suggestion of the analysis comes from the first chunk of its cluster, as a question."""
    conn = sqlite3.connect(path)
    with conn:
        conn.execute(
            "UPDATE suggestions SET form = 'question', chunk_id = (SELECT min(r.chunk_id) FROM chunk_results r "
            "WHERE r.session_id = suggestions.session_id AND r.cluster = suggestions.cluster) WHERE session_id = ?",
            [SID],
        )
    conn.close()


def as_version_4(path: Path) -> None:
    """The file as an older ragcov left it: no source columns, schema version 4."""
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("ALTER TABLE suggestions DROP COLUMN chunk_id")
        conn.execute("ALTER TABLE suggestions DROP COLUMN form")
        conn.execute("PRAGMA user_version = 4")
    conn.close()


async def detail_of(path: Path, gap_row: int, suggestion_row: int) -> tuple[str, SuggestionRow]:
    """The Gaps detail pop-up's text for one suggestion, and the suggestion row the pane listed."""
    app = RagcovApp(path, SID)
    async with app.run_test(size=SIZE) as pilot:
        app.show_pane("gaps")
        await pilot.pause()
        for key in ["j"] * gap_row + ["tab"] + ["j"] * suggestion_row + ["enter"]:
            await pilot.press(key)
            await pilot.pause()
        assert isinstance(app.screen, TextScreen)
        suggestion = current(app.screen_stack[-2].query_one("#gaps-suggestions", PagedTable))
        return folded(static_text(app.screen.query_one("#text-body", Static))), suggestion


@pytest.mark.parametrize("gap_row, suggestion_row", [(0, 0), (1, 2)])
async def test_gap_detail_shows_the_source_chunk_under_the_suggestion(
    tui_db: Path, gap_row: int, suggestion_row: int
) -> None:
    give_sources(tui_db)
    body, suggestion = await detail_of(tui_db, gap_row, suggestion_row)
    conn = sqlite3.connect(tui_db)
    source, text = conn.execute(
        "SELECT source, text FROM chunks WHERE session_id = ? AND chunk_id = ?", [SID, suggestion.chunk_id]
    ).fetchone()
    conn.close()
    assert suggestion.chunk_id and f"{suggestion.text} from chunk {suggestion.chunk_id} ({source})" in body
    assert body.endswith(folded(text))  # the chunk's whole text, under the suggestion


async def test_a_database_from_an_older_ragcov_shows_the_detail_without_a_source(tui_db: Path) -> None:
    as_version_4(tui_db)
    body, suggestion = await detail_of(tui_db, 0, 1)
    assert suggestion.chunk_id is None and suggestion.text in body
    assert "from chunk" not in body
    conn = sqlite3.connect(tui_db)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION >= 5
    conn.close()
