"""An analysis job whose LLM failed for some gaps ends as 'finished with errors' naming how many
gaps fell back to heuristic themes and why (issue #17, group 6: no silent fallback in the app)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from ragcov_tui.store.sessions import create_session, finish_session
from ragcov_tui.tui.app import RagcovApp
from ragcov_tui.tui.panes.jobs import JobRequest

pytestmark = pytest.mark.anyio
FALLBACK = {"gaps": 2, "asked": 5, "cause": "openai chat at http://127.0.0.1:9/v1: unreachable after 4 attempts"}


def fallback_job(request: JobRequest, db, progress) -> tuple[str, dict]:
    sid = create_session(db, "analysis", questions_path=request.fields["questions"], llm="openai:m")
    finish_session(db, sid, "done", summary={"basic": 0.5})
    return sid, {"llm_fallback": FALLBACK, "gaps": []}


async def test_an_analysis_whose_llm_failed_for_some_gaps_says_so(tui_db: Path) -> None:
    app = RagcovApp(tui_db, "a0000001", job_runner=fallback_job)
    async with app.run_test(size=(80, 24)) as pilot:
        app.show_pane("jobs")
        await pilot.pause()
        await pilot.press("ctrl+r")
        end = time.monotonic() + 10
        while not any("LLM failed" in n.message for n in app._notifications):
            assert time.monotonic() < end, "timed out"
            await pilot.pause()
        note = next(n for n in app._notifications if "LLM failed" in n.message)
        assert (
            "The LLM failed for 2 of 5 gaps: their themes and questions are heuristic (openai chat at " in note.message
        )
        assert note.severity == "warning" and note.title == "Job finished with errors"
