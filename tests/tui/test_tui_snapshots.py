"""Snapshots of the main panes at 80x24 and 120x40 on fixed synthetic sessions (no clock text shown).

Regenerate after an intended change: ``pytest tests/tui/test_tui_snapshots.py --snapshot-update``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ragcov_tui.tui.app import RagcovApp

PANES = ["overview", "sessions", "clusters", "outliers", "gaps", "documents", "results"]


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
@pytest.mark.parametrize("pane", PANES)
def test_pane_snapshot(snap_compare, tui_db: Path, pane: str, size: tuple[int, int]) -> None:
    async def show(pilot) -> None:
        pilot.app.show_pane(pane)
        await pilot.pause()
        await pilot.pause()

    assert snap_compare(RagcovApp(tui_db, "a0000001"), terminal_size=size, run_before=show)
