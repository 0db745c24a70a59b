"""Seeing what other processes write: a cheap poll of the session list.

``PRAGMA data_version`` changes whenever another connection (a CLI run, another app, this app's
own job thread) commits to the file, and costs no I/O; only then is the session list read again.
While some session is ``running`` the list is also read on every poll without a write, because a
killed owner writes nothing: its session must turn ``interrupted`` all the same.
"""

from __future__ import annotations

import json

import sqlite_utils

from ragcov_tui.store.db import data_version
from ragcov_tui.store.rows import SessionRow
from ragcov_tui.store.sessions import list_sessions

POLL_EVERY = 1.0  # seconds between two polls


def _fingerprint(session: SessionRow) -> tuple:
    return (
        session["status"],
        session.get("name"),
        session.get("finished_at"),
        json.dumps(session.get("progress"), sort_keys=True),
    )


class SessionWatch:
    """``changes()`` → the ids of the sessions added, removed or changed (status, name, progress)
    since the previous call; the first call only takes the baseline."""

    def __init__(self, db: sqlite_utils.Database) -> None:
        self.db = db
        self.version: int | None = None
        self.any_running = False
        self.seen: dict[str, tuple] | None = None

    def changes(self) -> set[str]:
        version = data_version(self.db)
        if version == self.version and not self.any_running:
            return set()
        self.version = version
        sessions = list_sessions(self.db)
        self.any_running = any(s["status"] == "running" for s in sessions)
        now = {s["id"]: _fingerprint(s) for s in sessions}
        before, self.seen = self.seen, now
        if before is None:
            return set()
        return {sid for sid in now.keys() | before.keys() if now.get(sid) != before.get(sid)}
