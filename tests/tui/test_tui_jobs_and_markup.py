"""Jobs run in a worker while the keys keep working; untrusted text is shown literally, never as markup."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import cast

import pytest
from textual.widgets import Input, Static, TabbedContent

from ragcov_tui.shared.errors import BadInput
from ragcov_tui.store.rows import SessionRow
from ragcov_tui.store.sessions import create_session, finish_session
from ragcov_tui.tui.app import RagcovApp
from ragcov_tui.tui.panes.jobs import JobRequest, eta_text, prefill
from ragcov_tui.tui.widgets.paged_table import PagedTable
from tests.support.screen_text import static_text

pytestmark = pytest.mark.anyio
SIZE = (80, 24)


def slow_job(release: threading.Event):
    """A job that reports progress until ``release`` is set, then stores a finished eval session."""

    def run(request: JobRequest, db, progress) -> tuple[str, dict]:
        done = 0
        while not release.is_set():
            progress("embed", done % 50, 50)
            done += 1
            time.sleep(0.01)
        sid = create_session(db, "eval", questions_path=request.fields["questions"], system="builtin:bm25")
        finish_session(db, sid, "done", summary={"means": {"retrieval.mrr": 0.5}})
        return sid, {}

    return run


def cancellable_job(request: JobRequest, db, progress) -> tuple[str, dict]:
    while True:
        progress("judge", 1, 10)
        time.sleep(0.01)


def failing_job(request: JobRequest, db, progress) -> tuple[str, dict]:
    raise BadInput(f"{request.fields['questions']}: no such file")


def partial_eval_job(request: JobRequest, db, progress) -> tuple[str, dict]:
    sid = create_session(db, "eval", questions_path=request.fields["questions"], system="http:http://127.0.0.1:9/")
    finish_session(db, sid, "done", summary={"means": {"retrieval.mrr": 0.5}})
    return sid, {
        "counts": {"questions": 2, "done": 1, "errors": 1},
        "errors": [{"id": "q2", "error": "system: ProviderError: unreachable"}],
    }


async def wait_for(pilot, condition, timeout: float = 30.0) -> None:
    end = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < end, "timed out"
        await pilot.pause()


async def test_job_completes_while_keys_still_respond(tui_db: Path) -> None:
    release = threading.Event()
    app = RagcovApp(tui_db, "a0000001", job_runner=slow_job(release))
    async with app.run_test(size=SIZE) as pilot:
        app.show_pane("jobs")
        await pilot.pause()
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: "embed" in str(app.query_one("#job-status", Static).render()))
        # the UI is live while the job runs: switch tabs and move a cursor
        await pilot.press("left_square_bracket", "left_square_bracket")
        await pilot.pause()
        assert app.query_one(TabbedContent).active == "tab-documents"
        table = app.query_one("#documents-table", PagedTable)
        await pilot.press("j")
        assert table.cursor_row == 1
        release.set()  # finished while the user works in Documents: announced, not opened (issue #10 item 7)
        await wait_for(pilot, lambda: "finished" in str(app.query_one("#job-status", Static).render()))
        await pilot.pause()
        assert app.query_one(TabbedContent).active == "tab-documents" and table.cursor_row == 1
        assert app.current_sid == "a0000001" and app.eval_sid == "e0000001"
        assert any("open it in Sessions (1)" in n.message for n in app._notifications)


async def test_job_cancel_and_failure_are_reported(tui_db: Path) -> None:
    app = RagcovApp(tui_db, "a0000001", job_runner=cancellable_job)
    async with app.run_test(size=SIZE) as pilot:
        app.show_pane("jobs")
        await pilot.pause()
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: "judge" in str(app.query_one("#job-status", Static).render()))
        await pilot.press("ctrl+x")
        await wait_for(pilot, lambda: "cancelled" in str(app.query_one("#job-status", Static).render()))
        app.job_runner = failing_job
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: "no such file" in str(app.query_one("#job-status", Static).render()))
        assert any("no such file" in n.message and n.severity == "error" for n in app._notifications)
        app.job_runner = partial_eval_job  # a finished eval in which some questions failed: say so
        app.show_pane("jobs")
        await pilot.pause()
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: app.eval_sid not in (None, "e0000001"))
        note = next(n for n in app._notifications if "questions failed" in n.message)
        assert "1 of 2 questions failed (first: q2: system: ProviderError: unreachable)" in note.message
        assert note.severity == "warning" and note.title == "Job finished with errors"


async def test_rerun_prefills_the_form_from_the_session(tui_db: Path) -> None:
    release = threading.Event()
    release.set()
    app = RagcovApp(tui_db, "a0000001", job_runner=slow_job(release))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("R", "y")
        await wait_for(pilot, lambda: app.current_sid not in ("a0000001",))
        assert app.query_one("#job-clusters", Input).value == "6"


async def test_rerun_while_a_job_runs_leaves_the_form_alone(tui_db: Path) -> None:
    """``R`` during a job: a warning, and the form keeps what the running job was started with."""
    release = threading.Event()
    app = RagcovApp(tui_db, "a0000001", job_runner=slow_job(release))
    async with app.run_test(size=SIZE) as pilot:
        app.show_pane("jobs")
        await pilot.pause()
        app.query_one("#job-clusters", Input).value = "9"
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: "embed" in str(app.query_one("#job-status", Static).render()))
        app.show_pane("gaps")
        await pilot.pause()
        await pilot.press("R", "y")
        await pilot.pause()
        assert app.query_one("#job-clusters", Input).value == "9"
        assert app.notice_log[0][2].startswith("A job is already running")
        release.set()
        await wait_for(pilot, lambda: "finished" in str(app.query_one("#job-status", Static).render()))


def test_prefill_and_eta() -> None:
    session = cast(
        SessionRow, {"corpus": ["a", "b"], "questions_path": "/q.jsonl", "llm": "heuristic", "params": {"k": 7}}
    )
    values = prefill(session)
    assert values["corpus"] == "a, b" and values["llm"] == "" and values["k"] == "7"
    assert eta_text("embed", 25, 100, started=0.0, now=5.0) == "embed 25/100 · ETA 15s"
    assert eta_text("load", 3, 0, started=0.0, now=1.0) == "load 3"


async def test_markup_in_questions_answers_and_chunks_is_literal(tui_db: Path) -> None:
    app = RagcovApp(tui_db, "e0000001")
    async with app.run_test(size=SIZE) as pilot:
        app.show_pane("results")
        await pilot.pause()
        table = app.query_one("#results-table", PagedTable)
        shown = [c.plain for c in table.get_row_at(0)] + [c.plain for c in table.get_row_at(1)]
        assert any("[/INST]" in c for c in shown) and any("[bold red]this[/]" in c for c in shown)
        await pilot.press("enter")
        await pilot.pause()
        body = static_text(app.screen.query_one("#text-body", Static))
        assert "Why does [/INST] appear in the reply?" in body
        assert "[bold]literally[/bold]" in body
        await pilot.press("escape")
        svg = app.export_screenshot()
        assert "[/INST]" in svg
        # outliers / gaps / the status line also go through literal text: a session name with markup
        app.db.execute("UPDATE sessions SET name = '[red]x[/red' WHERE id = 'a0000001'")
        app.db.conn.commit()
        app.open_session("a0000001")
        await pilot.pause()
        assert "'[red]x[/red'" in str(app.query_one("#status-line", Static).render())


async def test_a_locked_database_fails_the_job_in_one_named_line(tui_db: Path, monkeypatch) -> None:
    import sqlite3

    monkeypatch.setenv("RAGCOV_DB_TIMEOUT", "0.05")
    app = RagcovApp(tui_db, "a0000001", job_runner=failing_job)
    async with app.run_test(size=SIZE) as pilot:
        app.show_pane("jobs")
        await pilot.pause()
        other = sqlite3.connect(tui_db, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")  # another writer holds the lock
        try:
            await pilot.press("ctrl+r")
            await wait_for(pilot, lambda: "locked" in str(app.query_one("#job-status", Static).render()))
        finally:
            other.execute("ROLLBACK")
            other.close()
        note = next(n for n in app._notifications if "locked" in n.message)
        assert note.severity == "error" and f"database {tui_db}: the database is locked" in note.message
