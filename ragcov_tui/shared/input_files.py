"""Opening a user's input file without ever blocking on it or crashing on what the path is.

A path can name anything: a named pipe (reading it waits forever for a writer), a socket, a
device, a directory, a symbolic link to itself (``ELOOP``) or to nothing, a file we may not read.
:func:`path_problem` says in a few words what is wrong with a path, or ``None`` for a readable
regular file; :func:`read_input_file` returns a regular file's bytes or raises a one-line
:class:`BadInput` naming the file; :func:`read_input_text` decodes them by the one rule every text
reader shares (:func:`decode_text`: strict UTF-8, no UTF-16, no NUL byte, refused naming the line).
:func:`resolved` is ``Path.resolve`` that never raises on a link loop (it is left unresolved, for
the reader to refuse by name).

The file kind is checked with ``os.stat`` before opening (so a FIFO or device is never opened),
and again with ``os.fstat`` on the descriptor, opened ``O_NONBLOCK``, before reading: a path
swapped for a FIFO in between is refused instead of read.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from ragcov_tui.shared.errors import BadInput

_KINDS = (
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISDIR, "a directory"),
)

LINK_LOOP = "is a symbolic link loop (it points back to itself)"


def kind_problem(mode: int) -> str | None:
    """``is a named pipe (FIFO), not a regular file`` and the like; None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    kind = next((name for test, name in _KINDS if test(mode)), "not a file")
    return f"is {kind}, not a regular file"


def os_error_problem(exc: OSError, path: Path) -> str:
    """A few words for an ``OSError`` raised on ``path`` (loops and dangling links named as such)."""
    if exc.errno == errno.ELOOP:
        return LINK_LOOP
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


def require_regular_file(path: Path, display: str | None = None) -> None:
    """BadInput ``<display>: <problem>`` unless ``path`` is a readable regular file (checked
    without opening it: for readers that open the file themselves, e.g. by seeking in it)."""
    problem = path_problem(path)
    if problem is not None:
        raise BadInput(f"{display if display is not None else path}: {problem}")


def resolved(path: str | os.PathLike[str]) -> Path:
    """The absolute path with links followed; a link loop (or a name the OS refuses) is left as
    far as it resolves, never an error: whoever reads the path refuses it by name."""
    try:
        return Path(os.path.realpath(path))
    except (OSError, ValueError, RuntimeError):
        return Path(os.path.abspath(path))


_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")


def decode_text(data: bytes, display: str) -> str:
    """``data`` as text; BadInput naming ``display`` and the line of the first invalid UTF-8 or
    NUL byte, or the UTF-16 byte order mark. A UTF-8 BOM is kept (a writer may need the exact text)."""
    if data.startswith(_UTF16_BOMS):
        raise BadInput(f"{display}: UTF-16 text (save the file as UTF-8)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise BadInput(f"{display}:{line}: not valid UTF-8 (byte offset {exc.start})") from None
    nul = text.find("\0")
    if nul >= 0:
        line = text.count("\n", 0, nul) + 1
        raise BadInput(f"{display}:{line}: NUL byte (a binary file, or UTF-16 text: save it as UTF-8)")
    return text


def read_input_text(path: Path, display: str | None = None) -> tuple[str, bytes]:
    """``(text, bytes)`` of the regular file ``path`` (:func:`read_input_file`, :func:`decode_text`)."""
    data = read_input_file(path, display)
    return decode_text(data, display if display is not None else str(path)), data


def read_input_file(path: Path, display: str | None = None) -> bytes:
    """The bytes of the regular file ``path``; BadInput ``<display>: <problem>`` otherwise.

    ``display`` names the file in the message (default: ``path`` as given).
    """
    name = display if display is not None else str(path)
    require_regular_file(path, name)
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
