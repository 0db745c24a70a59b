"""Opening the database: path resolution, pragmas, schema version and migrations.

The schema version lives in ``PRAGMA user_version``. ``MIGRATIONS[i]`` upgrades a database from
version ``i`` to ``i + 1``; a new table or column is a new function appended to the list, never an
edit of an old one. A database newer than this code is refused with a clear message.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import weakref
from pathlib import Path
from typing import Callable

import sqlite_utils

from ragcov_tui.errors import BadInput
from ragcov_tui.store import schema

DEFAULT_DB = Path(".ragcov") / "ragcov.db"

MIGRATIONS: list[Callable[[sqlite_utils.Database], None]] = [schema.create_v1, schema.add_session_owner_v2,
                                                                  schema.add_decision_states_v3]
SCHEMA_VERSION = len(MIGRATIONS)


_CONNECTION_LOCKS: "weakref.WeakKeyDictionary[sqlite_utils.Database, threading.RLock]" = weakref.WeakKeyDictionary()
_CONNECTION_LOCKS_GUARD = threading.Lock()


def connection_lock(db: sqlite_utils.Database) -> threading.RLock:
    """The one lock every thread holds while it uses ``db``'s shared connection.

    Worker threads (embedding and LLM caches) and the calling thread (eval items) share one
    ``sqlite3`` connection; transactions from two threads on one connection interleave and break
    each other (``cannot commit - no transaction is active``), so each access holds this lock.
    """
    with _CONNECTION_LOCKS_GUARD:
        lock = _CONNECTION_LOCKS.get(db)
        if lock is None:
            lock = _CONNECTION_LOCKS[db] = threading.RLock()
        return lock


def default_db_path() -> Path:
    """``$RAGCOV_DB`` if set, else ``./.ragcov/ragcov.db``."""
    env = os.environ.get("RAGCOV_DB")
    return Path(env) if env else DEFAULT_DB


def open_db(path: str | os.PathLike[str] | None = None) -> sqlite_utils.Database:
    """Open (creating if needed) the session database at ``path`` and bring its schema up to date.

    WAL journal, ``synchronous=NORMAL``, foreign keys on, a 30 s busy timeout so a TUI reader and a
    CLI writer can share the file. ``":memory:"`` gives a private in-memory database (tests).
    """
    if path is None:
        path = default_db_path()
    if str(path) == ":memory:":
        conn = sqlite3.connect(":memory:", check_same_thread=False)
    else:
        p = Path(path)
        if p.exists() and p.is_dir():
            raise BadInput(f"--db {p}: is a directory, expected a database file")
        try:
            p.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(str(p), timeout=30.0, check_same_thread=False)
            conn.execute("PRAGMA journal_mode=WAL")
        except (OSError, sqlite3.Error) as exc:
            raise BadInput(f"--db {p}: cannot open: {exc}") from exc
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("PRAGMA foreign_keys=ON")
    db = sqlite_utils.Database(conn)
    migrate(db, where=str(path))
    return db


def schema_version(db: sqlite_utils.Database) -> int:
    return int(db.execute("PRAGMA user_version").fetchone()[0])


def migrate(db: sqlite_utils.Database, where: str = "database") -> None:
    """Apply every migration the database has not seen yet, each in its own transaction."""
    try:
        version = schema_version(db)
    except sqlite3.DatabaseError as exc:
        raise BadInput(f"{where}: not a ragcov database ({exc})") from exc
    if version > SCHEMA_VERSION:
        raise BadInput(
            f"{where}: schema version {version} is newer than this ragcov ({SCHEMA_VERSION}); upgrade ragcov"
        )
    for target in range(version, SCHEMA_VERSION):
        with db.conn:
            MIGRATIONS[target](db)
            db.execute(f"PRAGMA user_version = {target + 1}")
