"""Rows a test knows the store holds: the row itself, never None (an assertion names what is missing)."""

from __future__ import annotations

import sqlite_utils

from ragcov_tui.store.rows import SessionRow
from ragcov_tui.store.sessions import get_session


def stored_session(db: sqlite_utils.Database, sid: str) -> SessionRow:
    """:func:`get_session` for a session the test made."""
    session = get_session(db, sid)
    assert session is not None, f"no session {sid}"
    return session
