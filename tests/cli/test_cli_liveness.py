"""Runs that stop say so: kill -9 leaves an ``interrupted`` session that ``--resume`` finishes, SIGTERM
marks it interrupted and exits 143, a second process cannot resume a live session, and ``ragcov
tui`` without a terminal exits at once (real ``ragcov`` subprocesses on sample_data/)."""

from __future__ import annotations

import os
import re
import signal
import sqlite3
import subprocess
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from ragcov_tui.store.liveness import STALE_AFTER
from tests.support.ragcov_procs import (
    CORPUS,
    N_QUESTIONS,
    QUESTIONS,
    ragcov,
    sessions,
    start_eval,
    wait_items,
    write_slow_rag,
)

pytestmark = pytest.mark.slow


@pytest.fixture()
def work(tmp_path: Path) -> Path:
    write_slow_rag(tmp_path)
    return tmp_path


def test_kill_9_leaves_an_interrupted_session_that_resume_finishes(work: Path) -> None:
    proc = start_eval(work)
    sid = wait_items(work, 3, proc)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    [row] = sessions(work)
    assert (row["id"], row["status"], row["live"]) == (sid, "interrupted", False)
    assert f"pid {proc.pid}" in row["error"] and "ended without finishing" in row["error"]
    table = ragcov(work, "sessions").communicate(timeout=60)[0]
    assert "interrupted" in table and "running" not in table

    resumed = start_eval(work, "--resume", sid, delay=0)
    out, err = resumed.communicate(timeout=120)
    assert resumed.returncode == 0, err
    [row] = sessions(work)
    assert row["status"] == "done" and row["pid"] == resumed.pid
    conn = sqlite3.connect(work / "r.db")
    assert (
        conn.execute("SELECT count(*) FROM eval_items WHERE session_id = ? AND status = 'done'", [sid]).fetchone()[0]
        == N_QUESTIONS
    )
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_sigterm_marks_the_session_interrupted_and_exits_143(work: Path) -> None:
    proc = start_eval(work)
    sid = wait_items(work, 3, proc)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 143
    assert (
        err.strip().splitlines()[-1].startswith("interrupted by SIGTERM: stopped: ")
    )  # one line, with the stop report
    [row] = sessions(work)
    assert (row["id"], row["status"]) == (sid, "interrupted")
    assert row["error"].startswith("interrupted by SIGTERM at evaluating ") and row["error"].endswith(f"/{N_QUESTIONS}")


def test_a_live_session_cannot_be_resumed_by_a_second_process(work: Path) -> None:
    first = start_eval(work, delay=0.3)
    sid = wait_items(work, 1, first)
    second = start_eval(work, "--resume", sid, delay=0)
    out, err = second.communicate(timeout=60)
    try:
        assert second.returncode == 2
        assert err.strip() == (
            f"error: session {sid} is still running (pid {first.pid} on {os.uname().nodename}): "
            "let it finish or stop it (Ctrl-C, or cancel in the app) before resuming it"
        )
        assert first.poll() is None  # the first run goes on untouched
    finally:
        first.send_signal(signal.SIGINT)  # Ctrl-C: interrupted too, exit 130
        first.communicate(timeout=30)
    assert first.returncode == 130
    [row] = sessions(work)
    assert row["status"] == "interrupted" and row["error"].startswith("interrupted by Ctrl-C")


def test_tui_without_a_terminal_exits_at_once(work: Path) -> None:
    """``ragcov tui </dev/null`` used to spin at 100% CPU forever. (demo prints its report instead:
    tests/cli/test_cli_demo.py runs it without a terminal.)"""
    start = time.monotonic()
    proc = ragcov(work, "tui", stdin=subprocess.DEVNULL)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 2 and time.monotonic() - start < 30
    assert (
        err.strip()
        == "error: ragcov tui needs a terminal: stdin and stdout must be a TTY (for a report use `ragcov report`)"
    )


COUNTING_RAG = """
import os, time

def answer(question):
    with open("calls.log", "a") as log:
        log.write(question.replace("\\n", " ") + "\\n")
    time.sleep(0.2)
    return {"answer": "It depends on " + question, "contexts": [{"id": "api-overview.md", "text": question}]}
"""


def _backdate_heartbeat(work: Path, sid: str, proc: subprocess.Popen) -> None:
    """Make the stopped run's heartbeat older than STALE_AFTER, as 35 s of SIGSTOP would (the run may
    have been stopped inside a write: then it is let go on for a moment and stopped again)."""
    stale = (datetime.now(UTC) - timedelta(seconds=STALE_AFTER + 5)).isoformat(timespec="seconds")
    for _ in range(100):
        conn = sqlite3.connect(work / "r.db", timeout=0.5)
        try:
            with conn:
                conn.execute("UPDATE sessions SET heartbeat_at = ? WHERE id = ?", [stale, sid])
            return
        except sqlite3.OperationalError:  # database is locked by the stopped writer
            proc.send_signal(signal.SIGCONT)
            time.sleep(0.05)
            proc.send_signal(signal.SIGSTOP)
        finally:
            conn.close()
    raise AssertionError("the database stayed locked")


def test_a_stopped_run_is_not_taken_over_and_no_question_is_asked_twice(work: Path) -> None:
    """Issue #23 §5: a run stopped (SIGSTOP) past the heartbeat timeout looked dead, ``--resume`` was
    accepted and after SIGCONT both evaluated the session. Its lock says it is alive."""
    (work / "counting_rag.py").write_text(COUNTING_RAG)
    argv = (
        "eval",
        "--quiet",
        "--questions",
        str(QUESTIONS),
        "--corpus",
        str(CORPUS),
        "--system",
        "python:counting_rag:answer",
        "--embedder",
        "hash",
        "--concurrency",
        "1",
    )
    first = ragcov(work, *argv)
    sid = wait_items(work, 2, first)
    first.send_signal(signal.SIGSTOP)
    try:
        _backdate_heartbeat(work, sid, first)
        [row] = sessions(work)
        assert (row["status"], row["live"]) == ("running", True)  # not "interrupted": its process exists
        second = ragcov(work, *argv, "--resume", sid)
        out, err = second.communicate(timeout=120)
        assert second.returncode == 2, err
        said = re.fullmatch(
            rf"error: session {sid} is still running \(pid {first.pid} on {re.escape(os.uname().nodename)}, "
            r"no heartbeat for (\d+) s: stopped\?\): let it finish or stop it \(Ctrl-C, or cancel in "
            r"the app\) before resuming it",
            err.strip(),
        )
        assert said and int(said[1]) >= STALE_AFTER, err
    finally:
        first.send_signal(signal.SIGCONT)
    out, err = first.communicate(timeout=120)
    assert first.returncode == 0, err
    calls = (work / "calls.log").read_text().splitlines()
    assert len(calls) == len(set(calls))  # each question (and paraphrase) asked once, by the first run only
    [row] = sessions(work)
    assert (row["status"], row["pid"]) == ("done", first.pid)
