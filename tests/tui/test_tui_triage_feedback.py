"""Issue #22 §5 at 80x24: triage says what it did in the user's words and where it goes next; R asks
first; the Jobs form does not reuse a session name; ctrl+x on another process's run says where it runs."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path

import pytest
from textual.widgets import Input, Static

from ragcov_tui.store import liveness, open_db
from ragcov_tui.store.sessions import create_session, finish_session, list_sessions
from ragcov_tui.tui.app import RagcovApp
from ragcov_tui.tui.modals import ConfirmScreen
from ragcov_tui.tui.panes.jobs import JobRequest, JobsPane
from ragcov_tui.tui.safe_app import NOTICE_HOLD
from ragcov_tui.tui.widgets.paged_table import PagedTable
from tests.support.screen_text import static_text
from tests.support.tables import current

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
        first, second = table.page.rows[0].text, table.page.rows[1].text
        await press(pilot, "a")
        assert table.page.rows[0].status == "accepted"
        assert current(table).text == second and current(table).status == "open"
        await press(pilot, "d")  # acts on the next suggestion, not "No open suggestion here"
        assert not any("No open suggestion" in m for m in messages(app))
        await press(pilot, "u", "u")
        said = messages(app)[:2]
        assert said == [f'undid accept of "{first}"', f'undid reject of "{second}"']
        assert not any("suggestion " in m and m[-1].isdigit() for m in said)


async def test_rerun_asks_first(tui_db: Path) -> None:
    started: list[object] = []
    app = RagcovApp(tui_db, "a0000001")
    async with app.run_test(size=SIZE) as pilot:
        jobs = app.query_one(JobsPane)
        jobs.action_start = lambda **_: started.append(jobs.request())  # type: ignore[method-assign]  # deliberately: what would run, without running it
        app.show_pane("gaps")
        await press(pilot, "R")
        assert isinstance(app.screen, ConfirmScreen)
        assert static_text(app.screen.query_one(Static)).startswith(
            "Rerun analysis a0000001? This starts a new session"
        )
        await press(pilot, "n")
        assert not started and app.active_pane().id == "gaps"
        await press(pilot, "R", "y")
        assert len(started) == 1 and app.active_pane().id == "jobs"


async def test_the_jobs_form_forgets_the_name_once_a_session_has_it(tui_db: Path) -> None:
    def quick_job(request: JobRequest, db, progress) -> tuple[str, dict]:
        sid = create_session(
            db, "analysis", questions_path=request.fields["questions"], name=request.fields["name"] or None
        )
        finish_session(db, sid, "done", summary={})
        return sid, {}

    app = RagcovApp(tui_db, "a0000001", job_runner=quick_job)
    async with app.run_test(size=SIZE) as pilot:
        app.show_pane("jobs")
        await pilot.pause()
        app.query_one("#job-name", Input).value = "baseline"
        await press(pilot, "ctrl+r")
        for _ in range(50):
            if not app.query_one(JobsPane).running:
                break
            await pilot.pause(0.02)
        names = [s.get("name") for s in list_sessions(open_db(tui_db), kind="analysis")]
        assert names.count("baseline") == 1
        app.show_pane("jobs")
        await pilot.pause()
        assert app.query_one("#job-name", Input).value == ""  # the next run would get a duplicate name


async def test_ctrl_x_on_a_run_of_another_process_says_where_to_stop_it(tui_db: Path) -> None:
    db = open_db(tui_db)
    now = datetime.now(UTC).isoformat(timespec="seconds")
    other = os.getppid()  # a live process that is not this one
    with db.conn:
        db.table("sessions").insert(
            {
                "id": "e0000009",
                "kind": "eval",
                "status": "running",
                "created_at": now,
                "pid": other,
                "host": liveness.this_host(),
                "heartbeat_at": now,
                "system": "python:x:y",
            }
        )
    app = RagcovApp(tui_db, "a0000001")
    async with app.run_test(size=SIZE) as pilot:
        app.show_pane("sessions")
        await press(pilot, "g", "ctrl+x")  # the newest session: the running one
        assert messages(app)[0].startswith(
            f"eval e0000009 is running in pid {other} on {liveness.this_host()}: stop it there"
        )


async def test_sessions_at_80_columns_show_date_and_time_and_names_that_fit_and_help_explains_the_marks(
    tui_db: Path,
) -> None:
    db = open_db(tui_db)
    with db.conn:
        db.execute("UPDATE sessions SET name = 'nightly-v2' WHERE id = 'e0000001'")
        db.execute("UPDATE sessions SET name = 'a name far too long for eighty columns' WHERE id = 'a0000001'")
    app = RagcovApp(tui_db, "e0000001")
    async with app.run_test(size=SIZE) as pilot:
        app.show_pane("sessions")
        await pilot.pause()
        table = app.query_one("#sessions-table", PagedTable)
        rows = {r[1].plain: [c.plain for c in r] for r in (table.get_row_at(i) for i in range(table.row_count))}
        assert rows["e0000001"][4] == "01-02 11:00" and rows["e0000001"][5] == "nightly-v2"  # not cut to 8
        assert rows["a0000001"][5] == "a name fa…"  # cut, with an ellipsis, only when needed
        assert sum((width or 0) + 2 for _, width in table.column_spec) <= 80
        screen = "\n".join(static_text(w) for w in app.query(Static) if w.id == "sessions-detail")
        assert "2025-01-02 11:00:00" in screen and "a name far" not in screen
        assert "> open, * marked" in (table.border_title or "")
        await press(pilot, "question_mark")
        body = static_text(app.screen.query_one("#text-body", Static))
        assert ">           open: the session the other panes show" in body


async def test_below_100x30_the_reloaded_notice_is_read_before_accepted_replaces_it(tui_db: Path) -> None:
    testset = tui_db.parent / "questions.jsonl"
    app = RagcovApp(tui_db, "a0000001")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        app.show_pane("gaps")
        await pilot.pause()
        testset.write_text(testset.read_text() + json.dumps({"id": "x1", "question": "Added by a teammate?"}) + "\n")
        await press(pilot, "a")
        status = lambda: static_text(app.query_one("#status-line", Static))  # noqa: E731
        assert "questions.jsonl changed on disk: 1 row added" in status()
        await pilot.pause(NOTICE_HOLD + 0.3)
        assert "accepted: 1 suggestion" in status()


@pytest.mark.parametrize("source", ["file", "folder", "beir"])
async def test_gaps_say_beforehand_where_accepted_questions_go_or_why_they_cannot(tui_db: Path, source: str) -> None:
    if source != "file":  # a folder (a BEIR one: read-only, not a mistake) cannot take an appended question
        beir = tui_db.parent / "scifact"
        beir.mkdir()
        if source == "beir":
            (beir / "queries.jsonl").write_text('{"_id": "q1", "text": "what?"}\n')
        db = open_db(tui_db)
        with db.conn:
            db.execute("UPDATE sessions SET questions_path = ? WHERE id = 'a0000001'", [str(beir)])
    app = RagcovApp(tui_db, "a0000001")
    async with app.run_test(size=SIZE) as pilot:
        app.show_pane("gaps")
        await pilot.pause()
        detail = " ".join(static_text(app.query_one("#gaps-detail", Static)).split())
        if source == "file":
            assert "adds to questions.jsonl" in detail and "cannot add" not in detail
        elif source == "folder":
            assert "cannot add" in detail and "is a directory" in detail
        else:
            assert (
                "cannot add questions come from a BEIR folder (read-only): accepted questions cannot be written into it"
            ) in detail and "is a directory" not in detail
