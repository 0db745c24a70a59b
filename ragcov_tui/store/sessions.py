"""Session rows: create, finish, find, list, rename, delete.

A session is one run (``kind`` ``analysis`` or ``eval``). JSON columns are decoded on the way out,
so callers get plain dicts. Sessions are referred to by id, an unambiguous id prefix, their
name, or ``latest`` / ``latest-analysis`` / ``latest-eval``.
"""

from __future__ import annotations

import getpass
import json
import secrets
from datetime import datetime, timezone
from typing import Any

import sqlite_utils

from ragcov_tui.errors import BadInput

JSON_COLUMNS = ("corpus", "params", "summary", "timings", "usage")


def now_iso() -> str:
    """The current UTC time, ISO 8601 with seconds."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def current_user() -> str:
    try:
        return getpass.getuser()
    except Exception:  # no passwd entry in some containers
        return "unknown"


def _decode(row: dict[str, Any]) -> dict[str, Any]:
    out = dict(row)
    for col in JSON_COLUMNS:
        if out.get(col) is not None:
            out[col] = json.loads(out[col])
    return out


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
    params: dict[str, Any] | None = None,
    name: str | None = None,
) -> str:
    """Insert a ``running`` session and return its id."""
    sid = secrets.token_hex(4)
    with db.conn:
        db["sessions"].insert(
            {
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
                "system": system,
                "params": json.dumps(params or {}, sort_keys=True),
            }
        )
    return sid


def finish_session(
    db: sqlite_utils.Database,
    sid: str,
    status: str,
    *,
    summary: dict[str, Any] | None = None,
    timings: dict[str, float] | None = None,
    usage: dict[str, Any] | None = None,
    error: str | None = None,
) -> None:
    """Mark a session ``done`` / ``failed`` / ``cancelled`` with its headline figures."""
    updates: dict[str, Any] = {"status": status, "finished_at": now_iso(), "error": error}
    if summary is not None:
        updates["summary"] = json.dumps(summary, sort_keys=True)
    if timings is not None:
        updates["timings"] = json.dumps(timings, sort_keys=True)
    if usage is not None:
        updates["usage"] = json.dumps(usage, sort_keys=True)
    with db.conn:
        db["sessions"].update(sid, updates)


def get_session(db: sqlite_utils.Database, sid: str) -> dict[str, Any] | None:
    rows = list(db.query("SELECT * FROM sessions WHERE id = ?", [sid]))
    return _decode(rows[0]) if rows else None


def list_sessions(
    db: sqlite_utils.Database, kind: str | None = None, questions_path: str | None = None
) -> list[dict[str, Any]]:
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
    return [_decode(r) for r in db.query(sql, args)]


def resolve_session(db: sqlite_utils.Database, ref: str, kind: str | None = None) -> dict[str, Any]:
    """Find one session by id, id prefix, name or ``latest[-analysis|-eval]``; BadInput if none/ambiguous."""
    if ref.startswith("latest"):
        want = kind or (ref.split("-", 1)[1] if "-" in ref else None)
        rows = [s for s in list_sessions(db, kind=want) if s["status"] == "done"]
        if not rows:
            raise BadInput(f"session {ref!r}: no finished {want or ''} session in the database".replace("  ", " "))
        return rows[0]
    exact = get_session(db, ref)
    if exact:
        return exact
    rows = [_decode(r) for r in db.query("SELECT * FROM sessions WHERE id LIKE ? OR name = ?", [ref + "%", ref])]
    if kind:
        rows = [r for r in rows if r["kind"] == kind]
    if not rows:
        raise BadInput(f"session {ref!r}: no such session (see `ragcov sessions`)")
    if len(rows) > 1:
        raise BadInput(f"session {ref!r}: ambiguous, matches {', '.join(r['id'] for r in rows[:5])}")
    return rows[0]


def rename_session(db: sqlite_utils.Database, sid: str, name: str) -> None:
    with db.conn:
        db["sessions"].update(sid, {"name": name.strip() or None})


def delete_session(db: sqlite_utils.Database, sid: str) -> None:
    """Delete a session and (by cascade) everything stored under it."""
    with db.conn:
        db.execute("DELETE FROM sessions WHERE id = ?", [sid])
