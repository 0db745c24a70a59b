"""Session owners and heartbeats: a running session whose process is gone reads as interrupted, a live
one cannot be resumed twice or deleted, Ctrl-C / SIGTERM record ``interrupted``, and the heartbeat
carries the run's progress."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from ragcov_tui.shared.errors import BadInput, Interrupted
from ragcov_tui.store import liveness, open_db
from ragcov_tui.store.db import SCHEMA_VERSION, schema_version
from ragcov_tui.store.liveness import HEARTBEATS, is_live, tracking
from ragcov_tui.store.schema import V1
from ragcov_tui.store.sessions import (
    create_session,
    delete_session,
    finish_session,
    list_sessions,
    resume_session,
)
from tests.support.stored import stored_session

HERE = liveness.this_host()


def dead_pid() -> int:
    """The pid of a process that has just exited."""
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def ago(seconds: float | None) -> str | None:
    if seconds is None:
        return None
    return (datetime.now(UTC) - timedelta(seconds=seconds)).isoformat(timespec="seconds")


PIDS = {
    "own-claimed": lambda: os.getpid(),
    "own-unclaimed": lambda: os.getpid(),
    "alive": os.getppid,
    "dead": dead_pid,
    "none": lambda: None,
}
FRESH, STALE = 1.0, liveness.STALE_AFTER + 5


@pytest.mark.parametrize("status", ["running", "done", "failed", "cancelled", "interrupted"])
@pytest.mark.parametrize("host", ["same", "other", None])
@pytest.mark.parametrize("pid", list(PIDS))
@pytest.mark.parametrize("beat", [FRESH, STALE, None])
def test_liveness_rule(status: str, host: str | None, pid: str, beat: float | None) -> None:
    sid = f"s-{status}-{host}-{pid}-{beat}"
    row = {
        "id": sid,
        "status": status,
        "pid": PIDS[pid](),
        "heartbeat_at": ago(beat),
        "host": {"same": HERE, "other": "elsewhere.example", None: None}[host],
    }
    if pid == "own-claimed":
        HEARTBEATS.add(sid, "")
    try:
        if status != "running":
            expected = False
        elif host == "same" and pid == "own-claimed":
            expected = True  # this process runs it: no heartbeat needed
        elif host == "same" and pid in ("own-unclaimed", "dead"):
            expected = False  # this process does not run it / the owner is gone
        else:
            expected = beat == FRESH  # alive elsewhere or on another host: the heartbeat decides
        assert is_live(row) is expected
    finally:
        HEARTBEATS.remove(sid)


def test_version_1_database_migrates_and_its_running_rows_read_as_interrupted(tmp_path: Path) -> None:
    path = tmp_path / "v1.db"
    conn = sqlite3.connect(path)
    conn.executescript(V1)  # a database written by the previous release
    conn.execute("PRAGMA user_version = 1")
    conn.execute("INSERT INTO sessions (id, kind, status, created_at) VALUES ('old', 'eval', 'running', '2025-01-01')")
    conn.commit()
    conn.close()
    db = open_db(path)
    assert schema_version(db) == SCHEMA_VERSION >= 2
    columns = {r[1] for r in db.execute("PRAGMA table_info(sessions)").fetchall()}
    assert {"pid", "host", "heartbeat_at", "progress"} <= columns
    old = stored_session(db, "old")
    assert old["status"] == "interrupted" and old["live"] is False
    assert "an unknown process" in (old["error"] or "")
    assert db.execute("SELECT status FROM sessions WHERE id = 'old'").fetchone()[0] == "running"  # readers never write
    from ragcov_tui.store.schema import add_session_owner_v2

    add_session_owner_v2(db)  # a second migration of the same file (two processes at once) is harmless


def test_created_session_is_owned_and_its_heartbeat_carries_progress(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(liveness, "HEARTBEAT_EVERY", 0.05)
    db = open_db(tmp_path / "r.db")
    seen: list[tuple] = []
    with tracking(lambda *a: seen.append(a)) as progress:
        sid = create_session(db, "eval")
        row = stored_session(db, sid)
        assert (row["pid"], row["host"], row["status"], row["live"]) == (os.getpid(), HERE, "running", True)
        progress("evaluating", 3, 40)
        deadline = time.monotonic() + 5
        while (stored_session(db, sid).get("progress") or {}).get("done") != 3:
            assert time.monotonic() < deadline, "the heartbeat never wrote the progress"
            time.sleep(0.02)
    assert seen == [("evaluating", 3, 40)] and progress.sessions == [sid]
    assert stored_session(db, sid)["progress"] == {"stage": "evaluating", "done": 3, "total": 40}
    finish_session(db, sid, "done")
    assert not HEARTBEATS.owns(sid) and stored_session(db, sid)["live"] is False


def _foreign_running(db, sid: str, pid: int | None, beat: float | None = FRESH) -> None:
    """A running row owned by another process of this host."""
    with db.conn:
        db["sessions"].insert(
            {
                "id": sid,
                "kind": "eval",
                "status": "running",
                "created_at": ago(60),
                "pid": pid,
                "host": HERE,
                "heartbeat_at": ago(beat),
                "progress": '{"stage": "evaluating", "done": 7, "total": 9}',
            }
        )


def test_resume_and_delete_refuse_a_live_session_and_accept_a_dead_one(tmp_path: Path) -> None:
    db = open_db(tmp_path / "r.db")
    other = os.getppid()
    _foreign_running(db, "live0001", other)
    with pytest.raises(BadInput, match=f"session live0001 is still running \\(pid {other} on "):
        resume_session(db, "live0001")
    with pytest.raises(BadInput, match="running .*cancel it first; a running session cannot be deleted"):
        delete_session(db, "live0001")
    assert [s["status"] for s in list_sessions(db)] == ["running"]

    gone = dead_pid()
    _foreign_running(db, "dead0001", gone)
    dead = stored_session(db, "dead0001")
    assert dead["status"] == "interrupted"
    assert dead["error"] == f"its process (pid {gone} on {HERE}) ended without finishing, at evaluating 7/9"
    resume_session(db, "dead0001")  # the owner is gone: this process takes it over
    row = stored_session(db, "dead0001")
    assert (row["status"], row["pid"], row["live"], row["error"]) == ("running", os.getpid(), True, None)
    with pytest.raises(BadInput, match="no such session"):
        resume_session(db, "nope")
    finish_session(db, "dead0001", "done")
    delete_session(db, "dead0001")
    _foreign_running(db, "stale001", other, beat=STALE)  # alive pid but silent for long: counts as gone
    delete_session(db, "stale001")
    assert [s["id"] for s in list_sessions(db)] == ["live0001"]


@pytest.mark.parametrize(
    "stop, note",
    [
        (KeyboardInterrupt(), "interrupted by Ctrl-C at evaluating 2/5"),
        (Interrupted("SIGTERM", 15), "interrupted by SIGTERM at evaluating 2/5"),
        (Interrupted("SIGHUP", 1), "interrupted by SIGHUP at evaluating 2/5"),
    ],
)
def test_a_run_stopped_by_a_signal_is_recorded_interrupted(tmp_path: Path, stop: KeyboardInterrupt, note: str) -> None:
    db = open_db(tmp_path / "r.db")
    with tracking() as progress:
        sid = create_session(db, "eval")
        progress("evaluating", 2, 5)
        try:
            raise stop
        except BaseException as exc:  # what the pipelines do on the way out
            finish_session(db, sid, "failed", error=f"{type(exc).__name__}: {exc}")
    row = stored_session(db, sid)
    assert (row["status"], row["error"]) == ("interrupted", note)
    if isinstance(stop, Interrupted):
        assert stop.exit_code == 128 + {"SIGTERM": 15, "SIGHUP": 1}[stop.signal_name]


def test_a_plain_failure_stays_failed(tmp_path: Path) -> None:
    db = open_db(tmp_path / "r.db")
    sid = create_session(db, "eval")
    try:
        raise ValueError("boom")
    except ValueError:
        finish_session(db, sid, "failed", error="ValueError: boom")
    assert stored_session(db, sid)["status"] == "failed"


def test_the_heartbeat_never_recreates_a_deleted_database(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(liveness, "HEARTBEAT_EVERY", 0.02)
    path = tmp_path / "r.db"
    db = open_db(path)
    sid = create_session(db, "eval")
    db.conn.close()
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    time.sleep(0.3)  # many beats
    HEARTBEATS.remove(sid)
    assert not path.exists()


HOLD_LOCK = """
import sys, time
from ragcov_tui.store.session_locks import acquire
fd = acquire(sys.argv[1], sys.argv[2])
print("held" if fd is not None else "none", flush=True)
time.sleep(60)
"""


def test_a_held_lock_keeps_a_session_live_without_a_heartbeat_until_its_process_dies(tmp_path: Path) -> None:
    """Issue #23 §5: the owner's lock, not its heartbeat, decides on this host; the OS drops it on death."""
    db = open_db(tmp_path / "r.db")
    sid = create_session(db, "eval")
    finish_session(db, sid, "failed", error="boom")  # this process lets go of it
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_LOCK, str(tmp_path / "r.db"), sid],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        stale = (datetime.now(UTC) - timedelta(seconds=liveness.STALE_AFTER + 60)).isoformat(timespec="seconds")
        with db.conn:  # the row as a run of the holder that stopped beating long ago would leave it
            db.execute(
                "UPDATE sessions SET status = 'running', pid = ?, heartbeat_at = ? WHERE id = ?",
                [holder.pid, stale, sid],
            )
        assert stored_session(db, sid)["live"] is True
        with pytest.raises(
            BadInput, match=rf"still running \(pid {holder.pid} on .*, no heartbeat for \d+ s: stopped\?\)"
        ):
            resume_session(db, sid)
    finally:
        holder.kill()
        holder.wait()
    row = stored_session(db, sid)
    assert (row["live"], row["status"]) == (False, "interrupted")
    resume_session(db, sid)  # the lock went with its process: taken over
    assert stored_session(db, sid)["live"] is True
    finish_session(db, sid, "done")
