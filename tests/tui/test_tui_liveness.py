"""Session liveness in the app, at 80x24: ctrl+x cancels a job from any focus within 2 s (even inside
an embedding batch) and the cancelled session is listed at once; a running session cannot be deleted;
one whose process died shows ``interrupted``; sessions written by another process appear with their
progress."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest
from textual.widgets import DataTable, Footer, Input, Select, Static, TabbedContent

import ragcov_tui.services.analysis_job  # noqa: F401  (imported before the clock starts: it loads scikit-learn)
from ragcov_tui.embeddings.hashing import HashEmbedder
from ragcov_tui.store import liveness, open_db
from ragcov_tui.tui.app import RagcovApp
from ragcov_tui.tui.modals import ConfirmScreen
from tests.support.ragcov_procs import CORPUS, N_QUESTIONS, QUESTIONS, ragcov, start_eval, write_slow_rag
from tests.support.screen_text import static_text
from tests.tui.test_tui_jobs_and_markup import slow_job

pytestmark = pytest.mark.anyio
SIZE = (80, 24)
BATCH_SECONDS = 6.0  # one embedding batch: far longer than the 2 s a cancel may take


async def wait_for(pilot, condition, timeout: float = 8.0) -> None:
    end = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < end, "timed out"
        await pilot.pause(0.02)


def status_cells(app: RagcovApp) -> dict[str, str]:
    """Session id → its status cell, as the Sessions table shows them."""
    table = app.query_one("#sessions-table", DataTable)
    titles = [str(c.label) for c in table.columns.values()]
    out = {}
    for i in range(table.row_count):
        row = [getattr(c, "plain", str(c)) for c in table.get_row_at(i)]
        out[row[titles.index("id")]] = row[titles.index("status")]
    return out


def footer_keys(app: RagcovApp) -> str:
    return " ".join(str(k.render()) for k in app.query_one(Footer).query("FooterKey"))


def job_status(app: RagcovApp) -> str:
    return str(app.query_one("#job-status", Static).render())


@pytest.fixture()
def slow_batches(monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """Every hash-embedder batch takes BATCH_SECONDS (set the event to let a batch end early)."""
    release = threading.Event()
    original = HashEmbedder._embed_batch

    def slow(self, texts):
        release.wait(BATCH_SECONDS)
        return original(self, texts)

    monkeypatch.setattr(HashEmbedder, "_embed_batch", slow)
    return release


@pytest.fixture()
def corpus(tmp_path: Path) -> dict[str, str]:
    docs = tmp_path / "docs"
    docs.mkdir()
    for i, topic in enumerate(["billing and invoices", "login and passwords", "exports and backups"]):
        (docs / f"d{i}.md").write_text(f"# {topic}\n\n" + f"All about {topic}. " * 40)
    questions = tmp_path / "q.jsonl"
    questions.write_text(
        "".join(
            json.dumps({"id": f"q{i}", "question": f"How do {w} work?"}) + "\n"
            for i, w in enumerate(["invoices", "passwords", "backups", "exports"])
        )
    )
    return {"corpus": str(docs), "questions": str(questions), "embedder": "hash"}


async def test_ctrl_x_in_a_text_field_cancels_mid_batch_within_2s_and_lists_the_session(
    tui_db: Path, corpus: dict[str, str], slow_batches: threading.Event
) -> None:
    app = RagcovApp(tui_db, "a0000001")  # the real job runner: run_analysis with the (slow) hash embedder
    async with app.run_test(size=SIZE) as pilot:
        app.show_pane("jobs")
        await pilot.pause()
        for key, value in corpus.items():
            app.query_one(f"#job-{key}", Input).value = value
        field = app.query_one("#job-questions", Input)
        field.focus()
        await pilot.pause()
        assert "Cancel job" not in footer_keys(app)  # nothing to cancel yet; ctrl+x stays the field's
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: "embedding" in job_status(app), timeout=60)  # first imports are slow
        await wait_for(pilot, lambda: "^x Cancel job" in footer_keys(app), timeout=10)
        assert app.focused is field
        await pilot.pause(0.5)  # well inside the batch
        pressed = time.monotonic()
        await pilot.press("ctrl+x")
        await wait_for(pilot, lambda: "cancelled" in job_status(app), timeout=2.0)
        took = time.monotonic() - pressed
        assert took < 2.0, took
        assert field.value == corpus["questions"]  # ctrl+x did not cut the field's text
        await wait_for(pilot, lambda: "Cancel job" not in footer_keys(app), timeout=10)
        sid = job_status(app).split("session ")[1].split()[0]
        assert job_status(app) == f"analysis cancelled: session {sid} is kept as cancelled"

        app.show_pane("sessions")  # listed at once, no poll needed
        await pilot.pause()
        assert status_cells(app)[sid] == "cancelled"
        app.query_one("#sessions-table", DataTable).move_cursor(row=0)
        await pilot.press("enter")
        await pilot.pause()
        figures = static_text(app.query_one("#overview-figures", Static))
        assert f"Analysis {sid}" in figures and "cancelled · cancelled by the user" in figures
        assert "multi ≥?" not in figures and "R reruns it" in figures
        slow_batches.set()


async def test_ctrl_x_cancels_from_another_pane(tui_db: Path) -> None:
    app = RagcovApp(tui_db, "a0000001", job_runner=slow_job(threading.Event()))
    async with app.run_test(size=SIZE) as pilot:
        app.show_pane("jobs")
        await pilot.pause()
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: "embed" in job_status(app))
        for pane in ("sessions", "results"):
            app.show_pane(pane)
            await pilot.pause()
            assert "^x Cancel job" in footer_keys(app), pane
        await pilot.press("ctrl+x")
        await wait_for(pilot, lambda: "cancelled" in job_status(app), timeout=10)
        assert app.query_one(TabbedContent).active == "tab-results"  # the cancel does not move you


async def test_a_cancelled_eval_job_is_resumed_by_R_without_redoing_its_questions(
    tui_db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_slow_rag(tmp_path)
    monkeypatch.chdir(tmp_path)  # python:slow_rag:answer is found in the working directory
    monkeypatch.setenv("SLOW_RAG_DELAY", "0.3")
    monkeypatch.setenv("RAGCOV_CONCURRENCY", "2")
    app = RagcovApp(tui_db, "a0000001")
    async with app.run_test(size=SIZE) as pilot:
        app.show_pane("jobs")
        await pilot.pause()
        app.query_one("#job-kind", Select).value = "eval"
        await pilot.pause()
        for key, value in {
            "questions": str(QUESTIONS),
            "corpus": str(CORPUS),
            "system": "python:slow_rag:answer",
            "embedder": "hash",
            "name": "",
            "llm": "",
            "k": "5",
        }.items():
            app.query_one(f"#job-{key}", Input).value = value
        await pilot.press("ctrl+r")

        def evaluated() -> int:
            text = job_status(app)
            return int(text.split()[1].split("/")[0]) if text.startswith("evaluating") else 0

        await wait_for(pilot, lambda: evaluated() >= 3, timeout=60)
        await pilot.press("ctrl+x")
        await wait_for(pilot, lambda: "cancelled" in job_status(app), timeout=10)
        sid = job_status(app).split("session ")[1].split()[0]
        db = open_db(tui_db)
        before = dict(
            db.execute("SELECT question_id, finished_at FROM eval_items WHERE session_id = ?", [sid]).fetchall()
        )
        assert 3 <= len(before) < N_QUESTIONS

        app.show_pane("sessions")
        await pilot.pause()
        assert status_cells(app)[sid] == "cancelled"
        app.query_one("#sessions-table", DataTable).move_cursor(row=list(status_cells(app)).index(sid))
        await pilot.press("enter")  # open it: the Overview says how far it got and how it continues
        await pilot.pause()
        figures = " ".join(static_text(app.query_one("#overview-figures", Static)).split())
        assert "cancelled · cancelled by the user" in figures and f"items {len(before)} done {len(before)}" in figures
        monkeypatch.setenv("SLOW_RAG_DELAY", "0")
        await pilot.press("R", "y")  # rerun = resume this eval
        await wait_for(pilot, lambda: job_status(app).startswith(f"eval finished: session {sid}"), timeout=60)
        after = dict(
            db.execute(
                "SELECT question_id, finished_at FROM eval_items WHERE session_id = ? AND status = 'done'", [sid]
            ).fetchall()
        )
        assert len(after) == N_QUESTIONS and {q: after[q] for q in before} == before  # none redone
        assert db.execute("SELECT status FROM sessions WHERE id = ?", [sid]).fetchone()[0] == "done"
        db.conn.close()


def _running_row(db, sid: str, pid: int, done: int = 7, total: int = 10) -> None:
    now = datetime.now(UTC).isoformat(timespec="seconds")
    with db.conn:
        db["sessions"].insert(
            {
                "id": sid,
                "kind": "eval",
                "status": "running",
                "created_at": now,
                "pid": pid,
                "host": liveness.this_host(),
                "heartbeat_at": now,
                "system": "python:x:y",
                "progress": json.dumps({"stage": "evaluating", "done": done, "total": total}),
            }
        )


def _beat(db, sid: str, done: int, total: int = 10) -> None:
    now = datetime.now(UTC).isoformat(timespec="seconds")
    with db.conn:
        db.execute(
            "UPDATE sessions SET heartbeat_at = ?, progress = ? WHERE id = ?",
            [now, json.dumps({"stage": "evaluating", "done": done, "total": total}), sid],
        )


@pytest.fixture()
def other_process():
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    yield proc
    proc.kill()
    proc.wait()


async def test_running_session_is_not_deleted_and_a_dead_one_shows_interrupted(tui_db: Path, other_process) -> None:
    db = open_db(tui_db)
    _running_row(db, "e0000009", other_process.pid)
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    _running_row(db, "e0000008", dead.pid, done=2)
    db.conn.close()
    app = RagcovApp(tui_db)
    async with app.run_test(size=SIZE) as pilot:
        app.show_pane("sessions")
        await pilot.pause()
        cells = status_cells(app)
        assert cells["e0000009"] == "run 70%" and cells["e0000008"] == "interrupted"
        table = app.query_one("#sessions-table", DataTable)
        ids = list(status_cells(app))
        table.move_cursor(row=ids.index("e0000009"))
        await pilot.pause()
        detail = static_text(app.query_one("#sessions-detail", Static))
        assert f"running · evaluating 7/10 (70%) · pid {other_process.pid} on" in " ".join(detail.split())
        await pilot.press("d")
        await pilot.pause()
        assert not isinstance(app.screen, ConfirmScreen)
        assert any(
            n.message == "Session e0000009 is running: running sessions can be cancelled, not deleted."
            for n in app._notifications
        )
        assert "e0000009" in status_cells(app)

        table.move_cursor(row=ids.index("e0000008"))
        await pilot.pause()
        detail = " ".join(static_text(app.query_one("#sessions-detail", Static)).split())
        assert f"interrupted · its process (pid {dead.pid} on" in detail and "ended without finishing" in detail
        await pilot.press("d")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        await pilot.pause()
        assert "e0000008" not in status_cells(app) and "e0000009" in status_cells(app)


async def test_sessions_written_elsewhere_appear_with_progress_and_a_killed_owner_turns_interrupted(
    tui_db: Path, other_process
) -> None:
    app = RagcovApp(tui_db)
    writer = open_db(tui_db)  # another process's connection
    async with app.run_test(size=SIZE) as pilot:
        app.show_pane("sessions")
        await pilot.pause()
        assert "e0000007" not in status_cells(app)
        _running_row(writer, "e0000007", other_process.pid, done=3)
        await wait_for(pilot, lambda: status_cells(app).get("e0000007") == "run 30%", timeout=10)
        _beat(writer, "e0000007", done=6)
        await wait_for(pilot, lambda: status_cells(app).get("e0000007") == "run 60%", timeout=10)
        other_process.kill()  # kill -9: the owner writes nothing more
        other_process.wait()
        await wait_for(pilot, lambda: status_cells(app).get("e0000007") == "interrupted", timeout=10)
        with writer.conn:
            writer.execute("DELETE FROM sessions WHERE id = 'e0000007'")
        await wait_for(pilot, lambda: "e0000007" not in status_cells(app), timeout=10)
    writer.conn.close()


async def test_the_first_finished_session_opens_in_an_empty_app(tmp_path: Path) -> None:
    from tests.support.synthetic_sessions import make_eval_session

    path = tmp_path / "r.db"
    open_db(path).conn.close()
    app = RagcovApp(path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.eval_sid is None
        writer = open_db(path)
        make_eval_session(writer, n_questions=5)
        writer.conn.close()
        await wait_for(pilot, lambda: app.eval_sid == "e0000001", timeout=10)
        assert "eval e0000001" in static_text(app.query_one("#status-line", Static))
        assert os.getpid()  # the app never wrote: the poll saw another connection's commit


@pytest.mark.slow
async def test_two_evals_and_an_analysis_on_one_database_while_the_app_polls(tmp_path: Path) -> None:
    """Three writers and a reader on one file: nothing lost, the file intact, the app saw every run."""
    write_slow_rag(tmp_path)
    path = tmp_path / "r.db"
    open_db(path).conn.close()
    app = RagcovApp(path)
    async with app.run_test(size=SIZE) as pilot:
        app.show_pane("sessions")
        procs = [
            start_eval(tmp_path, "--name", "one", delay=0.05),
            start_eval(tmp_path, "--name", "two", delay=0.05),
            ragcov(
                tmp_path,
                "analyze",
                "--quiet",
                "--corpus",
                str(CORPUS),
                "--questions",
                str(QUESTIONS),
                "--embedder",
                "hash",
                "--name",
                "cover",
            ),
        ]
        listed: dict[str, set[str]] = {}
        deadline = time.monotonic() + 240
        while any(p.poll() is None for p in procs):
            assert time.monotonic() < deadline, "the runs did not finish"
            await pilot.pause(0.1)
            for sid, status in status_cells(app).items():
                listed.setdefault(sid, set()).add(status)
        for proc in procs:
            assert proc.returncode == 0, proc.communicate()[1]
        await wait_for(pilot, lambda: list(status_cells(app).values()) == ["done"] * 3, timeout=5)
        for sid, status in status_cells(app).items():  # a fast run may finish between two polls of the loop
            listed.setdefault(sid, set()).add(status)
    assert len(listed) == 3 and any(s.startswith("run") for seen in listed.values() for s in seen)
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    rows = conn.execute("SELECT name, kind, status, id FROM sessions ORDER BY name").fetchall()
    assert [r[:3] for r in rows] == [("cover", "analysis", "done"), ("one", "eval", "done"), ("two", "eval", "done")]
    for _, kind, _, sid in rows:
        if kind == "eval":
            assert (
                conn.execute(
                    "SELECT count(*) FROM eval_items WHERE session_id = ? AND status = 'done'", [sid]
                ).fetchone()[0]
                == N_QUESTIONS
            )
        else:
            assert (
                conn.execute("SELECT count(*) FROM question_results WHERE session_id = ?", [sid]).fetchone()[0]
                == N_QUESTIONS
            )
    conn.close()


async def test_a_poll_while_the_app_closes_does_not_crash(tmp_path: Path) -> None:
    """Closing removes the widgets one by one; a poll that fired in between looked for the status
    line already removed and crashed the app with NoMatches (seen once in CI). It now waits."""
    from tests.support.synthetic_sessions import make_eval_session

    path = tmp_path / "r.db"
    open_db(path).conn.close()
    app = RagcovApp(path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await app.query_one("#status-line").remove()  # the state half-way through closing
        writer = open_db(path)
        make_eval_session(writer, n_questions=5)
        writer.conn.close()
        app.poll_sessions()
        assert app.eval_sid is None  # nothing refreshed, nothing raised; the change is left for later
