"""Session rows: create, finish, find, list, rename, delete, claim for a resume.

A session is one run (``kind`` ``analysis`` or ``eval``). JSON columns are decoded on the way out,
so callers get plain dicts. Sessions are referred to by id, an unambiguous id prefix, their
name, or ``latest`` / ``latest-analysis`` / ``latest-eval``.

Status: ``running`` → ``done`` | ``failed`` | ``cancelled`` | ``interrupted``. The process that
creates or resumes a session owns it (:mod:`ragcov_tui.store.liveness`); a ``running`` row whose
owner is gone is read back as ``interrupted`` (with ``live`` False), so nothing shows ``running``
forever. A live session cannot be resumed by a second process nor deleted.
"""

from __future__ import annotations

import getpass
import json
import os
import secrets
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

import sqlite_utils

from ragcov_tui.shared.errors import BadInput
from ragcov_tui.shared.json_types import JsonObject
from ragcov_tui.shared.redact import redact_text, redact_values
from ragcov_tui.store import session_locks
from ragcov_tui.store.db import connection_lock
from ragcov_tui.store.liveness import (
    HEARTBEATS,
    STALE_AFTER,
    database_file,
    heartbeat_age,
    heartbeat_problem,
    is_live,
    owner_text,
    progress_text,
    this_host,
)
from ragcov_tui.store.rows import SessionRow
from ragcov_tui.store.session_fields import read_fields


def now_iso() -> str:
    """The current UTC time, ISO 8601 with seconds."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def current_user() -> str:
    try:
        return getpass.getuser()
    except Exception:  # no passwd entry in some containers
        return "unknown"


def _decode(row: dict[str, Any], db_file: str) -> SessionRow:
    """Every field read defensively (:func:`~ragcov_tui.store.session_fields.read_fields`), ``live``
    added (``db_file``: where the row was read, for its lock); a dead ``running`` row read as ``interrupted``."""
    out = read_fields(row)
    out["live"] = is_live(out, db_file)
    if out["status"] == "running" and not out["live"]:
        out["status"] = "interrupted"
        at, beat = progress_text(out.get("progress")), heartbeat_problem(out)
        out["error"] = out.get("error") or (
            f"its process ({owner_text(out)}) ended without finishing"
            + (f", at {at}" if at else "")
            + (f"; {beat}" if beat else "")
        )
    return out


def _decoder(db: sqlite_utils.Database) -> Callable[[dict[str, Any]], SessionRow]:
    path = database_file(db.conn)
    return lambda row: _decode(row, path)


def _owner() -> dict[str, Any]:
    return {"pid": os.getpid(), "host": this_host(), "heartbeat_at": now_iso()}


def _claim(db: sqlite_utils.Database, sid: str, lock: int | None) -> None:
    """Start the heartbeat of ``sid`` (owned by this process from now on, holding its ``lock``)."""
    HEARTBEATS.add(sid, database_file(db.conn), lock)


@contextmanager
def _locked_row(db: sqlite_utils.Database, sid: str) -> Iterator[SessionRow | None]:
    """The decoded row of ``sid`` inside a write transaction (``BEGIN IMMEDIATE``): no other process
    can claim or change it until the block ends; the block's writes commit together."""
    with connection_lock(db):
        if db.conn.in_transaction:
            db.conn.commit()
        db.conn.execute("BEGIN IMMEDIATE")
        try:
            rows = list(db.query("SELECT * FROM sessions WHERE id = ?", [sid]))
            yield _decoder(db)(rows[0]) if rows else None
        except BaseException:
            db.conn.rollback()
            raise
        db.conn.commit()


def create_session(
    db: sqlite_utils.Database,
    kind: str,
    *,
    corpus: list[str] | None = None,
    questions_path: str | None = None,
    testset_sha256: str | None = None,
    embedder: str | None = None,
    llm: str | None = None,
    system: str | None = None,
    params: JsonObject | None = None,
    name: str | None = None,
) -> str:
    """Insert a ``running`` session owned by this process (heartbeat started) and return its id."""
    sid = secrets.token_hex(4)
    with db.conn:
        db.table("sessions").insert(
            {
                **_owner(),
                "id": sid,
                "kind": kind,
                "name": name,
                "status": "running",
                "created_at": now_iso(),
                "user": current_user(),
                "corpus": json.dumps(corpus or []),
                "questions_path": questions_path,
                "testset_sha256": testset_sha256,
                "embedder": embedder,
                "llm": llm,
                "system": system and redact_text(system),  # no credentials of a URL is ever stored
                "params": json.dumps(redact_values(params or {}), sort_keys=True),
            }
        )
    try:
        lock = session_locks.acquire(database_file(db.conn), sid)
    except session_locks.LockHeld:  # a lock file left by a deleted session of the same id: nobody runs it
        lock = None
    _claim(db, sid, lock)
    return sid


def resume_session(db: sqlite_utils.Database, sid: str) -> None:
    """Mark ``sid`` running again, owned by this process and holding its lock; BadInput naming the
    owner when another process is still running it (two runs of one session would judge every item
    twice), stopped ones included: their lock is held."""
    lock = None
    try:
        with _locked_row(db, sid) as row:
            if row is None:
                raise BadInput(f"session {sid!r}: no such session (see `ragcov sessions`)")
            try:
                lock = None if row["live"] else session_locks.acquire(database_file(db.conn), sid)
            except session_locks.LockHeld:  # its owner exists (stopped, or its heartbeat lags): not dead
                row["live"] = True
            if row["live"]:
                raise BadInput(
                    f"session {sid} is still running ({owner_text(row)}{_silence(row)}): let it finish "
                    "or stop it (Ctrl-C, or cancel in the app) before resuming it"
                )
            db.table("sessions").update(sid, {**_owner(), "status": "running", "error": None, "finished_at": None})
    except BaseException:  # not claimed after all (refused, or the write failed): let the lock go
        session_locks.release(lock)
        raise
    _claim(db, sid, lock)


def _silence(row: SessionRow) -> str:
    """``, no heartbeat for 35 s: stopped?`` for a live owner whose heartbeat is stale (it holds its
    lock: a stopped process, Ctrl-Z or SIGSTOP, resumes with ``kill -CONT``), else ''."""
    age = heartbeat_age(row)
    if age is not None and age < STALE_AFTER:
        return ""
    return (f", no heartbeat for {age:.0f} s" if age is not None else ", no heartbeat") + ": stopped?"


def finish_session(
    db: sqlite_utils.Database,
    sid: str,
    status: str,
    *,
    summary: Mapping[str, Any] | None = None,  # an AnalysisHeadline / EvalHeadline
    timings: Mapping[str, float] | None = None,
    usage: Mapping[str, Any] | None = None,  # an AnalysisUsage / EvalUsage
    error: str | None = None,
) -> None:
    """Mark a session ``done`` / ``failed`` / ``cancelled`` with its headline figures; its heartbeat stops.

    Called (as ``failed``) while a ``KeyboardInterrupt`` unwinds — Ctrl-C, or SIGTERM which the CLI
    turns into :class:`~ragcov_tui.shared.errors.Interrupted` — the session is recorded as ``interrupted``
    with the signal and the progress it had reached.
    """
    stopping = sys.exc_info()[1]
    if status == "failed" and isinstance(stopping, KeyboardInterrupt):
        status, error = "interrupted", _interrupted_note(sid, stopping)
    HEARTBEATS.remove(sid)
    updates: dict[str, Any] = {"status": status, "finished_at": now_iso(), "error": error and redact_text(error)}
    if summary is not None:
        updates["summary"] = json.dumps(summary, sort_keys=True)
    if timings is not None:
        updates["timings"] = json.dumps(timings, sort_keys=True)
    if usage is not None:
        updates["usage"] = json.dumps(usage, sort_keys=True)
    with db.conn:
        db.table("sessions").update(sid, updates)


def _interrupted_note(sid: str, stopping: KeyboardInterrupt) -> str:
    """``interrupted by SIGTERM at evaluating 12/40``."""
    at = progress_text(HEARTBEATS.progress_of(sid))
    return f"interrupted by {getattr(stopping, 'signal_name', 'Ctrl-C')}" + (f" at {at}" if at else "")


def get_session(db: sqlite_utils.Database, sid: str) -> SessionRow | None:
    rows = list(db.query("SELECT * FROM sessions WHERE id = ?", [sid]))
    return _decoder(db)(rows[0]) if rows else None


def list_sessions(
    db: sqlite_utils.Database, kind: str | None = None, questions_path: str | None = None
) -> list[SessionRow]:
    """Sessions newest first, optionally of one kind and/or one test file."""
    where, args = [], []
    if kind:
        where.append("kind = ?")
        args.append(kind)
    if questions_path:
        where.append("questions_path = ?")
        args.append(questions_path)
    sql = "SELECT * FROM sessions"
    if where:
        sql += " WHERE " + " AND ".join(where)
    sql += " ORDER BY created_at DESC, rowid DESC"
    return list(map(_decoder(db), db.query(sql, args)))


def resolve_session(db: sqlite_utils.Database, ref: str, kind: str | None = None) -> SessionRow:
    """Find one session by id, id prefix, name or ``latest[-analysis|-eval]``; BadInput if none or
    ambiguous, or, given ``kind``, when the session named is of the other kind (an analysis id or
    ``latest-analysis`` where an eval is needed)."""
    session = _find_session(db, ref, kind)
    if kind and session["kind"] != kind:
        raise BadInput(
            f"session {ref!r} ({session['id']}) is an {session['kind']} session; an {kind} session is needed here"
        )
    return session


def _find_session(db: sqlite_utils.Database, ref: str, kind: str | None) -> SessionRow:
    if ref.startswith("latest"):
        want = (ref.split("-", 1)[1] if "-" in ref else None) or kind
        rows = [s for s in list_sessions(db, kind=want) if s["status"] == "done"]
        if not rows:
            raise BadInput(f"session {ref!r}: no finished {want or ''} session in the database".replace("  ", " "))
        return rows[0]
    exact = get_session(db, ref)
    if exact:
        return exact
    rows = list(map(_decoder(db), db.query("SELECT * FROM sessions WHERE id LIKE ? OR name = ?", [ref + "%", ref])))
    if kind:
        rows = [r for r in rows if r["kind"] == kind] or rows  # none of that kind: the caller says so
    if not rows:
        raise BadInput(f"session {ref!r}: no such session (see `ragcov sessions`)")
    if len(rows) > 1:
        raise BadInput(f"session {ref!r}: ambiguous, matches {', '.join(r['id'] for r in rows[:5])}")
    return rows[0]


def rename_session(db: sqlite_utils.Database, sid: str, name: str) -> None:
    with db.conn:
        db.table("sessions").update(sid, {"name": name.strip() or None})


def delete_session(db: sqlite_utils.Database, sid: str) -> None:
    """Delete a session and (by cascade) everything stored under it; BadInput when it is still
    running (a running session can be cancelled, not deleted: its process is writing to it)."""
    with _locked_row(db, sid) as row:
        if row is not None and row["live"]:
            raise BadInput(
                f"session {sid} is running ({owner_text(row)}): cancel it first; a running session cannot be deleted"
            )
        db.execute("DELETE FROM sessions WHERE id = ?", [sid])
        session_locks.remove(database_file(db.conn), sid)
