"""Opening a user's input file without ever blocking on it or crashing on what the path is.

A path can name anything: a named pipe (reading it waits forever for a writer), a socket, a
device, a directory, a symbolic link to itself (``ELOOP``) or to nothing, a file we may not read.
:func:`path_problem` says in a few words what is wrong with a path, or ``None`` for a readable
regular file; :func:`read_input_file` returns a regular file's bytes or raises a one-line
:class:`BadInput` naming the file.

The file kind is checked with ``os.stat`` before opening (so a FIFO or device is never opened),
and again with ``os.fstat`` on the descriptor, opened ``O_NONBLOCK``, before reading: a path
swapped for a FIFO in between is refused instead of read.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from ragcov_tui.errors import BadInput

_KINDS = (
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISDIR, "a directory"),
)


def kind_problem(mode: int) -> str | None:
    """``is a named pipe (FIFO), not a regular file`` and the like; None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    kind = next((name for test, name in _KINDS if test(mode)), "not a file")
    return f"is {kind}, not a regular file"


def os_error_problem(exc: OSError, path: Path) -> str:
    """A few words for an ``OSError`` raised on ``path`` (loops and dangling links named as such)."""
    if exc.errno == errno.ELOOP:
        return "is a symbolic link loop (it points back to itself)"
    if exc.errno == errno.ENOENT and os.path.islink(path):
        return "is a broken symbolic link (its target does not exist)"
    if exc.errno == errno.ENOENT:
        return "no such file"
    if exc.errno == errno.EACCES:
        return "cannot read (permission denied)"
    return f"cannot read ({exc.strerror or type(exc).__name__})"


def path_problem(path: Path) -> str | None:
    """What stops ``path`` from being read as a regular file, in a few words; None when nothing."""
    try:
        return kind_problem(os.stat(path).st_mode)
    except OSError as exc:
        return os_error_problem(exc, path)
    except ValueError:  # an embedded NUL in the name
        return "is not a valid file name"


def read_input_file(path: Path, display: str | None = None) -> bytes:
    """The bytes of the regular file ``path``; BadInput ``<display>: <problem>`` otherwise.

    ``display`` names the file in the message (default: ``path`` as given).
    """
    name = display if display is not None else str(path)
    problem = path_problem(path)
    if problem is not None:
        raise BadInput(f"{name}: {problem}")
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise BadInput(f"{name}: {os_error_problem(exc, path)}") from None
    try:
        problem = kind_problem(os.fstat(fd).st_mode)
        if problem is not None:
            raise BadInput(f"{name}: {problem}")
        with os.fdopen(fd, "rb", closefd=False) as handle:
            return handle.read()
    except OSError as exc:
        raise BadInput(f"{name}: {os_error_problem(exc, path)}") from None
    finally:
        os.close(fd)
