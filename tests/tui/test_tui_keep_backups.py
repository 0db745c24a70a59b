"""The app hands its ``keep_backups`` setting to every write-back through its context, not
through ``$RAGCOV_KEEP_BACKUPS`` (issue #29 §2.5)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragcov_tui.testset.durable import BACKUP_DIR, KEEP_BACKUPS_ENV
from ragcov_tui.tui.app import RagcovApp

pytestmark = pytest.mark.anyio


async def test_drops_and_undo_keep_the_apps_count_of_backups(tui_db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEEP_BACKUPS_ENV, "5")  # the app's own setting wins over the variable
    testset = tui_db.parent / "questions.jsonl"
    app = RagcovApp(tui_db, "a0000001", keep_backups=1)
    async with app.run_test(size=(80, 24)) as pilot:
        app.show_pane("outliers")
        await pilot.pause()
        await pilot.press("d")
        await pilot.pause()
        await pilot.press("j", "d")
        await pilot.pause()
        await pilot.press("u")
        await pilot.pause()
    backups = [p for p in (testset.parent / BACKUP_DIR).iterdir() if p.name.endswith(".bak")]
    assert len(backups) == 1
