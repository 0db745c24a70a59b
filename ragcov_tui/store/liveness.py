"""Who is running a session: the owner's pid and host, a heartbeat, and the progress it reports.

A process that creates (or resumes) a session *claims* it: the row gets ``pid``, ``host`` and
``heartbeat_at``, and a daemon thread of that process rewrites ``heartbeat_at`` and ``progress``
(JSON ``{stage, done, total}``) every :data:`HEARTBEAT_EVERY` seconds until the session is
finished. The rule, applied whenever a row is read (nothing is written by a reader):

    live  ⇔  status = 'running'  and
             ( same host and pid = this process          and the session is claimed here
             | same host and the session's lock is held   (:mod:`ragcov_tui.store.session_locks`)
             | same host and pid alive (``kill(pid, 0)``) and heartbeat younger than STALE_AFTER
             | other host                                 and heartbeat younger than STALE_AFTER )

The lock is what the OS says: its owner exists, even stopped (SIGSTOP) with a stale heartbeat, so a
stopped run is never taken over. The heartbeat is the hint across hosts; one that cannot be read, has
no time zone or lies more than :data:`CLOCK_SKEW` in the future (another host's clock, a hand edit)
is no heartbeat (:func:`heartbeat_problem` says which), so no row stays ``running`` forever.

A ``running`` row that is not live is reported as ``interrupted``: its process was killed (kill
-9, a crash, a closed laptop) and will never finish it. Progress reaches the heartbeat through
:func:`tracking`, a wrapper around the caller's progress callback.
"""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ragcov_tui.shared.json_types import JsonObject
from ragcov_tui.shared.progress import Progress
from ragcov_tui.shared.safe_text import visible
from ragcov_tui.store.session_locks import lock_held, release

HEARTBEAT_EVERY = 2.0  # seconds between two heartbeats of a running session
STALE_AFTER = 30.0  # a heartbeat older than this means its process is gone (or stopped)
CLOCK_SKEW = 60.0  # a heartbeat at most this far in the future is taken as fresh (two hosts' clocks differ)


def this_host() -> str:
    return socket.gethostname()


def pid_alive(pid: int) -> bool:
    """Whether a process with this pid exists on this machine (signal 0 checks without sending)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, owned by someone else
        return True
    except (OSError, ValueError, OverflowError):
        return False
    return True


def _heartbeat_time(row: Mapping[str, Any]) -> datetime | None:
    beat = row.get("heartbeat_at")
    try:
        return datetime.fromisoformat(beat) if isinstance(beat, str) and beat else None
    except ValueError:
        return None


def heartbeat_age(row: Mapping[str, Any], now: datetime | None = None) -> float | None:
    """Seconds since the row's heartbeat; None when it has none, it cannot be read, it has no time
    zone, or it lies more than :data:`CLOCK_SKEW` in the future (a skew within it reads as 0)."""
    at = _heartbeat_time(row)
    if at is None or at.tzinfo is None:
        return None
    try:
        age = ((now or datetime.now(UTC)) - at).total_seconds()
    except OverflowError:
        return None
    return None if age < -CLOCK_SKEW else max(0.0, age)


def heartbeat_problem(row: Mapping[str, Any], now: datetime | None = None) -> str:
    """Why a stored heartbeat is not taken as one ('' when it is fine or absent)."""
    beat, at = row.get("heartbeat_at"), _heartbeat_time(row)
    if not beat:
        return ""
    if at is None:
        return f"its heartbeat {visible(str(beat))[:40]!r} is no time"
    if at.tzinfo is None:
        return f"its heartbeat {beat} has no time zone"
    if heartbeat_age(row, now) is None:
        return f"its heartbeat {beat} is in the future (a clock ahead?)"
    return ""


def is_live(row: Mapping[str, Any], db_file: str = "") -> bool:
    """The rule in the module docstring: is a process still working on this session? ``db_file``:
    the database the row was read from (its lock files lie next to it; '' for none)."""
    if row.get("status") != "running":
        return False
    pid, host = row.get("pid"), row.get("host")
    if host == this_host() and isinstance(pid, int):
        if pid == os.getpid():
            return HEARTBEATS.owns(row["id"])
        if lock_held(db_file, str(row["id"])):
            return True
        if not pid_alive(pid):
            return False
    age = heartbeat_age(row)
    return age is not None and age < STALE_AFTER


def owner_text(row: Mapping[str, Any]) -> str:
    """``pid 1234 on host-a`` (or ``an unknown process`` for rows written before owners were kept)."""
    if row.get("pid") is None:
        return "an unknown process"
    return f"pid {row['pid']} on {row.get('host') or '?'}"


def progress_text(progress: JsonObject | None) -> str:
    """``evaluating 12/40`` from a stored progress dict ('' when there is none)."""
    if not progress or not progress.get("stage"):
        return ""
    done, total = progress.get("done", 0), progress.get("total", 0)
    return f"{progress['stage']} {done:,}/{total:,}" if total else f"{progress['stage']} {done:,}"


# ---------------------------------------------------------------- progress tracking


@dataclass
class Tracker:
    """A progress callback that forwards to ``inner``, keeps the latest report for the heartbeat, and
    lists the sessions claimed by its thread while it was active (``sessions``, oldest first)."""

    inner: Progress | None = None
    last: JsonObject = field(default_factory=dict)
    sessions: list[str] = field(default_factory=list)

    def __call__(self, stage: str, done: int, total: int) -> None:
        self.last = {"stage": stage, "done": int(done), "total": int(total)}
        if self.inner is not None:
            self.inner(stage, done, total)


_local = threading.local()


@contextmanager
def tracking(progress: Progress | None = None) -> Iterator[Tracker]:
    """``with tracking(bar) as progress: run_eval(..., progress=progress)``: sessions claimed by this
    thread inside the block report the progress in their heartbeat and are listed in ``progress.sessions``."""
    tracker, before = Tracker(progress), getattr(_local, "tracker", None)
    _local.tracker = tracker
    try:
        yield tracker
    finally:
        _local.tracker = before


def current_tracker() -> Tracker | None:
    return getattr(_local, "tracker", None)


# ---------------------------------------------------------------- the heartbeat thread


def database_file(conn: sqlite3.Connection) -> str:
    """The file behind a connection ('' for an in-memory database)."""
    for _, name, path in conn.execute("PRAGMA database_list").fetchall():
        if name == "main":
            return path or ""
    return ""


def _connect_existing(path: str) -> sqlite3.Connection:
    """A connection to the database file at ``path`` that never creates it (it may have been deleted)."""
    return sqlite3.connect(f"{Path(path).resolve().as_uri()}?mode=rw", uri=True, timeout=5.0)


@dataclass
class _Owned:
    path: str
    tracker: Tracker | None
    lock: int | None  # the descriptor holding the session's lock (session_locks), closed on remove


class Heartbeats:
    """The sessions this process works on, and the daemon thread that keeps their heartbeat fresh.

    The thread writes through its own short-lived connection per database file (never the caller's
    shared one), runs only while something is claimed, and skips in-memory databases (no other
    process can see them).
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._owned: dict[str, _Owned] = {}
        self._thread: threading.Thread | None = None

    def owns(self, sid: str) -> bool:
        with self._lock:
            return sid in self._owned

    def progress_of(self, sid: str) -> JsonObject:
        with self._lock:
            owned = self._owned.get(sid)
        return dict(owned.tracker.last) if owned and owned.tracker else {}

    def add(self, sid: str, path: str, lock: int | None = None) -> None:
        """Own ``sid`` (of the database file ``path``), holding its lock ``lock`` until :meth:`remove`."""
        tracker = current_tracker()
        if tracker is not None:
            tracker.sessions.append(sid)
        with self._lock:
            self._owned[sid] = _Owned(path, tracker, lock)
            if path and self._thread is None:
                self._thread = threading.Thread(target=self._loop, name="ragcov-heartbeat", daemon=True)
                self._thread.start()

    def remove(self, sid: str) -> None:
        with self._lock:
            owned = self._owned.pop(sid, None)
        if owned is not None:
            release(owned.lock)

    def _loop(self) -> None:
        conns: dict[str, sqlite3.Connection] = {}
        try:
            while True:
                time.sleep(HEARTBEAT_EVERY)
                with self._lock:
                    owned = {sid: o for sid, o in self._owned.items() if o.path}
                    if not owned:
                        self._thread = None
                        return
                self._beat(owned, conns)
        finally:
            for conn in conns.values():
                conn.close()

    def _beat(self, owned: dict[str, _Owned], conns: dict[str, sqlite3.Connection]) -> None:
        now = datetime.now(UTC).isoformat(timespec="seconds")
        pid = os.getpid()
        for path in {o.path for o in owned.values()}:
            rows = [
                (now, json.dumps(o.tracker.last) if o.tracker and o.tracker.last else None, sid, pid)
                for sid, o in owned.items()
                if o.path == path
            ]
            try:
                conn = conns.get(path) or conns.setdefault(path, _connect_existing(path))
                with conn:
                    conn.executemany(
                        "UPDATE sessions SET heartbeat_at = ?, progress = coalesce(?, progress) "
                        "WHERE id = ? AND status = 'running' AND pid = ?",
                        rows,
                    )
            except sqlite3.Error:  # busy for 5 s, file gone: the next beat tries again
                bad = conns.pop(path, None)
                if bad is not None:
                    bad.close()
        for path in set(conns) - {o.path for o in owned.values()}:
            conns.pop(path).close()


HEARTBEATS = Heartbeats()


def state_line(session: Mapping[str, Any]) -> str:
    """What a session that is not ``done`` is doing or why it stopped, in one line ('' when done):
    ``running · evaluating 12/40 (30%) · pid 1234 on host-a`` / ``cancelled · cancelled by the user``."""
    status = session.get("status")
    if status == "done":
        return ""
    parts = [str(status)]
    if status == "running":
        at, pct = progress_text(session.get("progress")), percent_done(session)
        parts += [(at + (f" ({pct}%)" if pct is not None else "")) or "starting", owner_text(session)]
    elif session.get("error"):
        parts.append(str(session["error"]))
    if status in ("cancelled", "interrupted", "failed") and session.get("kind") == "eval":
        parts.append(f"finish it with: ragcov eval --resume {session['id']} (same options)")
    return " · ".join(parts)


def percent_done(session: Mapping[str, Any]) -> int | None:
    """A running session's progress in whole percent (None when it has not reported a total)."""
    progress = session.get("progress") or {}
    if session.get("status") != "running" or not progress.get("total"):
        return None
    return min(100, 100 * int(progress.get("done", 0)) // int(progress["total"]))
