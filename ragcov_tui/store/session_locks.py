"""Per-session lock files: the owner of a running session holds an advisory lock the OS releases on death.

The process that creates or resumes a session takes an exclusive ``fcntl.flock`` on
``<database>.locks/<session id>.lock`` and keeps it until the session finishes (or the process ends,
however it ends: the kernel drops the lock with the last descriptor). Another process on the same
host asks :func:`lock_held`; a held lock means the owner exists, even stopped (SIGSTOP, a suspended
laptop) with a heartbeat long stale. The heartbeat stays the hint across hosts, where a lock on a
shared disk is not to be trusted.

No lock is taken for an in-memory database, a session id that is no plain file name, or a folder
that cannot be written (a read-only copy): liveness then rests on the pid and heartbeat as before.
Lock files are kept when a session finishes (removing one while another process opens it would let
two processes lock two different files) and removed with their session.
"""

from __future__ import annotations

import fcntl
import os
import re
from pathlib import Path

_PLAIN_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")


class LockHeld(Exception):
    """Another process holds the session's lock."""


def lock_file(db_file: str, sid: str) -> Path | None:
    """Where the lock of ``sid`` lives (None: no lock for an in-memory database or an odd id)."""
    if not db_file or not _PLAIN_ID.fullmatch(sid):
        return None
    return Path(db_file + ".locks") / f"{sid}.lock"


def acquire(db_file: str, sid: str) -> int | None:
    """Lock ``sid`` for this process: the open descriptor holding the lock (close it to release), or
    None when no lock can be kept here; :class:`LockHeld` when another process holds it."""
    path = lock_file(db_file, sid)
    if path is None:
        return None
    try:
        path.parent.mkdir(exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)  # not inherited by child processes (PEP 446)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise LockHeld(sid) from None
    except OSError:  # a file system without locks
        os.close(fd)
        return None
    return fd


def release(fd: int | None) -> None:
    if fd is not None:
        os.close(fd)


def lock_held(db_file: str, sid: str) -> bool:
    """True when a process (this one through another descriptor included) holds the lock of ``sid``;
    False when it is free or there is no lock file (nothing is created here)."""
    path = lock_file(db_file, sid)
    if path is None:
        return False
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:
        return False
    finally:
        os.close(fd)  # closing releases the shared lock taken to look
    return False


def remove(db_file: str, sid: str) -> None:
    """Delete the lock file of a deleted session (nothing when there is none)."""
    path = lock_file(db_file, sid)
    if path is not None:
        path.unlink(missing_ok=True)
