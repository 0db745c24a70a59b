"""Durable file steps of the write-back: a backup that is whole or absent, an atomic replace that
keeps the file's owner, group and mode.

- :func:`write_backup`: the bytes go to a temp name in ``<dir>/.ragcov-backups/``, are fsynced,
  and only then renamed to ``<name>.<UTC yyyymmddThhmmss.ffffff>.<sha8>.bak``; on any OSError
  (disk full, file too large, no permission) the partial temp file is removed and one
  :class:`BadInput` line says why — a truncated ``.bak`` never carries a real name. The folder
  carries its own ``.gitignore`` (``*``), so it never shows in ``git status``.
- :func:`prune_backups`: after a write, only the newest :func:`backups_kept` backups of that file
  stay (``$RAGCOV_KEEP_BACKUPS``, default 20; the app passes its ``keep_backups`` setting, from
  ``tui --keep-backups`` or ``ragcov.toml``, to :func:`ragcov_tui.testset.writer.commit` instead).
  An undo whose backup is gone undoes by content instead (:mod:`ragcov_tui.services.triage`).
- :func:`replace_atomically`: a temp file beside the target, fsynced, given the target's uid, gid
  and mode, checked against the expected digest, then ``os.replace`` (atomic) and the directory
  fsynced. When the owner cannot be kept (not root) the mode still is, and
  :func:`replace_atomically` returns a one-line note saying so — once per file per process.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
import tempfile
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from ragcov_tui.shared.error_text import os_reason
from ragcov_tui.shared.errors import BadInput, RagcovError

BACKUP_DIR = ".ragcov-backups"
TEMP_SUFFIX = ".ragcov-tmp"
KEEP_BACKUPS_ENV = "RAGCOV_KEEP_BACKUPS"
DEFAULT_KEEP_BACKUPS = 20
KEEP_BACKUPS_MAX = 1_000_000

_OWNER_NOTED: set[str] = set()  # files whose lost ownership was already reported by this process


class FileChangedError(BadInput):
    """The file on disk is not the version the caller read; nothing was written."""

    def __init__(self, path: Path | str) -> None:
        super().__init__(f"{path} changed on disk since it was read; reload before writing (nothing was written)")


def write_backup(file: Path, data: bytes, sha: str) -> Path:
    """Save ``data`` (the file's bytes, digest ``sha``) as a whole backup file; returns its path."""
    folder = file.parent / BACKUP_DIR
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S.%f")
    temp: Path | None = None
    try:
        folder.mkdir(exist_ok=True)
        _ignore_in_git(folder)
        original = file.stat()
        temp = _write_temp(folder, f".{file.name}.", data, original)
        keep_owner(temp, original)
        names = (folder / f"{file.name}.{stamp}.{sha[:8]}{f'.{n}' if n else ''}.bak" for n in range(100))
        backup = next((name for name in names if not name.exists()), None)
        if backup is None:
            raise FileExistsError(f"too many backups named {file.name}.{stamp}")
        os.replace(temp, backup)
        temp = None
        _fsync_directory(folder)
        return backup
    except OSError as exc:
        raise BadInput(
            f"{file}: cannot write a backup in {folder} ({exc.strerror or exc}); no partial backup "
            "was left and nothing was written"
        ) from None
    finally:
        if temp is not None:
            temp.unlink(missing_ok=True)


def backups_kept() -> int:
    """How many backups of a file a write keeps: ``$RAGCOV_KEEP_BACKUPS`` (1 to 1,000,000), else
    :data:`DEFAULT_KEEP_BACKUPS`; a bad value is a one-line BadInput naming the variable."""
    raw = os.environ.get(KEEP_BACKUPS_ENV, "").strip()
    if not raw:
        return DEFAULT_KEEP_BACKUPS
    if not raw.isdigit() or not 1 <= int(raw) <= KEEP_BACKUPS_MAX:
        raise BadInput(f"${KEEP_BACKUPS_ENV}: expected a whole number from 1 to {KEEP_BACKUPS_MAX:,}, got {raw!r}")
    return int(raw)


def prune_backups(file: Path, keep: int) -> int:
    """Delete all but the ``keep`` newest backups of ``file`` (by their UTC stamp, then the ``.<n>``
    of a second backup in one microsecond; other files' backups and anything else in the folder
    are left alone); returns how many were deleted. A backup that cannot be deleted stays (the
    next write tries again)."""
    pattern = re.compile(re.escape(file.name) + r"\.(\d{8}T\d{6}\.\d{6})\.[0-9a-f]{8}(?:\.(\d+))?\.bak")
    try:
        found = [
            (m.group(1), int(m.group(2) or 0), p)
            for p in (file.parent / BACKUP_DIR).iterdir()
            if (m := pattern.fullmatch(p.name))
        ]
    except OSError:
        return 0
    deleted = 0
    for _, _, old in sorted(found)[: max(0, len(found) - keep)]:
        try:
            old.unlink()
            deleted += 1
        except OSError:
            pass
    return deleted


def _ignore_in_git(folder: Path) -> None:
    """A ``.gitignore`` holding ``*`` in the backup folder (itself included), written once."""
    marker = folder / ".gitignore"
    if not marker.exists():
        marker.write_text("# ragcov's backups of the test file: never committed\n*\n", encoding="utf-8")


def replace_atomically(
    file: Path, data: bytes, expected_sha256: str, before_replace: Callable[[], None] | None = None
) -> str | None:
    """Put ``data`` in place of ``file`` atomically, keeping its uid, gid and mode.

    Refuses (:class:`FileChangedError`, nothing written) unless the file still has
    ``expected_sha256`` just before the replace. ``before_replace`` runs right before the rename
    (the write-ahead record); if it raises, nothing is replaced. Returns a note when the owner
    could not be kept (first time for this file only), else None.
    """
    original = file.stat()
    try:
        temp = _write_temp(file.parent, f".{file.name}.", data, original)
    except OSError as exc:
        raise BadInput(f"{file}: cannot write in {file.parent} ({exc.strerror or exc}); nothing was written") from None
    try:
        owner_kept = keep_owner(temp, original)
        if hashlib.sha256(file.read_bytes()).hexdigest() != expected_sha256:
            raise FileChangedError(file)
        if before_replace is not None:
            before_replace()
        os.replace(temp, file)
    except OSError as exc:
        temp.unlink(missing_ok=True)
        raise RagcovError(f"{file}: cannot write ({os_reason(exc)}); nothing was written") from None
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    _fsync_directory(file.parent)
    return None if owner_kept else owner_note(file, original)


def keep_owner(path: Path, original: os.stat_result) -> bool:
    """Give ``path`` the uid, gid and mode of ``original``; False when the owner could not be set
    (the mode is set all the same). chown comes first: it may clear set-id bits that chmod restores."""
    kept = True
    now = path.stat()
    if (now.st_uid, now.st_gid) != (original.st_uid, original.st_gid):
        try:
            os.chown(path, original.st_uid, original.st_gid)
        except OSError:
            kept = False
    os.chmod(path, stat.S_IMODE(original.st_mode))
    return kept


def owner_note(file: Path, original: os.stat_result) -> str | None:
    """The one-line note that ``file``'s owner was not kept, the first time only."""
    if str(file) in _OWNER_NOTED:
        return None
    _OWNER_NOTED.add(str(file))
    return f"{file}: could not keep its owner {original.st_uid}:{original.st_gid} (not allowed); its mode was kept"


def _write_temp(folder: Path, prefix: str, data: bytes, like: os.stat_result) -> Path:
    """``data`` in a new fsynced temp file in ``folder`` with ``like``'s mode; removed again on error."""
    descriptor, name = tempfile.mkstemp(dir=folder, prefix=prefix, suffix=TEMP_SUFFIX)
    temp = Path(name)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp, stat.S_IMODE(like.st_mode))
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    return temp


def _fsync_directory(folder: Path) -> None:
    """Make a rename durable where the platform allows it (not on Windows)."""
    try:
        descriptor = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)
