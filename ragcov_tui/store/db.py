"""Opening the database: path resolution, pragmas, schema version and migrations.

The schema version lives in ``PRAGMA user_version``. ``MIGRATIONS[i]`` upgrades a database from
version ``i`` to ``i + 1``; a new table or column is a new function appended to the list, never an
edit of an old one. A database newer than this code is refused with a clear message.
"""

from __future__ import annotations

import os
import re
import sqlite3
import threading
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any

import sqlite_utils

from ragcov_tui.shared.error_text import os_reason
from ragcov_tui.shared.errors import BadInput
from ragcov_tui.store import schema

DEFAULT_DB = Path(".ragcov") / "ragcov.db"
DEFAULT_BUSY_TIMEOUT = 30.0

MIGRATIONS: list[Callable[[sqlite_utils.Database], None]] = [
    schema.create_v1,
    schema.add_session_owner_v2,
    schema.add_decision_states_v3,
    schema.add_traffic_v4,
    schema.add_suggestion_source_v5,
    schema.add_labels_v6,
    schema.add_lint_v7,
]
SCHEMA_VERSION = len(MIGRATIONS)


_CONNECTION_LOCKS: weakref.WeakKeyDictionary[sqlite_utils.Database, threading.RLock] = weakref.WeakKeyDictionary()
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


_DIGITS = re.compile(r"([0-9]+)")
NATURAL = "natural_order"  # the collation name: ``ORDER BY question_id COLLATE natural_order``


def natural_key(text: str) -> tuple[tuple[int, int, str], ...]:
    """Sort key for ids in natural order: runs of ASCII digits compare as numbers, the rest as
    case-folded text, so 1, 2, 10, 100 (not 1, 10, 100, 2) and ``q2`` before ``q10``; the text itself
    breaks ties (``q01`` / ``q1``)."""
    parts = _DIGITS.split(text)
    key = tuple((0, int(p), "") if i % 2 else (1, 0, p.casefold()) for i, p in enumerate(parts) if p)
    return (*key, (2, 0, text))


def _natural_compare(a: str, b: str) -> int:
    ka, kb = natural_key(a), natural_key(b)
    return (ka > kb) - (ka < kb)


def default_db_path() -> Path:
    """``$RAGCOV_DB`` if set, else ``./.ragcov/ragcov.db``."""
    env = os.environ.get("RAGCOV_DB")
    return Path(env) if env else DEFAULT_DB


def busy_timeout() -> float:
    """Seconds a connection waits for another writer's lock: ``$RAGCOV_DB_TIMEOUT``, default 30."""
    raw = os.environ.get("RAGCOV_DB_TIMEOUT", "").strip()
    if not raw:
        return DEFAULT_BUSY_TIMEOUT
    try:
        value = float(raw)
    except ValueError:
        value = float("nan")
    if not 0 <= value <= 3600:  # NaN fails too
        raise BadInput(f"$RAGCOV_DB_TIMEOUT: expected seconds from 0 to 3600, got {raw!r}")
    return value


def open_db(
    path: str | os.PathLike[str] | None = None, *, where: str = "--db", writable: bool = False
) -> sqlite_utils.Database:
    """Open (creating if needed) the session database at ``path`` and bring its schema up to date.

    WAL journal, ``synchronous=NORMAL``, foreign keys on, a busy timeout (:func:`busy_timeout`) so
    a TUI reader and a CLI writer, or two writers, wait for each other instead of failing.
    ``writable`` also waits for the write lock once, so a command that will write learns that the
    database is locked or read-only before it starts any work. Every failure is a one-line
    :class:`BadInput` naming ``where`` the path came from and the file. ``":memory:"`` gives a
    private in-memory database (tests).
    """
    if path is None:
        path = default_db_path()
    if str(path) == ":memory:":
        conn = sqlite3.connect(":memory:", check_same_thread=False)
    else:
        try:
            conn = _connect(Path(path), where, writable)
        except OSError as exc:  # probing the path itself failed: a name too long, a loop of links…
            raise BadInput(f"{where} {path}: {exc.strerror or exc}") from None
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("PRAGMA foreign_keys=ON")
    conn.create_collation(NATURAL, _natural_compare)
    db = sqlite_utils.Database(conn)
    try:
        migrate(db, where=f"{where} {path}")
    except sqlite3.Error as exc:
        raise db_error(exc, Path(path), where) from None
    return db


def open_db_read_only(path: str | os.PathLike[str] | None = None) -> sqlite_utils.Database | None:
    """The database at ``path`` (default :func:`default_db_path`) opened read-only, for a command
    that must write nothing (``--dry-run`` reads the caches); ``None`` when there is no such file or
    it cannot be read as a database of this version (then there is nothing cached to read)."""
    p = Path(path) if path is not None else default_db_path()
    if str(p) == ":memory:" or not p.is_file():
        return None
    try:
        conn = sqlite3.connect(f"{p.resolve().as_uri()}?mode=ro", uri=True, check_same_thread=False)
        version = conn.execute("PRAGMA user_version").fetchone()[0]
    except sqlite3.Error:
        return None
    if version != SCHEMA_VERSION:
        conn.close()
        return None
    return sqlite_utils.Database(conn)


def _connect(p: Path, where: str, writable: bool) -> sqlite3.Connection:
    if p.is_dir():
        raise BadInput(f"{where} {p}: is a directory, expected a database file")
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        blocker = next(a for a in p.parents if a.exists())
        raise BadInput(f"{where} {p}: {blocker} is a file, not a folder") from None
    except OSError as exc:
        raise BadInput(f"{where} {p}: cannot create its folder ({os_reason(exc)})") from None
    if writable:
        _check_writable(p, where)
    timeout = busy_timeout()
    try:
        conn = sqlite3.connect(str(p), timeout=timeout, check_same_thread=False)
    except sqlite3.Error as exc:
        raise db_error(exc, p, where) from None
    try:
        conn.execute("PRAGMA journal_mode=WAL")
        if writable:
            conn.execute("BEGIN IMMEDIATE")
            conn.execute("ROLLBACK")
    except sqlite3.Error as exc:
        conn.close()
        raise db_error(exc, p, where) from None
    return conn


def _check_writable(p: Path, where: str) -> None:
    """BadInput when the file, or the folder its journal files go to, cannot be written."""
    if p.exists() and not os.access(p, os.W_OK):
        raise BadInput(f"{where} {p}: the database is read-only; use a writable file or another --db")
    folder = p.parent
    if not os.access(folder, os.W_OK):
        raise BadInput(
            f"{where} {p}: its folder {folder} is read-only (the database keeps its journal "
            "there); use a writable folder or another --db"
        )


def db_error(exc: sqlite3.Error, p: Path, where: str = "--db") -> BadInput:
    """A one-line error for a database that cannot be used: locked, read-only, not a database."""
    text = str(exc)
    if "locked" in text or "busy" in text:
        return BadInput(
            f"{where} {p}: the database is locked by another process (waited "
            f"{busy_timeout():g} s); wait for it to finish, or use another --db"
        )
    if "readonly" in text or "read-only" in text or (p.exists() and not os.access(p, os.W_OK)):
        return BadInput(f"{where} {p}: the database is read-only ({text}); use a writable file or another --db")
    if isinstance(exc, sqlite3.DatabaseError) and ("not a database" in text or "malformed" in text):
        return BadInput(f"{where} {p}: not a ragcov database ({text})")
    return BadInput(f"{where} {p}: database error ({text})")


def schema_version(db: sqlite_utils.Database) -> int:
    return int(db.execute("PRAGMA user_version").fetchone()[0])


def migrate(db: sqlite_utils.Database, where: str = "database") -> None:
    """Apply every migration the database has not seen yet, each in its own transaction."""
    try:
        version = schema_version(db)
    except sqlite3.OperationalError:
        raise
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


def insert_row(db: sqlite_utils.Database, table: str, row: dict[str, Any]) -> int:
    """Insert ``row`` into ``table`` and return its integer primary key."""
    key = db.table(table).insert(row).last_pk
    if not isinstance(key, int):
        raise TypeError(f"{table}: the inserted row has no integer key ({key!r})")
    return key


def data_version(db: sqlite_utils.Database) -> int:
    """SQLite's ``PRAGMA data_version``: changes when another connection commits to the file, so a
    reader can tell cheaply whether anything may have changed since it last looked."""
    return int(db.execute("PRAGMA data_version").fetchone()[0])
